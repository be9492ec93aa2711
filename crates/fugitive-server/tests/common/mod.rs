//! Shared by the integration tests: a real server on port 0 (in-process, or the real binary as
//! a child), a tiny HTTP client, a JSON WebSocket client, and a driver that plays whole games
//! knowing both players' views so it can steer to each ending.
#![allow(dead_code)]

pub mod child;
pub mod driver;
pub mod faults;
pub mod history;
pub mod leak;
pub mod nemesis;
pub mod v2;

use std::net::SocketAddr;
use std::time::Duration;

use clap::Parser;
use fugitive_server::Config;
use futures_util::{SinkExt, StreamExt};
use serde_json::{Value, json};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::oneshot;
use tokio::task::JoinHandle;
use tokio_tungstenite::tungstenite::client::IntoClientRequest;
use tokio_tungstenite::tungstenite::protocol::CloseFrame;
use tokio_tungstenite::tungstenite::{self, Message};
use tokio_tungstenite::{MaybeTlsStream, WebSocketStream};

/// The web client, which the server refuses to start without.
pub const WEB_DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../web");

/// How long any single wait in a test may take before it fails: a hang detector, not a
/// timing, so it is generous. 15 s was not: a hard computer's move took longer on a machine
/// loaded 10 times over (the 20-run check of issue 9).
pub const PATIENCE: Duration = Duration::from_secs(60);

/// A database for one test: a temporary SQLite file, or a fresh PostgreSQL database.
pub struct TestDb {
    pub url: String,
    _dir: Option<tempfile::TempDir>,
    postgres: Option<(String, String)>,
}

impl TestDb {
    /// A SQLite file in a temporary directory.
    pub fn sqlite() -> TestDb {
        let dir = tempfile::tempdir().unwrap();
        let url = format!("sqlite://{}", dir.path().join("fugitive.db").display());
        TestDb { url, _dir: Some(dir), postgres: None }
    }

    /// A fresh database `fugitive_test_<uuid>` on the server of `FUGITIVE_TEST_DATABASE_URL`.
    /// The PostgreSQL tests are `#[ignore = "needs FUGITIVE_TEST_DATABASE_URL"]`: a developer
    /// without PostgreSQL sees them ignored; `.ci/run` sets the variable and runs them, and there
    /// a missing variable or an unreachable server fails the test.
    pub async fn postgres() -> TestDb {
        let admin = std::env::var("FUGITIVE_TEST_DATABASE_URL")
            .expect("FUGITIVE_TEST_DATABASE_URL is not set: this test needs PostgreSQL");
        use sqlx::Connection;
        let name = format!("fugitive_test_{}", uuid::Uuid::new_v4().simple());
        let mut conn = sqlx::PgConnection::connect(&admin)
            .await
            .unwrap_or_else(|error| panic!("cannot reach FUGITIVE_TEST_DATABASE_URL ({admin}): {error}"));
        sqlx::Executor::execute(&mut conn, format!("CREATE DATABASE {name}").as_str()).await.unwrap();
        conn.close().await.unwrap();
        let (base, _) = admin.rsplit_once('/').expect("a database URL ends with /dbname");
        let url = format!("{base}/{name}");
        TestDb { url, _dir: None, postgres: Some((admin, name)) }
    }

    /// PostgreSQL only: makes the database refuse every connection (and ends the open ones), or
    /// accept them again.
    pub async fn refuse_connections(&self, refuse: bool) {
        self.allow_new_connections(!refuse).await;
        if refuse {
            use sqlx::Connection;
            let (admin, name) = self.postgres.as_ref().expect("a PostgreSQL database");
            let mut conn = sqlx::PgConnection::connect(admin).await.unwrap();
            let kill =
                format!("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '{name}'");
            sqlx::Executor::execute(&mut conn, kill.as_str()).await.unwrap();
            conn.close().await.unwrap();
        }
    }

    /// PostgreSQL only: makes the database refuse new connections (the open ones go on), or
    /// accept them again.
    pub async fn allow_new_connections(&self, allow: bool) {
        use sqlx::Connection;
        let (admin, name) = self.postgres.as_ref().expect("a PostgreSQL database");
        let mut conn = sqlx::PgConnection::connect(admin).await.unwrap();
        let sql = format!("ALTER DATABASE {name} WITH ALLOW_CONNECTIONS {allow}");
        sqlx::Executor::execute(&mut conn, sql.as_str()).await.unwrap();
        conn.close().await.unwrap();
    }

