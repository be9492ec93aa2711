//! SQL of puzzles (issue 26, `model/puzzle.rs`): the puzzles, the attempts handed out (each
//! answered once), the profiles' puzzle ratings, and the finished games the miner has claimed.
//! Portable SQL through the pool, as `profiles.rs` does.
//!
//! Lock order of an answer: the attempt, then the puzzle, then the profile's rating.

use fugitive_ai::puzzle::{Puzzle, Theme};
use fugitive_core::Cards;
use sqlx::Row;
use uuid::Uuid;

use super::{Db, DbError};
use crate::model::puzzle as model;
use crate::model::rating::Rating;

/// A stored puzzle.
#[derive(Clone, Debug, PartialEq)]
pub struct StoredPuzzle {
    /// Its id (`model::puzzle::id`).
    pub id: String,
    /// What it asks.
    pub theme: Theme,
    /// The solver's view, as JSON.
    pub view: String,
    /// The answer (never sent before an attempt is answered).
    pub answer: Cards,
    /// The answer's figure.
    pub best: f64,
    /// The next best choice's figure.
    pub next: f64,
    /// Its rating; `games` counts its answered attempts.
    pub rating: Rating,
    /// Answered attempts that solved it.
    pub solved: i64,
}

/// What became of an answer.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Answered {
    /// Recorded: the puzzle's rating after it, and the profile's if the attempt had one.
    Rated {
        /// The puzzle's.
        puzzle: Rating,
        /// The solver's profile's.
        solver: Option<Rating>,
    },
    /// No attempt with this token was handed out for this puzzle.
    Unknown,
    /// The attempt was answered before.
    Twice,
}

const COLUMNS: &str = "id, theme, view, answer, best, next, rating, deviation, volatility, attempts, solved";

fn corrupt(what: impl std::fmt::Display) -> DbError {
    DbError::Corrupt(what.to_string())
}

fn stored(row: &sqlx::any::AnyRow) -> Result<StoredPuzzle, DbError> {
    let theme: String = row.get(1);
    let answer: String = row.get(3);
    Ok(StoredPuzzle {
        id: row.get(0),
        theme: Theme::from_name(&theme).ok_or_else(|| corrupt(format!("no theme {theme:?}")))?,
        view: row.get(2),
        answer: serde_json::from_str(&answer).map_err(corrupt)?,
        best: row.get(4),
        next: row.get(5),
        rating: Rating {
            rating: row.get(6),
            deviation: row.get(7),
            volatility: row.get(8),
            games: row.get(9),
        },
        solved: row.get(10),
    })
}

/// Stores a puzzle found in `source` (`sim`, or `game ROOM GAME`), unless it is stored already.
/// Returns whether it was new.
///
/// # Errors
/// On a database failure.
pub async fn insert(db: &Db, puzzle: &Puzzle, source: &str, at: i64) -> Result<bool, DbError> {
    let start = Rating::default();
    let done = sqlx::query(
        "INSERT INTO puzzles (id, theme, role, view, answer, best, next, source, rating, deviation, \
         volatility, attempts, solved, created_at) \
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, 0, 0, $12) ON CONFLICT (id) DO NOTHING",
    )
    .bind(model::id(puzzle))
    .bind(puzzle.theme.name())
    .bind(super::role_name(puzzle.theme.role()))
    .bind(serde_json::to_string(&puzzle.view).map_err(corrupt)?)
    .bind(serde_json::to_string(&puzzle.answer).map_err(corrupt)?)
    .bind(puzzle.best)
    .bind(puzzle.next)
    .bind(source)
    .bind(start.rating)
    .bind(start.deviation)
    .bind(start.volatility)
    .bind(at)
    .execute(db.pool())
    .await?;
    Ok(done.rows_affected() == 1)
}

/// The puzzle with this id, if there is one.
///
/// # Errors
/// On a database failure or corrupt data.
pub async fn get(db: &Db, id: &str) -> Result<Option<StoredPuzzle>, DbError> {
    let row = sqlx::query(&format!("SELECT {COLUMNS} FROM puzzles WHERE id = $1"))
        .bind(id)
        .fetch_optional(db.pool())
        .await?;
    row.as_ref().map(stored).transpose()
}

