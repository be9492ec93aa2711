//! The fan-out ceiling of `--mode ceiling`: a bare WebSocket server (a child process, as the
//! echo is) that speaks just enough of protocol 2 for the load client to play against it exactly
//! as it plays against `fugitive-server`, and does nothing else: no rules, no database, no views.
//!
//! It answers the client's HTTP calls (a room, its second seat) and, per room, keeps a version
//! and whose turn it is. For each `action` a seated player sends it does what the real server
//! does on the wire for an accepted action of protocol 2: a `delta` to every socket of the room
//! (both players and the spectators) and the `reply` to the actor, five frames with
//! 2 + 2 spectators; the deltas are fixed text of the shapes and about the sizes the real
//! server sends (measured from a real run: a player's delta about 480 bytes on average, a
//! spectator's about 360, a reply 43), and the turn passes to the other player, whose delta
//! holds a `legal` with a move. Games never end (no rematch frames: the real server's rematch
//! every ~60 actions costs it a few more). Whatever a real server does on top of this costs
//! more CPU, so the actions/s the client reaches here is the most any server could serve it on
//! the same machine.

use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

use anyhow::Context;
use axum::Router;
use axum::extract::ws::{Message, Utf8Bytes, WebSocket, WebSocketUpgrade};
use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::serve::ListenerExt;
use futures_util::{SinkExt, StreamExt};
use serde::Deserialize;
use serde_json::json;
use tokio::sync::mpsc;

/// The rooms, and the figures `/metrics` shows.
#[derive(Default)]
struct Shared {
    rooms: Mutex<HashMap<String, Arc<Room>>>,
    next_room: AtomicU64,
    sockets: AtomicU64,
    /// One `write` per frame instead of one per batch of waiting frames.
    write_each: bool,
}

/// One room: its version, whose turn it is, and every joined socket's queue of frames.
#[derive(Default)]
struct Room {
    inner: Mutex<Inner>,
}

