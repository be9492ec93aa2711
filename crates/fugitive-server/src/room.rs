//! One actor per room: a task that owns the [`Game`], the two seats and every connected
//! socket's outbound queue. Everything else talks to it through a cheap [`RoomHandle`] whose
//! commands carry a `oneshot` reply (Alice Ryhl, "Actors with Tokio").
//!
//! The actor writes each accepted action to the database *before* any view of it is queued, so
//! whatever a client has seen survives a crash.

use std::collections::{HashMap, VecDeque};
use std::ops::ControlFlow;
use std::sync::Arc;
use std::time::Duration;

use axum::extract::ws::Utf8Bytes;
use fugitive_core::{Action, ByRole, Game, ReplayError, Role, RuleOptions, Setup, Viewer};
use tokio::sync::{mpsc, oneshot};
use tokio::task::JoinSet;
use tokio::time::Instant;
use uuid::Uuid;

use crate::computer::{self, Computer};
use crate::db::{Db, DbError, SeatClaim, StoredAction, StoredRoom, now_ms};
use crate::frames::{self, Change, Current, Sent};
use crate::mailbox::Mailbox;
use crate::metrics;
use crate::protocol::{ClockStatus, Notepad, Protocol, Reply, RoomStatus, ServerMessage, code, encode_as};
use crate::rooms;
use crate::seat::{Recall, Seat, SeqMemory, hash_secret, new_secret};
use crate::table::{self, ChatBody, ChatBucket, ChatLine, ChatWire, Series, SeriesStatus, TableRequest};

mod handle;

use handle::Command;
pub use handle::{ClaimError, Claimed, Gone, JoinError, Kick, RoomHandle, SeatRequest, Summary};

struct SeatState {
    token_hash: Option<String>,
    seqs: SeqMemory,
}

struct Socket {
    seat: Option<Seat>,
    queue: Arc<Mailbox>,
    protocol: Protocol,
    /// Whether it holds its viewer's latest state (a protocol-2 socket: its viewer's [`Sent`]);
    /// a socket that joined or asked for a `resync` does not, and gets a snapshot.
    synced: bool,
    kick: Option<oneshot::Sender<Kick>>,
}

/// The running turn clock.
#[derive(Clone, Copy, Debug)]
struct Clock {
    role: Role,
    deadline: Instant,
}

/// How a request's reply is remembered for a retry with the same `seq`.
enum Memo {
    Accepted,
    Refused,
    /// Not remembered: a retry may succeed (the database was unavailable).
    Forget,
}

/// Limits the room enforces.
#[derive(Clone, Copy, Debug)]
pub struct RoomLimits {
    /// Most spectators' sockets on the room (the players' are not counted).
    pub max_sockets: usize,
    /// Unload after this long without a socket (and no running clock).
    pub unload_after: Duration,
    /// About how long a computer opponent waits before it moves.
    pub bot_pause: Duration,
    /// `--deal-seed`: deal every game, and let the computer choose, from this number.
    pub deal_seed: Option<u64>,
}

/// The computer opponent's next request, under way: it answers with the room's version it was
/// made for, so a request overtaken by another action is dropped.
type Thinking = oneshot::Receiver<(u64, Option<SeatRequest>)>;

/// The state the actor owns.
pub struct Room {
    id: Uuid,
    db: Db,
    limits: RoomLimits,
    rules: RuleOptions,
    turn_clock_secs: Option<u64>,
    invite_hash: Option<String>,
    seats: [SeatState; 2],
    game_number: u64,
    game: Game,
    fugitive_seat: Seat,
    version: u64,
    rematch: [bool; 2],
    sockets: HashMap<u64, Socket>,
    next_socket: u64,
    clock: Option<Clock>,
    empty_since: Instant,
    computer: Computer,
    thinking: Option<Thinking>,
    /// Each seat's display name (`table.rs`), by seat index.
    names: [Option<String>; 2],
    /// The newest chat messages, oldest first, and the number of the last one.
    chat: VecDeque<ChatLine>,
    chat_last: u64,
    /// Whether each seat lets spectators read the chat, by seat index.
    chat_public: [bool; 2],
    chat_buckets: [ChatBucket; 2],
    /// The score of the room's finished games, by seat.
    series: Series,
    /// The Marshal's notepad (room option `notepad_assist`) as of a version, solved on a
    /// blocking thread: the deduction is too heavy for the actor, and every Marshal frame of
    /// that version shares it.
    notepad: Option<(u64, Option<Notepad>)>,
    /// What the protocol-2 sockets of each viewer hold (by `Viewer::ALL`'s order), while it has
    /// any: deltas are made from it (`frames.rs`).
    sent: [Option<Sent>; 3],
    /// A write failed: the database may hold it all the same (an ambiguous commit: committed,
    /// then the connection failed before saying so). The room reads its state back from the
    /// database before it carries out anything else.
    stale: bool,
}

