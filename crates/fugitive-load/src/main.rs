//! `fugitive-load`: a small load client that measures `fugitive-server`.
//!
//! It starts the server binary itself, as a child on a free loopback port with a new SQLite
//! database in a temporary directory, and measures three things, each on a fresh server:
//! 1. memory per idle socket: spectators that said `hello`, read their snapshot and wait;
//! 2. memory per active room: both seats claimed, both players connected, the opening played
//!    up to the Marshal's first guess (with `--whole-games`, the game to its end; the two
//!    sockets are included);
//! 3. action → view latency of one game: two random players play whole games (rematch after
//!    rematch), timing each action until the actor has its `reply` and `state` and until the
//!    opponent has its `state`.
//!
//! Memory is the child's `VmRSS` (`/proc/<pid>/status`) and `Pss` (`/proc/<pid>/smaps_rollup`),
//! so this runs on Linux only. It talks only to 127.0.0.1, every loop is bounded, and the whole
//! run has a time limit (`--timeout`).
//!
//! How to run (from the workspace root):
//! `cargo build --release -p fugitive-server -p fugitive-load && target/release/fugitive-load`
//! (`--markdown` prints the section of `BENCHMARKS.md`; `--help` lists the flags).
//! `--mode commit` measures durable actions per second instead, beside bare SQLite (`commit.rs`).
//! `--mode matrix` measures issue 10's matrix in one run (`matrix.rs`): G games at human pace
//! and at full speed beside a bare WebSocket echo and bare commits, on SQLite and (with
//! `--postgres`) PostgreSQL.
//! `--mode ceiling` measures the fan-out ceiling (`ceiling.rs`): the actions/s of a bare
//! server that only sends the real server's frames (`fanout.rs`), beside the real server on
//! SQLite and (with `--postgres`) PostgreSQL, `pgbench` and bare SQLite, with each process's
//! CPU per action.
//! `--mode lobby` measures the lobby under load (`lobby.rs`): memory per lobby page, and a new
//! seek → every lobby page beside a bare echo.
//! `--mode growth` measures whether the server's memory at full speed levels off (`growth.rs`):
//! waves of games in new rooms, RSS after each block and after each wave's rooms are unloaded.
//! `--mode analyses` measures live games at human pace with and without five analyses of
//! finished games running beside them (`analyses.rs`, issue 26).
//! `--mode nodes --database-url postgres://…` measures several nodes on one PostgreSQL database
//! (`nodes.rs`): latency with the players on one node or two, and the handover of a killed
//! node's rooms.

mod analyses;
mod bare;
mod ceiling;
mod client;
mod commit;
mod echo;
mod fanout;
mod growth;
mod lobby;
mod matrix;
mod nodes;
mod play;
mod report;
mod server;
mod stages;
mod writers;

use std::path::PathBuf;
use std::time::Duration;

use anyhow::{Context, bail};
use clap::Parser;
use futures_util::{StreamExt, TryStreamExt, stream};
use hdrhistogram::Histogram;
use rand::SeedableRng;
use rand::rngs::StdRng;
use tokio::sync::watch;
use tokio::task::JoinSet;

use crate::client::Player;
use crate::report::{Figures, Latency, MemoryDelta};
use crate::server::{Caps, Memory, Server};

