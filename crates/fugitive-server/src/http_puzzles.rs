//! The HTTP edge of puzzles (issue 26, `docs/protocol.md`): the next puzzle near the solver's
//! rating, shown as the solver's view only, and its answer, checked here against the stored
//! answer (the answer never leaves the server before). Each puzzle handed out carries an
//! attempt token; an attempt is answered once. With a profile cookie the solver has a puzzle
//! rating; without one puzzles work the same and only the puzzle is rated.

use axum::Json;
use axum::Router;
use axum::body::Bytes;
use axum::extract::rejection::BytesRejection;
use axum::extract::{Path, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use fugitive_core::View;
use serde::Deserialize;
use serde_json::{Value, json};

use crate::app::{AppError, AppState, bearer, body_bytes, json_object};
use crate::db::puzzles::{self, Answered};
use crate::db::{DbError, now_ms};
use crate::metrics;
use crate::model::puzzle::{self as model, AnswerError};
use crate::model::rating::Rating;
use crate::model::seat::{hash_secret, new_secret};

/// A refusal of a puzzle request: a status, a stable code, a message safe to show.
#[derive(Debug, thiserror::Error)]
pub enum PuzzleError {
    /// The id is not a puzzle id's shape (32 hex digits).
    #[error("a puzzle id is 32 hex digits")]
    BadId,
    /// No puzzle has this id.
    #[error("no such puzzle")]
    NotFound,
    /// No puzzle is stored at all.
    #[error("there are no puzzles yet")]
    NoPuzzles,
    /// The answer is not one the puzzle's theme takes.
    #[error("{0}")]
    BadAnswer(#[from] AnswerError),
    /// The attempt token was not handed out for this puzzle.
    #[error("this attempt was not handed out for this puzzle; GET /api/puzzles/next hands one out")]
    UnknownAttempt,
    /// The attempt was answered before.
    #[error("this attempt has been answered already")]
    AlreadyAnswered,
    /// Any error of the other endpoints.
    #[error(transparent)]
    App(#[from] AppError),
}

impl IntoResponse for PuzzleError {
    fn into_response(self) -> Response {
        let (status, code) = match &self {
            PuzzleError::BadId => (StatusCode::BAD_REQUEST, "bad_puzzle_id"),
            PuzzleError::NotFound => (StatusCode::NOT_FOUND, "puzzle_not_found"),
            PuzzleError::NoPuzzles => (StatusCode::NOT_FOUND, "no_puzzles"),
            PuzzleError::BadAnswer(_) => (StatusCode::BAD_REQUEST, "bad_answer"),
            PuzzleError::UnknownAttempt => (StatusCode::NOT_FOUND, "attempt_unknown"),
            PuzzleError::AlreadyAnswered => (StatusCode::CONFLICT, "already_answered"),
            PuzzleError::App(_) => {
                let PuzzleError::App(error) = self else { unreachable!() };
                return error.into_response();
            }
        };
        metrics::error(code);
        (status, Json(json!({ "error": code, "message": self.to_string() }))).into_response()
    }
}

impl From<DbError> for PuzzleError {
    fn from(error: DbError) -> PuzzleError {
        tracing::error!(%error, "puzzle storage failed");
        PuzzleError::App(AppError::Unavailable)
    }
}

/// The puzzle routes.
pub fn routes() -> Router<AppState> {
    Router::new().route("/api/puzzles/next", get(next)).route("/api/puzzles/{id}/attempt", post(attempt))
}

fn rating_json(rating: Rating) -> Value {
    json!({ "rating": rating.rating.round(), "provisional": rating.provisional() })
}

/// `GET /api/puzzles/next`: a puzzle near the solver's puzzle rating (1500 without a profile),
/// picked at random among the nearest, with a new attempt token: the solver's view, what the
/// rules let him do in it and the public candidates (as a table's state frame has them).
async fn next(State(app): State<AppState>, headers: HeaderMap) -> Result<Json<Value>, PuzzleError> {
    let db = app.rooms.db();
    let profile = bearer(&app, &headers).await?.map(|(profile, _)| profile.id);
    let solver = match &profile {
        Some(id) => Some(puzzles::rating_of(db, id).await?),
        None => None,
    };
    let around = solver.unwrap_or_default().rating;
    let ids = puzzles::nearest(db, around, profile.as_deref()).await?;
    if ids.is_empty() {
        return Err(PuzzleError::NoPuzzles);
    }
    let id = &ids[rand::random_range(0..ids.len())];
    let puzzle = puzzles::get(db, id).await?.ok_or(PuzzleError::NotFound)?;
    let token = new_secret();
    puzzles::hand_out(db, &hash_secret(&token), &puzzle.id, profile.as_deref(), now_ms()).await?;
    let view: View = serde_json::from_str(&puzzle.view).map_err(|e| DbError::Corrupt(e.to_string()))?;
    Ok(Json(json!({
        "id": puzzle.id,
        "attempt": token,
        "theme": puzzle.theme.name(),
        "role": puzzle.theme.role(),
        "view": view,
        "legal": view.legal_actions(),
        "candidates": view.candidates(),
        "rating": rating_json(puzzle.rating),
        "solver": solver.map(rating_json),
    })))
}

/// The body of an attempt.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Attempt {
    attempt: String,
    numbers: Value,
}

/// `POST /api/puzzles/{id}/attempt`: checks the answer, rates the puzzle (and the solver's
/// profile), and tells the answer with the figures that explain it.
async fn attempt(
    State(app): State<AppState>,
    Path(id): Path<String>,
    body: Result<Bytes, BytesRejection>,
) -> Result<Json<Value>, PuzzleError> {
    if !model::is_id(&id) {
        return Err(PuzzleError::BadId);
    }
    let request: Attempt = json_object(&body_bytes(body)?)?;
    let db = app.rooms.db();
    let puzzle = puzzles::get(db, &id).await?.ok_or(PuzzleError::NotFound)?;
    let numbers = model::answer(puzzle.theme, &request.numbers)?;
    let solved = numbers == puzzle.answer;
    let (rating, solver) =
        match puzzles::answer(db, &hash_secret(&request.attempt), &puzzle, solved, now_ms()).await? {
            Answered::Rated { puzzle, solver } => (puzzle, solver),
            Answered::Unknown => return Err(PuzzleError::UnknownAttempt),
            Answered::Twice => return Err(PuzzleError::AlreadyAnswered),
        };
    Ok(Json(json!({
        "solved": solved,
        "theme": puzzle.theme.name(),
        "answer": puzzle.answer,
        "best": puzzle.best,
        "next": puzzle.next,
        "rating": rating_json(rating),
        "solver": solver.map(rating_json),
    })))
}