/// The ids of the [`model::NEAREST`] puzzles nearest `rating`, nearest first; with a profile,
/// those it has not answered yet (or, once it has answered every one, any).
///
/// # Errors
/// On a database failure.
pub async fn nearest(db: &Db, rating: f64, profile: Option<&str>) -> Result<Vec<String>, DbError> {
    let fresh = "SELECT id FROM puzzles WHERE id NOT IN (SELECT puzzle_id FROM puzzle_attempts \
         WHERE profile_id = $2 AND answered_at IS NOT NULL) ORDER BY ABS(rating - $1), id LIMIT $3";
    if let Some(profile) = profile {
        let ids: Vec<String> = sqlx::query_scalar(fresh)
            .bind(rating)
            .bind(profile)
            .bind(model::NEAREST)
            .fetch_all(db.pool())
            .await?;
        if !ids.is_empty() {
            return Ok(ids);
        }
    }
    Ok(sqlx::query_scalar("SELECT id FROM puzzles ORDER BY ABS(rating - $1), id LIMIT $2")
        .bind(rating)
        .bind(model::NEAREST)
        .fetch_all(db.pool())
        .await?)
}

/// A profile's puzzle rating (a new player's when it has none yet).
///
/// # Errors
/// On a database failure.
pub async fn rating_of(db: &Db, profile: &str) -> Result<Rating, DbError> {
    let row = sqlx::query(
        "SELECT rating, deviation, volatility, attempts FROM puzzle_ratings WHERE profile_id = $1",
    )
    .bind(profile)
    .fetch_optional(db.pool())
    .await?;
    Ok(row.map_or_else(Rating::default, |row| Rating {
        rating: row.get(0),
        deviation: row.get(1),
        volatility: row.get(2),
        games: row.get(3),
    }))
}

/// Stores a handed-out attempt at `puzzle`: its token's hash and the solver's profile.
///
/// # Errors
/// On a database failure.
pub async fn hand_out(
    db: &Db,
    token_hash: &str,
    puzzle: &str,
    profile: Option<&str>,
    at: i64,
) -> Result<(), DbError> {
    sqlx::query(
        "INSERT INTO puzzle_attempts (token_hash, puzzle_id, profile_id, created_at) VALUES ($1, $2, $3, $4)",
    )
    .bind(token_hash)
    .bind(puzzle)
    .bind(profile)
    .bind(at)
    .execute(db.pool())
    .await?;
    Ok(())
}

