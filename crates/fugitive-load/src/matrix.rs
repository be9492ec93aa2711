//! `--mode matrix`: issue 10's measurements in one run.
//!
//! For each database (SQLite in a temporary directory; PostgreSQL too with `--postgres`, on a
//! scratch database created and dropped) and each number of games G of `--matrix-games`:
//! 1. a fresh server, G rooms with both players and `--spectators` spectators connected (the
//!    spectators only read), and G sockets on a bare axum WebSocket echo in a process of its
//!    own;
//! 2. `--blocks` pairs of blocks of `--block` each, alternating: the G games at a human pace
//!    (each game acts once every `--pace-min`..`--pace-max`, uniformly jittered, starting at a
//!    random offset), then the G echo sockets at the same pace. The games' figure is action →
//!    opponent's view (sending the action until the opponent has the new version: a `delta`, or
//!    with `--protocol 1` a whole `state`), the echo's the round trip; the ratio of the two is the figure;
//! 3. one block of each at full speed (every game and echo socket as fast as answered);
//! 4. at `--loaded-games`, one more human-pace block of the games while a competing writer
//!    (small synchronous writes in a loop, [`Competitor`]) loads the same disk.
//!
//! Then the bare programs on the same disk (`bare.rs`): one action per transaction, the
//! server's mean full-speed batch per transaction, one action per transaction beside the
//! competing writer; on PostgreSQL also `pgbench` with 1 and 8 clients. Every block reports
//! p50/p99/p99.9, actions/s, the server's CPU (`/proc/<pid>/stat`) and RSS.
//!
//! Under each database, where the human-pace actions' time went (issue 28): the server's
//! `fugitive_action_stage_seconds` over the blocks (`stages.rs`), and how late this client's own
//! timers fired in the games' and the echo's blocks, a delay that both figures include.

use std::io::Write as _;
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, SystemTime};

use anyhow::Context;
use hdrhistogram::Histogram;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use tokio::sync::watch;
use tokio::task::JoinSet;
use tokio::time::Instant;

use crate::bare::{self, Bare, Pgbench, Scratch, histogram};
use crate::client::{self, Player};
use crate::echo::{EchoClient, EchoServer};
use crate::server::{Caps, Server};
use crate::stages::Stages;
use crate::{Args, join_all, play};

/// How the clients act.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pace {
    /// Once every `--pace-min`..`--pace-max` per game (or echo socket).
    Human,
    /// As fast as answered.
    Full,
}

/// What a block measures.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// The games: action → opponent's view.
    Games,
    /// The games, beside the competing writer.
    GamesLoadedDisk,
    /// The echo: round trip.
    Echo,
}

/// One block's figures (blocks of the same kind and pace are merged).
pub struct Block {
    pub kind: Kind,
    pub pace: Pace,
    /// Actions (or round trips) completed.
    pub count: u64,
    pub elapsed: Duration,
    /// Microseconds.
    pub latency: Histogram<u64>,
    /// The server's CPU time during the blocks (games only).
    pub cpu: Duration,
    /// The server's RSS at the end of the last block, KiB (games only).
    pub rss_kib: u64,
    /// Games (or echo sockets) that failed and were dropped: an error, a refusal, a timeout.
    pub failed: usize,
    /// The server's transactions during the blocks (games only).
    pub batches: u64,
    /// How late this client's timers fired (µs): its own scheduling delay, which every
    /// latency figure of the block includes.
    pub late: Histogram<u64>,
    /// Where the actions' time went inside the server (games only).
    pub stages: Stages,
}

impl Block {
    /// A block of `kind` at `pace` before anything was measured.
    fn empty(kind: Kind, pace: Pace) -> Block {
        Block {
            kind,
            pace,
            count: 0,
            elapsed: Duration::ZERO,
            latency: histogram(),
            cpu: Duration::ZERO,
            rss_kib: 0,
            failed: 0,
            batches: 0,
            late: histogram(),
            stages: Stages::default(),
        }
    }

    fn per_sec(&self) -> f64 {
        self.count as f64 / self.elapsed.as_secs_f64()
    }

    fn merge(&mut self, other: Block) {
        self.count += other.count;
        self.elapsed += other.elapsed;
        self.latency.add(&other.latency).expect("same bounds");
        self.cpu += other.cpu;
        self.rss_kib = other.rss_kib;
        self.failed += other.failed;
        self.batches += other.batches;
        self.late.add(&other.late).expect("same bounds");
        self.stages.merge(&other.stages);
    }
}

