//! The HTTP edge of profiles without an account (issue 25): made on the first visit, named,
//! moved to another device with a transfer link or code, deleted; and the hook that notes a
//! seat taken while a profile exists (`attach_seat`), so "my games" follows the profile.
//!
//! The browser holds `{id}.{secret}` in an `HttpOnly`, `SameSite=Lax` cookie (`Secure` when the
//! site's public address is HTTPS); the database holds the secret's SHA-256. Rooms by link work
//! exactly as before for anyone, with or without a profile.

use std::net::SocketAddr;

use axum::Json;
use axum::Router;
use axum::body::Bytes;
use axum::extract::rejection::BytesRejection;
use axum::extract::{ConnectInfo, Path, State};
use axum::http::header::SET_COOKIE;
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use serde::Deserialize;
use serde_json::{Value, json};
use uuid::Uuid;

use crate::app::{AppError, AppState, bearer, body_bytes, json_object};
use crate::db::profiles::{self, OwnProfile, TransferCode};
use crate::db::ratings;
use crate::db::{DbError, now_ms};
use crate::metrics;
use crate::model::profile::{self as model, TRANSFER_MS};
use crate::model::rating;
use crate::model::seat::{Seat, hash_secret, new_secret};
use crate::model::table::{NameError, check_name};

/// A refusal of a profile request: a status, a stable code, a message safe to show.
#[derive(Debug, thiserror::Error)]
pub enum ProfileError {
    /// The request bears no cookie of a live profile.
    #[error("this browser has no profile; POST /api/profile makes one")]
    NoProfile,
    /// No profile has this id.
    #[error("no such profile")]
    NotFound,
    /// The name breaks the rules of a name.
    #[error("{0}")]
    BadName(#[from] NameError),
    /// The transfer code is unknown, used or expired.
    #[error("this transfer code is unknown, already used or expired (a code works once, for 10 minutes)")]
    TransferInvalid,
    /// Any error of the other endpoints.
    #[error(transparent)]
    App(#[from] AppError),
}

impl IntoResponse for ProfileError {
    fn into_response(self) -> Response {
        let (status, code) = match self {
            ProfileError::NoProfile => (StatusCode::UNAUTHORIZED, "no_profile"),
            ProfileError::NotFound => (StatusCode::NOT_FOUND, "profile_not_found"),
            ProfileError::BadName(_) => (StatusCode::BAD_REQUEST, "bad_name"),
            ProfileError::TransferInvalid => (StatusCode::NOT_FOUND, "transfer_invalid"),
            ProfileError::App(error) => return error.into_response(),
        };
        metrics::error(code);
        (status, Json(json!({ "error": code, "message": self.to_string() }))).into_response()
    }
}

impl From<DbError> for ProfileError {
    fn from(error: DbError) -> ProfileError {
        tracing::error!(%error, "profile storage failed");
        ProfileError::App(AppError::Unavailable)
    }
}

/// The profile routes.
pub fn routes() -> Router<AppState> {
    Router::new()
        .route("/api/profile", post(ensure).get(me).patch(rename).delete(delete))
        .route("/api/profile/seats", get(seats))
        .route("/api/profile/transfer", post(start_transfer))
        .route("/api/profile/transfer/redeem", post(redeem))
        .route("/api/profiles/{id}", get(public))
        .route("/api/rooms/{room}/games/{game}/rating", get(game_rating))
        .route("/api/leaderboard/{role}", get(leaderboard))
}

/// Whether cookies are `Secure`: the site's public address (the first allowed origin) is HTTPS.
fn secure(app: &AppState) -> bool {
    app.config.allowed_origins.iter().any(|origin| origin.trim().starts_with("https://"))
}

async fn owner(app: &AppState, headers: &HeaderMap) -> Result<(OwnProfile, String), ProfileError> {
    bearer(app, headers).await?.ok_or(ProfileError::NoProfile)
}

fn own_json(profile: &OwnProfile) -> Value {
    json!({ "id": profile.id, "name": profile.name, "page": format!("/@/{}", profile.id) })
}

fn with_cookie(status: StatusCode, set_cookie: String, body: Value) -> Response {
    (status, [(SET_COOKIE, set_cookie)], Json(body)).into_response()
}

/// `POST /api/profile`: the bearer's profile, or a new one with its cookie (rate-limited per
/// client address, like room creation).
async fn ensure(
    State(app): State<AppState>,
    ConnectInfo(peer): ConnectInfo<SocketAddr>,
    headers: HeaderMap,
) -> Result<Response, ProfileError> {
    if let Some((profile, _)) = bearer(&app, &headers).await? {
        return Ok((StatusCode::OK, Json(own_json(&profile))).into_response());
    }
    app.profile_limiter.check(&headers, peer).map_err(AppError::RateLimited)?;
    let id = model::id_from(rand::random());
    let secret = new_secret();
    profiles::create(app.rooms.db(), &id, &hash_secret(&secret), now_ms()).await?;
    tracing::info!(profile = %id, "profile created");
    let profile = OwnProfile { id, name: None };
    Ok(with_cookie(
        StatusCode::CREATED,
        model::set_cookie(&profile.id, &secret, secure(&app)),
        own_json(&profile),
    ))
}

/// `GET /api/profile`: the bearer's own profile.
async fn me(State(app): State<AppState>, headers: HeaderMap) -> Result<Json<Value>, ProfileError> {
    let (profile, _) = owner(&app, &headers).await?;
    Ok(Json(own_json(&profile)))
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Rename {
    name: Option<String>,
}

/// `PATCH /api/profile` `{"name": …}`: a new display name, under the rules of a seat's name.
async fn rename(
    State(app): State<AppState>,
    headers: HeaderMap,
    body: Result<Bytes, BytesRejection>,
) -> Result<Json<Value>, ProfileError> {
    let (mut profile, _) = owner(&app, &headers).await?;
    let request: Rename = json_object(&body_bytes(body)?)?;
    let name = check_name(request.name.as_deref().unwrap_or(""))?;
    profiles::rename(app.rooms.db(), &profile.id, name.as_deref()).await?;
    profile.name = name;
    Ok(Json(own_json(&profile)))
}

/// `DELETE /api/profile`: the profile is gone, its games stay under "deleted player"; the
/// cookie is cleared.
async fn delete(State(app): State<AppState>, headers: HeaderMap) -> Result<Response, ProfileError> {
    let (profile, _) = owner(&app, &headers).await?;
    profiles::delete(app.rooms.db(), &profile.id, now_ms()).await?;
    tracing::info!(profile = %profile.id, "profile deleted");
    Ok((StatusCode::NO_CONTENT, [(SET_COOKIE, model::clear_cookie(secure(&app)))]).into_response())
}

/// `GET /api/profile/seats`: the seats taken under the bearer's profile in rooms that still
/// live, with their tokens, newest first: "my games" on any device of the profile.
async fn seats(State(app): State<AppState>, headers: HeaderMap) -> Result<Json<Value>, ProfileError> {
    let (profile, secret) = owner(&app, &headers).await?;
    let sealed = profiles::seats(app.rooms.db(), &profile.id).await?;
    let seats: Vec<Value> = sealed
        .into_iter()
        .filter_map(|seat| {
            let index = usize::try_from(seat.seat).ok()?;
            let token = model::open(&secret, &model::seat_purpose(&seat.room, index), &seat.sealed_token)?;
            let token = URL_SAFE_NO_PAD.encode(token);
            let link = format!("/room/{}#seat={token}", seat.room);
            Some(json!({ "room": seat.room, "seat": seat.seat, "token": token, "link": link }))
        })
        .collect();
    Ok(Json(json!({ "seats": seats })))
}

/// `POST /api/profile/transfer`: a link and a short code that each move the profile into
/// another browser once, within 10 minutes.
async fn start_transfer(
    State(app): State<AppState>,
    headers: HeaderMap,
) -> Result<Json<Value>, ProfileError> {
    let (profile, secret) = owner(&app, &headers).await?;
    let secret_bytes = URL_SAFE_NO_PAD.decode(&secret).map_err(|_| ProfileError::NoProfile)?;
    let long = new_secret();
    let short = model::code_from(rand::random());
    // Each code seals the secret: whoever holds the code opens it, and nobody else.
    let codes: Vec<TransferCode> = [long.clone(), model::normalize_code(&short)]
        .iter()
        .map(|code| TransferCode {
            code_hash: hash_secret(code),
            sealed_secret: model::seal(code, &model::transfer_purpose(code), &secret_bytes),
        })
        .collect();
    let now = now_ms();
    let expires_at = now + TRANSFER_MS;
    let transfer = Uuid::new_v4().to_string();
    profiles::create_transfer(app.rooms.db(), &transfer, &profile.id, &codes, now, expires_at).await?;
    Ok(Json(json!({ "link": format!("/#transfer={long}"), "code": short, "expires_at": expires_at })))
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Redeem {
    code: String,
}

/// `POST /api/profile/transfer/redeem` `{"code": …}`: this browser takes the profile (its
/// cookie is set); the code is spent. Rate-limited per client address.
async fn redeem(
    State(app): State<AppState>,
    ConnectInfo(peer): ConnectInfo<SocketAddr>,
    headers: HeaderMap,
    body: Result<Bytes, BytesRejection>,
) -> Result<Response, ProfileError> {
    app.profile_limiter.check(&headers, peer).map_err(AppError::RateLimited)?;
    let request: Redeem = json_object(&body_bytes(body)?)?;
    let code = model::normalize_code(&request.code);
    let db = app.rooms.db();
    let (id, sealed) = profiles::redeem_transfer(db, &hash_secret(&code), now_ms())
        .await?
        .ok_or(ProfileError::TransferInvalid)?;
    let secret =
        model::open(&code, &model::transfer_purpose(&code), &sealed).ok_or(ProfileError::TransferInvalid)?;
    let secret = URL_SAFE_NO_PAD.encode(secret);
    let profile =
        profiles::own(db, &id, &hash_secret(&secret)).await?.ok_or(ProfileError::TransferInvalid)?;
    tracing::info!(profile = %profile.id, "profile moved to another browser");
    Ok(with_cookie(StatusCode::OK, model::set_cookie(&profile.id, &secret, secure(&app)), own_json(&profile)))
}

/// `GET /api/profiles/{id}`: a profile as anyone sees it.
async fn public(State(app): State<AppState>, Path(id): Path<String>) -> Result<Json<Value>, ProfileError> {
    if !model::is_id(&id) {
        return Err(ProfileError::NotFound);
    }
    let db = app.rooms.db();
    let profile = profiles::public(db, &id).await?.ok_or(ProfileError::NotFound)?;
    let mut ratings = serde_json::Map::new();
    for (role, rating) in ratings::of_profile(db, &id).await? {
        ratings.insert(role_key(role).into(), rating_json(&rating));
    }
    let wins = ratings::wins(db, &id).await?;
    // Issue 26: the mean accuracy of the last analysed games, `null` before any.
    let accuracy = db.profile_accuracy(&id, ACCURACY_GAMES).await?;
    let accuracy =
        accuracy.map(|(mean, games)| json!({ "mean": (mean * 10.0).round() / 10.0, "games": games }));
    let games: Vec<Value> = ratings::games_of(db, &id, MAX_LISTED_GAMES)
        .await?
        .into_iter()
        .map(|game| {
            json!({
                "room": game.room,
                "game": game.game,
                "role": role_key(game.role),
                "opponent": game.opponent,
                "won": game.winner == game.role,
                "reason": game.reason,
                "before": game.before.round(),
                "after": game.after.round(),
                "change": rating::change(game.before, game.after),
                "at": game.at,
                "replay": format!("/room/{}/game/{}", game.room, game.game),
            })
        })
        .collect();
    Ok(Json(json!({
        "id": profile.id,
        "name": profile.name,
        "deleted": profile.deleted,
        "created_at": profile.created_at,
        "ratings": ratings,
        "wins": { "fugitive": wins[0], "marshal": wins[1] },
        "accuracy": accuracy,
        "games": games,
    })))
}

/// The most rated games a profile's page lists, newest first.
const MAX_LISTED_GAMES: i64 = 100;

/// The profile's accuracy is the mean over this many of its last analysed games (issue 26).
const ACCURACY_GAMES: u32 = 20;

fn role_key(role: fugitive_core::Role) -> &'static str {
    match role {
        fugitive_core::Role::Fugitive => "fugitive",
        fugitive_core::Role::Marshal => "marshal",
    }
}

fn rating_json(rating: &rating::Rating) -> Value {
    json!({
        "rating": rating.rating.round(),
        "deviation": rating.deviation.round(),
        "provisional": rating.provisional(),
        "games": rating.games,
    })
}

/// `GET /api/rooms/{room}/games/{n}/rating`: the game's rating change for both sides, for the
/// game-over screen ("+12 / −8"); `404 game_not_found` when it was not rated.
async fn game_rating(
    State(app): State<AppState>,
    Path((room, game)): Path<(String, String)>,
) -> Result<Json<Value>, ProfileError> {
    let game: i64 = game.parse().map_err(|_| AppError::GameNotFound)?;
    let sides = ratings::of_game(app.rooms.db(), &room, game).await?.ok_or(AppError::GameNotFound)?;
    let side = |(profile, before, after): &(String, f64, f64)| json!({ "profile": profile, "before": before.round(), "after": after.round(), "change": rating::change(*before, *after) });
    Ok(Json(json!({ "fugitive": side(&sides[0]), "marshal": side(&sides[1]) })))
}

/// Notes a seat just given out (a room created, an invitation claimed) as the profile's whose
/// cookie the request bears, if any. Never fails the request: a room by link works without.
pub async fn attach_seat(app: &AppState, headers: &HeaderMap, room: Uuid, seat: Seat, token: &str) {
    let attach = async {
        let Some((profile, secret)) = bearer(app, headers).await? else {
            return Ok(());
        };
        let Ok(token) = URL_SAFE_NO_PAD.decode(token) else {
            return Ok(());
        };
        let room = room.to_string();
        let sealed = model::seal(&secret, &model::seat_purpose(&room, seat.index()), &token);
        profiles::attach_seat(app.rooms.db(), &room, seat.index() as i64, &profile.id, &sealed, now_ms())
            .await
    };
    if let Err(error) = attach.await {
        tracing::warn!(%error, %room, "could not note a seat under its profile");
    }
}

/// The window of a leaderboard: rated games in the last 30 days count.
const LEADER_WINDOW_MS: i64 = 30 * 24 * 3600 * 1000;

/// `GET /api/leaderboard/{role}`: the top 50 of a role (`fugitive` or `marshal`) among the
/// profiles with at least 10 rated games in it in the last 30 days.
async fn leaderboard(
    State(app): State<AppState>,
    Path(role): Path<String>,
) -> Result<Json<Value>, ProfileError> {
    let role = match role.as_str() {
        "fugitive" => fugitive_core::Role::Fugitive,
        "marshal" => fugitive_core::Role::Marshal,
        _ => return Err(AppError::BadRequest("the role is fugitive or marshal".into()).into()),
    };
    let leaders = ratings::leaders(app.rooms.db(), role, now_ms() - LEADER_WINDOW_MS).await?;
    let leaders: Vec<Value> = leaders
        .into_iter()
        .map(|leader| {
            json!({
                "profile": leader.profile,
                "name": leader.name,
                "rating": rating_json(&leader.rating),
                "recent_games": leader.recent,
            })
        })
        .collect();
    Ok(Json(json!({
        "role": role_key(role),
        "min_games": ratings::LEADER_MIN_GAMES,
        "days": 30,
        "leaders": leaders,
    })))
}
