//! The 18 event cards of `EVENTS.md`: each is data (id and icon) plus [`EventCard::effects`], a
//! short list of shared [`Effect`] primitives. Their names and texts are presentation: they live
//! with the web client's other translations (`web/i18n/`).

use std::fmt;

use serde::{Deserialize, Serialize};

use super::decision::Decision;
use crate::role::Role;

/// One event card (E1). Serialized as its id, e.g. `"F1"`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[allow(missing_docs)] // The ids are the names (`EVENTS.md` has the rest).
pub enum EventCard {
    F1,
    F2,
    F3,
    F4,
    F5,
    F6,
    M1,
    M2,
    M3,
    M4,
    M5,
    M6,
    N1,
    N2,
    N3,
    N4,
    N5,
    N6,
}

/// Whom an event helps (E1).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Icon {
    /// Footprints: helps the Fugitive.
    Footprints,
    /// No icon: helps whoever draws it.
    None,
    /// Binoculars: helps the Marshal.
    Binoculars,
}

impl Icon {
    /// The three icons in Catchup's pile order: 1, 2, 3+ face-down hideouts.
    pub const ALL: [Icon; 3] = [Icon::Footprints, Icon::None, Icon::Binoculars];

    /// 0, 1 or 2, the index of its Catchup pile.
    pub const fn index(self) -> usize {
        self as usize
    }
}

/// What a trail event does to the hideout later placed on its space (E4).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TrailEffect {
    /// F1: up to 5 above the previous card before sprint is needed.
    SafeHouse,
    /// M1: no sprint cards.
    Roadblock,
}

/// The primitives every card is built from. Each runs in order; an [`Effect::Ask`] waits for
/// the player's choice (E3) before the next runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Effect {
    /// `role` owes `count` draws from decks of their choice.
    Draw { role: Role, count: u8 },
    /// `role` skips their next draw.
    SkipDraw { role: Role },
    /// A trail event at the next free space (E4).
    Trail(TrailEffect),
    /// The Marshal's next guess names one number only.
    SingleGuess,
    /// `role` draws the top card of the highest-numbered non-empty deck.
    DrawFromHighest { role: Role },
    /// The Fugitive says which group his most recent face-down hideout came from.
    Eyewitness,
    /// `role` must choose.
    Ask { role: Role, decision: Decision },
}

impl EventCard {
    /// All 18, footprints, binoculars, then no icon.
    pub const ALL: [EventCard; 18] = {
        use EventCard::*;
        [F1, F2, F3, F4, F5, F6, M1, M2, M3, M4, M5, M6, N1, N2, N3, N4, N5, N6]
    };

    /// Its id, e.g. `"F1"`.
    pub fn id(self) -> String {
        format!("{self:?}")
    }

    /// Its icon (E1).
    pub const fn icon(self) -> Icon {
        use EventCard::*;
        match self {
            F1 | F2 | F3 | F4 | F5 | F6 => Icon::Footprints,
            M1 | M2 | M3 | M4 | M5 | M6 => Icon::Binoculars,
            N1 | N2 | N3 | N4 | N5 | N6 => Icon::None,
        }
    }

    /// The six events of one icon.
    pub fn with_icon(icon: Icon) -> impl Iterator<Item = EventCard> {
        EventCard::ALL.into_iter().filter(move |card| card.icon() == icon)
    }

    /// Its effect when `drawer` draws it, as primitives run in order.
    pub(crate) fn effects(self, drawer: Role) -> Vec<Effect> {
        use EventCard::*;
        use Role::{Fugitive, Marshal};
        let ask = |role, decision| Effect::Ask { role, decision };
        match self {
            F1 => vec![Effect::Trail(TrailEffect::SafeHouse)],
            F2 => vec![Effect::Draw { role: Fugitive, count: 2 }],
            F3 => vec![Effect::SingleGuess],
            F4 => vec![ask(Marshal, Decision::BadIntel)],
            F5 => vec![ask(Fugitive, Decision::SmokeScreen)],
            F6 => vec![Effect::DrawFromHighest { role: Fugitive }],
            M1 => vec![Effect::Trail(TrailEffect::Roadblock)],
            M2 => vec![ask(Marshal, Decision::Informant)],
            M3 => vec![ask(Marshal, Decision::Stakeout)],
            M4 => vec![ask(Marshal, Decision::Dragnet)],
            M5 => vec![Effect::Draw { role: Marshal, count: 2 }],
            M6 => vec![Effect::Eyewitness],
            N1 => vec![Effect::Draw { role: drawer, count: 1 }],
            N2 => vec![Effect::SkipDraw { role: drawer.opponent() }],
            N3 | N4 => match drawer {
                Fugitive => (if self == N3 { F5 } else { F1 }).effects(drawer),
                Marshal => (if self == N3 { M2 } else { M1 }).effects(drawer),
            },
            N5 => vec![ask(drawer, Decision::TownGossip)],
            N6 => vec![ask(drawer, Decision::ChangeOfPlans), Effect::Draw { role: drawer, count: 1 }],
        }
    }
}

impl fmt::Display for EventCard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{self:?}")
    }
}

/// An event lying beside the trail (E4): it changes the hideout later placed at `position`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct TrailEvent {
    /// The trail position it lies under.
    pub position: usize,
    /// The card.
    pub card: EventCard,
    /// What it does there (N4 is Safe House or Roadblock depending on who drew it).
    pub effect: TrailEffect,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn e1_six_cards_per_icon() {
        // Their names and texts are checked with the web client's translations
        // (`fugitive-server`'s `web_card_texts` test).
        for icon in Icon::ALL {
            assert_eq!(EventCard::with_icon(icon).count(), 6);
        }
        for card in EventCard::ALL {
            assert_eq!(card.id().len(), 2);
        }
        assert_eq!(serde_json::to_string(&EventCard::M4).unwrap(), "\"M4\"");
    }
}