/// One G on one database.
pub struct Run {
    pub games: usize,
    pub blocks: Vec<Block>,
    /// Spectator sockets the server closed during the run (too slow).
    pub kicked: usize,
    /// Setting the G games up took this long.
    pub setup: Duration,
}

impl Run {
    fn block(&self, kind: Kind, pace: Pace) -> Option<&Block> {
        self.blocks.iter().find(|b| b.kind == kind && b.pace == pace)
    }
}

/// Everything measured on one database.
pub struct Database {
    pub name: &'static str,
    pub runs: Vec<Run>,
    pub single: Bare,
    pub batched: Bare,
    pub single_loaded: Bare,
    /// Synchronous 4 KiB writes per second the competitor made beside `single_loaded`.
    pub competitor_rate: f64,
    pub pgbench: Vec<Pgbench>,
}

/// The whole matrix.
pub struct Matrix {
    pub databases: Vec<Database>,
    pub started: SystemTime,
    pub took: Duration,
    pub load_before: String,
    pub load_after: String,
}

/// A seated pair (its room's spectators read in tasks of their own).
pub(crate) struct Game {
    players: [Player; 2],
    rng: StdRng,
}

/// Runs the matrix.
///
/// # Errors
/// When a server or a database fails to start; a game that fails is counted, not fatal.
pub async fn run(args: &Args, http: &reqwest::Client) -> anyhow::Result<Matrix> {
    let started = SystemTime::now();
    let clock = Instant::now();
    let load_before = crate::report::load_average();
    let max_games = args.matrix_games.iter().copied().max().unwrap_or(0) as usize;
    let spectators = args.spectators as usize;
    // The client's sockets: every game's players and spectators, and as many echo sockets.
    crate::raise_fd_limit(max_games * (3 + spectators))?;
    let echo = EchoServer::start().await?;
    let mut databases = Vec::new();
    databases.push(database(args, http, &echo, None).await?);
    if let Some(admin) = &args.postgres {
        databases.push(database(args, http, &echo, Some(admin)).await?);
    }
    Ok(Matrix {
        databases,
        started,
        took: clock.elapsed(),
        load_before,
        load_after: crate::report::load_average(),
    })
}

/// All the runs and baselines on SQLite (`admin` `None`) or PostgreSQL.
async fn database(
    args: &Args,
    http: &reqwest::Client,
    echo: &EchoServer,
    admin: Option<&str>,
) -> anyhow::Result<Database> {
    let name = if admin.is_some() { "PostgreSQL" } else { "SQLite" };
    let mut runs = Vec::new();
    for &games in &args.matrix_games {
        let scratch = match admin {
            Some(admin) => Some(Scratch::create(admin, &format!("g{games}")).await?),
            None => None,
        };
        let run = one_run(args, http, echo, games as usize, scratch.as_ref().map(|s| s.url.as_str())).await;
        if let Some(scratch) = scratch {
            scratch.drop_database().await;
        }
        runs.push(run.with_context(|| format!("{name}, {games} games"))?);
    }
    // The bare programs, on the same disk (SQLite: a temporary directory beside the server's).
    let limit = args.bare_for;
    let count = 1_000_000;
    let batch = runs
        .iter()
        .filter_map(|run| run.block(Kind::Games, Pace::Full))
        .max_by_key(|block| block.count)
        .map_or(64, |block| (block.count as f64 / block.batches.max(1) as f64).round() as usize)
        .max(1);
    let bare_run = |batch: usize, tag: &'static str| async move {
        match admin {
            Some(admin) => {
                let scratch = Scratch::create(admin, tag).await?;
                let result = bare::commit(&scratch.url, count, batch, limit).await;
                scratch.drop_database().await;
                result
            }
            None => {
                let dir = tempfile::Builder::new().prefix("fugitive-load-bare-").tempdir()?;
                bare::commit(&bare::sqlite_url(dir.path()), count, batch, limit).await
            }
        }
    };
    eprintln!("{name}: bare, one action per transaction…");
    let single = bare_run(1, "bare1").await?;
    eprintln!("{name}: bare, {batch} actions per transaction…");
    let batched = bare_run(batch, "barebatch").await?;
    eprintln!("{name}: bare, one action per transaction, beside a competing writer…");
    let competitor = Competitor::start(&std::env::temp_dir())?;
    let single_loaded = bare_run(1, "bareloaded").await;
    let competitor_rate = competitor.stop();
    let single_loaded = single_loaded?;
    let mut pgbench = Vec::new();
    if let Some(admin) = admin {
        for clients in [1, 8] {
            eprintln!("{name}: pgbench, {clients} clients…");
            pgbench.push(bare::pgbench(admin, clients, limit.as_secs().max(1) as u32).await?);
        }
    }
    Ok(Database { name, runs, single, batched, single_loaded, competitor_rate, pgbench })
}

