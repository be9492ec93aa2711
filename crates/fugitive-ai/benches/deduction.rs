//! The deduction over the Marshal's states of 1,000 self-played games: the exact count of
//! worlds (`Deduction::of`) beside the trail count it prunes with and falls back to
//! (`Deduction::trails_only`, the notepad before issue 15), on the same states.
//!
//! A plain timing loop over every state gives the median, p99 and worst single solve (criterion
//! reports means and medians, not the tail), and how many states fell back to the bound;
//! criterion measures one late state (a whole pass of the exact count takes minutes). Each solve
//! is timed twice: by the wall clock, and by the CPU time of its thread, which leaves out the
//! time other jobs of a shared, loaded machine held the CPU (the tail of the wall clock there is
//! mostly the machine's, not the count's).

use std::hint::black_box;
use std::time::{Duration, Instant};

use cpu_time::ThreadTime;
use criterion::{Criterion, criterion_group, criterion_main};
use fugitive_ai::{Deduction, FugitiveBot, Level, MarshalBot, MarshalView};
use fugitive_core::{Action, Game, Role, Seed, Setup};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

const GAMES: u64 = 1_000;

/// Every Marshal view of `GAMES` games between `fugitive` and `marshal` (`None`: random play
/// for both, `LegalActions::sample`).
fn states(bots: Option<(Level, Level)>) -> Vec<MarshalView> {
    let mut states = Vec::new();
    for seed in 0..GAMES {
        let mut game = Game::new(Setup::new(Seed::from(seed)));
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let mut players = bots.map(|(f, m)| (FugitiveBot::new(f, seed), MarshalBot::new(m, seed)));
        while let Some(role) = game.to_move() {
            let view = MarshalView::of(&game);
            let action = match (&mut players, role) {
                (None, _) => game.legal_actions(role).sample(&mut rng),
                (Some((f, _)), Role::Fugitive) => f.act(&fugitive_ai::FugitiveView::of(&game)),
                (Some((_, m)), Role::Marshal) => m.act(&view),
            };
            states.push(view);
            game.apply(role, action.unwrap_or(Action::Resign)).unwrap();
        }
        states.push(MarshalView::of(&game));
    }
    states
}

fn tail(name: &str, states: &[MarshalView], solve: fn(&MarshalView) -> Deduction) {
    let mut fallbacks = 0;
    let (mut wall, mut cpu): (Vec<Duration>, Vec<Duration>) = states
        .iter()
        .map(|s| {
            let (start, start_cpu) = (Instant::now(), ThreadTime::now());
            let d = black_box(solve(black_box(s)));
            let elapsed = (start.elapsed(), start_cpu.elapsed());
            fallbacks += usize::from(!d.exact() && s.view().rules.events.is_off());
            elapsed
        })
        .unzip();
    println!("{name}: {} states, not exact {fallbacks}", states.len());
    for (clock, times) in [("wall clock", &mut wall), ("thread CPU", &mut cpu)] {
        times.sort();
        let at = |q: f64| times[((times.len() - 1) as f64 * q) as usize];
        println!(
            "  {clock}: median {:?}, p99 {:?}, p99.9 {:?}, worst {:?}",
            at(0.5),
            at(0.99),
            at(0.999),
            times[times.len() - 1]
        );
    }
}

fn bench(c: &mut Criterion) {
    let random = states(None);
    let bots = states(Some((Level::Easy, Level::Hard)));
    for (games, states) in [("random self-play", &random), ("easy Fugitive vs hard Marshal", &bots)] {
        tail(&format!("worlds (exact), {games}"), states, Deduction::of);
        tail(&format!("trails (baseline), {games}"), states, Deduction::trails_only);
    }
    let longest = random.iter().max_by_key(|s| s.view().trail.len()).unwrap();
    c.bench_function("worlds, the longest random trail", |b| b.iter(|| Deduction::of(black_box(longest))));
    c.bench_function("trails (baseline), the longest random trail", |b| {
        b.iter(|| Deduction::trails_only(black_box(longest)))
    });
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(10).measurement_time(Duration::from_secs(10));
    targets = bench
}
criterion_main!(benches);
