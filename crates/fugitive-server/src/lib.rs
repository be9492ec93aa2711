//! The Fugitive Online game server.
//!
//! # Layout
//!
//! In layers: a module imports only from its own layer and those below (`docs/architecture.md`;
//! `tests/it/layers.rs` checks it).
//! - wiring: [`run`] (here) serves a bound listener until the `shutdown` future completes, then
//!   stops accepting, closes every socket with 1001, lets each room finish its last write, and
//!   closes the database. `main.rs` passes ctrl-c/SIGTERM; tests pass anything.
//! - edges, the modules that speak HTTP: `serve.rs` (the accept loop: hyper HTTP/1 with a header
//!   read timeout, a cap on connections), `http.rs` (the router, the REST endpoints), `socket.rs`
//!   (the WebSocket endpoint: Origin check and caps before the upgrade, then a writer task and a
//!   reader loop per socket), `web.rs` (the web client's files, the security headers);
//! - `app.rs`: what the edges share: `AppState`, `AppError`;
//! - `lobby.rs` (at the level of `rooms.rs`): the lobby (issue 25): seeks pushed live, taking
//!   one once, quick-pairing pools; `http_profile.rs` (profiles without an account: the cookie,
//!   names, transfer codes, deletion), `http_puzzles.rs` (puzzles, issue 26) and
//!   `socket_lobby.rs` (the lobby's WebSocket) are edges;
//! - `rooms.rs`: the registry of room actors: create, load from the database and rebuild by
//!   replay, expire idle rooms; `cluster/`: several nodes on one PostgreSQL database (`listen`:
//!   the notices and the heartbeat; `lease`: who runs a room's clock);
//! - `room/`: one actor per room: the thin async shell (`mod.rs`, `handle.rs`) around
//!   `room/machine/`, the room as a pure state machine (the `Game`, the seats, the clock, the
//!   computer's schedule) that takes the time and its RNG's seed as inputs and hands frames out;
//! - `analysis.rs`: finished games' analyses off the room actors (the claim, the progress),
//!   served by `http_analysis.rs`;
//! - `computer.rs` (the `fugitive-ai` adapter: the bot's move, the Marshal's notepad),
//!   `protocol/` (every message of protocols v1 and v2, the error codes, and `frames.rs`: a
//!   snapshot, then per change a small delta), `db/` (SQLite or PostgreSQL through sqlx: rooms,
//!   the table's rows, leases, the group-commit writer), `puzzles.rs` (the puzzles file loaded
//!   at start-up, and the miner of finished games, off the room actors), `background.rs` (the
//!   workers of the analyses and the miner: a bounded queue, threads at the idle priority);
//! - `model/`: the records with no tokio, sqlx or axum: seats and secrets, the table's rules
//!   (names, chat, series), a room's options, a finished game step by step;
//! - leaves: `config.rs` (every setting), `mailbox.rs` (a socket's outbound queue), `metrics.rs`,
//!   `limit.rs` (per-address rate limits), `open_files.rs` (the open-files budget).
//!
//! The wire contract is `docs/protocol.md`.

pub mod analysis;
pub mod app;
pub mod background;
pub mod cluster;
pub mod computer;
pub mod config;
pub mod db;
pub mod http;
pub mod http_analysis;
pub mod http_profile;
pub mod http_push;
pub mod http_puzzles;
pub mod limit;
pub mod lobby;
pub mod mailbox;
pub mod metrics;
pub mod model;
pub mod open_files;
pub mod protocol;
pub mod push;
pub mod puzzles;
pub mod room;
pub mod rooms;
pub mod serve;
pub mod socket;
pub mod socket_lobby;
pub mod web;

use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use tokio::net::TcpListener;
use tokio::sync::{Semaphore, watch};

pub use config::Config;

use crate::app::AppState;
use crate::cluster::lease::Cluster;
use crate::config::Origins;
use crate::db::{CommitOptions, Db, DbError};
use crate::limit::RoomLimiter;
use crate::room::RoomLimits;
use crate::rooms::Rooms;

