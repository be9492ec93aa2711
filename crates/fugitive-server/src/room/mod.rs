//! One actor per room: the thin async shell around the room's state machine
//! ([`machine::Machine`]). Everything else talks to it through a cheap [`RoomHandle`] whose
//! commands carry a `oneshot` reply (Alice Ryhl, "Actors with Tokio").
//!
//! The machine decides; the shell does the I/O it asks for: it writes to the database, reads
//! the room back from the log, queues frames on the sockets, runs the computer opponent's
//! thinking and the Marshal's notepad on blocking threads, and sleeps until the turn clock's
//! alarm. Each accepted action is written to the database *before* any view of it is queued,
//! so whatever a client has seen survives a crash.
//!
//! With several nodes on one PostgreSQL database (`cluster/`), the shell also reads what
//! other nodes appended to the room's log when it hears of it, publishes this node's presence,
//! and runs the clock and the computer only while it holds the room's lease.

use std::collections::HashMap;
use std::ops::ControlFlow;
use std::sync::Arc;
use std::time::Duration;

use fugitive_core::{Entry, Game, ReplayError};
use tokio::sync::{mpsc, oneshot};
use tokio::task::JoinSet;
use tokio::time::Instant;
use uuid::Uuid;

use crate::cluster::lease::Cluster;
use crate::computer;
use crate::db::{Db, DbError, StoredRoom, now_ms, table};
use crate::mailbox::Mailbox;
use crate::metrics::{self, Stage};
use crate::model::options::Computer;
use crate::model::seat::{Presence, Seat};
use crate::protocol::{Frame, Notepad, Protocol, ServerMessage, encode_as};
use crate::push::Push;

mod handle;
pub mod machine;

use handle::Command;
pub use handle::{Gone, Heard, Queued, Replied, RoomHandle};
use machine::{
    Bot, Claim, Effect, Input, Join, JoinIo, Logged, Machine, Now, Outbox, Step, Stored, Think, TimeOut,
    WriteOp,
};
pub use machine::{ClaimError, Claimed, JoinError, Kick, RoomLimits, SeatRequest, Summary};

/// A socket's close signal, its mailbox (the machine's outbox too) and its protocol, as the
/// shell holds them: the shell queues the replies to the socket's requests itself.
struct Socket {
    kick: Option<oneshot::Sender<Kick>>,
    queue: Arc<Mailbox>,
    protocol: Protocol,
}

/// The computer opponent's next request, under way: it answers with the room's version it was
/// made for, so a request overtaken by another action is dropped.
type Thinking = oneshot::Receiver<(u64, Option<SeatRequest>)>;

/// The first pause before a room that could not read itself back tries again; each failure
/// doubles it, up to [`LAST_PAUSE`].
const FIRST_PAUSE: Duration = Duration::from_millis(100);
/// The longest pause between two tries to read the room back.
const LAST_PAUSE: Duration = Duration::from_secs(2);

/// A read-back that failed, to try again.
#[derive(Clone, Copy, Debug)]
struct ReadAgain {
    at: Instant,
    /// The pause before the try after this one, should this one fail too.
    next: Duration,
}

/// How reading the room back went.
enum Synced {
    Yes,
    /// The database could not be read (or the log does not replay): why.
    No(String),
    /// The room is gone from the database (it expired).
    Gone,
}

/// The actor: the machine and the I/O around it.
pub struct Room {
    machine: Machine,
    db: Db,
    cluster: Cluster,
    limits: RoomLimits,
    sockets: HashMap<u64, Socket>,
    thinking: Option<Thinking>,
    /// This node's presence, to publish for the other nodes.
    publish: Option<Presence>,
    /// When this node last tried to take the room's lease.
    tried_lease: Option<Instant>,
    /// Set while the room could not read itself back: news it heard (another node's move, the
    /// listener's resync) is in the log but not in this copy, and nothing may ever tell of it
    /// again (issue 23: a spectator on a third node never saw the end of a game when the
    /// database cut the connection of that read).
    read_again: Option<ReadAgain>,
    /// Where Web Push notices go: queued, never awaited.
    push: Push,
}

