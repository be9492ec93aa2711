//! What goes into the room machine and what comes out of it: the inputs, each input's next
//! step and answer, the writes it asks for, the effects it queues.

use std::sync::Arc;
use std::time::Duration;

use fugitive_ai::Level;
use fugitive_core::{Action, ByRole, Game, Role, RuleOptions, Setup, View};

use super::publish::Outbox;
use crate::db::{Rematched, SeatClaim, StoredAction};
use crate::model::push::Notice;
use crate::model::seat::{Presence, Seat};
use crate::model::table::{ChatLine, TableRequest};
use crate::protocol::{Protocol, Reply};

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
    /// Start the computer opponent thinking; its answer comes back as [`Input::Bot`] with this
    /// version.
    Think { version: u64, think: Think },
    /// This node's presence in the room changed: tell the other nodes.
    Publish(Presence),
    /// Tell the profile that holds `seat` by Web Push (it has no socket open in the room, or
    /// the game is by correspondence).
    Push { seat: Seat, notice: Notice },
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
    pub(super) then: Then,
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

/// A seat's rematch offer, as its input said it.
#[derive(Clone, Copy, Debug)]
pub(super) struct Offer {
    pub(super) seat: Seat,
    pub(super) seq: u64,
    pub(super) bot: bool,
    pub(super) checked: bool,
}

/// What to do once a write is stored: each write keeps the input it came from, in the shape
/// that write can come from (a rematch only from a seat, the chat only from the table).
#[derive(Debug)]
pub(super) enum Then {
    Append { input: Input, record: StoredAction, next: Game },
    Rematch { offer: Offer, fugitive_seat: Seat, next: Game },
    Claim { input: Input, token: String, hash: String },
    Name { input: Input, seat: Seat, name: Option<String> },
    Chat { seat: Seat, seq: u64, request: TableRequest, line: ChatLine },
    ChatPublic { seat: Seat, seq: u64, request: TableRequest, allow: bool },
}

impl Then {
    /// The input again, to carry out once the room is read back (the write conflicted).
    pub(super) fn into_input(self) -> Input {
        match self {
            Then::Append { input, .. } | Then::Claim { input, .. } | Then::Name { input, .. } => input,
            Then::Rematch { offer: Offer { seat, seq, bot, checked }, .. } => {
                Input::Seat { seat, seq, request: SeatRequest::Rematch, bot, checked }
            }
            Then::Chat { seat, seq, request, .. } | Then::ChatPublic { seat, seq, request, .. } => {
                Input::Table { seat, seq, request }
            }
        }
    }
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
