//! The lobby (issue 25): seeks pushed live to every lobby socket, one click seats both players in
//! a new room, the limits and the errors, seeks dying with their seeker's last socket, and quick
//! pairing.

use crate::common;

use std::net::SocketAddr;

use common::{Client, PATIENCE, Server, TestDb, http};
use futures_util::{SinkExt, StreamExt};
use serde_json::{Value, json};
use tokio::net::TcpStream;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::tungstenite::client::IntoClientRequest;
use tokio_tungstenite::{MaybeTlsStream, WebSocketStream};

/// A browser's profile cookie and id.
async fn profile(addr: SocketAddr) -> (String, String) {
    let response = reqwest::Client::new().post(format!("http://{addr}/api/profile")).send().await.unwrap();
    let cookie = response.headers()["set-cookie"].to_str().unwrap().split(';').next().unwrap().to_string();
    let id = response.json::<Value>().await.unwrap()["id"].as_str().unwrap().to_string();
    (id, cookie)
}

/// A lobby page's socket.
struct Lobby {
    ws: WebSocketStream<MaybeTlsStream<TcpStream>>,
    /// The first message: the list.
    list: Value,
    /// Messages received while waiting for another, not yet asked for.
    pending: std::collections::VecDeque<Value>,
}

impl Lobby {
    async fn open(addr: SocketAddr, cookie: Option<&str>) -> Lobby {
        let mut request = format!("ws://{addr}/ws/lobby").into_client_request().unwrap();
        if let Some(cookie) = cookie {
            request.headers_mut().insert("cookie", cookie.parse().unwrap());
        }
        let (ws, _) = tokio_tungstenite::connect_async(request).await.unwrap();
        let mut lobby = Lobby { ws, list: Value::Null, pending: Default::default() };
        lobby.list = lobby.next(|m| m["type"] == "seeks").await;
        lobby
    }

    async fn send(&mut self, message: Value) {
        self.ws.send(Message::Text(message.to_string().into())).await.unwrap();
    }

    /// The first message, received or still to come, that `wanted` accepts (the others wait for
    /// their turn).
    async fn next(&mut self, wanted: impl Fn(&Value) -> bool) -> Value {
        if let Some(i) = self.pending.iter().position(&wanted) {
            return self.pending.remove(i).unwrap();
        }
        tokio::time::timeout(PATIENCE, async {
            loop {
                match self.ws.next().await {
                    Some(Ok(Message::Text(text))) => {
                        let message: Value = serde_json::from_str(&text).unwrap();
                        if wanted(&message) {
                            return message;
                        }
                        self.pending.push_back(message);
                    }
                    Some(Ok(_)) => {}
                    other => panic!("the lobby socket ended: {other:?}"),
                }
            }
        })
        .await
        .expect("the message came")
    }

    async fn seek(&mut self, seek: Value) -> Value {
        self.send(json!({ "type": "seek", "seek": seek })).await;
        self.next(|m| m["type"] == "seeked" || m["type"] == "error").await
    }
}

fn rated_seek(role: &str) -> Value {
    json!({ "role": role, "rules": {}, "turn_clock_secs": 300, "rated": true })
}

fn token(paired: &Value) -> String {
    paired["link"].as_str().unwrap().split("#seat=").nth(1).unwrap().to_string()
}