impl Room {
    /// Rebuilds a room from the database by replaying its current game's log.
    ///
    /// # Errors
    /// [`ReplayError`] when a stored action does not apply (a corrupt log).
    pub fn rebuild(
        id: Uuid,
        stored: StoredRoom,
        db: Db,
        cluster: Cluster,
        limits: RoomLimits,
    ) -> Result<Room, ReplayError> {
        let log = Logged::rebuild(id, stored, limits, now())?;
        // The machine's RNG (the next games' seeds, the claim tokens) is a CSPRNG seeded here.
        let mut machine = Machine::new(log, now(), rand::random());
        if cluster.is_shared() {
            machine.set_shared(true);
            machine.set_owner(false, now());
        }
        Ok(Room {
            machine,
            db,
            cluster,
            limits,
            sockets: HashMap::new(),
            thinking: None,
            publish: None,
            tried_lease: None,
            read_again: None,
            push: Push::off(),
        })
    }

    /// Sends this room's Web Push notices to `push`.
    pub fn with_push(mut self, push: Push) -> Room {
        self.push = push;
        self
    }

    /// Starts the actor. `on_unload` runs when it unloads itself for want of sockets.
    pub fn spawn(
        self,
        tasks: &mut JoinSet<()>,
        generation: u64,
        on_unload: impl FnOnce() + Send + 'static,
    ) -> RoomHandle {
        let (tx, rx) = mpsc::channel(64);
        // Counted at once, not when the task first runs: `/metrics` is right from here on.
        let loaded = metrics::room_loaded();
        tasks.spawn(async move {
            self.run(rx, on_unload).await;
            drop(loaded);
        });
        RoomHandle { generation, tx }
    }

    fn id(&self) -> Uuid {
        self.machine.id()
    }

