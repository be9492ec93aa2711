//! Hideout cards (R1) and sets of them.

use std::fmt;

use serde::{Deserialize, Serialize, Serializer};

/// One of the 43 hideout cards, numbered 0–42 (R1).
///
/// Serialized as its number. Deserializing a number above 42 fails.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(into = "u8", try_from = "u8")]
pub struct Card(u8);

impl Card {
    /// The face-up card that starts the trail.
    pub const START: Card = Card(0);
    /// The Fugitive's escape card, always placed face up (R11).
    pub const ESCAPE: Card = Card(42);
    /// The highest card number.
    pub const MAX: u8 = 42;

    /// The card with this number, if it is 0–42.
    pub const fn new(number: u8) -> Option<Card> {
        if number <= Card::MAX { Some(Card(number)) } else { None }
    }

    /// The card's number.
    pub const fn number(self) -> u8 {
        self.0
    }

    /// Sprint value when played under a hideout: even +2, odd +1 (R1).
    pub const fn sprint_value(self) -> u8 {
        if self.0 % 2 == 0 { 2 } else { 1 }
    }

    /// All 43 cards, 0 to 42.
    pub fn all() -> impl Iterator<Item = Card> {
        (0..=Card::MAX).map(Card)
    }
}

impl From<Card> for u8 {
    fn from(card: Card) -> u8 {
        card.0
    }
}

impl TryFrom<u8> for Card {
    type Error = String;

    fn try_from(number: u8) -> Result<Card, String> {
        Card::new(number).ok_or_else(|| format!("{number} is not a card: cards are 0 to 42 (R1)"))
    }
}

impl fmt::Display for Card {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

/// A set of cards, as a 43-bit mask: a hand, the sprint cards under a hideout, the numbers of a
/// guess. Iterates in ascending order.
///
/// Serialized as a sorted array of numbers. Deserializing rejects numbers above 42 and repeats.
#[derive(Clone, Copy, Default, PartialEq, Eq, Hash, Deserialize)]
#[serde(try_from = "Vec<u8>")]
pub struct Cards(u64);

impl Serialize for Cards {
    /// Written straight from the mask, without a `Vec` per set: a view holds dozens of sets,
    /// and those allocations were about 5% of the work of serializing one.
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_seq(self.iter())
    }
}

impl Cards {
    /// No cards.
    pub const EMPTY: Cards = Cards(0);

    /// The set of all cards from `low` to `high`, inclusive (empty when `low` is above
    /// `high`; `high` past 42 counts as 42).
    ///
    /// One mask, not a loop: the trail count asks for a deck's cards at each step of its
    /// programme (`Deck::of`), and building the set card by card was a quarter of the server's
    /// CPU per action (issue 28's profile).
    pub const fn range(low: u8, high: u8) -> Cards {
        let high = if high > Card::MAX { Card::MAX } else { high };
        if low > high {
            return Cards::EMPTY;
        }
        // Bits `low..=high`: every bit up to `high`, less those below `low` (high + 1 <= 43).
        Cards(((1u64 << (high + 1)) - 1) & !((1u64 << low) - 1))
    }

    /// Whether `card` is in the set.
    pub const fn contains(self, card: Card) -> bool {
        self.0 & (1 << card.0) != 0
    }

    /// Adds `card`; returns whether it was new.
    pub fn insert(&mut self, card: Card) -> bool {
        let new = !self.contains(card);
        self.0 |= 1 << card.0;
        new
    }

    /// Removes `card`; returns whether it was there.
    pub fn remove(&mut self, card: Card) -> bool {
        let had = self.contains(card);
        self.0 &= !(1 << card.0);
        had
    }

    /// This set with `card` added.
    #[must_use]
    pub const fn with(self, card: Card) -> Cards {
        Cards(self.0 | 1 << card.0)
    }

    /// This set with `card` removed.
    #[must_use]
    pub const fn without(self, card: Card) -> Cards {
        Cards(self.0 & !(1 << card.0))
    }

    /// How many cards are in the set.
    pub const fn len(self) -> usize {
        self.0.count_ones() as usize
    }

    /// Whether the set is empty.
    pub const fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// Whether every card of `self` is in `other`.
    pub const fn is_subset(self, other: Cards) -> bool {
        self.0 & !other.0 == 0
    }

    /// The cards in both sets.
    #[must_use]
    pub const fn intersection(self, other: Cards) -> Cards {
        Cards(self.0 & other.0)
    }

    /// The cards in either set.
    #[must_use]
    pub const fn union(self, other: Cards) -> Cards {
        Cards(self.0 | other.0)
    }

    /// The cards of `self` that are not in `other`.
    #[must_use]
    pub const fn difference(self, other: Cards) -> Cards {
        Cards(self.0 & !other.0)
    }

    /// The total sprint value of the set (R1).
    pub fn sprint_value(self) -> u8 {
        self.iter().map(Card::sprint_value).sum()
    }

    /// The lowest card, if any.
    pub fn first(self) -> Option<Card> {
        (self.0 != 0).then(|| Card(self.0.trailing_zeros() as u8))
    }

