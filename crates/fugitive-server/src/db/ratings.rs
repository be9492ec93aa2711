//! SQL of ratings (issue 25, `model/rating.rs`): settled by the writer in the same transaction
//! as a game's last action, so a crash never loses a rating change or makes it twice (the
//! `rated_games` key holds each game once). Two doors, one per writer: sqlx (PostgreSQL, and
//! SQLite through sqlx) and the SQLite thread's rusqlite connection; the same SQL, the same
//! steps.
//!
//! Lock order: the writer touches every room of its batch first (in the order of the rooms);
//! ratings come after, locked in the order of (profile, role) for the whole batch. Every
//! transaction takes rooms before ratings and each in one order, so two nodes never deadlock.

use std::collections::BTreeMap;

use fugitive_core::{Outcome, Role};
use rusqlite::OptionalExtension;
use sqlx::{Any, Row, Transaction};
use uuid::Uuid;

use super::{DbError, role_name};
use crate::model::rating::{self, Finished, Rating};

/// A game that just ended, in this batch.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Ending {
    pub(crate) room: Uuid,
    pub(crate) game: u64,
    pub(crate) outcome: Outcome,
    pub(crate) at: i64,
}

const FACTS: &str = "SELECT r.turn_clock_secs, r.computer, g.fugitive_seat, r.casual FROM rooms r \
     JOIN games g ON g.room_id = r.id WHERE r.id = $1 AND g.game = $2";
const SEATS: &str = "SELECT ps.seat, ps.profile_id FROM profile_seats ps \
     JOIN profiles p ON p.id = ps.profile_id WHERE ps.room_id = $1 AND p.deleted_at IS NULL";
const MOVES: &str =
    "SELECT COUNT(*) FROM actions WHERE room_id = $1 AND game = $2 AND role = $3 AND seat IS NOT NULL";
const ENSURE: &str = "INSERT INTO ratings (profile_id, role, rating, deviation, volatility, games, updated_at) \
     VALUES ($1, $2, $3, $4, $5, 0, $6) ON CONFLICT (profile_id, role) DO NOTHING";
/// Takes the row's lock (PostgreSQL) before it is read.
const LOCK: &str = "UPDATE ratings SET games = games WHERE profile_id = $1 AND role = $2";
const READ: &str =
    "SELECT rating, deviation, volatility, games FROM ratings WHERE profile_id = $1 AND role = $2";
const RECORD: &str = "INSERT INTO rated_games (room_id, game, fugitive_profile, marshal_profile, winner, reason, \
     fugitive_before, fugitive_after, marshal_before, marshal_after, at) \
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11) ON CONFLICT (room_id, game) DO NOTHING";
const UPDATE: &str = "UPDATE ratings SET rating = $1, deviation = $2, volatility = $3, games = $4, updated_at = $5 \
     WHERE profile_id = $6 AND role = $7";

/// What the database says of a finished game.
struct Facts {
    clock: bool,
    computer: bool,
    fugitive_seat: i64,
    /// The live profile of seat 0 and of seat 1.
    profiles: [Option<String>; 2],
    loser_moves: u64,
}

impl Facts {
    /// The two profiles, Fugitive's first, if the game is rated.
    fn rated(&self, outcome: Outcome) -> Option<(String, String)> {
        let fugitive = self.profiles.get(usize::try_from(self.fugitive_seat).ok()?)?.clone();
        let marshal = self.profiles.get(usize::try_from(1 - self.fugitive_seat).ok()?)?.clone();
        let finished = Finished {
            outcome,
            clock: self.clock,
            computer: self.computer,
            fugitive: fugitive.as_deref(),
            marshal: marshal.as_deref(),
            loser_moves: self.loser_moves,
        };
        rating::rated(&finished).ok()?;
        Some((fugitive?, marshal?))
    }
}

/// Whether a room's stored computer options put a bot in a seat.
fn has_bot(computer: Option<&str>) -> bool {
    computer
        .and_then(|text| serde_json::from_str::<serde_json::Value>(text).ok())
        .is_some_and(|options| !options["bot"].is_null())
}

