//! The WebSocket messages of protocol versions 1 and 2 (`docs/protocol.md`,
//! `docs/protocol-v2.md`), and their error codes. Version 2 has every message of version 1 but
//! `state`, and adds the client's `resync` and the server's `snapshot` and `delta`
//! (`frames.rs`).
//!
//! A client message is read in two stages, like a move: text → an envelope (`v`, `seq`,
//! `type`), then the envelope → a typed [`Request`]. Each failure is a [`Reply`] with a stable
//! code, and the caller sends it; nothing else happens.

use axum::extract::ws::Utf8Bytes;
use fugitive_core::{Action, ActionError, ByRole, Candidates, Card, EventCard, LegalActions, Role, View};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use uuid::Uuid;

use crate::model::table::{ChatBody, Quick, TableRequest};

pub mod frames;

/// A text frame as the sockets write it: made once, shared by every socket it goes to.
pub type Frame = Utf8Bytes;

/// The protocol version of `/ws/v1/…`, `"v"` in every message.
pub const VERSION: u64 = 1;

/// A protocol version the server speaks: the path a socket opened (`/ws/v1/…`, `/ws/v2/…`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Protocol {
    /// Full `state` snapshots after every change.
    V1,
    /// A `snapshot` on `hello` and `resync`, then `delta`s (`frames.rs`).
    V2,
}

impl Protocol {
    /// `"v"` in every message of this version.
    pub const fn number(self) -> u64 {
        match self {
            Protocol::V1 => 1,
            Protocol::V2 => 2,
        }
    }
}

/// Error codes of the protocol itself; an illegal action uses `ActionError::code()`.
pub mod code {
    /// Not JSON, wrong types, missing fields, an unknown or server-only action.
    pub const MALFORMED: &str = "malformed";
    /// A `type` the server does not know.
    pub const UNKNOWN_MESSAGE: &str = "unknown_message";
    /// `v` is not 1.
    pub const BAD_VERSION: &str = "bad_version";
    /// A message before `hello`.
    pub const HELLO_FIRST: &str = "hello_first";
    /// A second `hello` on the same socket.
    pub const ALREADY_JOINED: &str = "already_joined";
    /// `hello` with a token that is not one of this room's.
    pub const BAD_TOKEN: &str = "bad_token";
    /// A spectator tried to act.
    pub const SPECTATOR: &str = "spectator";
    /// A rematch offer while the game runs or before both seats are taken.
    pub const NO_REMATCH: &str = "no_rematch";
    /// A `seq` at or below the seat's last one whose message was refused.
    pub const STALE_SEQ: &str = "stale_seq";
    /// The server could not store the action; nothing changed, retry later.
    pub const UNAVAILABLE: &str = "unavailable";
    /// A name with more than 24 characters or a control character.
    pub const BAD_NAME: &str = "bad_name";
    /// A chat text that is empty, longer than 200 characters or has a control character.
    pub const BAD_CHAT: &str = "bad_chat";
    /// More chat messages than a seat may send (5 at once, then one every 5 s).
    pub const CHAT_TOO_FAST: &str = "chat_too_fast";
}

/// A client's request, after the envelope was checked.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Request {
    /// Join the room: as the seat whose token this is, or as a spectator.
    Hello {
        /// The seat token, if any.
        token: Option<String>,
        /// The player's display name, checked: `None` when the message has none (the seat keeps
        /// the one it has), `Some(None)` for an empty one (clears it). Ignored for spectators.
        name: Option<Option<String>>,
    },
    /// A seated player's request about the table: a name, a chat message, the chat's readers.
    Table(crate::model::table::TableRequest),
    /// A player's action.
    Action(Action),
    /// Offer (or accept) a rematch with roles swapped.
    Rematch,
    /// Protocol 2: send a full snapshot of the view (the client missed a delta).
    Resync,
}

/// One client message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ClientMessage {
    /// The client's sequence number, echoed in the reply.
    pub seq: u64,
    /// What it asks.
    pub request: Request,
}