/// Measures fugitive-server: memory per idle socket and per active room, action → view latency.
#[derive(Clone, Debug, Parser)]
#[command(name = "fugitive-load", version)]
pub struct Args {
    /// The WebSocket protocol every socket speaks: 2 (a snapshot, then deltas: what the web
    /// client speaks) or 1 (a whole state per change).
    #[arg(long, default_value_t = 2, value_parser = clap::value_parser!(u64).range(1..=2))]
    protocol: u64,
    /// The server binary to start.
    #[arg(long, default_value = "target/release/fugitive-server")]
    server_bin: PathBuf,
    /// Idle spectator sockets to open.
    #[arg(long, default_value_t = 1000, value_parser = clap::value_parser!(u32).range(1..=20_000))]
    sockets: u32,
    /// Rooms the spectator sockets are spread over.
    #[arg(long, default_value_t = 20, value_parser = clap::value_parser!(u32).range(1..=1000))]
    spectator_rooms: u32,
    /// Active rooms to create and play the opening of.
    #[arg(long, default_value_t = 200, value_parser = clap::value_parser!(u32).range(1..=10_000))]
    rooms: u32,
    /// The active rooms' games are played to their end instead of up to the Marshal's first
    /// guess: a room whose game is long.
    #[arg(long)]
    whole_games: bool,
    /// Whole games to play for the latency figures.
    #[arg(long, default_value_t = 50, value_parser = clap::value_parser!(u32).range(1..=10_000))]
    games: u32,
    /// Sockets opened (or rooms set up) at the same time.
    #[arg(long, default_value_t = 32, value_parser = clap::value_parser!(u32).range(1..=1000))]
    concurrency: u32,
    /// Pause before each memory reading, for the server to settle. Past 10 s for a server from
    /// before stop 39: its RSS fell by 25–30 MiB some 10 s after its start (what compressing its
    /// web client at 22-bit brotli windows freed, returned when a start-up thread ended, as
    /// tokio's blocking threads do 10 s after their last job), so a baseline read 2 s after the
    /// warm-up made the figures per socket and per room negative (stop 38). A server with the
    /// fix settles in 2 s (stop 39); the default stays for the baselines from before it.
    #[arg(long, default_value = "15s", value_parser = humantime::parse_duration)]
    settle: Duration,
    /// Limit on the whole run.
    #[arg(long, default_value = "30m", value_parser = humantime::parse_duration)]
    timeout: Duration,
    /// Seed of the random players.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Print the `## fugitive-server` section of BENCHMARKS.md instead of the bare tables.
    #[arg(long)]
    markdown: bool,
    /// `--mode lobby`: lobby pages (WebSockets) open at once.
    #[arg(long, default_value_t = 5000, value_parser = clap::value_parser!(u32).range(1..=15_000))]
    pages: u32,
    /// `--mode lobby`: open seeks.
    #[arg(long, default_value_t = 1000, value_parser = clap::value_parser!(u32).range(1..=10_000))]
    seeks: u32,
    /// `--mode lobby`: new seeks timed to every page (and echo bursts).
    #[arg(long, default_value_t = 20, value_parser = clap::value_parser!(u32).range(1..=1000))]
    seek_rounds: u32,
    /// What to measure: memory and latency, or durable actions per second (`commit.rs`).
    #[arg(long, value_enum, default_value_t = Mode::Memory)]
    mode: Mode,
    /// `--mode commit`: rooms playing at once.
    #[arg(long, default_value_t = 200, value_parser = clap::value_parser!(u32).range(1..=5000))]
    commit_rooms: u32,
    /// `--mode commit`: how long they play.
    #[arg(long, default_value = "10s", value_parser = humantime::parse_duration)]
    commit_for: Duration,
    /// `--mode commit`: actions of the bare baseline's one-per-transaction run (the batched
    /// run writes `--bare-batch` times as many).
    #[arg(long, default_value_t = 1000, value_parser = clap::value_parser!(u32).range(1..=1_000_000))]
    bare_actions: u32,
    /// `--mode commit`: actions per transaction of the bare baseline's batched run.
    #[arg(long, default_value_t = 64, value_parser = clap::value_parser!(u32).range(1..=100_000))]
    bare_batch: u32,
    /// `--mode matrix`: the numbers of concurrent games, one run each.
    #[arg(long, value_delimiter = ',', default_values_t = [100u32, 1000, 3000],
          value_parser = clap::value_parser!(u32).range(1..=4000))]
    matrix_games: Vec<u32>,
    /// `--mode matrix`: spectators per game.
    #[arg(long, default_value_t = 2, value_parser = clap::value_parser!(u32).range(0..=8))]
    spectators: u32,
    /// `--mode matrix`: the shortest pause between two actions of a game at human pace.
    #[arg(long, default_value = "2s", value_parser = humantime::parse_duration)]
    pace_min: Duration,
    /// `--mode matrix`: the longest pause.
    #[arg(long, default_value = "5s", value_parser = humantime::parse_duration)]
    pace_max: Duration,
    /// `--mode matrix`: the length of one human-pace block (games, then echo).
    #[arg(long, default_value = "8s", value_parser = humantime::parse_duration)]
    block: Duration,
    /// `--mode matrix`: human-pace blocks of each kind, alternating.
    #[arg(long, default_value_t = 2, value_parser = clap::value_parser!(u32).range(1..=20))]
    blocks: u32,
    /// `--mode matrix`: the length of the full-speed blocks.
    #[arg(long, default_value = "6s", value_parser = humantime::parse_duration)]
    full_for: Duration,
    /// `--mode matrix`: the number of games that also plays a block beside a competing
    /// writer, and whose figures the goals are about.
    #[arg(long, default_value_t = 1000)]
    loaded_games: u32,
    /// `--mode matrix`: how long each bare program (and pgbench) runs.
    #[arg(long, default_value = "3s", value_parser = humantime::parse_duration)]
    bare_for: Duration,
    /// `--mode matrix`: also on PostgreSQL, in scratch databases created (and dropped) through
    /// this URL of an existing database, e.g. `postgres://postgres@127.0.0.1:5432/test`.
    #[arg(long)]
    postgres: Option<String>,
    /// `--mode ceiling`: the numbers of concurrent games, one set of rounds each.
    #[arg(long, value_delimiter = ',', default_values_t = [1000u32, 3000],
          value_parser = clap::value_parser!(u32).range(1..=4000))]
    ceiling_games: Vec<u32>,
    /// `--mode ceiling`: rounds per number of games (each: the fan-out ceiling, the server on
    /// each database, the baselines).
    #[arg(long, default_value_t = 2, value_parser = clap::value_parser!(u32).range(1..=10))]
    rounds: u32,
    /// `--mode ceiling`: a second server binary (e.g. main's) measured beside `--server-bin` on
    /// each database in every round, "compared" in the tables.
    #[arg(long)]
    compare_bin: Option<PathBuf>,
    /// `--mode fanout-server`: one `write` per frame, as `fugitive-server` writes, instead of
    /// every frame waiting on a socket in one.
    #[arg(long)]
    fanout_write_each: bool,
    /// `--mode writers`: tasks handing actions to the writer at once.
    #[arg(long, default_value_t = 200, value_parser = clap::value_parser!(u32).range(1..=4000))]
    writer_clients: u32,
    /// `--mode echo-server` (started by `--mode matrix`) and `--mode fanout-server` (started
    /// by `--mode ceiling`): where to listen.
    #[arg(long, default_value = "127.0.0.1:0")]
    echo_addr: std::net::SocketAddr,
    /// `--mode nodes`: the PostgreSQL database the nodes share (an empty one of its own).
    #[arg(long)]
    database_url: Option<String>,
    /// `--mode nodes`: the nodes' `--lease-ms`.
    #[arg(long, default_value_t = 1000, value_parser = clap::value_parser!(u64).range(300..))]
    lease_ms: u64,
    /// `--mode nodes`: how many times a lease holder is killed (and as many baseline runs).
    #[arg(long, default_value_t = 5, value_parser = clap::value_parser!(u32).range(1..=100))]
    takeovers: u32,
    /// `--mode growth`: games played at once in each wave.
    #[arg(long, default_value_t = 1000, value_parser = clap::value_parser!(u32).range(1..=4000))]
    growth_games: u32,
    /// `--mode growth`: full-speed blocks of `--full-for` per wave.
    #[arg(long, default_value_t = 4, value_parser = clap::value_parser!(u32).range(1..=100))]
    growth_blocks: u32,
    /// `--mode growth`: waves of new games, every room unloaded after each.
    #[arg(long, default_value_t = 2, value_parser = clap::value_parser!(u32).range(1..=20))]
    waves: u32,
    /// `--mode analyses`: games played to their end before the blocks, for the analyses to
    /// read (each is analysed once; too few and the analyses stop early).
    #[arg(long, default_value_t = 200, value_parser = clap::value_parser!(u32).range(1..=100_000))]
    finished_games: u32,
    /// `--mode analyses`: the server's `--analysis-workers` (default: the server's own, its
    /// cores less one).
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..=64))]
    analysis_workers: Option<u64>,
}

