//! A protocol-2 client (`/ws/v2/…`, docs/protocol-v2.md): it holds the view the way a client
//! must — the last `snapshot` with every `delta` applied — and records each frame with its size.

use std::net::SocketAddr;

use futures_util::{SinkExt, StreamExt};
use serde_json::{Map, Value, json};
use tokio::net::{TcpSocket, TcpStream};
use tokio_tungstenite::WebSocketStream;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::tungstenite::client::IntoClientRequest;
use tokio_tungstenite::tungstenite::protocol::CloseFrame;

use super::PATIENCE;

/// A delta that does not apply to the held state: its `base` or `game` is not the held one's.
#[derive(Debug)]
pub struct Gap;

/// Applies a `delta` to a held state (`{version, game, view, legal, room, notepad?,
/// candidates?}`, as a
/// `snapshot` has them), exactly as docs/protocol-v2.md says a client must.
///
/// # Errors
/// [`Gap`] when the delta is not for this state (nothing changed): ask for a `resync`.
pub fn apply(held: &mut Value, delta: &Value) -> Result<(), Gap> {
    if held["game"] != delta["game"] || held["version"] != delta["base"] {
        return Err(Gap);
    }
    held["version"] = delta["version"].clone();
    let view = &mut held["view"];
    if let Some(entries) = delta.get("history") {
        view["history"].as_array_mut().unwrap().extend(entries.as_array().unwrap().iter().cloned());
    }
    if let Some(revealed) = delta.get("revealed") {
        for pair in revealed.as_array().unwrap() {
            let index = pair[0].as_u64().unwrap() as usize;
            view["history"][index] = pair[1].clone();
        }
    }
    if let Some(trail) = delta.get("trail") {
        let cards = view["trail"].as_array_mut().unwrap();
        let length = trail["length"].as_u64().unwrap() as usize;
        cards.truncate(length);
        for pair in trail["cards"].as_array().unwrap() {
            let position = pair[0].as_u64().unwrap() as usize;
            if position < cards.len() {
                cards[position] = pair[1].clone();
            } else {
                assert_eq!(position, cards.len(), "a new trail position follows the last: {delta}");
                cards.push(pair[1].clone());
            }
        }
        assert_eq!(cards.len(), length, "{delta}");
    }
    if let Some(fields) = delta.get("view") {
        for (key, value) in fields.as_object().unwrap() {
            set_or_remove(view.as_object_mut().unwrap(), key, value);
        }
    }
    if let Some(legal) = delta.get("legal") {
        held["legal"] = legal.clone();
    }
    if let Some(fields) = delta.get("room") {
        for (key, value) in fields.as_object().unwrap() {
            held["room"][key] = value.clone();
        }
    }
    for key in ["notepad", "candidates"] {
        if let Some(value) = delta.get(key) {
            set_or_remove(held.as_object_mut().unwrap(), key, value);
        }
    }
    Ok(())
}

/// A field set to `null` by a delta is one a snapshot leaves out (`events`, `notepad`,
/// `candidates`) or shows as `null`: both read the same.
fn set_or_remove(object: &mut Map<String, Value>, key: &str, value: &Value) {
    if value.is_null() && matches!(key, "events" | "notepad" | "candidates") {
        object.remove(key);
    } else {
        object.insert(key.to_owned(), value.clone());
    }
}

/// The held state of a `snapshot` (or a protocol-1 `state`): its fields but `v` and `type`.
pub fn held_of(frame: &Value) -> Value {
    let mut held = frame.clone();
    let object = held.as_object_mut().unwrap();
    object.remove("v");
    object.remove("type");
    held
}

/// A protocol-2 client (or, for the slow-reader tests, a protocol-1 one that holds its last
/// `state`).
pub struct V2 {
    ws: WebSocketStream<TcpStream>,
    /// 2, or 1 on `/ws/v1/…`.
    protocol: u64,
    next_seq: u64,
    /// The view it holds: the last snapshot with the deltas since.
    pub held: Option<Value>,
    /// Every text frame received, parsed, with its size in bytes.
    pub frames: Vec<(usize, Value)>,
    /// Deltas that did not apply (the client then asked for a `resync`).
    pub gaps: usize,
    /// Drop the next delta, as if it had been lost (to test the resync).
    pub lose_next_delta: bool,
    /// A `resync` was sent: deltas are dropped until the snapshot comes.
    resyncing: bool,
}