/// The answer to one client message.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Reply {
    /// The client's `seq`, or `null` when the message had none that could be read.
    pub seq: Option<u64>,
    /// Whether it was accepted.
    pub ok: bool,
    /// Why not.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<ErrorBody>,
}

/// A stable code and a human message.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ErrorBody {
    /// One of the documented codes.
    pub code: &'static str,
    /// For people.
    pub message: String,
    /// `unavailable` because the server is overloaded: retry, with the same `seq`, after at
    /// least this many milliseconds.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub retry_after_ms: Option<u64>,
    /// The typed reason of a `wrong_phase` or `bad_choice` refusal ([`ActionError::reason`]),
    /// which a client translates.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<&'static str>,
}

impl Reply {
    /// Accepted.
    pub fn ok(seq: u64) -> Reply {
        Reply { seq: Some(seq), ok: true, error: None }
    }

    /// Refused with `code`.
    pub fn error(seq: Option<u64>, code: &'static str, message: impl Into<String>) -> Reply {
        Reply {
            seq,
            ok: false,
            error: Some(ErrorBody { code, message: message.into(), retry_after_ms: None, reason: None }),
        }
    }

    /// The game refused an action: its code, its message and its typed reason, if it has one.
    pub fn refused(seq: Option<u64>, error: &ActionError) -> Reply {
        let mut reply = Reply::error(seq, error.code(), error.to_string());
        reply.error.as_mut().expect("an error").reason = error.reason();
        reply
    }

    /// Refused with `code`, to be retried after `retry_after_ms`.
    pub fn retry_after(
        seq: u64,
        code: &'static str,
        message: impl Into<String>,
        retry_after_ms: u64,
    ) -> Reply {
        let error =
            ErrorBody { code, message: message.into(), retry_after_ms: Some(retry_after_ms), reason: None };
        Reply { seq: Some(seq), ok: false, error: Some(error) }
    }

    /// The error code, if refused.
    pub fn code(&self) -> Option<&'static str> {
        self.error.as_ref().map(|e| e.code)
    }
}

/// Reads one client text frame of protocol version 1.
///
/// # Errors
/// The [`Reply`] to send back: `malformed`, `bad_version` or `unknown_message`.
pub fn parse(text: &str) -> Result<ClientMessage, Reply> {
    parse_as(Protocol::V1, text)
}

/// Reads one client text frame of `protocol`.
///
/// # Errors
/// The [`Reply`] to send back: `malformed`, `bad_version` or `unknown_message`.
pub fn parse_as(protocol: Protocol, text: &str) -> Result<ClientMessage, Reply> {
    match parse_action(protocol, text) {
        Some(message) => Ok(message),
        None => parse_envelope(protocol, text),
    }
}

/// The message of nearly every frame, an action, read straight into its types: no
/// `serde_json::Value` tree of the whole message first. `None` for any text that is not
/// exactly a well-formed action of `protocol` (another type, another version, an array, an
/// escaped `type`, a duplicate field, a bad action…): [`parse_envelope`] reads it, with its
/// error, and would read this one the same.
fn parse_action(protocol: Protocol, text: &str) -> Option<ClientMessage> {
    #[derive(Deserialize)]
    struct ActionMessage<'a> {
        v: u64,
        seq: u64,
        #[serde(rename = "type", borrow)]
        kind: &'a str,
        action: Action,
    }
    // A struct also reads from a JSON array; a message is an object.
    if !text.trim_start().starts_with('{') {
        return None;
    }
    let message: ActionMessage<'_> = serde_json::from_str(text).ok()?;
    (message.v == protocol.number() && message.kind == "action")
        .then_some(ClientMessage { seq: message.seq, request: Request::Action(message.action) })
}

