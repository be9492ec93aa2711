//! Pending decisions (E3): what an event asks a player to choose, the answers, and which
//! answers are legal now.

use serde::{Deserialize, Serialize};

use crate::card::Card;
use crate::deck::Deck;

/// What an event waits for. Public: every view shows it in its [`Phase`](crate::Phase).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Decision {
    /// F4: the Marshal puts a card of her hand at the bottom of its deck ([`Choice::Card`]).
    BadIntel,
    /// F5: the Fugitive may add a sprint card under a face-down hideout ([`Choice::Sprint`] or
    /// [`Choice::Decline`]).
    SmokeScreen,
    /// M2: the Marshal picks a face-down hideout whose sprint cards are revealed
    /// ([`Choice::Hideout`]).
    Informant,
    /// M3: the Marshal names a range ([`Choice::Range`]).
    Stakeout,
    /// M4: the Marshal names one extra number ([`Choice::Number`]).
    Dragnet,
    /// N5: the drawer picks a deck to look at ([`Choice::Deck`]).
    TownGossip,
    /// N5: having seen the top of `deck`, the drawer keeps it there or moves it to the bottom
    /// ([`Choice::Move`]).
    TownGossipMove {
        /// The deck looked at.
        deck: Deck,
    },
    /// N6: the drawer may put a card of their hand at the bottom of its deck ([`Choice::Card`]
    /// or [`Choice::Decline`]).
    ChangeOfPlans,
    /// R11a: after a pass, with `pass_bonus_draw`, the Fugitive may draw a bonus card from the
    /// lowest-numbered non-empty deck ([`Choice::Deck`] or [`Choice::Decline`]). No event card
    /// asks this one: the phase's `card` is `None`.
    PassBonus,
}

/// An answer to a [`Decision`], sent as `{"type":"choose","choice":{"kind":…}}`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum Choice {
    /// A card of the chooser's hand.
    Card {
        /// The card.
        card: Card,
    },
    /// A card of the Fugitive's hand under the face-down hideout at `position`.
    Sprint {
        /// The card.
        card: Card,
        /// The trail position of the hideout.
        position: usize,
    },
    /// The face-down hideout at `position`.
    Hideout {
        /// Its trail position.
        position: usize,
    },
    /// The range of a deck's cards: 4–14, 15–28 or 29–41.
    Range {
        /// The deck whose range.
        deck: Deck,
    },
    /// One number to guess.
    Number {
        /// The number.
        number: Card,
    },
    /// A deck (N5), or the pass bonus's deck (R11a).
    Deck {
        /// The deck.
        deck: Deck,
    },
    /// Move the card looked at to the bottom of its deck, or keep it on top.
    Move {
        /// Whether to move it.
        bottom: bool,
    },
    /// Use the option not to act (F5, N6, the pass bonus of R11a).
    Decline,
}
