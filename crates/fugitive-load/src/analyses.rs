//! `--mode analyses` (issue 26): live games must not feel the analyses of finished games.
//!
//! One server (its default background workers, the cores less one, unless
//! `--analysis-workers` is given; the puzzle miner off, so the blocks without analyses have no
//! background work at all): after a block to warm up, G games at human pace
//! (`--matrix-games`' first number, as `--mode matrix` plays them), `--blocks` rounds of two
//! blocks, one with nothing else running and one beside five analyses (five clients each ask
//! for the analysis of one finished game after another, `GET …/analysis` until `200`; the
//! finished games are played to their end by random players before the blocks). The two kinds
//! alternate in the order ABBA (without, beside, beside, without, …), so a drift of the shared
//! machine's load falls on both. An analysis cannot be called off, so after each block beside
//! them the clients stop asking and the run waits (unmeasured, the games idle) until every
//! analysis asked for is done before the next block. The figure: action → opponent's view, p99
//! beside five analyses over p99 without, measured in the same run.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::Duration;

use hdrhistogram::Histogram;
use rand::SeedableRng;
use rand::rngs::StdRng;
use tokio::task::JoinSet;

use crate::bare::histogram;
use crate::client::{self, Player};
use crate::matrix::{self, Kind, Opened, Pace};
use crate::server::{Caps, Server};
use crate::{Args, join_all, play};

/// Analyses asked for at once.
const ANALYSES: usize = 5;

/// How long the run waits after a block beside analyses for them to finish.
const DRAIN_PATIENCE: Duration = Duration::from_secs(240);

/// What the run measured.
pub struct Figures {
    pub games: usize,
    /// Without, then beside the analyses: action → opponent's view, µs.
    pub latency: [Histogram<u64>; 2],
    /// Actions measured, without and beside.
    pub count: [u64; 2],
    /// The server's CPU time during the blocks, without and beside.
    pub cpu: [Duration; 2],
    /// How long the blocks of each kind took in all.
    pub elapsed: [Duration; 2],
    /// Analyses finished during (and just after) the blocks beside them.
    pub analysed: usize,
    /// Analyses asked for (started) during those blocks.
    pub started: usize,
    /// Blocks without analyses that began while one asked for was still not done (the wait
    /// for them timed out): those blocks were not free of analyses.
    pub unclean: usize,
    /// How long the waits for the analyses to finish took in all.
    pub drained: Duration,
    /// Rounds (each one block of each kind).
    pub rounds: u32,
    /// The server's `--analysis-workers` (`None`: its default, the cores less one).
    pub workers: Option<u64>,
    /// Games dropped (an error or a timeout).
    pub failed: usize,
    pub load_before: String,
    pub load_after: String,
}

/// Plays `n` random games to their end in rooms of their own; returns the rooms.
async fn finished_games(
    args: &Args,
    http: &reqwest::Client,
    addr: std::net::SocketAddr,
    n: usize,
) -> anyhow::Result<Vec<String>> {
    let one = |i: usize| async move {
        let table = client::table(http, addr).await?;
        let mut players = [
            Player::join(addr, &table.room, Some(&table.tokens[0])).await?,
            Player::join(addr, &table.room, Some(&table.tokens[1])).await?,
        ];
        let mut rng = StdRng::seed_from_u64(args.seed.wrapping_add(1 << 40).wrapping_add(i as u64));
        play::whole_game(&mut players, &mut rng, |_| {}).await?;
        anyhow::Ok(table.room)
    };
    join_all((0..n).map(one), args.concurrency).await
}

/// Five clients ask for analyses, one finished game after another, until `stop`; each then
/// asks on until its last one is done (or `patience` is over). Returns how many were done and
/// whether every one asked for was.
async fn analyse(
    http: reqwest::Client,
    addr: std::net::SocketAddr,
    rooms: Arc<Vec<String>>,
    next: Arc<AtomicUsize>,
    stop: Arc<AtomicBool>,
    patience: Duration,
) -> (usize, bool) {
    let mut clients = JoinSet::new();
    for _ in 0..ANALYSES {
        let (http, rooms, next, stop) = (http.clone(), rooms.clone(), next.clone(), stop.clone());
        clients.spawn(async move {
            let mut done = 0;
            let mut deadline = None;
            while !stop.load(Ordering::Relaxed) {
                let Some(room) = rooms.get(next.fetch_add(1, Ordering::Relaxed)) else { break };
                let url = format!("http://{addr}/api/rooms/{room}/games/1/analysis");
                loop {
                    if stop.load(Ordering::Relaxed) {
                        let end = *deadline.get_or_insert_with(|| tokio::time::Instant::now() + patience);
                        if tokio::time::Instant::now() >= end {
                            return (done, false);
                        }
                    }
                    match http.get(&url).send().await.map(|r| r.status().as_u16()) {
                        Ok(200) => {
                            done += 1;
                            break;
                        }
                        // Every second, as the replay page asks (more often once the block is
                        // over, to start the next one soon).
                        Ok(202) if stop.load(Ordering::Relaxed) => {
                            tokio::time::sleep(Duration::from_millis(200)).await;
                        }
                        Ok(202) => tokio::time::sleep(Duration::from_secs(1)).await,
                        _ => break,
                    }
                }
            }
            (done, true)
        });
    }
    let results = clients.join_all().await;
    (results.iter().map(|r| r.0).sum(), results.iter().all(|r| r.1))
}

