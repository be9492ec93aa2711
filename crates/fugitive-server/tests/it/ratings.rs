//! Ratings per role (issue 25): a game between two profiles on a clock is rated when its last
//! action is written, in the same transaction, so a `kill -9` right after never loses the change
//! or makes it twice; games without a clock, against the computer, or aborted (a side never
//! moved before its clock ran out) are not rated.

use crate::common;

use std::net::SocketAddr;

use common::child::ChildServer;
use common::{Client, Server, TestDb, http};
use serde_json::{Value, json};

/// A browser's profile cookie, made on its first visit.
async fn profile(addr: SocketAddr) -> (String, String) {
    let response = reqwest::Client::new().post(format!("http://{addr}/api/profile")).send().await.unwrap();
    assert_eq!(response.status().as_u16(), 201);
    let cookie = response.headers()["set-cookie"].to_str().unwrap().split(';').next().unwrap().to_string();
    let id = response.json::<Value>().await.unwrap()["id"].as_str().unwrap().to_string();
    (id, cookie)
}

async fn post(addr: SocketAddr, path: &str, cookie: &str, body: Value) -> Value {
    let response = reqwest::Client::new()
        .post(format!("http://{addr}{path}"))
        .header("cookie", cookie)
        .header("content-type", "application/json")
        .body(body.to_string())
        .send()
        .await
        .unwrap();
    assert!(response.status().is_success(), "{path}");
    response.json().await.unwrap()
}

/// A room made by `host` (the Fugitive) with `options`, claimed by `guest`: the room and the
/// two tokens.
async fn room(addr: SocketAddr, host: &str, guest: &str, options: Value) -> (String, String, String) {
    let mut body = json!({ "role": "fugitive" });
    body.as_object_mut().unwrap().extend(options.as_object().unwrap().clone());
    let created = post(addr, "/api/rooms", host, body).await;
    let room = created["room"].as_str().unwrap().to_string();
    let invite = created["links"]["invite"].as_str().unwrap().split("#invite=").nth(1).unwrap().to_string();
    let claimed = post(addr, &format!("/api/rooms/{room}/claim"), guest, json!({ "invite": invite })).await;
    (room, created["token"].as_str().unwrap().into(), claimed["token"].as_str().unwrap().into())
}

async fn public(addr: SocketAddr, id: &str) -> Value {
    let (status, body) = http(addr, "GET", &format!("/api/profiles/{id}"), None).await;
    assert_eq!(status, 200, "{body}");
    body
}

/// The Marshal resigns a rated game; the server is killed with SIGKILL as soon as that is
/// acknowledged; after the restart both ratings changed exactly once.
async fn kill_9_keeps_the_rating_change_exactly_once(db: TestDb, args: &[&str]) {
    let server = ChildServer::spawn(&db, args).await;
    let addr = server.addr;
    let (ada, ada_cookie) = profile(addr).await;
    let (bob, bob_cookie) = profile(addr).await;
    let (room, _, bob_token) = room(addr, &ada_cookie, &bob_cookie, json!({ "turn_clock_secs": 300 })).await;
    let mut marshal = Client::join(addr, &room, Some(&bob_token)).await;
    assert_eq!(marshal.act(json!({ "type": "resign" })).await["ok"], true);
    server.kill_9().await;

    let server = ChildServer::spawn(&db, args).await;
    let addr = server.addr;
    // The room loads again (replaying its log) without rating the game again.
    let (_, summary) = http(addr, "GET", &format!("/api/rooms/{room}"), None).await;
    assert_eq!(summary["outcome"], json!({ "winner": "fugitive", "reason": "resignation" }));
    let ada_page = public(addr, &ada).await;
    let bob_page = public(addr, &bob).await;
    assert_eq!(ada_page["ratings"]["fugitive"]["games"], 1, "{ada_page}");
    assert!(ada_page["ratings"]["fugitive"]["rating"].as_f64().unwrap() > 1500.0);
    assert_eq!(ada_page["ratings"]["fugitive"]["provisional"], true);
    assert!(ada_page["ratings"]["marshal"].is_null(), "no game as the Marshal yet");
    assert_eq!(bob_page["ratings"]["marshal"]["games"], 1, "{bob_page}");
    assert!(bob_page["ratings"]["marshal"]["rating"].as_f64().unwrap() < 1500.0);
    assert_eq!(ada_page["games"].as_array().unwrap().len(), 1);
    let game = &ada_page["games"][0];
    assert_eq!(
        (&game["role"], &game["won"], &game["opponent"]),
        (&json!("fugitive"), &json!(true), &json!(bob))
    );
    assert_eq!(game["replay"], format!("/room/{room}/game/1"));
    let (status, change) = http(addr, "GET", &format!("/api/rooms/{room}/games/1/rating"), None).await;
    assert_eq!(status, 200, "{change}");
    assert!(change["fugitive"]["change"].as_str().unwrap().starts_with('+'), "{change}");
    assert!(change["marshal"]["change"].as_str().unwrap().starts_with('\u{2212}'), "{change}");
    server.kill_9().await;
    db.drop_database().await;
}

