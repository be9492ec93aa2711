//! SQL of Web Push (issue 25, `push.rs`): the profiles' push subscriptions and the VAPID key
//! made on first start.

use sqlx::Row;

use super::{Db, DbError};

/// The most subscriptions (browsers) one profile keeps; a new one beyond it replaces the oldest.
pub const MAX_SUBSCRIPTIONS: i64 = 10;

/// A browser's push subscription.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Subscription {
    /// The push service's URL for this browser.
    pub endpoint: String,
    /// The browser's P-256 public key, base64url.
    pub p256dh: String,
    /// The browser's authentication secret, base64url.
    pub auth: String,
}

/// Stores `subscription` for `profile` (an endpoint already stored moves to this profile with
/// its new keys), keeping the profile's newest [`MAX_SUBSCRIPTIONS`]. One transaction.
///
/// # Errors
/// On a database failure; then nothing changed.
pub async fn subscribe(db: &Db, profile: &str, subscription: &Subscription, at: i64) -> Result<(), DbError> {
    let mut tx = db.pool().begin().await?;
    sqlx::query("DELETE FROM push_subscriptions WHERE endpoint = $1")
        .bind(&subscription.endpoint)
        .execute(&mut *tx)
        .await?;
    sqlx::query(
        "INSERT INTO push_subscriptions (endpoint, profile_id, p256dh, auth, created_at) VALUES ($1, $2, $3, $4, $5)",
    )
    .bind(&subscription.endpoint)
    .bind(profile)
    .bind(&subscription.p256dh)
    .bind(&subscription.auth)
    .bind(at)
    .execute(&mut *tx)
    .await?;
    sqlx::query(
        "DELETE FROM push_subscriptions WHERE profile_id = $1 AND endpoint NOT IN \
         (SELECT endpoint FROM push_subscriptions WHERE profile_id = $1 \
          ORDER BY created_at DESC, endpoint LIMIT $2)",
    )
    .bind(profile)
    .bind(MAX_SUBSCRIPTIONS)
    .execute(&mut *tx)
    .await?;
    tx.commit().await?;
    Ok(())
}

/// Deletes `profile`'s subscription at `endpoint`: whether there was one.
///
/// # Errors
/// On a database failure.
pub async fn unsubscribe(db: &Db, profile: &str, endpoint: &str) -> Result<bool, DbError> {
    let done = sqlx::query("DELETE FROM push_subscriptions WHERE endpoint = $1 AND profile_id = $2")
        .bind(endpoint)
        .bind(profile)
        .execute(db.pool())
        .await?;
    Ok(done.rows_affected() > 0)
}

/// Deletes the subscription at `endpoint`, whoever's it is (the push service said it is gone).
///
/// # Errors
/// On a database failure.
pub async fn drop_endpoint(db: &Db, endpoint: &str) -> Result<(), DbError> {
    sqlx::query("DELETE FROM push_subscriptions WHERE endpoint = $1")
        .bind(endpoint)
        .execute(db.pool())
        .await?;
    Ok(())
}

/// The subscriptions of `profile`.
///
/// # Errors
/// On a database failure.
pub async fn of_profile(db: &Db, profile: &str) -> Result<Vec<Subscription>, DbError> {
    let rows = sqlx::query(
        "SELECT endpoint, p256dh, auth FROM push_subscriptions WHERE profile_id = $1 ORDER BY created_at",
    )
    .bind(profile)
    .fetch_all(db.pool())
    .await?;
    Ok(rows.iter().map(|r| Subscription { endpoint: r.get(0), p256dh: r.get(1), auth: r.get(2) }).collect())
}

/// The live profile that holds `seat` (0 host, 1 guest) of `room`, if any.
///
/// # Errors
/// On a database failure.
pub async fn profile_of_seat(db: &Db, room: &str, seat: i64) -> Result<Option<String>, DbError> {
    let row = sqlx::query(
        "SELECT ps.profile_id FROM profile_seats ps JOIN profiles p ON p.id = ps.profile_id \
         WHERE ps.room_id = $1 AND ps.seat = $2 AND p.deleted_at IS NULL",
    )
    .bind(room)
    .bind(seat)
    .fetch_optional(db.pool())
    .await?;
    Ok(row.map(|r| r.get(0)))
}

/// The setting `name`, storing `value` first if it has none: every node gets the value the
/// first one stored.
///
/// # Errors
/// On a database failure.
pub async fn setting_or_insert(db: &Db, name: &str, value: &str) -> Result<String, DbError> {
    sqlx::query("INSERT INTO server_settings (name, value) VALUES ($1, $2) ON CONFLICT (name) DO NOTHING")
        .bind(name)
        .bind(value)
        .execute(db.pool())
        .await?;
    let row = sqlx::query("SELECT value FROM server_settings WHERE name = $1")
        .bind(name)
        .fetch_one(db.pool())
        .await?;
    Ok(row.get(0))
}
