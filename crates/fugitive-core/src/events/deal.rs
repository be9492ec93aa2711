//! Where the event cards start (E2 and the variants of `EVENTS.md`): shuffled into the decks
//! after the deal, or in piles beside them.

use std::fmt;

use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde::de::{self, Deserializer};
use serde::{Deserialize, Serialize, Serializer};

use super::card::{EventCard, Icon};
use crate::card::Card;
use crate::deck::{Deal, DealError, Deck, Seed};
use crate::rules::EventVariant;

/// A card of a draw deck: a hideout card, an event card, or a Catchup placeholder. Serialized
/// as the hideout's number, the event's id (`"F1"`) or `"catchup"`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DeckCard {
    /// A hideout card (R1).
    Hideout(Card),
    /// An event card (E2).
    Event(EventCard),
    /// A Catchup placeholder: resolves the top event of the pile the trail picks.
    Placeholder,
}

impl DeckCard {
    /// The hideout card, if this is one.
    pub fn hideout(self) -> Option<Card> {
        match self {
            DeckCard::Hideout(card) => Some(card),
            _ => None,
        }
    }
}

impl Serialize for DeckCard {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            DeckCard::Hideout(card) => card.serialize(serializer),
            DeckCard::Event(event) => event.serialize(serializer),
            DeckCard::Placeholder => serializer.serialize_str("catchup"),
        }
    }
}

impl<'de> Deserialize<'de> for DeckCard {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<DeckCard, D::Error> {
        #[derive(Deserialize)]
        #[serde(untagged)]
        enum Repr {
            Number(u8),
            Name(String),
        }
        match Repr::deserialize(deserializer)? {
            Repr::Number(n) => Card::try_from(n).map(DeckCard::Hideout).map_err(de::Error::custom),
            Repr::Name(name) if name == "catchup" => Ok(DeckCard::Placeholder),
            Repr::Name(name) => EventCard::ALL
                .into_iter()
                .find(|card| card.id() == name)
                .map(DeckCard::Event)
                .ok_or_else(|| de::Error::custom(format!("no deck card {name:?}"))),
        }
    }
}

impl fmt::Display for DeckCard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DeckCard::Hideout(card) => write!(f, "{card}"),
            DeckCard::Event(event) => write!(f, "{event}"),
            DeckCard::Placeholder => f.write_str("a Catchup placeholder"),
        }
    }
}

/// The event cards of a game before its first action: those shuffled into each deck, and the
/// piles beside the decks. Hidden information like the deck order (R4, E5).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct EventDeal {
    /// For each deck, its events and placeholders with their index in the whole deck (top 0),
    /// by increasing index.
    pub in_decks: [Vec<(usize, DeckCard)>; 3],
    /// The piles, top first: Discovery's pile is the first; Catchup has one per icon, in
    /// [`Icon::ALL`] order (footprints, no icon, binoculars).
    pub piles: [Vec<EventCard>; 3],
}