#[tokio::test]
async fn sqlite_kill_9_keeps_the_rating_change_exactly_once() {
    kill_9_keeps_the_rating_change_exactly_once(TestDb::sqlite(), &[]).await;
}

#[tokio::test]
async fn sqlite_through_sqlx_kill_9_keeps_the_rating_change_exactly_once() {
    kill_9_keeps_the_rating_change_exactly_once(TestDb::sqlite(), &["--sqlite-writer", "sqlx"]).await;
}

#[tokio::test]
#[ignore = "needs FUGITIVE_TEST_DATABASE_URL"]
async fn postgres_kill_9_keeps_the_rating_change_exactly_once() {
    kill_9_keeps_the_rating_change_exactly_once(TestDb::postgres().await, &[]).await;
}

#[tokio::test]
async fn games_without_a_clock_against_the_computer_between_one_profile_or_aborted_are_not_rated() {
    let db = TestDb::sqlite();
    let server = Server::start(&db, &[]).await;
    let addr = server.addr;
    let (ada, ada_cookie) = profile(addr).await;
    let (bob, bob_cookie) = profile(addr).await;

    // No clock.
    let (casual, _, bob_token) = room(addr, &ada_cookie, &bob_cookie, json!({})).await;
    let mut marshal = Client::join(addr, &casual, Some(&bob_token)).await;
    assert_eq!(marshal.act(json!({ "type": "resign" })).await["ok"], true);
    // One profile in both seats.
    let (alone, _, ada_token) = room(addr, &ada_cookie, &ada_cookie, json!({ "turn_clock_secs": 300 })).await;
    let mut marshal = Client::join(addr, &alone, Some(&ada_token)).await;
    assert_eq!(marshal.act(json!({ "type": "resign" })).await["ok"], true);
    // The computer.
    let computer = post(
        addr,
        "/api/rooms",
        &ada_cookie,
        json!({ "role": "marshal", "turn_clock_secs": 300, "opponent": { "bot": "random" } }),
    )
    .await;
    let mut ada_seat =
        Client::join(addr, computer["room"].as_str().unwrap(), computer["token"].as_str()).await;
    assert_eq!(ada_seat.act(json!({ "type": "resign" })).await["ok"], true);
    // Aborted: the Marshal never moves within his 1-second clock.
    let (aborted, ada_token, _) = room(addr, &ada_cookie, &bob_cookie, json!({ "turn_clock_secs": 1 })).await;
    let mut fugitive = Client::join(addr, &aborted, Some(&ada_token)).await;
    let legal = fugitive.state.as_ref().unwrap()["legal"].clone();
    let place = json!({ "type": "place", "hideout": legal["placements"][0]["hideout"] });
    assert_eq!(fugitive.act(place).await["ok"], true);
    assert_eq!(fugitive.act(json!({ "type": "end_turn" })).await["ok"], true);
    let over = fugitive.wait_state(|s| !s["view"]["outcome"].is_null()).await;
    assert_eq!(over["view"]["outcome"], json!({ "winner": "fugitive", "reason": "time_out" }));
    // Said aborted, not "lost on time", wherever the game is shown.
    assert_eq!(over["room"]["aborted"], true, "{over}");
    let (_, summary) = http(addr, "GET", &format!("/api/rooms/{aborted}"), None).await;
    assert_eq!(summary["aborted"], true, "{summary}");
    let (_, replay) = http(addr, "GET", &format!("/api/rooms/{aborted}/games/1"), None).await;
    assert_eq!(replay["aborted"], true);
    // Nobody won it: the room's series stays 0–0.
    assert_eq!(over["room"]["series"]["wins"], json!({ "fugitive": 0, "marshal": 0 }), "{over}");

    // A rated one, to show the others were seen and passed over.
    let (rated, _, bob_token) = room(addr, &ada_cookie, &bob_cookie, json!({ "turn_clock_secs": 300 })).await;
    let mut marshal = Client::join(addr, &rated, Some(&bob_token)).await;
    assert_eq!(marshal.act(json!({ "type": "resign" })).await["ok"], true);
    let (_, summary) = http(addr, "GET", &format!("/api/rooms/{rated}"), None).await;
    assert_eq!(summary["aborted"], false, "a resignation is a loss");

    for id in [&ada, &bob] {
        let page = public(addr, id).await;
        let games = page["games"].as_array().unwrap();
        assert_eq!(games.len(), 1, "{page}");
        assert_eq!(games[0]["room"], rated.as_str());
    }
    for unrated in [&casual, &alone, &aborted] {
        let (status, _) = http(addr, "GET", &format!("/api/rooms/{unrated}/games/1/rating"), None).await;
        assert_eq!(status, 404);
    }
    server.stop().await;

    // The series counted again from the stored games, by a server that loads the room anew.
    let server = Server::start(&db, &[]).await;
    let spectator = Client::join(server.addr, &aborted, None).await;
    let room = &spectator.state.as_ref().unwrap()["room"];
    assert_eq!(room["series"]["wins"], json!({ "fugitive": 0, "marshal": 0 }), "{room}");
    server.stop().await;
}

