//! The Fugitive Online game server.
//!
//! # Layout
//! - [`run`] (here): serves a bound listener until the `shutdown` future completes, then stops
//!   accepting, closes every socket with 1001, lets each room finish its last write, and closes
//!   the database. `main.rs` passes ctrl-c/SIGTERM; tests pass anything.
//! - `config.rs`: every setting, as a flag and an environment variable.
//! - `http.rs`: the router, the REST endpoints, `AppError`.
//! - `socket.rs`: the WebSocket endpoint: Origin check and caps before the upgrade, then a
//!   writer task and a reader loop per socket (rate limit, size limit, idle timeout).
//! - `protocol.rs`: every client and server message of protocol v1 and the error codes.
//! - `rooms.rs`: the registry of room actors: create, load from the database and rebuild by
//!   replay, expire idle rooms.
//! - `room.rs`: one actor per room, owning the `Game`, the seats and the sockets' queues.
//! - `computer.rs`: play against the computer (`fugitive-ai`): a bot in the guest seat, the
//!   Marshal's notepad assist.
//! - `seat.rs`: seats, secret tokens (only their SHA-256 is stored), client `seq` memory.
//! - `db.rs`: SQLite or PostgreSQL through sqlx, migrations from `migrations/`.
//! - `metrics.rs`: the Prometheus metrics.
//!
//! The wire contract is `docs/protocol.md`.

pub mod computer;
pub mod config;
pub mod db;
pub mod http;
pub mod metrics;
pub mod protocol;
pub mod room;
pub mod rooms;
pub mod seat;
pub mod socket;

use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use axum::serve::ListenerExt;
use tokio::net::TcpListener;
use tokio::sync::{Semaphore, watch};

pub use config::Config;

use crate::config::Origins;
use crate::db::{Db, DbError};
use crate::http::AppState;
use crate::room::RoomLimits;
use crate::rooms::Rooms;

/// Why the server could not start or stopped with an error.
#[derive(Debug, thiserror::Error)]
pub enum ServerError {
    /// The database could not be opened or migrated.
    #[error("database: {0}")]
    Db(#[from] DbError),
    /// The listener failed.
    #[error("listener: {0}")]
    Io(#[from] std::io::Error),
}

/// Serves `listener` with `config` until `shutdown` completes, then shuts down gracefully.
///
/// # Errors
/// When the database cannot be opened or migrated, or the listener fails.
pub async fn run(
    listener: TcpListener,
    config: Config,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> Result<(), ServerError> {
    let local = listener.local_addr()?;
    // First: the rooms rebuilt below are counted in `fugitive_rooms_loaded`.
    let metrics = metrics::install();
    let db = Db::connect(&config.database_url).await?;
    let limits = RoomLimits {
        max_sockets: config.max_sockets_per_room,
        unload_after: config.room_unload_after,
        bot_pause: config.bot_pause,
        deal_seed: config.deal_seed,
    };
    let rooms = Rooms::new(db.clone(), limits);
    rooms.load_unfinished().await?;
    let (stop_tx, stop) = watch::channel(false);
    let max_sockets = config.max_sockets;
    let sockets = Arc::new(Semaphore::new(max_sockets));
    let state = AppState {
        rooms: rooms.clone(),
        origins: Arc::new(Origins::new(&config, local)),
        sockets: sockets.clone(),
        stop: stop.clone(),
        metrics,
        config: Arc::new(config.clone()),
    };
    let app = http::router(state, &config.web_dir);
    let expiry = tokio::spawn(expire_rooms(rooms.clone(), config.room_idle_ttl, config.expiry_interval));
    tracing::info!(addr = %local, "listening");

    let signal = async move {
        shutdown.await;
        tracing::info!("shutting down");
        let _ = stop_tx.send(true);
    };
    // A move answers with a `state` and then a `reply`, two small writes: without TCP_NODELAY the
    // second waits for the client's delayed ACK of the first (~40 ms on Linux).
    let listener = listener.tap_io(|tcp| {
        if let Err(error) = tcp.set_nodelay(true) {
            tracing::warn!(%error, "could not set TCP_NODELAY");
        }
    });
    axum::serve(listener, app).with_graceful_shutdown(signal).await?;
    // Every socket task holds a permit: when all are back, every socket has closed.
    let all = u32::try_from(max_sockets).unwrap_or(u32::MAX);
    if tokio::time::timeout(Duration::from_secs(10), sockets.acquire_many(all)).await.is_err() {
        tracing::warn!("some sockets did not close in time");
    }
    expiry.abort();
    rooms.shut_down().await;
    db.close().await;
    tracing::info!("stopped");
    Ok(())
}

/// Deletes idle unfinished rooms every `interval`.
async fn expire_rooms(rooms: Rooms, ttl: Duration, interval: Duration) {
    let mut tick = tokio::time::interval(interval);
    loop {
        tick.tick().await;
        match rooms.expire(ttl).await {
            Ok(0) => {}
            Ok(n) => tracing::info!(rooms = n, "expired idle rooms"),
            Err(error) => tracing::error!(%error, "could not expire rooms"),
        }
    }
}
