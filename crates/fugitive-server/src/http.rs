//! The HTTP side: the router, the REST endpoints of `docs/protocol.md`, and [`AppError`], the
//! only way an HTTP error leaves the server (`{"error": code, "message": text}`).

use std::path::Path as FsPath;

use axum::Json;
use axum::Router;
use axum::body::Bytes;
use axum::extract::rejection::BytesRejection;
use axum::extract::{ConnectInfo, DefaultBodyLimit, Path, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use fugitive_ai::Level;
use fugitive_core::{Role, RuleOptions, Viewer};
use serde::{Deserialize, Serialize};
use serde_json::json;
use tower_http::timeout::TimeoutLayer;
use tower_http::trace::TraceLayer;
use uuid::Uuid;

use crate::app::{AppError, AppState, Peer, body_bytes, json_object};
use crate::metrics;
use crate::model::options::Computer;
use crate::model::table::{BEST_OF, MAX_TURN_CLOCK_SECS};
use crate::room::{ClaimError, RoomHandle};
use crate::{socket, web};

/// The whole response, as bytes, to a connection refused before it is served (over the cap
/// on connections, or taken with the spare descriptor: `open_files.rs`): the socket cap's
/// `503 too_many_connections`, the security headers, `Connection: close`.
pub fn refusal() -> Vec<u8> {
    let error = AppError::TooManySockets;
    let (status, code) = error.status_and_code();
    let body = json!({ "error": code, "message": error.to_string() }).to_string();
    let mut response = format!(
        "HTTP/1.1 {} {}\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n",
        status.as_u16(),
        status.canonical_reason().unwrap_or_default(),
        body.len()
    );
    for (name, value) in web::SECURITY_HEADERS {
        response.push_str(&format!("{name}: {value}\r\n"));
    }
    response.push_str("\r\n");
    response.push_str(&body);
    response.into_bytes()
}

/// The whole router: API, WebSocket, health, metrics, and the web client from `web_dir`.
pub fn router(state: AppState, web_dir: &FsPath) -> Router {
    let request_timeout = state.config.request_timeout;
    let router = Router::new()
        .route("/api/levels", get(levels))
        .route("/api/rooms", post(create_room))
        .route("/api/rooms/{room}", get(room_summary))
        .route("/api/rooms/{room}/claim", post(claim_seat))
        .route("/api/rooms/{room}/games/{game}", get(replay))
        .route("/ws/v1/rooms/{room}", get(socket::upgrade))
        .route("/ws/v2/rooms/{room}", get(socket::upgrade_v2))
        .route("/api/origin", get(socket::check_origin))
        .route("/ws/lobby", get(crate::socket_lobby::upgrade))
        .route("/healthz", get(|| async { "ok" }))
        .route("/readyz", get(readyz))
        .route("/metrics", get(|State(app): State<AppState>| async move { metrics::render(&app.metrics) }))
        .merge(crate::http_profile::routes())
        .merge(crate::http_push::routes())
        .merge(crate::http_puzzles::routes())
        .merge(crate::http_analysis::routes())
        .merge(web::routes(web_dir))
        .layer(DefaultBodyLimit::max(4096))
        .layer(TimeoutLayer::with_status_code(StatusCode::REQUEST_TIMEOUT, request_timeout))
        .layer(axum::middleware::map_response(json_timeout))
        .layer(TraceLayer::new_for_http())
        .with_state(state);
    web::security_headers(router)
}

/// The request timeout's bare 408, as the documented JSON error.
async fn json_timeout(response: Response) -> Response {
    if response.status() == StatusCode::REQUEST_TIMEOUT {
        return AppError::RequestTimeout.into_response();
    }
    response
}

/// How long `/readyz` waits for the database.
const READY_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(2);

/// Readiness, for load balancers and the compose health check: the database answers a query.
/// (`/healthz` is liveness: the process serves HTTP, whatever the database does.)
async fn readyz(State(app): State<AppState>) -> Result<&'static str, AppError> {
    match tokio::time::timeout(READY_TIMEOUT, app.rooms.db().ping()).await {
        Ok(Ok(())) => Ok("ready"),
        Ok(Err(error)) => {
            tracing::warn!(%error, "not ready: the database refuses");
            Err(AppError::Unavailable)
        }
        Err(_) => {
            tracing::warn!("not ready: the database does not answer");
            Err(AppError::Unavailable)
        }
    }
}

/// The creator's choice of seat.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
enum RoleChoice {
    Fugitive,
    Marshal,
    #[default]
    Random,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default, deny_unknown_fields)]
