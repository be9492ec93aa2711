//! The room as a pure state machine: the [`Game`], the two seats with their `seq` memory, the
//! claims, the rematch offers, the table (names, chat), who is present, the turn clock and the
//! computer opponent's schedule. It does no I/O, never waits and reads no clock: the time comes
//! in with each input ([`Now`]), randomness from its own RNG seeded by the shell. An input (a
//! request, a write's result, actions read from the log, a tick of the clock, the computer's
//! answer) changes it and returns a [`Step`] (answered, or "write this, then tell me how it
//! went", or "read the room back from the log, then try again"), and queues [`Effect`]s (kicks,
//! the computer to start thinking, this node's presence to publish). Frames go out through each
//! socket's [`Outbox`], which the shell implements (`protocol/frames.rs` builds them). The actor
//! in `room/mod.rs` is the thin async shell that carries out the rest.
//!
//! - `command.rs`: what goes in and what comes out;
//! - `log.rs`: the part rebuilt from the log ([`Logged`]), and news read from it;
//! - `seats.rs`: sockets joining and leaving, replies and their `seq` memory;
//! - `clock.rs`: the turn clock; `computer.rs`: the computer opponent's schedule;
//! - `table.rs`: the chat; `publish.rs`: the room's state, turned into frames.
//!
//! An action appended by another node and read from the log goes through the same
//! `Machine::apply` as one this room wrote itself.

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use fugitive_core::{Entry, Game, Role, Seed, Setup, Viewer};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use uuid::Uuid;

use crate::db::{DbError, Rematched, SeatClaim, StoredAction};
use crate::model::options::deal;
use crate::model::seat::{Presence, Seat, hash_secret, new_secret_from};
use crate::model::table::{ChatBucket, ChatLine, TableRequest};
use crate::protocol::frames::Sent;
use crate::protocol::{Notepad, Reply, code};
pub use command::{
    Answer, ClaimError, Claimed, Effect, Input, JoinError, JoinIo, Kick, SeatRequest, Step, Stored, Summary,
    Think, Write, WriteOp,
};
use command::{Offer, Then};
pub use log::Logged;
use publish::Member;
pub use publish::Outbox;
use seats::{Memo, Recall, SeqMemory};

mod clock;
mod command;
mod computer;
mod log;
mod publish;
mod seats;
mod table;
#[cfg(test)]
mod tests;

/// The time, as the shell read it for an input: the monotonic clock (the turn clock's deadlines,
/// idleness, the chat's allowance) and the wall clock in Unix ms (what is stored).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Now {
    /// The monotonic reading.
    pub at: Instant,
    /// The wall-clock reading, in Unix ms.
    pub wall_ms: i64,
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

/// The room: the part rebuilt from the log, and this node's part around it.
pub struct Machine {
    /// Everything read back from the database: replaced whole by [`Machine::reload`].
    log: Logged,
    /// Each seat's memory of its client `seq`s, by seat index (accepted ones are also in the
    /// log; a refusal's reply is only here).
    seqs: [SeqMemory; 2],
    /// Every socket of this node in the room.
    sockets: BTreeMap<u64, Member>,
    /// What the protocol-2 sockets of each viewer hold (by `Viewer::ALL`'s order), while it has
    /// any: deltas are made from it (`protocol/frames.rs`).
    sent: [Option<Sent>; 3],
    next_socket: u64,
    empty_since: Instant,
    /// The version the computer is thinking about.
    thinking: Option<u64>,
    chat_buckets: [ChatBucket; 2],
    /// Several nodes share the database: a refusal is checked against the log first.
    shared: bool,
    /// This node holds the room's lease: it runs the clock and the computer opponent.
    owner: bool,
    /// The room's people on the other nodes.
    remote: Presence,
    /// This node's presence as last published.
    published: Presence,
    /// The latest reading of the clocks the shell handed in.
    now: Now,
    /// Draws the next game's seed, claim tokens and retry hints: a CSPRNG seeded by the shell.
    rng: StdRng,
    effects: Vec<Effect>,
}

