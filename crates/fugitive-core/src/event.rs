//! What happened: the entries of the game's history, and what each viewer may see of them.

use serde::{Deserialize, Serialize};

use crate::card::{Card, Cards};
use crate::deck::Deck;
use crate::game::Outcome;
use crate::role::{Role, Viewer};

/// One entry of the history. [`Game::apply`](crate::Game::apply) returns them with every field
/// filled in; [`Event::seen_by`] blanks what a viewer may not know (R19–R21), so the same type
/// serves the server and each client.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Event {
    /// A player drew from a deck (R8a): the deck is public, the card only the drawer's.
    Drew {
        /// Who drew.
        role: Role,
        /// From which deck.
        deck: Deck,
        /// The card, for the drawer.
        card: Option<Card>,
    },
    /// A due draw was skipped because every deck is empty (R7, R8).
    DrawSkipped {
        /// Who would have drawn.
        role: Role,
    },
    /// The Fugitive placed a hideout at `position` with `sprint_count` sprint cards (R9–R11).
    Placed {
        /// Trail position, 1 for the first hideout.
        position: usize,
        /// The hideout card, for the Fugitive (and everyone when it is 42).
        hideout: Option<Card>,
        /// How many sprint cards (public at once, R10).
        sprint_count: usize,
        /// The sprint cards, for the Fugitive.
        sprints: Option<Cards>,
    },
    /// The Fugitive passed (R11a).
    Passed,
    /// The Fugitive ended his first turn after one hideout (R6).
    TurnEnded,
    /// The Marshal guessed (R12, R13, R16). Only "right" or "wrong" is public, never which
    /// number was wrong.
    Guessed {
        /// The numbers named.
        numbers: Cards,
        /// Whether every number was a face-down hideout.
        right: bool,
    },
    /// A hideout was turned face up with its sprint cards (R12, R16).
    Revealed {
        /// Its trail position.
        position: usize,
        /// The hideout card.
        hideout: Card,
        /// Its sprint cards.
        sprints: Cards,
    },
    /// The Fugitive played 42 with `highest_revealed` ≤ 29: the Manhunt begins (R15, R16).
    ManhuntStarted {
        /// `H` of R15.
        highest_revealed: u8,
    },
    /// A player resigned (R17).
    Resigned {
        /// Who resigned.
        role: Role,
    },
    /// A player's turn clock ran out (R17).
    TimedOut {
        /// Whose clock.
        role: Role,
    },
    /// The game ended (R14–R17).
    GameOver {
        /// Winner and reason.
        outcome: Outcome,
    },
}

impl Event {
    /// This entry as `viewer` may see it while the game runs (R19–R21). After the game ends
    /// every viewer sees every entry whole (R18); [`Game::view`](crate::Game::view) handles that.
    #[must_use]
    pub fn seen_by(self, viewer: Viewer) -> Event {
        match self {
            Event::Drew { role, deck, card } => {
                Event::Drew { role, deck, card: card.filter(|_| viewer.is(role)) }
            }
            Event::Placed { position, hideout, sprint_count, sprints } => {
                let fugitive = viewer == Viewer::Fugitive;
                Event::Placed {
                    position,
                    hideout: hideout.filter(|&h| fugitive || h == Card::ESCAPE),
                    sprint_count,
                    sprints: sprints.filter(|_| fugitive),
                }
            }
            other => other,
        }
    }
}