struct CreateRoom {
    role: RoleChoice,
    rules: RuleOptions,
    turn_clock_secs: Option<u64>,
    opponent: Opponent,
    notepad_assist: bool,
    /// A series of 3 or 5 games (issue 13); `null` for an open series.
    best_of: Option<u64>,
}

/// The computer's levels, weakest first, each with its measured rating per role
/// (`fugitive_ai::Level::ratings`): the landing page shows them where the player picks one.
async fn levels() -> Json<serde_json::Value> {
    let levels: Vec<_> =
        Level::ALL.iter().map(|level| json!({ "level": level, "ratings": level.ratings() })).collect();
    Json(json!({ "levels": levels }))
}

/// Who sits in the other seat: `"human"` (invited), `{"bot": LEVEL}`, a level of
/// `fugitive_ai::Level` (`random`, `easy`, `medium`, `hard`), or `"tutorial"`: the guided first
/// game's computer Marshal on its fixed deal (`model::options::TUTORIAL_DEAL`).
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
enum Opponent {
    #[default]
    Human,
    Bot(Level),
    Tutorial,
}

#[derive(Debug, Serialize)]
struct Links {
    seat: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    invite: Option<String>,
    spectate: String,
}

/// A seat given out: by creating a room or by claiming with an invitation.
#[derive(Debug, Serialize)]
struct SeatGranted {
    room: Uuid,
    role: Role,
    token: String,
    links: Links,
}

fn links(room: Uuid, token: &str, invite: Option<&str>) -> Links {
    Links {
        seat: format!("/room/{room}#seat={token}"),
        invite: invite.map(|invite| format!("/room/{room}#invite={invite}")),
        spectate: format!("/room/{room}"),
    }
}

/// Reads an optional JSON object: an empty body means all defaults.
fn json_body<T: serde::de::DeserializeOwned + Default>(
    body: Result<Bytes, BytesRejection>,
) -> Result<T, AppError> {
    let body = body_bytes(body)?;
    if body.iter().all(u8::is_ascii_whitespace) {
        return Ok(T::default());
    }
    json_object(&body)
}

fn room_id(text: &str) -> Result<Uuid, AppError> {
    Uuid::parse_str(text).map_err(|_| AppError::RoomNotFound)
}