    async fn run(mut self, mut rx: mpsc::Receiver<Command>, on_unload: impl FnOnce()) {
        let notepad = self.solve(self.machine.game().clone()).await;
        self.machine.set_notepad(notepad);
        if self.cluster.is_shared() {
            self.hear_presence().await;
            self.tend_lease().await;
        } else {
            self.machine.set_owner(true, now());
        }
        self.machine.wake(now());
        self.flush().await;
        let mut lease = tokio::time::interval(self.cluster.lease_tick());
        lease.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            let alarm = self.machine.alarm().map(Instant::from_std);
            let idle = self.machine.idle_since().map(Instant::from_std);
            let read_again = self.read_again.map(|again| again.at);
            tokio::select! {
                command = rx.recv() => match command {
                    Some(command) => {
                        if self.handle(command).await.is_break() {
                            self.flush().await;
                            break;
                        }
                    }
                    None => break,
                },
                () = sleep_until(alarm), if alarm.is_some() => self.time_out().await,
                () = sleep_until(read_again), if read_again.is_some() => {
                    if self.hear(Heard::Resync).await.is_break() {
                        self.flush().await;
                        break;
                    }
                }
                answer = think(&mut self.thinking), if self.thinking.is_some() => {
                    self.thinking = None;
                    let (version, request) = answer;
                    self.bot(version, request).await;
                }
                () = tokio::time::sleep_until(idle.unwrap_or_else(Instant::now) + self.limits.unload_after), if idle.is_some() => {
                    on_unload();
                    // Commands already queued are dropped: their callers see `Gone` and reload.
                    rx.close();
                    break;
                }
                _ = lease.tick(), if self.cluster.is_shared() => self.tend_lease().await,
            }
            self.flush().await;
            // Something here must now happen once and nobody here runs it: try the lease at
            // once (at most four times a tick), not a third of a lease later.
            if self.cluster.is_shared()
                && self.machine.needs_owner()
                && !self.machine.is_owner()
                && self.tried_lease.is_none_or(|at| at.elapsed() > self.cluster.lease_tick() / 4)
            {
                self.tend_lease().await;
                self.flush().await;
            }
        }
        if self.cluster.is_shared() && self.machine.is_owner() {
            self.cluster.release(&self.db, self.id()).await;
        }
    }

    /// Carries out one command; `Break` when the actor must stop (the room expired).
    async fn handle(&mut self, command: Command) -> ControlFlow<()> {
        match command {
            Command::Join { token, name, queue, protocol, kick, reply } => {
                let io = JoinIo { queue: queue.clone(), protocol };
                let step = self.machine.input(Join { token, name, io, checked: false }, now());
                let joined = self.drive(step).await;
                if let Ok(id) = joined {
                    self.sockets.insert(id, Socket { kick: Some(kick), queue, protocol });
                }
                // Every frame is queued before the reply goes out: a client that reads the
                // reply has its state.
                self.flush().await;
                // A socket that went away while joining never learns its id: it cannot leave.
                if let Err(Ok(socket)) = reply.send(joined) {
                    self.machine.leave(socket, now());
                }
            }
            Command::Leave { socket } => self.machine.leave(socket, now()),
            Command::Resync { socket, reply } => {
                self.machine.resync(socket, now());
                let _ = reply.send(());
            }
            Command::Request { socket, seq, request, sent, queue_reply, reply } => {
                let started = Instant::now();
                metrics::stage(Stage::Queue, started.saturating_duration_since(sent));
                // The writer wakes once the reply is queued behind the action's frames.
                let held =
                    self.sockets.get(&socket).filter(|_| queue_reply).map(|s| (s.queue.clone(), s.protocol));
                if let Some((queue, _)) = &held {
                    queue.hold();
                }
                let step = self.machine.request(socket, seq, request, now());
                metrics::stage(Stage::Step, started.elapsed());
                let answer = self.drive(step).await;
                self.flush().await;
                let queued = match held {
                    Some((queue, protocol)) => {
                        let frame = encode_as(protocol, &ServerMessage::Reply(&answer));
                        let queued = if queue.send(frame).is_ok() { Queued::Yes } else { Queued::Full };
                        queue.release();
                        queued
                    }
                    None => Queued::No,
                };
                let _ = reply.send(Replied { reply: answer, queued });
            }
            Command::Table { socket, seq, request, reply } => {
                let step = self.machine.table(socket, seq, request, now());
                let answer = self.drive(step).await;
                self.flush().await;
                let _ = reply.send(answer);
            }
            Command::Claim { invite, reply } => {
                let step = self.machine.input(Claim { invite }, now());
                let answer = self.drive(step).await;
                self.flush().await;
                let _ = reply.send(answer);
            }
            Command::Summary { reply } => {
                let _ = reply.send(self.machine.summary());
            }
            Command::Expire => {
                self.machine.expire();
                return ControlFlow::Break(());
            }
            Command::Heard(heard) => return self.hear(heard).await,
        }
        ControlFlow::Continue(())
    }

    /// Carries an input through its writes and reads until it is answered.
    async fn drive<I: Input>(&mut self, mut step: Step<I>) -> I::Answer {
        let mut syncs = 0;
        loop {
            step = match step {
                Step::Done(answer) => {
                    if self.machine.is_stale() && self.cluster.is_shared() {
                        // Another node changed the room (a claim, a new game): read it back now.
                        self.sync().await;
                    }
                    return answer;
                }
                Step::Write(write) => {
                    if let WriteOp::Append { record, .. } = &write.op {
                        // What only the lease holder may do, counted when it is tried, stored or
                        // not: the fault tests watch that a node cut off does not try it.
                        if record.action == Entry::TimeOut {
                            metrics::owner_write("clock");
                        } else if record.seat == Some(Seat::Guest) && self.machine.computer().bot.is_some() {
                            metrics::owner_write("computer");
                        }
                    }
                    let solving = write
                        .next_game()
                        .filter(|game| self.machine.wants_notepad(game))
                        .map(|game| spawn_notepad(self.machine.computer(), game.clone()));
                    let result = self.perform(&write.op).await;
                    if result.is_ok() && matches!(write.op, WriteOp::Append { .. }) {
                        metrics::action();
                    }
                    let notepad = match solving {
                        Some(solving) if result.is_ok() => solving.await.ok().flatten(),
                        _ => None,
                    };
                    let publishing = Instant::now();
                    let appended = matches!(write.op, WriteOp::Append { .. });
                    let next = self.machine.written(*write, result, notepad, now());
                    if appended {
                        metrics::stage(Stage::Publish, publishing.elapsed());
                    }
                    next
                }
                Step::Sync(input) => {
                    syncs += 1;
                    if syncs > 3 || !matches!(self.sync().await, Synced::Yes) {
                        return self.machine.give_up(input, now());
                    }
                    self.machine.input(input, now())
                }
            };
        }
    }

    /// Carries out one write.
    async fn perform(&mut self, op: &WriteOp) -> Result<Stored, DbError> {
        let id = self.id();
        let db = &self.db;
        let result = match op {
            WriteOp::Append { game, number, record, finished } => {
                db.append_action(id, *game, *number, record, *finished).await.map(|()| Stored::Done)
            }
            WriteOp::Rematch { seat, game, setup, fugitive_seat } => {
                db.rematch(id, *seat, *game, setup, *fugitive_seat, now_ms()).await.map(Stored::Rematch)
            }
            WriteOp::Claim { token_hash } => db.claim_guest_seat(id, token_hash).await.map(Stored::Claimed),
            WriteOp::Name { seat, name } => {
                table::store_name(db, id, *seat, name.as_deref()).await.map(|()| Stored::Done)
            }
            WriteOp::Chat(line) => table::store_chat(db, id, line).await.map(|()| Stored::Done),
            WriteOp::ChatPublic { seat, allow } => {
                table::store_chat_public(db, id, *seat, *allow).await.map(|()| Stored::Done)
            }
        };
        let result = result.map_err(DbError::conflict_or);
        if result.is_ok() && !matches!(op, WriteOp::Append { .. }) && self.cluster.is_shared() {
            // The writer tells of appends itself; the other rows are read back on this news.
            self.db.notify(crate::db::News::Room, id).await;
        }
        result
    }

    /// Reads the whole room back from the database (after a failed or conflicting write, or
    /// news from another node); the sockets, each seat's remembered replies and the lease stay.
    /// When it fails, the room tries again on its own until it succeeds ([`ReadAgain`]).
    async fn sync(&mut self) -> Synced {
        let synced = self.read_back().await;
        let room = self.id();
        self.read_again = match (&synced, self.read_again) {
            (Synced::No(error), None) => {
                tracing::error!(%room, %error, "could not read the room back; will try again");
                Some(ReadAgain { at: Instant::now() + FIRST_PAUSE, next: FIRST_PAUSE * 2 })
            }
            // Said once per failing streak: a database down for a while is one line per room.
            (Synced::No(error), Some(again)) => {
                tracing::debug!(%room, %error, pause = ?again.next, "could not read the room back again");
                Some(ReadAgain { at: Instant::now() + again.next, next: (again.next * 2).min(LAST_PAUSE) })
            }
            (Synced::Yes, Some(_)) => {
                tracing::info!(%room, "read the room back after a failure");
                None
            }
            (Synced::Yes | Synced::Gone, _) => None,
        };
        synced
    }

    async fn read_back(&mut self) -> Synced {
        let id = self.id();
        let stored = match self.db.load_room(id).await {
            Ok(Some(stored)) => stored,
            Ok(None) => {
                tracing::warn!(room = %id, "the room is gone from the database");
                return Synced::Gone;
            }
            Err(error) => return Synced::No(error.to_string()),
        };
        let fresh = match Logged::rebuild(id, stored, self.limits, now()) {
            Ok(fresh) => fresh,
            Err(error) => return Synced::No(format!("the room read back does not replay: {error}")),
        };
        let notepad = self.solve(fresh.game().clone()).await;
        self.machine.reload(fresh, notepad, now());
        Synced::Yes
    }

    /// News from another node (or the listener's reconnection).
    async fn hear(&mut self, heard: Heard) -> ControlFlow<()> {
        let synced = match heard {
            Heard::Action { game, number } => {
                let (mine, next) = self.machine.position();
                if game == mine && number < next as u64 {
                    return ControlFlow::Continue(()); // Known already (ours, or read back).
                }
                if game == mine && !self.machine.is_stale() && self.catch_up().await {
                    return ControlFlow::Continue(());
                }
                self.sync().await
            }
            Heard::Room | Heard::Resync => self.sync().await,
            Heard::Presence => {
                self.hear_presence().await;
                Synced::Yes
            }
            Heard::Forgotten => {
                self.machine.republish_presence();
                Synced::Yes
            }
            Heard::Lease => {
                if self.machine.needs_owner() {
                    self.tend_lease().await;
                } else if let Err(error) = self.db.drop_expired_lease(self.id()).await {
                    tracing::warn!(room = %self.id(), %error, "could not drop a lease nobody needs");
                }
                Synced::Yes
            }
        };
        if let Synced::Gone = synced {
            self.machine.expire();
            return ControlFlow::Break(());
        }
        if matches!(heard, Heard::Resync) {
            self.hear_presence().await;
        }
        ControlFlow::Continue(())
    }

    /// Reads the actions appended after this copy's last one and applies them; `false` when
    /// they do not follow on (the room is then read back whole).
    async fn catch_up(&mut self) -> bool {
        let (game, from) = self.machine.position();
        let records = match self.db.load_actions(self.id(), game, from).await {
            Ok(records) => records,
            Err(error) => {
                tracing::error!(room = %self.id(), %error, "could not read the log");
                return false;
            }
        };
        let Some(next) = self.machine.catch_up(game, from, &records) else { return false };
        let notepad = self.solve(next.clone()).await;
        self.machine.caught_up(&records, next, notepad, now());
        true
    }

    async fn hear_presence(&mut self) {
        match self.db.load_presence(self.id()).await {
            Ok(remote) => self.machine.set_remote(remote, now()),
            Err(error) => {
                tracing::warn!(room = %self.id(), %error, "could not read the other nodes' presence")
            }
        }
    }

    /// Takes the room's lease when something here must happen once and nobody runs it, gives
    /// it back when nothing must; reads the log before running anything as the new owner.
    async fn tend_lease(&mut self) {
        if !self.cluster.is_shared() {
            return;
        }
        let id = self.id();
        let mut owns = self.cluster.owns(id);
        if !owns && self.machine.needs_owner() {
            self.tried_lease = Some(Instant::now());
            owns = self.cluster.acquire(&self.db, id).await;
            if owns {
                // Carry on from the log, not from this copy.
                self.sync().await;
            }
        } else if owns && !self.machine.needs_owner() {
            self.cluster.release(&self.db, id).await;
            owns = false;
        }
        self.machine.set_owner(owns, now());
    }

    async fn time_out(&mut self) {
        if !self.cluster.owns(self.id()) {
            // Lost the lease (a pause, a cut connection): another node runs the clock now.
            self.machine.set_owner(false, now());
            return;
        }
        let step = self.machine.input(TimeOut, now());
        self.drive(step).await;
    }

    async fn bot(&mut self, version: u64, request: Option<SeatRequest>) {
        let owns = self.cluster.owns(self.id());
        self.machine.set_owner(owns, now());
        let step = self.machine.input(Bot::Thought { version, request }, now());
        self.drive(step).await;
    }

    /// Carries out the machine's effects: frames, kicks, thinking, presence.
    async fn flush(&mut self) {
        loop {
            let effects = self.machine.take_effects();
            if effects.is_empty() {
                break;
            }
            for effect in effects {
                match effect {
                    Effect::Kick { socket, why } => {
                        if let Some(mut io) = self.sockets.remove(&socket) {
                            if let Some(kick) = io.kick.take() {
                                let _ = kick.send(why);
                            }
                        }
                    }
                    Effect::Think { version, think } => self.think(version, think),
                    Effect::Publish(presence) => self.publish = Some(presence),
                    Effect::Push { seat, notice } => self.push.to_seat(seat, notice),
                }
            }
        }
        if let Some(presence) = self.publish.take() {
            if self.cluster.is_shared() {
                if let Err(error) = self.db.publish_presence(self.id(), presence).await {
                    tracing::warn!(room = %self.id(), %error, "could not publish presence");
                }
            }
        }
    }

    /// Starts the computer opponent thinking on a task of its own; it gets only its own
    /// role's view and answers after a natural pause.
    fn think(&mut self, version: u64, think: Think) {
        let (tx, rx) = oneshot::channel();
        tokio::spawn(async move {
            let request = match think {
                Think::Move { level, view, seed, pause } => {
                    tokio::time::sleep(computer::pause(pause)).await;
                    tokio::task::spawn_blocking(move || computer::think(level, *view, seed))
                        .await
                        .ok()
                        .flatten()
                        .map(SeatRequest::Action)
                }
                Think::Rematch { pause } => {
                    tokio::time::sleep(computer::pause(pause)).await;
                    Some(SeatRequest::Rematch)
                }
                Think::Retry { request } => {
                    tokio::time::sleep(Duration::from_secs(1)).await;
                    request
                }
            };
            let _ = tx.send((version, request));
        });
        self.thinking = Some(rx);
    }

    /// The notepad of `game` in this room, solved on a blocking thread (`None` where none is
    /// shown).
    async fn solve(&self, game: Game) -> Option<Notepad> {
        if !self.machine.wants_notepad(&game) {
            return None;
        }
        spawn_notepad(self.machine.computer(), game).await.ok().flatten()
    }
}