#[tokio::test]
async fn a_seek_shows_on_every_lobby_at_once_and_one_click_seats_both_players() {
    let db = TestDb::sqlite();
    let server = Server::start(&db, &[]).await;
    let addr = server.addr;
    let mut watcher = Lobby::open(addr, None).await;
    assert_eq!(watcher.list["seeks"], json!([]));
    assert_eq!(watcher.list["pools"].as_array().unwrap().len(), 3);
    let (ada, ada_cookie) = profile(addr).await;
    let (bob, bob_cookie) = profile(addr).await;
    let mut ada_lobby = Lobby::open(addr, Some(&ada_cookie)).await;
    let mut bob_lobby = Lobby::open(addr, Some(&bob_cookie)).await;
    assert_eq!(ada_lobby.list["profile"], ada.as_str());

    let seeked = ada_lobby.seek(rated_seek("fugitive")).await;
    let id = seeked["id"].as_str().expect("a seek id").to_string();
    let added = watcher.next(|m| m["type"] == "seek_added").await;
    assert_eq!(added["seek"]["id"], id.as_str());
    assert_eq!(added["seek"]["profile"], ada.as_str());
    assert_eq!(added["seek"]["role"], "fugitive");
    assert_eq!(added["seek"]["rating"], json!({ "rating": 1500.0, "provisional": true }));
    assert_eq!((&added["seek"]["rated"], &added["seek"]["correspondence"]), (&json!(true), &json!(false)));
    bob_lobby.next(|m| m["type"] == "seek_added").await;
    // A later page gets it in its list.
    let late = Lobby::open(addr, None).await;
    assert_eq!(late.list["seeks"][0]["id"], id.as_str());

    // Taking one's own seek is refused; Bob takes it.
    ada_lobby.send(json!({ "type": "accept", "id": id })).await;
    let refused = ada_lobby.next(|m| m["type"] == "error").await;
    assert_eq!(refused["code"], "own_seek");
    bob_lobby.send(json!({ "type": "accept", "id": id })).await;
    let bob_paired = bob_lobby.next(|m| m["type"] == "paired").await;
    let ada_paired = ada_lobby.next(|m| m["type"] == "paired").await;
    assert_eq!(watcher.next(|m| m["type"] == "seek_removed").await["id"], id.as_str());
    assert_eq!((&ada_paired["role"], &bob_paired["role"]), (&json!("fugitive"), &json!("marshal")));
    assert_eq!(ada_paired["room"], bob_paired["room"]);
    let room = ada_paired["room"].as_str().unwrap();
    let fugitive = Client::join(addr, room, Some(&token(&ada_paired))).await;
    assert_eq!(fugitive.welcome.as_ref().unwrap()["role"], "fugitive");
    let mut marshal = Client::join(addr, room, Some(&token(&bob_paired))).await;
    assert_eq!(marshal.welcome.as_ref().unwrap()["role"], "marshal");
    // Taken: gone for everyone else.
    bob_lobby.send(json!({ "type": "accept", "id": id })).await;
    assert_eq!(bob_lobby.next(|m| m["type"] == "error").await["code"], "seek_gone");
    // The seats are the profiles': the game is rated.
    assert_eq!(marshal.act(json!({ "type": "resign" })).await["ok"], true);
    let (status, _) = http(addr, "GET", &format!("/api/rooms/{room}/games/1/rating"), None).await;
    assert_eq!(status, 200);
    let (_, page) = http(addr, "GET", &format!("/api/profiles/{bob}"), None).await;
    assert_eq!(page["ratings"]["marshal"]["games"], 1, "{page}");

    // A casual seek makes a room that is never rated.
    let casual = ada_lobby
        .seek(json!({ "role": "random", "rules": {}, "turn_clock_secs": 300, "rated": false }))
        .await;
    bob_lobby.send(json!({ "type": "accept", "id": casual["id"] })).await;
    let bob_paired = bob_lobby.next(|m| m["type"] == "paired").await;
    let room = bob_paired["room"].as_str().unwrap();
    let mut bob_seat = Client::join(addr, room, Some(&token(&bob_paired))).await;
    assert_eq!(bob_seat.act(json!({ "type": "resign" })).await["ok"], true);
    let (status, _) = http(addr, "GET", &format!("/api/rooms/{room}/games/1/rating"), None).await;
    assert_eq!(status, 404, "a casual game is not rated");
    server.stop().await;
}

#[tokio::test]
async fn seeks_are_limited_checked_and_die_with_their_seekers_last_socket() {
    let db = TestDb::sqlite();
    let server = Server::start(&db, &[]).await;
    let addr = server.addr;
    let mut watcher = Lobby::open(addr, None).await;
    assert_eq!(watcher.seek(rated_seek("marshal")).await["code"], "no_profile");
    let (_, ada_cookie) = profile(addr).await;
    let mut ada = Lobby::open(addr, Some(&ada_cookie)).await;
    let mut second = Lobby::open(addr, Some(&ada_cookie)).await;
    let bad = ada.seek(json!({ "role": "marshal", "rules": {}, "turn_clock_secs": 0, "rated": true })).await;
    assert_eq!(bad["code"], "bad_seek");
    ada.send(json!({ "type": "dance" })).await;
    assert_eq!(ada.next(|m| m["type"] == "error").await["code"], "bad_seek");
    let mut ids = Vec::new();
    for role in ["fugitive", "marshal"] {
        ids.push(ada.seek(rated_seek(role)).await["id"].as_str().unwrap().to_string());
    }
    let by_post = json!({ "role": "random", "rules": {}, "turn_clock_secs": 86_400, "rated": true });
    let correspondence = ada.seek(by_post).await["id"].as_str().unwrap().to_string();
    assert_eq!(ada.seek(rated_seek("random")).await["code"], "too_many_seeks");
    for _ in 0..3 {
        watcher.next(|m| m["type"] == "seek_added").await;
    }

    // Cancelled: gone everywhere.
    ada.send(json!({ "type": "cancel", "id": ids[0] })).await;
    assert_eq!(watcher.next(|m| m["type"] == "seek_removed").await["id"], ids[0].as_str());
    // One socket of two closes: the seeks stay; the last closes: the real-time seek dies, the
    // correspondence one stays.
    ada.ws.close(None).await.unwrap();
    second.send(json!({ "type": "cancel", "id": "none" })).await;
    assert_eq!(second.next(|m| m["type"] == "error").await["code"], "seek_gone");
    let list = Lobby::open(addr, None).await.list;
    assert_eq!(list["seeks"].as_array().unwrap().len(), 2, "{list}");
    second.ws.close(None).await.unwrap();
    assert_eq!(watcher.next(|m| m["type"] == "seek_removed").await["id"], ids[1].as_str());
    let list = Lobby::open(addr, None).await.list;
    let left: Vec<&Value> = list["seeks"].as_array().unwrap().iter().map(|s| &s["id"]).collect();
    assert_eq!(left, [&json!(correspondence)]);
    assert_eq!(list["seeks"][0]["correspondence"], true);
    server.stop().await;
}