/// What a run measures.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
enum Mode {
    /// Memory per idle socket and per active room, action → view latency.
    Memory,
    /// Durable actions per second of the server at full speed, beside bare SQLite.
    Commit,
    /// Issue 10's matrix: G games at human pace and full speed beside an echo and bare commits.
    Matrix,
    /// The SQLite writer's path alone: sqlx against rusqlite on a thread of its own.
    Writers,
    /// The bare WebSocket echo the matrix compares with (a child of `--mode matrix`).
    EchoServer,
    /// Several nodes on one PostgreSQL database: latency across nodes, handover after a kill.
    Nodes,
    /// The most actions/s any server could serve this client here, beside the real server and
    /// the throughput goals' baselines, with each process's CPU per action.
    Ceiling,
    /// The bare fan-out server `--mode ceiling` measures (a child of `--mode ceiling`).
    FanoutServer,
    /// The lobby under load: open seeks and lobby pages on one node; memory per page, a new
    /// seek → every page, beside a bare echo (`lobby.rs`).
    Lobby,
    /// Whether memory at full speed levels off: waves of games played in blocks, the server's
    /// RSS after each block and after each wave's rooms are unloaded (`growth.rs`).
    Growth,
    /// Games at human pace with and without five analyses of finished games beside them
    /// (issue 26, `analyses.rs`).
    Analyses,
}

