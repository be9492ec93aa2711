//! What an attacker tried against the server (issue 9), and what it now does instead: every
//! close carries its code, caps cannot be turned against the players, HTTP clients cannot hold
//! connections open forever, and room creation is rate-limited.

use crate::common;

use common::{Client, PATIENCE, Server, TestDb, create_room};
use futures_util::{SinkExt, StreamExt};
use serde_json::json;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::tungstenite::protocol::frame::Frame;
use tokio_tungstenite::tungstenite::protocol::frame::coding::{Data, OpCode};

/// A raw socket on `room`, past `hello` as a spectator.
async fn raw_spectator(
    server: &Server,
    room: &str,
) -> tokio_tungstenite::WebSocketStream<tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>> {
    let url = format!("ws://{}/ws/v1/rooms/{room}", server.addr);
    let (mut ws, _) = tokio_tungstenite::connect_async(url).await.unwrap();
    ws.send(Message::text(json!({ "v": 1, "seq": 1, "type": "hello" }).to_string())).await.unwrap();
    ws
}

/// Reads until the close frame: its code, or `None` when the connection ended without one
/// (1006 in a browser).
async fn close_code(
    ws: &mut tokio_tungstenite::WebSocketStream<tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>>,
) -> Option<u16> {
    loop {
        match tokio::time::timeout(PATIENCE, ws.next()).await.expect("the socket closes in time") {
            Some(Ok(Message::Close(frame))) => return frame.map(|f| u16::from(f.code)),
            Some(Ok(_)) => continue,
            Some(Err(_)) | None => return None,
        }
    }
}

#[tokio::test]
async fn a_flood_sent_at_once_gets_its_1008_close_frame() {
    let db = TestDb::sqlite();
    let server = Server::start(&db, &["--max-messages-per-sec", "5"]).await;
    let seats = create_room(server.addr, json!({})).await;
    for burst in [40, 200, 1000] {
        let mut ws = raw_spectator(&server, &seats.room).await;
        // Every message in one write: the server has far more unread than it will ever read.
        for seq in 2..burst {
            let text = json!({ "v": 1, "seq": seq, "type": "rematch" }).to_string();
            ws.feed(Message::text(text)).await.unwrap();
        }
        ws.flush().await.unwrap();
        assert_eq!(close_code(&mut ws).await, Some(1008), "a burst of {burst}");
    }
    server.stop().await;
}

#[tokio::test]
async fn a_text_frame_that_is_not_utf8_closes_with_1007() {
    let db = TestDb::sqlite();
    let server = Server::start(&db, &[]).await;
    let seats = create_room(server.addr, json!({})).await;
    let mut ws = raw_spectator(&server, &seats.room).await;
    let bad = Frame::message(vec![b'{', 0xff, 0xfe, b'}'], OpCode::Data(Data::Text), true);
    ws.send(Message::Frame(bad)).await.unwrap();
    assert_eq!(close_code(&mut ws).await, Some(1007));
    // The room is still there for everyone else.
    let client = Client::join(server.addr, &seats.room, None).await;
    assert!(client.state.is_some());
    client.close().await;
    server.stop().await;
}

#[tokio::test]
async fn spectators_cannot_lock_a_player_out_of_his_seat() {
    let db = TestDb::sqlite();
    let server = Server::start(&db, &["--max-sockets-per-room", "2"]).await;
    let seats = create_room(server.addr, json!({ "role": "fugitive" })).await;
    let _watchers = [
        Client::join(server.addr, &seats.room, None).await,
        Client::join(server.addr, &seats.room, None).await,
    ];
    let mut third = Client::connect(server.addr, &seats.room).await;
    third.send_text(json!({ "v": 1, "seq": 1, "type": "hello" }).to_string()).await;
    assert_eq!(third.closed().await, Some(1013));
    // Both players come in, and a player on a second device too.
    let fugitive = Client::join(server.addr, &seats.room, Some(&seats.fugitive_token)).await;
    let mut marshal = Client::join(server.addr, &seats.room, Some(&seats.marshal_token)).await;
    let _again = Client::join(server.addr, &seats.room, Some(&seats.fugitive_token)).await;
    let state = marshal.wait_state(|s| s["room"]["presence"]["fugitive"] == true).await;
    assert_eq!(state["room"]["presence"]["marshal"], true);
    fugitive.close().await;
    server.stop().await;
}

