//! `GET /api/rooms/{room}/games/{game}/analysis` (issue 26, `docs/protocol.md`): a finished
//! game's analysis, `200` once done, `202` with its place in the queue or its progress while it
//! waits or runs (the first request starts it, `analysis.rs`). Anyone may read it: the game is over, so everything in it is
//! public (R18).

use axum::Router;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use serde_json::{Value, json};

use crate::analysis::{AnalysisError, Answer};
use crate::app::{AppError, AppState};

/// The analysis route.
pub fn routes() -> Router<AppState> {
    Router::new().route("/api/rooms/{room}/games/{game}/analysis", get(analysis))
}

async fn analysis(
    State(app): State<AppState>,
    Path((room, game)): Path<(String, String)>,
) -> Result<Response, AppError> {
    let room = uuid::Uuid::parse_str(&room).map_err(|_| AppError::RoomNotFound)?;
    let number: u64 = game.parse().map_err(|_| AppError::GameNotFound)?;
    let answer = app.analyses.open(room, number).await.map_err(|error| match error {
        AnalysisError::RoomNotFound => AppError::RoomNotFound,
        AnalysisError::GameNotFound => AppError::GameNotFound,
        AnalysisError::Db(error) => {
            tracing::error!(%room, number, %error, "could not open an analysis");
            AppError::Unavailable
        }
    })?;
    Ok(match answer {
        Answer::Done(json) => {
            let analysis: Value = serde_json::from_str(&json).map_err(|error| {
                tracing::error!(%room, number, %error, "a stored analysis does not parse");
                AppError::Unavailable
            })?;
            let body = json!({ "room": room, "game": number, "state": "done", "analysis": analysis });
            (StatusCode::OK, axum::Json(body)).into_response()
        }
        Answer::Running { done, total, ahead: None } => {
            let body =
                json!({ "room": room, "game": number, "state": "running", "done": done, "total": total });
            (StatusCode::ACCEPTED, axum::Json(body)).into_response()
        }
        Answer::Running { done, total, ahead: Some(ahead) } => {
            let body = json!({
                "room": room, "game": number, "state": "queued", "ahead": ahead, "done": done, "total": total,
            });
            (StatusCode::ACCEPTED, axum::Json(body)).into_response()
        }
    })
}
