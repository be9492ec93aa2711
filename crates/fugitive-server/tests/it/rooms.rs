//! A room's life: when its turn clock starts, what its endpoints accept, and what its expiry
//! deletes and keeps.

use crate::common;

use common::{Client, Server, Table, TestDb, http, http_text};
use serde_json::{Value, json};

fn invite_of(created: &Value) -> String {
    created["links"]["invite"].as_str().unwrap().split("#invite=").nth(1).unwrap().to_string()
}

/// R17: a turn clock never runs against a seat nobody has claimed yet; it starts when the second
/// seat is claimed, live or after a restart.
#[tokio::test]
async fn r17_the_turn_clock_starts_when_both_seats_are_claimed() {
    let db = TestDb::sqlite();
    let server = Server::start(&db, &[]).await;
    let body = json!({ "role": "fugitive", "turn_clock_secs": 1 });
    let (status, created) = server.http("POST", "/api/rooms", Some(&body)).await;
    assert_eq!(status, 201, "{created}");
    let room = created["room"].as_str().unwrap().to_string();
    let mut host = Client::join(server.addr, &room, created["token"].as_str()).await;
    assert!(host.state.as_ref().unwrap()["room"]["clock"].is_null());
    // The host plays his opening alone.
    let legal = host.state.as_ref().unwrap()["legal"].clone();
    let place = json!({ "type": "place", "hideout": legal["placements"][0]["hideout"] });
    assert_eq!(host.act(place).await["ok"], true);
    assert_eq!(host.act(json!({ "type": "end_turn" })).await["ok"], true);
    let state = host.wait_version(2).await;
    assert!(state["room"]["clock"].is_null(), "no clock while the invited seat is empty: {state}");
    assert!(host.states().all(|s| s["room"]["clock"].is_null()), "never a clock before the claim");
    // Nobody has lost. That no clock runs out however long the seat stays free is the room
    // machine's test `r17_no_clock_runs_against_a_seat_nobody_claimed`, on time handed in.
    let (_, summary) = server.http("GET", &format!("/api/rooms/{room}"), None).await;
    assert_eq!(summary["over"], false, "{summary}");

    // After a restart the unclaimed room still has no clock.
    host.close().await;
    server.stop().await;
    let server = Server::start(&db, &[]).await;
    let mut host = Client::join(server.addr, &room, created["token"].as_str()).await;
    assert!(host.state.as_ref().unwrap()["room"]["clock"].is_null());

    // The claim starts the clock of the player to move, the Marshal.
    let claim = format!("/api/rooms/{room}/claim");
    let (status, _) = server.http("POST", &claim, Some(&json!({ "invite": invite_of(&created) }))).await;
    assert_eq!(status, 200);
    let state = host.wait_state(|s| s["room"]["seats"]["marshal"] == true).await;
    assert_eq!(state["room"]["clock"]["role"], "marshal", "{state}");
    let state = host.wait_state(|s| !s["view"]["outcome"].is_null()).await;
    assert_eq!(state["view"]["outcome"], json!({ "winner": "fugitive", "reason": "time_out" }));
    server.stop().await;
}

