//! The HTTP edge of Web Push (issue 25): the key a browser subscribes with, and a profile's
//! "notify me" (storing and deleting its browsers' push subscriptions). `push.rs` sends.

use axum::Json;
use axum::Router;
use axum::body::Bytes;
use axum::extract::State;
use axum::extract::rejection::BytesRejection;
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use serde::Deserialize;
use serde_json::json;

use crate::app::{AppError, AppState, bearer, body_bytes, json_object};
use crate::db::push as db_push;
use crate::db::{DbError, now_ms};

use crate::metrics;
use crate::push::{self, BadSubscription};

/// A refusal of a push request: a status, a stable code, a message safe to show.
#[derive(Debug, thiserror::Error)]
pub enum PushRequestError {
    /// "Notify me" is a profile's: the request bears no cookie of a live profile.
    #[error("notifications need a profile: open the landing page once")]
    NoProfile,
    /// The subscription is not a browser's.
    #[error("{0}")]
    BadSubscription(#[from] BadSubscription),
    /// The server sends no notifications.
    #[error("this server sends no notifications")]
    Off,
    /// Any error of the other endpoints.
    #[error(transparent)]
    App(#[from] AppError),
}

impl IntoResponse for PushRequestError {
    fn into_response(self) -> Response {
        let (status, code) = match &self {
            PushRequestError::NoProfile => (StatusCode::UNAUTHORIZED, "no_profile"),
            PushRequestError::BadSubscription(_) => (StatusCode::BAD_REQUEST, "bad_subscription"),
            PushRequestError::Off => (StatusCode::NOT_FOUND, "push_off"),
            PushRequestError::App(_) => {
                let PushRequestError::App(error) = self else { unreachable!() };
                return error.into_response();
            }
        };
        metrics::error(code);
        (status, Json(json!({ "error": code, "message": self.to_string() }))).into_response()
    }
}

impl From<DbError> for PushRequestError {
    fn from(error: DbError) -> PushRequestError {
        tracing::error!(%error, "push storage failed");
        PushRequestError::App(AppError::Unavailable)
    }
}

/// The push routes.
pub fn routes() -> Router<AppState> {
    Router::new()
        .route("/api/push/key", get(key))
        .route("/api/push/subscription", axum::routing::post(subscribe).delete(unsubscribe))
}

/// `GET /api/push/key`: `{"key": …}`, the server's VAPID public key (base64url), the
/// `applicationServerKey` of `pushManager.subscribe`.
async fn key(State(app): State<AppState>) -> Result<Json<serde_json::Value>, PushRequestError> {
    let key = app.rooms.push().public_key().ok_or(PushRequestError::Off)?;
    Ok(Json(json!({ "key": key })))
}

/// A browser's `PushSubscription.toJSON()`; other fields (`expirationTime`) are ignored.
#[derive(Deserialize)]
struct Subscribe {
    endpoint: String,
    keys: Keys,
}

#[derive(Deserialize)]
struct Keys {
    p256dh: String,
    auth: String,
}

/// `POST /api/push/subscription`: this browser is told of the profile's turns, finished games
/// and taken seeks. 204.
async fn subscribe(
    State(app): State<AppState>,
    headers: HeaderMap,
    body: Result<Bytes, BytesRejection>,
) -> Result<StatusCode, PushRequestError> {
    let (profile, _) = bearer(&app, &headers).await?.ok_or(PushRequestError::NoProfile)?;
    let request: Subscribe = json_object(&body_bytes(body)?)?;
    if app.rooms.push().public_key().is_none() {
        return Err(PushRequestError::Off);
    }
    let subscription =
        push::check(&request.endpoint, &request.keys.p256dh, &request.keys.auth, app.config.push_allow_http)?;
    db_push::subscribe(app.rooms.db(), &profile.id, &subscription, now_ms()).await?;
    tracing::info!(profile = %profile.id, "push subscription stored");
    Ok(StatusCode::NO_CONTENT)
}

#[derive(Deserialize)]
struct Unsubscribe {
    endpoint: String,
}

/// `DELETE /api/push/subscription` `{"endpoint": …}`: this browser is told nothing more. 204,
/// also when the profile had no such subscription.
async fn unsubscribe(
    State(app): State<AppState>,
    headers: HeaderMap,
    body: Result<Bytes, BytesRejection>,
) -> Result<StatusCode, PushRequestError> {
    let (profile, _) = bearer(&app, &headers).await?.ok_or(PushRequestError::NoProfile)?;
    let request: Unsubscribe = json_object(&body_bytes(body)?)?;
    db_push::unsubscribe(app.rooms.db(), &profile.id, &request.endpoint).await?;
    Ok(StatusCode::NO_CONTENT)
}
