//! The trail: card 0, then the hideouts in the order they were placed (R9–R11).

use serde::{Deserialize, Serialize};

use crate::card::{Card, Cards};

/// One card of the trail with the sprint cards under it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Hideout {
    /// The hideout card.
    pub card: Card,
    /// The sprint cards placed face down under it (R10).
    pub sprints: Cards,
    /// Whether it has been turned face up (card 0 and 42 always are).
    pub face_up: bool,
    /// The sprint cards shown to everyone while it lies face down (M2 Informant), as they were
    /// then (a later F5 Smoke Screen card is not among them); `None` if never shown.
    pub shown: Option<Cards>,
}

impl Hideout {
    /// Whether this is a face-down hideout the Marshal still has to find (R14).
    pub const fn is_hidden(&self) -> bool {
        !self.face_up
    }
}

/// The row of cards from 0 towards 42. Position 0 is card 0; position `k` is the `k`-th hideout.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Trail(Vec<Hideout>);

impl Default for Trail {
    fn default() -> Trail {
        Trail::new()
    }
}

impl Trail {
    /// A trail holding only card 0, face up (R2).
    pub fn new() -> Trail {
        Trail(vec![Hideout { card: Card::START, sprints: Cards::EMPTY, face_up: true, shown: None }])
    }

    /// The card at the end of the trail, `p` in R9.
    pub fn last_card(&self) -> Card {
        self.0.last().map_or(Card::START, |h| h.card)
    }

    /// Every position, card 0 first.
    pub fn positions(&self) -> &[Hideout] {
        &self.0
    }

    /// The number of hideouts placed (card 0 not counted).
    pub fn hideout_count(&self) -> usize {
        self.0.len() - 1
    }

    /// The face-down hideouts with their positions.
    pub fn hidden(&self) -> impl Iterator<Item = (usize, &Hideout)> {
        self.0.iter().enumerate().filter(|(_, h)| h.is_hidden())
    }

    /// How many face-down hideouts remain.
    pub fn hidden_count(&self) -> usize {
        self.hidden().count()
    }

    /// The position of a face-down hideout with this number, if any.
    pub fn hidden_position(&self, card: Card) -> Option<usize> {
        self.hidden().find(|(_, h)| h.card == card).map(|(i, _)| i)
    }

    /// Every number face up anywhere on the trail (R12): the face-up hideouts (0 and 42
    /// included), the sprint cards revealed with them (not 42's, hidden until the end, R11) and
    /// those M2 Informant showed. None of them can be a face-down hideout.
    pub fn face_up(&self) -> Cards {
        self.0.iter().fold(Cards::EMPTY, |all, h| match (h.face_up, h.shown) {
            (true, _) if h.card == Card::ESCAPE => all.with(h.card),
            (true, _) => all.union(h.sprints).with(h.card),
            (false, shown) => all.union(shown.unwrap_or_default()),
        })
    }

    /// The highest face-up hideout number, ignoring card 0 and 42 (`H` of R15).
    pub fn highest_revealed(&self) -> u8 {
        self.0
            .iter()
            .filter(|h| h.face_up && h.card != Card::ESCAPE)
            .map(|h| h.card.number())
            .max()
            .unwrap_or(0)
    }

    /// Adds a hideout at the end; returns its position. 42 goes face up (R11).
    pub(crate) fn place(&mut self, card: Card, sprints: Cards) -> usize {
        self.0.push(Hideout { card, sprints, face_up: card == Card::ESCAPE, shown: None });
        self.0.len() - 1
    }

    /// Puts one more sprint card under the hideout at `position` (F5 Smoke Screen).
    pub(crate) fn add_sprint(&mut self, position: usize, card: Card) {
        self.0[position].sprints.insert(card);
    }

    /// Shows the sprint cards under the hideout at `position` (M2 Informant); returns them.
    pub(crate) fn show_sprints(&mut self, position: usize) -> Cards {
        let hideout = &mut self.0[position];
        hideout.shown = Some(hideout.sprints);
        hideout.sprints
    }

    /// Turns the hideout at `position` face up with its sprint cards.
    pub(crate) fn reveal(&mut self, position: usize) -> Hideout {
        self.0[position].face_up = true;
        self.0[position]
    }
}
