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

use fugitive_core::{Game, Role, Viewer};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use uuid::Uuid;

use crate::db::DbError;
use crate::model::seat::{Presence, Seat};
use crate::model::table::{ChatBucket, TableRequest};
use crate::protocol::frames::Sent;
use crate::protocol::{Notepad, Reply, code};
pub use command::{
    Bot, Claim, ClaimError, Claimed, Effect, Input, Join, JoinError, JoinIo, Kick, Request, SeatInput,
    SeatRequest, Step, Stored, Summary, Table, Think, TimeOut, Write, WriteOp,
};
pub use log::Logged;
use publish::Member;
pub use publish::Outbox;
use seats::SeqMemory;

mod clock;
mod command;
mod computer;
mod inputs;
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
    /// The game the last action replaced: the next action is checked on a copy made into it,
    /// which reuses its allocations (issue 28).
    spare: Option<Game>,
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
            spare: None,
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
    pub fn request(&mut self, socket: u64, seq: u64, request: SeatRequest, now: Now) -> Step<Request> {
        match self.sockets.get(&socket).and_then(|m| m.seat) {
            Some(seat) => self.input(Request(SeatInput { seat, seq, request, checked: false }), now),
            None => Step::Done(Reply::error(Some(seq), code::SPECTATOR, "a spectator can only watch")),
        }
    }

    /// A seated socket's request about the table.
    pub fn table(&mut self, socket: u64, seq: u64, request: TableRequest, now: Now) -> Step<Table> {
        match self.sockets.get(&socket).and_then(|m| m.seat) {
            Some(seat) => self.input(Table { seat, seq, request }, now),
            None => {
                Step::Done(Reply::error(Some(seq), code::SPECTATOR, "a spectator can only watch and read"))
            }
        }
    }

    /// Carries out an input as far as it goes without I/O (`inputs.rs`).
    pub fn input<I: Input>(&mut self, input: I, now: Now) -> Step<I> {
        self.now = now;
        // A stale room is read back first (but for the inputs that do not read the log).
        if self.log.stale && I::READS_THE_LOG {
            return Step::Sync(input);
        }
        input.run(self)
    }

    /// The input could not be carried out because the database could not be read: it is
    /// answered `unavailable` (nothing changed), the clock tries again in a second, the
    /// computer asks again in a second, a join goes on without its name.
    pub fn give_up<I: Input>(&mut self, input: I, now: Now) -> I::Answer {
        self.now = now;
        input.give_up(self)
    }

    /// A write's result (and, for one that changes the game, the next game's notepad).
    pub fn written<I: Input>(
        &mut self,
        write: Write<I>,
        result: Result<Stored, DbError>,
        notepad: Option<Notepad>,
        now: Now,
    ) -> Step<I> {
        self.now = now;
        if matches!(result, Err(DbError::Conflict)) {
            // Another node wrote first: read the log, then decide again.
            self.log.stale = true;
            return Step::Sync(write.input);
        }
        I::written(write, result, notepad, self)
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

pub(super) fn unavailable(seq: u64) -> Reply {
    Reply::error(Some(seq), code::UNAVAILABLE, "the server could not store this; try again with the same seq")
}

/// The commit queue is full: the server is busy. Retries spread over a quarter to half a second.
pub(super) fn overloaded(seq: u64, rng: &mut StdRng) -> Reply {
    let retry_after_ms = 250 + rng.random_range(0..250);
    let message = "the server is busy; nothing changed, try again shortly with the same seq";
    Reply::retry_after(seq, code::UNAVAILABLE, message, retry_after_ms)
}