/// The clocks, read for the machine: the monotonic one (tokio's, so paused time in tests
/// moves it) and the wall clock.
fn now() -> Now {
    Now { at: Instant::now().into_std(), wall_ms: now_ms() }
}

/// A socket's mailbox is the machine's outbox: a full one refuses a frame that must be written
/// (the machine then drops the socket), and a delta too far ahead of what it holds.
impl Outbox for Mailbox {
    fn send(&self, frame: Frame) -> bool {
        Mailbox::send(self, frame).is_ok()
    }

    fn snapshot(&self, frame: Frame) {
        Mailbox::snapshot(self, frame);
    }

    fn delta(&self, frame: Frame) -> bool {
        Mailbox::delta(self, frame).is_ok()
    }
}

/// Solves the Marshal's notepad of `game` on a blocking thread: the deduction is too heavy for
/// the actor.
fn spawn_notepad(computer: Computer, game: Game) -> tokio::task::JoinHandle<Option<Notepad>> {
    tokio::task::spawn_blocking(move || computer::notepad(computer, &game, fugitive_core::Viewer::Marshal))
}

/// The computer opponent's answer; a thinking task that died answers nothing.
async fn think(thinking: &mut Option<Thinking>) -> (u64, Option<SeatRequest>) {
    match thinking {
        Some(answer) => answer.await.unwrap_or((0, None)),
        None => std::future::pending().await,
    }
}

