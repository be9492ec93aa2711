//! The WebSocket endpoints `GET /ws/v1/rooms/{room}` and `GET /ws/v2/rooms/{room}` (the same
//! but for the state frames, `frames.rs`).
//!
//! Before the upgrade: the `Origin` allowlist (cross-site WebSocket hijacking) and the server's
//! socket cap. After it, the socket is split into two futures of one task (a task of its own
//! for the writer cost about a kilobyte per socket): the writer drains the socket's queue (a
//! [`Mailbox`] fed by the room actor and by the reader) and pings; the reader loop parses client
//! messages, limits their rate, times out idle peers and peers that never say `hello`, and asks
//! the room. Whichever ends first ends the other. A socket the server closes is drained of what
//! the peer still sends until the peer answers the close, so the close frame is not lost to a
//! reset.
//!
//! The writer writes the frames that wait in one `write` call while they fit in the largest
//! frame the socket has written (at least 1 KiB: tungstenite's write buffer keeps the largest
//! capacity it reaches), after letting the other tasks run `--socket-write-yields` times. The
//! reply to a seat's request is queued by the room itself, behind the frames of the action,
//! and the writer woken once for both (`Mailbox::hold`): the delta and the reply are one system
//! call, not two.
//!
//! Close codes: 1001 server shutting down, 1007 text not UTF-8, 1008 flooding / idle / too
//! slow / no `hello` in time, 1009 message too big, 1011 server error, 1013 room full (of
//! spectators), 4004 no such room.

use std::sync::Arc;
use std::time::Duration;

use axum::Json;
use axum::body::Bytes;
use axum::extract::ws::{CloseFrame, Message, WebSocket, WebSocketUpgrade};
use axum::extract::{Path, RawQuery, State};
use axum::http::HeaderMap;
use axum::http::header::ORIGIN;
use axum::response::{IntoResponse, Response};
use futures_util::stream::{SplitSink, SplitStream};
use futures_util::{SinkExt, StreamExt};
use serde_json::json;
use tokio::sync::{OwnedSemaphorePermit, oneshot};
use tokio::time::Instant;
use uuid::Uuid;

use crate::app::{AppError, AppState};
use crate::mailbox::{Mailbox, Taken};
use crate::metrics::{self, Stage};
use crate::protocol::{self, Protocol, Reply, Request, ServerMessage, code, encode_as};
use crate::room::{JoinError, Kick, Queued, RoomHandle, SeatRequest};
use crate::rooms::RoomsError;

const SHUTTING_DOWN: Kick = Kick { code: 1001, reason: "the server is shutting down" };
const NO_ROOM: Kick = Kick { code: 4004, reason: "no such room" };
const SERVER_ERROR: Kick = Kick { code: 1011, reason: "server error" };
const TOO_SLOW: Kick = Kick { code: 1008, reason: "too slow: messages were not read" };

/// The upgrade handler of `/ws/v1/…`.
pub async fn upgrade(
    ws: WebSocketUpgrade,
    path: Path<String>,
    headers: HeaderMap,
    app: State<AppState>,
) -> Response {
    upgrade_as(Protocol::V1, ws, path, headers, app)
}

/// The upgrade handler of `/ws/v2/…`.
pub async fn upgrade_v2(
    ws: WebSocketUpgrade,
    path: Path<String>,
    headers: HeaderMap,
    app: State<AppState>,
) -> Response {
    upgrade_as(Protocol::V2, ws, path, headers, app)
}

/// Checks `Origin` and the socket cap before any socket exists.
fn upgrade_as(
    protocol: Protocol,
    ws: WebSocketUpgrade,
    Path(room): Path<String>,
    headers: HeaderMap,
    State(app): State<AppState>,
) -> Response {
    let origin = headers.get(ORIGIN).map(|o| o.to_str().unwrap_or("(not ASCII)"));
    if !app.origins.allows(origin) {
        tracing::warn!(?origin, "cross-origin WebSocket refused; see --allowed-origins");
        return AppError::OriginNotAllowed(origin.unwrap_or_default().to_string()).into_response();
    }
    let Ok(permit) = app.sockets.clone().try_acquire_owned() else {
        return AppError::TooManySockets.into_response();
    };
    let max = app.config.max_message_bytes;
    // Small buffers: axum's defaults cost about 128 KiB per socket. The read buffer grows to a
    // message's length when its header says so (at most `max`); client messages are a few
    // hundred bytes, and 4 KiB here was a third of an idle socket's memory. The writer flushes
    // what waits itself; the write buffer holds what waits up to `WRITE_BATCH` bytes (more is
    // written at once), and keeps the capacity of the largest batch.
    ws.read_buffer_size(READ_BUFFER)
        .write_buffer_size(WRITE_BATCH)
        .max_write_buffer_size(1 << 20)
        .max_message_size(max)
        .max_frame_size(max)
        .on_upgrade(move |socket| serve(socket, app, protocol, Uuid::parse_str(&room).ok(), permit))
}

