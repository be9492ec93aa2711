//! SQL of profiles (issue 25, `model/profile.rs`): the profile rows, the seats taken under a
//! profile, and the transfer codes. Portable SQL through the pool, as `table.rs` does.

use sqlx::Row;

use super::{Db, DbError};

/// A profile as its owner sees it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OwnProfile {
    /// Its public id.
    pub id: String,
    /// Its display name, if it has one.
    pub name: Option<String>,
}

/// A profile as anyone sees it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PublicProfile {
    /// Its public id.
    pub id: String,
    /// Its display name; `None` for none, and for a deleted profile.
    pub name: Option<String>,
    /// Whether it was deleted (its games stay, under "deleted player").
    pub deleted: bool,
    /// When it was made (Unix ms).
    pub created_at: i64,
}

/// A seat taken under a profile, its token still sealed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SealedSeat {
    /// The room.
    pub room: String,
    /// 0 (the creator's) or 1.
    pub seat: i64,
    /// The token, sealed with the profile's secret (`model::profile::seal`).
    pub sealed_token: String,
}

/// One code of a transfer: its hash and the profile's secret sealed by it.
#[derive(Clone, Debug)]
pub struct TransferCode {
    /// The SHA-256 (hex) of the code.
    pub code_hash: String,
    /// The profile's secret sealed by the code.
    pub sealed_secret: String,
}

/// The most seats "my games" lists, newest first.
pub const MAX_LISTED_SEATS: i64 = 200;

/// Stores a new profile.
///
/// # Errors
/// On a database failure (or, most unlikely, an id already taken).
pub async fn create(db: &Db, id: &str, secret_hash: &str, at: i64) -> Result<(), DbError> {
    sqlx::query("INSERT INTO profiles (id, secret_hash, created_at) VALUES ($1, $2, $3)")
        .bind(id)
        .bind(secret_hash)
        .bind(at)
        .execute(db.pool())
        .await?;
    Ok(())
}

/// The live profile with this id and secret hash, if there is one.
///
/// # Errors
/// On a database failure.
pub async fn own(db: &Db, id: &str, secret_hash: &str) -> Result<Option<OwnProfile>, DbError> {
    let row = sqlx::query("SELECT id, name FROM profiles WHERE id = $1 AND secret_hash = $2")
        .bind(id)
        .bind(secret_hash)
        .fetch_optional(db.pool())
        .await?;
    Ok(row.map(|row| OwnProfile { id: row.get(0), name: row.get(1) }))
}

/// The profile with this id, live or deleted.
///
/// # Errors
/// On a database failure.
pub async fn public(db: &Db, id: &str) -> Result<Option<PublicProfile>, DbError> {
    let row = sqlx::query("SELECT id, name, deleted_at, created_at FROM profiles WHERE id = $1")
        .bind(id)
        .fetch_optional(db.pool())
        .await?;
    Ok(row.map(|row| PublicProfile {
        id: row.get(0),
        name: row.get(1),
        deleted: row.get::<Option<i64>, _>(2).is_some(),
        created_at: row.get(3),
    }))
}

/// Renames a live profile (`None`: no name).
///
/// # Errors
/// On a database failure.
pub async fn rename(db: &Db, id: &str, name: Option<&str>) -> Result<(), DbError> {
    sqlx::query("UPDATE profiles SET name = $1 WHERE id = $2 AND deleted_at IS NULL")
        .bind(name)
        .bind(id)
        .execute(db.pool())
        .await?;
    Ok(())
}

/// Deletes a profile: its secret, its name, its sealed seat tokens, its transfers and its push
/// subscriptions go; the row stays (deleted), so its games keep pointing at "deleted player".
/// One transaction.
///
/// # Errors
/// On a database failure; then nothing changed.
pub async fn delete(db: &Db, id: &str, at: i64) -> Result<(), DbError> {
    let mut tx = db.pool().begin().await?;
    sqlx::query("UPDATE profiles SET secret_hash = NULL, name = NULL, deleted_at = $1 WHERE id = $2")
        .bind(at)
        .bind(id)
        .execute(&mut *tx)
        .await?;
    sqlx::query("UPDATE profile_seats SET sealed_token = NULL WHERE profile_id = $1")
        .bind(id)
        .execute(&mut *tx)
        .await?;
    sqlx::query("DELETE FROM transfers WHERE profile_id = $1").bind(id).execute(&mut *tx).await?;
    sqlx::query("DELETE FROM push_subscriptions WHERE profile_id = $1").bind(id).execute(&mut *tx).await?;
    tx.commit().await?;
    Ok(())
}

