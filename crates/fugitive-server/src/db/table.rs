//! The table's rows (`model/table.rs`): the seats' names, the chat, the series' length, and
//! the series counted from the finished games.

use uuid::Uuid;

use super::{Db, DbError};
use crate::model::seat::Seat;
use crate::model::table::{CHAT_HISTORY, ChatBody, ChatLine, Quick, Series, Stored};

/// Loads a room's table.
///
/// # Errors
/// On a database failure.
pub async fn load(db: &Db, room: Uuid) -> Result<Stored, DbError> {
    let id = room.to_string();
    let rows: Vec<(i64, Option<String>, Option<i64>)> =
        sqlx::query_as("SELECT seat, name, chat_public FROM seats WHERE room_id = $1")
            .bind(&id)
            .fetch_all(db.pool())
            .await?;
    let mut stored = Stored::default();
    for (seat, name, public) in rows {
        if let Some(seat) = Seat::from_index(seat) {
            stored.names[seat.index()] = name;
            stored.chat_public[seat.index()] = public == Some(1);
        }
    }
    type ChatRow = (i64, i64, Option<String>, Option<String>, i64);
    let rows: Vec<ChatRow> = sqlx::query_as(
        "SELECT number, seat, text, quick, at FROM chat WHERE room_id = $1 ORDER BY number DESC LIMIT $2",
    )
    .bind(&id)
    .bind(CHAT_HISTORY as i64)
    .fetch_all(db.pool())
    .await?;
    stored.chat_last = rows.first().map_or(0, |row| row.0 as u64);
    stored.series = load_series(db, room).await?;
    for (number, seat, text, quick, at) in rows.into_iter().rev() {
        let corrupt = || DbError::Corrupt(format!("chat message {number} of room {id}"));
        let body = match (text, quick) {
            (Some(text), None) => ChatBody::Text(text),
            (None, Some(quick)) => ChatBody::Quick(Quick::from_id(&quick).ok_or_else(corrupt)?),
            _ => return Err(corrupt()),
        };
        let seat = Seat::from_index(seat).ok_or_else(corrupt)?;
        stored.chat.push(ChatLine { number: number as u64, seat, body, at });
    }
    Ok(stored)
}

/// Stores a seat's name (`None` clears it).
///
/// # Errors
/// On a database failure; then nothing was written.
pub async fn store_name(db: &Db, room: Uuid, seat: Seat, name: Option<&str>) -> Result<(), DbError> {
    sqlx::query("UPDATE seats SET name = $1 WHERE room_id = $2 AND seat = $3")
        .bind(name)
        .bind(room.to_string())
        .bind(seat.index() as i64)
        .execute(db.pool())
        .await?;
    Ok(())
}

/// Counts the series from the finished games: each is replayed to learn who won it.
async fn load_series(db: &Db, room: Uuid) -> Result<Series, DbError> {
    let id = room.to_string();
    let best_of: Option<i64> = sqlx::query_scalar("SELECT series_best_of FROM rooms WHERE id = $1")
        .bind(&id)
        .fetch_optional(db.pool())
        .await?
        .flatten();
    let finished: Vec<i64> = sqlx::query_scalar(
        "SELECT game FROM games WHERE room_id = $1 AND finished_at IS NOT NULL ORDER BY game",
    )
    .bind(&id)
    .fetch_all(db.pool())
    .await?;
    let mut series = Series { wins: [0, 0], best_of: best_of.map(|n| n as u64) };
    for number in finished {
        let corrupt = |what: &str| DbError::Corrupt(format!("game {number} of room {id}: {what}"));
        let game = db.load_game(room, number as u64).await?.ok_or_else(|| corrupt("missing"))?;
        let log = game.actions.iter().map(|record| (record.role, record.action));
        let replay = crate::model::replay::replay(game.setup, log).map_err(|e| corrupt(&e.to_string()))?;
        replay.outcome().ok_or_else(|| corrupt("finished but not over"))?;
        series.count(&replay, game.fugitive_seat);
    }
    Ok(series)
}

/// Stores a room's "best of n" (before anyone knows the room).
///
/// # Errors
/// On a database failure.
pub async fn store_best_of(db: &Db, room: Uuid, best_of: u64) -> Result<(), DbError> {
    sqlx::query("UPDATE rooms SET series_best_of = $1 WHERE id = $2")
        .bind(best_of as i64)
        .bind(room.to_string())
        .execute(db.pool())
        .await?;
    Ok(())
}

/// Stores a chat message.
///
/// # Errors
/// On a database failure; then nothing was written.
pub async fn store_chat(db: &Db, room: Uuid, line: &ChatLine) -> Result<(), DbError> {
    let (text, quick) = match &line.body {
        ChatBody::Text(text) => (Some(text.as_str()), None),
        ChatBody::Quick(quick) => (None, Some(quick.id())),
    };
    sqlx::query("INSERT INTO chat (room_id, number, seat, text, quick, at) VALUES ($1, $2, $3, $4, $5, $6)")
        .bind(room.to_string())
        .bind(line.number as i64)
        .bind(line.seat.index() as i64)
        .bind(text)
        .bind(quick)
        .bind(line.at)
        .execute(db.pool())
        .await?;
    Ok(())
}

/// Stores whether a seat lets spectators read the chat.
///
/// # Errors
/// On a database failure; then nothing was written.
pub async fn store_chat_public(db: &Db, room: Uuid, seat: Seat, public: bool) -> Result<(), DbError> {
    sqlx::query("UPDATE seats SET chat_public = $1 WHERE room_id = $2 AND seat = $3")
        .bind(public.then_some(1i64))
        .bind(room.to_string())
        .bind(seat.index() as i64)
        .execute(db.pool())
        .await?;
    Ok(())
}
