//! `--mode ceiling`: how many actions per second any server could serve this load client on
//! this machine, beside what the real server serves and the baselines issue 10's throughput
//! goals are stated against, in one run.
//!
//! For each G of `--ceiling-games` and each of `--rounds` rounds, one after the other (the order
//! reversed every other round, so a drift of the machine falls on both sides):
//! 1. the fan-out ceiling (`fanout.rs`): a bare WebSocket server that sends, per action, the
//!    frames the real server sends (a `delta` to each of the 2 players and `--spectators`
//!    spectators, the `reply` to the actor) and does nothing else;
//!    the same with one `write` per frame, as `fugitive-server` writes (the ceiling writes every
//!    frame waiting on a socket at once: the actor's delta and reply in one);
//! 2. `fugitive-server` on SQLite (a new database in a temporary directory);
//! 3. with `--postgres`, `fugitive-server` on PostgreSQL (a scratch database, created and
//!    dropped);
//!    with `--compare-bin`, that binary too, on each database, right after `--server-bin`
//!    (so, with the order reversed every other round, ABBA), "compared" in the tables;
//! 4. with `--postgres`, `pgbench` with 1 client, one single-row insert per transaction;
//! 5. the bare SQLite program committing one action per transaction (`bare.rs`).
//!
//! Each of 1–3 is a fresh server with G games set up exactly as `--mode matrix` sets them up,
//! played at full speed for `--full-for` by the matrix's own code (`matrix::game_block`: each
//! game's player to move acts, both players read until they have the new version, the
//! spectators read every frame). Around each block and baseline the run reads the CPU time of
//! this process (the load client; the bare SQLite program runs in it), of the server child, of
//! the `postgres` processes of the cluster of `--postgres` (its postmaster, found by
//! its `postmaster.pid`, and the postmaster's children: their own CPU and their reaped
//! children's, so backends that come and go count; every `postgres` process when the
//! postmaster cannot be found) and of `pgbench` (a reaped child of this process), and the machine's busy time
//! (`/proc/stat`), to say where each action's CPU goes.

use std::time::{Duration, SystemTime};

use anyhow::Context;
use tokio::time::Instant;

use crate::bare::{self, Scratch};
use crate::matrix::{self, Kind, Opened, Pace};
use crate::server::{Caps, Server, stat_ticks};
use crate::{Args, client};

/// What serves the games.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Target {
    /// The fan-out ceiling: frames only, every frame waiting on a socket in one `write`.
    FanOut,
    /// The same, one `write` per frame (as `fugitive-server` writes).
    FanOutEach,
    /// `fugitive-server` on SQLite.
    Sqlite,
    /// `fugitive-server` on PostgreSQL.
    Postgres,
    /// `--compare-bin` on SQLite.
    CompareSqlite,
    /// `--compare-bin` on PostgreSQL.
    ComparePostgres,
}

impl Target {
    fn name(self) -> &'static str {
        match self {
            Target::FanOut => "fan-out ceiling",
            Target::FanOutEach => "fan-out, a write per frame",
            Target::Sqlite => "server, SQLite",
            Target::Postgres => "server, PostgreSQL",
            Target::CompareSqlite => "compared, SQLite",
            Target::ComparePostgres => "compared, PostgreSQL",
        }
    }
}

/// A baseline of the goals.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Baseline {
    /// `pgbench`, 1 client, single-row inserts.
    Pgbench,
    /// The bare SQLite program, one action per transaction.
    BareSqlite,
}

impl Baseline {
    fn name(self) -> &'static str {
        match self {
            Baseline::Pgbench => "pgbench, 1 client",
            Baseline::BareSqlite => "bare SQLite, 1 action per transaction",
        }
    }
}

#[derive(Clone, Copy, Debug)]
enum Step {
    Serve(Target),
    Base(Baseline),
}

/// CPU time read around one block, in clock ticks of `/proc` (`USER_HZ`, 100 a second).
#[derive(Clone, Copy, Debug, Default)]
pub struct Cpu {
    /// This process (the load client, and the bare program when it runs).
    pub client: u64,
    /// This process's reaped children (`pgbench`).
    pub children: u64,
    /// The server child (the fan-out ceiling or `fugitive-server`).
    pub server: u64,
    /// Every `postgres` process, with its reaped children.
    pub postgres: u64,
    /// The machine: busy (all CPUs), of which at a positive nice, and the total (busy + idle).
    pub busy: u64,
    pub nice: u64,
    pub total: u64,
}