    /// The highest card, if any.
    pub fn last(self) -> Option<Card> {
        (self.0 != 0).then(|| Card(63 - self.0.leading_zeros() as u8))
    }

    /// The cards in ascending order.
    pub fn iter(self) -> CardsIter {
        CardsIter(self.0)
    }

    /// The raw mask: bit `n` is card `n`.
    pub const fn bits(self) -> u64 {
        self.0
    }

    /// Every subset of this set (2^len of them), the empty set first.
    pub fn subsets(self) -> impl Iterator<Item = Cards> {
        // Enumerates submasks of `self.0` with the standard `(sub - 1) & mask` walk.
        let mask = self.0;
        let mut next = Some(0u64);
        std::iter::from_fn(move || {
            let sub = next?;
            next = if sub == mask { None } else { Some((sub | !mask).wrapping_add(1) & mask) };
            Some(Cards(sub))
        })
    }
}

/// Iterator over a [`Cards`] set in ascending order.
#[derive(Clone, Debug)]
pub struct CardsIter(u64);

impl Iterator for CardsIter {
    type Item = Card;

    fn next(&mut self) -> Option<Card> {
        if self.0 == 0 {
            return None;
        }
        let n = self.0.trailing_zeros() as u8;
        self.0 &= self.0 - 1;
        Some(Card(n))
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = self.0.count_ones() as usize;
        (n, Some(n))
    }
}

impl ExactSizeIterator for CardsIter {}

impl IntoIterator for Cards {
    type Item = Card;
    type IntoIter = CardsIter;

    fn into_iter(self) -> CardsIter {
        self.iter()
    }
}

impl FromIterator<Card> for Cards {
    fn from_iter<I: IntoIterator<Item = Card>>(iter: I) -> Cards {
        let mut cards = Cards::EMPTY;
        for card in iter {
            cards.insert(card);
        }
        cards
    }
}

impl From<Card> for Cards {
    fn from(card: Card) -> Cards {
        Cards::EMPTY.with(card)
    }
}

impl From<Cards> for Vec<Card> {
    fn from(cards: Cards) -> Vec<Card> {
        cards.iter().collect()
    }
}

impl TryFrom<Vec<u8>> for Cards {
    type Error = String;

    fn try_from(numbers: Vec<u8>) -> Result<Cards, String> {
        Cards::try_from(numbers.as_slice())
    }
}

impl TryFrom<&[u8]> for Cards {
    type Error = String;

    /// Parses a list of distinct card numbers.
    fn try_from(numbers: &[u8]) -> Result<Cards, String> {
        let mut cards = Cards::EMPTY;
        for &n in numbers {
            if !cards.insert(Card::try_from(n)?) {
                return Err(format!("{n} appears twice: the numbers must be distinct"));
            }
        }
        Ok(cards)
    }
}

impl fmt::Debug for Cards {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_set().entries(self.iter().map(Card::number)).finish()
    }
}

impl fmt::Display for Cards {
    /// Numbers joined by commas, e.g. `4, 9, 12`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, card) in self.iter().enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            write!(f, "{card}")?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn c(n: u8) -> Card {
        Card::new(n).unwrap()
    }

    #[test]
    fn a_range_is_every_card_from_low_to_high() {
        for low in 0..=45u8 {
            for high in 0..=45u8 {
                let one_by_one: Cards = (low..=high.min(Card::MAX)).filter_map(Card::new).collect();
                assert_eq!(Cards::range(low, high), one_by_one, "{low}..={high}");
            }
        }
    }

    #[test]
    fn r1_sprint_values() {
        // R1: even numbers +2, odd numbers +1, 42 is +2.
        assert_eq!(c(1).sprint_value(), 1);
        assert_eq!(c(2).sprint_value(), 2);
        assert_eq!(c(41).sprint_value(), 1);
        assert_eq!(c(42).sprint_value(), 2);
        assert_eq!(Card::all().count(), 43);
        assert_eq!(Card::new(43), None);
    }

    #[test]
    fn cards_set_operations() {
        let set: Cards = [c(3), c(9), c(40)].into_iter().collect();
        assert_eq!(set.len(), 3);
        assert_eq!(set.sprint_value(), 1 + 1 + 2);
        assert_eq!(set.first(), Some(c(3)));
        assert_eq!(set.last(), Some(c(40)));
        assert_eq!(set.iter().map(Card::number).collect::<Vec<_>>(), vec![3, 9, 40]);
        assert_eq!(set.subsets().count(), 8);
        assert!(set.subsets().all(|s| s.is_subset(set)));
        assert_eq!(Cards::EMPTY.subsets().count(), 1);
        assert_eq!(Cards::range(4, 14).len(), 11);
    }

    #[test]
    fn cards_serde_round_trip_and_rejects_repeats() {
        let set: Cards = [c(12), c(5)].into_iter().collect();
        let json = serde_json::to_string(&set).unwrap();
        assert_eq!(json, "[5,12]");
        assert_eq!(serde_json::from_str::<Cards>(&json).unwrap(), set);
        assert!(serde_json::from_str::<Cards>("[5,5]").is_err());
        assert!(serde_json::from_str::<Cards>("[43]").is_err());
    }
}
