//! What an operator watches: `/metrics` (in a server process of its own, so the process-wide
//! recorder holds only its figures), `/healthz` (liveness) and `/readyz` (the database answers).

use crate::common;

use std::time::Duration;

use common::child::ChildServer;
use common::{Client, PATIENCE, Server, Table, TestDb, create_room, http, http_text};
use serde_json::json;

#[tokio::test]
async fn every_metric_is_there_from_start_up() {
    let db = TestDb::sqlite();
    let server = ChildServer::spawn(&db, &[]).await;
    let metrics = server.metrics().await;
    let value = |name: &str| metrics.iter().find(|(n, _)| n == name).map(|(_, v)| *v);
    assert_eq!(value("fugitive_rooms_loaded"), Some(0.0), "{metrics:?}");
    assert_eq!(value("fugitive_sockets"), Some(0.0), "{metrics:?}");
    assert_eq!(value("fugitive_actions_total"), Some(0.0), "{metrics:?}");
    assert_eq!(value("fugitive_errors_total{code=\"unavailable\"}"), Some(0.0), "{metrics:?}");
    assert_eq!(value("fugitive_request_seconds_count"), Some(0.0), "{metrics:?}");
    assert_eq!(value("fugitive_commit_batches_total"), Some(0.0), "{metrics:?}");
    assert_eq!(value("fugitive_commit_batch_size_count"), Some(0.0), "{metrics:?}");
    assert_eq!(value("fugitive_commit_seconds_count"), Some(0.0), "{metrics:?}");
    assert_eq!(value("fugitive_commit_overload_total"), Some(0.0), "{metrics:?}");
    for stage in STAGES {
        let count = format!("fugitive_action_stage_seconds_count{{stage=\"{stage}\"}}");
        assert_eq!(value(&count), Some(0.0), "{metrics:?}");
    }
    server.kill_9().await;
}

/// The stages of `fugitive_action_stage_seconds`, as `docs/protocol.md` lists them.
const STAGES: [&str; 11] = [
    "queue",
    "step",
    "writer_queue",
    "db",
    "db_cpu",
    "db_runqueue",
    "commit",
    "resume",
    "publish",
    "mailbox",
    "socket_write",
];

#[tokio::test]
async fn each_stage_of_an_action_is_timed() {
    let db = TestDb::sqlite();
    let server = ChildServer::spawn(&db, &[]).await;
    let mut table = Table::open(server.addr, json!({ "role": "fugitive" })).await;
    let legal = table.fugitive.state.as_ref().unwrap()["legal"].clone();
    let place = json!({ "type": "place", "hideout": legal["placements"][0]["hideout"] });
    assert_eq!(table.fugitive.act(place).await["ok"], true);
    assert_eq!(table.fugitive.act(json!({ "type": "end_turn" })).await["ok"], true);
    table.sync(2).await;
    let metrics = server.metrics().await;
    let count = |stage: &str| {
        let name = format!("fugitive_action_stage_seconds_count{{stage=\"{stage}\"}}");
        metrics.iter().find(|(n, _)| *n == name).map(|(_, v)| *v)
    };
    // Two actions passed every stage of the room and the writer; `db_cpu` and `db_runqueue`
    // only where Linux tells a thread's scheduling (this server's SQLite writer thread).
    let linux = std::path::Path::new("/proc/thread-self/schedstat").exists();
    for stage in STAGES.iter().filter(|stage| linux || !stage.starts_with("db_")) {
        let count = count(stage).unwrap_or_default();
        match *stage {
            // Per frame and per write: the joins' frames count too.
            "mailbox" | "socket_write" => assert!(count >= 2.0, "{stage}: {count}"),
            _ => assert_eq!(count, 2.0, "{stage}: {metrics:?}"),
        }
    }
    table.fugitive.close().await;
    server.kill_9().await;
}

