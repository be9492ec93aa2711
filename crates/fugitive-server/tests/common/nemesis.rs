//! Players for the fault tests (issue 27): they play whole games of random legal moves while a
//! fault is injected, record everything for the history checker (`history.rs`), and survive
//! what a real client survives: an `unavailable` is retried with the same `seq`; a node that
//! says twice that it cannot serve (its `/readyz` is 503, or it answers nothing at all), or a
//! socket that closes, moves the player to the next node (when it may), which resends the same
//! `seq`, and the server answers it once whatever node stored it.
//!
//! No wait here is a fixed limit on how fast a node must be: a player waits for a reply, a
//! state or a new room for as long as the node says it is ready (a slow node on a loaded
//! machine is slow, not lost), asking it every [`REPLY_WAIT`] of silence. Only [`patience`],
//! the hang detector, ends a wait on a node that says it is ready.

use std::net::SocketAddr;
use std::time::Duration;

use fugitive_core::{Action, LegalActions, Role, View};
use rand::SeedableRng;
use rand::rngs::StdRng;
use serde_json::{Value, json};
use tokio::time::Instant;

use super::history::{self, Record, Seen, Sent, Verdict};
use super::{Client, PATIENCE};

/// The hang detector of the players' waits: [`PATIENCE`] (a minute) for up to 20 tables, a
/// minute more for every 20 more. A hundred tables on a 2-core machine that others load too
/// may keep a node busy for more than a minute without anything being wrong with it.
pub fn patience() -> Duration {
    let tables =
        std::env::var("FUGITIVE_NEMESIS_GAMES").ok().and_then(|v| v.parse::<u32>().ok()).unwrap_or(0);
    PATIENCE * tables.div_ceil(20).max(1)
}

/// How long a player waits in silence (no reply, no state, no new room) before it asks the
/// node whether it can still serve (`/readyz`).
pub const REPLY_WAIT: Duration = Duration::from_secs(2);

/// How long a node may take to answer `/readyz` before it is taken for lost: a hang detector
/// (a node whose database does not answer says 503 within 2 s; a frozen one says nothing).
const PROBE_WAIT: Duration = Duration::from_secs(15);

/// Whether the node at `addr` says it can serve: `/readyz`'s status (200: yes), or why there
/// is none (no answer within [`PROBE_WAIT`]).
async fn probe(addr: SocketAddr) -> Result<u16, String> {
    let probe = reqwest::Client::new().get(format!("http://{addr}/readyz")).timeout(PROBE_WAIT).send().await;
    probe.map(|response| response.status().as_u16()).map_err(|error| {
        // The causes too: a time-out, a refused or a reset connection are different stories.
        let mut said = error.to_string();
        let mut cause = std::error::Error::source(&error);
        while let Some(error) = cause {
            said += &format!(": {error}");
            cause = error.source();
        }
        said
    })
}

/// Awaits `work`, something asked of the node at `node`, for as long as the node says it is
/// ready; `None` once it says twice in a row that it is not (or does not answer), or after
/// [`patience`]. (Once is not enough: a node starved of CPU may miss its 2 s for the database
/// once and serve on; one cut off from it says 503 every time.)
pub async fn patiently<T>(node: SocketAddr, work: impl std::future::Future<Output = T>) -> Option<T> {
    tokio::pin!(work);
    let started = Instant::now();
    let mut not_ready = 0;
    loop {
        if let Ok(done) = tokio::time::timeout(REPLY_WAIT, &mut work).await {
            return Some(done);
        }
        // Asked again at once when it says no: a node that cannot reach its database says so
        // in its 2 s each time.
        let mut answers = Vec::new();
        while not_ready < 2 {
            let asked = Instant::now();
            match probe(node).await {
                Ok(200) => break,
                answer => {
                    not_ready += 1;
                    answers.push(format!("{answer:?} after {:.1?}", asked.elapsed()));
                }
            }
        }
        if not_ready == 2 {
            // Said, so that a run that gives up on a node tells why (a fault's own 503s, or a
            // node too loaded to answer in time).
            eprintln!(
                "{node} taken for lost after {:.1?}: /readyz {}",
                started.elapsed(),
                answers.join(", then ")
            );
            return None;
        }
        if started.elapsed() > patience() {
            return None;
        }
        not_ready = 0;
    }
}

