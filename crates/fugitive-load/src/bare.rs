//! The physical limit: a bare program that commits the rows the server's writer writes for an
//! action (the room's `touched_at`, the action's row), with the server's migrations and
//! settings, on the same disk or the same PostgreSQL. One connection, no server, no sockets:
//! `batch` actions per transaction, each transaction timed.
//!
//! And `PostgreSQL`'s own yardstick, `pgbench`, committing single-row inserts.

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::Once;
use std::time::Duration;

use anyhow::{Context, bail};
use hdrhistogram::Histogram;
use sqlx::any::install_default_drivers;
use sqlx::{AnyConnection, Connection, Executor, PgConnection};
use tokio::time::Instant;

use crate::commit::Throughput;

/// The server's migrations: the bare program writes into the same tables.
const MIGRATIONS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../migrations");

/// Rooms the bare program spreads its actions over.
const BARE_ROOMS: usize = 64;

/// What one bare run measured.
pub struct Bare {
    /// Actions stored and the time they took.
    pub throughput: Throughput,
    /// Each transaction's time from `BEGIN` to the end of `COMMIT`, in microseconds.
    pub commits: Histogram<u64>,
    /// Actions per transaction.
    pub batch: usize,
}

/// A microsecond histogram from 1 µs to 60 s.
pub fn histogram() -> Histogram<u64> {
    Histogram::new_with_bounds(1, 60_000_000, 3).expect("valid bounds")
}

/// A fresh SQLite database in `dir` (the same disk as the server's), as a URL.
pub fn sqlite_url(dir: &Path) -> String {
    format!("sqlite://{}?mode=rwc", dir.join("bare.db").display())
}

/// Opens `url` and creates the schema and the rooms.
async fn prepare(url: &str) -> anyhow::Result<AnyConnection> {
    static DRIVERS: Once = Once::new();
    DRIVERS.call_once(install_default_drivers);
    let mut conn = AnyConnection::connect(url).await.with_context(|| format!("cannot open {url}"))?;
    if url.starts_with("sqlite:") {
        // The server's settings: WAL, and sqlx's default `synchronous = FULL`.
        conn.execute("PRAGMA journal_mode = WAL").await?;
        conn.execute("PRAGMA synchronous = FULL").await?;
        conn.execute("PRAGMA foreign_keys = ON").await?;
    }
    let migrator = sqlx::migrate::Migrator::new(Path::new(MIGRATIONS)).await.context("the migrations")?;
    migrator.run(&mut conn).await?;
    for room in 0..BARE_ROOMS {
        let id = format!("room-{room}");
        sqlx::query(
            "INSERT INTO rooms (id, rules, created_at, touched_at, computer) VALUES ($1, '{}', 0, 0, '{}')",
        )
        .bind(id.clone())
        .execute(&mut conn)
        .await?;
        sqlx::query(
            "INSERT INTO games (room_id, game, seed, rules, fugitive_seat, started_at) \
             VALUES ($1, 1, '00', '{}', 0, 0)",
        )
        .bind(id)
        .execute(&mut conn)
        .await?;
    }
    Ok(conn)
}

/// Commits actions `batch` per transaction into a fresh schema at `url` until `count` are
/// stored or `limit` has passed; only the writes and commits are timed.
///
/// # Errors
/// When the database fails.
pub async fn commit(url: &str, count: usize, batch: usize, limit: Duration) -> anyhow::Result<Bare> {
    let batch = batch.max(1);
    let mut conn = prepare(url).await?;
    let mut commits = histogram();
    let started = Instant::now();
    let mut written = 0;
    while written < count && started.elapsed() < limit {
        let began = Instant::now();
        let mut tx = conn.begin().await?;
        for i in written..(written + batch).min(count) {
            let room = format!("room-{}", i % BARE_ROOMS);
            let at = i as i64;
            sqlx::query("UPDATE rooms SET touched_at = $1 WHERE id = $2 AND expired_at IS NULL")
                .bind(at)
                .bind(room.clone())
                .execute(&mut *tx)
                .await?;
            sqlx::query(
                "INSERT INTO actions (room_id, game, number, role, action, seat, client_seq, at) \
                 VALUES ($1, 1, $2, 'marshal', '{\"type\":\"guess\",\"numbers\":[17]}', 1, $3, $4)",
            )
            .bind(room)
            .bind((i / BARE_ROOMS) as i64)
            .bind(at)
            .bind(at)
            .execute(&mut *tx)
            .await?;
        }
        tx.commit().await?;
        commits.saturating_record(began.elapsed().as_micros() as u64);
        written = (written + batch).min(count);
    }
    let elapsed = started.elapsed();
    conn.close().await?;
    Ok(Bare { throughput: Throughput { actions: written as u64, elapsed }, commits, batch })
}