/// One G on a fresh server.
async fn one_run(
    args: &Args,
    http: &reqwest::Client,
    echo: &EchoServer,
    games: usize,
    database: Option<&str>,
) -> anyhow::Result<Run> {
    let spectators = args.spectators as usize;
    eprintln!("{games} games: setting up…");
    let caps = Caps { sockets: games * (2 + spectators) + 16, sockets_per_room: spectators + 8 };
    // Sockets set up first wait for the last ones: a long idle timeout keeps them.
    let extra = ["--idle-timeout", "30m"];
    let server = Server::start_on(&args.server_bin, caps, http, database, &extra).await?;
    let setup_started = Instant::now();
    let Opened { mut tables, stop, holders } = open_games(args, http, server.addr, games).await?;
    let echoes = join_all((0..games).map(|_| EchoClient::connect(echo.addr)), args.concurrency).await?;
    let mut echoes: Vec<(EchoClient, StdRng)> = echoes
        .into_iter()
        .enumerate()
        .map(|(i, c)| (c, StdRng::seed_from_u64(args.seed.wrapping_add(1 << 32).wrapping_add(i as u64))))
        .collect();
    let setup = setup_started.elapsed();
    eprintln!("{games} games: set up in {setup:.1?}");

    let mut blocks: Vec<Block> = Vec::new();
    let mut keep =
        |block: Block| match blocks.iter_mut().find(|b| b.kind == block.kind && b.pace == block.pace) {
            Some(same) => same.merge(block),
            None => blocks.push(block),
        };
    for round in 0..args.blocks {
        eprintln!("{games} games: human pace, block {}/{}…", round + 1, args.blocks);
        let block;
        (tables, block) =
            game_block(args, http, &server, tables, Pace::Human, args.block, Kind::Games).await?;
        keep(block);
        let block;
        (echoes, block) = echo_block(args, echoes, Pace::Human, args.block).await;
        keep(block);
    }
    eprintln!("{games} games: full speed…");
    let block;
    (tables, block) = game_block(args, http, &server, tables, Pace::Full, args.full_for, Kind::Games).await?;
    keep(block);
    let block;
    (echoes, block) = echo_block(args, echoes, Pace::Full, args.full_for).await;
    keep(block);
    if args.loaded_games == games as u32 {
        eprintln!("{games} games: human pace beside a competing writer…");
        let competitor = Competitor::start(&std::env::temp_dir())?;
        let result =
            game_block(args, http, &server, tables, Pace::Human, args.block, Kind::GamesLoadedDisk).await;
        let _ = competitor.stop();
        let block;
        (tables, block) = result?;
        keep(block);
    }
    drop(echoes);
    let _ = stop.send(true);
    drop(tables);
    let kicked = holders.join_all().await.into_iter().filter(|open| !*open).count();
    server.stop().await;
    Ok(Run { games, blocks, kicked, setup })
}

/// G games set up on the server at `addr`: rooms created, seats claimed, both players and
/// `--spectators` spectators joined; the spectators only read, each in a task of its own.
pub(crate) struct Opened {
    /// The seated pairs.
    pub tables: Vec<Game>,
    /// Turned true, lets the spectators go.
    pub stop: watch::Sender<bool>,
    /// The spectators' tasks: each says whether its socket was still open at the end.
    pub holders: JoinSet<bool>,
}

