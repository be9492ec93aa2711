//! `--mode analyses` (issue 26): live games must not feel the analyses of finished games.
//!
//! One server (`--analysis-workers` 5): after a block to warm up, G games at human pace
//! (`--matrix-games`' first number, as `--mode matrix` plays them), `--blocks` blocks with
//! nothing else running, then as many with five analyses running the whole time (five clients each ask for the analysis of one
//! finished game after another, `GET …/analysis` until `200`; the finished games are played to
//! their end by random players before the blocks). The figure: action → opponent's view, p99
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
    /// Analyses finished during the blocks beside them.
    pub analysed: usize,
    /// Analyses asked for (started) during those blocks.
    pub started: usize,
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

/// Five clients ask for analyses, one finished game after another, until `stop`; returns how
/// many finished.
async fn analyse(
    http: reqwest::Client,
    addr: std::net::SocketAddr,
    rooms: Arc<Vec<String>>,
    next: Arc<AtomicUsize>,
    stop: Arc<AtomicBool>,
) -> usize {
    let mut clients = JoinSet::new();
    for _ in 0..ANALYSES {
        let (http, rooms, next, stop) = (http.clone(), rooms.clone(), next.clone(), stop.clone());
        clients.spawn(async move {
            let mut done = 0;
            while !stop.load(Ordering::Relaxed) {
                let Some(room) = rooms.get(next.fetch_add(1, Ordering::Relaxed)) else { break };
                let url = format!("http://{addr}/api/rooms/{room}/games/1/analysis");
                while !stop.load(Ordering::Relaxed) {
                    match http.get(&url).send().await.map(|r| r.status().as_u16()) {
                        Ok(200) => {
                            done += 1;
                            break;
                        }
                        // Every second, as the replay page asks.
                        Ok(202) => tokio::time::sleep(Duration::from_secs(1)).await,
                        _ => break,
                    }
                }
            }
            done
        });
    }
    clients.join_all().await.into_iter().sum()
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
    let extra = ["--idle-timeout", "30m", "--analysis-workers", "5"];
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
        load_before,
        load_after: String::new(),
    };
    // A first block, not counted: the sockets' and the database's first work is not the
    // analyses' doing.
    eprintln!("{games} games: warming up…");
    (tables, _) =
        matrix::game_block(args, http, &server, tables, Pace::Human, args.block, Kind::Games).await?;
    // First every block without analyses, then every block beside them: an analysis cannot be
    // called off once started (it runs to its end or its budget), so blocks that alternated
    // would have analyses running in the blocks meant to be without.
    let halt = Arc::new(AtomicBool::new(false));
    let mut analyses = None;
    for beside in [false, true] {
        if beside {
            analyses = Some(tokio::spawn(analyse(
                http.clone(),
                server.addr,
                rooms.clone(),
                next.clone(),
                halt.clone(),
            )));
        }
        for round in 0..args.blocks {
            eprintln!("{games} games, block {}/{}, analyses: {beside}…", round + 1, args.blocks);
            let block;
            (tables, block) =
                matrix::game_block(args, http, &server, tables, Pace::Human, args.block, Kind::Games).await?;
            let i = usize::from(beside);
            figures.latency[i].add(&block.latency).expect("same bounds");
            figures.count[i] += block.count;
            figures.cpu[i] += block.cpu;
            figures.elapsed[i] += block.elapsed;
            figures.failed += block.failed;
        }
    }
    halt.store(true, Ordering::Relaxed);
    if let Some(analyses) = analyses {
        figures.analysed = analyses.await?;
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
    format!(
        "`{command}`\n\n{} games at human pace; load average before {}, after {}; {} analyses \
         asked for and {} finished beside them (5 running at every moment of those blocks); {} games dropped.\n\n\
         | blocks | actions | p50 | p90 | p99 | server CPU |\n|---|---|---|---|---|---|\n{}{}\n\
         p99 beside five analyses / p99 without: **{:.2}** (goal ≤ 1.10).\n",
        f.games,
        f.load_before,
        f.load_after,
        f.started,
        f.analysed,
        f.failed,
        row(0, "without analyses"),
        row(1, "beside 5 analyses"),
        p99(1) / p99(0).max(1.0),
    )
}
