//! Where the game stands ([`Phase`]: whose turn it is and what they must do now) and how it
//! ended ([`Outcome`], [`Reason`]).

use serde::{Deserialize, Serialize};

use crate::events::{Decision, EventCard};
use crate::role::Role;

/// Where the game stands: whose turn it is and what they must do now.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(tag = "phase", rename_all = "snake_case")]
pub enum Phase {
    /// The Fugitive's first turn: 1 or 2 hideouts, no draw (R6).
    Opening {
        /// Hideouts placed so far this turn.
        placed: u8,
    },
    /// `role` must draw `left` more cards (R7, R8).
    Draw {
        /// Who draws.
        role: Role,
        /// Draws still due this turn.
        left: u8,
    },
    /// The Fugitive has drawn: place one hideout or pass (R7).
    PlaceOrPass,
    /// The Marshal has drawn: one guess (R8, R12).
    Guess,
    /// The Marshal guesses one number at a time until she misses or finds all (R16).
    Manhunt,
    /// An event, or the pass bonus (R11a), waits for `role`'s choice before anything else
    /// happens (E3).
    Pending {
        /// Who must choose.
        role: Role,
        /// The event that asks; `None` for the pass bonus (R11a).
        card: Option<EventCard>,
        /// What to choose.
        decision: Decision,
    },
    /// The game has ended (R14–R18).
    Over,
}

impl Phase {
    /// Whose move it is, if the game runs. Either player may resign at any time.
    pub const fn to_move(self) -> Option<Role> {
        match self {
            Phase::Opening { .. } | Phase::PlaceOrPass => Some(Role::Fugitive),
            Phase::Draw { role, .. } | Phase::Pending { role, .. } => Some(role),
            Phase::Guess | Phase::Manhunt => Some(Role::Marshal),
            Phase::Over => None,
        }
    }
}

/// Why the game ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Reason {
    /// The Fugitive played 42 with a revealed hideout of 30 or more, or nothing left to find (R15).
    Escape,
    /// The Marshal missed in the Manhunt (R16).
    ManhuntSurvived,
    /// The Marshal found the last face-down hideout (R14).
    AllHideoutsFound,
    /// The Marshal found every hideout in the Manhunt (R16).
    ManhuntSuccess,
    /// The loser resigned (R17).
    Resignation,
    /// The loser's turn clock ran out (R17).
    TimeOut,
}

/// The winner and why.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Outcome {
    /// Who won.
    pub winner: Role,
    /// Why.
    pub reason: Reason,
}
