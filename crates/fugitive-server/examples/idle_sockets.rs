//! Memory per idle socket of a running server, on protocol 1 or 2: for `BENCHMARKS.md`.
//!
//! `idle_sockets ADDR PID PROTOCOL [SOCKETS] [ROOMS]` creates ROOMS rooms (20) on the server at
//! ADDR (whose process is PID), opens one warm-up spectator on each, reads the server's `VmRSS`,
//! then opens SOCKETS (1000) more spectators spread over the rooms on `/ws/vPROTOCOL/…`, each
//! saying `hello` and reading its first state and reply, and reads `VmRSS` again. Linux only.

use std::time::Duration;

use futures_util::{SinkExt, StreamExt};
use serde_json::{Value, json};
use tokio_tungstenite::tungstenite::Message;

type Ws = tokio_tungstenite::WebSocketStream<tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>>;

fn rss_kib(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).expect("the server's status");
    let line = status.lines().find(|l| l.starts_with("VmRSS:")).expect("VmRSS");
    line.split_whitespace().nth(1).unwrap().parse().unwrap()
}

async fn spectator(addr: &str, protocol: u64, room: &str) -> Ws {
    let (mut ws, _) =
        tokio_tungstenite::connect_async(format!("ws://{addr}/ws/v{protocol}/rooms/{room}")).await.unwrap();
    let hello = json!({ "v": protocol, "seq": 1, "type": "hello" });
    ws.send(Message::text(hello.to_string())).await.unwrap();
    while let Some(Ok(message)) = ws.next().await {
        if let Message::Text(text) = message {
            let frame: Value = serde_json::from_str(text.as_str()).unwrap();
            if frame["type"] == "reply" {
                assert_eq!(frame["ok"], true, "{frame}");
                break;
            }
        }
    }
    ws
}

/// Keeps the sockets answering pings (tungstenite answers while a socket is read).
fn hold(sockets: Vec<Ws>) {
    for mut ws in sockets {
        tokio::spawn(async move { while let Some(Ok(_)) = ws.next().await {} });
    }
}

#[tokio::main]
async fn main() {
    let args: Vec<String> = std::env::args().collect();
    let addr = args.get(1).expect("ADDR").clone();
    let pid: u32 = args.get(2).expect("PID").parse().unwrap();
    let protocol: u64 = args.get(3).expect("PROTOCOL").parse().unwrap();
    let sockets: usize = args.get(4).map_or(1000, |a| a.parse().unwrap());
    let rooms: usize = args.get(5).map_or(20, |a| a.parse().unwrap());
    let http = reqwest::Client::new();
    let mut ids = Vec::new();
    for _ in 0..rooms {
        let created: Value = http
            .post(format!("http://{addr}/api/rooms"))
            .json(&json!({}))
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        ids.push(created["room"].as_str().unwrap().to_owned());
    }
    let mut warm = Vec::new();
    for room in &ids {
        warm.push(spectator(&addr, protocol, room).await);
    }
    hold(warm);
    tokio::time::sleep(Duration::from_secs(2)).await;
    let before = rss_kib(pid);
    let mut idle = Vec::new();
    for i in 0..sockets {
        idle.push(spectator(&addr, protocol, &ids[i % rooms]).await);
    }
    hold(idle);
    tokio::time::sleep(Duration::from_secs(2)).await;
    let after = rss_kib(pid);
    println!(
        "| protocol {protocol} | {sockets} idle spectator sockets over {rooms} rooms | {:.1} MiB → {:.1} MiB | **{:.1} KiB** |",
        before as f64 / 1024.0,
        after as f64 / 1024.0,
        (after - before) as f64 / sockets as f64
    );
}
