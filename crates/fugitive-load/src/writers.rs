//! `--mode writers`: the SQLite writer's path, two ways, with nothing else around it (issue 10
//! asks for both to be measured).
//!
//! `--writer-clients` tasks each hand an action to a writer and wait for its answer, in a loop,
//! for `--bare-for`; the writer gathers whatever waits (up to 512 actions), writes the rows the
//! server writes for an action (the room's `touched_at`, the action's row) in one transaction,
//! commits (WAL, `synchronous = FULL`), and answers each. The same migrations, the same disk.
//! - **sqlx**: a tokio task owning an sqlx `AnyConnection` (as `fugitive-server` had it): every
//!   statement is a round trip to sqlx's own SQLite worker thread.
//! - **rusqlite**: a dedicated thread owning a `rusqlite::Connection`, with cached prepared
//!   statements: one hand-off per batch.

use std::path::Path;
use std::time::Duration;

use anyhow::Context;
use sqlx::{AnyConnection, Connection};
use tokio::sync::{mpsc, oneshot};
use tokio::task::JoinSet;
use tokio::time::Instant;

use crate::Args;
use crate::bare::{self, Bare, histogram};
use crate::commit::Throughput;

/// Most actions in one transaction, as the server's default.
const MAX_BATCH: usize = 512;

/// Which writer.
#[derive(Clone, Copy, Debug)]
pub enum Backend {
    Sqlx,
    Rusqlite,
}

/// One action's row, as the bare program writes it.
struct Row {
    room: String,
    number: i64,
    at: i64,
    reply: oneshot::Sender<Result<(), String>>,
}

/// What one writer did.
pub struct WriterFigures {
    pub backend: Backend,
    pub clients: usize,
    pub throughput: Throughput,
    pub batches: u64,
    /// Each action's time from hand-off to answer, µs.
    pub latency: hdrhistogram::Histogram<u64>,
}

/// Both writers, each with one client (lone actions) and with `--writer-clients`.
///
/// # Errors
/// When SQLite fails.
pub async fn run(args: &Args) -> anyhow::Result<Vec<WriterFigures>> {
    let mut figures = Vec::new();
    for clients in [1, args.writer_clients as usize] {
        for backend in [Backend::Sqlx, Backend::Rusqlite, Backend::Sqlx, Backend::Rusqlite] {
            eprintln!("writer {backend:?}, {clients} clients…");
            figures.push(one(backend, clients, args.bare_for).await?);
        }
    }
    Ok(figures)
}

async fn one(backend: Backend, clients: usize, length: Duration) -> anyhow::Result<WriterFigures> {
    let dir = tempfile::Builder::new().prefix("fugitive-load-writer-").tempdir()?;
    let url = bare::sqlite_url(dir.path());
    // The schema and the rooms, by the bare program's own preparation.
    let Bare { .. } = bare::commit(&url, 0, 1, Duration::ZERO).await?;
    let (tx, rx) = mpsc::channel::<Row>(4096);
    let batches = match backend {
        Backend::Sqlx => {
            let conn = AnyConnection::connect(&url).await?;
            tokio::spawn(sqlx_writer(conn, rx))
        }
        Backend::Rusqlite => {
            let path = dir.path().join("bare.db");
            let (done, finished) = oneshot::channel();
            std::thread::spawn(move || {
                let _ = done.send(rusqlite_writer(&path, rx));
            });
            tokio::spawn(
                async move { finished.await.unwrap_or_else(|_| Err(anyhow::anyhow!("thread died"))) },
            )
        }
    };
    let started = Instant::now();
    let end = started + length;
    let mut tasks = JoinSet::new();
    for client in 0..clients {
        let tx = tx.clone();
        tasks.spawn(async move {
            let mut latency = histogram();
            let mut count = 0i64;
            let room = format!("room-{}", client % 64);
            while Instant::now() < end {
                let (reply, answer) = oneshot::channel();
                let number = 1_000_000 * client as i64 + count;
                let sent = Instant::now();
                tx.send(Row { room: room.clone(), number, at: number, reply }).await?;
                answer.await?.map_err(|e| anyhow::anyhow!(e))?;
                latency.saturating_record(sent.elapsed().as_micros() as u64);
                count += 1;
            }
            anyhow::Ok(latency)
        });
    }
    drop(tx);
    let mut latency = histogram();
    while let Some(joined) = tasks.join_next().await {
        latency.add(joined??).expect("same bounds");
    }
    let elapsed = started.elapsed();
    let batches = batches.await??;
    Ok(WriterFigures {
        backend,
        clients,
        throughput: Throughput { actions: latency.len(), elapsed },
        batches,
        latency,
    })
}

