//! The room as a pure state machine: the [`Game`], the two seats with their `seq` memory, the
//! claims, the rematch offers, the table (names, chat), who is present, the turn clock and the
//! computer opponent's schedule. It does no I/O and never waits: an input (a request, a write's
//! result, actions read from the log, a tick of the clock, the computer's answer) changes it and
//! returns a [`Step`] (answered, or "write this, then tell me how it went", or "read the room
//! back from the log, then try again"), and queues [`Effect`]s (kicks, the computer to start
//! thinking, this node's presence to publish). Frames go straight into each socket's
//! [`Mailbox`], an in-memory queue its writer task drains (`frames.rs` builds them). The actor in
//! `room.rs` is the thin async shell that carries out the rest.
//!
//! An action appended by another node and read from the log goes through the same
//! [`Machine::apply`] as one this room wrote itself.

use std::collections::{BTreeMap, VecDeque};
use std::sync::Arc;
use std::time::Duration;

use axum::extract::ws::Utf8Bytes;
use fugitive_ai::Level;
use fugitive_core::{ByRole, Candidates, Entry, Game, ReplayError, Role, RuleOptions, Setup, View, Viewer};
use tokio::time::Instant;
use uuid::Uuid;

use super::handle::{ClaimError, Claimed, JoinError, Kick, SeatRequest, Summary};
use crate::computer::{self, Computer};
use crate::db::{DbError, Rematched, SeatClaim, StoredAction, StoredRoom, now_ms};
use crate::frames::{self, Change, Current, Sent};
use crate::mailbox::Mailbox;
use crate::protocol::{ClockStatus, Notepad, Protocol, Reply, RoomStatus, ServerMessage, code, encode_as};
use crate::rooms;
use crate::seat::{Recall, Seat, SeqMemory, hash_secret, new_secret};
use crate::table::{self, ChatBody, ChatBucket, ChatLine, ChatWire, Series, SeriesStatus, TableRequest};

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

struct SeatState {
    token_hash: Option<String>,
    seqs: SeqMemory,
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

/// A socket of this node in the room: its seat (`None`: a spectator), its outbound mailbox (an
/// in-memory queue the socket's writer drains), its protocol, and whether it holds its viewer's
/// latest state.
#[derive(Debug)]
struct Member {
    seat: Option<Seat>,
    queue: Arc<Mailbox>,
    protocol: Protocol,
    synced: bool,
}

/// A joining socket's mailbox and protocol.
#[derive(Clone, Debug)]
pub struct JoinIo {
    /// Its outbound mailbox.
    pub queue: Arc<Mailbox>,
    /// The protocol it speaks.
    pub protocol: Protocol,
}

/// Who of this room is on this node, as published for the other nodes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Presence {
    /// Whether each seat (by index) has a socket open.
    pub seats: [bool; 2],
    /// How many spectators' sockets are open.
    pub spectators: u64,
}

/// What the computer opponent is asked to do.
#[derive(Clone, Debug)]
pub enum Think {
    /// Choose a move from its own role's view, after a natural pause.
    Move { level: Level, view: Box<View>, seed: Option<u64>, pause: Duration },
    /// Accept the rematch its opponent offered, after a natural pause.
    Rematch { pause: Duration },
    /// The database failed under its request: ask again with it in a second.
    Retry { request: Option<SeatRequest> },
}

/// Something for the shell to carry out.
#[derive(Debug)]
pub enum Effect {
    /// Close the socket.
    Kick { socket: u64, why: Kick },
    /// Start the computer opponent thinking; its answer comes back as [`Input::Bot`] with this
    /// version.
    Think { version: u64, think: Think },
    /// This node's presence in the room changed: tell the other nodes.
    Publish(Presence),
}

/// An input that may have to write to the database or read the room back first.
#[derive(Clone, Debug)]
pub enum Input {
    /// A seat's request (a socket's, or the computer's when `bot`).
    Seat { seat: Seat, seq: u64, request: SeatRequest, bot: bool, checked: bool },
    /// A seated socket's request about the table.
    Table { seat: Seat, seq: u64, request: TableRequest },
    /// An invitation claims the guest seat.
    Claim { invite: String },
    /// A socket joins (as the token's seat, or as a spectator); `checked` once a token this
    /// copy did not know was looked for in the database.
    Join { token: Option<String>, name: Option<Option<String>>, io: JoinIo, checked: bool },
    /// The turn clock's alarm rang.
    TimeOut,
    /// The computer opponent's answer, for the version it thought about.
    Bot { version: u64, request: Option<SeatRequest> },
}

/// What an input comes to.
#[derive(Debug, PartialEq)]
pub enum Answer {
    /// The reply to a seat's request.
    Reply(Reply),
    /// The answer to a claim.
    Claim(Result<Claimed, ClaimError>),
    /// The joined socket's id.
    Join(Result<u64, JoinError>),
    /// Nobody waits for an answer (the clock, the computer).
    Nothing,
}

/// The next step of an input.
#[derive(Debug)]
pub enum Step {
    /// Finished.
    Done(Answer),
    /// Carry out this write, then pass its result to [`Machine::written`].
    Write(Box<Write>),
    /// Read the room back from the log ([`Machine::reload`]), then pass the input again to
    /// [`Machine::input`]; or, when the database cannot be read, to [`Machine::give_up`].
    Sync(Input),
}

/// A write to carry out for an input.
#[derive(Debug)]
pub struct Write {
    /// What to write.
    pub op: WriteOp,
    then: Then,
}

impl Write {
    /// The game as it will be once this write is stored, when it changes the game: its notepad
    /// can be solved while the write runs.
    pub fn next_game(&self) -> Option<&Game> {
        match &self.then {
            Then::Append { next, .. } => Some(next),
            Then::Rematch { next, .. } => Some(next),
            _ => None,
        }
    }
}

/// What to write.
#[derive(Clone, Debug, PartialEq)]
pub enum WriteOp {
    /// Append an action to the log under the unique key (room, game, number).
    Append { game: u64, number: usize, record: StoredAction, finished: Option<fugitive_core::Outcome> },
    /// Store a seat's rematch offer after `game`; when both seats have offered, deal the next.
    Rematch { seat: Seat, game: u64, setup: Setup, fugitive_seat: Seat },
    /// Give the guest seat this token hash, if it is still free.
    Claim { token_hash: String },
    /// A seat's name.
    Name { seat: Seat, name: Option<String> },
    /// A chat message.
    Chat(ChatLine),
    /// Whether a seat lets spectators read the chat.
    ChatPublic { seat: Seat, allow: bool },
}

/// What a successful write reports.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stored {
    /// Written.
    Done,
    /// A claim.
    Claimed(SeatClaim),
    /// A rematch offer.
    Rematch(Rematched),
}

#[derive(Debug)]
enum Then {
    Append { input: Input, record: StoredAction, next: Game },
    Rematch { input: Input, fugitive_seat: Seat, next: Game },
    Claim { input: Input, token: String, hash: String },
    Name { input: Input, seat: Seat, name: Option<String> },
    Chat { input: Input, line: ChatLine },
    ChatPublic { input: Input, seat: Seat, allow: bool },
}

