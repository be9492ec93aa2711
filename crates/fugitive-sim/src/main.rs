//! Bot-vs-bot matches: win rates with 95% confidence intervals, and the average game length.
//! A crate of its own, so that the library `fugitive-ai` (and the server that links it) needs
//! no command-line or progress-bar crates.
//!
//! ```sh
//! cargo run --release -p fugitive-sim -- --games 2000 --fugitive hard --marshal random --seed 1
//! # every level against every level in both roles, the ladder and its Glicko-2 ratings:
//! cargo run --release -p fugitive-sim -- --round-robin --games 2000 --seed 1 --record ladder.txt
//! # the event variants' balance table for the web client, from hard-against-hard reports:
//! cargo run --release -p fugitive-sim -- --balance web/balance.js reports/*.txt
//! # the puzzles of 200 games for the server (`fugitive-server --puzzles puzzles.jsonl`):
//! cargo run --release -p fugitive-sim -- --games 200 --puzzles puzzles.jsonl
//! ```

mod balance;
mod ladder;
mod puzzles;

use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::thread;
use std::time::Duration;

use anyhow::{Context, Result, bail};
use clap::Parser;
use fugitive_ai::{Budget, FugitiveBot, Level, MarshalBot, MatchResult, play_bots};
use fugitive_core::{EventVariant, OpeningHideouts, Role, RuleOptions, Seed, Setup};
use indicatif::{ProgressBar, ProgressStyle};

/// Plays computer Fugitives against computer Marshals and prints who wins how often.
#[derive(Debug, Parser)]
#[command(version)]
struct Args {
    /// How many games (per pairing with `--round-robin`; there, 0 prints the ladder of the
    /// `--record` without playing).
    #[arg(long, default_value_t = 1000)]
    games: usize,
    /// The Fugitive's level: random, easy or hard.
    #[arg(long, default_value = "hard")]
    fugitive: Level,
    /// The Marshal's level: random, easy or hard.
    #[arg(long, default_value = "hard")]
    marshal: Level,
    /// Seeds the deals and the bots: the same seed gives the same games.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// The event variant (EVENTS.md): off, random, discovery, helpful:fugitive,
    /// helpful:marshal or catchup.
    #[arg(long, default_value = "off", value_parser = parse_events)]
    events: EventVariant,
    /// The opening (R6): one-or-two hideouts (the rulebooks') or exactly-two (the English
    /// quick rules').
    #[arg(long, default_value = "one-or-two", value_parser = parse_opening)]
    opening: OpeningHideouts,
    /// The pass bonus draw (R11a): after a pass the Fugitive may draw from the lowest deck.
    #[arg(long)]
    pass_bonus: bool,
    /// The searching Fugitive's wall-clock target per decision in milliseconds: past it he
    /// plays once every candidate has played in one world (the server's: 250). Without any
    /// budget the search is bounded by its rollout count only and the games repeat exactly.
    #[arg(long)]
    budget_ms: Option<u64>,
    /// The searching Fugitive's budget per decision in milliseconds of his thread's CPU time
    /// (the server's: 150; `computer::FUGITIVE_BUDGET`).
    #[arg(long)]
    cpu_budget_ms: Option<u64>,
    /// The searching Fugitive's wall-clock cap per decision in milliseconds: past it he plays
    /// at once (the server's: 800, `computer::FUGITIVE_CAP`).
    #[arg(long)]
    cap_ms: Option<u64>,
    /// Plays every level of `--levels` as the Fugitive against every one as the Marshal,
    /// `--games` games each (from `--first`), and prints the ladder: each pairing's win rate,
    /// each level against the one below in both roles, and a Glicko-2 rating per role.
    /// `--fugitive` and `--marshal` are ignored.
    #[arg(long)]
    round_robin: bool,
    /// The levels of the round robin, weakest first (default: all).
    #[arg(long, value_delimiter = ',')]
    levels: Option<Vec<Level>>,
    /// Plays only these levels' games as the Fugitive in this run (default: every level of
    /// `--levels`); with `--record`, the ladder still counts every game recorded. A searching
    /// Fugitive's games cost a thousand times the others': this lets them be played in
    /// smaller pieces.
    #[arg(long, value_delimiter = ',')]
    rows: Option<Vec<Level>>,
    /// The round robin's record: each game is added to this file as it ends (`fugitive marshal
    /// index winner`, after a first line naming the seed and rules), and the ladder is printed
    /// from every game in it, so a long round robin can be played in pieces (`--first`,
    /// `--levels`). A file of another seed or rule set is refused.
    #[arg(long)]
    record: Option<std::path::PathBuf>,
    /// The searching Fugitive's rollouts per candidate move (default: the level's own,
    /// `DEFAULT_ROLLOUTS` for `hard`).
    #[arg(long)]
    rollouts: Option<usize>,
    /// The index of the first game: `--first 1000 --games 1000` plays the second half of the
    /// games of `--games 2000` (the same seed gives the same games), so a long run can be
    /// played in pieces.
    #[arg(long, default_value_t = 0)]
    first: usize,
    /// Also write every time per decision of the Fugitive to this file, one line per decision:
    /// microseconds of the bot, then of the `easy` baseline on the same view (both wall clock),
    /// then of the bot's thread CPU time.
    #[arg(long)]
    times: Option<std::path::PathBuf>,
    /// Worker threads (games are independent).
    #[arg(long, default_value_t = 1)]
    threads: usize,
    /// Hide the progress bar.
    #[arg(long)]
    quiet: bool,
    /// Writes the balance table of the event variants (both bots `hard`; the web client's
    /// `web/balance.js`) from the reports of hard-against-hard runs given after the options,
    /// and plays nothing.
    #[arg(long)]
    balance: Option<std::path::PathBuf>,
    /// Also writes the puzzles found in the games played (issue 26) to this file, one JSON
    /// puzzle a line: what `fugitive-server --puzzles` loads.
    #[arg(long)]
    puzzles: Option<std::path::PathBuf>,
    /// With `--puzzles OUT`: instead of every puzzle found, writes the puzzles of this earlier
    /// file (in its order) whose theme, view and answer the games' puzzles hold too, with the
    /// figures found now: the file filtered by the finder of today, from the same games (run
    /// the command that made it).
    #[arg(long, requires = "puzzles")]
    keep_puzzles: Option<std::path::PathBuf>,
    /// The reports `--balance` reads.
    reports: Vec<std::path::PathBuf>,
}