impl Cpu {
    fn now(server: Option<&Server>, postmaster: Option<u32>) -> anyhow::Result<Cpu> {
        let own = stat_ticks(&std::fs::read_to_string("/proc/self/stat")?).context("/proc/self/stat")?;
        let server = match server {
            Some(server) => (server.cpu_time()?.as_millis() / 10) as u64,
            None => 0,
        };
        let (busy, nice, total) = machine_ticks()?;
        Ok(Cpu {
            client: own[0] + own[1],
            children: own[2] + own[3],
            server,
            postgres: postgres_ticks(postmaster),
            busy,
            nice,
            total,
        })
    }

    fn since(self, before: Cpu) -> Cpu {
        Cpu {
            client: self.client.saturating_sub(before.client),
            children: self.children.saturating_sub(before.children),
            server: self.server.saturating_sub(before.server),
            postgres: self.postgres.saturating_sub(before.postgres),
            busy: self.busy.saturating_sub(before.busy),
            nice: self.nice.saturating_sub(before.nice),
            total: self.total.saturating_sub(before.total),
        }
    }
}

/// The postmaster of the PostgreSQL cluster at `url` (its data directory's `postmaster.pid`),
/// when this machine can read it.
async fn postmaster(url: &str) -> Option<u32> {
    use sqlx::Connection;
    let mut conn = sqlx::PgConnection::connect(url).await.ok()?;
    let dir: String = sqlx::query_scalar("SELECT setting FROM pg_settings WHERE name = 'data_directory'")
        .fetch_one(&mut conn)
        .await
        .ok()?;
    let _ = conn.close().await;
    let pid = std::fs::read_to_string(std::path::Path::new(&dir).join("postmaster.pid")).ok()?;
    pid.lines().next()?.trim().parse().ok()
}

/// The CPU time of the processes named `postgres` and of their reaped children: the
/// `postmaster` and its children, or every one without it.
fn postgres_ticks(postmaster: Option<u32>) -> u64 {
    let Ok(entries) = std::fs::read_dir("/proc") else { return 0 };
    entries
        .flatten()
        .filter(|entry| {
            entry.file_name().to_str().is_some_and(|name| name.bytes().all(|b| b.is_ascii_digit()))
        })
        .filter_map(|entry| std::fs::read_to_string(entry.path().join("stat")).ok())
        .filter(|stat| stat.split_once(" (").is_some_and(|(_, rest)| rest.starts_with("postgres)")))
        .filter(|stat| postmaster.is_none_or(|postmaster| of_postmaster(stat, postmaster)))
        .filter_map(|stat| stat_ticks(&stat))
        .map(|ticks| ticks.iter().sum::<u64>())
        .sum()
}

/// Whether a `/proc/<pid>/stat` line is `postmaster`'s or one of its children's.
fn of_postmaster(stat: &str, postmaster: u32) -> bool {
    let pid = stat.split_whitespace().next().and_then(|pid| pid.parse::<u32>().ok());
    // After the name: state, then the parent's pid.
    let parent =
        stat.rsplit_once(") ").and_then(|(_, rest)| rest.split_whitespace().nth(1)?.parse::<u32>().ok());
    pid == Some(postmaster) || parent == Some(postmaster)
}

/// The machine's busy ticks (all CPUs), those at a positive nice, and all ticks, from
/// `/proc/stat`'s `cpu` line (user nice system idle iowait irq softirq steal …).
fn machine_ticks() -> anyhow::Result<(u64, u64, u64)> {
    let text = std::fs::read_to_string("/proc/stat")?;
    let line = text.lines().find(|line| line.starts_with("cpu ")).context("no cpu line in /proc/stat")?;
    let fields: Vec<u64> = line.split_whitespace().skip(1).take(8).filter_map(|f| f.parse().ok()).collect();
    anyhow::ensure!(fields.len() == 8, "a short cpu line in /proc/stat: {line}");
    let idle = fields[3] + fields[4];
    let total: u64 = fields.iter().sum();
    Ok((total - idle, fields[1], total))
}

/// One block of games at full speed on one target.
pub struct Served {
    pub target: Target,
    pub games: usize,
    pub round: u32,
    pub actions: u64,
    pub elapsed: Duration,
    pub cpu: Cpu,
    /// Text frames and their bytes the client received during the block.
    pub frames: u64,
    pub bytes: u64,
    /// The server's transactions (0 for the fan-out ceiling).
    pub batches: u64,
    /// Games dropped (an error, a refusal, a timeout).
    pub failed: usize,
    /// Setting the games up took this long.
    pub setup: Duration,
}