/// Sets up `games` games on the server at `addr` (at most `--concurrency` at a time).
///
/// # Errors
/// When a room cannot be made or a socket cannot join.
pub(crate) async fn open_games(
    args: &Args,
    http: &reqwest::Client,
    addr: std::net::SocketAddr,
    games: usize,
) -> anyhow::Result<Opened> {
    let spectators = args.spectators as usize;
    let open_table = |i: usize| async move {
        let table = client::table(http, addr).await?;
        let players = [
            Player::join(addr, &table.room, Some(&table.tokens[0])).await?,
            Player::join(addr, &table.room, Some(&table.tokens[1])).await?,
        ];
        let mut watchers = Vec::with_capacity(spectators);
        for _ in 0..spectators {
            watchers.push(Player::join(addr, &table.room, None).await?);
        }
        let rng = StdRng::seed_from_u64(args.seed.wrapping_add(i as u64));
        anyhow::Ok((Game { players, rng }, watchers))
    };
    let opened = join_all((0..games).map(open_table), args.concurrency).await?;
    let (stop, held) = watch::channel(false);
    let mut holders = JoinSet::new();
    let mut tables = Vec::with_capacity(games);
    for (game, watchers) in opened {
        tables.push(game);
        for watcher in watchers {
            holders.spawn(watcher.hold(held.clone()));
        }
    }
    Ok(Opened { tables, stop, holders })
}

/// The games play for `length` at `pace`; a game that fails is dropped and counted.
pub(crate) async fn game_block(
    args: &Args,
    http: &reqwest::Client,
    server: &Server,
    tables: Vec<Game>,
    pace: Pace,
    length: Duration,
    kind: Kind,
) -> anyhow::Result<(Vec<Game>, Block)> {
    let batches_before = server.metric(http, "fugitive_commit_batches_total").await?;
    let stages_before = Stages::parse(&server.metrics_text(http).await?);
    let cpu_before = server.cpu_time()?;
    let started = Instant::now();
    let end = started + length;
    let (min, max) = (args.pace_min, args.pace_max.max(args.pace_min));
    let mut tasks = JoinSet::new();
    for mut game in tables {
        tasks.spawn(async move {
            let mut latency = histogram();
            let mut late = histogram();
            let mut count = 0u64;
            let mut next = match pace {
                Pace::Human => started + game.rng.random_range(Duration::ZERO..=max),
                Pace::Full => started,
            };
            let played = async {
                while next < end && Instant::now() < end {
                    tokio::time::sleep_until(next).await;
                    if pace == Pace::Human {
                        late.saturating_record(next.elapsed().as_micros() as u64);
                    }
                    match play::step(&mut game.players, &mut game.rng).await? {
                        Some(step) => {
                            latency.saturating_record(step.other.as_micros() as u64);
                            count += 1;
                            if pace == Pace::Human {
                                next += game.rng.random_range(min..=max);
                            }
                        }
                        None => play::rematch(&mut game.players).await?,
                    }
                }
                anyhow::Ok(())
            }
            .await;
            (played.is_ok().then_some(game), latency, late, count)
        });
    }
    let mut kept = Vec::new();
    let mut block = Block::empty(kind, pace);
    while let Some(joined) = tasks.join_next().await {
        let (game, latency, late, count) = joined.context("a game task panicked")?;
        block.latency.add(&latency).expect("same bounds");
        block.late.add(&late).expect("same bounds");
        block.count += count;
        match game {
            Some(game) => kept.push(game),
            None => block.failed += 1,
        }
    }
    block.elapsed = started.elapsed();
    block.cpu = server.cpu_time()?.saturating_sub(cpu_before);
    block.rss_kib = server.memory()?.rss_kib;
    block.batches = (server.metric(http, "fugitive_commit_batches_total").await? - batches_before) as u64;
    block.stages = Stages::parse(&server.metrics_text(http).await?).since(&stages_before);
    Ok((kept, block))
}