    /// PostgreSQL only: ends every connection to the database (the nodes' pools and their
    /// listening connections alike) every `every`, for `during`, as `pg_terminate_backend` by
    /// an operator or a failing network would. Runs until `during` is over.
    pub async fn cut_connections(&self, every: Duration, during: Duration) {
        use sqlx::Connection;
        let (admin, name) = self.postgres.as_ref().expect("a PostgreSQL database");
        let mut conn = sqlx::PgConnection::connect(admin).await.unwrap();
        let kill = format!(
            "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity \
             WHERE datname = '{name}' AND pid <> pg_backend_pid()"
        );
        let end = tokio::time::Instant::now() + during;
        let mut tick = tokio::time::interval(every);
        while tick.tick().await < end {
            sqlx::Executor::execute(&mut conn, kill.as_str()).await.unwrap();
        }
        conn.close().await.unwrap();
    }

    /// Drops the PostgreSQL database (the SQLite directory goes with `self`).
    pub async fn drop_database(self) {
        if let Some((admin, name)) = &self.postgres {
            use sqlx::Connection;
            let mut conn = sqlx::PgConnection::connect(admin).await.unwrap();
            let drop = format!("DROP DATABASE IF EXISTS {name} WITH (FORCE)");
            sqlx::Executor::execute(&mut conn, drop.as_str()).await.unwrap();
            conn.close().await.unwrap();
        }
    }
}

/// A server running in this process.
pub struct Server {
    pub addr: SocketAddr,
    stop: Option<oneshot::Sender<()>>,
    task: Option<JoinHandle<()>>,
}

impl Server {
    /// Starts a server on port 0 over `db` with extra flags.
    pub async fn start(db: &TestDb, args: &[&str]) -> Server {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let mut argv = vec!["fugitive-server", "--database-url", &db.url, "--web-dir", WEB_DIR];
        // The drivers answer each state at once, far faster than a person: lift the rate limit
        // unless the test is about it.
        if !args.contains(&"--max-messages-per-sec") {
            argv.extend_from_slice(&["--max-messages-per-sec", "1000"]);
        }
        // The same for the rooms the tests create.
        if !args.contains(&"--max-rooms-per-minute") {
            argv.extend_from_slice(&["--max-rooms-per-minute", "100000"]);
        }
        argv.extend_from_slice(args);
        let config = Config::try_parse_from(argv).unwrap();
        let (stop, stopped) = oneshot::channel::<()>();
        let task = tokio::spawn(async move {
            fugitive_server::run(listener, config, async move {
                let _ = stopped.await;
            })
            .await
            .expect("server runs");
        });
        Server { addr, stop: Some(stop), task: Some(task) }
    }

    /// Shuts the server down gracefully and waits for it.
    pub async fn stop(mut self) {
        self.stop.take().unwrap().send(()).unwrap();
        tokio::time::timeout(PATIENCE, self.task.take().unwrap()).await.unwrap().unwrap();
    }

    pub async fn http(&self, method: &str, path: &str, body: Option<&Value>) -> (u16, Value) {
        http(self.addr, method, path, body).await
    }
}

/// One HTTP request; the status and the body as JSON (or as a JSON string if it is not).
pub async fn http(addr: SocketAddr, method: &str, path: &str, body: Option<&Value>) -> (u16, Value) {
    let (status, text) = http_text(addr, method, path, body.map(Value::to_string).as_deref()).await;
    (status, serde_json::from_str(&text).unwrap_or(Value::String(text)))
}

/// One HTTP request with a raw JSON body; the status and the body text.
pub async fn http_text(addr: SocketAddr, method: &str, path: &str, body: Option<&str>) -> (u16, String) {
    let method = reqwest::Method::from_bytes(method.as_bytes()).unwrap();
    let request = reqwest::Client::new()
        .request(method, format!("http://{addr}{path}"))
        .header("content-type", "application/json")
        .body(body.unwrap_or("").to_owned())
        .timeout(PATIENCE);
    let response = request.send().await.unwrap();
    let status = response.status().as_u16();
    (status, response.text().await.unwrap())
}

