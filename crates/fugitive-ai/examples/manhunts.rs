//! How the `hard` Marshal's Manhunts (R16) go against the `easy` Fugitive (issue 29, goal 2):
//! the games of `fugitive-sim --fugitive easy --marshal hard --seed SEED --events V` (the same
//! deals and bots' seeds), and for each game that reached a Manhunt: how many hideouts were face
//! down when he played 42, her last guess before it (how many numbers, right or wrong), each of
//! her Manhunt guesses (`R` right, `W` wrong, `!` on the trail count, not the exact one), and
//! the worlds' chance of the true set of face-down hideouts then ([`Joint`]). Then a summary.
//! Each game is checked to be move for move the one `fugitive-sim` plays (`play_bots`).
//!
//! ```sh
//! nice cargo run --release -p fugitive-ai --example manhunts -- 2000 helpful:fugitive 1
//! ```

use std::collections::BTreeMap;

use fugitive_ai::{Deduction, FugitiveBot, FugitiveView, Joint, Level, MarshalBot, MarshalView};
use fugitive_core::{Action, Card, Cards, EventVariant, Game, Reason, Role, RuleOptions, Seed, Setup};

/// A game's seed from the run's seed and its index, as `fugitive-sim` makes it (SplitMix64).
fn mix(seed: u64, index: u64) -> u64 {
    let mut z =
        seed.wrapping_mul(0x9e37_79b9_7f4a_7c15).wrapping_add(index).wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// One Manhunt: face down at 42, her last guess before it, her guesses in it, the true set's
/// chance by the worlds, and whether she won.
struct Manhunt {
    face_down: usize,
    last_guess: String,
    guesses: String,
    truth: Option<f64>,
    won: bool,
}

fn play(index: u64, seed: u64, events: EventVariant) -> Option<Manhunt> {
    let game_seed = mix(seed, index);
    let rules = RuleOptions { events, ..RuleOptions::default() };
    let mut game = Game::new(Setup::new(Seed::from(game_seed)).with_rules(rules));
    let mut fugitive = FugitiveBot::new(Level::Easy, game_seed);
    let mut marshal = MarshalBot::new(Level::Hard, game_seed ^ 0x5eed);
    let (mut last_guess, mut guesses, mut start) = (String::from("none"), String::new(), None);
    while let Some(role) = game.to_move() {
        let action = match role {
            Role::Fugitive => fugitive.act(&FugitiveView::of(&game))?,
            Role::Marshal => {
                let view = MarshalView::of(&game);
                let manhunt = view.view().trail.iter().any(|t| t.card == Some(Card::ESCAPE));
                let truth: Cards = game.trail().hidden().map(|(_, h)| h.card).collect();
                if manhunt && start.is_none() {
                    let chance = Joint::of(&view).and_then(|j| j.share(truth));
                    start = Some((truth.len(), chance));
                }
                let action = marshal.act(&view)?;
                if let Action::Guess { numbers } = action {
                    let right = numbers.difference(truth).is_empty();
                    if manhunt {
                        let exact = if Deduction::of(&view).exact() { "" } else { "!" };
                        guesses.push_str(&format!("{}{exact} ", if right { "R" } else { "W" }));
                    } else {
                        let outcome = if right { "right" } else { "wrong" };
                        last_guess = format!("{} of {} face down, {outcome}", numbers.len(), truth.len());
                    }
                }
                action
            }
        };
        game.apply(role, action).ok()?;
    }
    // The same game as `fugitive-sim` plays (`play_bots`), move for move.
    let sim = fugitive_ai::play_bots(
        Setup::new(Seed::from(game_seed)).with_rules(rules),
        FugitiveBot::new(Level::Easy, game_seed),
        MarshalBot::new(Level::Hard, game_seed ^ 0x5eed),
    );
    assert!(sim.record == game.actions(), "game {index} differs from fugitive-sim's");
    let (face_down, truth) = start?;
    let won = game.outcome().is_some_and(|o| o.reason == Reason::ManhuntSuccess);
    Some(Manhunt { face_down, last_guess, guesses: guesses.trim_end().to_string(), truth, won })
}

/// The variant's name in the rules' JSON (`helpful:fugitive`).
fn name(events: EventVariant) -> String {
    serde_json::to_value(events).ok().and_then(|v| v.as_str().map(str::to_owned)).unwrap_or_default()
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let games: u64 = args.get(1).and_then(|a| a.parse().ok()).unwrap_or(2000);
    let events = args.get(2).map_or(EventVariant::HelpfulFugitive, |v| {
        EventVariant::ALL.into_iter().find(|&e| name(e) == *v).expect("an event variant")
    });
    let seed: u64 = args.get(3).and_then(|a| a.parse().ok()).unwrap_or(1);
    let (mut by_face_down, mut by_last, mut by_guesses) = (BTreeMap::new(), BTreeMap::new(), BTreeMap::new());
    let (mut manhunts, mut won, mut chance) = (0, 0, 0.0);
    for index in 0..games {
        let Some(m) = play(index, seed, events) else { continue };
        println!(
            "game {index}: {} face down, last guess {}, Manhunt {}, true set {:.3}, {}",
            m.face_down,
            m.last_guess,
            m.guesses,
            m.truth.unwrap_or(f64::NAN),
            if m.won { "she won" } else { "he survived" }
        );
        manhunts += 1;
        won += usize::from(m.won);
        chance += m.truth.unwrap_or(0.0);
        let tally = |map: &mut BTreeMap<String, (usize, usize)>, key: String| {
            let entry = map.entry(key).or_insert((0, 0));
            entry.0 += 1;
            entry.1 += usize::from(m.won);
        };
        tally(&mut by_face_down, format!("{} face down", m.face_down));
        tally(&mut by_last, m.last_guess.clone());
        tally(&mut by_guesses, m.guesses.clone());
    }
    println!("\n{games} games, events {events:?}, seed {seed}: {manhunts} Manhunts, she won {won}");
    println!("the worlds' mean chance of the true set at 42: {:.3}", chance / f64::from(manhunts.max(1)));
    for (title, map) in
        [("face down at 42", by_face_down), ("her last guess", by_last), ("her Manhunt guesses", by_guesses)]
    {
        println!("\n{title}: Manhunts, she won");
        for (key, (n, w)) in map {
            println!("  {key}: {n}, {w}");
        }
    }
}
