//! With several nodes on PostgreSQL: notices, each node's presence in a room, the heartbeat
//! and the leases (`cluster/`).

use uuid::Uuid;

use super::{CHANNEL, DB_NOW, Db, DbError, News, now_ms};
use crate::model::seat::Presence;

/// What one heartbeat found (`Db::heartbeat`).
#[derive(Debug)]
pub struct Beat {
    /// The keys of the leases this node still holds, renewed.
    pub held: Vec<String>,
    /// This node's row was made anew: it was not in the table of live nodes.
    pub joined: bool,
}

impl Db {
    /// Sends one notice line of the lobby to the other nodes (PostgreSQL; nothing on SQLite).
    ///
    /// # Errors
    /// On a database failure.
    pub async fn notify_line(&self, line: &str) -> Result<(), DbError> {
        if self.postgres {
            sqlx::query("SELECT pg_notify($1, $2)").bind(CHANNEL).bind(line).execute(&self.pool).await?;
        }
        Ok(())
    }

    /// Tells the other nodes (PostgreSQL; nothing on SQLite). A lost notice is not fatal: the
    /// nodes also read a room back whenever a write conflicts.
    pub async fn notify(&self, news: News, room: Uuid) {
        if !self.postgres {
            return;
        }
        let kind = match news {
            News::Room => 'r',
            News::Presence => 'p',
        };
        let payload = format!("{kind} {} {} {room}", self.node, now_ms());
        if let Err(error) =
            sqlx::query("SELECT pg_notify($1, $2)").bind(CHANNEL).bind(payload).execute(&self.pool).await
        {
            tracing::warn!(%room, %error, "could not notify the other nodes");
        }
    }

    /// Stores this node's presence in a room and tells the other nodes.
    ///
    /// # Errors
    /// On a database failure.
    pub async fn publish_presence(&self, room: Uuid, presence: Presence) -> Result<(), DbError> {
        sqlx::query(
            "INSERT INTO presence (room_id, node, host, guest, spectators) VALUES ($1, $2, $3, $4, $5) \
             ON CONFLICT (room_id, node) DO UPDATE SET host = EXCLUDED.host, guest = EXCLUDED.guest, \
             spectators = EXCLUDED.spectators",
        )
        .bind(room.to_string())
        .bind(self.node.to_string())
        .bind(i64::from(presence.seats[0]))
        .bind(i64::from(presence.seats[1]))
        .bind(presence.spectators as i64)
        .execute(&self.pool)
        .await?;
        self.notify(News::Presence, room).await;
        Ok(())
    }

    /// The presence in a room of the other live nodes, summed.
    ///
    /// # Errors
    /// On a database failure.
    pub async fn load_presence(&self, room: Uuid) -> Result<Presence, DbError> {
        let rows: Vec<(i64, i64, i64)> = sqlx::query_as(&format!(
            "SELECT p.host, p.guest, p.spectators FROM presence p JOIN nodes n ON n.node = p.node \
             WHERE p.room_id = $1 AND p.node <> $2 AND n.alive_until > {DB_NOW}"
        ))
        .bind(room.to_string())
        .bind(self.node.to_string())
        .fetch_all(&self.pool)
        .await?;
        let mut presence = Presence::default();
        for (host, guest, spectators) in rows {
            presence.seats[0] |= host != 0;
            presence.seats[1] |= guest != 0;
            presence.spectators += spectators as u64;
        }
        Ok(presence)
    }

    /// This node is alive for `lease_ms` more (PostgreSQL's clock); renews every lease it
    /// holds for as long. The beat says which (a lease another node took is not among them),
    /// and whether this node's row had to be made anew: on its first beat, or after another
    /// node took it for dead and forgot it with its presence (`reap_nodes`).
    ///
    /// # Errors
    /// On a database failure.
    pub async fn heartbeat(&self, lease_ms: i64) -> Result<Beat, DbError> {
        let node = self.node.to_string();
        // `xmax` is 0 on a row the statement inserted, not on one it updated.
        let joined: bool = sqlx::query_scalar(&format!(
            "INSERT INTO nodes (node, alive_until) VALUES ($1, {DB_NOW} + $2) \
             ON CONFLICT (node) DO UPDATE SET alive_until = EXCLUDED.alive_until \
             RETURNING xmax = 0"
        ))
        .bind(&node)
        .bind(lease_ms)
        .fetch_one(&self.pool)
        .await?;
        let held: Vec<String> = sqlx::query_scalar(&format!(
            "UPDATE leases SET expires_at = {DB_NOW} + $1 WHERE node = $2 AND expires_at > {DB_NOW} RETURNING name"
        ))
        .bind(lease_ms)
        .bind(&node)
        .fetch_all(&self.pool)
        .await?;
        Ok(Beat { held, joined })
    }

