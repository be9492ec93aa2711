//! The registry of running rooms: creates rooms, loads a room's actor from the database on first
//! use (rebuilding its game by replay), and expires idle unfinished rooms.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, Weak};
use std::time::Duration;

use fugitive_core::{ReplayError, Role, RuleOptions, Seed};
use futures_util::{StreamExt, stream};
use rand::RngCore;
use thiserror::Error;
use tokio::task::JoinSet;
use uuid::Uuid;

use crate::cluster::lease::Cluster;
use crate::db::{Db, DbError, NewRoom, now_ms};
use crate::model::options::{Computer, TUTORIAL_DEAL};
use crate::model::seat::{Seat, hash_secret, new_secret};
use crate::push::Push;
use crate::room::{Heard, Room, RoomHandle, RoomLimits};

/// Rooms loaded at once at start-up ([`Rooms::restore_clocks`]): enough to keep the
/// database's connections busy, few enough to leave them for the visitors' rooms.
pub const RESTORE_CONCURRENCY: usize = 8;

/// The seed of game `game` of a room: fresh from the OS-seeded CSPRNG, or with `--deal-seed`
/// the known [`deal`].
pub fn new_seed(deal_seed: Option<u64>, game: u64) -> Seed {
    match deal_seed {
        Some(base) => deal(base, game),
        None => {
            let mut seed = [0u8; 32];
            rand::rng().fill_bytes(&mut seed);
            Seed(seed)
        }
    }
}

pub use crate::model::options::deal;

