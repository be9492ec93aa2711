//! Persistence and recovery, on SQLite and (when `FUGITIVE_TEST_DATABASE_URL` is set) on
//! PostgreSQL: a restart rebuilds rooms from their action log, and a `kill -9` of the real
//! binary mid-game loses no acknowledged move.

mod common;

use std::net::SocketAddr;
use std::process::Stdio;
use std::time::Duration;

use common::driver::{Goal, fugitive_move, legal_of, marshal_move, play, view_of};
use common::{Client, PATIENCE, Server, Table, TestDb};
use fugitive_core::Role;
use serde_json::{Value, json};
use tokio::process::{Child, Command};

/// Joins all three sockets again with the same tokens.
async fn rejoin(addr: SocketAddr, table: &Table) -> Table {
    let seats = table.seats.clone();
    let mut fugitive = Client::join(addr, &seats.room, Some(&seats.fugitive_token)).await;
    let mut marshal = Client::join(addr, &seats.room, Some(&seats.marshal_token)).await;
    let spectator = Client::join(addr, &seats.room, None).await;
    for client in [&mut fugitive, &mut marshal] {
        let last = client.welcome.as_ref().unwrap()["last_seq"].as_u64().unwrap();
        client.continue_after(last);
    }
    Table { seats, fugitive, marshal, spectator }
}

/// What a seat saw: its view and its legal actions at a version.
fn seen(state: &Value) -> (Value, Value, Value) {
    (state["version"].clone(), state["view"].clone(), state["legal"].clone())
}

/// Plays a while, restarts the server on the same database, and carries on.
async fn restart_keeps_the_game(db: TestDb) {
    let server = Server::start(&db, &[]).await;
    let mut table = Table::open(server.addr, json!({ "role": "marshal" })).await;
    assert!(play(&mut table, Goal::ManhuntSurvived, 12).await.is_none(), "the game is still running");
    let before = [&table.fugitive, &table.marshal, &table.spectator].map(|c| seen(c.state.as_ref().unwrap()));
    // The driver's requests are all accepted, and the Fugitive's last one was an action.
    let last_seq = table.fugitive.take_seq() - 1;
    server.stop().await;

    let server = Server::start(&db, &[]).await;
    let mut table = rejoin(server.addr, &table).await;
    let after = [&table.fugitive, &table.marshal, &table.spectator].map(|c| seen(c.state.as_ref().unwrap()));
    assert_eq!(after, before, "the rebuilt room shows each seat exactly what it showed");
    // The Fugitive's last seq is still known: a retry is answered, not applied again.
    assert_eq!(table.fugitive.welcome.as_ref().unwrap()["last_seq"], last_seq);
    let retry = json!({ "type": "action", "action": { "type": "pass" } });
    let reply = table.fugitive.request_with_seq(last_seq, retry).await;
    assert_eq!(reply["ok"], true, "{reply}");
    assert_eq!(table.fugitive.state.as_ref().unwrap()["version"], before[0].0);

    let outcome = play(&mut table, Goal::ManhuntSurvived, 400).await.expect("the game ends");
    assert_eq!(outcome.reason, fugitive_core::Reason::ManhuntSurvived);
    server.stop().await;

    // A finished game stays readable after another restart.
    let server = Server::start(&db, &[]).await;
    let (status, replay) =
        server.http("GET", &format!("/api/rooms/{}/games/1", table.seats.room), None).await;
    assert_eq!(status, 200);
    assert_eq!(replay["view"]["outcome"]["reason"], "manhunt_survived");
    server.stop().await;
    db.drop_database().await;
}

/// The real binary as a child process.
struct ChildServer {
    process: Child,
    addr: SocketAddr,
}