#[tokio::test]
async fn a_leaderboard_per_role_lists_who_played_ten_rated_games_in_it_lately() {
    leaderboard(TestDb::sqlite()).await;
}

#[tokio::test]
#[ignore = "needs FUGITIVE_TEST_DATABASE_URL"]
async fn postgres_a_leaderboard_per_role_lists_who_played_ten_rated_games_in_it_lately() {
    leaderboard(TestDb::postgres().await).await;
}

async fn leaderboard(db: TestDb) {
    let server = Server::start(&db, &[]).await;
    let addr = server.addr;
    let (ada, ada_cookie) = profile(addr).await;
    let (bob, bob_cookie) = profile(addr).await;
    let (carol, carol_cookie) = profile(addr).await;
    post(addr, "/api/profile", &ada_cookie, json!({})).await;
    let rename = reqwest::Client::new()
        .patch(format!("http://{addr}/api/profile"))
        .header("cookie", &ada_cookie)
        .body(json!({ "name": "Ada" }).to_string())
        .send()
        .await
        .unwrap();
    assert_eq!(rename.status().as_u16(), 200);
    let resigned = |host: String, guest: String| async move {
        let (room, _, token) = room(addr, &host, &guest, json!({ "turn_clock_secs": 300 })).await;
        let mut marshal = Client::join(addr, &room, Some(&token)).await;
        assert_eq!(marshal.act(json!({ "type": "resign" })).await["ok"], true);
    };
    for _ in 0..10 {
        resigned(ada_cookie.clone(), bob_cookie.clone()).await;
    }
    resigned(carol_cookie.clone(), bob_cookie.clone()).await;

    let (_, board) = http(addr, "GET", "/api/leaderboard/fugitive", None).await;
    let leaders = board["leaders"].as_array().unwrap();
    assert_eq!(leaders.len(), 1, "Carol has one game only: {board}");
    assert_eq!((&leaders[0]["profile"], &leaders[0]["name"]), (&json!(ada), &json!("Ada")));
    assert_eq!(leaders[0]["recent_games"], 10);
    let (_, board) = http(addr, "GET", "/api/leaderboard/marshal", None).await;
    assert_eq!(board["leaders"][0]["profile"], bob.as_str(), "{board}");
    assert_eq!(board["leaders"][0]["rating"]["games"], 11);
    let page = public(addr, &ada).await;
    assert_eq!(page["wins"], json!({ "fugitive": 10, "marshal": 0 }));
    assert_eq!(public(addr, &bob).await["wins"], json!({ "fugitive": 0, "marshal": 0 }));
    assert_eq!(public(addr, &carol).await["ratings"]["fugitive"]["games"], 1);
    let (status, body) = http(addr, "GET", "/api/leaderboard/nobody", None).await;
    assert_eq!((status, &body["error"]), (400, &json!("bad_request")));
    server.stop().await;
    db.drop_database().await;
}