/// Reads any client message through its envelope (a JSON object's fields), with an error
/// [`Reply`] for each way it can be wrong.
fn parse_envelope(protocol: Protocol, text: &str) -> Result<ClientMessage, Reply> {
    let malformed = |seq, message: String| Reply::error(seq, code::MALFORMED, message);
    let value: Value = serde_json::from_str(text).map_err(|e| malformed(None, format!("not JSON: {e}")))?;
    let Value::Object(mut fields) = value else {
        return Err(malformed(None, "a message is a JSON object".into()));
    };
    let seq = fields
        .get("seq")
        .and_then(Value::as_u64)
        .ok_or_else(|| malformed(None, "`seq` must be an unsigned integer".into()))?;
    if fields.get("v").and_then(Value::as_u64) != Some(protocol.number()) {
        let message = match protocol {
            Protocol::V1 => "this server speaks protocol version 1 (\"v\":1)",
            Protocol::V2 => "this path speaks protocol version 2 (\"v\":2)",
        };
        return Err(Reply::error(Some(seq), code::BAD_VERSION, message));
    }
    let kind = match fields.get("type") {
        Some(Value::String(kind)) => kind.clone(),
        _ => return Err(malformed(Some(seq), "`type` must be a string".into())),
    };
    let request = match kind.as_str() {
        "hello" => Request::Hello {
            token: token(&mut fields).map_err(|m| malformed(Some(seq), m))?,
            name: name(&mut fields, seq)?,
        },
        "name" => match name(&mut fields, seq)? {
            Some(name) => Request::Table(TableRequest::Name(name)),
            None => return Err(malformed(Some(seq), "`name` must be a string".into())),
        },
        "chat" => Request::Table(TableRequest::Chat(chat(&fields, seq)?)),
        "chat_spectators" => match fields.get("allow") {
            Some(Value::Bool(allow)) => Request::Table(TableRequest::ChatSpectators(*allow)),
            _ => return Err(malformed(Some(seq), "`allow` must be true or false".into())),
        },
        "action" => {
            let action = fields.remove("action").unwrap_or(Value::Null);
            if action.get("type").and_then(Value::as_str) == Some("time_out") {
                return Err(malformed(Some(seq), "time_out is the server clock's action".into()));
            }
            match serde_json::from_value::<Action>(action) {
                Ok(action) => Request::Action(action),
                Err(e) => return Err(malformed(Some(seq), format!("bad action: {e}"))),
            }
        }
        "rematch" => Request::Rematch,
        "resync" if protocol == Protocol::V2 => Request::Resync,
        other if protocol == Protocol::V2 => {
            let message = format!(
                "unknown message type {other:?}: hello, action, rematch, name, chat, chat_spectators or resync"
            );
            return Err(Reply::error(Some(seq), code::UNKNOWN_MESSAGE, message));
        }
        other => {
            let message = format!(
                "unknown message type {other:?}: hello, action, rematch, name, chat or chat_spectators"
            );
            return Err(Reply::error(Some(seq), code::UNKNOWN_MESSAGE, message));
        }
    };
    Ok(ClientMessage { seq, request })
}

fn token(fields: &mut Map<String, Value>) -> Result<Option<String>, String> {
    match fields.remove("token") {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(token)) => Ok(Some(token)),
        Some(_) => Err("`token` must be a string or null".into()),
    }
}

/// The `name` field: absent or `null` is `None`; a string is checked (`bad_name`).
fn name(fields: &mut Map<String, Value>, seq: u64) -> Result<Option<Option<String>>, Reply> {
    match fields.remove("name") {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(name)) => crate::model::table::check_name(&name)
            .map(Some)
            .map_err(|e| Reply::error(Some(seq), code::BAD_NAME, e.to_string())),
        Some(_) => Err(Reply::error(Some(seq), code::MALFORMED, "`name` must be a string or null")),
    }
}

/// A `chat` message's body: `text` (checked, `bad_chat`) or `quick` (a one-tap message's id).
fn chat(fields: &Map<String, Value>, seq: u64) -> Result<ChatBody, Reply> {
    let malformed = |message: &str| Reply::error(Some(seq), code::MALFORMED, message);
    match (fields.get("text"), fields.get("quick")) {
        (Some(Value::String(text)), None) => crate::model::table::check_chat(text)
            .map(ChatBody::Text)
            .map_err(|e| Reply::error(Some(seq), code::BAD_CHAT, e.to_string())),
        (None, Some(Value::String(id))) => Quick::from_id(id)
            .map(ChatBody::Quick)
            .ok_or_else(|| malformed("`quick` must be good_luck, well_played or thinking")),
        _ => Err(malformed("a chat message has either a string `text` or a string `quick`")),
    }
}