    /// Takes the lease `key` for `lease_ms` if nobody holds it (or its holder let it run out),
    /// or renews it if this node holds it. Returns whether this node holds it now.
    ///
    /// # Errors
    /// On a database failure.
    pub async fn acquire_lease(&self, key: &str, lease_ms: i64) -> Result<bool, DbError> {
        let taken = sqlx::query(&format!(
            "INSERT INTO leases (name, node, expires_at) VALUES ($1, $2, {DB_NOW} + $3) \
             ON CONFLICT (name) DO UPDATE SET node = EXCLUDED.node, expires_at = EXCLUDED.expires_at \
             WHERE leases.node = EXCLUDED.node OR leases.expires_at < {DB_NOW}"
        ))
        .bind(key)
        .bind(self.node.to_string())
        .bind(lease_ms)
        .execute(&self.pool)
        .await?
        .rows_affected();
        Ok(taken == 1)
    }

    /// Gives the lease `key` back, if this node holds it.
    ///
    /// # Errors
    /// On a database failure.
    pub async fn release_lease(&self, key: &str) -> Result<(), DbError> {
        sqlx::query("DELETE FROM leases WHERE name = $1 AND node = $2")
            .bind(key)
            .bind(self.node.to_string())
            .execute(&self.pool)
            .await?;
        Ok(())
    }

    /// Drops the room's lease if it ran out (nothing in the room needs an owner any more).
    ///
    /// # Errors
    /// On a database failure.
    pub async fn drop_expired_lease(&self, room: Uuid) -> Result<(), DbError> {
        sqlx::query(&format!("DELETE FROM leases WHERE name = $1 AND expires_at < {DB_NOW}"))
            .bind(format!("room:{room}"))
            .execute(&self.pool)
            .await?;
        Ok(())
    }

    /// The rooms whose lease ran out: their owner died, was cut off or froze. Some live node
    /// loads each and takes its lease.
    ///
    /// # Errors
    /// On a database failure.
    pub async fn orphaned_rooms(&self) -> Result<Vec<Uuid>, DbError> {
        let keys: Vec<String> = sqlx::query_scalar(&format!(
            "SELECT name FROM leases WHERE expires_at < {DB_NOW} AND name LIKE 'room:%'"
        ))
        .fetch_all(&self.pool)
        .await?;
        Ok(keys
            .iter()
            .filter_map(|key| key.strip_prefix("room:"))
            .filter_map(|id| Uuid::parse_str(id).ok())
            .collect())
    }

    /// Forgets the nodes that stopped beating, with their presence, and tells the nodes of the
    /// rooms they were in. Returns those rooms.
    ///
    /// # Errors
    /// On a database failure.
    pub async fn reap_nodes(&self) -> Result<Vec<Uuid>, DbError> {
        let mut tx = self.pool.begin().await?;
        let dead: Vec<String> = sqlx::query_scalar(&format!(
            "DELETE FROM nodes WHERE alive_until < {DB_NOW} - 1000 RETURNING node"
        ))
        .fetch_all(&mut *tx)
        .await?;
        let mut rooms = Vec::new();
        for node in dead {
            let gone: Vec<String> =
                sqlx::query_scalar("DELETE FROM presence WHERE node = $1 RETURNING room_id")
                    .bind(&node)
                    .fetch_all(&mut *tx)
                    .await?;
            rooms.extend(gone.iter().filter_map(|id| Uuid::parse_str(id).ok()));
        }
        tx.commit().await?;
        for room in &rooms {
            self.notify(News::Presence, *room).await;
        }
        Ok(rooms)
    }

    /// This node stops (a graceful shutdown): its presence goes at once, not a lease time
    /// later, and the other nodes hear of it; its leases were given back by its rooms.
    ///
    /// # Errors
    /// On a database failure.
    pub async fn leave_cluster(&self) -> Result<(), DbError> {
        let node = self.node.to_string();
        let rooms: Vec<String> = sqlx::query_scalar("DELETE FROM presence WHERE node = $1 RETURNING room_id")
            .bind(&node)
            .fetch_all(&self.pool)
            .await?;
        sqlx::query("DELETE FROM leases WHERE node = $1").bind(&node).execute(&self.pool).await?;
        sqlx::query("DELETE FROM nodes WHERE node = $1").bind(&node).execute(&self.pool).await?;
        for room in rooms.iter().filter_map(|id| Uuid::parse_str(id).ok()) {
            self.notify(News::Presence, room).await;
        }
        Ok(())
    }
}