fn reason_name(outcome: Outcome) -> String {
    serde_json::to_value(outcome.reason).ok().and_then(|v| v.as_str().map(str::to_string)).unwrap_or_default()
}

/// A rated game of the batch and its two sides.
struct Rated {
    ending: Ending,
    fugitive: String,
    marshal: String,
}

/// Every (profile, role) the batch rates, in lock order.
fn keys(rated: &[Rated]) -> Vec<(String, Role)> {
    let mut keys: Vec<(String, Role)> = rated
        .iter()
        .flat_map(|r| [(r.fugitive.clone(), Role::Fugitive), (r.marshal.clone(), Role::Marshal)])
        .collect();
    keys.sort_by(|a, b| (&a.0, role_name(a.1)).cmp(&(&b.0, role_name(b.1))));
    keys.dedup();
    keys
}

/// One rated game's rows: the record and both new ratings.
struct Settled {
    fugitive: (Rating, Rating),
    marshal: (Rating, Rating),
}

fn settle_one(current: &BTreeMap<(String, &'static str), Rating>, game: &Rated) -> Settled {
    let fugitive = current[&(game.fugitive.clone(), "fugitive")];
    let marshal = current[&(game.marshal.clone(), "marshal")];
    let (f, m) = rating::rate(fugitive, marshal, game.ending.outcome.winner);
    Settled { fugitive: (fugitive, f), marshal: (marshal, m) }
}

/// Rates the games of the batch that ended and are rated (sqlx).
///
/// # Errors
/// On a database failure: the whole batch fails with it.
pub(crate) async fn settle(tx: &mut Transaction<'_, Any>, endings: &[Ending]) -> Result<(), DbError> {
    let mut rated = Vec::new();
    for ending in endings {
        let room = ending.room.to_string();
        let Some(row) =
            sqlx::query(FACTS).bind(&room).bind(ending.game as i64).fetch_optional(&mut **tx).await?
        else {
            continue;
        };
        let (clock, computer, fugitive_seat): (Option<i64>, Option<String>, i64) =
            (row.get(0), row.get(1), row.get(2));
        if row.get::<Option<i64>, _>(3).is_some_and(|casual| casual != 0) {
            continue;
        }
        let mut profiles = [None, None];
        for row in sqlx::query(SEATS).bind(&room).fetch_all(&mut **tx).await? {
            if let Some(slot) = usize::try_from(row.get::<i64, _>(0)).ok().and_then(|s| profiles.get_mut(s)) {
                *slot = Some(row.get::<String, _>(1));
            }
        }
        let loser = role_name(ending.outcome.winner.opponent());
        let moves: i64 = sqlx::query(MOVES)
            .bind(&room)
            .bind(ending.game as i64)
            .bind(loser)
            .fetch_one(&mut **tx)
            .await?
            .get(0);
        let facts = Facts {
            clock: clock.is_some(),
            computer: has_bot(computer.as_deref()),
            fugitive_seat,
            profiles,
            loser_moves: moves.max(0) as u64,
        };
        if let Some((fugitive, marshal)) = facts.rated(ending.outcome) {
            rated.push(Rated { ending: *ending, fugitive, marshal });
        }
    }
    let mut current = BTreeMap::new();
    let start = Rating::default();
    for (profile, role) in keys(&rated) {
        let role = role_name(role);
        sqlx::query(ENSURE)
            .bind(&profile)
            .bind(role)
            .bind(start.rating)
            .bind(start.deviation)
            .bind(start.volatility)
            .bind(endings[0].at)
            .execute(&mut **tx)
            .await?;
        sqlx::query(LOCK).bind(&profile).bind(role).execute(&mut **tx).await?;
        let row = sqlx::query(READ).bind(&profile).bind(role).fetch_one(&mut **tx).await?;
        let rating =
            Rating { rating: row.get(0), deviation: row.get(1), volatility: row.get(2), games: row.get(3) };
        current.insert((profile, role), rating);
    }
    for game in &rated {
        let settled = settle_one(&current, game);
        let e = game.ending;
        let recorded = sqlx::query(RECORD)
            .bind(e.room.to_string())
            .bind(e.game as i64)
            .bind(&game.fugitive)
            .bind(&game.marshal)
            .bind(role_name(e.outcome.winner))
            .bind(reason_name(e.outcome))
            .bind(settled.fugitive.0.rating)
            .bind(settled.fugitive.1.rating)
            .bind(settled.marshal.0.rating)
            .bind(settled.marshal.1.rating)
            .bind(e.at)
            .execute(&mut **tx)
            .await?
            .rows_affected();
        if recorded == 0 {
            continue;
        }
        for (profile, role, new) in
            [(&game.fugitive, "fugitive", settled.fugitive.1), (&game.marshal, "marshal", settled.marshal.1)]
        {
            sqlx::query(UPDATE)
                .bind(new.rating)
                .bind(new.deviation)
                .bind(new.volatility)
                .bind(new.games)
                .bind(e.at)
                .bind(profile)
                .bind(role)
                .execute(&mut **tx)
                .await?;
            current.insert((profile.clone(), role), new);
        }
    }
    Ok(())
}

/// [`settle`] on the SQLite thread's connection.
///
/// # Errors
/// On a database failure: the whole batch fails with it.
pub(crate) fn settle_sqlite(tx: &rusqlite::Transaction<'_>, endings: &[Ending]) -> Result<(), DbError> {
    let mut rated = Vec::new();
    for ending in endings {
        let room = ending.room.to_string();
        let facts = tx
            .query_row(FACTS, rusqlite::params![room, ending.game as i64], |row| {
                Ok((
                    row.get::<_, Option<i64>>(0)?,
                    row.get::<_, Option<String>>(1)?,
                    row.get::<_, i64>(2)?,
                    row.get::<_, Option<i64>>(3)?,
                ))
            })
            .optional()?;
        let Some((clock, computer, fugitive_seat, casual)) = facts else {
            continue;
        };
        if casual.is_some_and(|casual| casual != 0) {
            continue;
        }
        let mut profiles = [None, None];
        let mut seats = tx.prepare_cached(SEATS)?;
        let rows = seats.query_map(rusqlite::params![room], |row| {
            Ok((row.get::<_, i64>(0)?, row.get::<_, String>(1)?))
        })?;
        for row in rows {
            let (seat, profile) = row?;
            if let Some(slot) = usize::try_from(seat).ok().and_then(|s| profiles.get_mut(s)) {
                *slot = Some(profile);
            }
        }
        let loser = role_name(ending.outcome.winner.opponent());
        let moves: i64 =
            tx.query_row(MOVES, rusqlite::params![room, ending.game as i64, loser], |row| row.get(0))?;
        let facts = Facts {
            clock: clock.is_some(),
            computer: has_bot(computer.as_deref()),
            fugitive_seat,
            profiles,
            loser_moves: moves.max(0) as u64,
        };
        if let Some((fugitive, marshal)) = facts.rated(ending.outcome) {
            rated.push(Rated { ending: *ending, fugitive, marshal });
        }
    }
    let mut current = BTreeMap::new();
    let start = Rating::default();
    for (profile, role) in keys(&rated) {
        let role = role_name(role);
        tx.execute(
            ENSURE,
            rusqlite::params![profile, role, start.rating, start.deviation, start.volatility, endings[0].at],
        )?;
        let rating = tx.query_row(READ, rusqlite::params![profile, role], |row| {
            Ok(Rating {
                rating: row.get(0)?,
                deviation: row.get(1)?,
                volatility: row.get(2)?,
                games: row.get(3)?,
            })
        })?;
        current.insert((profile, role), rating);
    }
    for game in &rated {
        let settled = settle_one(&current, game);
        let e = game.ending;
        let recorded = tx.execute(
            RECORD,
            rusqlite::params![
                e.room.to_string(),
                e.game as i64,
                game.fugitive,
                game.marshal,
                role_name(e.outcome.winner),
                reason_name(e.outcome),
                settled.fugitive.0.rating,
                settled.fugitive.1.rating,
                settled.marshal.0.rating,
                settled.marshal.1.rating,
                e.at,
            ],
        )?;
        if recorded == 0 {
            continue;
        }
        for (profile, role, new) in
            [(&game.fugitive, "fugitive", settled.fugitive.1), (&game.marshal, "marshal", settled.marshal.1)]
        {
            tx.execute(
                UPDATE,
                rusqlite::params![new.rating, new.deviation, new.volatility, new.games, e.at, profile, role],
            )?;
            current.insert((profile.clone(), role), new);
        }
    }
    Ok(())
}

/// A profile's current rating in each role it has played rated games in.
///
/// # Errors
/// On a database failure.
pub async fn of_profile(db: &super::Db, profile: &str) -> Result<Vec<(Role, Rating)>, DbError> {
    let rows =
        sqlx::query("SELECT role, rating, deviation, volatility, games FROM ratings WHERE profile_id = $1")
            .bind(profile)
            .fetch_all(db.pool())
            .await?;
    Ok(rows
        .into_iter()
        .filter_map(|row| {
            let role = match row.get::<String, _>(0).as_str() {
                "fugitive" => Role::Fugitive,
                "marshal" => Role::Marshal,
                _ => return None,
            };
            Some((
                role,
                Rating {
                    rating: row.get(1),
                    deviation: row.get(2),
                    volatility: row.get(3),
                    games: row.get(4),
                },
            ))
        })
        .collect())
}

/// One rated game as a profile's page lists it.
#[derive(Clone, Debug, PartialEq)]
pub struct RatedGame {
    /// The room and the game's number in it (its replay is `/room/{room}/game/{game}`).
    pub room: String,
    /// See `room`.
    pub game: i64,
    /// The role the profile played.
    pub role: Role,
    /// The opponent's profile id.
    pub opponent: String,
    /// Who won, and why (`Reason`'s wire name).
    pub winner: Role,
    /// See `winner`.
    pub reason: String,
    /// The profile's rating in its role before and after.
    pub before: f64,
    /// See `before`.
    pub after: f64,
    /// When it ended (Unix ms).
    pub at: i64,
}

/// The rated games of a profile, newest first, at most `limit`.
///
/// # Errors
/// On a database failure.
pub async fn games_of(db: &super::Db, profile: &str, limit: i64) -> Result<Vec<RatedGame>, DbError> {
    let rows = sqlx::query(
        "SELECT room_id, game, fugitive_profile, marshal_profile, winner, reason, fugitive_before, fugitive_after, \
         marshal_before, marshal_after, at FROM rated_games WHERE fugitive_profile = $1 OR marshal_profile = $1 \
         ORDER BY at DESC LIMIT $2",
    )
    .bind(profile)
    .bind(limit)
    .fetch_all(db.pool())
    .await?;
    Ok(rows
        .into_iter()
        .map(|row| {
            let fugitive: String = row.get(2);
            let as_fugitive = fugitive == profile;
            let winner = if row.get::<String, _>(4) == "fugitive" { Role::Fugitive } else { Role::Marshal };
            RatedGame {
                room: row.get(0),
                game: row.get(1),
                role: if as_fugitive { Role::Fugitive } else { Role::Marshal },
                opponent: if as_fugitive { row.get(3) } else { fugitive },
                winner,
                reason: row.get(5),
                before: if as_fugitive { row.get(6) } else { row.get(8) },
                after: if as_fugitive { row.get(7) } else { row.get(9) },
                at: row.get(10),
            }
        })
        .collect())
}

/// A game's rating change for both sides: `(fugitive profile, before, after)` and the
/// Marshal's, if the game was rated.
///
/// # Errors
/// On a database failure.
pub async fn of_game(
    db: &super::Db,
    room: &str,
    game: i64,
) -> Result<Option<[(String, f64, f64); 2]>, DbError> {
    let row = sqlx::query(
        "SELECT fugitive_profile, fugitive_before, fugitive_after, marshal_profile, marshal_before, marshal_after \
         FROM rated_games WHERE room_id = $1 AND game = $2",
    )
    .bind(room)
    .bind(game)
    .fetch_optional(db.pool())
    .await?;
    Ok(row.map(|row| [(row.get(0), row.get(1), row.get(2)), (row.get(3), row.get(4), row.get(5))]))
}

/// How many rated games a profile won in each role: as the Fugitive, as the Marshal.
///
/// # Errors
/// On a database failure.
pub async fn wins(db: &super::Db, profile: &str) -> Result<[i64; 2], DbError> {
    let row = sqlx::query(
        "SELECT \
         (SELECT COUNT(*) FROM rated_games WHERE fugitive_profile = $1 AND winner = 'fugitive'), \
         (SELECT COUNT(*) FROM rated_games WHERE marshal_profile = $1 AND winner = 'marshal')",
    )
    .bind(profile)
    .fetch_one(db.pool())
    .await?;
    Ok([row.get(0), row.get(1)])
}

/// One line of a leaderboard.
#[derive(Clone, Debug, PartialEq)]
pub struct Leader {
    /// The profile.
    pub profile: String,
    /// Its name, if it has one.
    pub name: Option<String>,
    /// Its rating in the board's role.
    pub rating: Rating,
    /// Its rated games in that role since the cut-off.
    pub recent: i64,
}

/// The most lines a leaderboard has.
pub const LEADERS: i64 = 50;

/// The fewest rated games in the role since the cut-off to be on its leaderboard.
pub const LEADER_MIN_GAMES: i64 = 10;

/// The leaderboard of a role: the top [`LEADERS`] live profiles by rating with at least
/// [`LEADER_MIN_GAMES`] rated games in that role since `since` (Unix ms).
///
/// # Errors
/// On a database failure.
pub async fn leaders(db: &super::Db, role: Role, since: i64) -> Result<Vec<Leader>, DbError> {
    // The role's column of rated_games: one of two fixed names, never the client's text.
    let column = match role {
        Role::Fugitive => "fugitive_profile",
        Role::Marshal => "marshal_profile",
    };
    let sql = format!(
        "SELECT r.profile_id, p.name, r.rating, r.deviation, r.volatility, r.games, g.recent \
         FROM ratings r JOIN profiles p ON p.id = r.profile_id \
         JOIN (SELECT {column} AS profile_id, COUNT(*) AS recent FROM rated_games WHERE at >= $1 GROUP BY {column}) g \
         ON g.profile_id = r.profile_id \
         WHERE r.role = $2 AND p.deleted_at IS NULL AND g.recent >= $3 \
         ORDER BY r.rating DESC, r.profile_id LIMIT $4"
    );
    let rows = sqlx::query(&sql)
        .bind(since)
        .bind(role_name(role))
        .bind(LEADER_MIN_GAMES)
        .bind(LEADERS)
        .fetch_all(db.pool())
        .await?;
    Ok(rows
        .into_iter()
        .map(|row| Leader {
            profile: row.get(0),
            name: row.get(1),
            rating: Rating {
                rating: row.get(2),
                deviation: row.get(3),
                volatility: row.get(4),
                games: row.get(5),
            },
            recent: row.get(6),
        })
        .collect())
}

/// Marks a room casual: its games are never rated.
///
/// # Errors
/// On a database failure.
pub async fn mark_casual(db: &super::Db, room: &str) -> Result<(), DbError> {
    sqlx::query("UPDATE rooms SET casual = 1 WHERE id = $1").bind(room).execute(db.pool()).await?;
    Ok(())
}