/// The room's state.
pub struct Machine {
    id: Uuid,
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
    /// Every socket of this node in the room.
    sockets: BTreeMap<u64, Member>,
    /// What the protocol-2 sockets of each viewer hold (by `Viewer::ALL`'s order), while it has
    /// any: deltas are made from it (`frames.rs`).
    sent: [Option<Sent>; 3],
    next_socket: u64,
    clock: Option<Clock>,
    empty_since: Instant,
    computer: Computer,
    /// The version the computer is thinking about.
    thinking: Option<u64>,
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
    /// The Marshal's notepad as of a version, solved by the shell off the actor.
    notepad: Option<(u64, Option<Notepad>)>,
    /// Each viewer's public candidates (`View::candidates`, by `Viewer::ALL`'s order) as of a
    /// version: made once per version and viewer, however many sockets and publishes.
    candidates: [Option<(u64, Option<Candidates>)>; 3],
    /// A write failed: the database may hold it all the same (an ambiguous commit), or another
    /// node changed the room. The room is read back before it carries out anything else.
    stale: bool,
    /// Several nodes share the database: a refusal is checked against the log first.
    shared: bool,
    /// This node holds the room's lease: it runs the clock and the computer opponent.
    owner: bool,
    /// The room's people on the other nodes.
    remote: Presence,
    /// This node's presence as last published.
    published: Presence,
    now: Instant,
    effects: Vec<Effect>,
}

impl Machine {
    /// Rebuilds a room from the database by replaying its current game's log. It is not
    /// shared and it owns itself (one node); [`Machine::set_shared`] says otherwise.
    ///
    /// # Errors
    /// [`ReplayError`] when a stored action does not apply (a corrupt log).
    pub fn rebuild(
        id: Uuid,
        stored: StoredRoom,
        limits: RoomLimits,
        now: Instant,
    ) -> Result<Machine, ReplayError> {
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
        let mut room = Machine {
            id,
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
            sockets: BTreeMap::new(),
            sent: Default::default(),
            next_socket: 1,
            clock: None,
            empty_since: now,
            computer: stored.computer,
            thinking: None,
            names: stored.table.names,
            chat: stored.table.chat.into(),
            chat_last: stored.table.chat_last,
            chat_public: stored.table.chat_public,
            chat_buckets: Default::default(),
            series: stored.table.series,
            notepad: None,
            candidates: Default::default(),
            stale: false,
            shared: false,
            owner: true,
            remote: Presence::default(),
            published: Presence::default(),
            now,
            effects: Vec::new(),
        };
        room.clock =
            room.clock_due().map(|(secs, role)| Clock { role, deadline: deadline(secs, turn_start, now) });
        Ok(room)
    }

    /// The room's id.
    pub fn id(&self) -> Uuid {
        self.id
    }

    /// The room's version: accepted actions and new games so far.
    pub fn version(&self) -> u64 {
        self.version
    }

    /// The current game's number and how many actions it holds (the next one's number).
    pub fn position(&self) -> (u64, usize) {
        (self.game_number, self.game.actions().len())
    }

    /// The current game.
    pub fn game(&self) -> &Game {
        &self.game
    }

    /// Whether the room must be read back before anything else.
    pub fn is_stale(&self) -> bool {
        self.stale
    }

    /// Marks the room to be read back (another node changed it).
    pub fn mark_stale(&mut self) {
        self.stale = true;
    }

    /// Several nodes share the database.
    pub fn set_shared(&mut self, shared: bool) {
        self.shared = shared;
    }

    /// Whether this node holds the room's lease.
    pub fn is_owner(&self) -> bool {
        self.owner
    }

    /// This node gained or lost the room's lease.
    pub fn set_owner(&mut self, owner: bool, now: Instant) {
        self.now = now;
        if owner != self.owner {
            self.owner = owner;
            if owner {
                self.wake_bot();
            }
        }
    }

    /// The room starts running: the computer opponent thinks if it has something to do.
    pub fn wake(&mut self, now: Instant) {
        self.now = now;
        self.wake_bot();
    }

    /// Whether something here must happen once, by one node: a running turn clock, or a
    /// computer opponent with something to do.
    pub fn needs_owner(&self) -> bool {
        let bot_plays = self.computer.bot.is_some() && (!self.game.is_over() || self.bot_job().is_some());
        self.clock.is_some() || bot_plays
    }

    /// When the shell must tick the clock ([`Input::TimeOut`]): only the owner's clock rings.
    pub fn alarm(&self) -> Option<Instant> {
        self.clock.filter(|_| self.owner).map(|clock| clock.deadline)
    }

    /// Since when the room has had no socket and no running clock (it may unload).
    pub fn idle_since(&self) -> Option<Instant> {
        (self.sockets.is_empty() && self.clock.is_none()).then_some(self.empty_since)
    }

    /// The effects queued so far, in order.
    pub fn take_effects(&mut self) -> Vec<Effect> {
        std::mem::take(&mut self.effects)
    }

    /// Whether a notepad is shown for `game` in this room (so the shell solves it).
    pub fn wants_notepad(&self, game: &Game) -> bool {
        self.computer.notepad_assist && !game.is_over()
    }

    /// The room's computer options.
    pub fn computer(&self) -> Computer {
        self.computer
    }

    /// The notepad of the current version, solved by the shell.
    pub fn set_notepad(&mut self, notepad: Option<Notepad>) {
        self.notepad = Some((self.version, notepad));
    }

    /// The public facts of the room.
    pub fn summary(&self) -> Summary {
        let status = self.status();
        Summary {
            seats: status.seats,
            to_move: self.game.to_move(),
            outcome: self.game.outcome(),
            names: status.names,
            game: self.game_number,
            over: self.game.is_over(),
            rules: self.rules,
            turn_clock_secs: self.turn_clock_secs,
        }
    }

    /// A seated socket's request.
    pub fn request(&mut self, socket: u64, seq: u64, request: SeatRequest, now: Instant) -> Step {
        match self.sockets.get(&socket).and_then(|m| m.seat) {
            Some(seat) => self.input(Input::Seat { seat, seq, request, bot: false, checked: false }, now),
            None => Step::Done(Answer::Reply(Reply::error(
                Some(seq),
                code::SPECTATOR,
                "a spectator can only watch",
            ))),
        }
    }

    /// A seated socket's request about the table.
    pub fn table(&mut self, socket: u64, seq: u64, request: TableRequest, now: Instant) -> Step {
        match self.sockets.get(&socket).and_then(|m| m.seat) {
            Some(seat) => self.input(Input::Table { seat, seq, request }, now),
            None => Step::Done(Answer::Reply(Reply::error(
                Some(seq),
                code::SPECTATOR,
                "a spectator can only watch and read",
            ))),
        }
    }