impl Served {
    fn per_sec(&self) -> f64 {
        self.actions as f64 / self.elapsed.as_secs_f64()
    }
}

/// One baseline run.
pub struct Based {
    pub baseline: Baseline,
    pub games: usize,
    pub round: u32,
    /// Transactions (= actions) per second.
    pub per_sec: f64,
    pub transactions: f64,
    pub cpu: Cpu,
}

/// The whole run.
pub struct Ceiling {
    pub served: Vec<Served>,
    pub based: Vec<Based>,
    pub started: SystemTime,
    pub took: Duration,
    pub load_before: String,
    pub load_after: String,
}

/// Runs it.
///
/// # Errors
/// When a server, a database or `pgbench` fails; a game that fails is counted, not fatal.
pub async fn run(args: &Args, http: &reqwest::Client) -> anyhow::Result<Ceiling> {
    let started = SystemTime::now();
    let clock = Instant::now();
    let load_before = crate::report::load_average();
    let max_games = args.ceiling_games.iter().copied().max().unwrap_or(0) as usize;
    crate::raise_fd_limit(max_games * (2 + args.spectators as usize))?;
    let compare = args.compare_bin.is_some();
    let mut steps =
        vec![Step::Serve(Target::FanOut), Step::Serve(Target::FanOutEach), Step::Serve(Target::Sqlite)];
    if compare {
        steps.push(Step::Serve(Target::CompareSqlite));
    }
    if args.postgres.is_some() {
        steps.push(Step::Serve(Target::Postgres));
        if compare {
            steps.push(Step::Serve(Target::ComparePostgres));
        }
        steps.push(Step::Base(Baseline::Pgbench));
    }
    let postmaster = match &args.postgres {
        Some(url) => postmaster(url).await,
        None => None,
    };
    if args.postgres.is_some() && postmaster.is_none() {
        eprintln!("the postmaster of --postgres was not found: counting every postgres process");
    }
    steps.push(Step::Base(Baseline::BareSqlite));
    let (mut served, mut based) = (Vec::new(), Vec::new());
    for &games in &args.ceiling_games {
        let games = games as usize;
        for round in 1..=args.rounds {
            for &step in &steps {
                match step {
                    Step::Serve(target) => {
                        let block = serve(args, http, target, games, round, postmaster)
                            .await
                            .with_context(|| format!("{}, {games} games, round {round}", target.name()))?;
                        eprintln!(
                            "{games} games, round {round}: {}: {:.0} actions/s",
                            target.name(),
                            block.per_sec()
                        );
                        served.push(block);
                    }
                    Step::Base(baseline) => {
                        let based_run = base(args, baseline, games, round, postmaster).await?;
                        eprintln!(
                            "{games} games, round {round}: {}: {:.0}/s",
                            baseline.name(),
                            based_run.per_sec
                        );
                        based.push(based_run);
                    }
                }
            }
            steps.reverse();
        }
    }
    Ok(Ceiling {
        served,
        based,
        started,
        took: clock.elapsed(),
        load_before,
        load_after: crate::report::load_average(),
    })
}