/// The read buffer a socket starts with (tungstenite's `in_buffer`).
const READ_BUFFER: usize = 512;

/// Frames that wait are gathered in the write buffer up to about this many bytes before a
/// `write` call; the writer flushes the rest once the queue is empty.
const WRITE_BATCH: usize = 8 * 1024;

/// `GET /api/origin?origin=…`: whether a page of that origin may open a WebSocket. A browser
/// cannot read the answer to a refused upgrade, so the web client asks here when its socket
/// never opened, and shows the operator's setting instead of reconnecting for ever. The same
/// `403 origin_not_allowed` as the upgrade, or `200 {"origin": …, "allowed": true}`.
pub async fn check_origin(State(app): State<AppState>, RawQuery(query): RawQuery) -> Response {
    let origin = url::form_urlencoded::parse(query.unwrap_or_default().as_bytes())
        .find(|(key, _)| key == "origin")
        .map(|(_, value)| value.into_owned());
    let Some(origin) = origin else {
        return AppError::BadRequest("the query names no origin: /api/origin?origin=…".into())
            .into_response();
    };
    if app.origins.allows(Some(&origin)) {
        Json(json!({ "origin": origin, "allowed": true })).into_response()
    } else {
        AppError::OriginNotAllowed(origin).into_response()
    }
}

/// How a session ended.
enum End {
    /// The peer left or the connection failed.
    Gone,
    /// The server closes the socket with this code.
    Close(Kick),
}

async fn serve(
    socket: WebSocket,
    app: AppState,
    protocol: Protocol,
    room: Option<Uuid>,
    permit: OwnedSemaphorePermit,
) {
    // Counted until this task ends, however it ends.
    let _open = Open::new(permit);
    let (sink, mut stream) = socket.split();
    let queue = Mailbox::new(app.config.socket_queue);
    let (close, closing) = oneshot::channel();
    let yields = app.config.socket_write_yields;
    let writer = write(sink, queue.clone(), closing, app.config.ping_interval, yields);
    tokio::pin!(writer);
    // Set once `writer` has been polled to completion: a finished future is not polled again.
    let mut written = false;
    let mut session = None;
    let end = match load(&app, room).await {
        Ok((id, room)) => {
            let session = session.insert(Session {
                app: app.clone(),
                queue,
                protocol,
                id,
                room,
                joined: None,
                kick: None,
            });
            tokio::select! {
                end = session.read(&mut stream) => end,
                _ = &mut writer => {
                    written = true;
                    End::Gone
                }
            }
        }
        Err(kick) => End::Close(kick),
    };
    // The room hears of it first, so presence follows the socket at once.
    if let Some(Session { room, joined: Some(socket), .. }) = &session {
        room.leave(*socket).await;
    }
    if written {
        return;
    }
    // The writer sends the close frame (or flushes the close reply tungstenite queued, when
    // the peer closed), each for a bounded time.
    let finish = async {
        let _ = tokio::time::timeout(CLOSE_DRAIN, &mut writer).await;
    };
    match end {
        End::Close(kick) => {
            tracing::debug!(code = kick.code, reason = kick.reason, "closing a socket");
            let _ = close.send(kick);
            // Read (and drop) what the peer still sends until it answers the close, for a
            // bounded time: a socket dropped with unread data is reset by the kernel, and the
            // peer would never see the close frame (1006 instead of the code).
            let drain = async {
                let drain = async { while let Some(Ok(_)) = stream.next().await {} };
                let _ = tokio::time::timeout(CLOSE_DRAIN, drain).await;
            };
            tokio::join!(drain, finish);
        }
        End::Gone => {
            drop(close);
            finish.await;
        }
    }
}

/// How long a closing socket is given to send its close frame and read the peer's answer.
const CLOSE_DRAIN: Duration = Duration::from_secs(2);