    /// Carries out an input as far as it goes without I/O.
    pub fn input(&mut self, input: Input, now: Instant) -> Step {
        self.now = now;
        // A stale room is read back first; the table's requests do not depend on the game.
        if self.stale && !matches!(input, Input::Table { .. } | Input::Join { .. }) {
            return Step::Sync(input);
        }
        match input {
            Input::Seat { seat, seq, request, .. } => {
                if let Recall::Repeat(reply) = self.seats[seat.index()].seqs.recall(seq) {
                    return Step::Done(Answer::Reply(reply));
                }
                match request {
                    SeatRequest::Action(action) => {
                        let record = StoredAction {
                            role: self.role_of(seat),
                            action: action.into(),
                            seat: Some(seat),
                            client_seq: Some(seq),
                            at: now_ms(),
                        };
                        self.append(input, record)
                    }
                    SeatRequest::Rematch => self.rematch(input, seat, seq),
                }
            }
            Input::Table { seat, seq, ref request } => match request.clone() {
                TableRequest::Name(name) => {
                    if self.names[seat.index()] == name {
                        self.broadcast();
                        return Step::Done(Answer::Reply(Reply::ok(seq)));
                    }
                    Step::Write(Box::new(Write {
                        op: WriteOp::Name { seat, name: name.clone() },
                        then: Then::Name { input, seat, name },
                    }))
                }
                TableRequest::Chat(body) => {
                    if !self.chat_buckets[seat.index()].take() {
                        let message = "too many chat messages: 5 at once, then one every 5 seconds";
                        return Step::Done(Answer::Reply(Reply::error(
                            Some(seq),
                            code::CHAT_TOO_FAST,
                            message,
                        )));
                    }
                    let line = ChatLine { number: self.chat_last + 1, seat, body, at: now_ms() };
                    Step::Write(Box::new(Write {
                        op: WriteOp::Chat(line.clone()),
                        then: Then::Chat { input, line },
                    }))
                }
                TableRequest::ChatSpectators(allow) => Step::Write(Box::new(Write {
                    op: WriteOp::ChatPublic { seat, allow },
                    then: Then::ChatPublic { input, seat, allow },
                })),
            },
            Input::Claim { ref invite } => {
                if self.seats[Seat::Guest.index()].token_hash.is_some() {
                    return Step::Done(Answer::Claim(Err(ClaimError::Taken)));
                }
                if self.invite_hash.as_deref() != Some(&hash_secret(invite)) {
                    return Step::Done(Answer::Claim(Err(ClaimError::BadInvite)));
                }
                let token = new_secret();
                let hash = hash_secret(&token);
                Step::Write(Box::new(Write {
                    op: WriteOp::Claim { token_hash: hash.clone() },
                    then: Then::Claim { input, token, hash },
                }))
            }
            Input::Join { ref token, ref name, ref io, checked } => {
                let seat = match token {
                    None => None,
                    Some(token) => {
                        let hash = hash_secret(token);
                        let seat = Seat::ALL
                            .into_iter()
                            .find(|s| self.seats[s.index()].token_hash.as_deref() == Some(&hash));
                        match seat {
                            Some(seat) => Some(seat),
                            // This copy may not have heard of a claim on another node yet.
                            None if self.shared && !checked => {
                                self.stale = true;
                                let (token, name, io) = (Some(token.clone()), name.clone(), io.clone());
                                return Step::Sync(Input::Join { token, name, io, checked: true });
                            }
                            None => return Step::Done(Answer::Join(Err(JoinError::BadToken))),
                        }
                    }
                };
                // Only spectators are counted: they must never lock a player out of his seat.
                let spectators = self.sockets.values().filter(|s| s.seat.is_none()).count();
                if seat.is_none() && spectators >= self.limits.max_sockets {
                    return Step::Done(Answer::Join(Err(JoinError::Full)));
                }
                match (seat, name.clone()) {
                    (Some(seat), Some(name)) if self.names[seat.index()] != name => {
                        Step::Write(Box::new(Write {
                            op: WriteOp::Name { seat, name: name.clone() },
                            then: Then::Name { input, seat, name },
                        }))
                    }
                    _ => {
                        let io = io.clone();
                        Step::Done(Answer::Join(Ok(self.joined(seat, io))))
                    }
                }
            }
            Input::TimeOut => {
                if !self.owner || self.clock.is_none_or(|clock| clock.deadline > now) {
                    // Not ours, or the clock was restarted or stopped meanwhile.
                    return Step::Done(Answer::Nothing);
                }
                let Some(role) = self.game.to_move() else {
                    self.clock = None;
                    return Step::Done(Answer::Nothing);
                };
                let record =
                    StoredAction { role, action: Entry::TimeOut, seat: None, client_seq: None, at: now_ms() };
                self.append(input, record)
            }
            Input::Bot { version, request } => {
                self.thinking = None;
                if !self.owner || self.computer.bot.is_none() {
                    return Step::Done(Answer::Nothing);
                }
                if version != self.version {
                    // Overtaken (a resignation, a clock, another node): think again.
                    self.wake_bot();
                    return Step::Done(Answer::Nothing);
                }
                let Some(request) = request else {
                    tracing::warn!(room = %self.id, "the computer opponent found nothing to do");
                    return Step::Done(Answer::Nothing);
                };
                let seq = self.seats[Seat::Guest.index()].seqs.last + 1;
                self.input(Input::Seat { seat: Seat::Guest, seq, request, bot: true, checked: false }, now)
            }
        }
    }

    /// The input could not be carried out because the database could not be read: it is
    /// answered `unavailable` (nothing changed), the clock tries again in a second, the
    /// computer asks again in a second, a join goes on without its name.
    pub fn give_up(&mut self, input: Input, now: Instant) -> Answer {
        self.now = now;
        match input {
            Input::Seat { seat, seq, request, bot, .. } => {
                let reply = unavailable(seq);
                self.finish_seat(seat, seq, bot, Some(request), reply, Memo::Forget)
            }
            Input::Table { seq, .. } => Answer::Reply(unavailable(seq)),
            Input::Claim { .. } => Answer::Claim(Err(ClaimError::Unavailable)),
            Input::Join { token: None, io, .. } => Answer::Join(Ok(self.joined(None, io))),
            Input::Join { token: Some(token), io, .. } => {
                let hash = hash_secret(&token);
                match Seat::ALL
                    .into_iter()
                    .find(|s| self.seats[s.index()].token_hash.as_deref() == Some(&hash))
                {
                    Some(seat) => Answer::Join(Ok(self.joined(Some(seat), io))),
                    // Not known here, and the database could not be asked.
                    None => Answer::Join(Err(JoinError::BadToken)),
                }
            }
            Input::TimeOut => {
                // The database is down: try again shortly rather than lose the clock.
                if let Some(clock) = self.clock.as_mut() {
                    clock.deadline = now + Duration::from_secs(1);
                }
                Answer::Nothing
            }
            Input::Bot { version, request } => {
                self.bot_retry(version, request);
                Answer::Nothing
            }
        }
    }