/// A correspondence seek is taken while the node that kept it is down (here: one node,
/// restarted, which forgot its seekers): the seeker is told of his game (`paired`, once) when he
/// opens the lobby again, and his link takes his seat.
#[tokio::test]
async fn a_seeker_not_there_when_his_seek_is_taken_finds_his_game_in_the_lobby() {
    let db = TestDb::sqlite();
    let server = Server::start(&db, &[]).await;
    let (_, ada_cookie) = profile(server.addr).await;
    let (_, bob_cookie) = profile(server.addr).await;
    let mut ada = Lobby::open(server.addr, Some(&ada_cookie)).await;
    let by_post = json!({ "role": "marshal", "rules": {}, "turn_clock_secs": 86_400, "rated": true });
    let id = ada.seek(by_post).await["id"].as_str().unwrap().to_string();
    server.stop().await;

    let server = Server::start(&db, &[]).await;
    let addr = server.addr;
    let mut bob = Lobby::open(addr, Some(&bob_cookie)).await;
    bob.send(json!({ "type": "accept", "id": id })).await;
    let bob_paired = bob.next(|m| m["type"] == "paired").await;
    let mut ada = Lobby::open(addr, Some(&ada_cookie)).await;
    let ada_paired = ada.next(|m| m["type"] == "paired").await;
    assert_eq!(ada_paired["room"], bob_paired["room"]);
    assert_eq!(ada_paired["role"], "marshal");
    let room = ada_paired["room"].as_str().unwrap();
    let seat = Client::join(addr, room, Some(&token(&ada_paired))).await;
    assert_eq!(seat.welcome.as_ref().unwrap()["role"], "marshal");
    // Told once: the next lobby page is not sent into that game again.
    ada.ws.close(None).await.unwrap();
    let mut again = Lobby::open(addr, Some(&ada_cookie)).await;
    again.send(json!({ "type": "cancel", "id": "none" })).await;
    let next = again.next(|m| m["type"] == "paired" || m["type"] == "error").await;
    assert_eq!(next["type"], "error", "{next}");
    server.stop().await;
}

/// Many players seek at once (`fugitive-load --mode lobby` found seeks refused `unavailable`
/// on SQLite: "database is locked"); every seek is made and listed, and the limit still holds.
#[tokio::test]
async fn players_seeking_at_once_all_get_their_seeks() {
    let db = TestDb::sqlite();
    let server = Server::start(&db, &[]).await;
    let addr = server.addr;
    let mut players = Vec::new();
    for _ in 0..12 {
        let (_, cookie) = profile(addr).await;
        players.push(Lobby::open(addr, Some(&cookie)).await);
    }
    let by_post = json!({ "role": "random", "rules": {}, "turn_clock_secs": 86_400, "rated": true });
    for _ in 0..3 {
        let seeks = players.iter_mut().map(|player| player.seek(by_post.clone()));
        for seeked in futures_util::future::join_all(seeks).await {
            assert_eq!(seeked["type"], "seeked", "{seeked}");
        }
    }
    let refused = futures_util::future::join_all(players.iter_mut().map(|p| p.seek(by_post.clone()))).await;
    assert!(refused.iter().all(|r| r["code"] == "too_many_seeks"), "{refused:?}");
    let list = Lobby::open(addr, None).await.list;
    assert_eq!(list["seeks"].as_array().unwrap().len(), 36);
    server.stop().await;
}