impl EventDeal {
    /// The set-up of `variant` (`EVENTS.md`), shuffled by the game's seed on a stream of its
    /// own, so the hideout deal of a seed is the same with and without events.
    pub fn shuffled(variant: EventVariant, seed: &Seed, deal: &Deal) -> EventDeal {
        let mut rng = ChaCha8Rng::from_seed(seed.0);
        rng.set_stream(1);
        let mut shuffled = |cards: &mut dyn Iterator<Item = EventCard>| {
            let mut cards: Vec<EventCard> = cards.collect();
            cards.shuffle(&mut rng);
            cards
        };
        let two_each = |cards: Vec<EventCard>| -> [Vec<DeckCard>; 3] {
            std::array::from_fn(|d| cards[2 * d..2 * d + 2].iter().map(|&e| DeckCard::Event(e)).collect())
        };
        let (into_decks, piles) = match variant {
            EventVariant::Off => return EventDeal::default(),
            EventVariant::Random => (two_each(shuffled(&mut EventCard::ALL.into_iter())), Default::default()),
            EventVariant::HelpfulFugitive => {
                (two_each(shuffled(&mut EventCard::with_icon(Icon::Footprints))), Default::default())
            }
            EventVariant::HelpfulMarshal => {
                (two_each(shuffled(&mut EventCard::with_icon(Icon::Binoculars))), Default::default())
            }
            EventVariant::Discovery => {
                let pile = shuffled(&mut EventCard::ALL.into_iter());
                (Default::default(), [pile, Vec::new(), Vec::new()])
            }
            EventVariant::Catchup => {
                let piles = Icon::ALL.map(|icon| shuffled(&mut EventCard::with_icon(icon)));
                ([(); 3].map(|()| vec![DeckCard::Placeholder; 2]), piles)
            }
        };
        let in_decks = Deck::ALL.map(|deck| {
            let mut cards: Vec<DeckCard> =
                deal.decks[deck.index()].iter().map(|&c| DeckCard::Hideout(c)).collect();
            for &event in &into_decks[deck.index()] {
                let at = rng.random_range(0..=cards.len());
                cards.insert(at, event);
            }
            cards.into_iter().enumerate().filter(|(_, c)| c.hideout().is_none()).collect()
        });
        EventDeal { in_decks, piles }
    }

    /// The decks with the events shuffled in.
    ///
    /// # Errors
    /// [`DealError::Events`] when an index is out of order or past the end, an entry is a
    /// hideout card, or an event card is in two places.
    pub fn decks(&self, deal: &Deal) -> Result<[Vec<DeckCard>; 3], DealError> {
        let mut seen = Vec::new();
        let piled = self.piles.iter().flatten().map(|&e| DeckCard::Event(e));
        for card in self.in_decks.iter().flatten().map(|&(_, c)| c).chain(piled) {
            if card.hideout().is_some() || (card != DeckCard::Placeholder && seen.contains(&card)) {
                return Err(DealError::Events);
            }
            seen.push(card);
        }
        let mut decks: [Vec<DeckCard>; 3] = Default::default();
        for deck in Deck::ALL {
            let cards = &mut decks[deck.index()];
            cards.extend(deal.decks[deck.index()].iter().map(|&c| DeckCard::Hideout(c)));
            let mut last = None;
            for &(at, card) in &self.in_decks[deck.index()] {
                if at > cards.len() || last.is_some_and(|last| at <= last) {
                    return Err(DealError::Events);
                }
                cards.insert(at, card);
                last = Some(at);
            }
        }
        Ok(decks)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn variants_set_up_as_events_md_says() {
        let seed = Seed::from(3);
        let deal = Deal::shuffled(&seed);
        for variant in EventVariant::ALL {
            let events = EventDeal::shuffled(variant, &seed, &deal);
            let decks = events.decks(&deal).unwrap();
            for deck in Deck::ALL {
                let hideouts: Vec<Card> = decks[deck.index()].iter().filter_map(|c| c.hideout()).collect();
                assert_eq!(hideouts, deal.decks[deck.index()], "{variant:?}: the hideout order stays");
            }
            let extra = |d: usize| events.in_decks[d].len();
            let piles = events.piles.each_ref().map(Vec::len);
            match variant {
                EventVariant::Off | EventVariant::Discovery => {
                    assert_eq!([extra(0), extra(1), extra(2)], [0; 3])
                }
                _ => assert_eq!([extra(0), extra(1), extra(2)], [2; 3]),
            }
            match variant {
                EventVariant::Discovery => assert_eq!(piles, [18, 0, 0]),
                EventVariant::Catchup => assert_eq!(piles, [6, 6, 6]),
                _ => assert_eq!(piles, [0; 3]),
            }
        }
        let json = serde_json::to_string(&[DeckCard::Hideout(Card::START), DeckCard::Event(EventCard::N5)]);
        assert_eq!(json.unwrap(), r#"[0,"N5"]"#);
        let back: Vec<DeckCard> = serde_json::from_str(r#"[7,"F1","catchup"]"#).unwrap();
        assert_eq!(back[2], DeckCard::Placeholder);
    }
}
