//! The client side of the protocol (`docs/protocol.md`, `docs/protocol-v2.md`): rooms over
//! HTTP, and one WebSocket per player or spectator, speaking version 2 (a snapshot, then deltas)
//! or, with `--protocol 1`, version 1 (a whole state per change).

use std::net::SocketAddr;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use anyhow::{Context, bail};
use fugitive_core::{Action, LegalActions};
use futures_util::{SinkExt, StreamExt};
use serde::Deserialize;
use serde::de::IgnoredAny;
use serde_json::json;
use tokio::net::TcpStream;
use tokio::sync::watch;
use tokio::time::Instant;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::{MaybeTlsStream, WebSocketStream};

/// How long any one answer of the server may take before the run gives up.
pub const ANSWER_TIMEOUT: Duration = Duration::from_secs(20);

type Ws = WebSocketStream<MaybeTlsStream<TcpStream>>;

/// The protocol version every socket of this run speaks (`--protocol`).
static PROTOCOL: AtomicU64 = AtomicU64::new(2);

/// Text frames every socket of this process has received, and their bytes (`--mode ceiling`
/// compares what the real server and the fan-out ceiling send per action).
static RECEIVED_FRAMES: AtomicU64 = AtomicU64::new(0);
static RECEIVED_BYTES: AtomicU64 = AtomicU64::new(0);

/// The text frames received so far by every socket of this process, and their bytes.
pub fn received() -> (u64, u64) {
    (RECEIVED_FRAMES.load(Ordering::Relaxed), RECEIVED_BYTES.load(Ordering::Relaxed))
}

fn count_received(text: &str) {
    RECEIVED_FRAMES.fetch_add(1, Ordering::Relaxed);
    RECEIVED_BYTES.fetch_add(text.len() as u64, Ordering::Relaxed);
}

/// Makes every socket opened from now on speak protocol `version` (1 or 2).
pub fn speak(version: u64) {
    PROTOCOL.store(version, Ordering::Relaxed);
}

/// A room with both seats claimed: the creator's token (the Fugitive of game 1) and the
/// guest's.
pub struct Table {
    /// The room id.
    pub room: String,
    /// The seat tokens, creator's first.
    pub tokens: [String; 2],
}

#[derive(Deserialize)]
struct Created {
    room: String,
    token: String,
    links: Links,
}

#[derive(Deserialize)]
struct Links {
    invite: String,
}

#[derive(Deserialize)]
struct Claimed {
    token: String,
}

/// Creates a room whose creator plays the Fugitive first, with a turn clock of `clock_secs` if
/// given; returns its id and the invitation.
async fn create_room(
    http: &reqwest::Client,
    addr: SocketAddr,
    clock_secs: Option<u32>,
) -> anyhow::Result<(Created, String)> {
    let created: Created = http
        .post(format!("http://{addr}/api/rooms"))
        .json(&json!({"role": "fugitive", "turn_clock_secs": clock_secs}))
        .send()
        .await?
        .error_for_status()?
        .json()
        .await?;
    let invite = created.links.invite.split_once("#invite=").context("no invitation in links.invite")?.1;
    let invite = invite.to_string();
    Ok((created, invite))
}

/// Creates a room against the computer (the creator plays the Fugitive); returns its id and
/// the creator's token.
///
/// # Errors
/// When the server refuses or does not answer.
pub async fn bot_room(http: &reqwest::Client, addr: SocketAddr) -> anyhow::Result<(String, String)> {
    let created: serde_json::Value = http
        .post(format!("http://{addr}/api/rooms"))
        .json(&json!({"role": "fugitive", "opponent": {"bot": "easy"}}))
        .send()
        .await?
        .error_for_status()?
        .json()
        .await?;
    let room = created["room"].as_str().context("no room")?.to_string();
    let token = created["token"].as_str().context("no token")?.to_string();
    Ok((room, token))
}

/// Creates a room nobody is seated in (for spectators).
///
/// # Errors
/// When the server refuses or does not answer.
pub async fn empty_room(http: &reqwest::Client, addr: SocketAddr) -> anyhow::Result<String> {
    Ok(create_room(http, addr, None).await?.0.room)
}

/// Creates a room and claims its second seat.
///
/// # Errors
/// When the server refuses or does not answer.
pub async fn table(http: &reqwest::Client, addr: SocketAddr) -> anyhow::Result<Table> {
    clock_table(http, addr, None).await
}

