//! Random legal games for the property tests: the setups, and a random player for both sides.
// Each test file uses its own part of this module.
#![allow(dead_code)]

use fugitive_core::{Action, Entry, EventVariant, Game, OpeningHideouts, Role, RuleOptions, Seed, Setup};
use proptest::prelude::*;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

/// Random games end long before this many actions (of 6,000 measured, the longest took 912; the
/// Marshal's random guesses find the hideouts), but nothing in the rules bounds a game (the
/// Fugitive may pass and the Marshal miss forever). So that a property test never fails on an
/// unlucky deal, the side to move resigns here.
pub const MAX_ACTIONS: usize = 3_000;

/// Both `opening_hideouts` values (R6) × `pass_bonus_draw` (R11a) × every event variant
/// (`EVENTS.md`), half of them without events.
pub fn rules() -> impl Strategy<Value = RuleOptions> {
    let opening = prop_oneof![Just(OpeningHideouts::OneOrTwo), Just(OpeningHideouts::ExactlyTwo)];
    let events = prop_oneof![
        5 => Just(EventVariant::Off),
        1 => Just(EventVariant::Random),
        1 => Just(EventVariant::Discovery),
        1 => Just(EventVariant::HelpfulFugitive),
        1 => Just(EventVariant::HelpfulMarshal),
        1 => Just(EventVariant::Catchup),
    ];
    (opening, any::<bool>(), events).prop_map(|(opening_hideouts, pass_bonus_draw, events)| RuleOptions {
        opening_hideouts,
        pass_bonus_draw,
        events,
    })
}

/// A seed (R4) and rules.
pub fn setups() -> impl Strategy<Value = Setup> {
    (any::<u64>(), rules()).prop_map(|(seed, rules)| Setup { seed: Seed::from(seed), rules })
}

/// How one side leaves the game early (R17).
#[derive(Clone, Copy, Debug)]
pub enum Stop {
    /// This role resigns, whether or not it is its turn.
    Resign(Role),
    /// The clock of the side to move runs out.
    TimeOut,
}

/// How a random game is played: the random player's seed, and perhaps a resignation or a
/// time-out before the action with this index.
#[derive(Clone, Copy, Debug)]
pub struct Play {
    /// Seeds the random player (`LegalActions::sample`).
    pub seed: u64,
    /// An early end, before the action with this index.
    pub stop: Option<(usize, Stop)>,
}

impl Play {
    /// Plays to the end with no early stop.
    pub fn to_the_end(seed: u64) -> Play {
        Play { seed, stop: None }
    }

    /// The next action: the early stop if it is due, a resignation at [`MAX_ACTIONS`], else the
    /// random player's move.
    pub fn next(&self, game: &Game, rng: &mut ChaCha8Rng) -> Option<(Role, Entry)> {
        let mover = game.to_move()?;
        if game.actions().len() >= MAX_ACTIONS {
            return Some((mover, Action::Resign.into()));
        }
        match self.stop {
            Some((at, Stop::Resign(role))) if at == game.actions().len() => {
                Some((role, Action::Resign.into()))
            }
            Some((at, Stop::TimeOut)) if at == game.actions().len() => Some((mover, Entry::TimeOut)),
            _ => {
                let action = game.legal_actions(mover).sample(rng);
                Some((mover, action.expect("the side to move always has a legal action").into()))
            }
        }
    }

    /// Plays `game` to its end, calling `each` on every position including the first and
    /// the last. Panics if a sampled action is refused.
    pub fn run(&self, mut game: Game, mut each: impl FnMut(&Game)) -> Game {
        let mut rng = ChaCha8Rng::seed_from_u64(self.seed);
        each(&game);
        while let Some((role, action)) = self.next(&game, &mut rng) {
            if let Err(error) = game.apply_entry(role, action) {
                panic!("the random {role}'s {action:?} was refused: {error}");
            }
            each(&game);
        }
        game
    }
}

/// Mostly whole games; one in four ends early by a resignation or a time-out (R17).
pub fn plays() -> impl Strategy<Value = Play> {
    let stop = prop_oneof![
        Just(Stop::Resign(Role::Fugitive)),
        Just(Stop::Resign(Role::Marshal)),
        Just(Stop::TimeOut),
    ];
    (any::<u64>(), prop::option::weighted(0.25, (0..200usize, stop)))
        .prop_map(|(seed, stop)| Play { seed, stop })
}