impl Room {
    /// Rebuilds a room from the database by replaying its current game's log.
    ///
    /// # Errors
    /// [`ReplayError`] when a stored action does not apply (a corrupt log).
    pub fn rebuild(id: Uuid, stored: StoredRoom, db: Db, limits: RoomLimits) -> Result<Room, ReplayError> {
        let mut game = Game::new(stored.game.setup);
        let mut turn_start = stored.game.started_at;
        for (index, record) in stored.game.actions.iter().enumerate() {
            let before = game.to_move();
            crate::replay::apply_stored(&mut game, index, record.role, record.action)?;
            if game.to_move() != before {
                turn_start = record.at;
            }
        }
        let mut seats = stored.seats.map(|token_hash| SeatState { token_hash, seqs: SeqMemory::default() });
        for (seat, seq) in stored.seqs {
            seats[seat.index()].seqs.note_accepted(seq);
        }
        // The clock of this turn started when the turn did, or when the second seat was claimed
        // if that came later.
        let turn_start = turn_start.max(stored.seated_at.unwrap_or(turn_start));
        let mut room = Room {
            id,
            db,
            limits,
            rules: stored.rules,
            turn_clock_secs: stored.turn_clock_secs,
            invite_hash: stored.invite_hash,
            seats,
            game_number: stored.game.number,
            version: stored.earlier_actions
                + game.actions().len() as u64
                + stored.game.number.saturating_sub(1),
            game,
            fugitive_seat: stored.game.fugitive_seat,
            rematch: stored.rematch,
            sockets: HashMap::new(),
            next_socket: 1,
            clock: None,
            empty_since: Instant::now(),
            computer: stored.computer,
            thinking: None,
            names: stored.table.names,
            chat: stored.table.chat.into(),
            chat_last: stored.table.chat_last,
            chat_public: stored.table.chat_public,
            chat_buckets: Default::default(),
            series: stored.table.series,
            notepad: None,
            sent: Default::default(),
            stale: false,
        };
        room.clock = room.clock_due().map(|(secs, role)| {
            let elapsed = u64::try_from(now_ms() - turn_start).unwrap_or(0);
            let left = Duration::from_millis((secs * 1000).saturating_sub(elapsed));
            Clock { role, deadline: Instant::now() + left }
        });
        Ok(room)
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

    async fn run(mut self, mut rx: mpsc::Receiver<Command>, on_unload: impl FnOnce()) {
        self.solve_notepad_now().await;
        self.wake_bot();
        loop {
            let deadline = self.clock.map(|c| c.deadline);
            let idle = self.sockets.is_empty() && deadline.is_none();
            tokio::select! {
                command = rx.recv() => match command {
                    Some(command) => {
                        if self.handle(command).await.is_break() {
                            break;
                        }
                    }
                    None => break,
                },
                () = sleep_until(deadline), if deadline.is_some() => self.time_out().await,
                answer = think(&mut self.thinking), if self.thinking.is_some() => self.bot_move(answer).await,
                () = tokio::time::sleep_until(self.empty_since + self.limits.unload_after), if idle => {
                    on_unload();
                    // Commands already queued are dropped: their callers see `Gone` and reload.
                    rx.close();
                    break;
                }
            }
        }
    }

    /// Carries out one command; `Break` when the actor must stop (the room expired).
    async fn handle(&mut self, command: Command) -> ControlFlow<()> {
        match command {
            Command::Join { token, name, queue, protocol, kick, reply } => {
                let joined = self.join(token, name, queue, protocol, kick).await;
                // A socket that went away while joining never learns its id: it cannot leave.
                if let Err(Ok(socket)) = reply.send(joined) {
                    self.leave(socket);
                }
            }
            Command::Leave { socket } => self.leave(socket),
            Command::Resync { socket, reply } => {
                if let Some(socket) = self.sockets.get_mut(&socket) {
                    socket.synced = false;
                    self.publish(false);
                }
                let _ = reply.send(());
            }
            Command::Request { socket, seq, request, reply } => {
                let answer = if self.refresh().await {
                    self.request(socket, seq, request).await
                } else {
                    unavailable(seq)
                };
                let _ = reply.send(answer);
            }
            Command::Table { socket, seq, request, reply } => {
                let answer = match self.sockets.get(&socket).and_then(|s| s.seat) {
                    Some(seat) => self.table_request(seat, seq, request).await,
                    None => Reply::error(Some(seq), code::SPECTATOR, "a spectator can only watch and read"),
                };
                let _ = reply.send(answer);
            }
            Command::Claim { invite, reply } => {
                let answer = if self.refresh().await {
                    self.claim(&invite).await
                } else {
                    Err(ClaimError::Unavailable)
                };
                let _ = reply.send(answer);
            }
            Command::Summary { reply } => {
                let status = self.status();
                let _ = reply.send(Summary {
                    seats: status.seats,
                    to_move: self.game.to_move(),
                    outcome: self.game.outcome(),
                    names: status.names,
                    game: self.game_number,
                    over: self.game.is_over(),
                    rules: self.rules,
                    turn_clock_secs: self.turn_clock_secs,
                });
            }
            Command::Expire => {
                self.kick_all(Kick { code: 4004, reason: "the room has expired" });
                return ControlFlow::Break(());
            }
        }
        ControlFlow::Continue(())
    }

    /// After a failed write, reads the room back from the database (which may hold the write
    /// all the same) and tells every socket; `false` while the database cannot be read. The
    /// sockets and each seat's remembered replies stay.
    async fn refresh(&mut self) -> bool {
        if !self.stale {
            return true;
        }
        let stored = match self.db.load_room(self.id).await {
            Ok(Some(stored)) => stored,
            Ok(None) => {
                tracing::error!(room = %self.id, "the room is gone from the database");
                return false;
            }
            Err(error) => {
                tracing::error!(room = %self.id, %error, "could not reload the room");
                return false;
            }
        };
        let accepted = stored.seqs.clone();
        let fresh = match Room::rebuild(self.id, stored, self.db.clone(), self.limits) {
            Ok(fresh) => fresh,
            Err(error) => {
                tracing::error!(room = %self.id, %error, "the reloaded room does not replay");
                return false;
            }
        };
        let old = std::mem::replace(self, fresh);
        self.sockets = old.sockets;
        self.next_socket = old.next_socket;
        self.empty_since = old.empty_since;
        self.thinking = old.thinking;
        self.chat_buckets = old.chat_buckets;
        // The history only grows: the reloaded state is still told as a delta.
        self.sent = old.sent;
        for (seat, memory) in Seat::ALL.into_iter().zip(old.seats.map(|s| s.seqs)) {
            self.seats[seat.index()].seqs = memory;
        }
        for (seat, seq) in accepted {
            self.seats[seat.index()].seqs.note_accepted(seq);
        }
        tracing::info!(room = %self.id, version = self.version, "room reloaded after a failed write");
        self.solve_notepad_now().await;
        self.broadcast();
        true
    }

    fn role_of(&self, seat: Seat) -> Role {
        if seat == self.fugitive_seat { Role::Fugitive } else { Role::Marshal }
    }

    fn seat_of(&self, role: Role) -> Seat {
        if role == Role::Fugitive { self.fugitive_seat } else { self.fugitive_seat.other() }
    }

    fn viewer_of(&self, seat: Option<Seat>) -> Viewer {
        seat.map_or(Viewer::Spectator, |seat| Viewer::from(self.role_of(seat)))
    }

    async fn join(
        &mut self,
        token: Option<String>,
        name: Option<Option<String>>,
        queue: Arc<Mailbox>,
        protocol: Protocol,
        kick: oneshot::Sender<Kick>,
    ) -> Result<u64, JoinError> {
        let seat = match token {
            None => None,
            Some(token) => {
                let hash = hash_secret(&token);
                let seat = Seat::ALL
                    .into_iter()
                    .find(|s| self.seats[s.index()].token_hash.as_deref() == Some(&hash));
                Some(seat.ok_or(JoinError::BadToken)?)
            }
        };
        // Only spectators are counted: they must never lock a player out of his seat.
        let spectators = self.sockets.values().filter(|s| s.seat.is_none()).count();
        if seat.is_none() && spectators >= self.limits.max_sockets {
            return Err(JoinError::Full);
        }
        let before = self.status();
        if let (Some(seat), Some(name)) = (seat, name) {
            // A name that cannot be stored is dropped: the player still joins.
            let _ = self.rename(seat, name).await;
        }
        let id = self.next_socket;
        self.next_socket += 1;
        let welcome = ServerMessage::Welcome {
            role: seat.map(|s| self.role_of(s)),
            room: self.id,
            last_seq: seat.map_or(0, |s| self.seats[s.index()].seqs.last),
        };
        let _ = queue.send(encode_as(protocol, &welcome));
        self.sockets.insert(id, Socket { seat, queue, protocol, synced: false, kick: Some(kick) });
        // Its first state (a snapshot); the others' too when they see a change.
        self.publish(self.status().others_see_a_change(&before));
        if self.reads_chat(seat) && !self.chat.is_empty() {
            let frame = self.chat_frame(protocol, true, self.chat.iter());
            let _ = self.sockets[&id].queue.send(frame);
        }
        Ok(id)
    }

    fn leave(&mut self, socket: u64) {
        let before = self.status();
        if self.sockets.remove(&socket).is_some() && self.status().others_see_a_change(&before) {
            self.broadcast();
        }
        if self.sockets.is_empty() {
            self.empty_since = Instant::now();
        }
    }

    /// Stores and sets a seat's name; `Err(())` when the database failed (nothing changed).
    async fn rename(&mut self, seat: Seat, name: Option<String>) -> Result<(), ()> {
        if self.names[seat.index()] == name {
            return Ok(());
        }
        if let Err(error) = table::store_name(&self.db, self.id, seat, name.as_deref()).await {
            tracing::error!(room = %self.id, %error, "could not store a name");
            return Err(());
        }
        self.names[seat.index()] = name;
        Ok(())
    }

    /// A seated player's request about the table: a name, a chat message, the chat's readers.
    async fn table_request(&mut self, seat: Seat, seq: u64, request: TableRequest) -> Reply {
        match request {
            TableRequest::Name(name) => {
                if self.rename(seat, name).await.is_err() {
                    return unavailable(seq);
                }
                self.broadcast();
            }
            TableRequest::Chat(body) => {
                if !self.chat_buckets[seat.index()].take() {
                    let message = "too many chat messages: 5 at once, then one every 5 seconds";
                    return Reply::error(Some(seq), code::CHAT_TOO_FAST, message);
                }
                let line = ChatLine { number: self.chat_last + 1, seat, body, at: now_ms() };
                if let Err(error) = table::store_chat(&self.db, self.id, &line).await {
                    tracing::error!(room = %self.id, %error, "could not store a chat message");
                    return unavailable(seq);
                }
                self.chat_last = line.number;
                let frames = self.chat_frames(false, std::iter::once(&line));
                self.chat.push_back(line);
                if self.chat.len() > table::CHAT_HISTORY {
                    self.chat.pop_front();
                }
                let spectators = self.reads_chat(None);
                self.send_each(|socket| socket.seat.is_some() || spectators, &frames);
            }
            TableRequest::ChatSpectators(allow) => {
                let before = self.reads_chat(None);
                if let Err(error) = table::store_chat_public(&self.db, self.id, seat, allow).await {
                    tracing::error!(room = %self.id, %error, "could not store a chat setting");
                    return unavailable(seq);
                }
                self.chat_public[seat.index()] = allow;
                self.broadcast();
                if self.reads_chat(None) != before {
                    // The spectators start (or stop) reading: the whole history, or nothing.
                    let frames = if before {
                        self.chat_frames(true, [].iter())
                    } else {
                        self.chat_frames(true, self.chat.iter())
                    };
                    self.send_each(|socket| socket.seat.is_none(), &frames);
                }
            }
        }
        Reply::ok(seq)
    }

    /// Whether a socket in `seat` (`None`: a spectator) reads the chat: the players always,
    /// spectators only while both players allow it.
    fn reads_chat(&self, seat: Option<Seat>) -> bool {
        seat.is_some() || self.chat_public == [true, true]
    }

    /// A `chat` frame in each protocol, by [`Protocol`] (1, then 2).
    fn chat_frames<'a>(
        &self,
        full: bool,
        lines: impl Iterator<Item = &'a ChatLine> + Clone,
    ) -> [Utf8Bytes; 2] {
        [Protocol::V1, Protocol::V2].map(|protocol| self.chat_frame(protocol, full, lines.clone()))
    }