/// Rooms set up (and held) before the baseline of the active-room run, so one-time costs such
/// as the database's connections and caches are not counted as the rooms'.
const WARM_UP_ROOMS: usize = 4;

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let args = Args::parse();
    client::speak(args.protocol);
    let command = std::env::args().collect::<Vec<_>>().join(" ");
    if args.mode == Mode::EchoServer {
        return echo::serve(args.echo_addr).await;
    }
    if args.mode == Mode::FanoutServer {
        return fanout::serve(args.echo_addr, args.fanout_write_each).await;
    }
    if args.mode == Mode::Ceiling {
        let http = reqwest::Client::new();
        let figures = within(args.timeout, ceiling::run(&args, &http)).await?;
        print!("{}", ceiling::section(&figures, &args, &command));
        return Ok(());
    }
    if args.mode == Mode::Analyses {
        let http = reqwest::Client::new();
        let figures = within(args.timeout, analyses::run(&args, &http)).await?;
        print!("{}", analyses::section(&figures, &command));
        return Ok(());
    }
    if args.mode == Mode::Growth {
        let http = reqwest::Client::new();
        let runs = within(args.timeout, growth::run(&args, &http)).await?;
        print!("{}", growth::section(&runs, &args, &command));
        return Ok(());
    }
    if args.mode == Mode::Writers {
        let figures = within(args.timeout, writers::run(&args)).await?;
        print!("{}", writers::section(&figures, &command));
        return Ok(());
    }
    if args.mode == Mode::Matrix {
        let http = reqwest::Client::new();
        let figures = within(args.timeout, matrix::run(&args, &http)).await?;
        print!("{}", matrix::section(&figures, &args, &command));
        return Ok(());
    }
    if args.mode == Mode::Commit {
        let http = reqwest::Client::new();
        let figures = within(args.timeout, commit::run(&args, &http)).await?;
        print!("{}", commit::section(&figures, &command));
        return Ok(());
    }
    if args.mode == Mode::Lobby {
        let http = reqwest::Client::new();
        let figures = within(args.timeout, lobby::run(&args, &http)).await?;
        print!("{}", lobby::section(&figures, &command));
        return Ok(());
    }
    if args.mode == Mode::Nodes {
        let http = reqwest::Client::new();
        let figures = within(args.timeout, nodes::run(&args, &http)).await?;
        print!("{}", nodes::section(&figures, &command));
        return Ok(());
    }
    let figures = within(args.timeout, run(&args)).await?;
    if args.markdown {
        print!("{}", report::section(&figures, &command));
    } else {
        print!("{}", report::tables(&figures));
    }
    Ok(())
}