#[tokio::test]
async fn a_socket_that_never_says_hello_is_closed_with_1008() {
    let db = TestDb::sqlite();
    let server = Server::start(&db, &["--hello-timeout", "300ms"]).await;
    let seats = create_room(server.addr, json!({})).await;
    let mut silent = Client::connect(server.addr, &seats.room).await;
    let mut joined = Client::join(server.addr, &seats.room, None).await;
    assert_eq!(silent.closed().await, Some(1008));
    // A joined socket is not concerned: it still gets its answers once its own hello time has
    // run out, as a silent socket opened after it proves by being closed.
    let mut later = Client::connect(server.addr, &seats.room).await;
    assert_eq!(later.closed().await, Some(1008));
    let reply = joined.request(json!({ "type": "rematch" })).await;
    assert_eq!(reply["error"]["code"], "spectator");
    server.stop().await;
}

#[tokio::test]
async fn room_creation_and_claims_are_rate_limited_per_client_address() {
    let db = TestDb::sqlite();
    let server = Server::start(&db, &["--max-rooms-per-minute", "3"]).await;
    let client = reqwest::Client::new();
    let post = |path: String, forwarded: Option<&'static str>, body: serde_json::Value| {
        let mut request = client.post(format!("http://{}{path}", server.addr)).json(&body);
        if let Some(address) = forwarded {
            request = request.header("x-forwarded-for", address);
        }
        request.send()
    };
    let created = post("/api/rooms".into(), None, json!({})).await.unwrap();
    assert_eq!(created.status(), 201);
    let created: serde_json::Value = created.json().await.unwrap();
    let room = created["room"].as_str().unwrap().to_string();
    assert_eq!(post("/api/rooms".into(), None, json!({})).await.unwrap().status(), 201);
    // A claim costs as much as a creation (here a wrong one: refused, but counted).
    let claim = format!("/api/rooms/{room}/claim");
    assert_eq!(post(claim.clone(), None, json!({ "invite": "x" })).await.unwrap().status(), 403);
    // Without --client-ip-header a forwarded address changes nothing.
    let limited = post("/api/rooms".into(), Some("203.0.113.9"), json!({})).await.unwrap();
    assert_eq!(limited.status(), 429);
    let retry: u64 = limited.headers()["retry-after"].to_str().unwrap().parse().unwrap();
    assert!((1..=60).contains(&retry), "Retry-After: {retry}");
    let body: serde_json::Value = limited.json().await.unwrap();
    assert_eq!(body["error"], "rate_limited");
    assert_eq!(post(claim, None, json!({ "invite": "x" })).await.unwrap().status(), 429);
    // Other endpoints are not limited.
    let (status, _) = common::http(server.addr, "GET", &format!("/api/rooms/{room}"), None).await;
    assert_eq!(status, 200);
    server.stop().await;

    // Behind a proxy: each client address has its own budget.
    let server =
        Server::start(&db, &["--max-rooms-per-minute", "1", "--client-ip-header", "X-Forwarded-For"]).await;
    let post = |forwarded: &'static str| {
        client
            .post(format!("http://{}/api/rooms", server.addr))
            .header("x-forwarded-for", forwarded)
            .body("")
            .send()
    };
    assert_eq!(post("203.0.113.9").await.unwrap().status(), 201);
    assert_eq!(post("198.51.100.1, 203.0.113.9").await.unwrap().status(), 429);
    assert_eq!(post("203.0.113.10").await.unwrap().status(), 201);
    server.stop().await;
}

#[tokio::test]
async fn a_client_sending_its_headers_slowly_is_cut_off() {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let db = TestDb::sqlite();
    let server = Server::start(&db, &["--header-read-timeout", "500ms"]).await;
    let mut tcp = tokio::net::TcpStream::connect(server.addr).await.unwrap();
    let request = b"GET /healthz HTTP/1.1\r\nHost: x\r\nX-Slow: aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa";
    // A byte every 100 ms: the headers never end; the server must end the connection.
    let mut cut_off = false;
    for byte in request.iter().cycle().take(PATIENCE.as_millis() as usize / 100) {
        if tcp.write_all(&[*byte]).await.is_err() {
            cut_off = true;
            break;
        }
        let mut buf = [0u8; 512];
        match tokio::time::timeout(std::time::Duration::from_millis(100), tcp.read(&mut buf)).await {
            Ok(Ok(0) | Err(_)) => {
                cut_off = true;
                break;
            }
            Ok(Ok(_)) => {
                // hyper answers 408 before closing: that is a cut too.
                cut_off = true;
                break;
            }
            Err(_) => {}
        }
    }
    assert!(cut_off, "the slow client was never cut off");
    server.stop().await;
}