impl V2 {
    /// Opens a socket on `/ws/v{protocol}/rooms/{room}`; `recv_buffer` sets a small TCP receive
    /// buffer (for a client that reads slowly).
    pub async fn connect(addr: SocketAddr, protocol: u64, room: &str, recv_buffer: Option<u32>) -> V2 {
        let socket = TcpSocket::new_v4().unwrap();
        if let Some(size) = recv_buffer {
            socket.set_recv_buffer_size(size).unwrap();
        }
        let stream = socket.connect(addr).await.unwrap();
        let request = format!("ws://{addr}/ws/v{protocol}/rooms/{room}").into_client_request().unwrap();
        let (ws, _) = tokio_tungstenite::client_async(request, stream).await.unwrap();
        V2 {
            ws,
            protocol,
            next_seq: 1,
            held: None,
            frames: Vec::new(),
            gaps: 0,
            lose_next_delta: false,
            resyncing: false,
        }
    }

    /// Connects and says hello; waits for welcome, snapshot and the reply.
    pub async fn join(addr: SocketAddr, room: &str, token: Option<&str>) -> V2 {
        let mut client = V2::connect(addr, 2, room, None).await;
        let reply = client.request(json!({ "type": "hello", "token": token })).await;
        assert_eq!(reply["ok"], true, "{reply}");
        assert!(client.held.is_some(), "a snapshot before the reply to hello");
        client
    }

    /// Sends `{"v":2,"seq":…,…message}` without waiting; its `seq`.
    pub async fn send(&mut self, mut message: Value) -> u64 {
        let seq = self.next_seq;
        self.next_seq += 1;
        message["v"] = json!(self.protocol);
        message["seq"] = json!(seq);
        self.ws.send(Message::text(message.to_string())).await.unwrap();
        seq
    }

    /// Sends a text frame as it is.
    pub async fn send_text(&mut self, text: String) {
        self.ws.send(Message::text(text)).await.unwrap();
    }

    /// Sends a message and reads until its reply.
    pub async fn request(&mut self, message: Value) -> Value {
        let seq = self.send(message).await;
        self.reply_to(seq).await
    }

    /// Reads until the reply with `seq`.
    pub async fn reply_to(&mut self, seq: u64) -> Value {
        loop {
            let frame = self.recv().await;
            if frame["type"] == "reply" && frame["seq"] == seq {
                return frame;
            }
        }
    }

    /// Asks for a snapshot and reads until its reply: the snapshot came before it.
    pub async fn resync(&mut self) -> Value {
        let reply = self.request(json!({ "type": "resync" })).await;
        assert_eq!(reply["ok"], true, "{reply}");
        let (_, last) = self.frames.iter().rev().find(|(_, f)| f["type"] == "snapshot").unwrap();
        held_of(last)
    }

    /// The next text frame, applied to the held view; a delta that does not apply is counted
    /// as a gap and answered with a `resync`. Panics on a close.
    pub async fn recv(&mut self) -> Value {
        match self.next_frame().await {
            Ok(frame) => frame,
            Err(close) => panic!("socket closed: {close:?}"),
        }
    }

    /// The next text frame, or the close frame.
    pub async fn next_frame(&mut self) -> Result<Value, Option<CloseFrame>> {
        loop {
            let message = tokio::time::timeout(PATIENCE, self.ws.next()).await.expect("a frame in time");
            let text = match message {
                Some(Ok(Message::Text(text))) => text,
                Some(Ok(Message::Close(frame))) => return Err(frame),
                Some(Ok(_)) => continue,
                Some(Err(_)) | None => return Err(None),
            };
            let frame: Value = serde_json::from_str(text.as_str()).unwrap();
            assert_eq!(
                frame["v"], self.protocol,
                "every message on /ws/v{} has its v: {frame}",
                self.protocol
            );
            self.frames.push((text.len(), frame.clone()));
            match frame["type"].as_str() {
                Some("snapshot") => {
                    self.held = Some(held_of(&frame));
                    self.resyncing = false;
                }
                Some("delta") if std::mem::take(&mut self.lose_next_delta) || self.resyncing => {}
                Some("delta") => {
                    let held = self.held.as_mut().expect("a snapshot before any delta");
                    if apply(held, &frame).is_err() {
                        self.gaps += 1;
                        self.resyncing = true;
                        self.send(json!({ "type": "resync" })).await;
                    }
                }
                Some("state") if self.protocol == 1 => self.held = Some(held_of(&frame)),
                Some("state") => panic!("protocol 1's state on /ws/v2: {frame}"),
                _ => {}
            }
            return Ok(frame);
        }
    }

    /// The held version.
    pub fn version(&self) -> Option<u64> {
        self.held.as_ref().and_then(|h| h["version"].as_u64())
    }

    /// Reads until the held view has `version`.
    pub async fn wait_version(&mut self, version: u64) -> Value {
        while self.version() < Some(version) {
            self.recv().await;
        }
        self.held.clone().unwrap()
    }

    /// The held state as a protocol-1 `state` frame, for the checks written for those.
    pub fn as_state(&self) -> Value {
        let mut state = self.held.clone().unwrap();
        state["v"] = json!(1);
        state["type"] = json!("state");
        state
    }

    pub async fn close(mut self) {
        let _ = self.ws.close(None).await;
    }
}