/// Room facts that are not part of the game: in every `state`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct RoomStatus {
    /// Whether each role's seat has been claimed.
    pub seats: ByRole<bool>,
    /// Whether each role's player has a socket open.
    pub presence: ByRole<bool>,
    /// The turn clock, if the room has one and the game runs.
    pub clock: Option<ClockStatus>,
    /// Which players have offered a rematch.
    pub rematch: ByRole<bool>,
    /// Each role's player's display name, as typed (trusted for nothing).
    pub names: ByRole<Option<String>>,
    /// How many spectators' sockets are open.
    pub spectators: u64,
    /// Whether each role's player lets spectators read the chat (they do when both do).
    pub chat_spectators: ByRole<bool>,
    /// The score of the room's games.
    pub series: crate::model::table::SeriesStatus,
    /// The role the computer opponent plays in the current game (`None`: two people).
    pub computer: Option<Role>,
    /// The game ended aborted: the loser's clock ran out before his first move. Nobody won
    /// it and it is unrated, whatever its `outcome` says (issue 25).
    pub aborted: bool,
}

impl RoomStatus {
    /// Whether a socket joining or leaving changed what the others see: presence, the
    /// spectator count, a name (a joining socket gets its own `state` in any case).
    pub fn others_see_a_change(&self, before: &RoomStatus) -> bool {
        self.presence != before.presence || self.spectators != before.spectators || self.names != before.names
    }
}

/// The turn clock of the player to move.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct ClockStatus {
    /// Seconds per turn.
    pub turn_secs: u64,
    /// Whose clock runs.
    pub role: Role,
    /// What is left of it.
    pub remaining_ms: u64,
}

/// The Marshal's notepad, solved (room option `notepad_assist`): the wire form of what the
/// deduction found, so the protocol keeps its shape whatever the deduction's own type becomes.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Notepad {
    /// How many complete worlds fit everything she has seen (`exact`), or trails (not
    /// `exact`: with events, or past the exact count's budget). Named `trails` for the
    /// clients that read shares from it.
    pub trails: u128,
    /// Whether the counts are of complete worlds (see `docs/protocol.md`).
    pub exact: bool,
    /// Each face-down position with the numbers it can still be.
    pub positions: Vec<NotepadPosition>,
    /// The drawn event cards whose information the notepad leaves out; left out when none.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub ignored_events: Vec<EventCard>,
}

/// What one face-down position can still be.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct NotepadPosition {
    /// Trail position, 1 for the first hideout.
    pub position: usize,
    /// The numbers it can be, ascending.
    pub candidates: Vec<NotepadCandidate>,
}

/// One number a face-down position can be, and in how many of the trails.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct NotepadCandidate {
    /// The number.
    pub number: Card,
    /// How many of the fitting worlds (or trails) put it here.
    pub trails: u128,
}

/// The receiver's whole view: protocol 1's `state`, protocol 2's `snapshot`.
#[derive(Debug, Serialize)]
pub struct Full<'a> {
    /// Counts accepted actions and new games in the room; never goes down.
    pub version: u64,
    /// The game's number in the room, from 1.
    pub game: u64,
    /// The receiver's view (R19–R21).
    pub view: &'a View,
    /// The receiving player's legal actions; `null` for spectators.
    pub legal: Option<&'a LegalActions>,
    /// Seats, presence, clock, rematch offers.
    pub room: &'a RoomStatus,
    /// The Marshal's notepad, solved (room option `notepad_assist`): her state only.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub notepad: Option<&'a Notepad>,
    /// What each face-down hideout can be by the public rules alone (`View::candidates`): the
    /// Marshal's and the spectators' states while the game runs, in every room.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub candidates: Option<&'a Candidates>,
}

