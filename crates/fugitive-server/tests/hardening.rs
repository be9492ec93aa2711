//! What an attacker tried against the server (issue 9), and what it now does instead: every
//! close carries its code, caps cannot be turned against the players, HTTP clients cannot hold
//! connections open forever, and room creation is rate-limited.

mod common;

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
    // A joined socket is not concerned: it still gets its answers afterwards.
    tokio::time::sleep(std::time::Duration::from_millis(400)).await;
    let reply = joined.request(json!({ "type": "rematch" })).await;
    assert_eq!(reply["error"]["code"], "spectator");
    server.stop().await;
}