/// A room with both seats claimed: the tokens and the invitation.
#[derive(Clone, Debug)]
pub struct RoomSeats {
    pub room: String,
    pub fugitive_token: String,
    pub marshal_token: String,
    pub host_token: String,
}

/// Creates a room (the creator plays the Fugitive) and claims the other seat.
pub async fn create_room(addr: SocketAddr, body: Value) -> RoomSeats {
    let (status, created) = http(addr, "POST", "/api/rooms", Some(&body)).await;
    assert_eq!(status, 201, "{created}");
    let room = created["room"].as_str().unwrap().to_string();
    let invite = created["links"]["invite"].as_str().unwrap().split("#invite=").nth(1).unwrap().to_string();
    let (status, claimed) =
        http(addr, "POST", &format!("/api/rooms/{room}/claim"), Some(&json!({ "invite": invite }))).await;
    assert_eq!(status, 200, "{claimed}");
    let host = created["token"].as_str().unwrap().to_string();
    let guest = claimed["token"].as_str().unwrap().to_string();
    let (fugitive_token, marshal_token) =
        if created["role"] == "fugitive" { (host.clone(), guest) } else { (guest, host.clone()) };
    RoomSeats { room, fugitive_token, marshal_token, host_token: host }
}

type Ws = WebSocketStream<MaybeTlsStream<TcpStream>>;

/// A JSON WebSocket client that records every frame it receives.
pub struct Client {
    ws: Ws,
    next_seq: u64,
    /// Every text frame received, parsed.
    pub frames: Vec<Value>,
    /// The latest `state`.
    pub state: Option<Value>,
    /// The `welcome`.
    pub welcome: Option<Value>,
}

impl Client {
    /// Opens a socket on `room` (no `Origin` header: not a browser).
    pub async fn connect(addr: SocketAddr, room: &str) -> Client {
        Client::connect_with_origin(addr, room, None).await.expect("upgrade")
    }

    /// Opens a socket with an `Origin` header.
    pub async fn connect_with_origin(
        addr: SocketAddr,
        room: &str,
        origin: Option<&str>,
    ) -> Result<Client, tungstenite::Error> {
        let mut request = format!("ws://{addr}/ws/v1/rooms/{room}").into_client_request().unwrap();
        if let Some(origin) = origin {
            request.headers_mut().insert("origin", origin.parse().unwrap());
        }
        let (ws, _) = tokio_tungstenite::connect_async(request).await?;
        Ok(Client { ws, next_seq: 1, frames: Vec::new(), state: None, welcome: None })
    }

    /// Connects and says hello; waits for welcome, state and the reply.
    pub async fn join(addr: SocketAddr, room: &str, token: Option<&str>) -> Client {
        let mut client = Client::connect(addr, room).await;
        let reply = client.hello(token).await;
        assert_eq!(reply["ok"], true, "{reply}");
        client
    }

    /// Sends `hello` and returns its reply (welcome and state are recorded on the way).
    pub async fn hello(&mut self, token: Option<&str>) -> Value {
        self.request(json!({ "type": "hello", "token": token })).await
    }

    pub fn take_seq(&mut self) -> u64 {
        let seq = self.next_seq;
        self.next_seq += 1;
        seq
    }

    /// Continues `seq`s above the seat's last one (after a reconnect).
    pub fn continue_after(&mut self, last_seq: u64) {
        self.next_seq = self.next_seq.max(last_seq + 1);
    }

    pub async fn send_text(&mut self, text: impl Into<String>) {
        self.ws.send(Message::text(text.into())).await.unwrap();
    }

    pub async fn send_message(&mut self, message: Message) -> Result<(), tungstenite::Error> {
        self.ws.send(message).await
    }

    /// Sends `{"v":1,"seq":seq,...message}` and waits for the reply with that `seq`.
    pub async fn request_with_seq(&mut self, seq: u64, mut message: Value) -> Value {
        message["v"] = json!(1);
        message["seq"] = json!(seq);
        self.send_text(message.to_string()).await;
        self.reply_to(Some(seq)).await
    }