    /// A write's result (and, for one that changes the game, the next game's notepad).
    pub fn written(
        &mut self,
        write: Write,
        result: Result<Stored, DbError>,
        notepad: Option<Notepad>,
        now: Instant,
    ) -> Step {
        self.now = now;
        if matches!(result, Err(DbError::Conflict)) {
            // Another node wrote first: read the log, then decide again.
            self.stale = true;
            let input = match write.then {
                Then::Append { input, .. }
                | Then::Rematch { input, .. }
                | Then::Claim { input, .. }
                | Then::Name { input, .. }
                | Then::Chat { input, .. }
                | Then::ChatPublic { input, .. } => input,
            };
            return Step::Sync(input);
        }
        match write.then {
            Then::Append { input, record, next } => match result {
                Ok(_) => {
                    let passed = (next.to_move() != self.game.to_move()).then_some(record.at);
                    self.apply(&record, next, notepad, passed);
                    crate::metrics::action();
                    self.finish(input, |seq| (Reply::ok(seq), Memo::Accepted))
                }
                Err(error) => {
                    let overload = matches!(error, DbError::Overloaded);
                    if overload {
                        // Refused before it reached the writer: nothing written, nothing to read back.
                        tracing::debug!(room = %self.id, "the commit queue is full");
                    } else {
                        tracing::error!(room = %self.id, %error, "could not store an action");
                        self.stale = true;
                    }
                    match input {
                        Input::TimeOut => Step::Done(self.give_up(Input::TimeOut, now)),
                        Input::Seat { seat, seq, request, bot, .. } => {
                            let reply = if overload { overloaded(seq) } else { unavailable(seq) };
                            Step::Done(self.finish_seat(seat, seq, bot, Some(request), reply, Memo::Forget))
                        }
                        other => Step::Done(self.give_up(other, now)),
                    }
                }
            },
            Then::Rematch { input, fugitive_seat, next } => {
                let Input::Seat { seat, seq, .. } = input else {
                    unreachable!("a rematch is a seat's request")
                };
                match result {
                    Ok(Stored::Rematch(Rematched::Offered)) => {
                        self.rematch[seat.index()] = true;
                        self.broadcast();
                        self.finish(input, |seq| (Reply::ok(seq), Memo::Refused))
                    }
                    Ok(Stored::Rematch(Rematched::Started { ours: true })) => {
                        self.new_game(fugitive_seat, next, notepad);
                        self.finish(input, |seq| (Reply::ok(seq), Memo::Refused))
                    }
                    Ok(_) => {
                        // Another node dealt the next game first: it is read back.
                        self.stale = true;
                        self.finish(input, |seq| (Reply::ok(seq), Memo::Refused))
                    }
                    Err(error) => {
                        tracing::error!(room = %self.id, %error, "could not store a rematch offer");
                        self.stale = true;
                        let Input::Seat { bot, request, .. } = input else { unreachable!() };
                        Step::Done(self.finish_seat(
                            seat,
                            seq,
                            bot,
                            Some(request),
                            unavailable(seq),
                            Memo::Forget,
                        ))
                    }
                }
            }
            Then::Claim { token, hash, .. } => match result {
                Ok(Stored::Claimed(SeatClaim::Claimed)) => {
                    self.seats[Seat::Guest.index()].token_hash = Some(hash);
                    self.invite_hash = None;
                    self.restart_clock(None);
                    self.broadcast();
                    Step::Done(Answer::Claim(Ok(Claimed { role: self.role_of(Seat::Guest), token })))
                }
                Ok(Stored::Claimed(SeatClaim::Gone)) => Step::Done(Answer::Claim(Err(ClaimError::Gone))),
                Ok(_) => {
                    // Claimed first (perhaps through another node): read back.
                    self.stale = true;
                    Step::Done(Answer::Claim(Err(ClaimError::Taken)))
                }
                Err(error) => {
                    tracing::error!(room = %self.id, %error, "could not claim a seat");
                    self.stale = true;
                    Step::Done(Answer::Claim(Err(ClaimError::Unavailable)))
                }
            },
            Then::Name { input, seat, name } => {
                let stored = match result {
                    Ok(_) => {
                        self.names[seat.index()] = name;
                        true
                    }
                    Err(error) => {
                        tracing::error!(room = %self.id, %error, "could not store a name");
                        false
                    }
                };
                match input {
                    Input::Table { seq, .. } if stored => {
                        self.broadcast();
                        Step::Done(Answer::Reply(Reply::ok(seq)))
                    }
                    Input::Table { seq, .. } => Step::Done(Answer::Reply(unavailable(seq))),
                    // A name that cannot be stored is dropped: the player still joins.
                    other => Step::Done(self.give_up(other, now)),
                }
            }
            Then::Chat { input, line } => {
                let Input::Table { seq, .. } = input else { unreachable!("chat is a table request") };
                if let Err(error) = result {
                    tracing::error!(room = %self.id, %error, "could not store a chat message");
                    return Step::Done(Answer::Reply(unavailable(seq)));
                }
                self.add_chat(vec![line]);
                Step::Done(Answer::Reply(Reply::ok(seq)))
            }
            Then::ChatPublic { input, seat, allow } => {
                let Input::Table { seq, .. } = input else {
                    unreachable!("a chat setting is a table request")
                };
                if let Err(error) = result {
                    tracing::error!(room = %self.id, %error, "could not store a chat setting");
                    return Step::Done(Answer::Reply(unavailable(seq)));
                }
                let mut public = self.chat_public;
                public[seat.index()] = allow;
                self.set_chat_public(public);
                Step::Done(Answer::Reply(Reply::ok(seq)))
            }
        }
    }

    /// Replaces the game and the stored facts with `fresh`, a rebuild of the room read back
    /// from the database; the sockets, the seats' remembered replies, the chat allowances and
    /// the lease stay. Tells every socket what changed.
    pub fn reload(
        &mut self,
        fresh: Machine,
        accepted: Vec<(Seat, u64)>,
        notepad: Option<Notepad>,
        now: Instant,
    ) {
        let old = std::mem::replace(self, fresh);
        let (old_chat_last, old_game, old_readers) = (old.chat_last, old.game_number, old.reads_chat(None));
        self.now = now;
        self.sockets = old.sockets;
        // The history only grows: the reloaded state is still told as a delta.
        self.sent = old.sent;
        self.next_socket = old.next_socket;
        self.empty_since = old.empty_since;
        self.thinking = old.thinking;
        self.chat_buckets = old.chat_buckets;
        self.shared = old.shared;
        self.owner = old.owner;
        self.remote = old.remote;
        self.published = old.published;
        self.effects = old.effects;
        for (seat, memory) in Seat::ALL.into_iter().zip(old.seats.map(|s| s.seqs)) {
            self.seats[seat.index()].seqs = memory;
        }
        for (seat, seq) in accepted {
            self.seats[seat.index()].seqs.note_accepted(seq);
        }
        self.stale = false;
        self.notepad = Some((self.version, notepad));
        tracing::debug!(room = %self.id, version = self.version, "room read back from the database");
        self.broadcast();
        if self.game_number != old_game {
            self.send_chat_to_readers(true, None);
        } else if self.reads_chat(None) != old_readers {
            self.send_chat_to_spectators(old_readers);
        } else if self.chat_last > old_chat_last {
            let new: Vec<ChatLine> = self.chat.iter().filter(|l| l.number > old_chat_last).cloned().collect();
            let frames = self.chat_frames(false, new.iter());
            self.send_to_readers(&frames);
        }
    }

    /// The current game with `records` applied, actions another node appended after ours
    /// (read from the log, numbered from `from` in game `game`); `None` when they do not
    /// follow on from this copy (the room is then read back whole).
    pub fn catch_up(&self, game: u64, from: usize, records: &[StoredAction]) -> Option<Game> {
        if game != self.game_number || from != self.game.actions().len() {
            return None;
        }
        let mut next = self.game.clone();
        for (offset, record) in records.iter().enumerate() {
            if crate::replay::apply_stored(&mut next, from + offset, record.role, record.action).is_err() {
                return None;
            }
        }
        Some(next)
    }

    /// Applies actions read from the log ([`Machine::catch_up`] made `next` of them).
    pub fn caught_up(
        &mut self,
        records: &[StoredAction],
        next: Game,
        notepad: Option<Notepad>,
        now: Instant,
    ) {
        self.now = now;
        let Some(last) = records.last() else { return };
        // When the turn last passed, on whichever node: the clock runs from there.
        let mut scratch = self.game.clone();
        let mut turn_passed = None;
        for (offset, record) in records.iter().enumerate() {
            if let (Some(seat), Some(seq)) = (record.seat, record.client_seq) {
                self.seats[seat.index()].seqs.note_accepted(seq);
            }
            let before = scratch.to_move();
            let index = scratch.actions().len() + offset;
            let _ = crate::replay::apply_stored(&mut scratch, index, record.role, record.action);
            if scratch.to_move() != before {
                turn_passed = Some(record.at);
            }
        }
        self.version += records.len() as u64 - 1;
        self.apply(last, next, notepad, turn_passed);
    }

    /// Makes `next` (the game with `record` applied, written to the log by this node or read
    /// from it) the game, and tells everyone. `turn_passed`: when the turn passed to the other
    /// player, if it did.
    fn apply(
        &mut self,
        record: &StoredAction,
        next: Game,
        notepad: Option<Notepad>,
        turn_passed: Option<i64>,
    ) {
        if let Some(outcome) = next.outcome() {
            self.series.wins[self.seat_of(outcome.winner).index()] += 1;
        }
        self.game = next;
        self.version += 1;
        self.notepad = Some((self.version, notepad));
        tracing::debug!(room = %self.id, role = %record.role, action = ?record.action, "action");
        self.restart_clock(turn_passed);
        self.broadcast();
    }

    /// The room's people on the other nodes.
    pub fn set_remote(&mut self, remote: Presence, now: Instant) {
        self.now = now;
        if remote != self.remote {
            let before = self.status();
            self.remote = remote;
            if self.status().others_see_a_change(&before) {
                self.broadcast();
            }
        }
    }

