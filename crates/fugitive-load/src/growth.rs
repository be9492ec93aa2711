//! `--mode growth`: whether a server's memory at full speed levels off or grows without bound
//! (issue 28: about 90 MB per server over one 20 s block, stop 37).
//!
//! For `--server-bin` and then `--compare-bin` (if given), each on a fresh server on SQLite in a
//! temporary directory, `--waves` times: `--growth-games` games set up (both players and
//! `--spectators` spectators each, in new rooms), `--growth-blocks` blocks of `--full-for` at
//! full speed (each game rematches when it ends), the server's RSS after each block; then every
//! socket let go, and once the server has unloaded every room (it runs with
//! `--room-unload-after 1s`) and `--settle` more has passed, its RSS again. Memory that a finished room leaves behind shows as
//! RSS that keeps rising wave after wave; an allocator's caches as RSS that a new wave fills
//! again without rising.

use std::path::Path;
use std::time::{Duration, SystemTime};

use anyhow::{Context, bail};
use tokio::time::Instant;

use crate::Args;
use crate::matrix::{self, Kind, Opened, Pace};
use crate::server::{Caps, Server};

/// One block's figures.
pub struct Reading {
    pub wave: u32,
    /// `None`: after the wave, every room unloaded.
    pub block: Option<u32>,
    pub actions: u64,
    pub rss_kib: u64,
    pub rooms_loaded: u64,
}

/// One binary's run.
pub struct Growth {
    pub bin: String,
    pub readings: Vec<Reading>,
    /// The server's RSS once it answered, before any game.
    pub start_kib: u64,
}

/// Every binary's run, and when.
pub struct Runs {
    pub runs: Vec<Growth>,
    pub started: SystemTime,
    pub load_before: String,
    pub load_after: String,
}

/// Runs `--server-bin`, then `--compare-bin`.
///
/// # Errors
/// When a server fails to start, a game fails, or a server keeps its rooms after their sockets
/// have gone.
pub async fn run(args: &Args, http: &reqwest::Client) -> anyhow::Result<Runs> {
    let started = SystemTime::now();
    let load_before = crate::report::load_average();
    let games = args.growth_games as usize;
    crate::raise_fd_limit(games * (2 + args.spectators as usize))?;
    let mut runs = Vec::new();
    for bin in std::iter::once(&args.server_bin).chain(&args.compare_bin) {
        runs.push(one_binary(args, http, bin).await.with_context(|| bin.display().to_string())?);
    }
    Ok(Runs { runs, started, load_before, load_after: crate::report::load_average() })
}

async fn one_binary(args: &Args, http: &reqwest::Client, bin: &Path) -> anyhow::Result<Growth> {
    let games = args.growth_games as usize;
    let spectators = args.spectators as usize;
    let caps = Caps { sockets: games * (2 + spectators) + 16, sockets_per_room: spectators + 8 };
    let extra = ["--idle-timeout", "30m", "--room-unload-after", "1s"];
    let server = Server::start_on(bin, caps, http, None, &extra).await?;
    let start_kib = server.memory()?.rss_kib;
    let mut readings = Vec::new();
    for wave in 1..=args.waves {
        eprintln!("{}: wave {wave}/{}: {games} games…", bin.display(), args.waves);
        let Opened { mut tables, stop, holders } = matrix::open_games(args, http, server.addr, games).await?;
        for block in 1..=args.growth_blocks {
            let played;
            (tables, played) =
                matrix::game_block(args, http, &server, tables, Pace::Full, args.full_for, Kind::Games)
                    .await?;
            if played.failed > 0 {
                bail!("{} games failed in wave {wave}, block {block}", played.failed);
            }
            let rooms_loaded = server.metric(http, "fugitive_rooms_loaded").await? as u64;
            readings.push(Reading {
                wave,
                block: Some(block),
                actions: played.count,
                rss_kib: played.rss_kib,
                rooms_loaded,
            });
        }
        let _ = stop.send(true);
        drop(tables);
        holders.join_all().await;
        let rooms_loaded = unloaded(&server, http, args.settle).await?;
        readings.push(Reading {
            wave,
            block: None,
            actions: 0,
            rss_kib: server.memory()?.rss_kib,
            rooms_loaded,
        });
    }
    server.stop().await;
    Ok(Growth { bin: bin.display().to_string(), readings, start_kib })
}

/// Waits (at most a minute) until the server has no room loaded and no socket open, then
/// `--settle`, for its threads to return what they freed.
async fn unloaded(server: &Server, http: &reqwest::Client, settle: Duration) -> anyhow::Result<u64> {
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let rooms = server.metric(http, "fugitive_rooms_loaded").await? as u64;
        let sockets = server.sockets_open(http).await?;
        if rooms == 0 && sockets == 0 {
            tokio::time::sleep(settle).await;
            return Ok(rooms);
        }
        if Instant::now() > deadline {
            bail!("{rooms} rooms and {sockets} sockets still there a minute after every socket went");
        }
        tokio::time::sleep(Duration::from_millis(500)).await;
    }
}

/// The run as a section of `BENCHMARKS.md`.
pub fn section(runs: &Runs, args: &Args, command: &str) -> String {
    let mut out = format!(
        "`{command}`, started {} UTC, load average {} → {}; {} games with {} spectators each, \
         blocks of {:?} at full speed.\n\n",
        humantime::format_rfc3339_seconds(runs.started),
        runs.load_before,
        runs.load_after,
        args.growth_games,
        args.spectators,
        args.full_for,
    );
    out.push_str(
        "| binary | wave | block | actions | rooms loaded | RSS MiB |\n|---|---:|---|---:|---:|---:|\n",
    );
    let mib = |kib: u64| format!("{:.1}", kib as f64 / 1024.0);
    for run in &runs.runs {
        out.push_str(&format!("| {} | — | started | — | 0 | {} |\n", run.bin, mib(run.start_kib)));
        for r in &run.readings {
            let block = r.block.map_or("every room unloaded".to_string(), |b| b.to_string());
            let actions = if r.block.is_some() { r.actions.to_string() } else { "—".to_string() };
            out.push_str(&format!(
                "| {} | {} | {block} | {actions} | {} | {} |\n",
                run.bin,
                r.wave,
                r.rooms_loaded,
                mib(r.rss_kib)
            ));
        }
    }
    out
}