    /// Sends a message with the next `seq` and waits for its reply.
    pub async fn request(&mut self, message: Value) -> Value {
        let seq = self.take_seq();
        self.request_with_seq(seq, message).await
    }

    /// Sends a game action.
    pub async fn act(&mut self, action: Value) -> Value {
        self.request(json!({ "type": "action", "action": action })).await
    }

    /// The next text frame (pings are answered by tungstenite on the way). Panics on a close.
    pub async fn recv(&mut self) -> Value {
        match self.next_frame().await {
            Ok(value) => value,
            Err(close) => panic!("socket closed: {close:?}"),
        }
    }

    /// The next text frame, or the close frame (`None` when the connection just ended).
    pub async fn next_frame(&mut self) -> Result<Value, Option<CloseFrame>> {
        self.next_frame_within(PATIENCE).await
    }

    /// [`Client::next_frame`], failing the test when none comes within `patience`.
    pub async fn next_frame_within(&mut self, patience: Duration) -> Result<Value, Option<CloseFrame>> {
        let deadline = tokio::time::Instant::now() + patience;
        loop {
            let message = tokio::time::timeout_at(deadline, self.ws.next()).await.expect("a frame in time");
            match message {
                Some(Ok(Message::Text(text))) => {
                    let value: Value = serde_json::from_str(text.as_str()).unwrap();
                    assert_eq!(value["v"], 1, "every server message has v:1: {value}");
                    match value["type"].as_str() {
                        Some("state") => self.state = Some(value.clone()),
                        Some("welcome") => self.welcome = Some(value.clone()),
                        _ => {}
                    }
                    self.frames.push(value.clone());
                    return Ok(value);
                }
                Some(Ok(Message::Close(frame))) => return Err(frame),
                Some(Ok(_)) => continue,
                Some(Err(_)) | None => return Err(None),
            }
        }
    }

    /// Reads until the reply with `seq`.
    pub async fn reply_to(&mut self, seq: Option<u64>) -> Value {
        loop {
            let frame = self.recv().await;
            if frame["type"] == "reply" && frame["seq"] == json!(seq) {
                return frame;
            }
        }
    }

    /// Reads until the socket closes; the close code (`None` if the connection just ended).
    pub async fn closed(&mut self) -> Option<u16> {
        loop {
            match self.next_frame().await {
                Ok(_) => continue,
                Err(frame) => return frame.map(|f| u16::from(f.code)),
            }
        }
    }

    /// Reads until a `state` with at least `version`.
    pub async fn wait_version(&mut self, version: u64) -> Value {
        while self.version() < Some(version) {
            self.recv().await;
        }
        self.state.clone().unwrap()
    }

    /// Reads until a `state` satisfying `f`.
    pub async fn wait_state(&mut self, f: impl Fn(&Value) -> bool) -> Value {
        loop {
            if let Some(state) = &self.state {
                if f(state) {
                    return state.clone();
                }
            }
            self.recv().await;
        }
    }

    pub fn version(&self) -> Option<u64> {
        self.state.as_ref().and_then(|s| s["version"].as_u64())
    }

    /// The states received, in order.
    pub fn states(&self) -> impl Iterator<Item = &Value> {
        self.frames.iter().filter(|f| f["type"] == "state")
    }

    pub async fn close(mut self) {
        let _ = self.ws.close(None).await;
    }
}

/// A room with its three sockets joined: the Fugitive, the Marshal and a spectator.
pub struct Table {
    pub seats: RoomSeats,
    pub fugitive: Client,
    pub marshal: Client,
    pub spectator: Client,
}

impl Table {
    /// Creates a room with `body` and joins all three.
    pub async fn open(addr: SocketAddr, body: Value) -> Table {
        let seats = create_room(addr, body).await;
        let fugitive = Client::join(addr, &seats.room, Some(&seats.fugitive_token)).await;
        let marshal = Client::join(addr, &seats.room, Some(&seats.marshal_token)).await;
        let spectator = Client::join(addr, &seats.room, None).await;
        Table { seats, fugitive, marshal, spectator }
    }

    /// Every client reads until it has seen `version`.
    pub async fn sync(&mut self, version: u64) {
        self.fugitive.wait_version(version).await;
        self.marshal.wait_version(version).await;
        self.spectator.wait_version(version).await;
    }
}