fn main() -> Result<()> {
    let args = Args::parse();
    if let Some(out) = &args.balance {
        return balance::write(out, &args.reports);
    }
    let reading_record = args.round_robin && args.record.is_some();
    if (args.games == 0 && !reading_record) || args.threads == 0 {
        bail!("--games and --threads must be at least 1 (--games 0 only prints a --round-robin --record)");
    }
    if args.round_robin {
        return round_robin(&args);
    }
    let pairings = [(args.fugitive, args.marshal)];
    let played = play(&args, &pairings);
    if let Some(out) = &args.puzzles {
        let found = puzzles::of_games(played.iter().map(|(_, _, index, r)| (args.setup(*index), r)))?;
        if let Some(old) = &args.keep_puzzles {
            let text =
                std::fs::read_to_string(old).with_context(|| format!("cannot read {}", old.display()))?;
            let kept = puzzles::keep(&text, &found)?;
            std::fs::write(out, kept.text)?;
            eprintln!(
                "of {} kept {} (by theme: {:?}), wrote {}",
                old.display(),
                kept.kept,
                kept.by_theme,
                out.display()
            );
        } else {
            puzzles::write(out, &found)?;
            eprintln!("{} puzzles written to {}", found.len(), out.display());
        }
    }
    let results: Vec<MatchResult> = played.into_iter().map(|(_, _, _, r)| r).collect();
    print!("{}", report(&args, &results));
    if let Some(path) = &args.times {
        let mut lines = String::new();
        for r in &results {
            let cpu = &r.thinking_cpu[Role::Fugitive];
            for ((bot, easy), cpu) in r.thinking[Role::Fugitive].iter().zip(&r.baseline).zip(cpu) {
                lines.push_str(&format!("{} {} {}\n", bot.as_micros(), easy.as_micros(), cpu.as_micros()));
            }
        }
        std::fs::write(path, lines)?;
    }
    let refused = results.iter().filter(|r| r.refused.is_some()).count();
    if refused > 0 {
        bail!("{refused} games ended by a refused bot move: a bot bug");
    }
    Ok(())
}