impl Machine {
    /// A room rebuilt from the log ([`Logged::rebuild`]), with no socket yet, drawing from an
    /// RNG seeded with `seed` (the shell's, from the OS). It is not shared and it owns itself
    /// (one node); [`Machine::set_shared`] says otherwise.
    pub fn new(log: Logged, now: Now, seed: [u8; 32]) -> Machine {
        let mut seqs: [SeqMemory; 2] = Default::default();
        let mut log = log;
        for (seat, seq) in std::mem::take(&mut log.accepted) {
            seqs[seat.index()].note_accepted(seq);
        }
        Machine {
            log,
            seqs,
            sockets: BTreeMap::new(),
            sent: Default::default(),
            next_socket: 1,
            empty_since: now.at,
            thinking: None,
            chat_buckets: Default::default(),
            shared: false,
            owner: true,
            remote: Presence::default(),
            published: Presence::default(),
            now,
            rng: StdRng::from_seed(seed),
            effects: Vec::new(),
        }
    }

    /// The room's id.
    pub fn id(&self) -> Uuid {
        self.log.id
    }

    /// The room's version: accepted actions and new games so far.
    pub fn version(&self) -> u64 {
        self.log.version
    }

    /// The current game's number and how many actions it holds (the next one's number).
    pub fn position(&self) -> (u64, usize) {
        (self.log.game_number, self.log.game.actions().len())
    }

    /// The current game.
    pub fn game(&self) -> &Game {
        &self.log.game
    }

    /// Whether the room must be read back before anything else.
    pub fn is_stale(&self) -> bool {
        self.log.stale
    }