/// An open socket: counted in `fugitive_sockets` and holding its permit of `--max-sockets`
/// until dropped (even by a panic).
struct Open {
    _permit: OwnedSemaphorePermit,
}

impl Open {
    fn new(permit: OwnedSemaphorePermit) -> Open {
        metrics::socket(1.0);
        Open { _permit: permit }
    }
}

impl Drop for Open {
    fn drop(&mut self) {
        metrics::socket(-1.0);
    }
}

/// The room a socket asked for, or how to close it.
async fn load(app: &AppState, room: Option<Uuid>) -> Result<(Uuid, RoomHandle), Kick> {
    let id = room.ok_or(NO_ROOM)?;
    match app.rooms.get(id).await {
        Ok(handle) => Ok((id, handle)),
        Err(RoomsError::NotFound) => Err(NO_ROOM),
        Err(error) => {
            tracing::error!(room = %id, %error, "could not load a room");
            Err(SERVER_ERROR)
        }
    }
}

/// One socket's conversation with its room.
struct Session {
    app: AppState,
    queue: Arc<Mailbox>,
    protocol: Protocol,
    id: Uuid,
    room: RoomHandle,
    /// The socket's id in the room, after `hello`.
    joined: Option<u64>,
    /// Fires when the room closes this socket.
    kick: Option<oneshot::Receiver<Kick>>,
}

impl Session {
    async fn read(&mut self, stream: &mut SplitStream<WebSocket>) -> End {
        let idle_timeout = self.app.config.idle_timeout;
        let mut bucket = Bucket::new(self.app.config.max_messages_per_sec);
        let mut stop = self.app.stop.clone();
        let hello_by = Instant::now() + self.app.config.hello_timeout;
        loop {
            let frame = tokio::select! {
                _ = stop.wait_for(|stop| *stop) => return End::Close(SHUTTING_DOWN),
                () = tokio::time::sleep_until(hello_by), if self.joined.is_none() => {
                    metrics::error("hello_timeout");
                    return End::Close(Kick { code: 1008, reason: "no hello in time" });
                }
                kick = kicked(&mut self.kick) => return End::Close(kick),
                frame = tokio::time::timeout(idle_timeout, stream.next()) => frame,
            };
            let message = match frame {
                Err(_) => return End::Close(Kick { code: 1008, reason: "idle timeout" }),
                Ok(None) => return End::Gone,
                Ok(Some(Err(error))) => return read_error(error),
                Ok(Some(Ok(message))) => message,
            };
            let text = match message {
                Message::Text(text) => Some(text),
                Message::Binary(_) => None,
                Message::Ping(_) | Message::Pong(_) => continue,
                Message::Close(_) => return End::Gone,
            };
            if !bucket.take() {
                return End::Close(Kick { code: 1008, reason: "too many messages" });
            }
            let started = Instant::now();
            let (reply, queued) = match text {
                // Boxed: the answer's future (a join, a request to the room) is the largest
                // state of this loop, and inline it would sit in every idle socket's task.
                Some(text) => match Box::pin(self.answer(text.as_str())).await {
                    Ok(answered) => answered,
                    Err(end) => return end,
                },
                None => {
                    let reply =
                        Reply::error(None, code::MALFORMED, "binary frames are not used: send JSON text");
                    (reply, Queued::No)
                }
            };
            metrics::latency(started.elapsed());
            if let Some(code) = reply.code() {
                metrics::error(code);
            }
            let queued = match queued {
                Queued::No => {
                    self.queue.send(encode_as(self.protocol, &ServerMessage::Reply(&reply))).is_ok()
                }
                Queued::Yes => true,
                Queued::Full => false,
            };
            if !queued {
                return End::Close(TOO_SLOW);
            }
        }
    }