async fn sleep_until(deadline: Option<Instant>) {
    match deadline {
        Some(deadline) => tokio::time::sleep_until(deadline).await,
        None => std::future::pending().await,
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::Ordering;

    use fugitive_core::{Action, Card, Cards, Entry, Role, RuleOptions};

    use super::*;
    use crate::protocol::{Reply, code};
    use crate::rooms::Rooms;

    #[tokio::test]
    async fn an_ambiguous_commit_is_read_back_before_the_next_request() {
        let (rooms, _dir) = Rooms::scratch(Duration::from_secs(60), Default::default()).await;
        let db = rooms.db().clone();
        let created =
            rooms.create(Role::Fugitive, RuleOptions::default(), None, Computer::default()).await.unwrap();
        let room = rooms.get(created.room).await.unwrap();
        let queue = crate::mailbox::Mailbox::new(64);
        let (kick, _kicked) = oneshot::channel();
        let socket = room
            .join(Some(created.token), None, queue, crate::protocol::Protocol::V1, kick)
            .await
            .unwrap()
            .unwrap();
        let place =
            SeatRequest::Action(Action::Place { hideout: Card::new(1).unwrap(), sprints: Cards::EMPTY });

        // The database commits the placement but the driver reports a failure.
        db.faults().ambiguous_next_batch.store(true, Ordering::SeqCst);
        let reply = room.request(socket, 1, place).await.unwrap();
        assert_eq!(reply.code(), Some(code::UNAVAILABLE));
        let stored = db.load_room(created.room).await.unwrap().unwrap();
        assert_eq!(stored.game.actions.len(), 1, "it was stored all the same");

        // The room reads its log back: the retry is answered ok (and not applied twice), and
        // the game goes on from the stored state.
        assert_eq!(room.request(socket, 1, place).await.unwrap(), Reply::ok(1));
        let end_turn = SeatRequest::Action(Action::EndTurn);
        assert_eq!(room.request(socket, 2, end_turn).await.unwrap(), Reply::ok(2));
        let stored = db.load_room(created.room).await.unwrap().unwrap();
        let actions: Vec<Entry> = stored.game.actions.iter().map(|a| a.action).collect();
        let place = Action::Place { hideout: Card::new(1).unwrap(), sprints: Cards::EMPTY };
        assert_eq!(actions, [place.into(), Action::EndTurn.into()]);
        drop(room);
        rooms.shut_down().await;
    }
}
