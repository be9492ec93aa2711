//! What the edges share (`http.rs` and `socket.rs` both import it): the state every handler
//! holds and the HTTP error a client is told.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use axum::Json;
use axum::body::Bytes;
use axum::extract::ConnectInfo;
use axum::extract::rejection::BytesRejection;
use axum::http::header::COOKIE;
use axum::http::header::{CONNECTION, RETRY_AFTER};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use metrics_exporter_prometheus::PrometheusHandle;
use serde_json::json;
use tokio::sync::{Semaphore, watch};

use crate::config::{Config, Origins};
use crate::db::DbError;
use crate::db::profiles::{self, OwnProfile};
use crate::limit::RoomLimiter;
use crate::metrics;
use crate::model::profile::parse_cookie;
use crate::model::seat::hash_secret;
use crate::rooms::{Rooms, RoomsError};

/// A connection's peer address, as the accept loop (`serve.rs`) hands it to the handlers.
pub type Peer = ConnectInfo<SocketAddr>;

/// What every handler shares.
#[derive(Clone)]
pub struct AppState {
    /// The room registry.
    pub rooms: Rooms,
    /// The settings.
    pub config: Arc<Config>,
    /// Who may open a WebSocket.
    pub origins: Arc<Origins>,
    /// One permit per open WebSocket.
    pub sockets: Arc<Semaphore>,
    /// Turns `true` when the server shuts down.
    pub stop: watch::Receiver<bool>,
    /// Renders `/metrics`.
    pub metrics: PrometheusHandle,
    /// Room creations and claims per client address.
    pub limiter: Arc<RoomLimiter>,
    /// Profiles made and transfer codes tried per client address (the same limit).
    pub profile_limiter: Arc<RoomLimiter>,
    /// The lobby: seeks and quick pairing.
    pub lobby: crate::lobby::Lobby,
    /// The analyses of finished games (issue 26).
    pub analyses: crate::analysis::Analyses,
}

/// An HTTP error: a status, a stable code and a message that is safe to show.
#[derive(Debug, thiserror::Error)]
pub enum AppError {
    /// The request body is not what the endpoint takes.
    #[error("{0}")]
    BadRequest(String),
    /// The request body is above the limit.
    #[error("the request body is too large")]
    TooLarge,
    /// No such room (or it expired).
    #[error("no such room")]
    RoomNotFound,
    /// No such game in the room.
    #[error("no such game in this room")]
    GameNotFound,
    /// A replay of a game that still runs would show hidden cards.
    #[error("the game is still running: replays are public once it is over (R18)")]
    GameRunning,
    /// The invited seat is taken.
    #[error("this seat has already been claimed")]
    SeatTaken,
    /// The invitation is not this room's.
    #[error("this invitation is not valid for this room")]
    BadInvite,
    /// A WebSocket upgrade from an origin not on the allowlist.
    #[error(
        "the origin {0} may not open a WebSocket on this server: its operator must add it to --allowed-origins (FUGITIVE_ALLOWED_ORIGINS)"
    )]
    OriginNotAllowed(String),
    /// Too many rooms created or seats claimed from this address; try again after this long.
    #[error("too many rooms from this address; try again in {} s", retry_after_secs(*.0))]
    RateLimited(Duration),
    /// The request took longer than `--request-timeout`.
    #[error("the request took too long")]
    RequestTimeout,
    /// The server has as many WebSockets as it may.
    #[error("too many connections; try again later")]
    TooManySockets,
    /// The database failed.
    #[error("the server could not do this now; try again")]
    Unavailable,
}