    /// The reply to one text frame and whether the room queued it already (a seat's request:
    /// behind the frames of its action), or how the session ends.
    async fn answer(&mut self, text: &str) -> Result<(Reply, Queued), End> {
        let message = match protocol::parse_as(self.protocol, text) {
            Ok(message) => message,
            Err(reply) => return Ok((reply, Queued::No)),
        };
        let seq = message.seq;
        let (socket, request) = match (self.joined, message.request) {
            (None, Request::Hello { token, name }) => {
                return self.hello(seq, token, name).await.map(|reply| (reply, Queued::No));
            }
            (None, _) => {
                return Ok((Reply::error(Some(seq), code::HELLO_FIRST, "send hello first"), Queued::No));
            }
            (Some(_), Request::Hello { .. }) => {
                let reply = Reply::error(Some(seq), code::ALREADY_JOINED, "this socket has already joined");
                return Ok((reply, Queued::No));
            }
            (Some(socket), Request::Action(action)) => (socket, SeatRequest::Action(action)),
            (Some(socket), Request::Rematch) => (socket, SeatRequest::Rematch),
            (Some(socket), Request::Resync) => {
                self.room.resync(socket).await.map_err(|_| End::Close(SHUTTING_DOWN))?;
                return Ok((Reply::ok(seq), Queued::No));
            }
            (Some(socket), Request::Table(request)) => {
                let reply =
                    self.room.table(socket, seq, request).await.map_err(|_| End::Close(SHUTTING_DOWN))?;
                return Ok((reply, Queued::No));
            }
        };
        let replied =
            self.room.request_replied(socket, seq, request).await.map_err(|_| End::Close(SHUTTING_DOWN))?;
        Ok((replied.reply, replied.queued))
    }

    /// Joins the room. An actor that unloaded itself meanwhile is reloaded once.
    async fn hello(
        &mut self,
        seq: u64,
        token: Option<String>,
        name: Option<Option<String>>,
    ) -> Result<Reply, End> {
        for attempt in 0..2 {
            if attempt > 0 {
                self.room = load(&self.app, Some(self.id)).await.map_err(End::Close)?.1;
            }
            let (kick, kicked) = oneshot::channel();
            let queue = self.queue.clone();
            match self.room.join(token.clone(), name.clone(), queue, self.protocol, kick).await {
                Ok(Ok(socket)) => {
                    self.joined = Some(socket);
                    self.kick = Some(kicked);
                    return Ok(Reply::ok(seq));
                }
                Ok(Err(JoinError::BadToken)) => {
                    return Ok(Reply::error(
                        Some(seq),
                        code::BAD_TOKEN,
                        "this token is not one of this room's seats",
                    ));
                }
                Ok(Err(JoinError::Full)) => {
                    return Err(End::Close(Kick { code: 1013, reason: "the room has too many spectators" }));
                }
                Err(_gone) => continue,
            }
        }
        Err(End::Close(SERVER_ERROR))
    }
}

/// Waits for the room to close this socket; never, before `hello` or once the room let go.
async fn kicked(kick: &mut Option<oneshot::Receiver<Kick>>) -> Kick {
    if let Some(receiver) = kick.as_mut() {
        if let Ok(kick) = receiver.await {
            return kick;
        }
    }
    *kick = None;
    std::future::pending().await
}

/// How a failed read ends the session: a message above the size limit is closed with 1009, a
/// text frame that is not UTF-8 with 1007; anything else means the connection is gone.
fn read_error(error: axum::Error) -> End {
    match error.into_inner().downcast_ref::<tungstenite::Error>() {
        Some(tungstenite::Error::Capacity(_)) => End::Close(Kick { code: 1009, reason: "message too big" }),
        Some(tungstenite::Error::Utf8(_)) => End::Close(Kick { code: 1007, reason: "text is not UTF-8" }),
        _ => End::Gone,
    }
}

/// Drains the socket's queue into the socket and pings; sends the close frame when told.
/// Every frame that waits goes out in one `write` call (up to `WRITE_BATCH` bytes), after
/// `yields` turns of the other tasks (for frames about to be queued, such as the reply that
/// follows an actor's delta).
async fn write(
    mut sink: SplitSink<WebSocket, Message>,
    queue: Arc<Mailbox>,
    mut close: oneshot::Receiver<Kick>,
    ping_every: Duration,
    yields: u8,
) {
    let mut ping = tokio::time::interval_at(Instant::now() + ping_every, ping_every);
    let mut largest = 0;
    loop {
        tokio::select! {
            biased;
            kick = &mut close => {
                match kick {
                    Ok(kick) => {
                        let frame = CloseFrame { code: kick.code, reason: kick.reason.into() };
                        let _ = sink.send(Message::Close(Some(frame))).await;
                    }
                    // The peer closed or vanished: flush the close reply tungstenite queued.
                    Err(_) => {
                        let _ = sink.close().await;
                    }
                }
                return;
            }
            frame = queue.recv() => {
                if write_waiting(&mut sink, &queue, frame, yields, &mut largest).await.is_err() {
                    return;
                }
            }
            _ = ping.tick() => {
                if sink.send(Message::Ping(Bytes::new())).await.is_err() {
                    return;
                }
            }
        }
    }
}

