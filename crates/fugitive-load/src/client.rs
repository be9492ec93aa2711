//! The client side of protocol v1 (`docs/protocol.md`): rooms over HTTP, and one WebSocket per
//! player or spectator.

use std::net::SocketAddr;
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

/// Creates a room whose creator plays the Fugitive first; returns its id and the invitation.
async fn create_room(http: &reqwest::Client, addr: SocketAddr) -> anyhow::Result<(Created, String)> {
    let created: Created = http
        .post(format!("http://{addr}/api/rooms"))
        .json(&json!({"role": "fugitive"}))
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
    Ok(create_room(http, addr).await?.0.room)
}

/// Creates a room and claims its second seat.
///
/// # Errors
/// When the server refuses or does not answer.
pub async fn table(http: &reqwest::Client, addr: SocketAddr) -> anyhow::Result<Table> {
    let (created, invite) = create_room(http, addr).await?;
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

/// What the server sends; fields the load client does not need are skipped.
enum ServerMessage {
    Welcome {},
    Reply { seq: Option<u64>, ok: bool, error: Option<serde_json::Value> },
    State { version: u64, game: u64, view: View, legal: Option<LegalActions> },
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
    game: Option<u64>,
    view: Option<View>,
    legal: Option<LegalActions>,
}

#[derive(Deserialize)]
#[serde(rename_all = "snake_case")]
enum Kind {
    Welcome,
    Reply,
    State,
}

impl Frame {
    fn message(self) -> Option<ServerMessage> {
        Some(match self.kind {
            Kind::Welcome => ServerMessage::Welcome {},
            Kind::Reply => ServerMessage::Reply { seq: self.seq, ok: self.ok?, error: self.error },
            Kind::State => ServerMessage::State {
                version: self.version?,
                game: self.game?,
                view: self.view?,
                legal: self.legal,
            },
        })
    }
}

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
        let url = format!("ws://{addr}/ws/v1/rooms/{room}");
        // Nagle off on the client's side, so any delay measured is the server's.
        let connect = tokio_tungstenite::connect_async_with_config(url, None, true);
        let (ws, _) =
            tokio::time::timeout(ANSWER_TIMEOUT, connect).await.context("no WebSocket upgrade in time")??;
        let state = State { version: 0, game: 0, over: false, legal: None };
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
        message["v"] = json!(1);
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
            let message = serde_json::from_str::<Frame>(&text)
                .ok()
                .and_then(Frame::message)
                .with_context(|| format!("unexpected message {text}"))?;
            if let ServerMessage::State { version, game, view, legal } = &message {
                if *version >= self.state.version {
                    self.state.version = *version;
                    self.state.game = *game;
                    self.state.over = view.outcome.is_some();
                    self.state.legal = legal.clone();
                }
            }
            return Ok(message);
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
                    if !matches!(frame, Some(Ok(_))) {
                        return false;
                    }
                }
            }
        }
    }
}
