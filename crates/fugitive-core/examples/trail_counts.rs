//! How many trail counts a server's room makes per action for the public candidates (the
//! Marshal's view and the spectators'), by what it keeps from the version before (issue 28):
//! - counted again whenever the evidence changed, both counts (main before stop 37);
//! - the count without the wrong guesses carried over while that evidence stays
//!   (`Candidates::of_after`);
//! - and nothing counted again for evidence that counts the same (`Evidence::counts_the_same`:
//!   his draws).
//!
//! And for those last states, the same run, what the numbers pass the candidates are made from
//! takes (`Evidence::trail_numbers`, the numbers without the counts) against the count.
//!
//! Random games, both seats played by `LegalActions::sample`, to the end:
//! `cargo run --release -p fugitive-core --example trail_counts`.

use std::time::{Duration, Instant};

use fugitive_core::{Evidence, Game, Setup, Viewer};
use rand::SeedableRng;

const GAMES: u64 = 300;

/// The trail counts made, and their time.
#[derive(Default)]
struct Made {
    counts: u64,
    time: Duration,
}

impl Made {
    fn count(&mut self, evidence: &Evidence) {
        self.time(|| evidence.count_trails());
    }

    fn time<T>(&mut self, work: impl FnOnce() -> T) {
        let started = Instant::now();
        std::hint::black_box(work());
        self.time += started.elapsed();
        self.counts += 1;
    }
}

fn main() {
    let mut made: [Made; 4] = Default::default();
    let mut actions = 0u64;
    for seed in 0..GAMES {
        let mut game = Game::new(Setup::new(seed));
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
        let mut last: [Option<Evidence>; 2] = [None, None];
        while let Some(role) = game.to_move() {
            let action = game.legal_actions(role).sample(&mut rng).expect("a legal action");
            game.apply(role, action).expect("a legal action applies");
            actions += 1;
            for (index, viewer) in [Viewer::Marshal, Viewer::Spectator].into_iter().enumerate() {
                let Some(now) = game.view(viewer).evidence() else { continue };
                let before = last[index].as_ref();
                let without = now.without_guesses();
                let before_without = before.map(Evidence::without_guesses);
                // The count without the guesses is made only when the guesses say something.
                let guesses = !without.counts_the_same(&now) || now.impossible();
                if before != Some(&now) {
                    made[0].count(&now);
                    if guesses {
                        made[0].count(&without);
                    }
                    made[1].count(&now);
                    if guesses && before_without.as_ref() != Some(&without) {
                        made[1].count(&without);
                    }
                }
                if before.is_none_or(|b| !b.counts_the_same(&now)) {
                    made[2].count(&now);
                    made[3].time(|| now.trail_numbers());
                    if guesses && before_without.is_none_or(|b| !b.counts_the_same(&without)) {
                        made[2].count(&without);
                        made[3].time(|| without.trail_numbers());
                    }
                }
                last[index] = Some(now);
            }
        }
    }
    println!("{actions} actions in {GAMES} games");
    let names = [
        "again on any change",
        "carried over without guesses",
        "and counting the same",
        "the numbers pass instead",
    ];
    for (name, made) in names.into_iter().zip(&made) {
        println!(
            "{name:30} {:6} runs, {:.2} per action, {:6.1} µs per action",
            made.counts,
            made.counts as f64 / actions as f64,
            made.time.as_secs_f64() * 1e6 / actions as f64
        );
    }
}
