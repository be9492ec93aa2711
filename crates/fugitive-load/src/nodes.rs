//! `--mode nodes`: several server nodes on one PostgreSQL database (issue 11).
//!
//! 1. Action → view latency with both players on the same node, and with the Fugitive on node A
//!    and the Marshal on node B (their states go through the log and `NOTIFY`), in alternating
//!    games of the same run: the ratio is the figure.
//! 2. Handover: the time from `kill -9` of the node holding a room's lease to the computer
//!    opponent's next move, made by the surviving node, beside the time it takes when no node
//!    dies (the baseline), for `--lease-ms`.
//! 3. The clock's handover: in a room with a 1 s turn clock whose lease holder is killed right
//!    after the clock starts, how late the survivor ends the game on time (from the deadline the
//!    room showed to the `time_out` on the survivor's socket), beside the same with the holder
//!    alive.

use std::time::Duration;

use anyhow::{Context, bail};
use fugitive_core::Action;
use hdrhistogram::Histogram;
use rand::SeedableRng;
use rand::rngs::StdRng;
use tokio::time::Instant;

use crate::Args;
use crate::client::{self, Player};
use crate::play;
use crate::server::Server;

/// The figures of one run.
pub struct Figures {
    same: Histogram<u64>,
    cross: Histogram<u64>,
    handover: Vec<Duration>,
    baseline: Vec<Duration>,
    clock_late: Vec<Duration>,
    clock_baseline: Vec<Duration>,
    lease_ms: u64,
    games: u32,
}

fn histogram() -> Histogram<u64> {
    Histogram::new_with_bounds(1, 60_000_000, 3).expect("valid bounds")
}

/// Runs both measurements.
///
/// # Errors
/// When a server does not start or answer, or refuses an action.
pub async fn run(args: &Args, http: &reqwest::Client) -> anyhow::Result<Figures> {
    let url = args.database_url.as_deref().context("--mode nodes needs --database-url postgres://…")?;
    let lease = args.lease_ms.to_string();
    let node_args = ["--lease-ms", lease.as_str(), "--bot-pause", "1ms"];
    let a = Server::start_node(&args.server_bin, url, &node_args, http).await?;
    let b = Server::start_node(&args.server_bin, url, &node_args, http).await?;
    let mut rng = StdRng::seed_from_u64(args.seed);
    let (mut same, mut cross) = (histogram(), histogram());
    for game in 0..args.games {
        // Alternate games: the machine's noise falls on both alike.
        let across = game % 2 == 1;
        let table = client::table(http, a.addr).await?;
        let second = if across { b.addr } else { a.addr };
        let fugitive = Player::join(a.addr, &table.room, Some(&table.tokens[0])).await?;
        let marshal = Player::join(second, &table.room, Some(&table.tokens[1])).await?;
        let mut players = [fugitive, marshal];
        let into = if across { &mut cross } else { &mut same };
        play::whole_game(&mut players, &mut rng, |step| {
            let _ = into.record(step.other.as_micros() as u64);
        })
        .await?;
    }
    eprintln!("handover: {} runs…", args.takeovers);
    let mut handover = Vec::new();
    let mut baseline = Vec::new();
    for run in 0..2 * args.takeovers {
        let kill = run % 2 == 0;
        let owner = Server::start_node(&args.server_bin, url, &node_args, http).await?;
        let (room, token) = client::bot_room(http, owner.addr).await?;
        // The player joins the owner first: it loads the room and takes its lease; then his
        // second socket on B, where he plays on.
        let first = Player::join(owner.addr, &room, Some(&token)).await?;
        let mut player = Player::join(b.addr, &room, Some(&token)).await?;
        let started = Instant::now();
        let mut alive = Some(owner);
        if kill {
            if let Some(owner) = alive.take() {
                owner.stop().await;
            }
        }
        drop(first);
        // The player's whole turn, on B; then the computer's move, by whoever holds the lease.
        let mut moves = 0;
        while let Some(legal) = player.state.legal.clone().filter(|l| l.sample(&mut rng).is_some()) {
            let mut action = legal.sample(&mut rng).context("a move")?;
            while action == Action::Resign {
                action = legal.sample(&mut rng).context("a move")?;
            }
            let version = player.state.version;
            let seq = player.act(action).await?;
            player.own_answer(seq, version).await?;
            moves += 1;
            if moves > 10 {
                bail!("the player's turn does not end");
            }
        }
        let version = player.state.version;
        let answered = player.state_until(|s| s.version > version).await?;
        let elapsed = answered - started;
        if kill {
            handover.push(elapsed);
        } else {
            baseline.push(elapsed);
        }
        if let Some(owner) = alive {
            owner.stop().await;
        }
    }
    eprintln!("clock handover: {} runs…", args.takeovers);
    let (mut clock_late, mut clock_baseline) = (Vec::new(), Vec::new());
    for run in 0..2 * args.takeovers {
        let kill = run % 2 == 0;
        let late = clock_handover(&args.server_bin, url, &node_args, http, b.addr, kill).await?;
        if kill { clock_late.push(late) } else { clock_baseline.push(late) }
    }
    a.stop().await;
    b.stop().await;
    Ok(Figures {
        same,
        cross,
        handover,
        baseline,
        clock_late,
        clock_baseline,
        lease_ms: args.lease_ms,
        games: args.games,
    })
}