/// What a player read.
enum Read {
    Frame(Value),
    /// The node is lost: it said it cannot serve, or its socket closed.
    Lost,
}

/// Moves a game gets before its player to move resigns (so that random games end).
const MOVES: usize = 60;

/// One client of a room, across its reconnects.
pub struct Player {
    nodes: Vec<SocketAddr>,
    at: usize,
    /// Whether a failure moves it to the next node (else it reconnects to the same).
    failover: bool,
    room: String,
    token: Option<String>,
    client: Option<Client>,
    /// Sockets opened so far.
    sockets: usize,
    next_seq: u64,
    pub state: Option<Value>,
    pub record: Record,
}

impl Player {
    /// Joins `room` on `nodes[at]`.
    pub async fn join(
        nodes: &[SocketAddr],
        at: usize,
        failover: bool,
        room: &str,
        token: Option<&str>,
        role: Option<Role>,
    ) -> Player {
        let mut player = Player {
            nodes: nodes.to_vec(),
            at: at % nodes.len(),
            failover,
            room: room.to_string(),
            token: token.map(str::to_string),
            client: None,
            sockets: 0,
            next_seq: 1,
            state: None,
            record: Record::new(role),
        };
        player.connect().await;
        player
    }

    pub fn version(&self) -> u64 {
        self.state.as_ref().and_then(|s| s["version"].as_u64()).unwrap_or(0)
    }

    pub fn view(&self) -> View {
        serde_json::from_value(self.state.as_ref().expect("a state")["view"].clone()).expect("a view")
    }