impl ChildServer {
    async fn spawn(db: &TestDb) -> ChildServer {
        let addr = {
            let probe = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
            probe.local_addr().unwrap()
        };
        let process = Command::new(env!("CARGO_BIN_EXE_fugitive-server"))
            .args(["--addr", &addr.to_string(), "--database-url", &db.url, "--web-dir", common::WEB_DIR])
            .args(["--max-messages-per-sec", "1000", "--max-rooms-per-minute", "100000"])
            .env("RUST_LOG", "warn")
            .stdout(Stdio::null())
            .stderr(Stdio::inherit())
            .kill_on_drop(true)
            .spawn()
            .expect("the server binary starts");
        let started = tokio::time::Instant::now();
        while tokio::net::TcpStream::connect(addr).await.is_err() {
            assert!(started.elapsed() < PATIENCE, "the child server did not start listening");
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        ChildServer { process, addr }
    }

    /// SIGKILL: no shutdown, no flush.
    async fn kill_9(mut self) {
        self.process.start_kill().unwrap();
        let status = self.process.wait().await.unwrap();
        use std::os::unix::process::ExitStatusExt;
        assert_eq!(status.signal(), Some(9));
    }
}

/// Plays, kills the server with SIGKILL right after a move was acknowledged, restarts it on
/// the same database; the clients come back with their tokens and finish the game.
async fn kill_9_loses_no_acknowledged_move(db: TestDb) {
    let server = ChildServer::spawn(&db).await;
    let mut table = Table::open(server.addr, json!({ "role": "fugitive" })).await;
    assert!(play(&mut table, Goal::ManhuntSurvived, 15).await.is_none(), "the game is still running");
    // One more move, acknowledged to its sender only; nobody else has read it yet.
    let trail_view = view_of(table.fugitive.state.as_ref().unwrap());
    let marshal_state = table.marshal.state.clone().unwrap();
    let (mover, action) = match trail_view.phase.to_move().unwrap() {
        Role::Fugitive => {
            let legal = legal_of(table.fugitive.state.as_ref().unwrap());
            (&mut table.fugitive, fugitive_move(&trail_view, &legal, Goal::ManhuntSurvived))
        }
        Role::Marshal => {
            let (view, legal) = (view_of(&marshal_state), legal_of(&marshal_state));
            (&mut table.marshal, marshal_move(&view, &legal, &trail_view, Goal::ManhuntSurvived))
        }
    };
    let action = serde_json::to_value(action).unwrap();
    let reply = mover.act(action.clone()).await;
    assert_eq!(reply["ok"], true, "{action}: {reply}");
    let acknowledged = seen(mover.state.as_ref().unwrap());
    let mover_is_fugitive = mover.state.as_ref().unwrap()["view"]["viewer"] == "fugitive";
    server.kill_9().await;

    let server = ChildServer::spawn(&db).await;
    let mut table = rejoin(server.addr, &table).await;
    let mover = if mover_is_fugitive { &table.fugitive } else { &table.marshal };
    assert_eq!(seen(mover.state.as_ref().unwrap()), acknowledged, "the acknowledged move survived");
    let outcome = play(&mut table, Goal::ManhuntSurvived, 400).await.expect("the game ends");
    assert_eq!(outcome.reason, fugitive_core::Reason::ManhuntSurvived);
    server.kill_9().await;
    db.drop_database().await;
}

#[tokio::test]
async fn sigterm_closes_sockets_with_1001_and_exits_cleanly() {
    let db = TestDb::sqlite();
    let server = ChildServer::spawn(&db).await;
    let seats = common::create_room(server.addr, json!({ "role": "fugitive" })).await;
    let mut fugitive = Client::join(server.addr, &seats.room, Some(&seats.fugitive_token)).await;
    let legal = fugitive.state.as_ref().unwrap()["legal"].clone();
    let reply = fugitive.act(json!({ "type": "place", "hideout": legal["placements"][0]["hideout"] })).await;
    assert_eq!(reply["ok"], true);
    let pid = server.process.id().unwrap().to_string();
    let status = std::process::Command::new("kill").args(["-TERM", &pid]).status().unwrap();
    assert!(status.success());
    assert_eq!(fugitive.closed().await, Some(1001));
    let mut process = server.process;
    let status = tokio::time::timeout(PATIENCE, process.wait()).await.unwrap().unwrap();
    assert!(status.success(), "{status}");

    // The move is there after the restart.
    let server = ChildServer::spawn(&db).await;
    let fugitive = Client::join(server.addr, &seats.room, Some(&seats.fugitive_token)).await;
    assert_eq!(fugitive.state.as_ref().unwrap()["version"], 1);
    server.kill_9().await;
}

#[tokio::test]
async fn an_unloaded_room_is_rebuilt_on_the_next_visit() {
    let db = TestDb::sqlite();
    let server = Server::start(&db, &["--room-unload-after", "50ms"]).await;
    let mut table = Table::open(server.addr, json!({ "role": "fugitive" })).await;
    assert!(play(&mut table, Goal::ManhuntSurvived, 6).await.is_none());
    let before = seen(table.marshal.state.as_ref().unwrap());
    let (fugitive, marshal, spectator) = (table.fugitive, table.marshal, table.spectator);
    for client in [fugitive, marshal, spectator] {
        client.close().await;
    }
    // The room actor unloads itself once nobody is connected; the next visitor rebuilds it.
    tokio::time::sleep(Duration::from_millis(300)).await;
    let marshal = Client::join(server.addr, &table.seats.room, Some(&table.seats.marshal_token)).await;
    assert_eq!(seen(marshal.state.as_ref().unwrap()), before);
    server.stop().await;
}

#[tokio::test]
async fn a_turn_clock_keeps_running_across_a_restart() {
    let db = TestDb::sqlite();
    let server = Server::start(&db, &[]).await;
    let table = Table::open(server.addr, json!({ "role": "fugitive", "turn_clock_secs": 1 })).await;
    let room = table.seats.room.clone();
    server.stop().await;
    // Nobody comes back; the restarted server loads the room at start-up and its clock runs
    // out. The replay endpoint reads only the database, so it does not load the room itself.
    let server = Server::start(&db, &[]).await;
    let replay = format!("/api/rooms/{room}/games/1");
    let started = tokio::time::Instant::now();
    let body = loop {
        let (status, body) = server.http("GET", &replay, None).await;
        if status == 200 {
            break body;
        }
        assert!(started.elapsed() < PATIENCE, "the clock never ran out: {body}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    assert_eq!(body["view"]["outcome"], json!({ "winner": "marshal", "reason": "time_out" }));
    assert_eq!(body["actions"], json!([["fugitive", { "type": "time_out" }]]));
    server.stop().await;
}

#[tokio::test]
async fn sqlite_restart_keeps_the_game() {
    restart_keeps_the_game(TestDb::sqlite()).await;
}

#[tokio::test]
async fn sqlite_kill_9_loses_no_acknowledged_move() {
    kill_9_loses_no_acknowledged_move(TestDb::sqlite()).await;
}

#[tokio::test]
async fn postgres_restart_keeps_the_game() {
    if let Some(db) = TestDb::postgres("postgres_restart_keeps_the_game").await {
        restart_keeps_the_game(db).await;
    }
}

#[tokio::test]
async fn postgres_kill_9_loses_no_acknowledged_move() {
    if let Some(db) = TestDb::postgres("postgres_kill_9_loses_no_acknowledged_move").await {
        kill_9_loses_no_acknowledged_move(db).await;
    }
}

/// Issue 10: the server listens before it loads the unfinished rooms, which load in the
/// background; a turn clock restored that way still runs out. PostgreSQL, because a test can
/// hold its `actions` table locked, so that no room can load until the test lets it.
#[tokio::test]
async fn postgres_the_server_listens_before_its_rooms_are_loaded() {
    let Some(db) = TestDb::postgres("postgres_the_server_listens_before_its_rooms_are_loaded").await else {
        return;
    };
    let server = Server::start(&db, &[]).await;
    // A long clock, so the game surely runs when the server stops, however slow the machine.
    let table = Table::open(server.addr, json!({ "role": "fugitive", "turn_clock_secs": 600 })).await;
    let room = table.seats.room.clone();
    server.stop().await;

    use sqlx::{Connection, Executor};
    let mut lock = sqlx::PgConnection::connect(&db.url).await.unwrap();
    let unfinished: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM games WHERE finished_at IS NULL")
        .fetch_one(&mut lock)
        .await
        .unwrap();
    assert_eq!(unfinished, 1);
    // Then a one-second clock: the turn has run longer than that, so the restored clock is due.
    lock.execute("UPDATE rooms SET turn_clock_secs = 1").await.unwrap();
    lock.execute("BEGIN").await.unwrap();
    lock.execute("LOCK TABLE actions IN ACCESS EXCLUSIVE MODE").await.unwrap();
    let server = Server::start(&db, &[]).await;
    // A server that loaded its rooms before listening would not answer while the lock holds.
    let health = tokio::time::timeout(PATIENCE, server.http("GET", "/healthz", None)).await;
    let (status, _) = health.expect("the server answers while its rooms wait to be loaded");
    assert_eq!(status, 200);
    lock.execute("ROLLBACK").await.unwrap();
    lock.close().await.unwrap();

    // Nobody comes back: the room loads in the background, and its clock runs out.
    let replay = format!("/api/rooms/{room}/games/1");
    let started = tokio::time::Instant::now();
    let body = loop {
        let (status, body) = server.http("GET", &replay, None).await;
        if status == 200 && body["view"]["outcome"].is_object() {
            break body;
        }
        assert!(started.elapsed() < PATIENCE, "the clock never ran out: {body}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    assert_eq!(body["view"]["outcome"], json!({ "winner": "marshal", "reason": "time_out" }));
    server.stop().await;
    db.drop_database().await;
}