/// A server message.
#[derive(Debug, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ServerMessage<'a> {
    /// The answer to `hello`, before the first `state`.
    Welcome {
        /// The seat's role in the current game; `null` for a spectator.
        role: Option<Role>,
        /// The room id.
        room: Uuid,
        /// The highest `seq` this seat has used (0 for none, and for spectators): continue above it.
        last_seq: u64,
    },
    /// A full snapshot of the receiver's view.
    State(Full<'a>),
    /// Protocol 2: a full snapshot of the receiver's view, the fields of protocol 1's `state`.
    Snapshot(Full<'a>),
    /// Protocol 2: what changed in the receiver's view since `base` (`frames.rs`).
    Delta(&'a frames::Delta<'a>),
    /// The answer to one client message.
    Reply(&'a Reply),
    /// Chat messages: the newest ones (`full`, replacing what the client shows) or one new one.
    Chat {
        /// Whether this is the whole history the receiver may read (possibly empty).
        full: bool,
        /// The messages, oldest first.
        messages: &'a [crate::model::table::ChatWire<'a>],
    },
}

#[derive(Serialize)]
struct Envelope<'a> {
    v: u64,
    #[serde(flatten)]
    message: &'a ServerMessage<'a>,
}

/// The text frame of a server message of protocol version 1.
pub fn encode(message: &ServerMessage<'_>) -> Utf8Bytes {
    encode_as(Protocol::V1, message)
}