/// Writes `first` and every frame queued behind it (also those queued while the writer yields
/// `yields` times), then flushes: one `write` call for all of them while they fit in
/// [`gather_limit`] of `largest` (the largest frame this socket has written, kept here).
async fn write_waiting(
    sink: &mut SplitSink<WebSocket, Message>,
    queue: &Mailbox,
    first: Taken,
    yields: u8,
    largest: &mut usize,
) -> Result<(), axum::Error> {
    let started = std::time::Instant::now();
    metrics::stage(Stage::Mailbox, first.waited);
    let first = first.frame;
    *largest = (*largest).max(wire_len(first.len()));
    let mut gathered = wire_len(first.len());
    sink.feed(Message::Text(first)).await?;
    for _ in 0..yields {
        tokio::task::yield_now().await;
    }
    while let Some(Taken { frame, waited }) = queue.try_take() {
        metrics::stage(Stage::Mailbox, waited);
        let len = wire_len(frame.len());
        *largest = (*largest).max(len);
        if gathered + len > gather_limit(*largest) {
            sink.flush().await?;
            gathered = 0;
        }
        gathered += len;
        sink.feed(Message::Text(frame)).await?;
    }
    let flushed = sink.flush().await;
    metrics::stage(Stage::SocketWrite, started.elapsed());
    flushed
}

/// Frames gathered into one `write` call come to at most this many bytes: the largest frame
/// the socket has written (tungstenite's write buffer already has that capacity, and keeps
/// whatever capacity it reaches for the socket's whole life), or `GATHER_FLOOR`. Gathering
/// more grows the buffer: a spectator's snapshot gathered with the reply behind it doubled it
/// (issue 28, memory per idle socket).
fn gather_limit(largest: usize) -> usize {
    largest.clamp(GATHER_FLOOR, WRITE_BATCH)
}

/// Small frames (a delta and its reply) are gathered up to this many bytes in any case.
const GATHER_FLOOR: usize = 1024;

/// A server frame's length on the wire: the payload and its header (RFC 6455, 5.2; a server
/// does not mask).
fn wire_len(payload: usize) -> usize {
    payload
        + match payload {
            0..=125 => 2,
            126..=65535 => 4,
            _ => 10,
        }
}

/// A token bucket: `rate` messages per second, bursts of twice as many.
struct Bucket {
    tokens: f64,
    rate: f64,
    last: Instant,
}

impl Bucket {
    fn new(rate: u32) -> Bucket {
        Bucket { tokens: 2.0 * f64::from(rate), rate: f64::from(rate), last: Instant::now() }
    }

    fn take(&mut self) -> bool {
        let now = Instant::now();
        let refill = now.duration_since(self.last).as_secs_f64() * self.rate;
        self.tokens = (self.tokens + refill).min(2.0 * self.rate);
        self.last = now;
        if self.tokens >= 1.0 {
            self.tokens -= 1.0;
            true
        } else {
            false
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frames_are_gathered_up_to_the_largest_frame_written_or_the_floor() {
        assert_eq!(wire_len(125), 127);
        assert_eq!(wire_len(126), 130);
        assert_eq!(wire_len(70_000), 70_010);
        // A 2 KiB snapshot, then its 40-byte reply: not gathered (the buffer would double).
        let snapshot = wire_len(2048);
        assert!(snapshot + wire_len(40) > gather_limit(snapshot));
        // A delta and its reply after it: gathered.
        assert!(wire_len(300) + wire_len(40) <= gather_limit(wire_len(300)));
        assert!(wire_len(1500) + wire_len(40) <= gather_limit(snapshot));
        assert_eq!(gather_limit(1 << 20), WRITE_BATCH);
    }

    #[tokio::test(start_paused = true)]
    async fn the_bucket_allows_bursts_then_the_rate() {
        let mut bucket = Bucket::new(5);
        assert_eq!((0..20).filter(|_| bucket.take()).count(), 10);
        tokio::time::advance(Duration::from_secs(1)).await;
        assert_eq!((0..20).filter(|_| bucket.take()).count(), 5);
    }
}
