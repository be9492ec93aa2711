//! `--mode commit`: durable actions per second, at full speed.
//!
//! 1. The server: `--commit-rooms` rooms, two random players each, play whole games (rematch
//!    after rematch) as fast as the server answers, for `--commit-for`. An action counts once
//!    its player has the `ok` reply, which the server sends only after the commit.
//! 2. The bare baseline, on the same disk (a temporary directory beside the server's): one
//!    SQLite connection with the server's migrations and settings (WAL, `synchronous = FULL`)
//!    writes the rows the server's writer writes for an action (the room's `touched_at`, the
//!    action's row), first one transaction per action, then `--bare-batch` actions per
//!    transaction.

use std::time::Duration;

use rand::SeedableRng;
use rand::rngs::StdRng;
use tokio::task::JoinSet;
use tokio::time::Instant;

use crate::client::{self, Player};
use crate::server::{Caps, Server};
use crate::{Args, join_all, play};

/// Actions stored in a time.
#[derive(Clone, Copy, Debug)]
pub struct Throughput {
    pub actions: u64,
    pub elapsed: Duration,
}

impl Throughput {
    pub fn per_sec(&self) -> f64 {
        self.actions as f64 / self.elapsed.as_secs_f64()
    }
}

/// What `--mode commit` measured.
#[derive(Clone, Copy, Debug)]
pub struct CommitFigures {
    pub rooms: usize,
    pub server: Throughput,
    /// The server writer's transactions during the run (`fugitive_commit_batches_total`).
    pub batches: u64,
    pub single: Throughput,
    pub batched: Throughput,
    pub batch: usize,
}

/// Runs both measurements.
///
/// # Errors
/// When the server fails, refuses an action, or SQLite fails.
pub async fn run(args: &Args, http: &reqwest::Client) -> anyhow::Result<CommitFigures> {
    let rooms = args.commit_rooms as usize;
    crate::raise_fd_limit(2 * rooms)?;
    eprintln!("server: {rooms} rooms playing for {:?}…", args.commit_for);
    let caps = Caps { sockets: 2 * rooms + 16, sockets_per_room: 64 };
    // With `--postgres`, the server runs on a scratch PostgreSQL database (the bare baseline
    // stays SQLite's).
    let scratch = match &args.postgres {
        Some(admin) => Some(crate::bare::Scratch::create(admin, "commit").await?),
        None => None,
    };
    let server =
        Server::start_on(&args.server_bin, caps, http, scratch.as_ref().map(|s| s.url.as_str()), &[]).await?;
    let addr = server.addr;
    let open_table = |_| async move {
        let table = client::table(http, addr).await?;
        anyhow::Ok([
            Player::join(addr, &table.room, Some(&table.tokens[0])).await?,
            Player::join(addr, &table.room, Some(&table.tokens[1])).await?,
        ])
    };
    let tables = join_all((0..rooms).map(open_table), args.concurrency).await?;
    let batches_before = server.metric(http, "fugitive_commit_batches_total").await?;
    let started = Instant::now();
    let deadline = started + args.commit_for;
    let mut players = JoinSet::new();
    for (i, mut table) in tables.into_iter().enumerate() {
        let mut rng = StdRng::seed_from_u64(args.seed.wrapping_add(i as u64));
        players.spawn(async move {
            let mut actions = 0u64;
            while Instant::now() < deadline {
                match play::step(&mut table, &mut rng).await? {
                    Some(_) => actions += 1,
                    None => play::rematch(&mut table).await?,
                }
            }
            anyhow::Ok(actions)
        });
    }
    let mut actions = 0;
    for result in players.join_all().await {
        actions += result?;
    }
    let elapsed = started.elapsed();
    let batches = server.metric(http, "fugitive_commit_batches_total").await? - batches_before;
    server.stop().await;
    if let Some(scratch) = scratch {
        scratch.drop_database().await;
    }
    let server = Throughput { actions, elapsed };

    let count = args.bare_actions as usize;
    let batch = args.bare_batch as usize;
    eprintln!("bare SQLite: {count} actions, one transaction each…");
    let single = bare(count, 1).await?;
    eprintln!("bare SQLite: {} actions, {batch} per transaction…", count * batch);
    let batched = bare(count * batch, batch).await?;
    Ok(CommitFigures { rooms, server, batches: batches as u64, single, batched, batch })
}

/// Writes `count` actions' rows, `batch` per transaction, into a fresh database with the
/// server's schema (`bare.rs`); the time counts the writes and commits only.
async fn bare(count: usize, batch: usize) -> anyhow::Result<Throughput> {
    let dir = tempfile::Builder::new().prefix("fugitive-load-bare-").tempdir()?;
    let bare = crate::bare::commit(&crate::bare::sqlite_url(dir.path()), count, batch, Duration::MAX).await?;
    Ok(bare.throughput)
}

/// The section of BENCHMARKS.md.
pub fn section(figures: &CommitFigures, command: &str) -> String {
    let CommitFigures { rooms, server, batches, single, batched, batch } = *figures;
    let per_batch = server.actions as f64 / batches.max(1) as f64;
    format!(
        "### Durable actions per second (group commit, SQLite)\n\n\
         Command: `{command}`\n\n\
         | what | actions | time | durable actions/s |\n\
         |---|---:|---:|---:|\n\
         | fugitive-server, {rooms} rooms playing at full speed ({batches} transactions, {per_batch:.1} actions each) | {} | {:.2} s | {:.0} |\n\
         | bare SQLite, one transaction per action | {} | {:.2} s | {:.0} |\n\
         | bare SQLite, {batch} actions per transaction | {} | {:.2} s | {:.0} |\n",
        server.actions,
        server.elapsed.as_secs_f64(),
        server.per_sec(),
        single.actions,
        single.elapsed.as_secs_f64(),
        single.per_sec(),
        batched.actions,
        batched.elapsed.as_secs_f64(),
        batched.per_sec(),
    )
}