impl Args {
    /// The rule options of every game.
    fn rules(&self) -> RuleOptions {
        RuleOptions { opening_hideouts: self.opening, pass_bonus_draw: self.pass_bonus, events: self.events }
    }

    /// The setup of game `index` of the run.
    fn setup(&self, index: usize) -> Setup {
        Setup::new(Seed::from(mix(self.seed, index as u64))).with_rules(self.rules())
    }

    /// One game: game `index` of the run (its deal and the bots' seeds), these levels.
    fn game(&self, fugitive: Level, marshal: Level, index: usize) -> MatchResult {
        let seed = mix(self.seed, index as u64);
        let setup = self.setup(index);
        let mut bot = FugitiveBot::new(fugitive, seed);
        if let Some(rollouts) = self.rollouts {
            bot = bot.with_rollouts(rollouts);
        }
        let ms = |ms: Option<u64>| ms.map(Duration::from_millis);
        bot = bot.with_budget(Budget {
            cpu: ms(self.cpu_budget_ms),
            wall: ms(self.budget_ms),
            cap: ms(self.cap_ms),
        });
        play_bots(setup, bot, MarshalBot::new(marshal, seed ^ 0x5eed))
    }

    /// The first line of a record file: the seed and rules its games were played with.
    fn record_header(&self) -> String {
        let cap = self.cap_ms.map_or(String::new(), |ms| format!(" {ms} ms cap"));
        format!(
            "# fugitive-sim round robin, seed {}, events {:?}, opening {:?}, pass bonus {}, rollouts {}, budget {:?} ms wall {:?} ms CPU{cap}",
            self.seed,
            self.events,
            self.opening,
            self.pass_bonus,
            self.rollouts.map_or("the level's".to_string(), |r| r.to_string()),
            self.budget_ms,
            self.cpu_budget_ms,
        )
    }
}

/// Plays games `--first`.. of each pairing (Fugitive, Marshal) on `--threads` threads, game by
/// game across the pairings (so a run stopped early has played every pairing about as much).
/// `each` sees every game as it ends.
fn play_each(
    args: &Args,
    pairings: &[(Level, Level)],
    each: &(dyn Fn(Level, Level, usize, &MatchResult) + Sync),
) -> Vec<(Level, Level, usize, MatchResult)> {
    let total = args.games * pairings.len();
    let bar = if args.quiet { ProgressBar::hidden() } else { ProgressBar::new(total as u64) };
    bar.set_style(
        ProgressStyle::with_template("{bar:40} {pos}/{len} games, {elapsed} (eta {eta})")
            .expect("a valid template"),
    );
    let next = AtomicUsize::new(0);
    let results = Mutex::new(Vec::with_capacity(total));
    thread::scope(|scope| {
        for _ in 0..args.threads {
            scope.spawn(|| {
                loop {
                    let task = next.fetch_add(1, Ordering::Relaxed);
                    if task >= total {
                        break;
                    }
                    let (fugitive, marshal) = pairings[task % pairings.len()];
                    let index = args.first + task / pairings.len();
                    let result = args.game(fugitive, marshal, index);
                    each(fugitive, marshal, index, &result);
                    results.lock().expect("no worker panics").push((fugitive, marshal, index, result));
                    bar.inc(1);
                }
            });
        }
    });
    bar.finish_and_clear();
    results.into_inner().expect("no worker panics")
}

fn play(args: &Args, pairings: &[(Level, Level)]) -> Vec<(Level, Level, usize, MatchResult)> {
    play_each(args, pairings, &|_, _, _, _| {})
}