    /// A socket went away.
    pub fn leave(&mut self, socket: u64, now: Instant) {
        self.now = now;
        let before = self.status();
        if self.sockets.remove(&socket).is_some() && self.status().others_see_a_change(&before) {
            self.broadcast();
        }
        if self.sockets.is_empty() {
            self.empty_since = now;
        }
        self.publish_presence();
    }

    /// A socket stopped reading (its queue is full): it is closed.
    pub fn slow(&mut self, socket: u64, now: Instant) {
        self.now = now;
        if self.sockets.remove(&socket).is_some() {
            self.effects.push(Effect::Kick {
                socket,
                why: Kick { code: 1008, reason: "too slow: messages were not read" },
            });
        }
        if self.sockets.is_empty() {
            self.empty_since = now;
        }
        self.publish_presence();
    }

    /// The room expired: every socket is closed with 4004.
    pub fn expire(&mut self) {
        for socket in std::mem::take(&mut self.sockets).into_keys() {
            self.effects
                .push(Effect::Kick { socket, why: Kick { code: 4004, reason: "the room has expired" } });
        }
    }

    fn joined(&mut self, seat: Option<Seat>, io: JoinIo) -> u64 {
        let before = self.status();
        let id = self.next_socket;
        self.next_socket += 1;
        let welcome = ServerMessage::Welcome {
            role: seat.map(|s| self.role_of(s)),
            room: self.id,
            last_seq: seat.map_or(0, |s| self.seats[s.index()].seqs.last),
        };
        let JoinIo { queue, protocol } = io;
        let _ = queue.send(encode_as(protocol, &welcome));
        self.sockets.insert(id, Member { seat, queue, protocol, synced: false });
        // Its first state (a snapshot); the others' too when they see a change.
        self.publish(self.status().others_see_a_change(&before));
        if self.reads_chat(seat) && !self.chat.is_empty() {
            let frame = self.chat_frame(protocol, true, self.chat.iter());
            let _ = self.sockets[&id].queue.send(frame);
        }
        self.publish_presence();
        id
    }

    /// Protocol 2's `resync`: the socket gets a snapshot of its view (in place of any state
    /// frame it has not read yet).
    pub fn resync(&mut self, socket: u64, now: Instant) {
        self.now = now;
        if let Some(member) = self.sockets.get_mut(&socket) {
            member.synced = false;
            self.publish(false);
        }
    }

    /// Queues this node's presence for the other nodes when it changed.
    fn publish_presence(&mut self) {
        let presence = self.local_presence();
        if presence != self.published {
            self.published = presence;
            self.effects.push(Effect::Publish(presence));
        }
    }

    fn local_presence(&self) -> Presence {
        Presence {
            seats: Seat::ALL.map(|seat| self.sockets.values().any(|s| s.seat == Some(seat))),
            spectators: self.sockets.values().filter(|s| s.seat.is_none()).count() as u64,
        }
    }

    /// Validates an action against this copy of the game and asks for it to be appended.
    fn append(&mut self, input: Input, record: StoredAction) -> Step {
        let mut next = self.game.clone();
        if let Err(error) = next.apply_entry(record.role, record.action) {
            return self.refuse(input, |seq| (Reply::refused(Some(seq), &error), Memo::Refused));
        }
        let op = WriteOp::Append {
            game: self.game_number,
            number: self.game.actions().len(),
            record,
            finished: next.outcome(),
        };
        Step::Write(Box::new(Write { op, then: Then::Append { input, record, next } }))
    }

    fn rematch(&mut self, input: Input, seat: Seat, seq: u64) -> Step {
        if !self.game.is_over() || !self.both_seated() {
            let message = "a rematch is offered once the game is over, by one of its two players";
            return self
                .refuse(input, |seq| (Reply::error(Some(seq), code::NO_REMATCH, message), Memo::Refused));
        }
        if self.series.winner().is_some() {
            let message = "the series is over: create a new room for another one";
            return self
                .refuse(input, |seq| (Reply::error(Some(seq), code::NO_REMATCH, message), Memo::Refused));
        }
        if self.rematch[seat.index()] && !self.rematch[seat.other().index()] {
            // Offered already; the offer stands.
            self.broadcast();
            return Step::Done(self.finish_seat_reply(input, Reply::ok(seq), Memo::Refused));
        }
        let number = self.game_number + 1;
        let setup = Setup { seed: rooms::new_seed(self.limits.deal_seed, number), rules: self.rules };
        let fugitive_seat = self.fugitive_seat.other();
        let op = WriteOp::Rematch { seat, game: self.game_number, setup, fugitive_seat };
        Step::Write(Box::new(Write {
            op,
            then: Then::Rematch { input, fugitive_seat, next: Game::new(setup) },
        }))
    }

    fn new_game(&mut self, fugitive_seat: Seat, next: Game, notepad: Option<Notepad>) {
        self.game = next;
        self.game_number += 1;
        self.fugitive_seat = fugitive_seat;
        self.version += 1;
        self.notepad = Some((self.version, notepad));
        self.rematch = [false; 2];
        self.clock = None;
        self.restart_clock(Some(now_ms()));
        self.broadcast();
        // Each player's words are now under his new role.
        self.send_chat_to_readers(true, None);
    }

    /// Refuses a seat's request; with several nodes, only once the room was read back from the
    /// log: this copy may be behind it (another node's action not heard yet), and the refusal
    /// is decided on the log's state.
    fn refuse(&mut self, input: Input, make: impl FnOnce(u64) -> (Reply, Memo)) -> Step {
        match input {
            Input::Seat { seat, seq, request, bot, checked: false } if self.shared => {
                self.stale = true;
                Step::Sync(Input::Seat { seat, seq, request, bot, checked: true })
            }
            input => self.finish(input, make),
        }
    }

    /// Finishes a seat's input with the reply `make(seq)` gives and remembers it.
    fn finish(&mut self, input: Input, make: impl FnOnce(u64) -> (Reply, Memo)) -> Step {
        match input {
            Input::Seat { seat, seq, request, bot, .. } => {
                let (reply, memo) = make(seq);
                Step::Done(self.finish_seat(seat, seq, bot, Some(request), reply, memo))
            }
            _ => Step::Done(Answer::Nothing),
        }
    }

    fn finish_seat_reply(&mut self, input: Input, reply: Reply, memo: Memo) -> Answer {
        match input {
            Input::Seat { seat, seq, request, bot, .. } => {
                self.finish_seat(seat, seq, bot, Some(request), reply, memo)
            }
            _ => Answer::Nothing,
        }
    }

    fn finish_seat(
        &mut self,
        seat: Seat,
        seq: u64,
        bot: bool,
        request: Option<SeatRequest>,
        reply: Reply,
        memo: Memo,
    ) -> Answer {
        match memo {
            Memo::Accepted => self.seats[seat.index()].seqs.remember(seq, &reply, true),
            Memo::Refused => self.seats[seat.index()].seqs.remember(seq, &reply, false),
            Memo::Forget => {}
        }
        if !bot {
            return Answer::Reply(reply);
        }
        if reply.code() == Some(code::UNAVAILABLE) {
            self.bot_retry(self.version, request);
        } else if !reply.ok && !self.game.is_over() {
            // Refused: the same view would give the same request; wait for news.
            tracing::warn!(room = %self.id, ?request, ?reply, "the computer opponent's move did not go through");
        }
        Answer::Nothing
    }

    /// The database failed under the computer's request: it asks again in a second (by then
    /// the room may have moved on, and it thinks again).
    fn bot_retry(&mut self, version: u64, request: Option<SeatRequest>) {
        tracing::warn!(room = %self.id, "the computer opponent waits for the database");
        self.thinking = Some(version);
        self.effects.push(Effect::Think { version, think: Think::Retry { request } });
    }