    /// Opens a socket and says hello, on the next node after each failure, until it works.
    async fn connect(&mut self) {
        let started = Instant::now();
        loop {
            assert!(started.elapsed() < patience(), "no node let {:?} join {}", self.record.role, self.room);
            let addr = self.nodes[self.at];
            if let Some(Ok(client)) =
                patiently(addr, Client::connect_with_origin(addr, &self.room, None)).await
            {
                self.client = Some(client);
                self.sockets += 1;
                let hello = json!({ "v": 1, "type": "hello", "seq": 0, "token": self.token });
                if let Some(reply) = self.request(&hello.to_string(), 0).await {
                    if reply["ok"] == true {
                        let client = self.client.as_ref().unwrap();
                        let last = client.welcome.as_ref().and_then(|w| w["last_seq"].as_u64()).unwrap_or(0);
                        self.next_seq = self.next_seq.max(last + 1);
                        return;
                    }
                }
            }
            self.client = None;
            if self.failover {
                self.at = (self.at + 1) % self.nodes.len();
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }

    async fn reconnect(&mut self) {
        if let Some(client) = self.client.take() {
            tokio::spawn(client.close());
        }
        if self.failover {
            self.at = (self.at + 1) % self.nodes.len();
        }
        self.record.reconnects += 1;
        self.connect().await;
    }

    /// The next frame, recording states, waited for as long as the node says it is ready.
    async fn read(&mut self) -> Read {
        let node = self.nodes[self.at];
        let Some(client) = self.client.as_mut() else { return Read::Lost };
        let Some(Ok(frame)) = patiently(node, client.next_frame_within(patience())).await else {
            return Read::Lost;
        };
        self.seen(&frame);
        Read::Frame(frame)
    }

    fn seen(&mut self, frame: &Value) {
        if frame["type"] == "state" {
            self.record.states.push(Seen {
                socket: self.sockets,
                version: frame["version"].as_u64().unwrap(),
                view: frame["view"].clone(),
                at: Instant::now(),
            });
            self.state = Some(frame.clone());
        }
    }

    /// Reads what has arrived, without waiting. A client that only watches reads all the same
    /// (a browser does): reading answers the server's pings, and a socket from which nothing,
    /// not even a pong, comes for a minute is closed as idle. A game at a human pace is longer.
    pub fn drain(&mut self) {
        use futures_util::FutureExt;
        while let Some(client) = self.client.as_mut() {
            match client.next_frame().now_or_never() {
                Some(Ok(frame)) => self.seen(&frame),
                // Closed: the next wait finds it so and reconnects.
                Some(Err(_)) | None => break,
            }
        }
    }

    /// Sends `text` and reads until the reply to `seq`; `None` when the node is lost first.
    async fn request(&mut self, text: &str, seq: u64) -> Option<Value> {
        self.client.as_mut()?.send_message(text.into()).await.ok()?;
        loop {
            let Read::Frame(frame) = self.read().await else { return None };
            if frame["type"] == "reply" && frame["seq"] == seq {
                return Some(frame);
            }
        }
    }

    /// Sends `action` once and returns the reply (`None`: none came in time).
    pub async fn try_act(&mut self, action: Action) -> Option<Value> {
        let seq = self.next_seq;
        self.next_seq += 1;
        self.record.sent.push(Sent { seq, action, at: Instant::now() });
        let text = json!({ "v": 1, "type": "action", "seq": seq, "action": action }).to_string();
        let reply = self.request(&text, seq).await;
        if reply.as_ref().is_some_and(|r| r["ok"] == true) {
            self.record.acked.push(seq);
        }
        reply
    }

    /// Sends `action` until it is acknowledged (`true`) or refused for a reason other than
    /// `unavailable` (`false`: the game moved on without it).
    pub async fn act(&mut self, action: Action) -> bool {
        let seq = self.next_seq;
        self.next_seq += 1;
        self.record.sent.push(Sent { seq, action, at: Instant::now() });
        let text = json!({ "v": 1, "type": "action", "seq": seq, "action": action }).to_string();
        let started = Instant::now();
        loop {
            assert!(started.elapsed() < patience(), "{action:?} was never acknowledged");
            match self.request(&text, seq).await {
                Some(reply) if reply["ok"] == true => {
                    self.record.acked.push(seq);
                    return true;
                }
                Some(reply) => {
                    let code = reply["error"]["code"].as_str().unwrap_or("?").to_string();
                    self.record.errors.push(code.clone());
                    if code != "unavailable" {
                        return false;
                    }
                    let pause = reply["error"]["retry_after_ms"].as_u64().unwrap_or(100).min(500);
                    tokio::time::sleep(Duration::from_millis(pause)).await;
                }
                None => {
                    self.record.errors.push("node lost".into());
                    self.reconnect().await;
                }
            }
        }
    }

    /// Reads until a state satisfies `f`, reconnecting when the node is lost.
    pub async fn wait(&mut self, f: impl Fn(&Value) -> bool) {
        let started = Instant::now();
        while !self.state.as_ref().is_some_and(&f) {
            assert!(started.elapsed() < patience(), "{:?} in {} waited in vain", self.record.role, self.room);
            if let Read::Lost = self.read().await {
                self.reconnect().await;
            }
        }
    }

    pub async fn wait_version(&mut self, version: u64) {
        self.wait(|s| s["version"].as_u64() >= Some(version)).await;
    }

    pub fn close(mut self) -> Record {
        if let Some(client) = self.client.take() {
            tokio::spawn(client.close());
        }
        self.record
    }
}

/// Where a table's clients are: indices into the nodes.
#[derive(Clone, Copy, Debug)]
pub struct Lineup {
    pub fugitive: usize,
    pub marshal: usize,
    pub spectator: usize,
    /// Whether the seats move to another node when theirs fails (the spectator never does:
    /// its node must catch up on its own).
    pub failover: bool,
}

/// Creates a room with `body` and claims its guest seat, on the first node (from `at`) that
/// answers: the room and the Fugitive's and the Marshal's tokens. A node that says it cannot
/// serve while it is asked is left for the next. A claim whose answer was lost may have been
/// stored (a retry then hears `seat_taken`): that room is left, another made.
pub async fn open_room(nodes: &[SocketAddr], at: usize, body: &Value) -> (String, String, String) {
    let client = reqwest::Client::new();
    let started = Instant::now();
    let mut last = String::new();
    for i in 0.. {
        assert!(started.elapsed() < patience(), "no node opened a room; the last answer: {last}");
        let node = nodes[(at + i) % nodes.len()];
        let post = |path: String, body: Value| {
            let request = client.post(format!("http://{node}{path}")).json(&body).timeout(patience());
            patiently(node, async move {
                let response = request.send().await?;
                let status = response.status().as_u16();
                Ok::<_, reqwest::Error>((status, response.json::<Value>().await.unwrap_or(Value::Null)))
            })
        };
        let created = match post("/api/rooms".into(), body.clone()).await {
            Some(Ok((201, created))) => created,
            Some(Ok((status, answer))) => {
                last = format!("create: {status} {answer}");
                tokio::time::sleep(Duration::from_millis(100)).await;
                continue;
            }
            Some(Err(error)) => {
                last = format!("create: {error}");
                continue;
            }
            None => {
                last = "create: the node is not ready".into();
                continue;
            }
        };
        let room = created["room"].as_str().unwrap().to_string();
        let host = created["token"].as_str().unwrap().to_string();
        let Some(invite) = created["links"]["invite"].as_str() else {
            // Against the computer: no seat to claim; the computer's token is "".
            return match created["role"].as_str() {
                Some("fugitive") => (room, host, String::new()),
                _ => (room, String::new(), host),
            };
        };
        let invite = invite.split("#invite=").nth(1).unwrap().to_string();
        let claimed = match post(format!("/api/rooms/{room}/claim"), json!({ "invite": invite })).await {
            Some(Ok((200, claimed))) => claimed,
            Some(Ok((status, answer))) => {
                last = format!("claim: {status} {answer}");
                continue;
            }
            Some(Err(error)) => {
                last = format!("claim: {error}");
                continue;
            }
            None => {
                last = "claim: the node is not ready".into();
                continue;
            }
        };
        let guest = claimed["token"].as_str().unwrap().to_string();
        return match created["role"].as_str() {
            Some("fugitive") => (room, host, guest),
            _ => (room, guest, host),
        };
    }
    unreachable!()
}

/// A game's clients.
pub struct Match {
    pub room: String,
    rng: StdRng,
    /// Moves chosen so far.
    played: usize,
    /// How long a player thinks before each move (the pace of [`play_tables`]).
    pub pace: Duration,
    pub fugitive: Player,
    pub marshal: Player,
    pub spectator: Player,
}

impl Match {
    /// Opens a room with `body` on `nodes[create]` and seats its clients as `lineup` says.
    pub async fn open(nodes: &[SocketAddr], create: usize, lineup: Lineup, body: &Value) -> Match {
        let (room, fugitive, marshal) = open_room(nodes, create, body).await;
        let (f, m, s) = (lineup.fugitive, lineup.marshal, lineup.spectator);
        let fugitive =
            Player::join(nodes, f, lineup.failover, &room, Some(&fugitive), Some(Role::Fugitive)).await;
        let marshal =
            Player::join(nodes, m, lineup.failover, &room, Some(&marshal), Some(Role::Marshal)).await;
        let spectator = Player::join(nodes, s, false, &room, None, None).await;
        let rng = StdRng::seed_from_u64(rand::random());
        Match { room, rng, played: 0, pace: Duration::ZERO, fugitive, marshal, spectator }
    }

    fn seat(&mut self, role: Role) -> &mut Player {
        match role {
            Role::Fugitive => &mut self.fugitive,
            Role::Marshal => &mut self.marshal,
        }
    }

    /// Plays up to `moves` random legal moves (no resignation before [`MOVES`], then one);
    /// whether the game is over.
    pub async fn play_moves(&mut self, moves: usize) -> bool {
        for _ in 0..moves {
            let version = self.sync().await;
            let view = self.fugitive.view();
            if view.outcome.is_some() {
                return true;
            }
            let role = view.phase.to_move().expect("a running game has a player to move");
            let own = self.seat(role).view();
            if own.outcome.is_some() || own.phase.to_move() != Some(role) {
                // The mover's socket is ahead of the Fugitive's (a clock ran out): sync again.
                continue;
            }
            self.spectator.drain();
            if !self.pace.is_zero() {
                // A little jitter, so that the tables do not move in step.
                let jitter = rand::Rng::random_range(&mut self.rng, 0.75..1.25);
                tokio::time::sleep(self.pace.mul_f64(jitter)).await;
            }
            let action = self.next_action(role);
            let seat = self.seat(role);
            if seat.act(action).await {
                seat.wait_version(version + 1).await;
            }
        }
        self.sync().await;
        self.fugitive.view().outcome.is_some()
    }

    /// Both seats at the same version, which is returned.
    async fn sync(&mut self) -> u64 {
        let version = self.fugitive.version().max(self.marshal.version());
        self.fugitive.wait_version(version).await;
        self.marshal.wait_version(version).await;
        version
    }

    /// The random move of the player to move, `role`.
    pub fn next_action(&mut self, role: Role) -> Action {
        let state = self.seat(role).state.clone().unwrap();
        let legal: LegalActions = serde_json::from_value(state["legal"].clone()).unwrap();
        let mut action = legal.sample(&mut self.rng).expect("a legal action");
        while action == Action::Resign && self.played < MOVES {
            action = legal.sample(&mut self.rng).unwrap();
        }
        if self.played >= MOVES {
            action = Action::Resign;
        }
        self.played += 1;
        action
    }

    /// The player to move, as the Fugitive's state says.
    pub fn to_move(&self) -> Option<Role> {
        self.fugitive.view().phase.to_move()
    }

    /// Nobody moves: waits until the turn clock ends the game.
    pub async fn wait_for_clock(&mut self) {
        self.fugitive.wait(|s| !s["view"]["outcome"].is_null()).await;
        self.sync().await;
    }

    /// The spectator reads to the end; every client's record, checked against the log.
    pub async fn check(mut self, database_url: &str, clock: Option<Duration>) -> Verdict {
        let end = self.fugitive.version().max(self.marshal.version());
        self.spectator.wait_version(end).await;
        let log = history::read_log(database_url, &self.room).await;
        // Whatever the nodes still send is read: the spectator's last state is its last.
        let records = [self.fugitive.close(), self.marshal.close(), self.spectator.close()];
        // Replaying the game is work for a core: not on the thread that runs every player.
        let room = self.room;
        tokio::task::spawn_blocking(move || history::check(&room, &log, &records, clock)).await.unwrap()
    }
}

/// How big a fault test is: the tables played at once, how long the fault goes on, and the
/// pace of play. Small and unpaced in CI; `scripts/nemesis` sets `FUGITIVE_NEMESIS_GAMES`,
/// `FUGITIVE_NEMESIS_SECS` and `FUGITIVE_NEMESIS_PACE_MS`.
#[derive(Clone, Copy, Debug)]
pub struct Size {
    pub tables: usize,
    pub during: Duration,
    /// How long each player thinks before a move (0: as fast as the nodes answer).
    pub pace: Duration,
}

impl Size {
    pub fn from_env(tables: usize, secs: u64) -> Size {
        let var = |name: &str, default: u64| {
            std::env::var(name).ok().and_then(|v| v.parse().ok()).unwrap_or(default)
        };
        Size {
            tables: var("FUGITIVE_NEMESIS_GAMES", tables as u64) as usize,
            during: Duration::from_secs(var("FUGITIVE_NEMESIS_SECS", secs)),
            pace: Duration::from_millis(var("FUGITIVE_NEMESIS_PACE_MS", 0)),
        }
    }
}

/// Plays games on `size.tables` tables at once, each opening a new room when its game ends,
/// until `size.during` has passed; checks each game's history. `lineup(i)`: table `i`'s.
pub async fn play_tables(
    nodes: &[SocketAddr],
    database_url: &str,
    size: Size,
    body: &Value,
    clock: Option<Duration>,
    lineup: impl Fn(usize) -> Lineup,
) -> Verdict {
    let until = Instant::now() + size.during;
    let tables = (0..size.tables).map(|table| {
        let lineup = lineup(table);
        async move {
            // Paced tables start spread over one pace, not all in the same instant.
            tokio::time::sleep(size.pace.mul_f64(table as f64 / size.tables as f64)).await;
            let mut verdict = Verdict::default();
            loop {
                let mut played = Match::open(nodes, lineup.fugitive, lineup, body).await;
                played.pace = size.pace;
                played.play_moves(usize::MAX).await;
                verdict.add(played.check(database_url, clock).await);
                if Instant::now() >= until {
                    break;
                }
            }
            verdict
        }
    });
    let mut verdict = Verdict::default();
    for one in futures_util::future::join_all(tables).await {
        verdict.add(one);
    }
    verdict
}

/// Appends a row of the nemesis table to `FUGITIVE_NEMESIS_REPORT`, if set.
pub fn report(fault: &str, verdict: &Verdict) {
    let Ok(path) = std::env::var("FUGITIVE_NEMESIS_REPORT") else { return };
    use std::io::Write;
    let mut file = std::fs::OpenOptions::new().create(true).append(true).open(path).unwrap();
    writeln!(
        file,
        "| {fault} | {} | {} | {} | {} | {} |",
        verdict.games, verdict.actions, verdict.lost, verdict.twice, verdict.misfires
    )
    .unwrap();
}
