//! The lobby's WebSocket, `GET /ws/lobby` (issue 25): the list of open seeks first, then every
//! change pushed as it happens; a player with a profile (its cookie, read at the upgrade) may
//! seek, cancel, accept and join a quick-pairing pool. Anyone may watch.
//!
//! Client → server: `{"type": "seek", "seek": {…}}`, `{"type": "cancel", "id"}`,
//! `{"type": "accept", "id"}`, `{"type": "pool", "pool"}`, `{"type": "leave_pool"}`. Server →
//! client: `seeks` (the list), `seek_added`, `seek_removed`, `seeked` (your seek's id),
//! `pooled`, `paired` (your seat), `error` (`code`, `message`). `docs/protocol.md` has them all.

use std::net::SocketAddr;
use std::sync::atomic::{AtomicU64, Ordering};

use axum::extract::ws::{Message, WebSocket, WebSocketUpgrade};
use axum::extract::{ConnectInfo, State};
use axum::http::HeaderMap;
use axum::http::header::ORIGIN;
use axum::response::{IntoResponse, Response};
use futures_util::{SinkExt, StreamExt};
use serde::Deserialize;
use serde_json::json;
use tokio::sync::{OwnedSemaphorePermit, broadcast, mpsc};

use crate::app::{AppError, AppState};
use crate::lobby::{LobbyError, Player};
use crate::model::seek::SeekRequest;

/// How many messages to one lobby socket may wait; a socket that lets more pile up is closed.
const QUEUE: usize = 256;

/// The largest message a lobby client sends.
const MAX_MESSAGE: usize = 2048;

static SOCKETS: AtomicU64 = AtomicU64::new(1);

#[derive(Debug, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
enum Request {
    Seek { seek: SeekRequest },
    Cancel { id: String },
    Accept { id: String },
    Pool { pool: String },
    LeavePool,
}

/// The upgrade: `Origin` and the socket cap are checked first, as for a room's socket.
pub async fn upgrade(
    ws: WebSocketUpgrade,
    headers: HeaderMap,
    ConnectInfo(peer): ConnectInfo<SocketAddr>,
    State(app): State<AppState>,
) -> Response {
    let origin = headers.get(ORIGIN).map(|o| o.to_str().unwrap_or("(not ASCII)"));
    if !app.origins.allows(origin) {
        return AppError::OriginNotAllowed(origin.unwrap_or_default().to_string()).into_response();
    }
    let Ok(permit) = app.sockets.clone().try_acquire_owned() else {
        return AppError::TooManySockets.into_response();
    };
    let profile = match crate::app::bearer(&app, &headers).await {
        Ok(profile) => profile,
        Err(error) => {
            tracing::error!(%error, "could not read a lobby socket's profile");
            return AppError::Unavailable.into_response();
        }
    };
    // As a room's socket (`socket.rs`): a small read buffer, and frames written as they come
    // (`fugitive-load --mode lobby`: tungstenite's default buffers made a page 128 KiB).
    ws.read_buffer_size(4096)
        .write_buffer_size(0)
        .max_write_buffer_size(4 << 20)
        .max_message_size(MAX_MESSAGE)
        .on_upgrade(move |socket| serve(socket, app, profile, headers, peer, permit))
}

fn error(code: LobbyError) -> String {
    json!({ "type": "error", "code": code.code(), "message": code.to_string() }).to_string()
}

async fn serve(
    socket: WebSocket,
    app: AppState,
    profile: Option<(crate::db::profiles::OwnProfile, String)>,
    headers: HeaderMap,
    peer: SocketAddr,
    _permit: OwnedSemaphorePermit,
) {
    let lobby = app.lobby.clone();
    let (mut sink, mut stream) = socket.split();
    let (tell, mut outbox) = mpsc::channel::<String>(QUEUE);
    let id = SOCKETS.fetch_add(1, Ordering::Relaxed);
    let player = profile.map(|(profile, secret)| Player { socket: id, profile, secret, tell: tell.clone() });
    if let Some(player) = &player {
        lobby.joined(&player.profile.id);
    }
    // Subscribed before the list is read: a change in between comes twice, never not at all.
    let mut events = lobby.subscribe();
    let profile = player.as_ref().map(|p| p.profile.id.clone());
    let first = lobby.first_list(profile.as_deref()).await.unwrap_or_else(error);
    let _ = tell.try_send(first);
    if let Some(player) = &player {
        match lobby.missed_pairings(player).await {
            Ok(missed) => missed.into_iter().for_each(|paired| drop(tell.try_send(paired))),
            Err(code) => drop(tell.try_send(error(code))),
        }
    }
    let mut stop = app.stop.clone();
    loop {
        tokio::select! {
            Some(text) = outbox.recv() => {
                if sink.send(Message::Text(text.into())).await.is_err() {
                    break;
                }
            }
            event = events.recv() => match event {
                Ok(text) => {
                    if tell.try_send(text.to_string()).is_err() {
                        break;
                    }
                }
                Err(broadcast::error::RecvError::Lagged(_)) => match lobby.first_list(profile.as_deref()).await {
                    Ok(list) => {
                        let _ = tell.try_send(list);
                    }
                    Err(_) => break,
                },
                Err(broadcast::error::RecvError::Closed) => break,
            },
            message = stream.next() => {
                let text = match message {
                    Some(Ok(Message::Text(text))) => text,
                    Some(Ok(Message::Close(_))) | None | Some(Err(_)) => break,
                    Some(Ok(_)) => continue,
                };
                let answer = answer(&app, player.as_ref(), &headers, peer, &text).await;
                if let Some(answer) = answer {
                    if tell.try_send(answer).is_err() {
                        break;
                    }
                }
            }
            _ = stop.changed() => break,
        }
    }
    let _ = sink.send(Message::Close(None)).await;
    lobby.left(player.as_ref()).await;
}

/// Carries out one request; what to answer, if anything.
async fn answer(
    app: &AppState,
    player: Option<&Player>,
    headers: &HeaderMap,
    peer: SocketAddr,
    text: &str,
) -> Option<String> {
    let request: Request = match serde_json::from_str(text) {
        Ok(request) => request,
        Err(_) => return Some(error(LobbyError::BadSeek)),
    };
    let Some(player) = player else {
        return Some(error(LobbyError::NoProfile));
    };
    let lobby = &app.lobby;
    let result = match request {
        Request::Seek { seek } => {
            if app.limiter.check(headers, peer).is_err() {
                return Some(error(LobbyError::RateLimited));
            }
            lobby.seek(player, &seek).await.map(|id| Some(json!({ "type": "seeked", "id": id }).to_string()))
        }
        Request::Cancel { id } => lobby.cancel(player, &id).await.map(|()| None),
        Request::Accept { id } => lobby.accept(player, &id).await.map(|()| None),
        Request::Pool { pool } => {
            if app.limiter.check(headers, peer).is_err() {
                return Some(error(LobbyError::RateLimited));
            }
            lobby
                .join_pool(player, &pool)
                .await
                .map(|()| Some(json!({ "type": "pooled", "pool": pool }).to_string()))
        }
        Request::LeavePool => {
            lobby.leave_pools(player.socket);
            Ok(None)
        }
    };
    result.unwrap_or_else(|code| Some(error(code)))
}
