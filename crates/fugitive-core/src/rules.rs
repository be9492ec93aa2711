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

/// The rule options of a game.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct RuleOptions {
    /// R6.
    pub opening_hideouts: OpeningHideouts,
    /// R11a: a pass draws 1 extra card from the lowest-numbered non-empty deck.
    pub pass_bonus_draw: bool,
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