async fn sqlx_writer(mut conn: AnyConnection, mut rx: mpsc::Receiver<Row>) -> anyhow::Result<u64> {
    use sqlx::Executor;
    conn.execute("PRAGMA journal_mode = WAL").await?;
    conn.execute("PRAGMA synchronous = FULL").await?;
    let mut batches = 0;
    let mut batch = Vec::with_capacity(MAX_BATCH);
    while let Some(first) = rx.recv().await {
        batch.push(first);
        while batch.len() < MAX_BATCH {
            let Ok(row) = rx.try_recv() else { break };
            batch.push(row);
        }
        let mut tx = conn.begin().await?;
        for row in &batch {
            sqlx::query("UPDATE rooms SET touched_at = $1 WHERE id = $2 AND expired_at IS NULL")
                .bind(row.at)
                .bind(row.room.clone())
                .execute(&mut *tx)
                .await?;
            sqlx::query(
                "INSERT INTO actions (room_id, game, number, role, action, seat, client_seq, at) \
                 VALUES ($1, 1, $2, 'marshal', '{\"type\":\"guess\",\"numbers\":[17]}', 1, $3, $4)",
            )
            .bind(row.room.clone())
            .bind(row.number)
            .bind(row.at)
            .bind(row.at)
            .execute(&mut *tx)
            .await?;
        }
        tx.commit().await?;
        batches += 1;
        for row in batch.drain(..) {
            let _ = row.reply.send(Ok(()));
        }
    }
    conn.close().await?;
    Ok(batches)
}

fn rusqlite_writer(path: &Path, mut rx: mpsc::Receiver<Row>) -> anyhow::Result<u64> {
    let mut conn = rusqlite::Connection::open(path).context("rusqlite cannot open the database")?;
    conn.pragma_update(None, "journal_mode", "WAL")?;
    conn.pragma_update(None, "synchronous", "FULL")?;
    let mut batches = 0;
    let mut batch = Vec::with_capacity(MAX_BATCH);
    while let Some(first) = rx.blocking_recv() {
        batch.push(first);
        while batch.len() < MAX_BATCH {
            let Ok(row) = rx.try_recv() else { break };
            batch.push(row);
        }
        let tx = conn.transaction()?;
        {
            let mut touch =
                tx.prepare_cached("UPDATE rooms SET touched_at = ?1 WHERE id = ?2 AND expired_at IS NULL")?;
            let mut insert = tx.prepare_cached(
                "INSERT INTO actions (room_id, game, number, role, action, seat, client_seq, at) \
                 VALUES (?1, 1, ?2, 'marshal', '{\"type\":\"guess\",\"numbers\":[17]}', 1, ?3, ?4)",
            )?;
            for row in &batch {
                touch.execute(rusqlite::params![row.at, row.room])?;
                insert.execute(rusqlite::params![row.room, row.number, row.at, row.at])?;
            }
        }
        tx.commit()?;
        batches += 1;
        for row in batch.drain(..) {
            let _ = row.reply.send(Ok(()));
        }
    }
    Ok(batches)
}

/// The figures as a markdown table.
pub fn section(figures: &[WriterFigures], command: &str) -> String {
    use std::fmt::Write;
    let mut out = format!(
        "Command: `{command}` (load average after: {})\n\n\
         | writer | clients | actions | actions/s | transactions | actions per transaction | p50 µs | p99 µs |\n\
         |---|---:|---:|---:|---:|---:|---:|---:|\n",
        crate::report::load_average()
    );
    for f in figures {
        let _ = writeln!(
            out,
            "| {:?} | {} | {} | {:.0} | {} | {:.1} | {} | {} |",
            f.backend,
            f.clients,
            f.throughput.actions,
            f.throughput.per_sec(),
            f.batches,
            f.throughput.actions as f64 / f.batches.max(1) as f64,
            f.latency.value_at_quantile(0.5),
            f.latency.value_at_quantile(0.99),
        );
    }
    out
}