/// A mode's run, ended with an error when it takes longer than `--timeout`.
async fn within<T>(
    timeout: Duration,
    run: impl std::future::Future<Output = anyhow::Result<T>>,
) -> anyhow::Result<T> {
    tokio::time::timeout(timeout, run)
        .await
        .with_context(|| format!("the run took longer than --timeout {timeout:?}"))?
}

async fn run(args: &Args) -> anyhow::Result<Figures> {
    let sockets = args.sockets as usize;
    let rooms = args.rooms as usize;
    let fds = raise_fd_limit(sockets.max(2 * (rooms + WARM_UP_ROOMS)))?;
    let http = reqwest::Client::new();
    eprintln!("idle sockets: {sockets} over {} rooms…", args.spectator_rooms);
    let idle = idle_sockets(args, &http).await?;
    eprintln!("active rooms: {rooms}…");
    let active = active_rooms(args, &http).await?;
    eprintln!("latency: {} games…", args.games);
    let latency = latency(args, &http).await?;
    Ok(Figures { idle, active, latency, sockets, rooms, fds, spectator_rooms: args.spectator_rooms as usize })
}

/// Raises this process's soft limit of open files to its hard limit (the server child inherits
/// it) and checks that `needed` sockets fit; returns the limit.
pub(crate) fn raise_fd_limit(needed: usize) -> anyhow::Result<u64> {
    let limit = rlimit::increase_nofile_limit(u64::MAX).context("cannot raise the open-files limit")?;
    if limit < needed as u64 + 64 {
        bail!("{needed} sockets need more open files than the limit of {limit}: lower --sockets or --rooms");
    }
    Ok(limit)
}

/// Run 1: `--sockets` spectators over `--spectator-rooms` rooms, after one warm-up spectator
/// per room.
async fn idle_sockets(args: &Args, http: &reqwest::Client) -> anyhow::Result<MemoryDelta> {
    let count = args.sockets as usize;
    let room_count = args.spectator_rooms as usize;
    let per_room = count.div_ceil(room_count) + 1;
    let caps = Caps { sockets: count + room_count + 16, sockets_per_room: per_room + 2 };
    let server = Server::start(&args.server_bin, caps, http).await?;
    let addr = server.addr;
    let mut rooms = Vec::with_capacity(room_count);
    for _ in 0..room_count {
        rooms.push(client::empty_room(http, addr).await?);
    }
    let (stop, held) = watch::channel(false);
    let mut holders = JoinSet::new();
    let warm_up = join_all(rooms.iter().map(|room| Player::join(addr, room, None)), args.concurrency).await?;
    hold_all(warm_up, &held, &mut holders);
    tokio::time::sleep(args.settle).await;
    let before = server.memory()?;
    let spectators =
        join_all((0..count).map(|i| Player::join(addr, &rooms[i % room_count], None)), args.concurrency)
            .await?;
    hold_all(spectators, &held, &mut holders);
    let after = settle_and_stop(args, http, server, (stop, holders), count + room_count).await?;
    Ok(MemoryDelta { before, after, count })
}