/// A fresh `target` with `games` games at full speed for `--full-for`.
async fn serve(
    args: &Args,
    http: &reqwest::Client,
    target: Target,
    games: usize,
    round: u32,
    postmaster: Option<u32>,
) -> anyhow::Result<Served> {
    let spectators = args.spectators as usize;
    let caps = Caps { sockets: games * (2 + spectators) + 16, sockets_per_room: spectators + 8 };
    // Sockets set up first wait for the last ones: a long idle timeout keeps them.
    let extra = ["--idle-timeout", "30m"];
    let postgres = matches!(target, Target::Postgres | Target::ComparePostgres);
    let scratch = match (postgres, &args.postgres) {
        (true, Some(admin)) => Some(Scratch::create(admin, &format!("c{games}r{round}")).await?),
        (true, None) => anyhow::bail!("PostgreSQL needs --postgres"),
        (false, _) => None,
    };
    let bin = match target {
        Target::CompareSqlite | Target::ComparePostgres => {
            args.compare_bin.as_ref().context("--compare-bin is not set")?
        }
        _ => &args.server_bin,
    };
    let served = async {
        let server = match target {
            Target::FanOut => Server::start_fanout(http, false).await?,
            Target::FanOutEach => Server::start_fanout(http, true).await?,
            _ => {
                let url = scratch.as_ref().map(|s| s.url.as_str());
                Server::start_on(bin, caps, http, url, &extra).await?
            }
        };
        let setup_started = Instant::now();
        let Opened { tables, stop, holders } = matrix::open_games(args, http, server.addr, games).await?;
        let setup = setup_started.elapsed();
        let (frames_before, bytes_before) = client::received();
        let before = Cpu::now(Some(&server), postmaster)?;
        let (tables, block) =
            matrix::game_block(args, http, &server, tables, Pace::Full, args.full_for, Kind::Games).await?;
        let cpu = Cpu::now(Some(&server), postmaster)?.since(before);
        let (frames, bytes) = client::received();
        let _ = stop.send(true);
        drop(tables);
        holders.join_all().await;
        server.stop().await;
        anyhow::Ok(Served {
            target,
            games,
            round,
            actions: block.count,
            elapsed: block.elapsed,
            cpu,
            frames: frames - frames_before,
            bytes: bytes - bytes_before,
            batches: block.batches,
            failed: block.failed,
            setup,
        })
    }
    .await;
    if let Some(scratch) = scratch {
        scratch.drop_database().await;
    }
    served
}

/// One baseline run of `--bare-for`.
async fn base(
    args: &Args,
    baseline: Baseline,
    games: usize,
    round: u32,
    postmaster: Option<u32>,
) -> anyhow::Result<Based> {
    let before = Cpu::now(None, postmaster)?;
    let (per_sec, transactions) = match (baseline, &args.postgres) {
        (Baseline::Pgbench, Some(admin)) => {
            let secs = args.bare_for.as_secs().max(1) as u32;
            let pg = bare::pgbench(admin, 1, secs).await?;
            (pg.tps, pg.tps * f64::from(secs))
        }
        (Baseline::Pgbench, None) => anyhow::bail!("pgbench needs --postgres"),
        (Baseline::BareSqlite, _) => {
            let dir = tempfile::Builder::new().prefix("fugitive-load-bare-").tempdir()?;
            let bare = bare::commit(&bare::sqlite_url(dir.path()), 1_000_000, 1, args.bare_for).await?;
            (bare.throughput.per_sec(), bare.throughput.actions as f64)
        }
    };
    let cpu = Cpu::now(None, postmaster)?.since(before);
    Ok(Based { baseline, games, round, per_sec, transactions, cpu })
}

/// Microseconds of CPU per action from `ticks` (10 ms each) over `actions`.
fn us_per(ticks: u64, actions: f64) -> f64 {
    ticks as f64 * 10_000.0 / actions.max(1.0)
}

