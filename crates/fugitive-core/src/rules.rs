//! Room options that change the rules (R6, R11a) and the setup of a game.

use serde::{Deserialize, Serialize};

use crate::deck::Seed;

/// How many hideouts the Fugitive places on his first turn (R6).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum OpeningHideouts {
    /// One or two, his choice (the rulebooks' rule).
    #[default]
    OneOrTwo,
    /// Exactly two (the English quick rules).
    ExactlyTwo,
}

/// Which event variant a room plays (E1–E5 of `EVENTS.md`). Serialized as `off`, `random`,
/// `discovery`, `helpful:fugitive`, `helpful:marshal` or `catchup`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum EventVariant {
    /// No event cards (the base game).
    #[default]
    #[serde(rename = "off")]
    Off,
    /// Random Events: 2 random events shuffled into each deck.
    #[serde(rename = "random")]
    Random,
    /// Discovery Events: the Fugitive resolves one from a pile when the Marshal finds hideouts.
    #[serde(rename = "discovery")]
    Discovery,
    /// Helpful Events for the Fugitive: the 6 footprints events, 2 per deck.
    #[serde(rename = "helpful:fugitive")]
    HelpfulFugitive,
    /// Helpful Events for the Marshal: the 6 binoculars events, 2 per deck.
    #[serde(rename = "helpful:marshal")]
    HelpfulMarshal,
    /// Catchup Events: 2 placeholders per deck resolve an event from the pile the trail picks.
    #[serde(rename = "catchup")]
    Catchup,
}

impl EventVariant {
    /// Every variant, `Off` first.
    pub const ALL: [EventVariant; 6] = [
        EventVariant::Off,
        EventVariant::Random,
        EventVariant::Discovery,
        EventVariant::HelpfulFugitive,
        EventVariant::HelpfulMarshal,
        EventVariant::Catchup,
    ];

    /// Whether this is the base game without events.
    pub fn is_off(&self) -> bool {
        *self == EventVariant::Off
    }
}

/// The rule options of a game.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct RuleOptions {
    /// R6.
    pub opening_hideouts: OpeningHideouts,
    /// R11a: after a pass the Fugitive may draw 1 extra card from the lowest-numbered non-empty
    /// deck, his choice ([`Decision::PassBonus`](crate::Decision::PassBonus)).
    pub pass_bonus_draw: bool,
    /// The event variant; left out of the JSON when off, so old rules read and write the same.
    #[serde(skip_serializing_if = "EventVariant::is_off")]
    pub events: EventVariant,
}

/// Everything that determines a game before its first action: the seed and the rules.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Setup {
    /// Shuffles the decks (R4).
    pub seed: Seed,
    /// The room's rule options.
    pub rules: RuleOptions,
}

impl Setup {
    /// A setup with the default rules.
    pub fn new(seed: impl Into<Seed>) -> Setup {
        Setup { seed: seed.into(), rules: RuleOptions::default() }
    }

    /// The same setup with other rules.
    #[must_use]
    pub fn with_rules(self, rules: RuleOptions) -> Setup {
        Setup { rules, ..self }
    }
}