/// Run 2: `--rooms` rooms with both players connected and the opening played, after
/// `WARM_UP_ROOMS` rooms set up the same way.
async fn active_rooms(args: &Args, http: &reqwest::Client) -> anyhow::Result<MemoryDelta> {
    let count = args.rooms as usize;
    let caps = Caps { sockets: 2 * (count + WARM_UP_ROOMS) + 16, sockets_per_room: 64 };
    let server = Server::start(&args.server_bin, caps, http).await?;
    let addr = server.addr;
    let (stop, held) = watch::channel(false);
    let mut holders = JoinSet::new();
    let open_table = |i: usize| async move {
        let table = client::table(http, addr).await?;
        let mut players = [
            Player::join(addr, &table.room, Some(&table.tokens[0])).await?,
            Player::join(addr, &table.room, Some(&table.tokens[1])).await?,
        ];
        let mut rng = StdRng::seed_from_u64(args.seed.wrapping_add(i as u64));
        if args.whole_games {
            play::whole_game(&mut players, &mut rng, |_| {}).await?;
        } else {
            play::opening(&mut players, &mut rng).await?;
        }
        anyhow::Ok(players)
    };
    let warm_up = join_all((0..WARM_UP_ROOMS).map(open_table), args.concurrency).await?;
    hold_all(warm_up.into_iter().flatten().collect(), &held, &mut holders);
    tokio::time::sleep(args.settle).await;
    let before = server.memory()?;
    let tables = join_all((WARM_UP_ROOMS..WARM_UP_ROOMS + count).map(open_table), args.concurrency).await?;
    hold_all(tables.into_iter().flatten().collect(), &held, &mut holders);
    let after = settle_and_stop(args, http, server, (stop, holders), 2 * (count + WARM_UP_ROOMS)).await?;
    Ok(MemoryDelta { before, after, count })
}

/// Run 3: `--games` whole games between two players in one room, on an otherwise idle server.
async fn latency(args: &Args, http: &reqwest::Client) -> anyhow::Result<Latency> {
    let caps = Caps { sockets: 16, sockets_per_room: 64 };
    let server = Server::start(&args.server_bin, caps, http).await?;
    let table = client::table(http, server.addr).await?;
    let mut players = [
        Player::join(server.addr, &table.room, Some(&table.tokens[0])).await?,
        Player::join(server.addr, &table.room, Some(&table.tokens[1])).await?,
    ];
    let mut rng = StdRng::seed_from_u64(args.seed);
    let histogram = || Histogram::<u64>::new_with_bounds(1, 60_000_000, 3);
    let (mut own_state, mut own, mut other) = (histogram()?, histogram()?, histogram()?);
    for game in 0..args.games {
        if game > 0 {
            play::rematch(&mut players).await?;
        }
        play::whole_game(&mut players, &mut rng, |step| {
            own_state.saturating_record(step.own_state.as_micros() as u64);
            own.saturating_record(step.own.as_micros() as u64);
            other.saturating_record(step.other.as_micros() as u64);
        })
        .await
        .with_context(|| format!("game {}", game + 1))?;
    }
    server.stop().await;
    Ok(Latency { own_state, own, other, games: args.games as usize })
}

/// Runs `joins` with at most `concurrency` at a time; fails on the first failure.
pub(crate) async fn join_all<T>(
    joins: impl Iterator<Item = impl Future<Output = anyhow::Result<T>>>,
    concurrency: u32,
) -> anyhow::Result<Vec<T>> {
    stream::iter(joins).buffer_unordered(concurrency as usize).try_collect().await
}

/// Spawns a task per player that keeps its socket open until `held` turns true.
/// Lets the held sockets settle and reads the server's memory; then lets them go and stops the
/// server. Every one of the `expected` sockets must have stayed open, as the server counts them
/// and as the client kept them.
async fn settle_and_stop(
    args: &Args,
    http: &reqwest::Client,
    server: Server,
    (stop, holders): (watch::Sender<bool>, JoinSet<bool>),
    expected: usize,
) -> anyhow::Result<Memory> {
    tokio::time::sleep(args.settle).await;
    let after = server.memory()?;
    let open = server.sockets_open(http).await?;
    let _ = stop.send(true);
    let still_open = holders.join_all().await.into_iter().filter(|open| *open).count();
    server.stop().await;
    if open != expected as u64 || still_open != expected {
        bail!("expected {expected} open sockets; the server counted {open}, the client kept {still_open}");
    }
    Ok(after)
}

fn hold_all(players: Vec<Player>, held: &watch::Receiver<bool>, holders: &mut JoinSet<bool>) {
    for player in players {
        holders.spawn(player.hold(held.clone()));
    }
}