/// The run as markdown.
pub fn section(c: &Ceiling, args: &Args, command: &str) -> String {
    use std::fmt::Write;
    let cpus = std::thread::available_parallelism().map_or(2, |n| n.get());
    let mut out = String::new();
    let _ = writeln!(
        out,
        "Run {}, took {:.0} s; load average before {}, after {}; {cpus} CPUs; protocol version {}; \
         2 players + {} spectators per game, full speed, blocks of {:?}, baselines of {:?}; {} round(s) per \
         number of games, the order reversed every other round.\n\nCommand: `{command}`\n",
        humantime::format_rfc3339_seconds(c.started),
        c.took.as_secs_f64(),
        c.load_before,
        c.load_after,
        args.protocol,
        args.spectators,
        args.full_for,
        args.bare_for,
        args.rounds,
    );
    out.push_str(
        "CPU is µs of CPU time per action (a baseline: per transaction), from `/proc`: the load \
         client (this process), the server (the fan-out ceiling or `fugitive-server`), the \
         `postgres` processes of `--postgres`'s cluster (every one when its postmaster is not \
         found), `pgbench`; \"compared\" is `--compare-bin`; \"machine busy\" is all CPUs' busy time over the block \
         (200 % = both CPUs), \"niced\" the part of it at a positive nice (e.g. bot \
         simulations).\n\n",
    );
    out.push_str(
        "| games | round | served by | actions | actions/s | frames / action | bytes / action | actions per commit \
         | client µs | server µs | postgres µs | sum µs | machine busy | niced | failed | set up |\n",
    );
    out.push_str("|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
    for s in &c.served {
        let n = s.actions as f64;
        let commits = if matches!(s.target, Target::FanOut | Target::FanOutEach) {
            "—".to_string()
        } else {
            format!("{:.0}", n / s.batches.max(1) as f64)
        };
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} | {:.0} | {:.2} | {:.0} | {commits} | {:.1} | {:.1} | {:.1} | {:.1} | {:.0} % | {:.0} % | {} | {:.1} s |",
            s.games,
            s.round,
            s.target.name(),
            s.actions,
            s.per_sec(),
            s.frames as f64 / n.max(1.0),
            s.bytes as f64 / n.max(1.0),
            us_per(s.cpu.client, n),
            us_per(s.cpu.server, n),
            us_per(s.cpu.postgres, n),
            us_per(s.cpu.client + s.cpu.server + s.cpu.postgres, n),
            percent(s.cpu.busy, s.cpu.total, cpus),
            percent(s.cpu.nice, s.cpu.total, cpus),
            s.failed,
            s.setup.as_secs_f64(),
        );
    }
    out.push('\n');
    out.push_str(
        "| after games | round | baseline | per second | client process µs | pgbench µs | postgres µs | sum µs | machine busy | niced |\n",
    );
    out.push_str("|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|\n");
    for b in &c.based {
        let n = b.transactions;
        let _ = writeln!(
            out,
            "| {} | {} | {} | {:.0} | {:.1} | {:.1} | {:.1} | {:.1} | {:.0} % | {:.0} % |",
            b.games,
            b.round,
            b.baseline.name(),
            b.per_sec,
            us_per(b.cpu.client, n),
            us_per(b.cpu.children, n),
            us_per(b.cpu.postgres, n),
            us_per(b.cpu.client + b.cpu.children + b.cpu.postgres, n),
            percent(b.cpu.busy, b.cpu.total, cpus),
            percent(b.cpu.nice, b.cpu.total, cpus),
        );
    }
    out.push('\n');
    out.push_str(&ratios(c, cpus));
    out
}

fn percent(ticks: u64, total: u64, cpus: usize) -> f64 {
    100.0 * cpus as f64 * ticks as f64 / total.max(1) as f64
}