#[tokio::test]
async fn quick_pairing_pairs_two_players_of_one_pool() {
    let db = TestDb::sqlite();
    let server = Server::start(&db, &[]).await;
    let addr = server.addr;
    let (_, ada_cookie) = profile(addr).await;
    let (_, bob_cookie) = profile(addr).await;
    let mut ada = Lobby::open(addr, Some(&ada_cookie)).await;
    let mut bob = Lobby::open(addr, Some(&bob_cookie)).await;
    ada.send(json!({ "type": "pool", "pool": "nothing" })).await;
    assert_eq!(ada.next(|m| m["type"] == "error").await["code"], "no_pool");
    ada.send(json!({ "type": "pool", "pool": "base_5min" })).await;
    assert_eq!(ada.next(|m| m["type"] == "pooled").await["pool"], "base_5min");
    // Bob comes: the two ratings are equal, they are paired at once.
    bob.send(json!({ "type": "pool", "pool": "base_5min" })).await;
    let bob_paired = bob.next(|m| m["type"] == "paired").await;
    let ada_paired = ada.next(|m| m["type"] == "paired").await;
    assert_eq!(ada_paired["room"], bob_paired["room"]);
    assert_ne!(ada_paired["role"], bob_paired["role"]);
    let (_, summary) =
        http(addr, "GET", &format!("/api/rooms/{}", ada_paired["room"].as_str().unwrap()), None).await;
    assert_eq!(summary["turn_clock_secs"], 300);
    assert_eq!(summary["seats"], json!({ "fugitive": true, "marshal": true }));
    server.stop().await;
}

/// Three nodes on one PostgreSQL database: a seek made on one shows on the others (NOTIFY), two
/// players who take it at once through two other nodes get one game and one `seek_gone`, and the
/// seeker, on the first node, gets his seat.
#[tokio::test]
#[ignore = "needs FUGITIVE_TEST_DATABASE_URL"]
async fn postgres_three_nodes_show_a_seek_everywhere_and_seat_one_of_two_takers() {
    use common::child::ChildServer;
    let db = TestDb::postgres().await;
    let mut nodes = Vec::new();
    for _ in 0..3 {
        nodes.push(ChildServer::spawn(&db, &["--lease-ms", "900"]).await);
    }
    let [a, b, c] = [nodes[0].addr, nodes[1].addr, nodes[2].addr];
    let (_, ada_cookie) = profile(a).await;
    let (_, bob_cookie) = profile(b).await;
    let (_, cat_cookie) = profile(c).await;
    let mut ada = Lobby::open(a, Some(&ada_cookie)).await;
    let mut bob = Lobby::open(b, Some(&bob_cookie)).await;
    let mut cat = Lobby::open(c, Some(&cat_cookie)).await;

    for round in 0..5 {
        let id = ada.seek(rated_seek("random")).await["id"].as_str().unwrap().to_string();
        // Shown on the other nodes' lobby pages.
        for lobby in [&mut bob, &mut cat] {
            let added = lobby.next(|m| m["type"] == "seek_added").await;
            assert_eq!(added["seek"]["id"], id.as_str(), "round {round}");
        }
        // Both take it at once.
        let accept = json!({ "type": "accept", "id": id });
        let (sent_b, sent_c) = tokio::join!(bob.send(accept.clone()), cat.send(accept));
        let ((), ()) = (sent_b, sent_c);
        let answer = |m: &Value| m["type"] == "paired" || m["type"] == "error";
        let (from_b, from_c) = tokio::join!(bob.next(answer), cat.next(answer));
        let (won, lost) = if from_b["type"] == "paired" { (from_b, from_c) } else { (from_c, from_b) };
        assert_eq!(won["type"], "paired", "round {round}: {won}");
        assert_eq!(lost["code"], "seek_gone", "round {round}: {lost}");
        let seeker = ada.next(|m| m["type"] == "paired").await;
        assert_eq!(seeker["room"], won["room"], "round {round}");
        assert_ne!(seeker["role"], won["role"]);
        // The seek is gone from every page.
        for lobby in [&mut bob, &mut cat] {
            assert_eq!(lobby.next(|m| m["type"] == "seek_removed").await["id"], id.as_str());
        }
        // Both seats open the room, through any node.
        let room = won["room"].as_str().unwrap();
        let one = Client::join(c, room, Some(&token(&seeker))).await;
        let two = Client::join(a, room, Some(&token(&won))).await;
        assert_ne!(one.welcome.as_ref().unwrap()["role"], two.welcome.as_ref().unwrap()["role"]);
    }
    for node in nodes {
        node.kill_9().await;
    }
    db.drop_database().await;
}