    /// Queues a frame that must be written (chat) for each socket `to` picks, in its protocol
    /// (`frames` by [`Protocol`], 1 then 2). A socket with too many such frames unread has
    /// stopped reading: it is closed.
    fn send_each(&mut self, to: impl Fn(&Socket) -> bool, frames: &[Utf8Bytes; 2]) {
        let mut slow = Vec::new();
        for (&id, socket) in self.sockets.iter().filter(|(_, socket)| to(socket)) {
            let frame = &frames[usize::from(socket.protocol == Protocol::V2)];
            if socket.queue.send(frame.clone()).is_err() {
                slow.push(id);
            }
        }
        for id in slow {
            if let Some(mut socket) = self.sockets.remove(&id) {
                kick(&mut socket, Kick { code: 1008, reason: "too slow: messages were not read" });
            }
        }
    }

    fn chat_frame<'a>(
        &self,
        protocol: Protocol,
        full: bool,
        lines: impl Iterator<Item = &'a ChatLine>,
    ) -> Utf8Bytes {
        let messages: Vec<ChatWire<'_>> = lines
            .map(|line| ChatWire {
                n: line.number,
                from: self.role_of(line.seat),
                text: match &line.body {
                    ChatBody::Text(text) => Some(text),
                    ChatBody::Quick(_) => None,
                },
                quick: match line.body {
                    ChatBody::Quick(quick) => Some(quick),
                    ChatBody::Text(_) => None,
                },
                at: line.at,
            })
            .collect();
        encode_as(protocol, &ServerMessage::Chat { full, messages: &messages })
    }

    async fn request(&mut self, socket: u64, seq: u64, request: SeatRequest) -> Reply {
        match self.sockets.get(&socket).and_then(|s| s.seat) {
            Some(seat) => self.seat_request(seat, seq, request).await,
            None => Reply::error(Some(seq), code::SPECTATOR, "a spectator can only watch"),
        }
    }

    /// A request of the player in `seat`, whoever plays it: a socket today, a server-side bot
    /// could be another caller.
    async fn seat_request(&mut self, seat: Seat, seq: u64, request: SeatRequest) -> Reply {
        if let Recall::Repeat(reply) = self.seats[seat.index()].seqs.recall(seq) {
            return reply;
        }
        let (reply, memo) = match request {
            SeatRequest::Action(action) => self.act(seat, seq, action).await,
            SeatRequest::Rematch => self.rematch(seat, seq).await,
        };
        match memo {
            Memo::Accepted => self.seats[seat.index()].seqs.remember(seq, &reply, true),
            Memo::Refused => self.seats[seat.index()].seqs.remember(seq, &reply, false),
            Memo::Forget => {}
        }
        reply
    }

    async fn act(&mut self, seat: Seat, seq: u64, action: Action) -> (Reply, Memo) {
        let role = self.role_of(seat);
        let record = StoredAction { role, action, seat: Some(seat), client_seq: Some(seq), at: now_ms() };
        match self.commit(record).await {
            Ok(Ok(())) => (Reply::ok(seq), Memo::Accepted),
            Ok(Err(error)) => (Reply::error(Some(seq), error.code(), error.to_string()), Memo::Refused),
            Err(DbError::Overloaded) => (overloaded(seq), Memo::Forget),
            Err(_) => (unavailable(seq), Memo::Forget),
        }
    }

    /// Applies an action to a copy of the game, stores it, and only then makes it the game and
    /// tells everyone. `Err` when the database failed or refused it for overload (nothing
    /// changed).
    async fn commit(
        &mut self,
        record: StoredAction,
    ) -> Result<Result<(), fugitive_core::ActionError>, DbError> {
        let mut next = self.game.clone();
        if let Err(error) = next.apply(record.role, record.action) {
            return Ok(Err(error));
        }
        let number = self.game.actions().len();
        // The next version's notepad is solved while the action is being stored.
        let solving = self.solve_notepad(&next);
        if let Err(error) =
            self.db.append_action(self.id, self.game_number, number, &record, next.is_over()).await
        {
            match error {
                // Refused before it reached the writer: nothing was written, nothing to read back.
                DbError::Overloaded => tracing::debug!(room = %self.id, "the commit queue is full"),
                _ => {
                    tracing::error!(room = %self.id, %error, "could not store an action");
                    self.stale = true;
                }
            }
            return Err(error);
        }
        let before = self.game.to_move();
        if let Some(outcome) = next.outcome() {
            self.series.wins[self.seat_of(outcome.winner).index()] += 1;
        }
        self.game = next;
        self.version += 1;
        if let Some(solving) = solving {
            self.notepad = Some((self.version, solving.await.ok().flatten()));
        }
        metrics::action();
        tracing::debug!(room = %self.id, role = %record.role, action = ?record.action, "action");
        self.restart_clock(before);
        self.broadcast();
        Ok(Ok(()))
    }

    /// Sets the computer opponent thinking when it has something to do: move on its turn, or
    /// accept the rematch its opponent offered. It gets only its own role's view, on a task of
    /// its own, and answers after a natural pause.
    fn wake_bot(&mut self) {
        let Some(level) = self.computer.bot else { return };
        if self.thinking.is_some() {
            return;
        }
        let role = self.role_of(Seat::Guest);
        let rematch = self.game.is_over() && self.rematch == [true, false];
        let view = (self.game.to_move() == Some(role)).then(|| self.game.view(Viewer::from(role)));
        if view.is_none() && !rematch {
            return;
        }
        let (version, pause) = (self.version, computer::pause(self.limits.bot_pause));
        // With `--deal-seed` the computer's choices are reproducible: they follow from it and
        // the room's version.
        let seed = self.limits.deal_seed.map(|base| base.wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ version);
        let (tx, rx) = oneshot::channel();
        tokio::spawn(async move {
            tokio::time::sleep(pause).await;
            let request = match view {
                Some(view) => tokio::task::spawn_blocking(move || computer::think(level, view, seed))
                    .await
                    .ok()
                    .flatten()
                    .map(SeatRequest::Action),
                None => Some(SeatRequest::Rematch),
            };
            let _ = tx.send((version, request));
        });
        self.thinking = Some(rx);
    }

    /// The computer opponent's request, made through the same door as a socket's.
    async fn bot_move(&mut self, (version, request): (u64, Option<SeatRequest>)) {
        self.thinking = None;
        if !self.refresh().await {
            self.bot_retry(version, request);
            return;
        }
        if version != self.version {
            // Overtaken (a resignation, a clock): think again about the new state.
            self.wake_bot();
            return;
        }
        let Some(request) = request else {
            tracing::warn!(room = %self.id, "the computer opponent found nothing to do");
            return;
        };
        let seq = self.seats[Seat::Guest.index()].seqs.last + 1;
        let reply = self.seat_request(Seat::Guest, seq, request).await;
        if reply.code() == Some(code::UNAVAILABLE) {
            self.bot_retry(version, Some(request));
        } else if self.version == version && !self.game.is_over() {
            // Refused or not stored: the same view would give the same request; wait for news.
            tracing::warn!(room = %self.id, ?request, ?reply, "the computer opponent's move did not go through");
        }
    }

    /// The database failed under the computer's request: it asks again in a second (by then
    /// the room may have moved on, and it thinks again).
    fn bot_retry(&mut self, version: u64, request: Option<SeatRequest>) {
        tracing::warn!(room = %self.id, "the computer opponent waits for the database");
        let (tx, rx) = oneshot::channel();
        tokio::spawn(async move {
            tokio::time::sleep(Duration::from_secs(1)).await;
            let _ = tx.send((version, request));
        });
        self.thinking = Some(rx);
    }

    async fn time_out(&mut self) {
        if !self.refresh().await {
            // The database is down: try again shortly rather than lose the clock.
            if let Some(clock) = self.clock.as_mut() {
                clock.deadline = Instant::now() + Duration::from_secs(1);
            }
            return;
        }
        if self.clock.is_none_or(|clock| clock.deadline > Instant::now()) {
            // The reload restarted or stopped the clock.
            return;
        }
        let Some(role) = self.game.to_move() else {
            self.clock = None;
            return;
        };
        let record =
            StoredAction { role, action: Action::TimeOut, seat: None, client_seq: None, at: now_ms() };
        if self.commit(record).await.is_err() {
            // The database is down: try again shortly rather than lose the clock.
            self.clock = Some(Clock { role, deadline: Instant::now() + Duration::from_secs(1) });
        }
    }

    async fn rematch(&mut self, seat: Seat, seq: u64) -> (Reply, Memo) {
        if !self.game.is_over() || !self.both_seated() {
            let message = "a rematch is offered once the game is over, by one of its two players";
            return (Reply::error(Some(seq), code::NO_REMATCH, message), Memo::Refused);
        }
        if self.series.winner().is_some() {
            let message = "the series is over: create a new room for another one";
            return (Reply::error(Some(seq), code::NO_REMATCH, message), Memo::Refused);
        }
        let mut offers = self.rematch;
        offers[seat.index()] = true;
        if offers != [true, true] && !self.rematch[seat.index()] {
            // An offer is stored, so it outlives the room's unloading and a restart.
            if let Err(error) = self.db.offer_rematch(self.id, seat, self.game_number).await {
                tracing::error!(room = %self.id, %error, "could not store a rematch offer");
                self.stale = true;
                return (unavailable(seq), Memo::Forget);
            }
        }
        self.rematch = offers;
        if self.rematch == [true, true] {
            let number = self.game_number + 1;
            let setup = Setup { seed: rooms::new_seed(self.limits.deal_seed, number), rules: self.rules };
            let fugitive_seat = self.fugitive_seat.other();
            if let Err(error) = self.db.new_game(self.id, number, &setup, fugitive_seat, now_ms()).await {
                tracing::error!(room = %self.id, %error, "could not store a new game");
                self.stale = true;
                self.rematch[seat.index()] = false;
                return (unavailable(seq), Memo::Forget);
            }
            self.game = Game::new(setup);
            self.game_number = number;
            self.fugitive_seat = fugitive_seat;
            self.version += 1;
            self.solve_notepad_now().await;
            self.rematch = [false; 2];
            self.restart_clock(None);
            self.broadcast();
            // Each player's words are now under his new role.
            if !self.chat.is_empty() {
                let frames = self.chat_frames(true, self.chat.iter());
                let spectators = self.reads_chat(None);
                self.send_each(|socket| socket.seat.is_some() || spectators, &frames);
            }
            return (Reply::ok(seq), Memo::Refused);
        }
        self.broadcast();
        (Reply::ok(seq), Memo::Refused)
    }

    async fn claim(&mut self, invite: &str) -> Result<Claimed, ClaimError> {
        if self.seats[Seat::Guest.index()].token_hash.is_some() {
            return Err(ClaimError::Taken);
        }
        if self.invite_hash.as_deref() != Some(&hash_secret(invite)) {
            return Err(ClaimError::BadInvite);
        }
        let token = new_secret();
        let hash = hash_secret(&token);
        match self.db.claim_guest_seat(self.id, &hash).await {
            Ok(SeatClaim::Claimed) => {}
            Ok(SeatClaim::Taken) => return Err(ClaimError::Taken),
            Ok(SeatClaim::Gone) => return Err(ClaimError::Gone),
            Err(error) => {
                tracing::error!(room = %self.id, %error, "could not claim a seat");
                self.stale = true;
                return Err(ClaimError::Unavailable);
            }
        }
        self.seats[Seat::Guest.index()].token_hash = Some(hash);
        self.invite_hash = None;
        self.restart_clock(None);
        self.broadcast();
        Ok(Claimed { role: self.role_of(Seat::Guest), token })
    }

    /// Whether both seats are claimed (by players or the computer).
    fn both_seated(&self) -> bool {
        self.seats.iter().all(|s| s.token_hash.is_some())
    }

    /// R17, the one rule of the turn clock: in a room with a clock, the clock of the player to
    /// move runs while the game runs and both seats are claimed. Never against a seat nobody
    /// has claimed yet, however the room got here (a move, a claim, a rematch, a rebuild).
    fn clock_due(&self) -> Option<(u64, Role)> {
        let secs = self.turn_clock_secs?;
        let role = self.game.to_move()?;
        self.both_seated().then_some((secs, role))
    }

    /// Starts the clock of the player to move when it is due and the turn passed to the other
    /// player (or no clock ran); stops it when it is not due.
    fn restart_clock(&mut self, before: Option<Role>) {
        self.clock = match self.clock_due() {
            None => None,
            Some((secs, role)) if Some(role) != before || self.clock.is_none() => {
                Some(Clock { role, deadline: Instant::now() + Duration::from_secs(secs) })
            }
            Some(_) => self.clock,
        };
    }

    fn status(&self) -> RoomStatus {
        let seated = |role| self.seat_of(role);
        RoomStatus {
            seats: ByRole::new_with(|role| self.seats[seated(role).index()].token_hash.is_some()),
            // The computer is always at the table.
            presence: ByRole::new_with(|role| {
                let bot = self.computer.bot.is_some() && seated(role) == Seat::Guest;
                bot || self.sockets.values().any(|s| s.seat == Some(seated(role)))
            }),
            clock: self.clock.zip(self.turn_clock_secs).map(|(clock, turn_secs)| ClockStatus {
                turn_secs,
                role: clock.role,
                remaining_ms: clock.deadline.saturating_duration_since(Instant::now()).as_millis() as u64,
            }),
            rematch: ByRole::new_with(|role| self.rematch[seated(role).index()]),
            names: ByRole::new_with(|role| self.names[seated(role).index()].clone()),
            spectators: self.sockets.values().filter(|s| s.seat.is_none()).count() as u64,
            chat_spectators: ByRole::new_with(|role| self.chat_public[seated(role).index()]),
            series: SeriesStatus {
                wins: ByRole::new_with(|role| self.series.wins[seated(role).index()]),
                best_of: self.series.best_of,
                winner: self.series.winner().map(|seat| self.role_of(seat)),
            },
        }
    }

    /// Starts solving the Marshal's notepad of `game` on a blocking thread, in a room that
    /// shows it.
    fn solve_notepad(&self, game: &Game) -> Option<tokio::task::JoinHandle<Option<Notepad>>> {
        let computer = self.computer;
        let wanted = computer.notepad_assist && !game.is_over();
        let game = game.clone();
        wanted
            .then(|| tokio::task::spawn_blocking(move || computer::notepad(computer, &game, Viewer::Marshal)))
    }

    /// Solves the notepad of the game as it is now (a room loaded, reloaded or dealt anew),
    /// off the actor's thread.
    async fn solve_notepad_now(&mut self) {
        if let Some(solving) = self.solve_notepad(&self.game) {
            self.notepad = Some((self.version, solving.await.ok().flatten()));
        }
    }

    /// The state `viewer` sees now.
    fn current(&self, viewer: Viewer) -> Current {
        let view = self.game.view(viewer);
        let legal = viewer.role().map(|role| self.game.legal_actions(role));
        let solved = match &self.notepad {
            Some((version, notepad)) if *version == self.version => notepad.clone(),
            _ if computer::wants_notepad(self.computer, &self.game, viewer) => {
                // Not solved ahead (a path that changed the game without solving it): solved
                // here rather than sent without it.
                tracing::warn!(room = %self.id, version = self.version, "the notepad was solved on the actor");
                computer::notepad(self.computer, &self.game, viewer)
            }
            _ => None,
        };
        let notepad = if viewer == Viewer::Marshal { solved } else { None };
        Current { version: self.version, game: self.game_number, view, legal, notepad }
    }

    /// Tells every socket the room's new state, and wakes the computer opponent.
    fn broadcast(&mut self) {
        self.publish(true);
        self.wake_bot();
    }

    /// Queues the room's state: for a protocol-1 socket a `state`, for a protocol-2 socket a
    /// `delta` (or a `snapshot` when a delta cannot say it: a new game, a socket far behind).
    /// With `everyone` false only the sockets that hold no state yet (joined, or asked for a
    /// resync) get a snapshot, and the other protocol-2 sockets of their viewer whatever changed
    /// since their last frame (their viewer's [`Sent`] is shared). Each viewer's frames are made
    /// once and shared by its sockets. A socket that stopped reading is never closed for its
    /// states: its queue keeps only what it still needs (`mailbox.rs`).
    fn publish(&mut self, everyone: bool) {
        let status = self.status();
        let mut room = None;
        for (index, viewer) in Viewer::ALL.into_iter().enumerate() {
            let members: Vec<u64> = self
                .sockets
                .iter()
                .filter(|(_, socket)| self.viewer_of(socket.seat) == viewer)
                .map(|(&id, _)| id)
                .collect();
            let v2 = members.iter().any(|id| self.sockets[id].protocol == Protocol::V2);
            if !v2 {
                self.sent[index] = None;
            }
            if members.is_empty() || (!everyone && members.iter().all(|id| self.sockets[id].synced)) {
                continue;
            }
            let current = self.current(viewer);
            let change = if v2 {
                let room = room.get_or_insert_with(|| frames::room_fields(&status));
                let (change, next) = match &self.sent[index] {
                    Some(sent) => frames::delta(sent, &current, room),
                    None => (Change::Snapshot, current.sent(room)),
                };
                self.sent[index] = Some(next);
                change
            } else {
                Change::None
            };
            let (mut state, mut snapshot) = (None, None);
            for id in members {
                let socket = self.sockets.get_mut(&id).expect("a member");
                let fresh = !socket.synced;
                socket.synced = true;
                let mut snapshot = || snapshot.get_or_insert_with(|| current.snapshot(&status)).clone();
                match (socket.protocol, &change) {
                    (Protocol::V1, _) if everyone || fresh => {
                        socket.queue.snapshot(state.get_or_insert_with(|| current.state(&status)).clone());
                    }
                    (Protocol::V1, _) => {}
                    (Protocol::V2, _) if fresh => socket.queue.snapshot(snapshot()),
                    (Protocol::V2, Change::Snapshot) => socket.queue.snapshot(snapshot()),
                    (Protocol::V2, Change::Delta(frame)) => {
                        if socket.queue.delta(frame.clone()).is_err() {
                            // Too far behind: what it waits for is replaced by where it gets to.
                            socket.queue.snapshot(snapshot());
                        }
                    }
                    (Protocol::V2, Change::None) => {}
                }
            }
        }
    }

    fn kick_all(&mut self, why: Kick) {
        for socket in self.sockets.values_mut() {
            kick(socket, why);
        }
        self.sockets.clear();
    }
}

