//! Several identical nodes on one PostgreSQL database (issue 11). PostgreSQL is the whole
//! distributed engine: no consensus of our own, no node-to-node protocol.
//!
//! - **The log is the truth.** Any node accepts an action for any room: it validates it against
//!   its copy and appends it under the unique key (room, game, number). When another node
//!   appended first, the write conflicts; the room reads the log back and decides again
//!   (`room.rs`). A client's `seq` is stored with its action, so a retry on another node is
//!   answered, not applied twice.
//! - **Every node hears every append.** The writer `NOTIFY`s [`db::CHANNEL`](crate::db::CHANNEL)
//!   in the transaction that stores an action (so the notice goes out exactly when it is
//!   committed); other changes (claims, rematch offers, names, chat, presence) are notified
//!   after they commit. Each node `LISTEN`s and hands the news to the rooms it has loaded, which
//!   read the new actions from the log. A node whose listening connection broke reconnects and
//!   reads back every room it has loaded: notices sent meanwhile are lost. A room whose read
//!   fails tries again until it succeeds (`room.rs`), or what it heard would be lost too.
//! - **One owner for what must happen once.** A room's turn clock and computer opponent run on
//!   the node holding the room's lease: a row in `leases` with an expiry in PostgreSQL's clock,
//!   renewed every third of the lease time by its holder. A node that dies, is cut off or
//!   freezes stops renewing; once the lease has run out, another node takes it and carries on
//!   from the log. A node believes it holds a lease only until the lease time after it *sent*
//!   its last successful renewal, so it stops before the lease runs out in the database; and a
//!   clock or move that slipped through anyway is an append like any other, which loses on the
//!   unique key. Expiry runs under the lease `expiry`.
//!
//! Rows with an expiry rather than session advisory locks: a lock lives as long as its
//! connection, and a frozen node (SIGSTOP) keeps its connection, and so its locks, open for as
//! long as the operating system keeps the TCP session: minutes, not seconds. A lease row runs
//! out on time whatever the holder's connection does, and its holder can tell from its own
//! clock when to stop.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use sqlx::postgres::PgListener;
use tokio::time::Instant;
use uuid::Uuid;

use crate::db::{CHANNEL, Db, now_ms};
use crate::lobby::Lobby;
use crate::metrics;
use crate::room::Heard;
use crate::rooms::Rooms;

/// This node's part in the cluster: a cheap clone. On SQLite there is one node, which owns
/// every room.
#[derive(Clone, Debug)]
pub struct Cluster {
    inner: Option<Arc<Inner>>,
}

#[derive(Debug)]
struct Inner {
    lease: Duration,
    /// The rooms whose lease this node holds, and until when it may believe so.
    held: Mutex<HashMap<Uuid, Instant>>,
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

    fn lease_ms(&self) -> i64 {
        self.inner.as_ref().map_or(0, |inner| i64::try_from(inner.lease.as_millis()).unwrap_or(i64::MAX))
    }

    fn held(&self) -> std::sync::MutexGuard<'_, HashMap<Uuid, Instant>> {
        let inner = self.inner.as_ref().expect("a shared cluster");
        inner.held.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Whether this node runs the room's clock and computer now.
    pub fn owns(&self, room: Uuid) -> bool {
        match &self.inner {
            None => true,
            Some(_) => self.held().get(&room).is_some_and(|until| *until > Instant::now()),
        }
    }