/// Creates a room with a turn clock of `clock_secs` (if given) and claims its second seat: the
/// clock runs from then on.
///
/// # Errors
/// When the server refuses or does not answer.
pub async fn clock_table(
    http: &reqwest::Client,
    addr: SocketAddr,
    clock_secs: Option<u32>,
) -> anyhow::Result<Table> {
    let (created, invite) = create_room(http, addr, clock_secs).await?;
    let claimed: Claimed = http
        .post(format!("http://{addr}/api/rooms/{}/claim", created.room))
        .json(&json!({"invite": invite}))
        .send()
        .await?
        .error_for_status()?
        .json()
        .await?;
    Ok(Table { room: created.room, tokens: [created.token, claimed.token] })
}

/// What the server sends; fields the load client does not need are skipped. `State` is a
/// version-1 `state`, a version-2 `snapshot` or a `delta` (already applied to the held state).
enum ServerMessage {
    Welcome {},
    Reply { seq: Option<u64>, ok: bool, error: Option<serde_json::Value> },
    State { version: u64 },
}

/// Every field of every server message the load client reads, flat. Read straight into this
/// struct, serde skips the rest as it goes; an internally tagged enum would first copy each
/// whole `state` into a tree of `Content` (a quarter of the client's CPU, by `perf`), and the
/// client shares the machine's CPUs with the server it measures.
#[derive(Deserialize)]
struct Frame {
    #[serde(rename = "type")]
    kind: Kind,
    seq: Option<u64>,
    ok: Option<bool>,
    error: Option<serde_json::Value>,
    version: Option<u64>,
    base: Option<u64>,
    game: Option<u64>,
    view: Option<View>,
    /// As sent: a delta's placements may leave out `from` (docs/protocol-v2.md).
    legal: Option<serde_json::Value>,
    /// A state's room status (a delta's: the fields that changed); a `welcome`'s room id.
    room: Option<serde_json::Value>,
}

#[derive(Deserialize)]
#[serde(rename_all = "snake_case")]
enum Kind {
    Welcome,
    Reply,
    State,
    Snapshot,
    Delta,
}

/// The view's fields the load client reads (a delta's `view` holds those that changed).
#[derive(Deserialize)]
struct View {
    outcome: Option<IgnoredAny>,
}

/// The latest `state` a socket received.
pub struct State {
    /// The room's version.
    pub version: u64,
    /// The game's number in the room.
    pub game: u64,
    /// Whether the game is over.
    pub over: bool,
    /// The receiver's legal actions (`None` for a spectator).
    pub legal: Option<LegalActions>,
    /// When the turn clock runs out, as of the latest frame that showed it running.
    pub deadline: Option<Instant>,
}

impl State {
    /// Takes in a `state`, `snapshot` or `delta` frame; returns its version, or `None` for an
    /// older whole state (a delta must fit: the server never skips one on a socket that reads).
    fn take(&mut self, frame: Frame) -> anyhow::Result<Option<u64>> {
        let version = frame.version.context("a state frame without version")?;
        let game = frame.game.context("a state frame without game")?;
        let whole = !matches!(frame.kind, Kind::Delta);
        if whole && version < self.version {
            return Ok(None);
        }
        if !whole && (frame.base != Some(self.version) || game != self.game) {
            bail!(
                "a delta for version {:?} of game {game}, holding {} of {}",
                frame.base,
                self.version,
                self.game
            );
        }
        if let Some(view) = frame.view {
            self.over = if whole { view.outcome.is_some() } else { self.over || view.outcome.is_some() };
        } else if whole {
            bail!("a whole state without view");
        }
        if let Some(remaining) = frame.room.as_ref().and_then(|room| room["clock"]["remaining_ms"].as_u64()) {
            self.deadline = Some(Instant::now() + Duration::from_millis(remaining));
        }
        if whole || frame.legal.is_some() {
            self.legal = match frame.legal {
                Some(legal) if !legal.is_null() => Some(serde_json::from_value(legal)?),
                _ => None,
            };
        }
        self.version = version;
        self.game = game;
        Ok(Some(version))
    }
}

/// One joined WebSocket: a seated player or a spectator.
pub struct Player {
    ws: Ws,
    seq: u64,
    /// The latest state received.
    pub state: State,
}