/// The echo sockets play the same pace for `length`.
async fn echo_block(
    args: &Args,
    echoes: Vec<(EchoClient, StdRng)>,
    pace: Pace,
    length: Duration,
) -> (Vec<(EchoClient, StdRng)>, Block) {
    let started = Instant::now();
    let end = started + length;
    let (min, max) = (args.pace_min, args.pace_max.max(args.pace_min));
    let mut tasks = JoinSet::new();
    for (mut echo, mut rng) in echoes {
        tasks.spawn(async move {
            let mut latency = histogram();
            let mut late = histogram();
            let mut count = 0u64;
            let mut next = match pace {
                Pace::Human => started + rng.random_range(Duration::ZERO..=max),
                Pace::Full => started,
            };
            let mut ok = true;
            while next < end && Instant::now() < end {
                tokio::time::sleep_until(next).await;
                if pace == Pace::Human {
                    late.saturating_record(next.elapsed().as_micros() as u64);
                }
                match echo.round_trip().await {
                    Ok(rtt) => {
                        latency.saturating_record(rtt.as_micros() as u64);
                        count += 1;
                    }
                    Err(_) => {
                        ok = false;
                        break;
                    }
                }
                if pace == Pace::Human {
                    next += rng.random_range(min..=max);
                }
            }
            (ok.then_some((echo, rng)), latency, late, count)
        });
    }
    let mut kept = Vec::new();
    let mut block = Block::empty(Kind::Echo, pace);
    while let Some(joined) = tasks.join_next().await {
        let Ok((echo, latency, late, count)) = joined else {
            block.failed += 1;
            continue;
        };
        block.latency.add(&latency).expect("same bounds");
        block.late.add(&late).expect("same bounds");
        block.count += count;
        match echo {
            Some(echo) => kept.push(echo),
            None => block.failed += 1,
        }
    }
    block.elapsed = started.elapsed();
    (kept, block)
}

/// A competing disk writer: a thread writing 4 KiB and `fdatasync`ing it, in a loop, in a
/// file in `dir` (the same disk as the databases).
pub struct Competitor {
    stop: Arc<AtomicBool>,
    writes: Arc<AtomicU64>,
    started: Instant,
    thread: std::thread::JoinHandle<()>,
    _dir: tempfile::TempDir,
}

impl Competitor {
    /// Starts writing.
    ///
    /// # Errors
    /// When the file cannot be created.
    pub fn start(dir: &Path) -> anyhow::Result<Competitor> {
        let dir = tempfile::Builder::new().prefix("fugitive-load-competitor-").tempdir_in(dir)?;
        let mut file = std::fs::File::create(dir.path().join("competitor"))?;
        let stop = Arc::new(AtomicBool::new(false));
        let writes = Arc::new(AtomicU64::new(0));
        let thread = std::thread::spawn({
            let (stop, writes) = (stop.clone(), writes.clone());
            move || {
                let block = [7u8; 4096];
                let mut written = 0u64;
                while !stop.load(Ordering::Relaxed) {
                    // A file of at most 64 MiB, rewritten from the start.
                    if written >= 64 << 20 {
                        let _ = std::io::Seek::rewind(&mut file);
                        written = 0;
                    }
                    if file.write_all(&block).and_then(|()| file.sync_data()).is_err() {
                        return;
                    }
                    written += block.len() as u64;
                    writes.fetch_add(1, Ordering::Relaxed);
                }
            }
        });
        Ok(Competitor { stop, writes, started: Instant::now(), thread, _dir: dir })
    }

    /// Stops it; returns its synchronous writes per second.
    pub fn stop(self) -> f64 {
        self.stop.store(true, Ordering::Relaxed);
        let _ = self.thread.join();
        self.writes.load(Ordering::Relaxed) as f64 / self.started.elapsed().as_secs_f64()
    }
}

fn ms(micros: u64) -> String {
    format!("{:.2}", micros as f64 / 1000.0)
}

fn q(h: &Histogram<u64>, quantile: f64) -> u64 {
    h.value_at_quantile(quantile)
}

fn pace_name(pace: Pace) -> &'static str {
    match pace {
        Pace::Human => "human",
        Pace::Full => "full speed",
    }
}

