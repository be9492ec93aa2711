//! What goes into the room machine and what comes out of it: the inputs, each input's next
//! step and answer, the writes it asks for, the effects it queues. How each input is carried
//! out is in `inputs.rs`.

use std::sync::Arc;
use std::time::Duration;

use fugitive_ai::Level;
use fugitive_core::{Action, ByRole, Game, Role, RuleOptions, Setup, View};

use super::Machine;
use super::publish::Outbox;
use crate::db::{DbError, Rematched, SeatClaim, StoredAction};
use crate::model::push::Notice;
use crate::model::seat::{Presence, Seat};
use crate::model::table::{ChatLine, TableRequest};
use crate::protocol::{Notepad, Protocol};

/// A joining socket's mailbox and protocol.
#[derive(Clone, Debug)]
pub struct JoinIo {
    /// Its outbound mailbox.
    pub queue: Arc<dyn Outbox>,
    /// The protocol it speaks.
    pub protocol: Protocol,
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
    /// Start the computer opponent thinking; its answer comes back as [`Bot::Thought`] with
    /// this version.
    Think { version: u64, think: Think },
    /// This node's presence in the room changed: tell the other nodes.
    Publish(Presence),
    /// Tell the profile that holds `seat` by Web Push (it has no socket open in the room, or
    /// the game is by correspondence).
    Push { seat: Seat, notice: Notice },
}

/// An input that may have to write to the database or read the room back first, with the
/// answer its caller waits for: each input has its own ([`Step::Done`]), so the shell never
/// meets another input's answer.
pub trait Input: Sized + std::fmt::Debug {
    /// What the input comes to.
    type Answer: std::fmt::Debug;
    /// What is left to do once one of its writes is stored.
    type Then: std::fmt::Debug;
    /// Whether a stale room is read back before it is carried out (the table's requests and
    /// joins do not depend on the game).
    const READS_THE_LOG: bool = true;
    /// Carries it out as far as it goes without I/O.
    fn run(self, machine: &mut Machine) -> Step<Self>;
    /// Goes on once a write it asked for is stored (not a conflict: that reads back).
    fn written(
        write: Write<Self>,
        result: Result<Stored, DbError>,
        notepad: Option<Notepad>,
        machine: &mut Machine,
    ) -> Step<Self>;
    /// Answers it when the database could not be read.
    fn give_up(self, machine: &mut Machine) -> Self::Answer;
    /// The game as it will be once this write is stored, when it changes the game.
    fn next_game(_then: &Self::Then) -> Option<&Game> {
        None
    }
}

/// A socket joins (as the token's seat, or as a spectator); `checked` once a token this copy
/// did not know was looked for in the database. Answers the joined socket's id.
#[derive(Clone, Debug)]
pub struct Join {
    pub token: Option<String>,
    pub name: Option<Option<String>>,
    pub io: JoinIo,
    pub checked: bool,
}

/// A seat's request, as the room carries it out; `checked` once a refusal was checked against
/// the log.
#[derive(Clone, Copy, Debug)]
pub struct SeatInput {
    pub seat: Seat,
    pub seq: u64,
    pub request: SeatRequest,
    pub checked: bool,
}

/// A seated socket's request. Answers its reply.
#[derive(Clone, Copy, Debug)]
pub struct Request(pub SeatInput);

/// A seated socket's request about the table. Answers its reply.
#[derive(Clone, Debug)]
pub struct Table {
    pub seat: Seat,
    pub seq: u64,
    pub request: TableRequest,
}

/// An invitation claims the guest seat.
#[derive(Clone, Debug)]
pub struct Claim {
    pub invite: String,
}

/// The turn clock's alarm rang. Nobody waits for its answer.
#[derive(Clone, Copy, Debug)]
pub struct TimeOut;

/// The computer opponent's answer, for the version it thought about; then its request as the
/// guest seat's. Nobody waits for its answer.
#[derive(Clone, Copy, Debug)]
pub enum Bot {
    Thought { version: u64, request: Option<SeatRequest> },
    Seat(SeatInput),
}

/// The next step of an input.
#[derive(Debug)]
pub enum Step<I: Input> {
    /// Finished.
    Done(I::Answer),
    /// Carry out this write, then pass its result to [`Machine::written`].
    Write(Box<Write<I>>),
    /// Read the room back from the log ([`Machine::reload`]), then pass the input again to
    /// [`Machine::input`]; or, when the database cannot be read, to [`Machine::give_up`].
    Sync(I),
}

/// A write to carry out for an input.
#[derive(Debug)]
pub struct Write<I: Input> {
    /// What to write.
    pub op: WriteOp,
    /// The input it came from, to carry out again once the room is read back (the write
    /// conflicted).
    pub(super) input: I,
    pub(super) then: I::Then,
}

impl<I: Input> Write<I> {
    /// The game as it will be once this write is stored, when it changes the game: its notepad
    /// can be solved while the write runs.
    pub fn next_game(&self) -> Option<&Game> {
        I::next_game(&self.then)
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

/// An action to append: the record and the game as it will be.
#[derive(Debug)]
pub struct Appended {
    pub(super) record: StoredAction,
    pub(super) next: Game,
}

/// What is left of a seat's request once its write is stored.
#[derive(Debug)]
pub enum SeatThen {
    Append(Appended),
    Rematch { fugitive_seat: Seat, next: Game },
}

/// What is left of a table request once its write is stored.
#[derive(Debug)]
pub enum TableThen {
    Name(Option<String>),
    Chat(ChatLine),
    ChatPublic(bool),
}

/// What is left of a join once its name is stored.
#[derive(Debug)]
pub struct Named {
    pub(super) seat: Seat,
    pub(super) name: Option<String>,
}

/// What is left of a claim once it is stored: the token, and its hash.
#[derive(Debug)]
pub struct Claiming {
    pub(super) token: String,
    pub(super) hash: String,
}

/// Why a socket is closed by its room.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Kick {
    /// The WebSocket close code.
    pub code: u16,
    /// The close reason.
    pub reason: &'static str,
}

/// Why a `hello` could not join.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum JoinError {
    /// The token is not one of this room's.
    BadToken,
    /// The room has as many sockets as it may.
    Full,
}

/// Why an invitation could not claim the guest seat.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ClaimError {
    /// The seat is already taken.
    Taken,
    /// The invitation is not this room's.
    BadInvite,
    /// The room expired while the claim was on its way.
    Gone,
    /// The database failed.
    Unavailable,
}

/// A claimed seat: its role in the current game and its new token.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Claimed {
    /// The role the seat plays now.
    pub role: Role,
    /// The secret token (the server keeps only its hash).
    pub token: String,
}

/// The public facts of a room.
#[derive(Clone, Debug)]
pub struct Summary {
    /// Whether each role's seat is claimed.
    pub seats: ByRole<bool>,
    /// The current game's number.
    pub game: u64,
    /// Whether it is over.
    pub over: bool,
    /// The rule options.
    pub rules: RuleOptions,
    /// Seconds per turn, if the room has a clock.
    pub turn_clock_secs: Option<u64>,
    /// Who is to move in the current game (`None` once it is over).
    pub to_move: Option<Role>,
    /// How the current game ended, once it has.
    pub outcome: Option<fugitive_core::Outcome>,
    /// Whether it ended aborted (`model::rating::aborted`).
    pub aborted: bool,
    /// The players' names, by role.
    pub names: ByRole<Option<String>>,
}

/// A request from a seated socket.
#[derive(Clone, Copy, Debug)]
pub enum SeatRequest {
    /// A game action.
    Action(Action),
    /// Offer or accept a rematch.
    Rematch,
}