/// `--round-robin`: see [`Args::round_robin`] and `ladder.rs`.
fn round_robin(args: &Args) -> Result<()> {
    let levels = args.levels.clone().unwrap_or_else(|| Level::ALL.to_vec());
    let rows = args.rows.clone().unwrap_or_else(|| levels.clone());
    if let Some(row) = rows.iter().find(|r| !levels.contains(r)) {
        bail!("--rows names {row}, which is not one of --levels");
    }
    let pairings: Vec<(Level, Level)> =
        rows.iter().flat_map(|&f| levels.iter().map(move |&m| (f, m))).collect();
    let header = args.record_header();
    let mut games: Vec<ladder::Played> = Vec::new();
    let record = match &args.record {
        Some(path) => {
            if path.exists() {
                let text = std::fs::read_to_string(path)?;
                let mut lines = text.lines();
                if lines.next() != Some(header.as_str()) {
                    bail!(
                        "{} holds games of another seed or rule set; its first line must be {header:?}",
                        path.display()
                    );
                }
                for line in lines.filter(|l| !l.trim().is_empty()) {
                    games.push(ladder::Played::parse(line).map_err(anyhow::Error::msg)?);
                }
            } else {
                std::fs::write(path, format!("{header}\n"))?;
            }
            Some(Mutex::new(std::fs::OpenOptions::new().append(true).open(path)?))
        }
        None => None,
    };
    let played = |fugitive, marshal, index, result: &MatchResult| {
        if let Some(file) = &record {
            use std::io::Write as _;
            let line =
                ladder::Played { fugitive, marshal, index, winner: result.outcome.map(|o| o.winner) }.line();
            // One write per line, so runs recording into the same file never mix their lines.
            let mut file = file.lock().expect("no worker panics");
            file.write_all(format!("{line}\n").as_bytes()).expect("the record file is writable");
        }
    };
    let results = play_each(args, &pairings, &played);
    games.extend(results.iter().map(|(fugitive, marshal, index, r)| ladder::Played {
        fugitive: *fugitive,
        marshal: *marshal,
        index: *index,
        winner: r.outcome.map(|o| o.winner),
    }));
    println!("{header}");
    print!("{}", ladder::report(&games, &levels));
    let refused = results.iter().filter(|(_, _, _, r)| r.refused.is_some()).count();
    if refused > 0 {
        bail!("{refused} games ended by a refused bot move: a bot bug");
    }
    Ok(())
}

/// The opening rule by its name on the command line.
fn parse_opening(name: &str) -> Result<OpeningHideouts, String> {
    match name {
        "one-or-two" => Ok(OpeningHideouts::OneOrTwo),
        "exactly-two" => Ok(OpeningHideouts::ExactlyTwo),
        _ => Err(format!("no opening {name:?}: one-or-two, exactly-two")),
    }
}

/// An event variant by its name in the room option.
fn parse_events(name: &str) -> Result<EventVariant, String> {
    match name {
        "off" => Ok(EventVariant::Off),
        "random" => Ok(EventVariant::Random),
        "discovery" => Ok(EventVariant::Discovery),
        "helpful:fugitive" => Ok(EventVariant::HelpfulFugitive),
        "helpful:marshal" => Ok(EventVariant::HelpfulMarshal),
        "catchup" => Ok(EventVariant::Catchup),
        _ => Err(format!(
            "no event variant {name:?}: off, random, discovery, helpful:fugitive, helpful:marshal, catchup"
        )),
    }
}