async fn create_room(
    State(app): State<AppState>,
    ConnectInfo(peer): Peer,
    headers: HeaderMap,
    body: Result<Bytes, BytesRejection>,
) -> Result<impl IntoResponse, AppError> {
    app.limiter.check(&headers, peer).map_err(AppError::RateLimited)?;
    let request: CreateRoom = json_body(body)?;
    if let Some(secs) = request.turn_clock_secs {
        if !(1..=MAX_TURN_CLOCK_SECS).contains(&secs) {
            return Err(AppError::BadRequest("turn_clock_secs is 1 to 604800 (7 days), or null".into()));
        }
    }
    if let Some(n) = request.best_of {
        if !BEST_OF.contains(&n) {
            return Err(AppError::BadRequest("best_of is 3 or 5, or null".into()));
        }
    }
    let tutorial = matches!(request.opponent, Opponent::Tutorial);
    let bot = match request.opponent {
        Opponent::Human => None,
        Opponent::Bot(level) => Some(level),
        Opponent::Tutorial => Some(Level::Random),
    };
    if tutorial
        && (request.role == RoleChoice::Marshal
            || request.turn_clock_secs.is_some()
            || request.best_of.is_some()
            || request.rules != RuleOptions::default()
            || request.notepad_assist)
    {
        return Err(AppError::BadRequest(
            "the guided first game is played as the Fugitive with the default rules, no clock, no series and no notepad assist".into(),
        ));
    }
    let role = match request.role {
        _ if tutorial => Role::Fugitive,
        RoleChoice::Fugitive => Role::Fugitive,
        RoleChoice::Marshal => Role::Marshal,
        RoleChoice::Random => {
            if rand::random() {
                Role::Fugitive
            } else {
                Role::Marshal
            }
        }
    };
    let computer = Computer { bot, notepad_assist: request.notepad_assist, tutorial };
    let created =
        app.rooms.create(role, request.rules, request.turn_clock_secs, computer).await.map_err(|error| {
            tracing::error!(%error, "could not create a room");
            AppError::Unavailable
        })?;
    if let Some(n) = request.best_of {
        // Before anyone has the room's links: a failure here leaves a room nobody knows.
        crate::db::table::store_best_of(app.rooms.db(), created.room, n).await.map_err(|error| {
            tracing::error!(%error, "could not store a room's series");
            AppError::Unavailable
        })?;
    }
    tracing::info!(room = %created.room, %role, "room created");
    crate::http_profile::attach_seat(
        &app,
        &headers,
        created.room,
        crate::model::seat::Seat::Host,
        &created.token,
    )
    .await;
    let granted = SeatGranted {
        room: created.room,
        role,
        links: links(created.room, &created.token, bot.is_none().then_some(created.invite.as_str())),
        token: created.token,
    };
    Ok((StatusCode::CREATED, Json(granted)))
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Claim {
    invite: String,
}

/// Calls a room; an actor that unloaded itself meanwhile is reloaded once.
async fn with_room<T, F, Fut>(app: &AppState, room: Uuid, call: F) -> Result<T, AppError>
where
    F: Fn(RoomHandle) -> Fut,
    Fut: Future<Output = Result<T, crate::room::Gone>>,
{
    for _ in 0..2 {
        if let Ok(answer) = call(app.rooms.get(room).await?).await {
            return Ok(answer);
        }
    }
    Err(AppError::Unavailable)
}

async fn claim_seat(
    State(app): State<AppState>,
    ConnectInfo(peer): Peer,
    headers: HeaderMap,
    Path(room): Path<String>,
    body: Result<Bytes, BytesRejection>,
) -> Result<Json<SeatGranted>, AppError> {
    app.limiter.check(&headers, peer).map_err(AppError::RateLimited)?;
    let room = room_id(&room)?;
    // Unlike room creation, a claim has no defaults: no body is no invitation.
    let claim: Claim = json_object(&body_bytes(body)?)?;
    let claimed = with_room(&app, room, |handle| {
        let invite = claim.invite.clone();
        async move { handle.claim(invite).await }
    })
    .await?;
    match claimed {
        Ok(claimed) => {
            tracing::info!(%room, role = %claimed.role, "seat claimed");
            crate::http_profile::attach_seat(
                &app,
                &headers,
                room,
                crate::model::seat::Seat::Guest,
                &claimed.token,
            )
            .await;
            let links = links(room, &claimed.token, None);
            Ok(Json(SeatGranted { room, role: claimed.role, token: claimed.token, links }))
        }
        Err(ClaimError::Taken) => Err(AppError::SeatTaken),
        Err(ClaimError::Gone) => Err(AppError::RoomNotFound),
        Err(ClaimError::BadInvite) => Err(AppError::BadInvite),
        Err(ClaimError::Unavailable) => Err(AppError::Unavailable),
    }
}

async fn room_summary(
    State(app): State<AppState>,
    Path(room): Path<String>,
) -> Result<impl IntoResponse, AppError> {
    let room = room_id(&room)?;
    let summary = with_room(&app, room, |handle| async move { handle.summary().await }).await?;
    Ok(Json(json!({
        "room": room,
        "seats": summary.seats,
        "game": summary.game,
        "over": summary.over,
        "rules": summary.rules,
        "turn_clock_secs": summary.turn_clock_secs,
        "to_move": summary.to_move,
        "outcome": summary.outcome,
        "aborted": summary.aborted,
        "names": summary.names,
    })))
}

async fn replay(
    State(app): State<AppState>,
    Path((room, game)): Path<(String, String)>,
) -> Result<impl IntoResponse, AppError> {
    let room = room_id(&room)?;
    let number: u64 = game.parse().map_err(|_| AppError::GameNotFound)?;
    let db = app.rooms.db();
    let unavailable = |error: crate::db::DbError| {
        tracing::error!(%error, "could not load a game");
        AppError::Unavailable
    };
    let Some(stored) = db.load_game(room, number).await.map_err(unavailable)? else {
        let exists = db.room_exists(room).await.map_err(unavailable)?;
        return Err(if exists { AppError::GameNotFound } else { AppError::RoomNotFound });
    };
    if stored.finished_at.is_none() {
        return Err(AppError::GameRunning);
    }
    let log = stored.actions.iter().map(|a| (a.role, a.action));
    let game = crate::model::replay::replay(stored.setup, log).map_err(|error| {
        tracing::error!(%room, %error, "a stored game does not replay");
        AppError::Unavailable
    })?;
    // The game's own actions: a log from before R11a's bonus choice comes back with the draw.
    let actions = game.actions();
    let steps = crate::model::replay::steps(stored.setup, actions).map_err(|error| {
        tracing::error!(%room, %error, "a stored game does not replay");
        AppError::Unavailable
    })?;
    Ok(Json(json!({
        "room": room,
        "game": number,
        "setup": stored.setup,
        "actions": actions,
        "view": game.view(Viewer::Spectator),
        "aborted": crate::model::rating::aborted(&game),
        "steps": steps,
    })))
}