    /// Marks the room to be read back (another node changed it).
    pub fn mark_stale(&mut self) {
        self.log.stale = true;
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
    pub fn set_owner(&mut self, owner: bool, now: Now) {
        self.now = now;
        if owner != self.owner {
            self.owner = owner;
            if owner {
                self.wake_bot();
            }
        }
    }

    /// The room starts running: the computer opponent thinks if it has something to do.
    pub fn wake(&mut self, now: Now) {
        self.now = now;
        self.wake_bot();
    }

    /// The effects queued so far, in order.
    pub fn take_effects(&mut self) -> Vec<Effect> {
        std::mem::take(&mut self.effects)
    }

    /// The public facts of the room.
    pub fn summary(&self) -> Summary {
        let status = self.status();
        Summary {
            seats: status.seats,
            to_move: self.log.game.to_move(),
            outcome: self.log.game.outcome(),
            aborted: status.aborted,
            names: status.names,
            game: self.log.game_number,
            over: self.log.game.is_over(),
            rules: self.log.rules,
            turn_clock_secs: self.log.turn_clock_secs,
        }
    }

    /// A seated socket's request.
    pub fn request(&mut self, socket: u64, seq: u64, request: SeatRequest, now: Now) -> Step {
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
    pub fn table(&mut self, socket: u64, seq: u64, request: TableRequest, now: Now) -> Step {
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
    pub fn input(&mut self, input: Input, now: Now) -> Step {
        self.now = now;
        // A stale room is read back first; the table's requests do not depend on the game.
        if self.log.stale && !matches!(input, Input::Table { .. } | Input::Join { .. }) {
            return Step::Sync(input);
        }
        match input {
            Input::Seat { seat, seq, request, bot, checked } => {
                if let Recall::Repeat(reply) = self.seqs[seat.index()].recall(seq) {
                    return Step::Done(Answer::Reply(reply));
                }
                match request {
                    SeatRequest::Action(action) => {
                        let record = StoredAction {
                            role: self.role_of(seat),
                            action: action.into(),
                            seat: Some(seat),
                            client_seq: Some(seq),
                            at: self.now.wall_ms,
                        };
                        self.append(input, record)
                    }
                    SeatRequest::Rematch => self.rematch(input, Offer { seat, seq, bot, checked }),
                }
            }
            Input::Table { seat, seq, ref request } => match request.clone() {
                TableRequest::Name(name) => {
                    if self.log.names[seat.index()] == name {
                        self.broadcast();
                        return Step::Done(Answer::Reply(Reply::ok(seq)));
                    }
                    Step::Write(Box::new(Write {
                        op: WriteOp::Name { seat, name: name.clone() },
                        then: Then::Name { input, seat, name },
                    }))
                }
                TableRequest::Chat(body) => {
                    if !self.chat_buckets[seat.index()].take(self.now.at) {
                        let message = "too many chat messages: 5 at once, then one every 5 seconds";
                        return Step::Done(Answer::Reply(Reply::error(
                            Some(seq),
                            code::CHAT_TOO_FAST,
                            message,
                        )));
                    }
                    let line = ChatLine { number: self.log.chat_last + 1, seat, body, at: self.now.wall_ms };
                    Step::Write(Box::new(Write {
                        op: WriteOp::Chat(line.clone()),
                        then: Then::Chat { seat, seq, request: request.clone(), line },
                    }))
                }
                TableRequest::ChatSpectators(allow) => Step::Write(Box::new(Write {
                    op: WriteOp::ChatPublic { seat, allow },
                    then: Then::ChatPublic { seat, seq, request: request.clone(), allow },
                })),
            },
            Input::Claim { ref invite } => {
                if self.log.tokens[Seat::Guest.index()].is_some() {
                    return Step::Done(Answer::Claim(Err(ClaimError::Taken)));
                }
                if self.log.invite_hash.as_deref() != Some(&hash_secret(invite)) {
                    return Step::Done(Answer::Claim(Err(ClaimError::BadInvite)));
                }
                let token = new_secret_from(&mut self.rng);
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
                            .find(|s| self.log.tokens[s.index()].as_deref() == Some(&hash));
                        match seat {
                            Some(seat) => Some(seat),
                            // This copy may not have heard of a claim on another node yet.
                            None if self.shared && !checked => {
                                self.log.stale = true;
                                let (token, name, io) = (Some(token.clone()), name.clone(), io.clone());
                                return Step::Sync(Input::Join { token, name, io, checked: true });
                            }
                            None => return Step::Done(Answer::Join(Err(JoinError::BadToken))),
                        }
                    }
                };
                // Only spectators are counted: they must never lock a player out of his seat.
                let spectators = self.sockets.values().filter(|s| s.seat.is_none()).count();
                if seat.is_none() && spectators >= self.log.limits.max_sockets {
                    return Step::Done(Answer::Join(Err(JoinError::Full)));
                }
                match (seat, name.clone()) {
                    (Some(seat), Some(name)) if self.log.names[seat.index()] != name => {
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
                if !self.owner || self.log.clock.is_none_or(|clock| clock.deadline > now.at) {
                    // Not ours, or the clock was restarted or stopped meanwhile.
                    return Step::Done(Answer::Nothing);
                }
                let Some(role) = self.log.game.to_move() else {
                    self.log.clock = None;
                    return Step::Done(Answer::Nothing);
                };
                let record = StoredAction {
                    role,
                    action: Entry::TimeOut,
                    seat: None,
                    client_seq: None,
                    at: now.wall_ms,
                };
                self.append(input, record)
            }
            Input::Bot { version, request } => {
                self.thinking = None;
                if !self.owner || self.log.computer.bot.is_none() {
                    return Step::Done(Answer::Nothing);
                }
                if version != self.log.version {
                    // Overtaken (a resignation, a clock, another node): think again.
                    self.wake_bot();
                    return Step::Done(Answer::Nothing);
                }
                let Some(request) = request else {
                    tracing::warn!(room = %self.log.id, "the computer opponent found nothing to do");
                    return Step::Done(Answer::Nothing);
                };
                let seq = self.seqs[Seat::Guest.index()].last + 1;
                self.input(Input::Seat { seat: Seat::Guest, seq, request, bot: true, checked: false }, now)
            }
        }
    }

    /// The input could not be carried out because the database could not be read: it is
    /// answered `unavailable` (nothing changed), the clock tries again in a second, the
    /// computer asks again in a second, a join goes on without its name.
    pub fn give_up(&mut self, input: Input, now: Now) -> Answer {
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
                match Seat::ALL.into_iter().find(|s| self.log.tokens[s.index()].as_deref() == Some(&hash)) {
                    Some(seat) => Answer::Join(Ok(self.joined(Some(seat), io))),
                    // Not known here, and the database could not be asked.
                    None => Answer::Join(Err(JoinError::BadToken)),
                }
            }
            Input::TimeOut => {
                // The database is down: try again shortly rather than lose the clock.
                if let Some(clock) = self.log.clock.as_mut() {
                    clock.deadline = now.at + Duration::from_secs(1);
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
        now: Now,
    ) -> Step {
        self.now = now;
        if matches!(result, Err(DbError::Conflict)) {
            // Another node wrote first: read the log, then decide again.
            self.log.stale = true;
            return Step::Sync(write.then.into_input());
        }
        match write.then {
            Then::Append { input, record, next } => match result {
                Ok(_) => {
                    let passed = (next.to_move() != self.log.game.to_move()).then_some(record.at);
                    self.apply(&record, next, notepad, passed);
                    // Told by the node that wrote the action, once.
                    self.push_notices(passed.is_some());
                    self.finish(input, |seq| (Reply::ok(seq), Memo::Accepted))
                }
                Err(error) => {
                    let overload = matches!(error, DbError::Overloaded);
                    if overload {
                        // Refused before it reached the writer: nothing written, nothing to read back.
                        tracing::debug!(room = %self.log.id, "the commit queue is full");
                    } else {
                        tracing::error!(room = %self.log.id, %error, "could not store an action");
                        self.log.stale = true;
                    }
                    match input {
                        Input::TimeOut => Step::Done(self.give_up(Input::TimeOut, now)),
                        Input::Seat { seat, seq, request, bot, .. } => {
                            let reply =
                                if overload { overloaded(seq, &mut self.rng) } else { unavailable(seq) };
                            Step::Done(self.finish_seat(seat, seq, bot, Some(request), reply, Memo::Forget))
                        }
                        other => Step::Done(self.give_up(other, now)),
                    }
                }
            },
            Then::Rematch { offer, fugitive_seat, next } => {
                let Offer { seat, seq, bot, .. } = offer;
                let (reply, memo) = match result {
                    Ok(Stored::Rematch(Rematched::Offered)) => {
                        self.log.rematch[seat.index()] = true;
                        self.broadcast();
                        (Reply::ok(seq), Memo::Refused)
                    }
                    Ok(Stored::Rematch(Rematched::Started { ours: true })) => {
                        self.new_game(fugitive_seat, next, notepad);
                        (Reply::ok(seq), Memo::Refused)
                    }
                    Ok(_) => {
                        // Another node dealt the next game first: it is read back.
                        self.log.stale = true;
                        (Reply::ok(seq), Memo::Refused)
                    }
                    Err(error) => {
                        tracing::error!(room = %self.log.id, %error, "could not store a rematch offer");
                        self.log.stale = true;
                        (unavailable(seq), Memo::Forget)
                    }
                };
                Step::Done(self.finish_seat(seat, seq, bot, Some(SeatRequest::Rematch), reply, memo))
            }
            Then::Claim { token, hash, .. } => match result {
                Ok(Stored::Claimed(SeatClaim::Claimed)) => {
                    self.log.tokens[Seat::Guest.index()] = Some(hash);
                    self.log.invite_hash = None;
                    self.restart_clock(None);
                    self.broadcast();
                    Step::Done(Answer::Claim(Ok(Claimed { role: self.role_of(Seat::Guest), token })))
                }
                Ok(Stored::Claimed(SeatClaim::Gone)) => Step::Done(Answer::Claim(Err(ClaimError::Gone))),
                Ok(_) => {
                    // Claimed first (perhaps through another node): read back.
                    self.log.stale = true;
                    Step::Done(Answer::Claim(Err(ClaimError::Taken)))
                }
                Err(error) => {
                    tracing::error!(room = %self.log.id, %error, "could not claim a seat");
                    self.log.stale = true;
                    Step::Done(Answer::Claim(Err(ClaimError::Unavailable)))
                }
            },
            Then::Name { input, seat, name } => {
                let stored = match result {
                    Ok(_) => {
                        self.log.names[seat.index()] = name;
                        true
                    }
                    Err(error) => {
                        tracing::error!(room = %self.log.id, %error, "could not store a name");
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
            Then::Chat { seq, line, .. } => {
                if let Err(error) = result {
                    tracing::error!(room = %self.log.id, %error, "could not store a chat message");
                    return Step::Done(Answer::Reply(unavailable(seq)));
                }
                self.add_chat(vec![line]);
                Step::Done(Answer::Reply(Reply::ok(seq)))
            }
            Then::ChatPublic { seat, seq, allow, .. } => {
                if let Err(error) = result {
                    tracing::error!(room = %self.log.id, %error, "could not store a chat setting");
                    return Step::Done(Answer::Reply(unavailable(seq)));
                }
                let mut public = self.log.chat_public;
                public[seat.index()] = allow;
                self.set_chat_public(public);
                Step::Done(Answer::Reply(Reply::ok(seq)))
            }
        }
    }

    /// The room's people on the other nodes.
    pub fn set_remote(&mut self, remote: Presence, now: Now) {
        self.now = now;
        if remote != self.remote {
            let before = self.status();
            self.remote = remote;
            if self.status().others_see_a_change(&before) {
                self.broadcast();
            }
        }
    }

    /// Validates an action against this copy of the game and asks for it to be appended.
    fn append(&mut self, input: Input, record: StoredAction) -> Step {
        let mut next = self.log.game.clone();
        if let Err(error) = next.apply_entry(record.role, record.action) {
            return self.refuse(input, |seq| (Reply::refused(Some(seq), &error), Memo::Refused));
        }
        let op = WriteOp::Append {
            game: self.log.game_number,
            number: self.log.game.actions().len(),
            record,
            finished: next.outcome(),
        };
        Step::Write(Box::new(Write { op, then: Then::Append { input, record, next } }))
    }

    fn rematch(&mut self, input: Input, offer: Offer) -> Step {
        let Offer { seat, seq, .. } = offer;
        if !self.log.game.is_over() || !self.both_seated() {
            let message = "a rematch is offered once the game is over, by one of its two players";
            return self
                .refuse(input, |seq| (Reply::error(Some(seq), code::NO_REMATCH, message), Memo::Refused));
        }
        if self.log.series.winner().is_some() {
            let message = "the series is over: create a new room for another one";
            return self
                .refuse(input, |seq| (Reply::error(Some(seq), code::NO_REMATCH, message), Memo::Refused));
        }
        if self.log.rematch[seat.index()] && !self.log.rematch[seat.other().index()] {
            // Offered already; the offer stands.
            self.broadcast();
            return Step::Done(self.finish_seat_reply(input, Reply::ok(seq), Memo::Refused));
        }
        let number = self.log.game_number + 1;
        let seed = match self.log.limits.deal_seed {
            Some(base) => deal(base, number),
            None => Seed(self.rng.random()),
        };
        let setup = Setup { seed, rules: self.log.rules };
        let fugitive_seat = self.log.fugitive_seat.other();
        let op = WriteOp::Rematch { seat, game: self.log.game_number, setup, fugitive_seat };
        Step::Write(Box::new(Write {
            op,
            then: Then::Rematch { offer, fugitive_seat, next: Game::new(setup) },
        }))
    }

    fn new_game(&mut self, fugitive_seat: Seat, next: Game, notepad: Option<Notepad>) {
        self.log.game = next;
        self.log.game_number += 1;
        self.log.fugitive_seat = fugitive_seat;
        self.log.version += 1;
        self.log.notepad = Some((self.log.version, notepad));
        self.log.rematch = [false; 2];
        self.log.clock = None;
        self.restart_clock(Some(self.now.wall_ms));
        self.broadcast();
        // Each player's words are now under his new role.
        self.send_chat_to_readers(true, None);
    }

    fn role_of(&self, seat: Seat) -> Role {
        if seat == self.log.fugitive_seat { Role::Fugitive } else { Role::Marshal }
    }

    fn seat_of(&self, role: Role) -> Seat {
        if role == Role::Fugitive { self.log.fugitive_seat } else { self.log.fugitive_seat.other() }
    }

    fn viewer_of(&self, seat: Option<Seat>) -> Viewer {
        seat.map_or(Viewer::Spectator, |seat| Viewer::from(self.role_of(seat)))
    }
}

fn unavailable(seq: u64) -> Reply {
    Reply::error(Some(seq), code::UNAVAILABLE, "the server could not store this; try again with the same seq")
}

/// The commit queue is full: the server is busy. Retries spread over a quarter to half a second.
fn overloaded(seq: u64, rng: &mut StdRng) -> Reply {
    let retry_after_ms = 250 + rng.random_range(0..250);
    let message = "the server is busy; nothing changed, try again shortly with the same seq";
    Reply::retry_after(seq, code::UNAVAILABLE, message, retry_after_ms)
}