    /// Tries to take (or renew) the room's lease; whether this node holds it now.
    pub async fn acquire(&self, db: &Db, room: Uuid) -> bool {
        let Some(inner) = &self.inner else { return true };
        let sent = Instant::now();
        match db.acquire_lease(&room_lease(room), self.lease_ms()).await {
            Ok(true) => {
                if self.held().insert(room, sent + inner.lease).is_none() {
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

    fn set_gauge(&self) {
        metrics::leases_held(self.held().len());
    }

    /// Whether this node may run the expiry now (it holds the `expiry` lease).
    pub async fn runs_expiry(&self, db: &Db) -> bool {
        if self.inner.is_none() {
            return true;
        }
        db.acquire_lease("expiry", self.lease_ms()).await.unwrap_or(false)
    }

    /// Starts the node's background work: the heartbeat (renewing the leases, forgetting dead
    /// nodes, taking over orphaned rooms) and the listener.
    pub fn start(&self, db: Db, rooms: Rooms, lobby: Lobby) -> Vec<tokio::task::JoinHandle<()>> {
        if self.inner.is_none() {
            return Vec::new();
        }
        metrics::node(db.node());
        vec![
            tokio::spawn(self.clone().heartbeat(db.clone(), rooms.clone())),
            tokio::spawn(listen(db, rooms, lobby)),
        ]
    }

    async fn heartbeat(self, db: Db, rooms: Rooms) {
        let inner = self.inner.clone().expect("a shared cluster");
        let mut tick = tokio::time::interval(self.lease_tick());
        tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            tick.tick().await;
            let sent = Instant::now();
            match db.heartbeat(self.lease_ms()).await {
                Ok(renewed) => {
                    let renewed: Vec<Uuid> = renewed
                        .iter()
                        .filter_map(|name| name.strip_prefix("room:"))
                        .filter_map(|id| Uuid::parse_str(id).ok())
                        .collect();
                    let lost: Vec<Uuid> = {
                        let mut held = self.held();
                        for room in &renewed {
                            if let Some(until) = held.get_mut(room) {
                                *until = sent + inner.lease;
                            }
                        }
                        held.keys().filter(|room| !renewed.contains(room)).copied().collect()
                    };
                    for room in lost {
                        self.lose(room);
                    }
                }
                Err(error) => tracing::warn!(%error, "could not renew this node's leases"),
            }
            self.set_gauge();
            if let Err(error) = db.reap_nodes().await {
                tracing::warn!(%error, "could not forget the dead nodes");
            }
            match db.orphaned_rooms().await {
                Ok(orphans) => {
                    for room in orphans {
                        // Loading it is enough: its actor takes the lease when it needs one.
                        match rooms.get(room).await {
                            Ok(handle) => handle.hear(Heard::Lease),
                            Err(error) => tracing::warn!(%room, %error, "could not load an orphaned room"),
                        }
                    }
                }
                Err(error) => tracing::warn!(%error, "could not look for orphaned rooms"),
            }
        }
    }
}

/// Hears the other nodes' notices and hands them to the rooms loaded here.
async fn listen(db: Db, rooms: Rooms, lobby: Lobby) {
    let node = db.node().to_string();
    loop {
        let mut listener = match PgListener::connect(db.url()).await {
            Ok(listener) => listener,
            Err(error) => {
                tracing::warn!(%error, "could not connect to listen for the other nodes");
                tokio::time::sleep(Duration::from_secs(1)).await;
                continue;
            }
        };
        if let Err(error) = listener.listen(CHANNEL).await {
            tracing::warn!(%error, "could not listen for the other nodes");
            tokio::time::sleep(Duration::from_secs(1)).await;
            continue;
        }
        // Listening (again): whatever was said while this node was not is read from the log.
        metrics::resync();
        rooms.hear_all(Heard::Resync);
        loop {
            match listener.try_recv().await {
                Ok(Some(notice)) => {
                    for line in notice.payload().lines() {
                        hear(&rooms, &lobby, &node, line);
                    }
                }
                Ok(None) => {
                    tracing::warn!("lost the connection that listens for the other nodes; reconnecting");
                    break;
                }
                Err(error) => {
                    tracing::warn!(%error, "listening for the other nodes failed; reconnecting");
                    break;
                }
            }
        }
        drop(listener);
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// One notice line (`db::CHANNEL`'s format).
fn hear(rooms: &Rooms, lobby: &Lobby, node: &str, line: &str) {
    // The lobby's lines end in free text (a JSON event): split off only their head.
    if let [kind @ ("l" | "t"), from, _sent, rest] = line.splitn(4, ' ').collect::<Vec<_>>()[..] {
        if from != node {
            lobby.hear(kind, rest);
        }
        return;
    }
    let fields: Vec<&str> = line.split(' ').collect();
    let (Some(kind), Some(from), Some(sent), Some(room)) =
        (fields.first(), fields.get(1), fields.get(2), fields.get(3))
    else {
        tracing::warn!(line, "a notice that does not parse");
        return;
    };
    if *from == node {
        return;
    }
    if let Ok(sent) = sent.parse::<i64>() {
        metrics::notify_lag(Duration::from_millis(u64::try_from(now_ms() - sent).unwrap_or(0)));
    }
    let Ok(room) = Uuid::parse_str(room) else { return };
    let heard = match *kind {
        "a" => {
            let game = fields.get(4).and_then(|g| g.parse().ok());
            let number = fields.get(5).and_then(|n| n.parse().ok());
            match (game, number) {
                (Some(game), Some(number)) => Heard::Action { game, number },
                _ => Heard::Room,
            }
        }
        "p" => Heard::Presence,
        _ => Heard::Room,
    };
    rooms.hear(room, heard);
}
