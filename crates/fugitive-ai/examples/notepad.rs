//! How often the exact notepad falls back to the trail count, and its time per state, per
//! event variant (issue 29, goal 1): every Marshal state of `GAMES` random games (both sides
//! `LegalActions::sample`, every event decision answered at random) and of `GAMES` bot games
//! (the `easy` Fugitive against the `hard` Marshal), game `i` on seed `i`. Each state is solved
//! with `Deduction::of` and, as the baseline in the same run, `Deduction::trails_only`, both
//! timed by their thread's CPU time (`cpu-time`), which leaves out what other jobs of a shared
//! machine took.
//!
//! ```sh
//! nice cargo run --release -p fugitive-ai --example notepad -- 1000
//! nice cargo run --release -p fugitive-ai --example notepad -- 200 random catchup
//! ```

use std::time::Duration;

use cpu_time::ThreadTime;
use fugitive_ai::{Deduction, FugitiveBot, FugitiveView, Level, MarshalBot, MarshalView};
use fugitive_core::{Action, EventVariant, Game, Role, RuleOptions, Seed, Setup};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

/// Every Marshal view of `games` games (`bots`: `None` for random play).
fn states(games: u64, events: EventVariant, bots: Option<(Level, Level)>) -> Vec<MarshalView> {
    let mut states = Vec::new();
    for seed in 0..games {
        let rules = RuleOptions { events, ..RuleOptions::default() };
        let mut game = Game::new(Setup::new(Seed::from(seed)).with_rules(rules));
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let mut players = bots.map(|(f, m)| (FugitiveBot::new(f, seed), MarshalBot::new(m, seed)));
        while let Some(role) = game.to_move() {
            let view = MarshalView::of(&game);
            let action = match (&mut players, role) {
                (None, _) => game.legal_actions(role).sample(&mut rng),
                (Some((f, _)), Role::Fugitive) => f.act(&FugitiveView::of(&game)),
                (Some((_, m)), Role::Marshal) => m.act(&view),
            };
            states.push(view);
            game.apply(role, action.unwrap_or(Action::Resign)).expect("a legal action");
        }
    }
    states
}

/// The thread CPU time of each solve, sorted, and how many were not exact.
fn solve(states: &[MarshalView], solver: fn(&MarshalView) -> Deduction) -> (Vec<Duration>, usize) {
    let mut fallbacks = 0;
    let mut times: Vec<Duration> = states
        .iter()
        .map(|s| {
            let start = ThreadTime::now();
            let d = std::hint::black_box(solver(s));
            fallbacks += usize::from(!d.exact());
            start.elapsed()
        })
        .collect();
    times.sort();
    (times, fallbacks)
}

fn at(times: &[Duration], q: f64) -> Duration {
    times[((times.len() - 1) as f64 * q) as usize]
}

fn ms(d: Duration) -> String {
    format!("{:.3}", d.as_secs_f64() * 1e3)
}

/// The variant's name in the rules' JSON (`helpful:fugitive`).
fn name(events: EventVariant) -> String {
    serde_json::to_value(events).ok().and_then(|v| v.as_str().map(str::to_owned)).unwrap_or_default()
}

fn main() {
    let mut args = std::env::args().skip(1);
    let games: u64 = args.next().map_or(1000, |g| g.parse().expect("a number of games"));
    let named: Vec<EventVariant> = args
        .map(|v| EventVariant::ALL.into_iter().find(|&e| name(e) == v).expect("an event variant"))
        .collect();
    let variants: Vec<EventVariant> = if named.is_empty() { EventVariant::ALL.to_vec() } else { named };
    println!(
        "| events | games | states | not exact (of which by events) | exact: p50 | p99 | p99.9 | worst | trails (baseline): p50 | p99 | p99 ratio |"
    );
    println!("|---|---|---|---|---|---|---|---|---|---|---|");
    for events in variants {
        for (games_name, bots) in [("random", None), ("easy F vs hard M", Some((Level::Easy, Level::Hard)))] {
            let states = states(games, events, bots);
            let (worlds, fallbacks) = solve(&states, Deduction::of);
            let (trails, _) = solve(&states, Deduction::trails_only);
            let by_events = states.iter().filter(|s| !Deduction::events_modelled(s)).count();
            println!(
                "| {} | {games} {games_name} | {} | {fallbacks} ({:.2} %; events {by_events}) | {} ms | **{} ms** | {} ms | {} ms | {} ms | {} ms | {:.0}× |",
                name(events),
                states.len(),
                100.0 * fallbacks as f64 / states.len() as f64,
                ms(at(&worlds, 0.5)),
                ms(at(&worlds, 0.99)),
                ms(at(&worlds, 0.999)),
                ms(worlds[worlds.len() - 1]),
                ms(at(&trails, 0.5)),
                ms(at(&trails, 0.99)),
                at(&worlds, 0.99).as_secs_f64() / at(&trails, 0.99).as_secs_f64().max(1e-9),
            );
        }
    }
}