/// The matrix as markdown: the tables and the goals, each figure beside its baseline.
pub fn section(m: &Matrix, args: &Args, command: &str) -> String {
    use std::fmt::Write;
    let mut out = String::new();
    let date = humantime::format_rfc3339_seconds(m.started).to_string();
    let _ = writeln!(
        out,
        "Run {date}, took {:.0} s; load average before {}, after {}; {} CPUs; protocol version {}; \
         {} spectators per game, human pace one action per {:?}–{:?} per game; blocks of {:?} ({} of each at human pace), {:?} at \
         full speed.\n\nCommand: `{command}`\n",
        m.took.as_secs_f64(),
        m.load_before,
        m.load_after,
        std::thread::available_parallelism().map_or(0, |n| n.get()),
        args.protocol,
        args.spectators,
        args.pace_min,
        args.pace_max,
        args.block,
        args.blocks,
        args.full_for,
    );
    for db in &m.databases {
        let _ = writeln!(out, "#### {}\n", db.name);
        out.push_str(
            "| games | pace | actions | actions/s | p50 ms | p99 ms | p99.9 ms | echo p50 | echo p99 | p50 / echo | \
             actions per commit | server CPU | server RSS | failed, kicked |\n",
        );
        out.push_str("|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
        for run in &db.runs {
            for block in run.blocks.iter().filter(|b| b.kind != Kind::Echo) {
                let echo = run.block(Kind::Echo, block.pace);
                let pace = match block.kind {
                    Kind::GamesLoadedDisk => "human, loaded disk",
                    _ => pace_name(block.pace),
                };
                let (echo50, echo99, ratio) = echo.map_or(("—".into(), "—".into(), "—".into()), |e| {
                    let e50 = q(&e.latency, 0.5);
                    (
                        ms(e50),
                        ms(q(&e.latency, 0.99)),
                        format!("{:.1}×", q(&block.latency, 0.5) as f64 / e50.max(1) as f64),
                    )
                });
                let _ = writeln!(
                    out,
                    "| {} | {pace} | {} | {:.0} | {} | {} | {} | {echo50} | {echo99} | {ratio} | {:.1} | {:.0} % | {:.0} MiB | {}, {} |",
                    run.games,
                    block.count,
                    block.per_sec(),
                    ms(q(&block.latency, 0.5)),
                    ms(q(&block.latency, 0.99)),
                    ms(q(&block.latency, 0.999)),
                    block.count as f64 / block.batches.max(1) as f64,
                    100.0 * block.cpu.as_secs_f64() / block.elapsed.as_secs_f64(),
                    block.rss_kib as f64 / 1024.0,
                    block.failed,
                    run.kicked,
                );
            }
        }
        let setups: Vec<String> = db
            .runs
            .iter()
            .map(|run| format!("{} games in {:.1} s", run.games, run.setup.as_secs_f64()))
            .collect();
        let _ = writeln!(
            out,
            "\nSet up (rooms created, seats claimed, every socket joined): {}.\n",
            setups.join(", ")
        );
        out.push_str(
            "| bare program, same disk | transactions | actions/s | commit p50 ms | p99 ms | p99.9 ms |\n",
        );
        out.push_str("|---|---:|---:|---:|---:|---:|\n");
        for (what, bare) in [
            ("one action per transaction".to_string(), &db.single),
            (
                format!("{} actions per transaction (the server's mean full-speed batch)", db.batched.batch),
                &db.batched,
            ),
            (
                format!(
                    "one action per transaction, competing writer ({:.0} synchronous writes/s)",
                    db.competitor_rate
                ),
                &db.single_loaded,
            ),
        ] {
            let _ = writeln!(
                out,
                "| {what} | {} | {:.0} | {} | {} | {} |",
                bare.commits.len(),
                bare.throughput.per_sec(),
                ms(q(&bare.commits, 0.5)),
                ms(q(&bare.commits, 0.99)),
                ms(q(&bare.commits, 0.999)),
            );
        }
        for pg in &db.pgbench {
            let _ = writeln!(
                out,
                "| pgbench, {} client(s), one single-row insert per transaction | — | {:.0} | {:.2} (mean) | — | — |",
                pg.clients, pg.tps, pg.latency_ms
            );
        }
        out.push('\n');
        out.push_str(&goals(db, args));
        out.push('\n');
        out.push_str(&breakdown(db));
    }
    out
}

/// Where the time of the human-pace actions went: each stage inside the server (the bound of
/// its bucket), and how late this client's own timers fired in the games' and the echo's
/// blocks (the delay both figures include).
fn breakdown(db: &Database) -> String {
    use std::fmt::Write;
    let mut out = String::new();
    let bound = |seconds: Option<f64>| match seconds {
        Some(s) if s.is_finite() => format!("≤ {:.2}", s * 1000.0),
        Some(_) => "> 1000".to_string(),
        None => "—".to_string(),
    };
    for run in &db.runs {
        let human: Vec<&Block> = run.blocks.iter().filter(|b| b.pace == Pace::Human).collect();
        let Some(games) = human.iter().find(|b| b.kind == Kind::Games) else { continue };
        if games.stages.names().is_empty() {
            continue;
        }
        let _ =
            writeln!(out, "Where the time goes, {} games at human pace (ms, bucket bounds):\n", run.games);
        out.push_str("| stage | ");
        let kinds: Vec<&&Block> = human.iter().filter(|b| b.kind != Kind::Echo).collect();
        for block in &kinds {
            let what = if block.kind == Kind::GamesLoadedDisk { "loaded disk" } else { "human" };
            let _ = write!(out, "{what}: count | p50 | p99 | ");
        }
        out.push('\n');
        out.push_str("|---|");
        out.push_str(&"---:|---:|---:|".repeat(kinds.len()));
        out.push('\n');
        for stage in games.stages.names() {
            let _ = write!(out, "| {stage} | ");
            for block in &kinds {
                let _ = write!(
                    out,
                    "{} | {} | {} | ",
                    block.stages.count(stage),
                    bound(block.stages.quantile(stage, 0.5)),
                    bound(block.stages.quantile(stage, 0.99)),
                );
            }
            out.push('\n');
        }
        for block in &human {
            let what = match block.kind {
                Kind::Games => "games",
                Kind::GamesLoadedDisk => "games, loaded disk",
                Kind::Echo => "echo",
            };
            let _ = writeln!(
                out,
                "| this client's timers late ({what}) | {} | {} | {} |",
                block.late.len(),
                ms(q(&block.late, 0.5)),
                ms(q(&block.late, 0.99)),
            );
        }
        out.push('\n');
    }
    out
}

/// The goals of issue 10 for one database, each figure beside its baseline.
fn goals(db: &Database, args: &Args) -> String {
    use std::fmt::Write;
    let mut out = String::new();
    out.push_str("| goal | figure | baseline | ratio | met |\n|---|---:|---:|---:|---|\n");
    let yes = |met: bool| if met { "yes" } else { "**no**" };
    let best_full = db
        .runs
        .iter()
        .filter_map(|run| Some((run.games, run.block(Kind::Games, Pace::Full)?)))
        .max_by(|a, b| a.1.per_sec().total_cmp(&b.1.per_sec()));
    if let Some((games, full)) = best_full {
        let mut baselines: Vec<(f64, String)> =
            db.pgbench.iter().map(|pg| (pg.tps, format!("pgbench, {} client(s)", pg.clients))).collect();
        if baselines.is_empty() {
            baselines.push((db.single.throughput.per_sec(), "bare, one action per transaction".to_string()));
        }
        for (baseline, what) in baselines {
            let ratio = full.per_sec() / baseline;
            let _ = writeln!(
                out,
                "| durable actions/s at full speed ≥ 3× {what} | {:.0} ({games} games) | {baseline:.0} | {ratio:.2}× | {} |",
                full.per_sec(),
                yes(ratio >= 3.0)
            );
        }
    }
    let at = args.loaded_games as usize;
    if let Some(run) = db.runs.iter().find(|run| run.games == at) {
        if let Some(human) = run.block(Kind::Games, Pace::Human) {
            let p99 = q(&human.latency, 0.99);
            let _ = writeln!(
                out,
                "| p99 ≤ 10 ms at {at} games, human pace (machine load noted above) | {} ms | 10 ms | {:.2}× | {} |",
                ms(p99),
                p99 as f64 / 10_000.0,
                yes(p99 <= 10_000)
            );
            if let Some(echo) = run.block(Kind::Echo, Pace::Human) {
                let p50 = q(&human.latency, 0.5);
                let bound = 2 * q(&echo.latency, 0.5) + q(&db.single.commits, 0.5);
                let _ = writeln!(
                    out,
                    "| p50 ≤ 2× echo p50 + one commit p50 (bare, one action) at {at} games | {} ms | {} ms | {:.2}× | {} |",
                    ms(p50),
                    ms(bound),
                    p50 as f64 / bound.max(1) as f64,
                    yes(p50 <= bound)
                );
            }
        }
        if let Some(loaded) = run.block(Kind::GamesLoadedDisk, Pace::Human) {
            let p99 = q(&loaded.latency, 0.99);
            let bound = q(&db.single_loaded.commits, 0.99) + 5_000;
            let _ = writeln!(
                out,
                "| p99 with a competing writer ≤ bare commit p99 (same writer) + 5 ms at {at} games | {} ms | {} ms | {:.2}× | {} |",
                ms(p99),
                ms(bound),
                p99 as f64 / bound.max(1) as f64,
                yes(p99 <= bound)
            );
        }
    }
    out
}
