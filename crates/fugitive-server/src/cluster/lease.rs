//! A node's leases (`cluster/mod.rs`): the rooms whose clock and computer run here, and the
//! `expiry` lease.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::time::Instant;
use uuid::Uuid;

use crate::db::Db;
use crate::metrics;

/// This node's part in the cluster: a cheap clone. On SQLite there is one node, which owns
/// every room.
#[derive(Clone, Debug)]
pub struct Cluster {
    inner: Option<Arc<Inner>>,
}

#[derive(Debug)]
struct Inner {
    lease: Duration,
    /// The rooms whose lease this node holds.
    held: Mutex<HashMap<Uuid, Held>>,
}

/// A room lease this node holds.
#[derive(Clone, Copy, Debug)]
struct Held {
    /// Until when it may believe so: a lease time after it sent its last successful renewal.
    until: Instant,
    /// When the database last answered that this node took or renewed it (`acquire`). A
    /// heartbeat sent before that instant may have run its `UPDATE` before the lease was
    /// committed: its answer, which lacks the lease, says nothing about it.
    confirmed: Instant,
}

fn room_lease(room: Uuid) -> String {
    format!("room:{room}")
}

impl Cluster {
    /// One node alone (SQLite): it owns every room.
    pub fn single() -> Cluster {
        Cluster { inner: None }
    }

    /// One of several nodes on a PostgreSQL database, with leases of `lease`.
    pub fn shared(lease: Duration) -> Cluster {
        Cluster { inner: Some(Arc::new(Inner { lease, held: Mutex::new(HashMap::new()) })) }
    }

    /// Whether several nodes may share the database.
    pub fn is_shared(&self) -> bool {
        self.inner.is_some()
    }

    /// How often leases are renewed and looked after: a third of the lease time.
    pub fn lease_tick(&self) -> Duration {
        self.inner
            .as_ref()
            .map_or(Duration::from_secs(3600), |inner| (inner.lease / 3).max(Duration::from_millis(10)))
    }

    /// The lease time, in ms.
    pub fn lease_ms(&self) -> i64 {
        self.inner.as_ref().map_or(0, |inner| i64::try_from(inner.lease.as_millis()).unwrap_or(i64::MAX))
    }

    fn held(&self) -> std::sync::MutexGuard<'_, HashMap<Uuid, Held>> {
        let inner = self.inner.as_ref().expect("a shared cluster");
        inner.held.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Whether this node runs the room's clock and computer now.
    pub fn owns(&self, room: Uuid) -> bool {
        match &self.inner {
            None => true,
            Some(_) => self.held().get(&room).is_some_and(|held| held.until > Instant::now()),
        }
    }

    /// Tries to take (or renew) the room's lease; whether this node holds it now.
    pub async fn acquire(&self, db: &Db, room: Uuid) -> bool {
        let Some(inner) = &self.inner else { return true };
        let sent = Instant::now();
        match db.acquire_lease(&room_lease(room), self.lease_ms()).await {
            Ok(true) => {
                let held = Held { until: sent + inner.lease, confirmed: Instant::now() };
                if self.held().insert(room, held).is_none() {
                    metrics::lease_change("acquired");
                    tracing::info!(%room, "took the room's lease");
                }
                true
            }
            Ok(false) => {
                self.lose(room);
                false
            }
            Err(error) => {
                tracing::warn!(%room, %error, "could not take the room's lease");
                false
            }
        }
    }

    /// Gives the room's lease back (nothing must happen once in it, or it unloads).
    pub async fn release(&self, db: &Db, room: Uuid) {
        if self.inner.is_none() {
            return;
        }
        if self.held().remove(&room).is_some() {
            metrics::lease_change("released");
        }
        if let Err(error) = db.release_lease(&room_lease(room)).await {
            tracing::warn!(%room, %error, "could not give the room's lease back");
        }
    }

    fn lose(&self, room: Uuid) {
        if self.held().remove(&room).is_some() {
            metrics::lease_change("lost");
            tracing::warn!(%room, "lost the room's lease to another node");
        }
    }

    /// Updates the gauge of the leases this node holds.
    pub fn set_gauge(&self) {
        metrics::leases_held(self.held().len());
    }

    /// Whether this node may run the expiry now (it holds the `expiry` lease).
    pub async fn runs_expiry(&self, db: &Db) -> bool {
        if self.inner.is_none() {
            return true;
        }
        db.acquire_lease("expiry", self.lease_ms()).await.unwrap_or(false)
    }

    /// The heartbeat `sent` at that instant renewed the leases named `renewed`: each is held a
    /// lease time from `sent`; a room lease held here since before `sent` and not renewed is
    /// lost. One taken (or renewed by `acquire`) while the heartbeat was on its way is kept: the
    /// heartbeat's `UPDATE` may have run before it was committed, so its answer cannot tell
    /// (issue 27: a node that took many leases at once lost some that were still its own).
    pub fn renewed(&self, renewed: &[String], sent: Instant) {
        let Some(inner) = &self.inner else { return };
        let renewed: Vec<Uuid> = renewed
            .iter()
            .filter_map(|name| name.strip_prefix("room:"))
            .filter_map(|id| Uuid::parse_str(id).ok())
            .collect();
        let lost: Vec<Uuid> = {
            let mut held = self.held();
            for room in &renewed {
                if let Some(held) = held.get_mut(room) {
                    held.until = held.until.max(sent + inner.lease);
                }
            }
            held.iter()
                .filter(|(room, held)| !renewed.contains(room) && held.confirmed < sent)
                .map(|(room, _)| *room)
                .collect()
        };
        for room in lost {
            self.lose(room);
        }
    }
}