#[tokio::test]
async fn a_request_whose_body_never_ends_gets_408() {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let db = TestDb::sqlite();
    let server = Server::start(&db, &["--request-timeout", "300ms"]).await;
    let mut tcp = tokio::net::TcpStream::connect(server.addr).await.unwrap();
    let head = "POST /api/rooms HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{";
    tcp.write_all(head.as_bytes()).await.unwrap();
    let mut answer = Vec::new();
    let mut buf = [0u8; 1024];
    loop {
        let n = tokio::time::timeout(PATIENCE, tcp.read(&mut buf)).await.expect("an answer in time").unwrap();
        answer.extend_from_slice(&buf[..n]);
        if n == 0 || String::from_utf8_lossy(&answer).contains("request_timeout") {
            break;
        }
    }
    let answer = String::from_utf8_lossy(&answer);
    assert!(answer.starts_with("HTTP/1.1 408"), "{answer}");
    assert!(answer.contains(r#""error":"request_timeout""#), "{answer}");
    server.stop().await;
}

#[tokio::test]
async fn a_missing_web_directory_stops_the_start_naming_the_path_and_the_flag() {
    use clap::Parser;
    let db = TestDb::sqlite();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let config = fugitive_server::Config::try_parse_from([
        "fugitive-server",
        "--database-url",
        &db.url,
        "--web-dir",
        "/nonexistent-web",
    ])
    .unwrap();
    let error = fugitive_server::run(listener, config, async {}).await.expect_err("no web client");
    let message = error.to_string();
    assert!(message.contains("/nonexistent-web") && message.contains("--web-dir"), "{message}");
}

#[tokio::test]
async fn the_static_server_serves_only_the_client_with_safe_and_revalidating_headers() {
    let db = TestDb::sqlite();
    let server = Server::start(&db, &[]).await;
    let client = reqwest::Client::new();
    let get = |path: &str| client.get(format!("http://{}{path}", server.addr)).send();
    for path in ["/", "/app.js", "/style.css", "/i18n/en.js", "/room/6f1c1ad8-7a4c-4e8e-9a47-3d0b8b4a4e6b"] {
        let response = get(path).await.unwrap();
        assert_eq!(response.status(), 200, "{path}");
        let headers = response.headers();
        assert!(headers["content-security-policy"].to_str().unwrap().contains("default-src 'self'"));
        assert_eq!(headers["x-content-type-options"], "nosniff");
        assert_eq!(headers["referrer-policy"], "no-referrer");
        assert_eq!(headers["cache-control"], "no-cache", "{path}");
        let modified = headers["last-modified"].clone();
        // Unchanged since: 304, nothing downloaded again.
        let again = client
            .get(format!("http://{}{path}", server.addr))
            .header("if-modified-since", modified)
            .send()
            .await
            .unwrap();
        assert_eq!(again.status(), 304, "{path}");
    }
    for path in
        ["/package.json", "/package-lock.json", "/tests/harness.mjs", "/tests/game.test.mjs", "/README.md"]
    {
        assert_eq!(get(path).await.unwrap().status(), 404, "{path}");
    }
    // The API's answers carry the same headers.
    let health = get("/healthz").await.unwrap();
    assert_eq!(health.headers()["x-content-type-options"], "nosniff");
    server.stop().await;
}

#[tokio::test]
async fn a_page_can_ask_whether_its_origin_may_open_a_socket() {
    let db = TestDb::sqlite();
    let server = Server::start(&db, &["--allowed-origins", "https://fugitive.example"]).await;
    let (status, body) =
        common::http(server.addr, "GET", "/api/origin?origin=https%3A%2F%2Ffugitive.example", None).await;
    assert_eq!((status, body["allowed"].as_bool()), (200, Some(true)), "{body}");
    let (status, body) =
        common::http(server.addr, "GET", "/api/origin?origin=http%3A%2F%2F10.0.0.5%3A8080", None).await;
    assert_eq!((status, body["error"].as_str()), (403, Some("origin_not_allowed")), "{body}");
    let message = body["message"].as_str().unwrap();
    assert!(message.contains("http://10.0.0.5:8080") && message.contains("--allowed-origins"), "{message}");
    // The refused upgrade itself answers the same JSON error.
    let url = format!("ws://{}/ws/v1/rooms/{}", server.addr, uuid::Uuid::new_v4());
    let mut request =
        tokio_tungstenite::tungstenite::client::IntoClientRequest::into_client_request(url).unwrap();
    request.headers_mut().insert("origin", "http://10.0.0.5:8080".parse().unwrap());
    match tokio_tungstenite::connect_async(request).await {
        Err(tokio_tungstenite::tungstenite::Error::Http(response)) => {
            assert_eq!(response.status(), 403);
            let body: serde_json::Value =
                serde_json::from_slice(response.body().as_deref().unwrap()).unwrap();
            assert_eq!(body["error"], "origin_not_allowed");
        }
        other => panic!("expected a 403, got {:?}", other.map(|_| ())),
    }
    server.stop().await;
}

/// The rules of `docs/protocol.md` that decide between two refusals.
#[tokio::test]
async fn before_hello_a_bad_message_is_named_and_unknown_fields_are_ignored_outside_action() {
    let db = TestDb::sqlite();
    let server = Server::start(&db, &[]).await;
    let seats = create_room(server.addr, json!({ "role": "fugitive" })).await;
    let mut client = Client::connect(server.addr, &seats.room).await;
    // The message is read before the socket's state is looked at: an unknown `type` (or a
    // malformed message) is named as such even before `hello`.
    let reply = client.request(json!({ "type": "teleport" })).await;
    assert_eq!(reply["error"]["code"], "unknown_message");
    let reply = client.request(json!({ "type": "action", "action": { "type": "fly" } })).await;
    assert_eq!(reply["error"]["code"], "malformed");
    let reply = client.request(json!({ "type": "action", "action": { "type": "pass" } })).await;
    assert_eq!(reply["error"]["code"], "hello_first");
    // Unknown top-level fields are ignored…
    let reply =
        client.request(json!({ "type": "hello", "token": seats.fugitive_token, "colour": "red" })).await;
    assert_eq!(reply["ok"], true, "{reply}");
    // …but refused inside `action`.
    let legal = client.state.as_ref().unwrap()["legal"].clone();
    let hideout = legal["placements"][0]["hideout"].clone();
    let reply = client
        .request(
            json!({ "type": "action", "action": { "type": "place", "hideout": hideout, "colour": "red" } }),
        )
        .await;
    assert_eq!(reply["error"]["code"], "malformed", "{reply}");
    let reply = client
        .request(json!({ "type": "action", "trace": 1, "action": { "type": "place", "hideout": hideout } }))
        .await;
    assert_eq!(reply["ok"], true, "{reply}");
    server.stop().await;
}

/// `docs/protocol.md`: a replay's actions come back normalized: numbers sorted, `sprints`
/// always present.
#[tokio::test]
async fn replay_actions_come_back_normalized() {
    let db = TestDb::sqlite();
    let server = Server::start(&db, &[]).await;
    let mut table = common::Table::open(server.addr, json!({ "role": "fugitive" })).await;
    let legal = table.fugitive.state.as_ref().unwrap()["legal"].clone();
    let hideout = legal["placements"][0]["hideout"].as_u64().unwrap();
    assert_eq!(table.fugitive.act(json!({ "type": "place", "hideout": hideout })).await["ok"], true);
    assert_eq!(table.fugitive.act(json!({ "type": "end_turn" })).await["ok"], true);
    let mut version = 2;
    table.sync(version).await;
    // The Marshal draws what she must (R8), then guesses.
    while table.marshal.state.as_ref().unwrap()["legal"]["guess"].is_null() {
        let draw = table.marshal.state.as_ref().unwrap()["legal"]["draws"][0].clone();
        assert_eq!(table.marshal.act(json!({ "type": "draw", "deck": draw })).await["ok"], true);
        version += 1;
        table.sync(version).await;
    }
    let drawn = usize::try_from(version).unwrap();
    let legal = table.marshal.state.as_ref().unwrap()["legal"]["guess"]["numbers"].clone();
    // Two numbers that are not the hideout, named in descending order.
    let mut numbers: Vec<u64> =
        legal.as_array().unwrap().iter().filter_map(|n| n.as_u64()).filter(|&n| n != hideout).collect();
    numbers.sort_unstable_by(|a, b| b.cmp(a));
    numbers.truncate(2);
    assert_eq!(table.marshal.act(json!({ "type": "guess", "numbers": numbers })).await["ok"], true);
    assert_eq!(table.marshal.act(json!({ "type": "resign" })).await["ok"], true);
    let (status, replay) =
        common::http(server.addr, "GET", &format!("/api/rooms/{}/games/1", table.seats.room), None).await;
    assert_eq!(status, 200, "{replay}");
    let actions = replay["actions"].as_array().unwrap();
    assert_eq!(actions[0], json!(["fugitive", { "type": "place", "hideout": hideout, "sprints": [] }]));
    numbers.reverse();
    assert_eq!(actions[drawn], json!(["marshal", { "type": "guess", "numbers": numbers }]));
    // After the end every card is shown, but a hideout never found stays face down.
    let trail = &replay["view"]["trail"][1];
    assert_eq!((trail["card"].as_u64(), trail["face_up"].as_bool()), (Some(hideout), Some(false)), "{trail}");
    server.stop().await;
}
