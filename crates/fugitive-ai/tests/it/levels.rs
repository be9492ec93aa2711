//! The ladder of levels (issue 29): every level plays legal games against every level, in both
//! roles and with events, and in small seeded matches each level does better than the one
//! below it where that is cheap to play. The deals and the bots' choices come from fixed seeds,
//! so every run plays the same games: these are checks of order, not statistics.

use fugitive_ai::{FugitiveBot, Level, MarshalBot, play_bots, play_match};
use fugitive_core::{EventVariant, Role, RuleOptions, Seed, Setup};

/// The Fugitive's wins in games `0..games` of seed `seed` between these levels.
fn fugitive_wins(fugitive: Level, marshal: Level, games: u64, seed: u64) -> usize {
    (0..games)
        .filter(|&i| {
            let setup = Setup::new(Seed::from(seed * 1_000 + i));
            let result = play_match(setup, fugitive, marshal, i);
            assert_eq!(result.refused, None, "{fugitive} against {marshal}, game {i}");
            result.outcome.expect("every game ends").winner == Role::Fugitive
        })
        .count()
}

#[test]
fn every_level_plays_legal_games_against_every_level_with_and_without_events() {
    for fugitive in Level::ALL {
        for marshal in Level::ALL {
            for (i, events) in
                [EventVariant::Off, EventVariant::Random, EventVariant::Catchup].into_iter().enumerate()
            {
                let seed = i as u64;
                let rules = RuleOptions { events, ..RuleOptions::default() };
                let setup = Setup::new(Seed::from(seed)).with_rules(rules);
                // Few rollouts: this checks legality, not strength.
                let bot = FugitiveBot::new(fugitive, seed).with_rollouts(2);
                let result = play_bots(setup, bot, MarshalBot::new(marshal, seed));
                assert_eq!(result.refused, None, "{fugitive} against {marshal} with {events:?}");
                assert!(result.outcome.is_some(), "{fugitive} against {marshal} with {events:?}: no end");
            }
        }
    }
}

/// The `medium` Marshal between the `easy` and the `hard` one, against the `easy` Fugitive:
/// cheap games (no search), 300 of them.
#[test]
fn the_medium_marshal_is_between_the_easy_and_the_hard_one() {
    let easy = fugitive_wins(Level::Easy, Level::Easy, 300, 1);
    let medium = fugitive_wins(Level::Easy, Level::Medium, 300, 1);
    let hard = fugitive_wins(Level::Easy, Level::Hard, 300, 1);
    assert!(easy > medium + 30 && medium > hard + 30, "easy {easy}, medium {medium}, hard {hard} of 300");
}

/// The `medium` Fugitive above the `easy` one against the `easy` Marshal, in a small match (his
/// search costs milliseconds a move).
#[test]
fn the_medium_fugitive_beats_the_easy_marshal_more_than_the_easy_one_does() {
    let easy = fugitive_wins(Level::Easy, Level::Easy, 40, 2);
    let medium = fugitive_wins(Level::Medium, Level::Easy, 40, 2);
    assert!(medium > easy + 4, "easy {easy}, medium {medium} of 40");
}
