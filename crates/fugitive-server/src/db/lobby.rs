//! SQL of the lobby (issue 25, `model/seek.rs`): open seeks, and taking one exactly once.

use sqlx::Row;

use super::{Db, DbError};

/// A seek as stored.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StoredSeek {
    /// Its id.
    pub id: String,
    /// The seeker's profile.
    pub profile: String,
    /// The role the seeker plays (`Wanted`'s name).
    pub role: String,
    /// JSON `RuleOptions`.
    pub rules: String,
    /// Seconds per move.
    pub turn_clock_secs: i64,
    /// Rated or casual.
    pub rated: bool,
    /// The room it makes when taken.
    pub room: String,
    /// The SHA-256 of the seeker's seat token in that room.
    pub token_hash: String,
    /// The token sealed by the seeker's secret (for "my games").
    pub sealed_token: String,
    /// The node that keeps a real-time seek alive.
    pub node: String,
    /// When it was made (Unix ms).
    pub created_at: i64,
    /// When a correspondence seek dies; `None` for a real-time one.
    pub expires_at: Option<i64>,
}

const COLUMNS: &str = "id, profile_id, role, rules, turn_clock_secs, rated, room_id, token_hash, sealed_token, node, \
     created_at, expires_at";

fn seek(row: &sqlx::any::AnyRow) -> StoredSeek {
    StoredSeek {
        id: row.get(0),
        profile: row.get(1),
        role: row.get(2),
        rules: row.get(3),
        turn_clock_secs: row.get(4),
        rated: row.get::<i64, _>(5) != 0,
        room: row.get(6),
        token_hash: row.get(7),
        sealed_token: row.get(8),
        node: row.get(9),
        created_at: row.get(10),
        expires_at: row.get(11),
    }
}

/// Stores a seek if its profile has fewer than `max` open ones: whether it was stored. The
/// count and the insert are one statement.
///
/// # Errors
/// On a database failure.
pub async fn insert(db: &Db, seek: &StoredSeek, max: i64) -> Result<bool, DbError> {
    // One statement, not a transaction that reads and then writes: on SQLite, two of those at
    // once fail with "database is locked" (`fugitive-load --mode lobby` made its seeks refused).
    let done = sqlx::query(&format!(
        "INSERT INTO seeks ({COLUMNS}) SELECT $1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12 \
         WHERE (SELECT COUNT(*) FROM seeks WHERE profile_id = $2) < $13"
    ))
    .bind(&seek.id)
    .bind(&seek.profile)
    .bind(&seek.role)
    .bind(&seek.rules)
    .bind(seek.turn_clock_secs)
    .bind(i64::from(seek.rated))
    .bind(&seek.room)
    .bind(&seek.token_hash)
    .bind(&seek.sealed_token)
    .bind(&seek.node)
    .bind(seek.created_at)
    .bind(seek.expires_at)
    .bind(max)
    .execute(db.pool())
    .await?;
    Ok(done.rows_affected() == 1)
}

/// The open seeks, oldest first (correspondence seeks past their time left out).
///
/// # Errors
/// On a database failure.
pub async fn open(db: &Db, now: i64) -> Result<Vec<StoredSeek>, DbError> {
    let rows = sqlx::query(&format!(
        "SELECT {COLUMNS} FROM seeks WHERE expires_at IS NULL OR expires_at > $1 ORDER BY created_at, id"
    ))
    .bind(now)
    .fetch_all(db.pool())
    .await?;
    Ok(rows.iter().map(seek).collect())
}

/// Takes the seek `id` off the table, once: two takers at once (on two nodes) get it once; the
/// other gets `None`, as for a seek cancelled or expired.
///
/// # Errors
/// On a database failure; then nothing was taken.
pub async fn take(db: &Db, id: &str, now: i64) -> Result<Option<StoredSeek>, DbError> {
    let row = sqlx::query(&format!(
        "DELETE FROM seeks WHERE id = $1 AND (expires_at IS NULL OR expires_at > $2) RETURNING {COLUMNS}"
    ))
    .bind(id)
    .bind(now)
    .fetch_optional(db.pool())
    .await?;
    Ok(row.as_ref().map(seek))
}

