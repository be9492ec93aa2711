//! A batch's rows on PostgreSQL in one statement (issue 28): the writer's per-action
//! statements cost two round trips per action (about 200 per batch at full speed), each parsed,
//! planned and answered by PostgreSQL. Here the whole batch goes as one JSON parameter, and one
//! statement locks the rooms' rows in the order of their ids, touches the rooms whose
//! `touched_at` is older than the writer's `touch_every`, appends the actions, marks the games
//! they ended, `NOTIFY`s the other nodes of each stored action, and returns only the actions
//! it did not store, with why (issue 28: none, nearly always; it returned each live room and
//! each stored action, two rows per action for the server to decode). The same checks as
//! [`super`]'s per-action `write`: a room that expired gets no action (`Expired`); an action
//! whose number another node stored first is not stored (`Conflict`).
//!
//! Being one statement, it is its own transaction when no other statement must share it (the
//! writer then sends no `BEGIN` and no `COMMIT`): the answer comes once it is committed.
//!
//! Why a room is not touched by every action (issue 28, stop 34): `rooms_touched_at` indexes
//! `touched_at`, so each touch was an update with no HOT: a new row version and two index
//! entries per action, and a table of dead rows for the next batch's lock to scan. At 100
//! actions a batch that was a quarter of PostgreSQL's CPU per action. Expiry allows for the
//! slack (`Db::stale_rooms`).

use std::collections::HashMap;

use serde::Serialize;
use sqlx::{Any, Executor, Row};

use super::super::{DbError, role_name, to_json};
use super::{Append, Written};

/// One row of the statement's input (`jsonb_to_recordset`).
#[derive(Serialize)]
struct Input<'a> {
    room_id: String,
    game: i64,
    number: i64,
    role: &'a str,
    action: String,
    seat: Option<i64>,
    client_seq: Option<i64>,
    at: i64,
    finished: bool,
}

/// `locked` takes the rooms' row locks in the order of their ids (a `LockRows` above the sort),
/// as the per-action path does, so two nodes' batches never wait for each other in a cycle;
/// the lock also keeps expiry out (it updates the row) until this commits. Every
/// data-modifying part sees the same snapshot; `inserted`, `finished` and `notified` only
/// follow what the parts before them returned. `$2` is `touch_every` in ms; `$3` the channel
/// and `$4` the notices' head (`a {node} {sent} `), or both NULL for no notice. A notice holds
/// at most 50 lines (under 7,000 of PostgreSQL's 8,000 bytes). The data-modifying parts run
/// whether their rows are read or not; `notified`, a query, runs because its count is read.
/// The rows back: kind 0, an action whose room expired; kind 1, one whose number was taken;
/// kind 2, the count of notices.
const STATEMENT: &str = "\
WITH input AS (
    SELECT * FROM jsonb_to_recordset($1::jsonb) AS i(
        room_id text, game bigint, number bigint, role text, action text,
        seat bigint, client_seq bigint, at bigint, finished boolean)
), locked AS (
    SELECT r.id, r.touched_at FROM rooms r
    WHERE r.id IN (SELECT room_id FROM input) AND r.expired_at IS NULL
    ORDER BY r.id FOR UPDATE
), touched AS (
    UPDATE rooms SET touched_at = i.at FROM input i, locked l
    WHERE rooms.id = l.id AND i.room_id = l.id AND l.touched_at < i.at - $2::bigint
    RETURNING rooms.id
), inserted AS (
    INSERT INTO actions (room_id, game, number, role, action, seat, client_seq, at)
    SELECT i.room_id, i.game, i.number, i.role, i.action, i.seat, i.client_seq, i.at
    FROM input i WHERE i.room_id IN (SELECT id FROM locked)
    ORDER BY i.room_id, i.game, i.number
    ON CONFLICT (room_id, game, number) DO NOTHING
    RETURNING room_id, game, number
), finished AS (
    UPDATE games SET finished_at = i.at FROM input i, inserted s
    WHERE i.finished AND s.room_id = i.room_id AND s.game = i.game AND s.number = i.number
      AND games.room_id = i.room_id AND games.game = i.game
    RETURNING games.room_id
), notified AS (
    SELECT pg_notify($3::text,
        string_agg($4::text || room_id || ' ' || game || ' ' || number, E'\\n' ORDER BY room_id, game, number))
    FROM (SELECT room_id, game, number,
              (row_number() OVER (ORDER BY room_id, game, number) - 1) / 50 AS chunk
          FROM inserted) s
    WHERE $3::text IS NOT NULL
    GROUP BY chunk
)
SELECT 0::bigint AS kind, i.room_id, i.game, i.number FROM input i
WHERE i.room_id NOT IN (SELECT id FROM locked)
UNION ALL
SELECT 1::bigint, i.room_id, i.game, i.number FROM input i
WHERE i.room_id IN (SELECT id FROM locked)
  AND (i.room_id, i.game, i.number) NOT IN (SELECT room_id, game, number FROM inserted)
UNION ALL
SELECT 2::bigint, '', count(*), 0 FROM notified";

/// The notices of a batch: PostgreSQL's channel and each line's head (`a {node} {sent} `).
pub(crate) struct Notices<'a> {
    pub(crate) channel: &'a str,
    pub(crate) head: String,
}

/// Writes the rows of every action of `batch` in one statement; for each action, what became
/// of it (in `batch`'s order).
pub(crate) async fn write_all<'c>(
    executor: impl Executor<'c, Database = Any>,
    batch: &[Append],
    touch_every_ms: i64,
    notices: Option<Notices<'_>>,
) -> Result<Vec<Written>, DbError> {
    let input: Vec<Input<'_>> = batch
        .iter()
        .map(|append| Input {
            room_id: append.room.to_string(),
            game: append.game as i64,
            number: append.number as i64,
            role: role_name(append.record.role),
            action: to_json(&append.record.action),
            seat: append.record.seat.map(|s| s.index() as i64),
            client_seq: append.record.client_seq.map(|s| s as i64),
            at: append.record.at,
            finished: append.finished.is_some(),
        })
        .collect();
    let (channel, head) = match notices {
        Some(notices) => (Some(notices.channel.to_string()), Some(notices.head)),
        None => (None, None),
    };
    let rows = sqlx::query(STATEMENT)
        .bind(to_json(&input))
        .bind(touch_every_ms)
        .bind(channel)
        .bind(head)
        .fetch_all(executor)
        .await?;
    // Only the actions not stored come back (none, nearly always), and the notices' count.
    let mut not_stored = HashMap::new();
    for row in rows {
        let written = match row.try_get::<i64, _>(0)? {
            0 => Written::Expired,
            1 => Written::Conflict,
            _ => continue,
        };
        let key = (row.try_get::<String, _>(1)?, row.try_get::<i64, _>(2)?, row.try_get::<i64, _>(3)?);
        not_stored.insert(key, written);
    }
    Ok(input
        .into_iter()
        .map(|i| not_stored.get(&(i.room_id, i.game, i.number)).copied().unwrap_or(Written::Stored))
        .collect())
}