/// Polls `fugitive_rooms_loaded` until it is `want`; it never reads below 0 on the way.
async fn rooms_loaded_becomes(server: &ChildServer, want: f64) {
    let started = tokio::time::Instant::now();
    loop {
        let loaded = server.metric("fugitive_rooms_loaded").await.expect("fugitive_rooms_loaded");
        assert!(loaded >= 0.0, "fugitive_rooms_loaded is {loaded}");
        if loaded == want {
            return;
        }
        assert!(started.elapsed() < PATIENCE, "fugitive_rooms_loaded stayed {loaded}, not {want}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

#[tokio::test]
async fn rooms_loaded_counts_the_rooms_rebuilt_at_start_up() {
    let db = TestDb::sqlite();
    let server = ChildServer::spawn(&db, &[]).await;
    let mut clocked = Vec::new();
    for _ in 0..3 {
        clocked.push(create_room(server.addr, json!({ "role": "fugitive", "turn_clock_secs": 600 })).await);
    }
    let mut plain = Vec::new();
    for _ in 0..2 {
        plain.push(create_room(server.addr, json!({ "role": "fugitive" })).await);
    }
    server.kill_9().await;

    // Issue 10: the server listens first; the three rooms whose turn clock runs are rebuilt
    // in the background, the two without a clock only when someone asks for them.
    let server = ChildServer::spawn(&db, &[]).await;
    rooms_loaded_becomes(&server, 3.0).await;
    // A room not loaded yet loads on demand, with its game; the count then says that the other
    // room without a clock did not load by itself with the three (it would be 5).
    let mut watcher = Client::join(server.addr, &plain[0].room, None).await;
    assert_eq!(server.metric("fugitive_rooms_loaded").await, Some(4.0), "no other room loads by itself");
    assert_eq!(server.metric("fugitive_sockets").await, Some(1.0));
    let state = watcher.wait_state(|_| true).await;
    assert_eq!(state["game"], 1, "{state}");
    watcher.close().await;
    server.kill_9().await;

    // A room without a clock unloads itself when nobody is there; one whose clock runs stays.
    let server = ChildServer::spawn(&db, &["--room-unload-after", "300ms"]).await;
    rooms_loaded_becomes(&server, 3.0).await;
    let watcher = Client::join(server.addr, &plain[1].room, None).await;
    assert_eq!(server.metric("fugitive_rooms_loaded").await, Some(4.0));
    watcher.close().await;
    rooms_loaded_becomes(&server, 3.0).await;
    assert_eq!(server.metric("fugitive_sockets").await, Some(0.0));
    // The rooms whose clock runs have had nobody in them since start-up, longer than the room
    // that just unloaded: joining one finds it still loaded (the count stays 3, not 4).
    let watcher = Client::join(server.addr, &clocked[0].room, None).await;
    assert_eq!(server.metric("fugitive_rooms_loaded").await, Some(3.0), "the clocks keep their rooms");
    watcher.close().await;
    server.kill_9().await;
}

#[tokio::test]
async fn readyz_answers_while_the_database_does() {
    let db = TestDb::sqlite();
    let server = Server::start(&db, &[]).await;
    assert_eq!(http_text(server.addr, "GET", "/readyz", None).await, (200, "ready".into()));
    assert_eq!(http_text(server.addr, "GET", "/healthz", None).await, (200, "ok".into()));
    server.stop().await;
}

#[tokio::test]
#[ignore = "needs FUGITIVE_TEST_DATABASE_URL"]
async fn postgres_readyz_is_503_while_the_database_refuses_and_healthz_stays_200() {
    let db = TestDb::postgres().await;
    let server = Server::start(&db, &[]).await;
    assert_eq!(http_text(server.addr, "GET", "/readyz", None).await, (200, "ready".into()));
    db.refuse_connections(true).await;
    let (status, body) = http(server.addr, "GET", "/readyz", None).await;
    assert_eq!((status, body["error"].as_str()), (503, Some("unavailable")), "{body}");
    // The process itself is alive: restarting it would not help.
    assert_eq!(http_text(server.addr, "GET", "/healthz", None).await, (200, "ok".into()));
    db.refuse_connections(false).await;
    let started = tokio::time::Instant::now();
    while http_text(server.addr, "GET", "/readyz", None).await.0 != 200 {
        assert!(started.elapsed() < PATIENCE, "/readyz did not come back");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    server.stop().await;
    db.drop_database().await;
}