/// Records the answer of the attempt `token_hash` at `puzzle` and rates both sides, all in one
/// transaction: an attempt is answered once, however often (and on however many nodes) it is
/// sent.
///
/// # Errors
/// On a database failure; then nothing was written.
pub async fn answer(
    db: &Db,
    token_hash: &str,
    puzzle: &StoredPuzzle,
    solved: bool,
    at: i64,
) -> Result<Answered, DbError> {
    let mut tx = db.pool().begin().await?;
    let marked = sqlx::query(
        "UPDATE puzzle_attempts SET answered_at = $1, solved = $2 \
         WHERE token_hash = $3 AND puzzle_id = $4 AND answered_at IS NULL",
    )
    .bind(at)
    .bind(i64::from(solved))
    .bind(token_hash)
    .bind(&puzzle.id)
    .execute(&mut *tx)
    .await?;
    let profile: Option<Option<String>> =
        sqlx::query_scalar("SELECT profile_id FROM puzzle_attempts WHERE token_hash = $1 AND puzzle_id = $2")
            .bind(token_hash)
            .bind(&puzzle.id)
            .fetch_optional(&mut *tx)
            .await?;
    let Some(profile) = profile else { return Ok(Answered::Unknown) };
    if marked.rows_affected() == 0 {
        return Ok(Answered::Twice);
    }
    // The puzzle's row is locked (PostgreSQL) by this update before it is read.
    sqlx::query("UPDATE puzzles SET attempts = attempts WHERE id = $1")
        .bind(&puzzle.id)
        .execute(&mut *tx)
        .await?;
    let row = sqlx::query("SELECT rating, deviation, volatility, attempts FROM puzzles WHERE id = $1")
        .bind(&puzzle.id)
        .fetch_one(&mut *tx)
        .await?;
    let current =
        Rating { rating: row.get(0), deviation: row.get(1), volatility: row.get(2), games: row.get(3) };
    let solver = match &profile {
        Some(profile) => {
            let start = Rating::default();
            sqlx::query(
                "INSERT INTO puzzle_ratings (profile_id, rating, deviation, volatility, attempts, updated_at) \
                 VALUES ($1, $2, $3, $4, 0, $5) ON CONFLICT (profile_id) DO NOTHING",
            )
            .bind(profile)
            .bind(start.rating)
            .bind(start.deviation)
            .bind(start.volatility)
            .bind(at)
            .execute(&mut *tx)
            .await?;
            sqlx::query("UPDATE puzzle_ratings SET attempts = attempts WHERE profile_id = $1")
                .bind(profile)
                .execute(&mut *tx)
                .await?;
            let row = sqlx::query(
                "SELECT rating, deviation, volatility, attempts FROM puzzle_ratings WHERE profile_id = $1",
            )
            .bind(profile)
            .fetch_one(&mut *tx)
            .await?;
            Rating { rating: row.get(0), deviation: row.get(1), volatility: row.get(2), games: row.get(3) }
        }
        None => Rating::default(),
    };
    let (solver, rated) = model::rate(solver, current, solved);
    sqlx::query(
        "UPDATE puzzles SET rating = $1, deviation = $2, volatility = $3, attempts = $4, solved = solved + $5 \
         WHERE id = $6",
    )
    .bind(rated.rating)
    .bind(rated.deviation)
    .bind(rated.volatility)
    .bind(rated.games)
    .bind(i64::from(solved))
    .bind(&puzzle.id)
    .execute(&mut *tx)
    .await?;
    if let Some(profile) = &profile {
        sqlx::query(
            "UPDATE puzzle_ratings SET rating = $1, deviation = $2, volatility = $3, attempts = $4, updated_at = $5 \
             WHERE profile_id = $6",
        )
        .bind(solver.rating)
        .bind(solver.deviation)
        .bind(solver.volatility)
        .bind(solver.games)
        .bind(at)
        .bind(profile)
        .execute(&mut *tx)
        .await?;
    }
    tx.commit().await?;
    Ok(Answered::Rated { puzzle: rated, solver: profile.map(|_| solver) })
}

/// Finished games no node has mined yet, oldest first, at most `limit`.
///
/// # Errors
/// On a database failure or corrupt data.
pub async fn unmined(db: &Db, limit: i64) -> Result<Vec<(Uuid, u64)>, DbError> {
    let rows: Vec<(String, i64)> = sqlx::query_as(
        "SELECT g.room_id, g.game FROM games g LEFT JOIN puzzle_mined m ON m.room_id = g.room_id \
         AND m.game = g.game WHERE g.finished_at IS NOT NULL AND m.room_id IS NULL \
         ORDER BY g.finished_at, g.room_id, g.game LIMIT $1",
    )
    .bind(limit)
    .fetch_all(db.pool())
    .await?;
    rows.into_iter()
        .map(|(room, game)| {
            Ok((Uuid::parse_str(&room).map_err(corrupt)?, u64::try_from(game).map_err(corrupt)?))
        })
        .collect()
}

/// Claims a finished game for this node's miner: `true` for the one node whose row it is.
///
/// # Errors
/// On a database failure.
pub async fn claim(db: &Db, room: Uuid, game: u64, at: i64) -> Result<bool, DbError> {
    let done = sqlx::query(
        "INSERT INTO puzzle_mined (room_id, game, node, at) VALUES ($1, $2, $3, $4) \
         ON CONFLICT (room_id, game) DO NOTHING",
    )
    .bind(room.to_string())
    .bind(game as i64)
    .bind(db.node().to_string())
    .bind(at)
    .execute(db.pool())
    .await?;
    Ok(done.rows_affected() == 1)
}