/// Why the server could not start or stopped with an error.
///
/// Each variant either says what failed and leaves the details to its `source()`, or is
/// transparent: never both, or a report of the chain (`main`'s) says the same thing twice.
#[derive(Debug, thiserror::Error)]
pub enum ServerError {
    /// The database could not be opened or migrated.
    #[error("the database")]
    Db(#[from] DbError),
    /// The listener failed.
    #[error("the listener")]
    Io(#[from] std::io::Error),
    /// `--web-dir` does not hold the web client.
    #[error(transparent)]
    NoWebClient(#[from] web::NoWebClient),
    /// The VAPID key of Web Push is bad, or could not be stored.
    #[error("Web Push")]
    Push(#[from] push::PushError),
}

/// Serves `listener` with `config` until `shutdown` completes, then shuts down gracefully.
///
/// # Errors
/// When `--web-dir` has no web client, the database cannot be opened or migrated, or the
/// listener fails.
pub async fn run(
    listener: TcpListener,
    mut config: Config,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> Result<(), ServerError> {
    // The server's wall-clock time is the wall clock read here, at start-up, plus the monotonic
    // time since (`db::now_ms`): read it now, not at its first use, which a jump of the wall
    // clock in between would shift for the node's whole life (issue 27).
    db::now_ms();
    let local = listener.local_addr()?;
    if let Some(size) = config.socket_send_buffer {
        // Accepted connections inherit it from the listening socket.
        socket2::SockRef::from(&listener).set_send_buffer_size(size)?;
    }
    // First: the rooms rebuilt below are counted in `fugitive_rooms_loaded`.
    let metrics = metrics::install();
    web::check(&config.web_dir)?;
    let budget = open_files::budget(config.max_sockets);
    config.max_sockets = budget.sockets;
    let database = without_password(&config.database_url);
    tracing::info!(
        %database,
        web_dir = %config.web_dir.display(),
        max_sockets = budget.sockets,
        max_connections = budget.connections,
        "starting"
    );
    let commit = CommitOptions {
        max_batch: usize::try_from(config.max_commit_batch).unwrap_or(usize::MAX),
        max_queue: usize::try_from(config.max_commit_queue).unwrap_or(usize::MAX),
        pipeline: usize::try_from(config.commit_pipeline).unwrap_or(1),
        sqlite_writer: config.sqlite_writer,
        ack_before_commit: config.test_ack_before_commit,
        // A room's `touched_at` lags its last action by at most this; expiry waits as much
        // longer (issue 28: a write of the room's row with each action was a quarter of
        // PostgreSQL's CPU per action).
        touch_every: (config.room_idle_ttl / 16).min(Duration::from_secs(60)),
        ..CommitOptions::default()
    };
    let db = Db::connect_with(&config.database_url, commit).await?;
    let limits = RoomLimits {
        max_sockets: config.max_sockets_per_room,
        unload_after: config.room_unload_after,
        bot_pause: config.bot_pause,
        deal_seed: config.deal_seed,
    };
    let cluster = if db.is_postgres() {
        Cluster::shared(Duration::from_millis(config.lease_ms))
    } else {
        Cluster::single()
    };
    let vapid = push::Vapid::load(&db, config.vapid_private_key.as_deref(), &config.vapid_subject).await?;
    let push = push::Push::start(db.clone(), vapid);
    let rooms = Rooms::with_cluster(db.clone(), limits, cluster.clone(), push);
    let lobby = lobby::Lobby::new(rooms.clone());
    let lobby_task = tokio::spawn(lobby.clone().run());
    let background = cluster::listen::start(&cluster, db.clone(), rooms.clone(), lobby.clone());
    let (stop_tx, stop) = watch::channel(false);
    let workers =
        config.analysis_workers.map_or_else(background::Background::default_workers, |n| n as usize);
    let workers = background::Background::new(workers, config.background_priority);
    let max_sockets = config.max_sockets;
    let sockets = Arc::new(Semaphore::new(max_sockets));
    let state = AppState {
        rooms: rooms.clone(),
        origins: Arc::new(Origins::new(&config, local)),
        sockets: sockets.clone(),
        stop: stop.clone(),
        metrics,
        limiter: Arc::new(RoomLimiter::new(config.max_rooms_per_minute, config.client_ip_header.clone())),
        lobby: lobby.clone(),
        analyses: analysis::Analyses::new(
            db.clone(),
            workers.clone(),
            Duration::from_millis(config.analysis_cpu_ms),
        ),
        profile_limiter: Arc::new(RoomLimiter::new(
            config.max_rooms_per_minute,
            config.client_ip_header.clone(),
        )),
        config: Arc::new(config.clone()),
    };
    let app = http::router(state, &config.web_dir);
    if let Some(path) = config.puzzles_file(std::path::Path::new("")) {
        let new = puzzles::load_file(&db, &path).await;
        tracing::info!(new, path = %path.display(), "puzzles loaded");
    }
    let miner = tokio::spawn(puzzles::mine_forever(
        puzzles::Miner::new(db.clone(), workers, Duration::from_millis(config.puzzle_cpu_ms)),
        config.puzzle_mine_interval,
    ));
    let expiry = tokio::spawn(expire_rooms(
        rooms.clone(),
        cluster.clone(),
        config.room_idle_ttl,
        config.expiry_interval,
    ));
    tracing::info!(addr = %local, %database, "listening: open {} in a browser", open_url(local));
    // Listen first: the rooms whose turn clock runs load in the background, several at a time
    // (their clocks run again as each loads); every room loads on demand when asked for.
    let loading = tokio::spawn({
        let rooms = rooms.clone();
        async move {
            match rooms.restore_clocks().await {
                Ok(loaded) => tracing::info!(rooms = loaded, "rooms with a running turn clock restored"),
                Err(error) => tracing::error!(%error, "could not list the rooms with a running turn clock"),
            }
        }
    });

    let signal = async move {
        shutdown.await;
        tracing::info!("shutting down");
        let _ = stop_tx.send(true);
    };
    let options = serve::Options {
        header_read_timeout: config.header_read_timeout,
        max_connections: budget.connections,
    };
    serve::serve(listener, app, options, signal).await;
    // Every socket task holds a permit: when all are back, every socket has closed.
    let all = u32::try_from(max_sockets).unwrap_or(u32::MAX);
    if tokio::time::timeout(Duration::from_secs(10), sockets.acquire_many(all)).await.is_err() {
        tracing::warn!("some sockets did not close in time");
    }
    expiry.abort();
    miner.abort();
    lobby_task.abort();
    for task in background {
        task.abort();
    }
    // Stopped before the rooms, so it loads none after they are shut down.
    loading.abort();
    let _ = loading.await;
    rooms.shut_down().await;
    if cluster.is_shared() {
        if let Err(error) = db.leave_cluster().await {
            tracing::warn!(%error, "could not leave the other nodes cleanly; they forget this one after its lease time");
        }
    }
    db.close().await;
    tracing::info!("stopped");
    Ok(())
}

/// The address to open in a browser.
fn open_url(local: std::net::SocketAddr) -> String {
    if local.ip().is_unspecified() {
        format!("http://localhost:{}", local.port())
    } else {
        format!("http://{local}")
    }
}

/// A database URL fit for a log: its password replaced by `***`.
pub fn without_password(database_url: &str) -> String {
    match url::Url::parse(database_url) {
        Ok(mut url) if url.password().is_some() => {
            let _ = url.set_password(Some("***"));
            url.to_string()
        }
        Ok(_) => database_url.to_string(),
        Err(_) => "(a database URL that does not parse)".to_string(),
    }
}

/// Deletes idle unfinished rooms every `interval` (with several nodes, the one holding the
/// `expiry` lease).
async fn expire_rooms(rooms: Rooms, cluster: Cluster, ttl: Duration, interval: Duration) {
    let mut tick = tokio::time::interval(interval);
    loop {
        tick.tick().await;
        if !cluster.runs_expiry(rooms.db()).await {
            continue;
        }
        match rooms.expire(ttl).await {
            Ok(0) => {}
            Ok(n) => tracing::info!(rooms = n, "expired idle rooms"),
            Err(error) => tracing::error!(%error, "could not expire rooms"),
        }
    }
}