impl Player {
    /// Opens a socket on `room`, says `hello` (with `token`, or as a spectator), and reads the
    /// `welcome`, the first `state` and the `reply`.
    ///
    /// # Errors
    /// When the socket cannot be opened, the server refuses the `hello`, or is too slow.
    pub async fn join(addr: SocketAddr, room: &str, token: Option<&str>) -> anyhow::Result<Player> {
        let url = format!("ws://{addr}/ws/v{}/rooms/{room}", PROTOCOL.load(Ordering::Relaxed));
        // Nagle off on the client's side, so any delay measured is the server's.
        let connect = tokio_tungstenite::connect_async_with_config(url, None, true);
        let (ws, _) =
            tokio::time::timeout(ANSWER_TIMEOUT, connect).await.context("no WebSocket upgrade in time")??;
        let state = State { version: 0, game: 0, over: false, legal: None, deadline: None };
        let mut player = Player { ws, seq: 0, state };
        let seq = player.send(json!({"type": "hello", "token": token})).await?;
        let (mut replied, mut welcomed, mut stated) = (false, false, false);
        while !(replied && welcomed && stated) {
            match player.receive().await? {
                ServerMessage::Welcome {} => welcomed = true,
                ServerMessage::State { .. } => stated = true,
                ServerMessage::Reply { seq: Some(s), ok: true, .. } if s == seq => replied = true,
                ServerMessage::Reply { error, .. } => bail!("hello refused: {error:?}"),
            }
        }
        Ok(player)
    }

    /// Sends one client message with the next `seq`; returns that `seq`.
    async fn send(&mut self, mut message: serde_json::Value) -> anyhow::Result<u64> {
        self.seq += 1;
        message["v"] = json!(PROTOCOL.load(Ordering::Relaxed));
        message["seq"] = json!(self.seq);
        self.ws.send(Message::text(message.to_string())).await?;
        Ok(self.seq)
    }

    /// Reads the next server message, keeping the latest `state`.
    async fn receive(&mut self) -> anyhow::Result<ServerMessage> {
        loop {
            let frame = tokio::time::timeout(ANSWER_TIMEOUT, self.ws.next())
                .await
                .context("the server sent nothing in time")?
                .context("the server closed the socket")??;
            let text = match frame {
                Message::Text(text) => text,
                Message::Close(frame) => bail!("the server closed the socket: {frame:?}"),
                _ => continue,
            };
            count_received(text.as_str());
            let frame =
                serde_json::from_str::<Frame>(&text).with_context(|| format!("unexpected message {text}"))?;
            return Ok(match frame.kind {
                Kind::Welcome => ServerMessage::Welcome {},
                Kind::Reply => ServerMessage::Reply {
                    seq: frame.seq,
                    ok: frame.ok.with_context(|| format!("a reply without ok: {text}"))?,
                    error: frame.error,
                },
                Kind::State | Kind::Snapshot | Kind::Delta => match self.state.take(frame)? {
                    Some(version) => ServerMessage::State { version },
                    None => continue,
                },
            });
        }
    }

    /// Sends `action`; returns its `seq`.
    ///
    /// # Errors
    /// When the socket fails.
    pub async fn act(&mut self, action: Action) -> anyhow::Result<u64> {
        self.send(json!({"type": "action", "action": action})).await
    }

    /// Sends `rematch`; returns its `seq`.
    ///
    /// # Errors
    /// When the socket fails.
    pub async fn offer_rematch(&mut self) -> anyhow::Result<u64> {
        self.send(json!({"type": "rematch"})).await
    }

    /// Reads until the reply to `seq` (which must be `ok`) and a `state` above version `after`
    /// have both arrived; returns when the state came and when the later of the two came.
    ///
    /// # Errors
    /// When the reply is an error, or the server fails or is too slow.
    pub async fn own_answer(&mut self, seq: u64, after: u64) -> anyhow::Result<(Instant, Instant)> {
        let (mut replied, mut stated) = (false, None);
        while !replied || stated.is_none() {
            match self.receive().await? {
                ServerMessage::Reply { seq: Some(s), ok: true, .. } if s == seq => replied = true,
                ServerMessage::Reply { seq, error, .. } => bail!("message {seq:?} refused: {error:?}"),
                ServerMessage::State { version, .. } if version > after => {
                    stated.get_or_insert_with(Instant::now);
                }
                ServerMessage::State { .. } => {}
                ServerMessage::Welcome {} => bail!("a second welcome"),
            }
        }
        Ok((stated.unwrap_or_else(Instant::now), Instant::now()))
    }

    /// Reads until the reply to `seq`, which must be `ok`.
    ///
    /// # Errors
    /// When the reply is an error, or the server fails or is too slow.
    pub async fn reply(&mut self, seq: u64) -> anyhow::Result<()> {
        loop {
            match self.receive().await? {
                ServerMessage::Reply { seq: Some(s), ok: true, .. } if s == seq => return Ok(()),
                ServerMessage::Reply { seq, error, .. } => bail!("message {seq:?} refused: {error:?}"),
                ServerMessage::State { .. } => {}
                ServerMessage::Welcome {} => bail!("a second welcome"),
            }
        }
    }