impl AppError {
    /// The HTTP status and the stable code of this error.
    pub fn status_and_code(&self) -> (StatusCode, &'static str) {
        match self {
            AppError::BadRequest(_) => (StatusCode::BAD_REQUEST, "bad_request"),
            AppError::TooLarge => (StatusCode::PAYLOAD_TOO_LARGE, "too_large"),
            AppError::RoomNotFound => (StatusCode::NOT_FOUND, "room_not_found"),
            AppError::GameNotFound => (StatusCode::NOT_FOUND, "game_not_found"),
            AppError::GameRunning => (StatusCode::FORBIDDEN, "game_running"),
            AppError::SeatTaken => (StatusCode::CONFLICT, "seat_taken"),
            AppError::BadInvite => (StatusCode::FORBIDDEN, "bad_invite"),
            AppError::OriginNotAllowed(_) => (StatusCode::FORBIDDEN, "origin_not_allowed"),
            AppError::RateLimited(_) => (StatusCode::TOO_MANY_REQUESTS, "rate_limited"),
            AppError::RequestTimeout => (StatusCode::REQUEST_TIMEOUT, "request_timeout"),
            AppError::TooManySockets => (StatusCode::SERVICE_UNAVAILABLE, "too_many_connections"),
            AppError::Unavailable => (StatusCode::SERVICE_UNAVAILABLE, "unavailable"),
        }
    }
}

impl IntoResponse for AppError {
    fn into_response(self) -> Response {
        let (status, code) = self.status_and_code();
        metrics::error(code);
        let body = Json(json!({ "error": code, "message": self.to_string() }));
        match self {
            AppError::RateLimited(wait) => {
                (status, [(RETRY_AFTER, retry_after_secs(wait).to_string())], body).into_response()
            }
            // Not kept alive for another request: a refused client that holds its connection
            // open would hold one of the server's file descriptors with it.
            AppError::TooManySockets => (status, [(CONNECTION, "close")], body).into_response(),
            _ => (status, body).into_response(),
        }
    }
}

/// Whole seconds to wait, at least 1.
fn retry_after_secs(wait: Duration) -> u64 {
    u64::try_from(wait.as_millis().div_ceil(1000)).unwrap_or(u64::MAX).max(1)
}

impl From<RoomsError> for AppError {
    fn from(error: RoomsError) -> AppError {
        match error {
            RoomsError::NotFound => AppError::RoomNotFound,
            error => {
                tracing::error!(%error, "room unavailable");
                AppError::Unavailable
            }
        }
    }
}

/// A request body, or the error its rejection stands for.
pub(crate) fn body_bytes(body: Result<Bytes, BytesRejection>) -> Result<Bytes, AppError> {
    body.map_err(|rejection| match rejection.status() {
        StatusCode::PAYLOAD_TOO_LARGE => AppError::TooLarge,
        _ => AppError::BadRequest(rejection.body_text()),
    })
}

/// Reads a JSON object: serde would also take an array for a struct, field by field.
pub(crate) fn json_object<T: serde::de::DeserializeOwned>(body: &[u8]) -> Result<T, AppError> {
    let bad = |e: serde_json::Error| AppError::BadRequest(format!("bad request body: {e}"));
    match serde_json::from_slice(body).map_err(bad)? {
        object @ serde_json::Value::Object(_) => serde_json::from_value(object).map_err(bad),
        _ => Err(AppError::BadRequest("the request body must be a JSON object".into())),
    }
}

/// The id and secret of the request's cookie, if it bears one of ours.
fn cookie(headers: &HeaderMap) -> Option<(String, String)> {
    headers
        .get_all(COOKIE)
        .iter()
        .filter_map(|value| value.to_str().ok())
        .find_map(parse_cookie)
        .map(|(id, secret)| (id.to_string(), secret.to_string()))
}

/// The live profile whose cookie (issue 25, `http_profile.rs`) the request bears, with its secret.
pub(crate) async fn bearer(
    app: &AppState,
    headers: &HeaderMap,
) -> Result<Option<(OwnProfile, String)>, DbError> {
    let Some((id, secret)) = cookie(headers) else {
        return Ok(None);
    };
    let profile = profiles::own(app.rooms.db(), &id, &hash_secret(&secret)).await?;
    Ok(profile.map(|profile| (profile, secret)))
}