/// Cancels a profile's seek: whether it was there.
///
/// # Errors
/// On a database failure.
pub async fn cancel(db: &Db, id: &str, profile: &str) -> Result<bool, DbError> {
    let done = sqlx::query("DELETE FROM seeks WHERE id = $1 AND profile_id = $2")
        .bind(id)
        .bind(profile)
        .execute(db.pool())
        .await?
        .rows_affected();
    Ok(done > 0)
}

/// Deletes the real-time seeks of `profile` kept alive by `node` (its last lobby socket there
/// closed): their ids.
///
/// # Errors
/// On a database failure.
pub async fn drop_realtime(db: &Db, profile: &str, node: &str) -> Result<Vec<String>, DbError> {
    let rows = sqlx::query(
        "DELETE FROM seeks WHERE profile_id = $1 AND node = $2 AND expires_at IS NULL RETURNING id",
    )
    .bind(profile)
    .bind(node)
    .fetch_all(db.pool())
    .await?;
    Ok(rows.iter().map(|row| row.get(0)).collect())
}

/// Deletes the correspondence seeks past their time and, at `startup`, the real-time seeks of
/// the nodes that are not alive (on SQLite, every real-time seek: one node, just started): their
/// ids.
///
/// # Errors
/// On a database failure.
pub async fn expire(db: &Db, now: i64, startup: bool) -> Result<Vec<String>, DbError> {
    let mut ids: Vec<String> =
        sqlx::query("DELETE FROM seeks WHERE expires_at IS NOT NULL AND expires_at <= $1 RETURNING id")
            .bind(now)
            .fetch_all(db.pool())
            .await?
            .iter()
            .map(|row| row.get(0))
            .collect();
    if startup {
        let rows = sqlx::query(
            "DELETE FROM seeks WHERE expires_at IS NULL AND node NOT IN (SELECT node FROM nodes) AND node <> $1 \
             RETURNING id",
        )
        .bind(db.node().to_string())
        .fetch_all(db.pool())
        .await?;
        ids.extend(rows.iter().map(|row| row.get::<String, _>(0)));
    }
    Ok(ids)
}

/// Notes that a game was made in `room` from a seek of `profile`, who plays `role` there, for
/// him to be told when he next opens the lobby (he may not be told now).
///
/// # Errors
/// On a database failure.
pub async fn note_pairing(db: &Db, profile: &str, room: &str, role: &str, at: i64) -> Result<(), DbError> {
    sqlx::query(
        "INSERT INTO seek_pairings (profile_id, room_id, role, at) VALUES ($1, $2, $3, $4) \
         ON CONFLICT (profile_id, room_id) DO NOTHING",
    )
    .bind(profile)
    .bind(room)
    .bind(role)
    .bind(at)
    .execute(db.pool())
    .await?;
    Ok(())
}

/// Takes the pairings `profile` was not told of, oldest first, as (room, role): each is
/// returned once.
///
/// # Errors
/// On a database failure.
pub async fn take_pairings(db: &Db, profile: &str) -> Result<Vec<(String, String)>, DbError> {
    let rows = sqlx::query("DELETE FROM seek_pairings WHERE profile_id = $1 RETURNING room_id, role, at")
        .bind(profile)
        .fetch_all(db.pool())
        .await?;
    let mut pairings: Vec<(i64, String, String)> =
        rows.iter().map(|r| (r.get(2), r.get(0), r.get(1))).collect();
    pairings.sort();
    Ok(pairings.into_iter().map(|(_, room, role)| (room, role)).collect())
}

/// Forgets the pairing in `room` (a seek makes one room, for one seeker): he was told.
///
/// # Errors
/// On a database failure.
pub async fn told_pairing(db: &Db, room: &str) -> Result<(), DbError> {
    sqlx::query("DELETE FROM seek_pairings WHERE room_id = $1").bind(room).execute(db.pool()).await?;
    Ok(())
}