fn kick(socket: &mut Socket, why: Kick) {
    if let Some(kick) = socket.kick.take() {
        let _ = kick.send(why);
    }
}

fn unavailable(seq: u64) -> Reply {
    Reply::error(Some(seq), code::UNAVAILABLE, "the server could not store this; try again with the same seq")
}

/// The commit queue is full: the server is busy. Retries spread over a quarter to half a second.
fn overloaded(seq: u64) -> Reply {
    let retry_after_ms = 250 + rand::random_range(0..250);
    let message = "the server is busy; nothing changed, try again shortly with the same seq";
    Reply::retry_after(seq, code::UNAVAILABLE, message, retry_after_ms)
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

    use fugitive_core::{Card, Cards};

    use super::*;
    use crate::rooms::Rooms;

    #[tokio::test]
    async fn an_ambiguous_commit_is_read_back_before_the_next_request() {
        let dir = tempfile::tempdir().unwrap();
        let db = Db::connect(&format!("sqlite://{}", dir.path().join("room.db").display())).await.unwrap();
        let limits = RoomLimits {
            max_sockets: 4,
            unload_after: Duration::from_secs(60),
            bot_pause: Duration::ZERO,
            deal_seed: None,
        };
        let rooms = Rooms::new(db.clone(), limits);
        let created =
            rooms.create(Role::Fugitive, RuleOptions::default(), None, Computer::default()).await.unwrap();
        let room = rooms.get(created.room).await.unwrap();
        let queue = Mailbox::new(64);
        let (kick, _kicked) = oneshot::channel();
        let socket = room.join(Some(created.token), None, queue, Protocol::V1, kick).await.unwrap().unwrap();
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
        let actions: Vec<Action> = stored.game.actions.iter().map(|a| a.action).collect();
        assert_eq!(
            actions,
            [Action::Place { hideout: Card::new(1).unwrap(), sprints: Cards::EMPTY }, Action::EndTurn]
        );
        drop(room);
        rooms.shut_down().await;
    }
}