/// Runs the blocks.
///
/// # Errors
/// When the server fails to start or a game cannot be set up.
pub async fn run(args: &Args, http: &reqwest::Client) -> anyhow::Result<Figures> {
    let load_before = crate::report::load_average();
    let games = *args.matrix_games.first().unwrap_or(&1000) as usize;
    let spectators = args.spectators as usize;
    let caps = Caps { sockets: games * (2 + spectators) + 64, sockets_per_room: spectators + 8 };
    let workers = args.analysis_workers.map(|n| n.to_string());
    let mut extra = vec!["--idle-timeout", "30m", "--puzzle-mine-interval", "0s"];
    if let Some(workers) = &workers {
        extra.extend(["--analysis-workers", workers]);
    }
    let server = Server::start_on(&args.server_bin, caps, http, None, &extra).await?;
    eprintln!("playing {} games to their end, to be analysed…", args.finished_games);
    let rooms = Arc::new(finished_games(args, http, server.addr, args.finished_games as usize).await?);
    eprintln!("{games} games: setting up…");
    let Opened { mut tables, stop, holders } = matrix::open_games(args, http, server.addr, games).await?;
    let next = Arc::new(AtomicUsize::new(0));
    let mut figures = Figures {
        games,
        latency: [histogram(), histogram()],
        count: [0; 2],
        cpu: [Duration::ZERO; 2],
        elapsed: [Duration::ZERO; 2],
        analysed: 0,
        started: 0,
        failed: 0,
        unclean: 0,
        drained: Duration::ZERO,
        rounds: args.blocks,
        workers: args.analysis_workers,
        load_before,
        load_after: String::new(),
    };
    // A first block, not counted: the sockets' and the database's first work is not the
    // analyses' doing.
    eprintln!("{games} games: warming up…");
    (tables, _) =
        matrix::game_block(args, http, &server, tables, Pace::Human, args.block, Kind::Games).await?;
    let mut clean = true;
    for round in 0..args.blocks {
        // ABBA: without then beside in even rounds, beside then without in odd ones.
        let order = if round % 2 == 0 { [false, true] } else { [true, false] };
        for beside in order {
            eprintln!("{games} games, round {}/{}, analyses: {beside}…", round + 1, args.blocks);
            if !beside && !clean {
                figures.unclean += 1;
            }
            let halt = Arc::new(AtomicBool::new(false));
            let analyses = beside.then(|| {
                tokio::spawn(analyse(
                    http.clone(),
                    server.addr,
                    rooms.clone(),
                    next.clone(),
                    halt.clone(),
                    DRAIN_PATIENCE,
                ))
            });
            let block;
            (tables, block) =
                matrix::game_block(args, http, &server, tables, Pace::Human, args.block, Kind::Games).await?;
            let i = usize::from(beside);
            figures.latency[i].add(&block.latency).expect("same bounds");
            figures.count[i] += block.count;
            figures.cpu[i] += block.cpu;
            figures.elapsed[i] += block.elapsed;
            figures.failed += block.failed;
            if let Some(analyses) = analyses {
                halt.store(true, Ordering::Relaxed);
                let waited = std::time::Instant::now();
                eprintln!("waiting for the analyses asked for to finish…");
                let (done, all) = analyses.await?;
                figures.analysed += done;
                figures.drained += waited.elapsed();
                clean = all;
            }
        }
    }
    figures.started = next.load(Ordering::Relaxed).min(rooms.len());
    if next.load(Ordering::Relaxed) >= rooms.len() {
        eprintln!("warning: the finished games ran out: raise --finished-games");
    }
    let _ = stop.send(true);
    drop(tables);
    holders.join_all().await;
    server.stop().await;
    figures.load_after = crate::report::load_average();
    Ok(figures)
}

fn ms(h: &Histogram<u64>, q: f64) -> String {
    format!("{:.1} ms", h.value_at_quantile(q) as f64 / 1000.0)
}

/// The section of `BENCHMARKS.md`.
pub fn section(f: &Figures, command: &str) -> String {
    let p99 = |i: usize| f.latency[i].value_at_quantile(0.99) as f64;
    let row = |i: usize, name: &str| {
        format!(
            "| {name} | {} | {} | {} | **{}** | {:.1} s of {:.0} s |\n",
            f.count[i],
            ms(&f.latency[i], 0.5),
            ms(&f.latency[i], 0.9),
            ms(&f.latency[i], 0.99),
            f.cpu[i].as_secs_f64(),
            f.elapsed[i].as_secs_f64(),
        )
    };
    let workers = f.workers.map_or_else(|| "its default (the cores less one)".to_string(), |n| n.to_string());
    format!(
        "`{command}`\n\n{} games at human pace; the server's background workers: {workers}; \
         {} rounds of one block each way, in the order ABBA; load average before {}, after {}; \
         {} analyses asked for and {} finished beside them (five asked for at every moment of \
         those blocks, the ones beyond the workers queued); {:.0} s waited after those blocks for \
         them to finish; blocks without analyses that began with one unfinished: {}; {} games dropped.\n\n\
         | blocks | actions | p50 | p90 | p99 | server CPU |\n|---|---|---|---|---|---|\n{}{}\n\
         p99 beside five analyses / p99 without: **{:.2}** (goal ≤ 1.10).\n",
        f.games,
        f.rounds,
        f.load_before,
        f.load_after,
        f.started,
        f.analysed,
        f.drained.as_secs_f64(),
        f.unclean,
        f.failed,
        row(0, "without analyses"),
        row(1, "beside 5 analyses"),
        p99(1) / p99(0).max(1.0),
    )
}
