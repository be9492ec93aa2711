//! What happened: the entries of the game's history, and what each viewer may see of them.

use serde::{Deserialize, Serialize};

use crate::card::{Card, Cards};
use crate::deck::Deck;
use crate::events::{DeckCard, EventCard, Icon, TrailEffect};
use crate::phase::Outcome;
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
    /// An event card was drawn and is shown to everyone (E2): from a deck, or from a pile
    /// (`deck` is `None`: Discovery, or after a Catchup placeholder).
    EventDrawn {
        /// Who drew it and resolves it.
        role: Role,
        /// The deck, if it came from one.
        deck: Option<Deck>,
        /// The card.
        card: EventCard,
    },
    /// A Catchup placeholder was drawn: `hidden` face-down hideouts pick the `pile`.
    CatchupDrawn {
        /// Who drew it.
        role: Role,
        /// From which deck.
        deck: Deck,
        /// Face-down hideouts on the trail.
        hidden: usize,
        /// The pile chosen.
        pile: Icon,
    },
    /// The event had nothing to act on (no face-down hideout, an empty hand, empty decks).
    NoEffect {
        /// The card.
        card: EventCard,
    },
    /// A due draw was lost to Detour (N2).
    DrawMissed {
        /// Who lost it.
        role: Role,
    },
    /// A trail event was laid under the space of the hideout at `position` (E4).
    TrailEventLaid {
        /// The trail position.
        position: usize,
        /// The card.
        card: EventCard,
        /// What it does there.
        effect: TrailEffect,
    },
    /// A card went from `role`'s hand to the bottom of its deck (F4, N6): the deck is public,
    /// the card only `role`'s.
    ReturnedToDeck {
        /// Whose hand.
        role: Role,
        /// Which deck.
        deck: Deck,
        /// The card, for `role`.
        card: Option<Card>,
    },
    /// The Fugitive put one more sprint card under the hideout at `position` (F5): the count
    /// is public, the card his.
    SprintAdded {
        /// The trail position.
        position: usize,
        /// The card, for the Fugitive.
        card: Option<Card>,
    },
    /// The sprint cards under a face-down hideout were shown to everyone (M2).
    SprintsShown {
        /// The trail position.
        position: usize,
        /// The sprint cards.
        sprints: Cards,
    },
    /// `count` face-down hideouts lie in the range of `deck` (M3).
    StakeoutCounted {
        /// The range's deck.
        deck: Deck,
        /// How many.
        count: usize,
    },
    /// The most recent face-down hideout, at `position`, came from `low`–`high` (M6).
    Eyewitness {
        /// Its trail position.
        position: usize,
        /// The group's lowest card.
        low: u8,
        /// The group's highest card.
        high: u8,
    },
    /// `role` looked at the top card of `deck` (N5): the card is only theirs.
    Peeked {
        /// Who looked.
        role: Role,
        /// Which deck.
        deck: Deck,
        /// The card, for `role`.
        card: Option<DeckCard>,
    },
    /// After N5, the card looked at was moved to the bottom of `deck`, or kept on top.
    MovedToBottom {
        /// Which deck.
        deck: Deck,
        /// Whether it moved.
        moved: bool,
    },
    /// `role` chose not to act on `card` (F5, N6), or not to draw the pass bonus (R11a).
    Declined {
        /// Who declined.
        role: Role,
        /// The card; `None` for the pass bonus.
        card: Option<EventCard>,
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
            Event::ReturnedToDeck { role, deck, card } => {
                Event::ReturnedToDeck { role, deck, card: card.filter(|_| viewer.is(role)) }
            }
            Event::SprintAdded { position, card } => {
                Event::SprintAdded { position, card: card.filter(|_| viewer == Viewer::Fugitive) }
            }
            Event::Peeked { role, deck, card } => {
                Event::Peeked { role, deck, card: card.filter(|_| viewer.is(role)) }
            }
            other => other,
        }
    }
}
