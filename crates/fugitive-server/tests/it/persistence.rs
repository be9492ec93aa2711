//! Persistence and recovery, on SQLite and (when `FUGITIVE_TEST_DATABASE_URL` is set) on
//! PostgreSQL: a restart rebuilds rooms from their action log, and a `kill -9` of the real
//! binary mid-game loses no acknowledged move.

use crate::common;

use std::net::SocketAddr;
use std::time::Duration;

use common::child::ChildServer;
use common::driver::{
    Goal, MAX_ACTIONS, deal_reaching, fugitive_move, legal_of, marshal_move, play, view_of,
};
use common::{Client, PATIENCE, Server, Table, TestDb};
use fugitive_core::{Reason, Role};
use serde_json::{Value, json};

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

/// A deal the driver ends with the Fugitive surviving the Manhunt, after more actions than the
/// tests play before they interrupt the server.
fn manhunt_survived_deal() -> String {
    deal_reaching(&[(Goal::ManhuntSurvived, Reason::ManhuntSurvived)], 20).to_string()
}

/// Plays a while, restarts the server on the same database, and carries on.
async fn restart_keeps_the_game(db: TestDb) {
    let deal = manhunt_survived_deal();
    let server = Server::start(&db, &["--deal-seed", &deal]).await;
    let mut table = Table::open(server.addr, json!({ "role": "marshal" })).await;
    assert!(play(&mut table, Goal::ManhuntSurvived, 12).await.is_none(), "the game is still running");
    let before = [&table.fugitive, &table.marshal, &table.spectator].map(|c| seen(c.state.as_ref().unwrap()));
    // The driver's requests are all accepted, and the Fugitive's last one was an action.
    let last_seq = table.fugitive.take_seq() - 1;
    server.stop().await;

    let server = Server::start(&db, &["--deal-seed", &deal]).await;
    let mut table = rejoin(server.addr, &table).await;
    let after = [&table.fugitive, &table.marshal, &table.spectator].map(|c| seen(c.state.as_ref().unwrap()));
    assert_eq!(after, before, "the rebuilt room shows each seat exactly what it showed");
    // The Fugitive's last seq is still known: a retry is answered, not applied again.
    assert_eq!(table.fugitive.welcome.as_ref().unwrap()["last_seq"], last_seq);
    let retry = json!({ "type": "action", "action": { "type": "pass" } });
    let reply = table.fugitive.request_with_seq(last_seq, retry).await;
    assert_eq!(reply["ok"], true, "{reply}");
    assert_eq!(table.fugitive.state.as_ref().unwrap()["version"], before[0].0);

    let outcome = play(&mut table, Goal::ManhuntSurvived, MAX_ACTIONS).await.expect("the known deal ends");
    assert_eq!(outcome.reason, Reason::ManhuntSurvived);
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

/// Plays, kills the server with SIGKILL right after a move was acknowledged, restarts it on
/// the same database; the clients come back with their tokens and finish the game.
async fn kill_9_loses_no_acknowledged_move(db: TestDb) {
    let deal = manhunt_survived_deal();
    let server = ChildServer::spawn(&db, &["--deal-seed", &deal]).await;
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

    let server = ChildServer::spawn(&db, &["--deal-seed", &deal]).await;
    let mut table = rejoin(server.addr, &table).await;
    let mover = if mover_is_fugitive { &table.fugitive } else { &table.marshal };
    assert_eq!(seen(mover.state.as_ref().unwrap()), acknowledged, "the acknowledged move survived");
    let outcome = play(&mut table, Goal::ManhuntSurvived, MAX_ACTIONS).await.expect("the known deal ends");
    assert_eq!(outcome.reason, Reason::ManhuntSurvived);
    server.kill_9().await;
    db.drop_database().await;
}

#[tokio::test]
async fn sigterm_closes_sockets_with_1001_and_exits_cleanly() {
    let db = TestDb::sqlite();
    let server = ChildServer::spawn(&db, &[]).await;
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
    let server = ChildServer::spawn(&db, &[]).await;
    let fugitive = Client::join(server.addr, &seats.room, Some(&seats.fugitive_token)).await;
    assert_eq!(fugitive.state.as_ref().unwrap()["version"], 1);
    server.kill_9().await;
}

#[tokio::test]
async fn an_unloaded_room_is_rebuilt_on_the_next_visit() {
    let db = TestDb::sqlite();
    // Its own process: its count of loaded rooms is this room's alone.
    let server = ChildServer::spawn(&db, &["--room-unload-after", "50ms"]).await;
    let mut table = Table::open(server.addr, json!({ "role": "fugitive" })).await;
    // A random deal: no game ends in its first 6 actions (42 is out of reach, and the Marshal
    // misses on purpose).
    assert!(play(&mut table, Goal::ManhuntSurvived, 6).await.is_none());
    let before = seen(table.marshal.state.as_ref().unwrap());
    let (fugitive, marshal, spectator) = (table.fugitive, table.marshal, table.spectator);
    for client in [fugitive, marshal, spectator] {
        client.close().await;
    }
    // The room actor unloads itself once nobody is connected; the next visitor rebuilds it.
    let started = tokio::time::Instant::now();
    while server.metric("fugitive_rooms_loaded").await != Some(0.0) {
        assert!(started.elapsed() < PATIENCE, "the room did not unload");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let marshal = Client::join(server.addr, &table.seats.room, Some(&table.seats.marshal_token)).await;
    assert_eq!(seen(marshal.state.as_ref().unwrap()), before);
    server.kill_9().await;
}

/// R17: the clock of the turn under way keeps running across a restart, counting the time
/// before it. The first server has a clock far too long to run out while it runs; then, in the
/// database, the clock becomes five minutes and the turn (the game and both seats) an hour old.
/// Only a restored clock that counts that hour runs out within the test's patience: one that
/// started afresh at the restart would wait five minutes, and one not restored never.
#[tokio::test]
async fn a_turn_clock_keeps_running_across_a_restart() {
    let db = TestDb::sqlite();
    let server = Server::start(&db, &[]).await;
    let table = Table::open(server.addr, json!({ "role": "fugitive", "turn_clock_secs": 600 })).await;
    let room = table.seats.room.clone();
    server.stop().await;

    use sqlx::{Connection, Executor};
    let mut conn = sqlx::SqliteConnection::connect(&db.url).await.unwrap();
    let hour = 3_600_000;
    conn.execute("UPDATE rooms SET turn_clock_secs = 300").await.unwrap();
    let games = sqlx::query("UPDATE games SET started_at = started_at - $1 WHERE finished_at IS NULL")
        .bind(hour)
        .execute(&mut conn)
        .await
        .unwrap();
    assert_eq!(games.rows_affected(), 1, "the game still runs: the first server's clock did not run out");
    let seats = sqlx::query("UPDATE seats SET claimed_at = claimed_at - $1 WHERE claimed_at IS NOT NULL")
        .bind(hour)
        .execute(&mut conn)
        .await
        .unwrap();
    assert_eq!(seats.rows_affected(), 2);
    conn.close().await.unwrap();

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
#[ignore = "needs FUGITIVE_TEST_DATABASE_URL"]
async fn postgres_restart_keeps_the_game() {
    restart_keeps_the_game(TestDb::postgres().await).await;
}

#[tokio::test]
#[ignore = "needs FUGITIVE_TEST_DATABASE_URL"]
async fn postgres_kill_9_loses_no_acknowledged_move() {
    kill_9_loses_no_acknowledged_move(TestDb::postgres().await).await;
}

/// A rematch offer is stored: it survives the room unloading and a `kill -9`, and the other
/// player's acceptance then starts the next game.
async fn a_rematch_offer_survives_unload_and_kill_9(db: TestDb) {
    let server = ChildServer::spawn(&db, &["--room-unload-after", "200ms"]).await;
    let mut table = Table::open(server.addr, json!({ "role": "fugitive" })).await;
    assert_eq!(table.fugitive.act(json!({ "type": "resign" })).await["ok"], true);
    assert_eq!(table.fugitive.request(json!({ "type": "rematch" })).await["ok"], true);
    table.marshal.wait_state(|s| s["room"]["rematch"]["fugitive"] == true).await;
    let seats = table.seats.clone();
    for client in [table.fugitive, table.marshal, table.spectator] {
        client.close().await;
    }
    // The room unloads for want of sockets; the offer is still there when it is rebuilt.
    let started = tokio::time::Instant::now();
    while server.metric("fugitive_rooms_loaded").await != Some(0.0) {
        assert!(started.elapsed() < PATIENCE, "the room did not unload");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let spectator = Client::join(server.addr, &seats.room, None).await;
    let offered = spectator.state.clone().unwrap();
    assert_eq!(offered["room"]["rematch"], json!({ "fugitive": true, "marshal": false }), "{offered}");
    spectator.close().await;
    server.kill_9().await;

    let server = ChildServer::spawn(&db, &[]).await;
    let mut marshal = Client::join(server.addr, &seats.room, Some(&seats.marshal_token)).await;
    let state = marshal.state.clone().unwrap();
    assert_eq!(state["room"]["rematch"], json!({ "fugitive": true, "marshal": false }), "{state}");
    let last = marshal.welcome.as_ref().unwrap()["last_seq"].as_u64().unwrap();
    marshal.continue_after(last);
    assert_eq!(marshal.request(json!({ "type": "rematch" })).await["ok"], true);
    let state = marshal.wait_state(|s| s["game"] == 2).await;
    assert_eq!(state["view"]["viewer"], "fugitive", "the roles swapped");
    assert_eq!(state["room"]["rematch"], json!({ "fugitive": false, "marshal": false }));
    server.kill_9().await;
    db.drop_database().await;
}

#[tokio::test]
async fn sqlite_a_rematch_offer_survives_unload_and_kill_9() {
    a_rematch_offer_survives_unload_and_kill_9(TestDb::sqlite()).await;
}

#[tokio::test]
#[ignore = "needs FUGITIVE_TEST_DATABASE_URL"]
async fn postgres_a_rematch_offer_survives_unload_and_kill_9() {
    a_rematch_offer_survives_unload_and_kill_9(TestDb::postgres().await).await;
}

/// What the players brought to the table survives a `kill -9`: their names, their chat, the series score.
async fn the_table_survives_kill_9(db: TestDb) {
    let server = ChildServer::spawn(&db, &[]).await;
    let seats = common::create_room(server.addr, json!({ "role": "fugitive" })).await;
    let mut fugitive = Client::connect(server.addr, &seats.room).await;
    let reply =
        fugitive.request(json!({ "type": "hello", "token": seats.fugitive_token, "name": "Ελένη" })).await;
    assert_eq!(reply["ok"], true, "{reply}");
    let reply = fugitive.request(json!({ "type": "chat", "text": "καλή τύχη" })).await;
    assert_eq!(reply["ok"], true, "{reply}");
    // The Fugitive resigns: the guest's seat leads the series 1–0.
    let reply = fugitive.act(json!({ "type": "resign" })).await;
    assert_eq!(reply["ok"], true, "{reply}");
    server.kill_9().await;

    let server = ChildServer::spawn(&db, &[]).await;
    let spectator = Client::join(server.addr, &seats.room, None).await;
    let room = &spectator.state.as_ref().unwrap()["room"];
    assert_eq!(room["names"], json!({ "fugitive": "Ελένη", "marshal": null }));
    let marshal = Client::join(server.addr, &seats.room, Some(&seats.marshal_token)).await;
    let chat = marshal.frames.iter().find(|f| f["type"] == "chat").expect("the chat history");
    assert_eq!(chat["messages"][0]["text"], "καλή τύχη");
    assert_eq!(room["series"]["wins"], json!({ "fugitive": 0, "marshal": 1 }));
    server.kill_9().await;
    db.drop_database().await;
}

#[tokio::test]
async fn sqlite_the_table_survives_kill_9() {
    the_table_survives_kill_9(TestDb::sqlite()).await;
}

#[tokio::test]
#[ignore = "needs FUGITIVE_TEST_DATABASE_URL"]
async fn postgres_the_table_survives_kill_9() {
    the_table_survives_kill_9(TestDb::postgres().await).await;
}

/// Issue 10: the server listens before it loads the unfinished rooms, which load in the
/// background; a turn clock restored that way still runs out. PostgreSQL, because a test can
/// hold its `actions` table locked, so that no room can load until the test lets it.
#[tokio::test]
#[ignore = "needs FUGITIVE_TEST_DATABASE_URL"]
async fn postgres_the_server_listens_before_its_rooms_are_loaded() {
    let db = TestDb::postgres().await;
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