/// One room with a 1 s turn clock, made and loaded on a new node (which so holds its lease),
/// watched by the Fugitive on `survivor`; the new node killed at once if `kill`. Returns how long
/// after the deadline the survivor's socket had the game's end (`time_out`).
async fn clock_handover(
    bin: &std::path::Path,
    url: &str,
    node_args: &[&str],
    http: &reqwest::Client,
    survivor: std::net::SocketAddr,
    kill: bool,
) -> anyhow::Result<Duration> {
    let owner = Server::start_node(bin, url, node_args, http).await?;
    let table = client::clock_table(http, owner.addr, Some(1)).await?;
    let first = Player::join(owner.addr, &table.room, Some(&table.tokens[0])).await?;
    let mut watcher = Player::join(survivor, &table.room, Some(&table.tokens[0])).await?;
    let deadline = watcher.state.deadline.context("the clock runs once both seats are claimed")?;
    let alive = if kill {
        owner.stop().await;
        None
    } else {
        Some(owner)
    };
    drop(first);
    let ended = watcher.state_until(|s| s.over).await?;
    if let Some(owner) = alive {
        owner.stop().await;
    }
    Ok(ended.saturating_duration_since(deadline))
}

fn ms(micros: u64) -> String {
    format!("{:.2}", micros as f64 / 1000.0)
}

fn stats(samples: &[Duration]) -> (String, String, String) {
    let mut sorted: Vec<Duration> = samples.to_vec();
    sorted.sort();
    let median = sorted.get(sorted.len() / 2).copied().unwrap_or_default();
    let (min, max) =
        (sorted.first().copied().unwrap_or_default(), sorted.last().copied().unwrap_or_default());
    let f = |d: Duration| format!("{:.0}", d.as_secs_f64() * 1000.0);
    (f(min), f(median), f(max))
}

/// The section of `BENCHMARKS.md`.
pub fn section(figures: &Figures, command: &str) -> String {
    let row = |name: &str, h: &Histogram<u64>| {
        format!(
            "| {name} | {} | {} | {} | {} |\n",
            h.len(),
            ms(h.value_at_quantile(0.5)),
            ms(h.value_at_quantile(0.99)),
            ms(h.max())
        )
    };
    let ratio50 =
        figures.cross.value_at_quantile(0.5) as f64 / figures.same.value_at_quantile(0.5).max(1) as f64;
    let ratio99 =
        figures.cross.value_at_quantile(0.99) as f64 / figures.same.value_at_quantile(0.99).max(1) as f64;
    let (hmin, hmed, hmax) = stats(&figures.handover);
    let (bmin, bmed, bmax) = stats(&figures.baseline);
    let mut out = String::new();
    out.push_str(&format!(
        "Action → opponent's view, {} whole random games in alternating order (ms):\n\n",
        figures.games
    ));
    out.push_str("| players | actions | p50 | p99 | max |\n|---|---|---|---|---|\n");
    out.push_str(&row("both on node A (baseline)", &figures.same));
    out.push_str(&row("Fugitive on A, Marshal on B (NOTIFY hop)", &figures.cross));
    out.push_str(&format!("\nRatio across / same node: p50 {ratio50:.2}×, p99 {ratio99:.2}×.\n\n"));
    out.push_str(&format!(
        "From `kill -9` of the node holding a room's lease to the computer's next move, made by the \
         surviving node, lease {} ms (ms; min / median / max of {} runs), beside the same with no \
         node killed:\n\n",
        figures.lease_ms,
        figures.handover.len()
    ));
    out.push_str("| | min | median | max |\n|---|---|---|---|\n");
    out.push_str(&format!("| owner alive (baseline) | {bmin} | {bmed} | {bmax} |\n"));
    out.push_str(&format!("| owner killed | {hmin} | {hmed} | {hmax} |\n"));
    let (cmin, cmed, cmax) = stats(&figures.clock_late);
    let (amin, amed, amax) = stats(&figures.clock_baseline);
    out.push_str(&format!(
        "\nA 1 s turn clock whose lease holder is killed right after it starts: from the deadline \
         the room showed to the `time_out` on the surviving node's socket, lease {} ms (ms; min / \
         median / max of {} runs), beside the same with no node killed:\n\n",
        figures.lease_ms,
        figures.clock_late.len()
    ));
    out.push_str("| | min | median | max |\n|---|---|---|---|\n");
    out.push_str(&format!("| owner alive (baseline) | {amin} | {amed} | {amax} |\n"));
    out.push_str(&format!("| owner killed | {cmin} | {cmed} | {cmax} |\n"));
    out.push_str(&format!("\nCommand: `{command}`\n"));
    out
}