    /// Reads until a `state` that satisfies `done`; returns when it came.
    ///
    /// # Errors
    /// When the server fails or is too slow.
    pub async fn state_until(&mut self, done: impl Fn(&State) -> bool) -> anyhow::Result<Instant> {
        while !done(&self.state) {
            if let ServerMessage::Reply { ok: false, seq, error } = self.receive().await? {
                bail!("message {seq:?} refused: {error:?}");
            }
        }
        Ok(Instant::now())
    }

    /// Keeps the socket open, reading (and so answering the server's pings) until `stop` turns
    /// true, then closes it. Returns whether the socket was still open at the end.
    pub async fn hold(mut self, mut stop: watch::Receiver<bool>) -> bool {
        // The guard `wait_for` returns is not `Send`: drop it before the close is awaited.
        let stopped = async move {
            let _ = stop.wait_for(|stop| *stop).await;
        };
        tokio::pin!(stopped);
        loop {
            tokio::select! {
                () = &mut stopped => {
                    let _ = self.ws.close(None).await;
                    return true;
                }
                frame = self.ws.next() => {
                    match frame {
                        Some(Ok(Message::Text(text))) => count_received(text.as_str()),
                        Some(Ok(_)) => {}
                        _ => return false,
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use fugitive_core::{Card, Cards, SprintOptions};

    use super::*;

    fn frame(json: serde_json::Value) -> Frame {
        serde_json::from_value(json).expect("a frame")
    }

    fn held() -> State {
        State { version: 0, game: 0, over: false, legal: None, deadline: None }
    }

    const LEGAL: &str = r#"{"draws":[],"placements":[{"hideout":9,"sprints":{"kind":"at_least","value":0,"from":[4,12]}},
        {"hideout":12,"sprints":{"kind":"at_least","value":2,"from":[]}}],"pass":true,"end_turn":false,
        "guess":null,"resign":true,"time_out":true}"#;

    #[test]
    fn a_delta_applies_to_its_snapshot() {
        let mut state = held();
        let snapshot = json!({"type": "snapshot", "version": 3, "game": 1, "legal": null,
            "view": {"outcome": null, "hands": {"fugitive": {"size": 3, "cards": [4, 9, 42]}}},
            "room": {"clock": {"remaining_ms": 60_000}}});
        assert_eq!(state.take(frame(snapshot)).unwrap(), Some(3));
        assert!(state.legal.is_none() && state.deadline.is_some());
        let legal: serde_json::Value = serde_json::from_str(LEGAL).unwrap();
        let delta = json!({"type": "delta", "version": 4, "base": 3, "game": 1, "legal": legal,
            "view": {"hands": {"fugitive": {"size": 4, "cards": [4, 9, 12, 42]}}}});
        assert_eq!(state.take(frame(delta)).unwrap(), Some(4));
        let placements = &state.legal.as_ref().expect("legal").placements;
        let from = |i: usize| match &placements[i].sprints {
            SprintOptions::AtLeast { from, .. } => *from,
            SprintOptions::OneOf { .. } => panic!("at_least"),
        };
        assert_eq!(from(0), Cards::from_iter([Card::new(4).unwrap(), Card::new(12).unwrap()]));
        assert_eq!(from(1), Cards::EMPTY);
        // A room-only change keeps the legal actions; the end of the game is seen.
        let ended = json!({"type": "delta", "version": 5, "base": 4, "game": 1, "view": {"outcome": {}}});
        assert_eq!(state.take(frame(ended)).unwrap(), Some(5));
        assert!(state.over && state.legal.is_some());
    }

    #[test]
    fn a_welcome_and_a_reply_are_read() {
        let welcome = r#"{"v":2,"type":"welcome","role":"fugitive","room":"7a36dcea-b0aa","last_seq":0}"#;
        assert!(matches!(serde_json::from_str::<Frame>(welcome).unwrap().kind, Kind::Welcome));
        let reply = r#"{"v":2,"type":"reply","seq":1,"ok":true}"#;
        assert_eq!(serde_json::from_str::<Frame>(reply).unwrap().ok, Some(true));
    }

    #[test]
    fn a_delta_that_does_not_fit_is_an_error_and_an_older_state_is_skipped() {
        let mut state = held();
        let snapshot =
            json!({"type": "state", "version": 7, "game": 2, "legal": null, "view": {"outcome": null}});
        assert_eq!(state.take(frame(snapshot.clone())).unwrap(), Some(7));
        let gap = json!({"type": "delta", "version": 9, "base": 8, "game": 2});
        assert!(state.take(frame(gap)).is_err());
        let older =
            json!({"type": "state", "version": 6, "game": 2, "legal": null, "view": {"outcome": null}});
        assert_eq!(state.take(frame(older)).unwrap(), None);
        assert_eq!(state.version, 7);
    }
}