/// A game's seed from the run's seed and its index (SplitMix64).
fn mix(seed: u64, index: u64) -> u64 {
    let mut z =
        seed.wrapping_mul(0x9e37_79b9_7f4a_7c15).wrapping_add(index).wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

fn report(args: &Args, results: &[MatchResult]) -> String {
    let n = results.len();
    let wins = |role| results.iter().filter(|r| r.outcome.is_some_and(|o| o.winner == role)).count();
    let unfinished = results.iter().filter(|r| r.outcome.is_none()).count();
    let refused = results.iter().filter(|r| r.refused.is_some()).count();
    let line = |name: &str, k: usize| {
        let (low, high) = wilson(k, n);
        format!(
            "{name:<9} wins {k:>6} / {n}  {:>5.1}%  95% CI [{:.1}%, {:.1}%]\n",
            pct(k, n),
            100.0 * low,
            100.0 * high
        )
    };
    let mut reasons: Vec<(String, usize)> = Vec::new();
    for outcome in results.iter().filter_map(|r| r.outcome) {
        let name = format!("{:?}", outcome.reason);
        match reasons.iter_mut().find(|(n, _)| *n == name) {
            Some((_, k)) => *k += 1,
            None => reasons.push((name, 1)),
        }
    }
    reasons.sort();
    let reasons: Vec<String> = reasons.into_iter().map(|(n, k)| format!("{n} {k}")).collect();
    let mean = |f: fn(&MatchResult) -> f64| results.iter().map(f).sum::<f64>() / n as f64;
    let timing = |name: String, times: &mut Vec<Duration>| {
        times.sort();
        let at =
            |q: f64| times.get(((times.len().max(1) - 1) as f64 * q) as usize).copied().unwrap_or_default();
        format!(
            "{name}: {} decisions, p50 {:.3} ms, p99 {:.3} ms, max {:.2} ms\n",
            times.len(),
            ms(at(0.5)),
            ms(at(0.99)),
            ms(at(1.0))
        )
    };
    let thinking = |role: Role| {
        let mut times: Vec<Duration> =
            results.iter().flat_map(|r| r.thinking[role].iter().copied()).collect();
        let mut cpu: Vec<Duration> =
            results.iter().flat_map(|r| r.thinking_cpu[role].iter().copied()).collect();
        let level = if role == Role::Fugitive { args.fugitive } else { args.marshal };
        timing(format!("{role:?} {level}"), &mut times)
            + &timing(format!("  thread CPU {role:?} {level}"), &mut cpu)
    };
    let mut baseline: Vec<Duration> = results.iter().flat_map(|r| r.baseline.iter().copied()).collect();
    let baseline = timing("baseline: Fugitive easy, same views".to_string(), &mut baseline);
    format!(
        "{} games from game {}, Fugitive {} vs Marshal {}, seed {}, events {:?}, opening {:?}, pass bonus {}, rollouts {}, budget {} wall, {} CPU, cap {}\n{}{}endings: {}\nunfinished {unfinished}, ended by a refused bot move {refused}\naverage length {:.1} actions, {:.1} Marshal turns\ntime per decision (wall clock, {} threads):\n{}{}{}",
        n,
        args.first,
        args.fugitive,
        args.marshal,
        args.seed,
        args.events,
        args.opening,
        if args.pass_bonus { "on" } else { "off" },
        args.rollouts.map_or("the level's".to_string(), |r| r.to_string()),
        args.budget_ms.map_or("none".to_string(), |ms| format!("{ms} ms")),
        args.cpu_budget_ms.map_or("none".to_string(), |ms| format!("{ms} ms")),
        args.cap_ms.map_or("none".to_string(), |ms| format!("{ms} ms")),
        line("Fugitive", wins(Role::Fugitive)),
        line("Marshal", wins(Role::Marshal)),
        reasons.join(", "),
        mean(|r| r.actions as f64),
        mean(|r| f64::from(r.marshal_turns)),
        args.threads,
        thinking(Role::Fugitive),
        baseline,
        thinking(Role::Marshal),
    )
}

fn ms(duration: Duration) -> f64 {
    duration.as_secs_f64() * 1e3
}

fn pct(k: usize, n: usize) -> f64 {
    100.0 * k as f64 / n as f64
}

/// The Wilson score interval for `k` successes in `n` trials at 95%.
pub(crate) fn wilson(k: usize, n: usize) -> (f64, f64) {
    let z = 1.959_963_984_540_054_f64;
    let (k, n) = (k as f64, n as f64);
    let p = k / n;
    let centre = (p + z * z / (2.0 * n)) / (1.0 + z * z / n);
    let half = z * (p * (1.0 - p) / n + z * z / (4.0 * n * n)).sqrt() / (1.0 + z * z / n);
    ((centre - half).max(0.0), (centre + half).min(1.0))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wilson_interval_matches_known_values() {
        // 50 of 100: [40.4%, 59.6%]; 0 of 10: [0, 27.8%].
        let (low, high) = wilson(50, 100);
        assert!((low - 0.4038).abs() < 1e-3 && (high - 0.5962).abs() < 1e-3);
        let (low, high) = wilson(0, 10);
        assert!(low == 0.0 && (high - 0.2775).abs() < 1e-3);
    }
}
