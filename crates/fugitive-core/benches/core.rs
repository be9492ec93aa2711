//! How fast the rules engine is: one action, one view, the legal actions, the public candidates
//! (`View::candidates`), whole random games.
//!
//! `cargo bench -p fugitive-core --bench core`; the figures are in `BENCHMARKS.md`.
//! The positions come from one seeded random game, so every run measures the same ones.

use std::hint::black_box;
use std::time::Duration;

use criterion::{BatchSize, Criterion, Throughput, criterion_group, criterion_main};
use fugitive_core::{Action, Entry, Game, OpeningHideouts, Role, RuleOptions, Setup, Viewer};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

/// A position and the random legal action its mover takes there.
struct Position {
    game: Game,
    role: Role,
    action: Action,
}

/// Every position of one complete random game, with the action taken from it.
fn random_game(setup: Setup, rng: &mut ChaCha8Rng) -> Vec<Position> {
    let mut game = Game::new(setup);
    let mut positions = Vec::new();
    while let Some(role) = game.to_move() {
        let action = game.legal_actions(role).sample(rng).expect("the mover always has a move");
        positions.push(Position { game: game.clone(), role, action });
        game.apply(role, action).expect("a sampled action is legal");
    }
    positions
}

/// Plays a random game to the end and returns how many actions it took.
fn play_out(setup: Setup, rng: &mut ChaCha8Rng) -> usize {
    let mut game = Game::new(setup);
    while let Some(role) = game.to_move() {
        let action = game.legal_actions(role).sample(rng).expect("the mover always has a move");
        game.apply(role, action).expect("a sampled action is legal");
    }
    game.actions().len()
}

/// The kind of an action, as the benchmarks name it.
fn kind(action: &Action) -> &'static str {
    match action {
        Action::Draw { .. } => "draw",
        Action::Place { .. } => "place",
        Action::Guess { .. } => "guess",
        _ => "other",
    }
}

fn benches(c: &mut Criterion) {
    let positions = random_game(Setup::new(7u64), &mut ChaCha8Rng::seed_from_u64(7));
    let mid = &positions[positions.len() / 2];
    let late = &positions[positions.len() * 9 / 10];
    println!(
        "game of {} actions; mid-game at action {}, late-game at action {} ({} hideouts)",
        positions.len(),
        positions.len() / 2,
        positions.len() * 9 / 10,
        late.game.trail().hideout_count()
    );

    let mut group = c.benchmark_group("apply");
    // Small batches keep the fresh clones in cache: with criterion's default batches of
    // thousands, the figure was mostly cache misses and page faults of the clones (1-4 µs).
    for name in ["draw", "place", "guess"] {
        let later = &positions[positions.len() / 2..];
        let p = later.iter().find(|p| kind(&p.action) == name).expect("the game has such an action");
        group.bench_function(name, |b| {
            b.iter_batched(
                || p.game.clone(),
                |mut game| {
                    let events = game.apply(p.role, black_box(p.action));
                    (game, events)
                },
                BatchSize::NumIterations(16),
            );
        });
    }
    group.bench_function("is_legal", |b| b.iter(|| mid.game.is_legal(mid.role, black_box(&mid.action))));
    group.finish();

    // The same game replayed from its setup (the deal included): every action applied to a game
    // that owns its buffers, as a server's is, not to a fresh clone whose every push reallocates.
    let setup = Setup::new(7u64);
    let actions: Vec<(Role, Entry)> = positions.iter().map(|p| (p.role, p.action.into())).collect();
    let mut group = c.benchmark_group("replay");
    group.throughput(Throughput::Elements(actions.len() as u64));
    group.bench_function("whole_game", |b| {
        b.iter(|| Game::replay(setup, black_box(&actions)).expect("replays"));
    });
    group.finish();

    let mut group = c.benchmark_group("view_json");
    for (stage, p) in [("mid", mid), ("late", late)] {
        for viewer in Viewer::ALL {
            group.bench_function(format!("{stage}/{viewer:?}"), |b| {
                b.iter(|| serde_json::to_string(&p.game.view(black_box(viewer))).expect("serializes"));
            });
        }
    }
    group.finish();

    let exactly_two = RuleOptions { opening_hideouts: OpeningHideouts::ExactlyTwo, ..RuleOptions::default() };
    let opening = Game::new(Setup::new(7u64).with_rules(exactly_two));
    let mut group = c.benchmark_group("legal_actions");
    for (stage, game, role) in [
        ("mid", &mid.game, mid.role),
        ("late", &late.game, late.role),
        ("opening_exactly_two", &opening, Role::Fugitive),
    ] {
        group.bench_function(stage, |b| b.iter(|| black_box(game).legal_actions(role)));
    }
    group.finish();

    // The public candidates, which the server makes once per version for the Marshal's view and
    // once for the spectators'.
    let mut group = c.benchmark_group("candidates");
    for (stage, p) in [("mid", mid), ("late", late)] {
        for viewer in [Viewer::Marshal, Viewer::Spectator] {
            let view = p.game.view(viewer);
            group.bench_function(format!("{stage}/{viewer:?}"), |b| b.iter(|| black_box(&view).candidates()));
        }
    }
    group.finish();
    candidates_tail();

    let mut group = c.benchmark_group("self_play");
    group.throughput(Throughput::Elements(1));
    let mut rng = ChaCha8Rng::seed_from_u64(11);
    let mut seed = 0u64;
    group.bench_function("random_game", |b| {
        b.iter(|| {
            seed += 1;
            play_out(Setup::new(seed), &mut rng)
        });
    });
    group.finish();
}

/// Criterion reports no tail: every Marshal view of 300 random games (every event variant),
/// timed one by one, with the median, p99 and the worst printed.
fn candidates_tail() {
    let mut rng = ChaCha8Rng::seed_from_u64(23);
    let mut times = Vec::new();
    for seed in 0..300u64 {
        let rules = RuleOptions {
            events: fugitive_core::EventVariant::ALL[seed as usize % fugitive_core::EventVariant::ALL.len()],
            ..RuleOptions::default()
        };
        for p in random_game(Setup::new(seed).with_rules(rules), &mut rng) {
            let view = p.game.view(Viewer::Marshal);
            let start = std::time::Instant::now();
            black_box(black_box(&view).candidates());
            times.push(start.elapsed());
        }
    }
    times.sort();
    let at = |q: f64| times[((times.len() - 1) as f64 * q) as usize];
    println!(
        "candidates of {} Marshal views: median {:?}, p99 {:?}, worst {:?}",
        times.len(),
        at(0.5),
        at(0.99),
        times[times.len() - 1]
    );
}

criterion_group! {
    name = core;
    config = Criterion::default()
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(2))
        .sample_size(50);
    targets = benches
}
criterion_main!(core);