#[tokio::test]
async fn a_body_that_is_not_a_json_object_is_a_bad_request() {
    let db = TestDb::sqlite();
    let server = Server::start(&db, &[]).await;
    let addr = server.addr;
    for body in [r#"["marshal", {"opening_hideouts": "exactly_two"}, 5]"#, "[]", "5", "\"fugitive\"", "null"]
    {
        let (status, answer) = http_text(addr, "POST", "/api/rooms", Some(body)).await;
        let answer: Value = serde_json::from_str(&answer).unwrap();
        assert_eq!((status, answer["error"].as_str()), (400, Some("bad_request")), "{body}: {answer}");
    }
    let (status, created) = http(addr, "POST", "/api/rooms", Some(&json!({ "role": "fugitive" }))).await;
    assert_eq!(status, 201);
    let room = created["room"].as_str().unwrap();
    let claim = format!("/api/rooms/{room}/claim");
    // A claim without an invitation is malformed, not a wrong invitation.
    for body in ["", "{}", "[]", "null", r#"["x"]"#, r#"{"invite": null}"#] {
        let (status, answer) = http_text(addr, "POST", &claim, Some(body)).await;
        let answer: Value = serde_json::from_str(&answer).unwrap();
        assert_eq!((status, answer["error"].as_str()), (400, Some("bad_request")), "{body:?}: {answer}");
    }
    let (status, answer) = http(addr, "POST", &claim, Some(&json!({ "invite": "wrong" }))).await;
    assert_eq!((status, answer["error"].as_str()), (403, Some("bad_invite")));
    // Nothing changed: the invitation still claims the seat.
    let (status, _) = http(addr, "POST", &claim, Some(&json!({ "invite": invite_of(&created) }))).await;
    assert_eq!(status, 200);
    server.stop().await;
}

/// Expiry deletes the room's running game and its seats, but the room's finished games stay
/// readable for their replays.
async fn expiry_keeps_finished_games(db: TestDb) {
    let server = Server::start(&db, &["--room-idle-ttl", "3s", "--expiry-interval", "200ms"]).await;
    let mut table = Table::open(server.addr, json!({ "role": "fugitive" })).await;
    assert_eq!(table.fugitive.act(json!({ "type": "resign" })).await["ok"], true);
    assert_eq!(table.fugitive.request(json!({ "type": "rematch" })).await["ok"], true);
    assert_eq!(table.marshal.request(json!({ "type": "rematch" })).await["ok"], true);
    let state = table.spectator.wait_state(|s| s["game"] == 2).await;
    assert!(state["view"]["outcome"].is_null());
    // Game 2 is left idle: the room expires.
    assert_eq!(table.spectator.closed().await, Some(4004));
    let room = &table.seats.room;
    let (status, body) = http(server.addr, "GET", &format!("/api/rooms/{room}"), None).await;
    assert_eq!((status, body["error"].as_str()), (404, Some("room_not_found")));
    let (status, replay) = http(server.addr, "GET", &format!("/api/rooms/{room}/games/1"), None).await;
    assert_eq!(status, 200, "the finished game 1 stays readable: {replay}");
    assert_eq!(replay["view"]["outcome"]["reason"], "resignation");
    let (status, _) = http(server.addr, "GET", &format!("/api/rooms/{room}/games/2"), None).await;
    assert_eq!(status, 404, "the unfinished game 2 is gone");
    let mut late = Client::connect(server.addr, room).await;
    assert_eq!(late.closed().await, Some(4004));
    server.stop().await;

    // Still so after a restart; the expired room is not loaded again.
    let server = Server::start(&db, &[]).await;
    assert_eq!(http(server.addr, "GET", &format!("/api/rooms/{room}/games/1"), None).await.0, 200);
    assert_eq!(http(server.addr, "GET", &format!("/api/rooms/{room}"), None).await.0, 404);
    server.stop().await;
    db.drop_database().await;
}

#[tokio::test]
async fn sqlite_expiry_keeps_the_finished_games_of_a_room() {
    expiry_keeps_finished_games(TestDb::sqlite()).await;
}

#[tokio::test]
#[ignore = "needs FUGITIVE_TEST_DATABASE_URL"]
async fn postgres_expiry_keeps_the_finished_games_of_a_room() {
    expiry_keeps_finished_games(TestDb::postgres().await).await;
}

/// `--deal-seed` (an operator's setting, for tests): game n of every room is dealt from
/// `rooms::deal(seed, n)`; without it every game gets a fresh seed.
#[tokio::test]
async fn the_deal_seed_setting_deals_known_games() {
    let db = TestDb::sqlite();
    let server = Server::start(&db, &["--deal-seed", "42"]).await;
    let mut seeds = Vec::new();
    for _ in 0..2 {
        let mut table = Table::open(server.addr, json!({ "role": "fugitive" })).await;
        assert_eq!(table.fugitive.act(json!({ "type": "resign" })).await["ok"], true);
        let room = &table.seats.room;
        let (_, replay) = http(server.addr, "GET", &format!("/api/rooms/{room}/games/1"), None).await;
        seeds.push(replay["setup"]["seed"].clone());
        // Game 2 of the room is dealt from the same setting.
        assert_eq!(table.fugitive.request(json!({ "type": "rematch" })).await["ok"], true);
        assert_eq!(table.marshal.request(json!({ "type": "rematch" })).await["ok"], true);
        table.marshal.wait_state(|s| s["game"] == 2).await;
        // The Marshal of game 2 (the old Fugitive) resigns at once.
        assert_eq!(table.fugitive.act(json!({ "type": "resign" })).await["ok"], true);
        let (_, replay) = http(server.addr, "GET", &format!("/api/rooms/{room}/games/2"), None).await;
        let want = String::from(fugitive_server::rooms::deal(42, 2));
        assert_eq!(replay["setup"]["seed"], json!(want));
    }
    let want = String::from(fugitive_server::rooms::deal(42, 1));
    assert_eq!(seeds, [json!(want), json!(want)]);
    server.stop().await;

    let server = Server::start(&db, &[]).await;
    let mut seeds = Vec::new();
    for _ in 0..2 {
        let mut table = Table::open(server.addr, json!({ "role": "fugitive" })).await;
        assert_eq!(table.fugitive.act(json!({ "type": "resign" })).await["ok"], true);
        let room = &table.seats.room;
        let (_, replay) = http(server.addr, "GET", &format!("/api/rooms/{room}/games/1"), None).await;
        seeds.push(replay["setup"]["seed"].clone());
    }
    assert_ne!(seeds[0], seeds[1], "without the setting every deal is fresh");
    server.stop().await;
}