/// Per G: each target's actions/s over all its rounds and its CPU per action, the baselines'
/// mean, and the ratios the question is about.
fn ratios(c: &Ceiling, cpus: usize) -> String {
    use std::fmt::Write;
    let mut out = String::new();
    let mut games: Vec<usize> = c.served.iter().map(|s| s.games).collect();
    games.dedup();
    out.push_str(
        "| games | fan-out ceiling /s | fan-out, a write per frame /s | server SQLite /s | server PostgreSQL /s | pgbench 1 client /s | bare SQLite /s \
         | ceiling / (3 × pgbench) | ceiling / (3 × bare SQLite) | server SQLite / ceiling | server PostgreSQL / ceiling \
         | compared SQLite / ceiling | compared PostgreSQL / ceiling |\n",
    );
    out.push_str("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
    let mut arithmetic = String::new();
    for &g in &games {
        let of = |target: Target| {
            let blocks: Vec<&Served> =
                c.served.iter().filter(|s| s.games == g && s.target == target).collect();
            let actions: u64 = blocks.iter().map(|s| s.actions).sum();
            let secs: f64 = blocks.iter().map(|s| s.elapsed.as_secs_f64()).sum();
            let cpu = blocks.iter().fold(Cpu::default(), |sum, s| Cpu {
                client: sum.client + s.cpu.client,
                server: sum.server + s.cpu.server,
                postgres: sum.postgres + s.cpu.postgres,
                busy: sum.busy + s.cpu.busy,
                total: sum.total + s.cpu.total,
                ..sum
            });
            (!blocks.is_empty()).then(|| (actions as f64 / secs, actions as f64, cpu))
        };
        let base = |baseline: Baseline| {
            let runs: Vec<&Based> =
                c.based.iter().filter(|b| b.games == g && b.baseline == baseline).collect();
            (!runs.is_empty()).then(|| runs.iter().map(|b| b.per_sec).sum::<f64>() / runs.len() as f64)
        };
        let (fan, sqlite, pg) = (of(Target::FanOut), of(Target::Sqlite), of(Target::Postgres));
        let each = of(Target::FanOutEach);
        let (compare_sqlite, compare_pg) = (of(Target::CompareSqlite), of(Target::ComparePostgres));
        let (pgbench, bare) = (base(Baseline::Pgbench), base(Baseline::BareSqlite));
        let rate = |x: Option<f64>| x.map_or("—".to_string(), |x| format!("{x:.0}"));
        let ratio = |a: Option<f64>, b: Option<f64>| match (a, b) {
            (Some(a), Some(b)) => format!("{:.2}×", a / b),
            _ => "—".to_string(),
        };
        let fan_rate = fan.map(|f| f.0);
        let _ = writeln!(
            out,
            "| {g} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |",
            rate(fan_rate),
            rate(each.map(|e| e.0)),
            rate(sqlite.map(|s| s.0)),
            rate(pg.map(|s| s.0)),
            rate(pgbench),
            rate(bare),
            ratio(fan_rate, pgbench.map(|p| 3.0 * p)),
            ratio(fan_rate, bare.map(|b| 3.0 * b)),
            ratio(sqlite.map(|s| s.0), fan_rate),
            ratio(pg.map(|s| s.0), fan_rate),
            ratio(compare_sqlite.map(|s| s.0), fan_rate),
            ratio(compare_pg.map(|s| s.0), fan_rate),
        );
        let targets = [
            (Target::FanOut, fan),
            (Target::FanOutEach, each),
            (Target::Sqlite, sqlite),
            (Target::Postgres, pg),
            (Target::CompareSqlite, compare_sqlite),
            (Target::ComparePostgres, compare_pg),
        ];
        for (target, figures) in targets {
            let Some((rate, actions, cpu)) = figures else { continue };
            let (client, server, postgres) =
                (us_per(cpu.client, actions), us_per(cpu.server, actions), us_per(cpu.postgres, actions));
            let sum = client + server + postgres;
            let _ = writeln!(
                arithmetic,
                "- {g} games, {}: {rate:.0} actions/s; CPU per action: client {client:.1} + server {server:.1} \
                 + postgres {postgres:.1} = {sum:.1} µs, so {cpus} CPUs fully used by these alone would serve at \
                 most {:.0} actions/s (machine busy {:.0} % of {}).",
                target.name(),
                cpus as f64 * 1e6 / sum.max(0.001),
                percent(cpu.busy, cpu.total, cpus),
                100 * cpus,
            );
        }
        let goals = [
            ("3 × pgbench", pgbench.map(|p| 3.0 * p), pg),
            ("3 × bare SQLite", bare.map(|b| 3.0 * b), sqlite),
        ];
        for (what, goal, real) in goals {
            let (Some(goal), Some((_, actions, cpu))) = (goal, fan) else { continue };
            let per_action = us_per(cpu.client + cpu.server, actions);
            let budget = cpus as f64 * 1e6 / goal;
            let real_extra = real.map_or(String::new(), |(_, real_actions, real_cpu)| {
                let real_sum = us_per(real_cpu.client + real_cpu.server + real_cpu.postgres, real_actions);
                format!(
                    " (the real server on this database uses {:.1} µs more than that: {real_sum:.1} µs in all)",
                    real_sum - per_action
                )
            });
            let _ = writeln!(
                arithmetic,
                "- {g} games, {what} = {goal:.0} actions/s: {cpus} CPUs give {budget:.1} µs of CPU per action; the \
                 client and the fan-out ceiling use {per_action:.1} µs ({:.2} CPUs at that rate), leaving {:.1} µs \
                 for the rules, the views and the database{real_extra}. The ceiling on all {cpus} CPUs, \
                 {:.0} actions/s, is {:.2}× {what}.",
                goal * per_action / 1e6,
                budget - per_action,
                cpus as f64 * 1e6 / per_action,
                cpus as f64 * 1e6 / per_action / goal,
            );
        }
    }
    out.push('\n');
    out.push_str(&arithmetic);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_four_cpu_fields_of_a_proc_stat_line() {
        let stat = "1234 (postgres) S 1 1234 1234 0 -1 4194304 500 0 0 0 250 50 7 3 20 0 9 0";
        assert_eq!(stat_ticks(stat), Some([250, 50, 7, 3]));
        assert!(stat_ticks(&std::fs::read_to_string("/proc/self/stat").unwrap()).is_some());
        let (busy, nice, total) = machine_ticks().unwrap();
        assert!(busy <= total && nice <= busy);
        let backend = "4321 (postgres) S 1234 4321 4321 0 -1 4194304 500 0 0 0 250 50 7 3 20 0 9 0";
        assert!(of_postmaster(backend, 1234), "a child of the postmaster");
        assert!(of_postmaster(stat, 1234), "the postmaster itself");
        assert!(!of_postmaster(backend, 99), "another cluster's");
    }
}