/// Notes that `seat` of `room` was taken under `profile`; a seat already noted keeps its first
/// profile.
///
/// # Errors
/// On a database failure.
pub async fn attach_seat(
    db: &Db,
    room: &str,
    seat: i64,
    profile: &str,
    sealed_token: &str,
    at: i64,
) -> Result<(), DbError> {
    sqlx::query(
        "INSERT INTO profile_seats (room_id, seat, profile_id, sealed_token, at) VALUES ($1, $2, $3, $4, $5) \
         ON CONFLICT (room_id, seat) DO NOTHING",
    )
    .bind(room)
    .bind(seat)
    .bind(profile)
    .bind(sealed_token)
    .bind(at)
    .execute(db.pool())
    .await?;
    Ok(())
}

/// The seats taken under `profile` whose rooms still live, newest first (at most
/// [`MAX_LISTED_SEATS`]).
///
/// # Errors
/// On a database failure.
pub async fn seats(db: &Db, profile: &str) -> Result<Vec<SealedSeat>, DbError> {
    let rows = sqlx::query(
        "SELECT s.room_id, s.seat, s.sealed_token FROM profile_seats s JOIN rooms r ON r.id = s.room_id \
         WHERE s.profile_id = $1 AND s.sealed_token IS NOT NULL AND r.expired_at IS NULL \
         ORDER BY s.at DESC LIMIT $2",
    )
    .bind(profile)
    .bind(MAX_LISTED_SEATS)
    .fetch_all(db.pool())
    .await?;
    Ok(rows
        .into_iter()
        .map(|row| SealedSeat { room: row.get(0), seat: row.get(1), sealed_token: row.get(2) })
        .collect())
}

/// Stores a transfer of `profile` under each of its codes, all expiring at `expires_at`, and
/// drops the transfers that have expired.
///
/// # Errors
/// On a database failure; then nothing was stored.
pub async fn create_transfer(
    db: &Db,
    transfer_id: &str,
    profile: &str,
    codes: &[TransferCode],
    now: i64,
    expires_at: i64,
) -> Result<(), DbError> {
    let mut tx = db.pool().begin().await?;
    sqlx::query("DELETE FROM transfers WHERE expires_at <= $1").bind(now).execute(&mut *tx).await?;
    for code in codes {
        sqlx::query(
            "INSERT INTO transfers (code_hash, transfer_id, profile_id, sealed_secret, expires_at) \
             VALUES ($1, $2, $3, $4, $5)",
        )
        .bind(&code.code_hash)
        .bind(transfer_id)
        .bind(profile)
        .bind(&code.sealed_secret)
        .bind(expires_at)
        .execute(&mut *tx)
        .await?;
    }
    tx.commit().await?;
    Ok(())
}

/// Uses the transfer code with this hash, once: its transfer (every code of it) is deleted, and
/// its profile id and sealed secret returned, if it was there and had not expired. Two uses at
/// once get it once: the `DELETE … RETURNING` of one finds nothing.
///
/// # Errors
/// On a database failure; then nothing was used.
pub async fn redeem_transfer(
    db: &Db,
    code_hash: &str,
    now: i64,
) -> Result<Option<(String, String)>, DbError> {
    let mut tx = db.pool().begin().await?;
    let row = sqlx::query(
        "DELETE FROM transfers WHERE code_hash = $1 RETURNING transfer_id, profile_id, sealed_secret, expires_at",
    )
    .bind(code_hash)
    .fetch_optional(&mut *tx)
    .await?;
    let Some(row) = row else {
        return Ok(None);
    };
    let (transfer_id, profile, sealed, expires_at): (String, String, String, i64) =
        (row.get(0), row.get(1), row.get(2), row.get(3));
    sqlx::query("DELETE FROM transfers WHERE transfer_id = $1").bind(&transfer_id).execute(&mut *tx).await?;
    tx.commit().await?;
    Ok((expires_at > now).then_some((profile, sealed)))
}