#[derive(Default)]
struct Inner {
    version: u64,
    /// The seat to move: 0 (the creator, the Fugitive) or 1.
    to_move: usize,
    sockets: Vec<(Seat, mpsc::UnboundedSender<Utf8Bytes>)>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Seat {
    Player(usize),
    Spectator,
}

/// What the server reads of a client message: its kind, `seq`, and a `hello`'s token. The rest
/// (the action) is skipped over by serde.
#[derive(Deserialize)]
struct Envelope {
    #[serde(rename = "type")]
    kind: Kind,
    seq: u64,
    token: Option<String>,
}

#[derive(Deserialize)]
#[serde(rename_all = "snake_case")]
enum Kind {
    Hello,
    Action,
    #[serde(other)]
    Other,
}

/// Serves the fan-out ceiling on `addr` for ever. `TCP_NODELAY` as the game server has it.
/// Each socket writes every frame waiting in its queue at once (the actor's delta and reply in
/// one `write`), or with `write_each` one `write` per frame, as `fugitive-server` does
/// (`write_buffer_size(0)`).
///
/// # Errors
/// When `addr` cannot be bound.
pub async fn serve(addr: SocketAddr, write_each: bool) -> anyhow::Result<()> {
    rlimit::increase_nofile_limit(u64::MAX).context("cannot raise the open-files limit")?;
    let app = Router::new()
        .route("/healthz", get(|| async { "ok" }))
        .route("/metrics", get(metrics))
        .route("/api/rooms", post(create_room))
        .route("/api/rooms/{room}/claim", post(claim))
        .route("/ws/v2/rooms/{room}", get(upgrade))
        .with_state(Arc::new(Shared { write_each, ..Shared::default() }));
    let listener = tokio::net::TcpListener::bind(addr).await?.tap_io(|tcp| {
        let _ = tcp.set_nodelay(true);
    });
    axum::serve(listener, app).await?;
    Ok(())
}

/// The two figures the load client reads of a server's `/metrics`: no database, no commits.
async fn metrics(State(shared): State<Arc<Shared>>) -> String {
    format!("fugitive_sockets {}\nfugitive_commit_batches_total 0\n", shared.sockets.load(Ordering::Relaxed))
}

async fn create_room(State(shared): State<Arc<Shared>>) -> axum::Json<serde_json::Value> {
    let id = format!("c{}", shared.next_room.fetch_add(1, Ordering::Relaxed));
    shared.rooms.lock().unwrap_or_else(PoisonError::into_inner).insert(id.clone(), Arc::default());
    axum::Json(
        json!({"room": id, "token": format!("{id}.0"), "links": {"invite": format!("/rooms/{id}#invite={id}")}}),
    )
}

async fn claim(Path(room): Path<String>) -> axum::Json<serde_json::Value> {
    axum::Json(json!({"token": format!("{room}.1")}))
}

async fn upgrade(
    State(shared): State<Arc<Shared>>,
    Path(room): Path<String>,
    ws: WebSocketUpgrade,
) -> Response {
    let found = shared.rooms.lock().unwrap_or_else(PoisonError::into_inner).get(&room).cloned();
    match found {
        Some(found) => ws.on_upgrade(move |socket| connected(shared, room, found, socket)),
        None => StatusCode::NOT_FOUND.into_response(),
    }
}

/// One socket: a writer task sends what its queue gets, this task reads and answers.
async fn connected(shared: Arc<Shared>, id: String, room: Arc<Room>, socket: WebSocket) {
    shared.sockets.fetch_add(1, Ordering::Relaxed);
    let (mut sink, mut stream) = socket.split();
    let (tx, mut rx) = mpsc::unbounded_channel::<Utf8Bytes>();
    let write_each = shared.write_each;
    let writer = tokio::spawn(async move {
        while let Some(frame) = rx.recv().await {
            if write_each {
                if sink.send(Message::Text(frame)).await.is_err() {
                    return;
                }
                continue;
            }
            if sink.feed(Message::Text(frame)).await.is_err() {
                return;
            }
            while let Ok(frame) = rx.try_recv() {
                if sink.feed(Message::Text(frame)).await.is_err() {
                    return;
                }
            }
            if sink.flush().await.is_err() {
                return;
            }
        }
    });
    let mut seat = None;
    while let Some(Ok(message)) = stream.next().await {
        let Message::Text(text) = message else { continue };
        let Ok(envelope) = serde_json::from_str::<Envelope>(text.as_str()) else { continue };
        match envelope.kind {
            Kind::Hello => {
                let joined = match envelope.token.as_deref().and_then(|t| t.rsplit_once('.')) {
                    Some((_, "0")) => Seat::Player(0),
                    Some((_, "1")) => Seat::Player(1),
                    _ => Seat::Spectator,
                };
                seat = Some(joined);
                room.join(&id, joined, envelope.seq, &tx);
            }
            Kind::Action => match seat {
                Some(Seat::Player(player)) => room.act(player, envelope.seq, &tx),
                _ => drop(tx.send(reply(envelope.seq))),
            },
            Kind::Other => drop(tx.send(reply(envelope.seq))),
        }
    }
    room.inner.lock().unwrap_or_else(PoisonError::into_inner).sockets.retain(|(_, s)| !s.same_channel(&tx));
    drop(tx);
    let _ = writer.await;
    shared.sockets.fetch_sub(1, Ordering::Relaxed);
}

impl Room {
    /// A `hello`: `welcome`, a `snapshot` (with a move in `legal` for the seat to move), `reply`.
    fn join(&self, id: &str, seat: Seat, seq: u64, tx: &mpsc::UnboundedSender<Utf8Bytes>) {
        let mut inner = self.inner.lock().unwrap_or_else(PoisonError::into_inner);
        inner.sockets.push((seat, tx.clone()));
        let role = match seat {
            Seat::Player(0) => "fugitive",
            Seat::Player(_) => "marshal",
            Seat::Spectator => "spectator",
        };
        let legal = match seat {
            Seat::Player(player) if player == inner.to_move => MOVE_LEGAL[player],
            Seat::Player(_) => NO_MOVE_LEGAL,
            Seat::Spectator => "null",
        };
        let welcome = format!(r#"{{"v":2,"type":"welcome","role":"{role}","room":"{id}","last_seq":0}}"#);
        let snapshot = format!(
            r#"{{"v":2,"type":"snapshot","version":{},"game":1,"view":{{"outcome":null,"hands":{{"fugitive":{{"cards":{},"size":6}}}}}},"legal":{legal},"room":{{"spectators":2}}}}"#,
            inner.version,
            if seat == Seat::Player(0) { "[4,9,12,30,31,42]" } else { "null" },
        );
        let _ = tx.send(welcome.into());
        let _ = tx.send(snapshot.into());
        let _ = tx.send(reply(seq));
    }

    /// An action of `player`: the next version, its deltas to every socket, the actor's reply.
    fn act(&self, player: usize, seq: u64, tx: &mpsc::UnboundedSender<Utf8Bytes>) {
        let mut inner = self.inner.lock().unwrap_or_else(PoisonError::into_inner);
        let base = inner.version;
        inner.version += 1;
        inner.to_move = 1 - player;
        let frames = deltas(player, base, inner.version);
        for (seat, socket) in &inner.sockets {
            let frame = match seat {
                Seat::Player(p) => &frames[*p],
                Seat::Spectator => &frames[2],
            };
            let _ = socket.send(frame.clone());
        }
        drop(inner);
        let _ = tx.send(reply(seq));
    }
}

fn reply(seq: u64) -> Utf8Bytes {
    format!(r#"{{"v":2,"type":"reply","seq":{seq},"ok":true}}"#).into()
}

/// The Fugitive's legal actions when he moves: places (no sprint card needed, so a random pick
/// always has one) or passes; each placement with its `from`, as the real server sends it.
const FUGITIVE_MOVES: &str = r#"{"blocked":[{"hideout":42,"why":{"kind":"too_far","need":5}}],"draws":[],"end_turn":false,"guess":null,"pass":true,"placements":[{"hideout":30,"sprints":{"kind":"at_least","value":0,"from":[4,9,31]}},{"hideout":31,"sprints":{"kind":"at_least","value":0,"from":[4,9,30]}}],"resign":true,"time_out":true}"#;
/// The Marshal's when she moves: she draws.
const MARSHAL_MOVES: &str = r#"{"draws":[1,2,3],"end_turn":false,"guess":null,"pass":false,"placements":[],"resign":true,"time_out":true}"#;
/// Each seat's legal actions when it is to move.
const MOVE_LEGAL: [&str; 2] = [FUGITIVE_MOVES, MARSHAL_MOVES];
/// A player's when the other one is to move: only resigning.
const NO_MOVE_LEGAL: &str = r#"{"draws":[],"end_turn":false,"guess":null,"pass":false,"placements":[],"resign":true,"time_out":false}"#;

/// After the Fugitive moved: what the Fugitive, the Marshal and a spectator see (a placed
/// hideout, the hands or the trail, the phase; the Marshal's public candidates). A spectator's
/// delta carries its candidates too when they change, but with two kinds of delta here (a real
/// round has five, the candidates in about two) its mean matches the real one without them.
const AFTER_FUGITIVE: [&str; 3] = [
    r#""history":[{"type":"placed","position":7,"hideout":30,"sprint_count":1,"sprints":[12]}],"view":{"hands":{"fugitive":{"cards":[4,9,31,42],"size":4},"marshal":{"cards":null,"size":9}},"phase":{"left":1,"phase":"draw","role":"marshal"},"to_move":"marshal"}"#,
    r#""history":[{"type":"placed","position":7,"hideout":null,"sprint_count":1,"sprints":null}],"view":{"hands":{"fugitive":{"cards":null,"size":4},"marshal":{"cards":[5,8,13,21,24,26,33,36,39],"size":9}},"phase":{"left":1,"phase":"draw","role":"marshal"},"to_move":"marshal"},"candidates":{"positions":[{"position":6,"numbers":[23,25,27]},{"position":7,"numbers":[25,27,29,31,32]}],"ruled_out":{"revealed":[3,7,11,14,22],"sprint":[4,9],"held":[5,8,13,21,24,26,33,36,39],"guessed":[],"trail":[]},"doubtful":[]}"#,
    r#""history":[{"type":"placed","position":7,"hideout":null,"sprint_count":1,"sprints":null}],"trail":{"length":8,"cards":[[7,{"card":null,"face_up":false,"sprint_count":1,"sprints":null}]]},"view":{"phase":{"left":1,"phase":"draw","role":"marshal"},"to_move":"marshal"}"#,
];
/// After the Marshal moved: what each sees (a drawn card, the hands or the decks, the phase).
const AFTER_MARSHAL: [&str; 3] = [
    r#""history":[{"type":"drew","role":"marshal","deck":2,"card":null}],"view":{"hands":{"fugitive":{"cards":[4,9,30,31,42],"size":5},"marshal":{"cards":null,"size":10}},"phase":{"phase":"place_or_pass"},"to_move":"fugitive"}"#,
    r#""history":[{"type":"drew","role":"marshal","deck":2,"card":20}],"view":{"hands":{"fugitive":{"cards":null,"size":5},"marshal":{"cards":[5,8,13,20,21,24,26,33,36,39],"size":10}},"phase":{"phase":"place_or_pass"},"to_move":"fugitive"}"#,
    r#""history":[{"type":"drew","role":"marshal","deck":2,"card":null}],"view":{"decks":[{"cards":null,"deck":1,"high":14,"low":4,"size":0},{"cards":null,"deck":2,"high":28,"low":15,"size":3},{"cards":null,"deck":3,"high":41,"low":29,"size":6}],"phase":{"phase":"place_or_pass"},"to_move":"fugitive"}"#,
];

/// The three deltas after `player` moved from version `base` to `version`: the Fugitive's, the
/// Marshal's (each with its `legal`: the other seat now has the move) and the spectators' (one
/// frame shared by all, as the real server shares one per viewer).
fn deltas(player: usize, base: u64, version: u64) -> [Utf8Bytes; 3] {
    let bodies = if player == 0 { &AFTER_FUGITIVE } else { &AFTER_MARSHAL };
    let next = 1 - player;
    let legal = |seat: usize| if seat == next { MOVE_LEGAL[seat] } else { NO_MOVE_LEGAL };
    let head = format!(r#"{{"v":2,"type":"delta","version":{version},"base":{base},"game":1,"#);
    [
        format!(r#"{head}{},"legal":{}}}"#, bodies[0], legal(0)).into(),
        format!(r#"{head}{},"legal":{}}}"#, bodies[1], legal(1)).into(),
        format!("{head}{}}}", bodies[2]).into(),
    ]
}

#[cfg(test)]
mod tests {
    use rand::SeedableRng;
    use rand::rngs::StdRng;

    use super::*;
    use crate::client::{self, Player};
    use crate::play;

    #[tokio::test]
    async fn the_load_client_plays_against_it_as_against_the_server() {
        let addr = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap();
        tokio::spawn(serve(addr, false));
        for _ in 0..100 {
            if tokio::net::TcpStream::connect(addr).await.is_ok() {
                break;
            }
            tokio::time::sleep(std::time::Duration::from_millis(20)).await;
        }
        let http = reqwest::Client::new();
        let table = client::table(&http, addr).await.unwrap();
        let mut players = [
            Player::join(addr, &table.room, Some(&table.tokens[0])).await.unwrap(),
            Player::join(addr, &table.room, Some(&table.tokens[1])).await.unwrap(),
        ];
        let mut spectator = Player::join(addr, &table.room, None).await.unwrap();
        let (frames_before, _) = client::received();
        let mut rng = StdRng::seed_from_u64(3);
        for version in 1..=20 {
            play::step(&mut players, &mut rng).await.unwrap().expect("a move");
            assert!(players.iter().all(|p| p.state.version == version));
        }
        spectator.state_until(|state| state.version == 20).await.unwrap();
        // Per action: the reply and both players' deltas (the spectator's too, read above).
        assert_eq!(client::received().0 - frames_before, 20 * 3 + 20);
    }

    #[test]
    fn every_frame_is_json_and_the_deltas_are_about_the_real_sizes() {
        let mut players = Vec::new();
        let mut spectators = Vec::new();
        for player in 0..2 {
            let frames = deltas(player, 41, 42);
            for frame in &frames {
                let value: serde_json::Value = serde_json::from_str(frame.as_str()).expect("JSON");
                assert_eq!((value["version"].as_u64(), value["base"].as_u64()), (Some(42), Some(41)));
            }
            let next = 1 - player;
            let value: serde_json::Value = serde_json::from_str(frames[next].as_str()).unwrap();
            let legal: fugitive_core::LegalActions = serde_json::from_value(value["legal"].clone()).unwrap();
            assert!(legal.draws.len() + legal.placements.len() > 0 || legal.pass);
            players.extend([frames[0].len(), frames[1].len()]);
            spectators.push(frames[2].len());
        }
        let mean = |sizes: &[usize]| sizes.iter().sum::<usize>() / sizes.len();
        // A real run's means (protocol 2, random games, issue 23's `from` and candidates): a
        // player's delta 484 bytes, a spectator's 356.
        assert!((440..=530).contains(&mean(&players)), "{players:?} {spectators:?}");
        assert!((320..=400).contains(&mean(&spectators)), "{spectators:?}");
        assert_eq!(reply(7).len(), r#"{"v":2,"type":"reply","seq":7,"ok":true}"#.len());
    }
}