/// The text frame of a server message of `protocol`.
pub fn encode_as(protocol: Protocol, message: &ServerMessage<'_>) -> Utf8Bytes {
    let envelope = Envelope { v: protocol.number(), message };
    // Room for a delta at once (a few hundred bytes), rather than growing from serde_json's 128.
    let mut text = Vec::with_capacity(512);
    serde_json::to_writer(&mut text, &envelope).expect("server messages serialize");
    Utf8Bytes::from(String::from_utf8(text).expect("serde_json writes UTF-8"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn code_of(text: &str) -> &'static str {
        parse(text).unwrap_err().code().unwrap()
    }

    #[test]
    fn reads_every_client_message() {
        let hello = parse(r#"{"v":1,"seq":1,"type":"hello","token":"abc"}"#).unwrap();
        assert_eq!(hello.request, Request::Hello { token: Some("abc".into()), name: None });
        let spectator = parse(r#"{"v":1,"seq":1,"type":"hello"}"#).unwrap();
        assert_eq!(spectator.request, Request::Hello { token: None, name: None });
        let named = parse(r#"{"v":1,"seq":1,"type":"hello","token":"t","name":" Zoë "}"#).unwrap();
        assert_eq!(named.request, Request::Hello { token: Some("t".into()), name: Some(Some("Zoë".into())) });
        let rename = parse(r#"{"v":1,"seq":4,"type":"name","name":""}"#).unwrap();
        assert_eq!(rename.request, Request::Table(TableRequest::Name(None)));
        let chat = parse(r#"{"v":1,"seq":5,"type":"chat","text":" gg "}"#).unwrap();
        assert_eq!(chat.request, Request::Table(TableRequest::Chat(ChatBody::Text("gg".into()))));
        let quick = parse(r#"{"v":1,"seq":6,"type":"chat","quick":"good_luck"}"#).unwrap();
        assert_eq!(quick.request, Request::Table(TableRequest::Chat(ChatBody::Quick(Quick::GoodLuck))));
        let allow = parse(r#"{"v":1,"seq":7,"type":"chat_spectators","allow":true}"#).unwrap();
        assert_eq!(allow.request, Request::Table(TableRequest::ChatSpectators(true)));
        let draw = parse(r#"{"v":1,"seq":2,"type":"action","action":{"type":"draw","deck":2}}"#).unwrap();
        assert_eq!(draw.seq, 2);
        assert!(matches!(draw.request, Request::Action(Action::Draw { .. })));
        assert_eq!(parse(r#"{"v":1,"seq":3,"type":"rematch"}"#).unwrap().request, Request::Rematch);
    }

    #[test]
    fn version_2_reads_the_same_messages_and_resync() {
        let v2 = |text| parse_as(Protocol::V2, text);
        let hello = v2(r#"{"v":2,"seq":1,"type":"hello","token":"abc"}"#).unwrap();
        assert_eq!(hello.request, Request::Hello { token: Some("abc".into()), name: None });
        assert_eq!(v2(r#"{"v":2,"seq":3,"type":"resync"}"#).unwrap().request, Request::Resync);
        assert_eq!(v2(r#"{"v":1,"seq":3,"type":"resync"}"#).unwrap_err().code(), Some(code::BAD_VERSION));
        // Version 1 does not know `resync`.
        assert_eq!(code_of(r#"{"v":1,"seq":3,"type":"resync"}"#), code::UNKNOWN_MESSAGE);
    }

    #[test]
    fn refuses_bad_messages_with_their_codes() {
        assert_eq!(code_of("{not json"), code::MALFORMED);
        assert_eq!(code_of("[1,2]"), code::MALFORMED);
        assert_eq!(code_of(r#"{"v":1,"type":"hello"}"#), code::MALFORMED);
        assert_eq!(code_of(r#"{"v":1,"seq":"1","type":"hello"}"#), code::MALFORMED);
        assert_eq!(code_of(r#"{"v":2,"seq":1,"type":"hello"}"#), code::BAD_VERSION);
        assert_eq!(code_of(r#"{"v":1,"seq":1,"type":"dance"}"#), code::UNKNOWN_MESSAGE);
        assert_eq!(code_of(r#"{"v":1,"seq":1,"type":"hello","token":7}"#), code::MALFORMED);
        assert_eq!(code_of(r#"{"v":1,"seq":1,"type":"action","action":{"type":"fly"}}"#), code::MALFORMED);
        assert_eq!(
            code_of(r#"{"v":1,"seq":1,"type":"action","action":{"type":"draw","deck":"2"}}"#),
            code::MALFORMED
        );
        assert_eq!(
            code_of(r#"{"v":1,"seq":1,"type":"action","action":{"type":"time_out"}}"#),
            code::MALFORMED
        );
        assert_eq!(parse(r#"{"v":1,"seq":9,"type":"dance"}"#).unwrap_err().seq, Some(9));
        assert_eq!(code_of(r#"{"v":1,"seq":1,"type":"hello","name":7}"#), code::MALFORMED);
        assert_eq!(code_of(r#"{"v":1,"seq":1,"type":"name"}"#), code::MALFORMED);
        assert_eq!(code_of(r#"{"v":1,"seq":1,"type":"hello","name":"a\nb"}"#), code::BAD_NAME);
        let long = format!(r#"{{"v":1,"seq":1,"type":"name","name":"{}"}}"#, "x".repeat(25));
        assert_eq!(code_of(&long), code::BAD_NAME);
        assert_eq!(code_of(r#"{"v":1,"seq":1,"type":"chat","text":"  "}"#), code::BAD_CHAT);
        assert_eq!(code_of(r#"{"v":1,"seq":1,"type":"chat","text":"a\u0007"}"#), code::BAD_CHAT);
        assert_eq!(code_of(r#"{"v":1,"seq":1,"type":"chat","quick":"I hold 17"}"#), code::MALFORMED);
        assert_eq!(
            code_of(r#"{"v":1,"seq":1,"type":"chat","text":"a","quick":"thinking"}"#),
            code::MALFORMED
        );
        assert_eq!(code_of(r#"{"v":1,"seq":1,"type":"chat_spectators","allow":"yes"}"#), code::MALFORMED);
    }

    #[test]
    fn replies_carry_v_and_type() {
        let text = encode(&ServerMessage::Reply(&Reply::error(Some(3), "too_far", "no")));
        let value: Value = serde_json::from_str(text.as_str()).unwrap();
        assert_eq!(value["v"], 1);
        assert_eq!(value["type"], "reply");
        assert_eq!(value["seq"], 3);
        assert_eq!(value["ok"], false);
        assert_eq!(value["error"]["code"], "too_far");
        let ok = encode(&ServerMessage::Reply(&Reply::ok(4)));
        assert_eq!(ok.as_str(), r#"{"v":1,"type":"reply","seq":4,"ok":true}"#);
    }

    #[test]
    fn a_refused_action_carries_its_typed_reason_beside_its_code() {
        let phase = fugitive_core::Phase::Guess;
        let wrong = ActionError::WrongPhase { reason: fugitive_core::PhaseReason::GuessNow, phase };
        let text = encode(&ServerMessage::Reply(&Reply::refused(Some(5), &wrong)));
        let want = r#"{"code":"wrong_phase","message":"now guess (R8)","reason":"guess_now"}"#;
        assert_eq!(text.as_str(), format!(r#"{{"v":1,"type":"reply","seq":5,"ok":false,"error":{want}}}"#));
        let choice = ActionError::BadChoice(fugitive_core::ChoiceReason::Stakeout);
        let reply = Reply::refused(Some(6), &choice);
        let error = reply.error.as_ref().unwrap();
        assert_eq!((error.code, error.reason), ("bad_choice", Some("stakeout")));
        assert_eq!(error.message, "name a range: deck 1, 2 or 3 (M3 Stakeout) (E3)");
        // A code that says it all has no reason.
        let text = encode(&ServerMessage::Reply(&Reply::refused(Some(7), &ActionError::EmptyGuess)));
        assert!(!text.as_str().contains("reason"), "{}", text.as_str());
    }

    #[test]
    fn an_action_read_straight_into_its_types_reads_as_through_the_envelope() {
        let texts = [
            r#"{"v":2,"seq":2,"type":"action","action":{"type":"draw","deck":2}}"#,
            r#" {"action":{"deck":1,"type":"draw"},"seq":9,"type":"action","v":2,"extra":[1]}"#,
            r#"{"v":2,"seq":2,"type":"action","action":{"type":"draw","deck":2},"seq":3}"#,
            r#"{"v":2,"seq":2,"type":"\u0061ction","action":{"type":"draw","deck":2}}"#,
            r#"[2,2,"action",{"type":"draw","deck":2}]"#,
            r#"{"v":1,"seq":2,"type":"action","action":{"type":"draw","deck":2}}"#,
            r#"{"v":2,"seq":-1,"type":"action","action":{"type":"draw","deck":2}}"#,
            r#"{"v":2,"seq":1.0,"type":"action","action":{"type":"draw","deck":2}}"#,
            r#"{"v":2,"seq":2,"type":"rematch","action":{"type":"draw","deck":2}}"#,
            r#"{"v":2,"seq":2,"type":"action","action":{"type":"time_out"}}"#,
            r#"{"v":2,"seq":2,"type":"action"}"#,
            r#"{"v":2,"seq":2,"type":"action","action":null}"#,
        ];
        let read = |result: Result<ClientMessage, Reply>| match result {
            Ok(message) => format!("{} {:?}", message.seq, message.request),
            Err(reply) => format!("{:?} {:?} {:?}", reply.seq, reply.code(), reply.error.map(|e| e.message)),
        };
        for text in texts {
            let typed = parse_action(Protocol::V2, text);
            if let Some(message) = &typed {
                assert!(matches!(message.request, Request::Action(_)), "{text}");
            }
            let general = read(parse_envelope(Protocol::V2, text));
            assert_eq!(read(parse_as(Protocol::V2, text)), general, "{text}");
            if let Some(message) = typed {
                assert_eq!(read(Ok(message)), general, "{text}");
            }
        }
        // The common action is read the typed way, the odd ones the general way.
        assert!(parse_action(Protocol::V2, texts[0]).is_some());
        assert!(parse_action(Protocol::V2, texts[1]).is_some());
        assert!(texts[2..].iter().all(|text| parse_action(Protocol::V2, text).is_none()));
    }

    #[test]
    fn a_client_may_not_send_the_clocks_time_out() {
        let refused = parse(r#"{"v":1,"seq":1,"type":"action","action":{"type":"time_out"}}"#).unwrap_err();
        let error = refused.error.unwrap();
        assert_eq!(
            (error.code, error.message.as_str()),
            (code::MALFORMED, "time_out is the server clock's action")
        );
    }
}