    /// What the computer opponent has to do now: move on its turn, or accept the rematch its
    /// opponent offered.
    fn bot_job(&self) -> Option<Think> {
        let level = self.computer.bot?;
        let role = self.role_of(Seat::Guest);
        let pause = self.limits.bot_pause;
        if self.game.to_move() == Some(role) {
            // With `--deal-seed` the computer's choices are reproducible: they follow from it
            // and the room's version.
            let seed =
                self.limits.deal_seed.map(|base| base.wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ self.version);
            let view = Box::new(self.game.view(Viewer::from(role)));
            return Some(Think::Move { level, view, seed, pause });
        }
        (self.game.is_over() && self.rematch == [true, false] && self.series.winner().is_none())
            .then_some(Think::Rematch { pause })
    }

    /// Sets the computer opponent thinking when it has something to do and this node runs it.
    fn wake_bot(&mut self) {
        if self.thinking.is_some() || !self.owner {
            return;
        }
        if let Some(think) = self.bot_job() {
            self.thinking = Some(self.version);
            self.effects.push(Effect::Think { version: self.version, think });
        }
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

    /// Starts the clock of the player to move when it is due and the turn passed (at
    /// `turn_passed`, Unix ms, on whichever node) or no clock ran; stops it when it is not due.
    fn restart_clock(&mut self, turn_passed: Option<i64>) {
        self.clock = match self.clock_due() {
            None => None,
            Some((secs, role)) if turn_passed.is_some() || self.clock.is_none() => {
                let started = turn_passed.unwrap_or_else(now_ms);
                Some(Clock { role, deadline: deadline(secs, started, self.now) })
            }
            Some(_) => self.clock,
        };
    }

    fn status(&self) -> RoomStatus {
        let seated = |role| self.seat_of(role);
        let now = self.now;
        RoomStatus {
            seats: ByRole::new_with(|role| self.seats[seated(role).index()].token_hash.is_some()),
            // The computer is always at the table.
            presence: ByRole::new_with(|role| {
                let seat = seated(role);
                let bot = self.computer.bot.is_some() && seat == Seat::Guest;
                bot || self.remote.seats[seat.index()] || self.sockets.values().any(|s| s.seat == Some(seat))
            }),
            clock: self.clock.zip(self.turn_clock_secs).map(|(clock, turn_secs)| ClockStatus {
                turn_secs,
                role: clock.role,
                remaining_ms: clock.deadline.saturating_duration_since(now).as_millis() as u64,
            }),
            rematch: ByRole::new_with(|role| self.rematch[seated(role).index()]),
            names: ByRole::new_with(|role| self.names[seated(role).index()].clone()),
            spectators: self.sockets.values().filter(|s| s.seat.is_none()).count() as u64
                + self.remote.spectators,
            chat_spectators: ByRole::new_with(|role| self.chat_public[seated(role).index()]),
            series: SeriesStatus {
                wins: ByRole::new_with(|role| self.series.wins[seated(role).index()]),
                best_of: self.series.best_of,
                winner: self.series.winner().map(|seat| self.role_of(seat)),
            },
            computer: self.computer.bot.map(|_| self.role_of(Seat::Guest)),
        }
    }

    /// Whether a socket in `seat` (`None`: a spectator) reads the chat: the players always,
    /// spectators only while both players allow it.
    fn reads_chat(&self, seat: Option<Seat>) -> bool {
        seat.is_some() || self.chat_public == [true, true]
    }

    fn add_chat(&mut self, lines: Vec<ChatLine>) {
        let frames = self.chat_frames(false, lines.iter());
        for line in lines {
            self.chat_last = self.chat_last.max(line.number);
            self.chat.push_back(line);
            if self.chat.len() > table::CHAT_HISTORY {
                self.chat.pop_front();
            }
        }
        self.send_to_readers(&frames);
    }

    fn set_chat_public(&mut self, public: [bool; 2]) {
        let before = self.reads_chat(None);
        self.chat_public = public;
        self.broadcast();
        if self.reads_chat(None) != before {
            self.send_chat_to_spectators(before);
        }
    }

    /// The spectators start (or stop) reading: the whole history, or nothing.
    fn send_chat_to_spectators(&mut self, before: bool) {
        let frames =
            if before { self.chat_frames(true, [].iter()) } else { self.chat_frames(true, self.chat.iter()) };
        self.send_each(|member| member.seat.is_none(), &frames);
    }

    /// The whole chat to every reader (each player's words are under his new role).
    fn send_chat_to_readers(&mut self, full: bool, _only: Option<u64>) {
        if self.chat.is_empty() {
            return;
        }
        let frames = self.chat_frames(full, self.chat.iter());
        self.send_to_readers(&frames);
    }

    fn send_to_readers(&mut self, frames: &[Utf8Bytes; 2]) {
        let spectators = self.reads_chat(None);
        self.send_each(|member| member.seat.is_some() || spectators, frames);
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
    fn send_each(&mut self, to: impl Fn(&Member) -> bool, frames: &[Utf8Bytes; 2]) {
        let mut slow = Vec::new();
        for (&id, member) in self.sockets.iter().filter(|(_, member)| to(member)) {
            let frame = &frames[usize::from(member.protocol == Protocol::V2)];
            if member.queue.send(frame.clone()).is_err() {
                slow.push(id);
            }
        }
        for socket in slow {
            self.slow(socket, self.now);
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

    // The frames: the one place a state is turned into frames for each protocol.

    /// The state `viewer` sees now.
    fn current(&mut self, viewer: Viewer) -> Current {
        let view = self.game.view(viewer);
        let index = Viewer::ALL.iter().position(|&v| v == viewer).expect("one of the viewers");
        let candidates = match &self.candidates[index] {
            // He knows his trail.
            _ if viewer == Viewer::Fugitive => None,
            Some((version, candidates)) if *version == self.version => candidates.clone(),
            _ => {
                #[cfg(test)]
                tests::CANDIDATES_MADE.with(|made| made.set(made.get() + 1));
                let candidates = view.candidates();
                self.candidates[index] = Some((self.version, candidates.clone()));
                candidates
            }
        };
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
        Current { version: self.version, game: self.game_number, view, legal, notepad, candidates }
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
}

/// When a turn of `secs` that began at `started_ms` (Unix ms) runs out.
fn deadline(secs: u64, started_ms: i64, now: Instant) -> Instant {
    let elapsed = u64::try_from(now_ms() - started_ms).unwrap_or(0);
    now + Duration::from_millis((secs * 1000).saturating_sub(elapsed))
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

#[cfg(test)]
mod tests {
    //! The room without a database: every write's result, failures included, is handed in.
    use std::sync::Arc;

    use fugitive_core::{Action, Cards, Seed};

    use super::*;
    use crate::db::StoredGame;

    const HOST: &str = "host token";
    const GUEST: &str = "guest token";

    fn limits() -> RoomLimits {
        RoomLimits {
            max_sockets: 4,
            unload_after: Duration::from_secs(60),
            bot_pause: Duration::ZERO,
            deal_seed: None,
        }
    }

    /// A stored room, the host the Fugitive, both seats claimed, with `actions` in its log.
    fn stored(turn_clock_secs: Option<u64>, computer: Computer, actions: Vec<StoredAction>) -> StoredRoom {
        let seqs = actions.iter().filter_map(|a| a.seat.zip(a.client_seq)).collect();
        StoredRoom {
            rules: RuleOptions::default(),
            turn_clock_secs,
            invite_hash: None,
            seats: [Some(hash_secret(HOST)), Some(hash_secret(GUEST))],
            seated_at: Some(now_ms()),
            rematch: [false, false],
            game: StoredGame {
                number: 1,
                setup: Setup { seed: Seed::from(7), rules: RuleOptions::default() },
                fugitive_seat: Seat::Host,
                started_at: now_ms(),
                finished_at: None,
                actions,
            },
            earlier_actions: 0,
            seqs,
            computer,
            table: table::Stored::default(),
        }
    }

    fn room(turn_clock_secs: Option<u64>, computer: Computer) -> Machine {
        Machine::rebuild(
            Uuid::new_v4(),
            stored(turn_clock_secs, computer, Vec::new()),
            limits(),
            Instant::now(),
        )
        .unwrap()
    }

    fn io() -> JoinIo {
        JoinIo { queue: Mailbox::new(64), protocol: Protocol::V1 }
    }

    /// Joins a socket; its id and its mailbox, emptied.
    fn join_with(room: &mut Machine, token: Option<&str>) -> (u64, Arc<Mailbox>) {
        let io = io();
        let queue = io.queue.clone();
        let input = Input::Join { token: token.map(str::to_string), name: None, io, checked: false };
        match room.input(input, Instant::now()) {
            Step::Done(Answer::Join(Ok(id))) => {
                while queue.try_recv().is_some() {}
                (id, queue)
            }
            other => panic!("{other:?}"),
        }
    }

    fn join(room: &mut Machine, token: Option<&str>) -> u64 {
        join_with(room, token).0
    }

    /// How many frames each mailbox holds, emptying them.
    fn frames(queues: &[&Arc<Mailbox>]) -> Vec<usize> {
        queues
            .iter()
            .map(|queue| {
                let mut n = 0;
                while queue.try_recv().is_some() {
                    n += 1;
                }
                n
            })
            .collect()
    }

    /// The Fugitive's first legal placement.
    fn place(room: &Machine) -> Action {
        let legal = room.game().legal_actions(Role::Fugitive);
        Action::Place { hideout: legal.placements[0].hideout, sprints: Cards::EMPTY }
    }

    fn to_write(step: Step) -> Write {
        match step {
            Step::Write(write) => *write,
            other => panic!("expected a write, got {other:?}"),
        }
    }

    fn reply(step: Step) -> Reply {
        match step {
            Step::Done(Answer::Reply(reply)) => reply,
            other => panic!("expected a reply, got {other:?}"),
        }
    }

    thread_local! {
        /// How many times this thread's rooms made a view's public candidates.
        pub(super) static CANDIDATES_MADE: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
    }

    /// The last frame in `queue`, as JSON, emptying it.
    fn last_frame(queue: &Mailbox) -> serde_json::Value {
        let last = std::iter::from_fn(|| queue.try_recv()).last().expect("a frame");
        serde_json::from_str(last.as_str()).unwrap()
    }

    #[test]
    fn the_public_candidates_are_made_once_per_version_and_viewer() {
        let mut room = room(None, Computer::default());
        let (fugitive, f) = join_with(&mut room, Some(HOST));
        let (_, m) = join_with(&mut room, Some(GUEST));
        let (_, other_m) = join_with(&mut room, Some(GUEST));
        let (_, s) = join_with(&mut room, None);
        let (_, other_s) = join_with(&mut room, None);
        let made = || CANDIDATES_MADE.with(std::cell::Cell::get);
        let before = made();
        let write = to_write(room.request(fugitive, 1, SeatRequest::Action(place(&room)), Instant::now()));
        room.written(write, Ok(Stored::Done), None, Instant::now());
        assert_eq!(made() - before, 2, "once for her view, once for the spectators', whatever the sockets");
        let [fugitive_state, marshal_state, _, spectator_state, _] =
            [&f, &m, &other_m, &s, &other_s].map(|queue| last_frame(queue));
        assert!(fugitive_state.get("candidates").is_none(), "he knows his trail");
        for state in [&marshal_state, &spectator_state] {
            assert_eq!(state["candidates"]["positions"][0]["position"], 1, "{state}");
        }
        // Another socket joining the same version makes none.
        join(&mut room, None);
        assert_eq!(made() - before, 2);
    }

    #[test]
    fn an_action_is_told_to_nobody_before_it_is_stored() {
        let mut room = room(None, Computer::default());
        let (fugitive, f) = join_with(&mut room, Some(HOST));
        let (_, m) = join_with(&mut room, Some(GUEST));
        let (_, s) = join_with(&mut room, None);
        frames(&[&f, &m, &s]);
        let action = place(&room);
        let write = to_write(room.request(fugitive, 1, SeatRequest::Action(action), Instant::now()));
        assert!(matches!(write.op, WriteOp::Append { game: 1, number: 0, .. }), "{:?}", write.op);
        assert_eq!(frames(&[&f, &m, &s]), [0, 0, 0], "nothing is sent before the write");
        assert_eq!(room.version(), 0);
        let step = room.written(write, Ok(Stored::Done), None, Instant::now());
        assert_eq!(reply(step), Reply::ok(1));
        assert_eq!(room.version(), 1);
        assert_eq!(frames(&[&f, &m, &s]), [1, 1, 1], "everyone is told once it is stored");
    }

    #[test]
    fn a_failed_commit_answers_unavailable_and_changes_nothing() {
        let mut room = room(None, Computer::default());
        let (fugitive, f) = join_with(&mut room, Some(HOST));
        let action = place(&room);
        let write = to_write(room.request(fugitive, 1, SeatRequest::Action(action), Instant::now()));
        let failed = DbError::Batch(Arc::new(DbError::Corrupt("injected".into())));
        let answer = reply(room.written(write, Err(failed), None, Instant::now()));
        assert_eq!(answer.code(), Some(code::UNAVAILABLE));
        assert_eq!(answer.error.as_ref().unwrap().retry_after_ms, None);
        assert_eq!(room.version(), 0, "the game did not change");
        assert!(room.game().actions().is_empty());
        assert_eq!(frames(&[&f]), [0], "nobody was told anything");
        // The write may have been committed all the same: the room is read back first.
        assert!(room.is_stale());
        let Step::Sync(input) = room.request(fugitive, 1, SeatRequest::Action(action), Instant::now()) else {
            panic!("a stale room reads the log first");
        };
        // The log does not have it: the retry with the same seq is carried out.
        let fresh = Machine::rebuild(
            room.id(),
            stored(None, Computer::default(), Vec::new()),
            limits(),
            Instant::now(),
        )
        .unwrap();
        room.reload(fresh, Vec::new(), None, Instant::now());
        let write = to_write(room.input(input, Instant::now()));
        assert_eq!(reply(room.written(write, Ok(Stored::Done), None, Instant::now())), Reply::ok(1));
        assert_eq!(room.version(), 1);
    }

    #[test]
    fn an_overloaded_commit_queue_answers_with_a_retry_hint_and_changes_nothing() {
        let mut room = room(None, Computer::default());
        let fugitive = join(&mut room, Some(HOST));
        let action = place(&room);
        let write = to_write(room.request(fugitive, 1, SeatRequest::Action(action), Instant::now()));
        let answer = reply(room.written(write, Err(DbError::Overloaded), None, Instant::now()));
        assert!(answer.error.unwrap().retry_after_ms.is_some());
        assert!(!room.is_stale(), "nothing was written: nothing to read back");
        assert_eq!(room.version(), 0);
    }

    #[test]
    fn a_conflict_reads_the_log_and_answers_from_it() {
        // Node B's copy; node A stored the Fugitive's seq 1 first (he reconnected to B and
        // sent it again).
        let mut room = room(None, Computer::default());
        let fugitive = join(&mut room, Some(HOST));
        let action = place(&room);
        let write = to_write(room.request(fugitive, 1, SeatRequest::Action(action), Instant::now()));
        let Step::Sync(input) = room.written(write, Err(DbError::Conflict), None, Instant::now()) else {
            panic!("a conflict reads the log");
        };
        let theirs = StoredAction {
            role: Role::Fugitive,
            action: action.into(),
            seat: Some(Seat::Host),
            client_seq: Some(1),
            at: now_ms(),
        };
        let log = stored(None, Computer::default(), vec![theirs]);
        let accepted = log.seqs.clone();
        let fresh = Machine::rebuild(room.id(), log, limits(), Instant::now()).unwrap();
        room.reload(fresh, accepted, None, Instant::now());
        assert_eq!(room.version(), 1);
        // The seq is in the log: answered ok, not applied twice.
        assert_eq!(reply(room.input(input, Instant::now())), Reply::ok(1));
        assert_eq!(room.game().actions().len(), 1);
    }

    #[test]
    fn actions_read_from_the_log_apply_like_our_own() {
        let mut mine = room(None, Computer::default());
        let mut theirs = Machine::rebuild(
            mine.id(),
            stored(None, Computer::default(), Vec::new()),
            limits(),
            Instant::now(),
        )
        .unwrap();
        let fugitive = join(&mut mine, Some(HOST));
        let (_, watcher) = join_with(&mut theirs, None);
        let action = place(&mine);
        let write = to_write(mine.request(fugitive, 1, SeatRequest::Action(action), Instant::now()));
        let WriteOp::Append { record, .. } = write.op.clone() else { panic!() };
        mine.written(write, Ok(Stored::Done), None, Instant::now());
        // The other node hears of it and reads it from the log.
        let next = theirs.catch_up(1, 0, &[record]).expect("it follows on");
        theirs.caught_up(&[record], next, None, Instant::now());
        assert_eq!(theirs.version(), mine.version());
        assert_eq!(theirs.game().actions(), mine.game().actions());
        assert_eq!(frames(&[&watcher]), [1], "its watcher is told");
        // Its seq is known there too: a retry on that node is answered, not applied.
        let fugitive_there = join(&mut theirs, Some(HOST));
        assert_eq!(
            reply(theirs.request(fugitive_there, 1, SeatRequest::Action(action), Instant::now())),
            Reply::ok(1)
        );
        // Actions that do not follow on from this copy are refused: the room is read back whole.
        assert!(theirs.catch_up(1, 5, &[record]).is_none());
    }

    #[test]
    fn the_clock_rings_only_on_the_owner_and_a_failed_write_tries_again() {
        let mut room = room(Some(1), Computer::default());
        room.set_shared(true);
        room.set_owner(false, Instant::now());
        assert!(room.needs_owner());
        assert_eq!(room.alarm(), None, "not the owner: no alarm");
        let later = Instant::now() + Duration::from_secs(2);
        assert!(matches!(room.input(Input::TimeOut, later), Step::Done(Answer::Nothing)));
        room.set_owner(true, Instant::now());
        assert!(room.alarm().is_some());
        let write = to_write(room.input(Input::TimeOut, later));
        assert!(matches!(
            write.op,
            WriteOp::Append { record: StoredAction { action: Entry::TimeOut, .. }, .. }
        ));
        let failed = DbError::Batch(Arc::new(DbError::Corrupt("injected".into())));
        assert!(matches!(room.written(write, Err(failed), None, later), Step::Done(Answer::Nothing)));
        assert_eq!(room.version(), 0);
        assert_eq!(room.alarm(), Some(later + Duration::from_secs(1)), "the clock tries again in a second");
    }

    #[test]
    fn the_computer_thinks_only_on_the_owner() {
        // The computer is the guest, the Marshal; the host places first, then it is its turn.
        let computer = Computer { bot: Some(Level::Easy), notepad_assist: false };
        let mut room = room(None, computer);
        room.set_shared(true);
        room.set_owner(false, Instant::now());
        let fugitive = join(&mut room, Some(HOST));
        room.take_effects();
        for seq in 1..=2 {
            let action = if seq == 1 { place(&room) } else { Action::EndTurn };
            let write = to_write(room.request(fugitive, seq, SeatRequest::Action(action), Instant::now()));
            room.written(write, Ok(Stored::Done), None, Instant::now());
        }
        assert_eq!(room.game().to_move(), Some(Role::Marshal));
        assert!(room.needs_owner());
        let thinks = |effects: Vec<Effect>| effects.iter().any(|e| matches!(e, Effect::Think { .. }));
        assert!(!thinks(room.take_effects()), "not the owner: it does not think");
        room.set_owner(true, Instant::now());
        assert!(thinks(room.take_effects()), "the owner's computer thinks");
        // An answer that reaches a node which lost the lease meanwhile is dropped.
        let version = room.version();
        room.set_owner(false, Instant::now());
        let request = Some(SeatRequest::Action(Action::Pass));
        assert!(matches!(
            room.input(Input::Bot { version, request }, Instant::now()),
            Step::Done(Answer::Nothing)
        ));
    }

    #[test]
    fn with_several_nodes_a_token_or_a_refusal_is_checked_against_the_database_first() {
        let mut log = stored(None, Computer::default(), Vec::new());
        log.seats[1] = None;
        let mut room = Machine::rebuild(Uuid::new_v4(), log, limits(), Instant::now()).unwrap();
        room.set_shared(true);
        // The guest seat was claimed on another node; this copy has not heard of it yet.
        let input = Input::Join { token: Some(GUEST.into()), name: None, io: io(), checked: false };
        let Step::Sync(input) = room.input(input, Instant::now()) else { panic!("read back first") };
        let fresh = Machine::rebuild(
            room.id(),
            stored(None, Computer::default(), Vec::new()),
            limits(),
            Instant::now(),
        )
        .unwrap();
        room.reload(fresh, Vec::new(), None, Instant::now());
        assert!(matches!(room.input(input, Instant::now()), Step::Done(Answer::Join(Ok(_)))));
        // A token the database does not know either is refused, once.
        let input = Input::Join { token: Some("nobody's".into()), name: None, io: io(), checked: false };
        let Step::Sync(input) = room.input(input, Instant::now()) else { panic!("read back first") };
        assert!(matches!(
            room.input(input, Instant::now()),
            Step::Done(Answer::Join(Err(JoinError::BadToken)))
        ));
        // An action this copy refuses is refused only after the log was read.
        room.stale = false;
        let fugitive = join(&mut room, Some(HOST));
        let guess = SeatRequest::Action(Action::EndTurn);
        let Step::Sync(input) = room.request(fugitive, 1, guess, Instant::now()) else {
            panic!("read back first")
        };
        room.stale = false;
        let answer = reply(room.input(input, Instant::now()));
        assert!(!answer.ok, "{answer:?}");
    }

    #[test]
    fn a_failed_claim_is_unavailable_and_changes_nothing() {
        let mut log = stored(None, Computer::default(), Vec::new());
        log.seats[1] = None;
        log.invite_hash = Some(hash_secret("invite"));
        let mut room = Machine::rebuild(Uuid::new_v4(), log, limits(), Instant::now()).unwrap();
        let write = to_write(room.input(Input::Claim { invite: "invite".into() }, Instant::now()));
        let failed = DbError::Batch(Arc::new(DbError::Corrupt("injected".into())));
        let step = room.written(write, Err(failed), None, Instant::now());
        assert!(matches!(step, Step::Done(Answer::Claim(Err(ClaimError::Unavailable)))), "{step:?}");
        assert!(!room.summary().seats.marshal, "the seat is still free");
        // Another node claimed it first: taken, and the room is read back.
        room.stale = false;
        let write = to_write(room.input(Input::Claim { invite: "invite".into() }, Instant::now()));
        let step = room.written(write, Ok(Stored::Claimed(SeatClaim::Taken)), None, Instant::now());
        assert!(matches!(step, Step::Done(Answer::Claim(Err(ClaimError::Taken)))), "{step:?}");
        assert!(room.is_stale());
    }
}