/// A PostgreSQL database made for one run and dropped after it.
pub struct Scratch {
    admin: String,
    name: String,
    /// Its URL.
    pub url: String,
}

impl Scratch {
    /// Creates database `fugitive_load_<pid>_<tag>` on the server of `admin` (a URL of an
    /// existing database, such as `postgres://postgres@127.0.0.1:5432/test`).
    ///
    /// # Errors
    /// When PostgreSQL refuses.
    pub async fn create(admin: &str, tag: &str) -> anyhow::Result<Scratch> {
        let name = format!("fugitive_load_{}_{tag}", std::process::id());
        let mut conn = PgConnection::connect(admin).await.with_context(|| format!("cannot open {admin}"))?;
        conn.execute(format!("DROP DATABASE IF EXISTS {name}").as_str()).await?;
        conn.execute(format!("CREATE DATABASE {name}").as_str()).await?;
        conn.close().await?;
        let (base, query) = admin.split_once('?').map_or((admin, None), |(b, q)| (b, Some(q)));
        let base = base.rsplit_once('/').context("no database in the URL")?.0;
        let url = format!("{base}/{name}{}", query.map_or(String::new(), |q| format!("?{q}")));
        Ok(Scratch { admin: admin.to_string(), name, url })
    }

    /// Drops the database (closing whatever is still connected to it).
    pub async fn drop_database(self) {
        let dropped = async {
            let mut conn = PgConnection::connect(&self.admin).await?;
            conn.execute(format!("DROP DATABASE IF EXISTS {} WITH (FORCE)", self.name).as_str()).await?;
            conn.close().await
        };
        if let Err(error) = dropped.await {
            eprintln!("could not drop the scratch database {}: {error}", self.name);
        }
    }
}

/// What `pgbench` measured.
pub struct Pgbench {
    /// Clients (one connection each).
    pub clients: u32,
    /// Transactions (one single-row insert each) per second.
    pub tps: f64,
    /// Mean latency of one transaction.
    pub latency_ms: f64,
}

/// The `pgbench` binary: on `PATH`, or PostgreSQL's own directory.
fn pgbench_bin() -> PathBuf {
    let mut found: Vec<PathBuf> = std::fs::read_dir("/usr/lib/postgresql")
        .into_iter()
        .flatten()
        .flatten()
        .map(|version| version.path().join("bin/pgbench"))
        .filter(|path| path.exists())
        .collect();
    found.sort();
    found.pop().unwrap_or_else(|| PathBuf::from("pgbench"))
}

/// Runs `pgbench` for `secs` seconds with `clients` connections on a scratch database, each
/// transaction one single-row insert, committed (`synchronous_commit` as the server has it).
///
/// # Errors
/// When `pgbench` is missing or fails.
pub async fn pgbench(admin: &str, clients: u32, secs: u32) -> anyhow::Result<Pgbench> {
    let scratch = Scratch::create(admin, &format!("pgbench{clients}")).await?;
    let result = async {
        let mut conn = PgConnection::connect(&scratch.url).await?;
        conn.execute("CREATE TABLE bench (id BIGSERIAL PRIMARY KEY, room TEXT NOT NULL, at BIGINT NOT NULL)")
            .await?;
        conn.close().await?;
        let script = tempfile::NamedTempFile::new()?;
        std::fs::write(script.path(), "INSERT INTO bench (room, at) VALUES ('room', 1);\n")?;
        let output = tokio::process::Command::new(pgbench_bin())
            .args(["-n", "-M", "prepared", "-f"])
            .arg(script.path())
            .args(["-c", &clients.to_string(), "-j", &clients.min(2).to_string(), "-T", &secs.to_string()])
            .arg(&scratch.url)
            .stdin(Stdio::null())
            .output()
            .await
            .context("cannot run pgbench")?;
        let text = String::from_utf8_lossy(&output.stdout).to_string();
        if !output.status.success() {
            bail!("pgbench failed: {text}{}", String::from_utf8_lossy(&output.stderr));
        }
        let number = |prefix: &str| {
            text.lines()
                .find_map(|line| line.trim().strip_prefix(prefix))
                .and_then(|rest| rest.trim_start_matches([' ', '=']).split_whitespace().next())
                .and_then(|n| n.parse::<f64>().ok())
        };
        let tps = number("tps").context("no tps in pgbench's output")?;
        let latency_ms = number("latency average").unwrap_or(f64::NAN);
        anyhow::Ok(Pgbench { clients, tps, latency_ms })
    }
    .await;
    scratch.drop_database().await;
    result
}