/// Why a room could not be had.
#[derive(Debug, Error)]
pub enum RoomsError {
    /// No such room (or it expired).
    #[error("no such room")]
    NotFound,
    /// The database failed.
    #[error(transparent)]
    Db(#[from] DbError),
    /// The stored log does not replay.
    #[error("the stored game does not replay: {0}")]
    Corrupt(#[from] ReplayError),
}

/// A new room, as its creator learns it.
#[derive(Clone, Debug)]
pub struct Created {
    /// Its id.
    pub room: Uuid,
    /// The creator's role in the first game.
    pub role: Role,
    /// The creator's seat token.
    pub token: String,
    /// The invitation that claims the other seat.
    pub invite: String,
}

/// The registry; cheap to clone.
#[derive(Clone, Debug)]
pub struct Rooms {
    inner: Arc<Inner>,
}

#[derive(Debug)]
struct Inner {
    db: Db,
    limits: RoomLimits,
    cluster: Cluster,
    /// Where the rooms' Web Push notices go.
    push: Push,
    /// A std `Mutex` is enough: it guards only map lookups and inserts, and is never held
    /// across an `.await` (loading from the database happens outside it).
    map: Mutex<HashMap<Uuid, RoomHandle>>,
    /// The rooms being loaded, and whether news of them came meanwhile (it would be lost:
    /// their actor is not in `map` yet, and what they read may be older than the news).
    loading: Mutex<HashMap<Uuid, bool>>,
    generation: AtomicU64,
    /// The actors, so shutdown can wait for each to finish its last write.
    tasks: Mutex<JoinSet<()>>,
}

impl Inner {
    fn map(&self) -> MutexGuard<'_, HashMap<Uuid, RoomHandle>> {
        // A panic while holding this lock leaves the map itself consistent.
        self.map.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    fn loading(&self) -> MutexGuard<'_, HashMap<Uuid, bool>> {
        self.loading.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Removes a room's handle if it is still this generation's.
    fn forget(&self, room: Uuid, generation: u64) {
        let mut map = self.map();
        if map.get(&room).is_some_and(|h| h.generation == generation) {
            map.remove(&room);
        }
    }
}

impl Rooms {
    /// An empty registry over `db`, the one node on it.
    pub fn new(db: Db, limits: RoomLimits) -> Rooms {
        Rooms::with_cluster(db, limits, Cluster::single(), Push::off())
    }

    /// An empty registry over `db`, as a node of `cluster`.
    pub fn with_cluster(db: Db, limits: RoomLimits, cluster: Cluster, push: Push) -> Rooms {
        Rooms {
            inner: Arc::new(Inner {
                db,
                limits,
                cluster,
                push,
                map: Mutex::new(HashMap::new()),
                loading: Mutex::new(HashMap::new()),
                generation: AtomicU64::new(0),
                tasks: Mutex::new(JoinSet::new()),
            }),
        }
    }

    /// The unit tests' registry: a new SQLite file in a temporary directory (gone with the
    /// returned guard), 4 sockets per room, no pause before a computer's move.
    #[cfg(test)]
    pub(crate) async fn scratch(
        unload_after: Duration,
        commit: crate::db::CommitOptions,
    ) -> (Rooms, tempfile::TempDir) {
        let dir = tempfile::tempdir().unwrap();
        let url = format!("sqlite://{}", dir.path().join("rooms.db").display());
        let db = Db::connect_with(&url, commit).await.unwrap();
        let limits = RoomLimits { max_sockets: 4, unload_after, bot_pause: Duration::ZERO, deal_seed: None };
        (Rooms::new(db, limits), dir)
    }

    /// Where Web Push notices go.
    pub fn push(&self) -> &Push {
        &self.inner.push
    }

    /// The database.
    pub fn db(&self) -> &Db {
        &self.inner.db
    }

    /// Creates a room: the creator sits in seat 0 with `role`; the invitation claims seat 1.
    ///
    /// # Errors
    /// On a database failure.
    pub async fn create(
        &self,
        role: Role,
        rules: RuleOptions,
        turn_clock_secs: Option<u64>,
        computer: Computer,
    ) -> Result<Created, DbError> {
        let token = new_secret();
        let id = Uuid::new_v4();
        let invite = self.create_as(id, hash_secret(&token), role, rules, turn_clock_secs, computer).await?;
        Ok(Created { room: id, role, token, invite })
    }

    /// [`Rooms::create`] with the room's id and the hash of the creator's token chosen
    /// beforehand (a seek of the lobby chooses them when it is made): the invitation.
    ///
    /// # Errors
    /// On a database failure (the id taken included); then nothing was created.
    pub async fn create_as(
        &self,
        id: Uuid,
        host_token_hash: String,
        role: Role,
        rules: RuleOptions,
        turn_clock_secs: Option<u64>,
        computer: Computer,
    ) -> Result<String, DbError> {
        let invite = new_secret();
        let room = NewRoom {
            id,
            rules,
            turn_clock_secs,
            invite_hash: hash_secret(&invite),
            host_token_hash,
            seed: if computer.tutorial {
                deal(TUTORIAL_DEAL, 1)
            } else {
                new_seed(self.inner.limits.deal_seed, 1)
            },
            fugitive_seat: if role == Role::Fugitive { Seat::Host } else { Seat::Guest },
            computer,
        };
        self.inner.db.create_room(&room).await?;
        Ok(invite)
    }

    /// The running room `id`, loading it from the database if it is not in memory.
    ///
    /// # Errors
    /// [`RoomsError::NotFound`] for an unknown room; database and replay failures.
    pub async fn get(&self, id: Uuid) -> Result<RoomHandle, RoomsError> {
        if let Some(handle) = self.inner.map().get(&id) {
            return Ok(handle.clone());
        }
        self.inner.loading().entry(id).or_insert(false);
        let loaded = self.load(id).await;
        let missed = self.inner.loading().remove(&id).unwrap_or(false);
        let handle = loaded?;
        if missed {
            // News came while the room was read: read it again, now that it can hear.
            handle.hear(Heard::Resync);
        }
        Ok(handle)
    }

    async fn load(&self, id: Uuid) -> Result<RoomHandle, RoomsError> {
        let stored = self.inner.db.load_room(id).await?.ok_or(RoomsError::NotFound)?;
        let room =
            Room::rebuild(id, stored, self.inner.db.clone(), self.inner.cluster.clone(), self.inner.limits)?
                .with_push(self.inner.push.clone());
        let mut map = self.inner.map();
        if let Some(handle) = map.get(&id) {
            // Another task loaded it meanwhile; ours is dropped before it ever ran.
            return Ok(handle.clone());
        }
        let generation = self.inner.generation.fetch_add(1, Ordering::Relaxed);
        let registry: Weak<Inner> = Arc::downgrade(&self.inner);
        let mut tasks = self.inner.tasks.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        while tasks.try_join_next().is_some() {}
        let handle = room.spawn(&mut tasks, generation, move || {
            if let Some(inner) = registry.upgrade() {
                inner.forget(id, generation);
            }
        });
        map.insert(id, handle.clone());
        tracing::info!(room = %id, "room loaded");
        Ok(handle)
    }

    /// Hands news of a room from another node to its actor, if the room is loaded here.
    pub fn hear(&self, room: Uuid, heard: Heard) {
        let handle = self.inner.map().get(&room).cloned();
        match handle {
            Some(handle) => handle.hear(heard),
            None => {
                if let Some(missed) = self.inner.loading().get_mut(&room) {
                    *missed = true;
                }
            }
        }
    }

    /// Hands the same news to every room loaded here.
    pub fn hear_all(&self, heard: Heard) {
        let handles: Vec<RoomHandle> = self.inner.map().values().cloned().collect();
        for handle in handles {
            handle.hear(heard);
        }
        for missed in self.inner.loading().values_mut() {
            *missed = true;
        }
    }

    /// Deletes the rooms idle for longer than `ttl` whose game is unfinished, closing their
    /// sockets with 4004.
    ///
    /// # Errors
    /// On a database failure.
    pub async fn expire(&self, ttl: Duration) -> Result<usize, DbError> {
        let cutoff = now_ms() - i64::try_from(ttl.as_millis()).unwrap_or(i64::MAX);
        let mut expired = 0;
        for id in self.inner.db.stale_rooms(cutoff).await? {
            // The deletion checks again: a move since the selection keeps the room.
            if !self.inner.db.expire_room(id, cutoff).await? {
                continue;
            }
            expired += 1;
            let handle = self.inner.map().remove(&id);
            if let Some(handle) = handle {
                handle.expire().await;
            }
            // The other nodes read it back, find it gone, and close their sockets too.
            self.inner.db.notify(crate::db::News::Room, id).await;
            tracing::info!(room = %id, "room expired");
        }
        Ok(expired)
    }

    /// At start-up (in the background: the server listens already), rebuilds the rooms whose
    /// turn clock runs, so their clocks run out even if nobody returns; at most
    /// [`RESTORE_CONCURRENCY`] at a time, so one slow room does not hold up the others. Every
    /// other room loads on demand ([`Rooms::get`]). A room nobody reconnects to unloads itself
    /// again after `room_unload_after` once its clock has stopped. Returns how many loaded.
    ///
    /// # Errors
    /// On a database failure listing the rooms; a room that fails to load is logged.
    pub async fn restore_clocks(&self) -> Result<usize, DbError> {
        let ids = self.inner.db.rooms_with_running_clock().await?;
        let loaded = AtomicU64::new(0);
        stream::iter(ids)
            .for_each_concurrent(RESTORE_CONCURRENCY, |id| {
                let loaded = &loaded;
                async move {
                    match self.get(id).await {
                        Ok(_) => {
                            loaded.fetch_add(1, Ordering::Relaxed);
                        }
                        Err(error) => tracing::error!(room = %id, %error, "could not load a room"),
                    }
                }
            })
            .await;
        Ok(loaded.into_inner() as usize)
    }

    /// Shutdown, once the sockets are gone: drops every handle, so each actor's queue closes and
    /// it ends, and waits for them.
    pub async fn shut_down(&self) {
        self.inner.map().clear();
        let mut tasks =
            std::mem::take(&mut *self.inner.tasks.lock().unwrap_or_else(|poisoned| poisoned.into_inner()));
        while tasks.join_next().await.is_some() {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    async fn registry(unload_after: Duration) -> (Rooms, tempfile::TempDir) {
        Rooms::scratch(unload_after, crate::db::CommitOptions::default()).await
    }

    #[tokio::test]
    async fn an_idle_room_unloads_itself_and_is_rebuilt_on_demand() {
        let (rooms, _dir) = registry(Duration::from_millis(20)).await;
        let created =
            rooms.create(Role::Fugitive, RuleOptions::default(), None, Computer::default()).await.unwrap();
        let first = rooms.get(created.room).await.unwrap();
        assert!(rooms.inner.map().contains_key(&created.room));
        tokio::time::sleep(Duration::from_millis(300)).await;
        assert!(!rooms.inner.map().contains_key(&created.room), "the idle room was unloaded");
        assert!(first.summary().await.is_err(), "its actor has stopped");
        let second = rooms.get(created.room).await.unwrap();
        assert_ne!(first.generation, second.generation);
        assert_eq!(second.summary().await.unwrap().game, 1);
        rooms.shut_down().await;
    }

    #[tokio::test]
    async fn start_up_restores_only_the_rooms_whose_clock_runs_and_the_rest_load_on_demand() {
        let (rooms, _dir) = registry(Duration::from_secs(60)).await;
        let mut running = Vec::new();
        for _ in 0..(RESTORE_CONCURRENCY + 3) {
            let created = rooms
                .create(Role::Fugitive, RuleOptions::default(), Some(600), Computer::default())
                .await
                .unwrap();
            let handle = rooms.get(created.room).await.unwrap();
            assert!(handle.claim(created.invite).await.unwrap().is_ok());
            running.push(created.room);
        }
        // A clock nobody runs yet (the guest seat is free), and no clock at all.
        let unclaimed = rooms
            .create(Role::Fugitive, RuleOptions::default(), Some(600), Computer::default())
            .await
            .unwrap();
        let plain =
            rooms.create(Role::Fugitive, RuleOptions::default(), None, Computer::default()).await.unwrap();
        let db = rooms.db().clone();
        rooms.shut_down().await;

        let restarted = Rooms::new(db, rooms.inner.limits);
        assert_eq!(restarted.restore_clocks().await.unwrap(), running.len());
        let loaded: Vec<Uuid> = restarted.inner.map().keys().copied().collect();
        assert_eq!(loaded.len(), running.len());
        assert!(running.iter().all(|id| loaded.contains(id)));
        for id in [unclaimed.room, plain.room] {
            assert!(!restarted.inner.map().contains_key(&id));
            assert_eq!(restarted.get(id).await.unwrap().summary().await.unwrap().game, 1, "loaded on demand");
        }
        restarted.shut_down().await;
    }

    #[tokio::test]
    async fn an_unknown_room_is_not_found() {
        let (rooms, _dir) = registry(Duration::from_secs(60)).await;
        assert!(matches!(rooms.get(Uuid::new_v4()).await, Err(RoomsError::NotFound)));
    }
}
