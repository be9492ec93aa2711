//! The real binary's start-up (issue 9): what it logs for the person who runs it, and the
//! open-files limit, which caps `--max-sockets` so that overload is a 503 and not a hang.

use crate::common;

use std::process::Stdio;
use std::time::Duration;

use common::{Client, PATIENCE, TestDb, WEB_DIR, create_room};
use serde_json::json;
use tokio::io::AsyncReadExt;
use tokio::process::{Child, Command};

fn free_addr() -> std::net::SocketAddr {
    std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap()
}

/// Starts the binary through `sh -c` (for `ulimit`), its output piped.
fn spawn(shell_prefix: &str, args: &[&str]) -> Child {
    let mut command = format!("{shell_prefix} exec '{}'", env!("CARGO_BIN_EXE_fugitive-server"));
    for arg in args {
        command.push_str(&format!(" '{arg}'"));
    }
    Command::new("sh")
        .args(["-c", &command])
        .env("RUST_LOG", "info")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .unwrap()
}

/// Waits until `/healthz` answers: the server has started and said so.
async fn wait_listening(addr: std::net::SocketAddr) {
    let started = tokio::time::Instant::now();
    let client = reqwest::Client::new();
    while client.get(format!("http://{addr}/healthz")).send().await.is_err() {
        assert!(started.elapsed() < PATIENCE, "the server did not start listening");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// Stops the child and returns everything it wrote.
async fn output(mut child: Child) -> String {
    let _ = child.start_kill();
    let mut text = String::new();
    child.stdout.take().unwrap().read_to_string(&mut text).await.unwrap();
    child.stderr.take().unwrap().read_to_string(&mut text).await.unwrap();
    let _ = child.wait().await;
    text
}

#[tokio::test]
async fn start_up_logs_the_url_the_database_and_the_web_directory_without_colours() {
    let db = TestDb::sqlite();
    let addr = free_addr();
    let child = spawn("", &["--addr", &addr.to_string(), "--database-url", &db.url, "--web-dir", WEB_DIR]);
    wait_listening(addr).await;
    let text = output(child).await;
    assert!(text.contains(&format!("open http://{addr} in a browser")), "{text}");
    assert!(text.contains(&db.url), "{text}");
    assert!(text.contains(WEB_DIR), "{text}");
    assert!(!text.contains('\u{1b}'), "colour codes in a pipe: {text:?}");

    // A password never reaches the log, even when the database cannot be reached.
    let (no_database, port) = no_database().await;
    let url = format!("postgres://fugitive:s3cr3t-pw@127.0.0.1:{port}/fugitive");
    let (text, causes) =
        failed_start(&["--addr", &free_addr().to_string(), "--database-url", &url, "--web-dir", WEB_DIR])
            .await;
    no_database.abort();
    assert!(!text.contains("s3cr3t-pw"), "{text}");
    assert!(text.contains(&format!("postgres://fugitive:***@127.0.0.1:{port}/fugitive")), "{text}");
    assert_said_once(&text, &causes);
}

/// A port where no database answers: each connection is accepted and closed at once, so the
/// server gives up on its first try. (A refused connection, a closed port, would do as well, but
/// the pool takes that for a database still starting and tries again for 30 s before it gives
/// up: the slowest wait of the whole test suite, for the same log.)
async fn no_database() -> (tokio::task::JoinHandle<()>, u16) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    let task = tokio::spawn(async move {
        while let Ok((socket, _)) = listener.accept().await {
            drop(socket);
        }
    });
    (task, port)
}

#[tokio::test]
async fn max_sockets_is_capped_below_the_open_files_limit_so_overload_is_a_503() {
    let db = TestDb::sqlite();
    let addr = free_addr();
    let args = ["--addr", &addr.to_string(), "--database-url", &db.url, "--web-dir", WEB_DIR];
    let args: Vec<&str> =
        args.iter().copied().chain(["--max-sockets", "100000", "--max-sockets-per-room", "1000"]).collect();
    // 128 files at most, hard and soft: 64 for the server itself, 48 sockets (three quarters
    // of the rest) and 8 HTTP connections (two files each).
    let child = spawn("ulimit -n 128 &&", &args);
    wait_listening(addr).await;
    let seats = create_room(addr, json!({})).await;
    let mut open = Vec::new();
    let refused = loop {
        assert!(open.len() <= 128, "more sockets than files");
        let connecting = Client::connect_with_origin(addr, &seats.room, None);
        match tokio::time::timeout(PATIENCE, connecting).await.expect("an answer, not a hang") {
            Ok(client) => open.push(client),
            Err(tokio_tungstenite::tungstenite::Error::Http(response)) => break response.status(),
            Err(other) => panic!("the server failed instead of refusing: {other}"),
        }
    };
    assert_eq!(refused, 503);
    assert_eq!(open.len(), 48);
    // The server still answers everything else.
    assert_eq!(common::http_text(addr, "GET", "/healthz", None).await.0, 200);
    drop(open);
    let text = output(child).await;
    assert!(text.contains("--max-sockets lowered below the open-files limit"), "{text}");
}

/// Starts the binary with `args`, waits for it to give up, and returns the chain of causes
/// it printed (the lines under anyhow's "Caused by:", without their numbers when there are
/// several).
async fn failed_start(args: &[&str]) -> (String, Vec<String>) {
    let mut child = spawn("", args);
    let status =
        tokio::time::timeout(Duration::from_secs(60), child.wait()).await.expect("it gives up").unwrap();
    assert!(!status.success());
    let text = output(child).await;
    let causes = text
        .lines()
        .skip_while(|line| !line.starts_with("Caused by:"))
        .skip(1)
        .take_while(|line| !line.trim().is_empty() && !line.starts_with("Stack backtrace"))
        .map(|line| {
            let line = line.trim();
            match line.split_once(": ") {
                Some((number, cause)) if number.bytes().all(|b| b.is_ascii_digit()) => cause.to_string(),
                _ => line.to_string(),
            }
        })
        .collect();
    (text, causes)
}

/// Each cause says something the ones above it did not (issue 23: the missing web client and
/// an unreachable database were each printed twice, as the error and again as its cause).
fn assert_said_once(text: &str, causes: &[String]) {
    assert!(!causes.is_empty(), "{text}");
    for (i, cause) in causes.iter().enumerate() {
        assert!(causes[..i].iter().all(|above| !above.contains(cause.as_str())), "printed twice: {text}");
    }
}

#[tokio::test]
async fn a_missing_web_client_is_said_once() {
    let db = TestDb::sqlite();
    let args = ["--addr", &free_addr().to_string(), "--database-url", &db.url, "--web-dir", "/nonexistent"];
    let (text, causes) = failed_start(&args).await;
    assert_said_once(&text, &causes);
    assert_eq!(text.matches("the web client is not in /nonexistent").count(), 1, "{text}");
}

/// A WebSocket upgrade on a raw connection of our own, so that the test decides when it closes.
async fn upgrade(addr: std::net::SocketAddr, room: &str) -> tokio::net::TcpStream {
    use tokio::io::AsyncWriteExt;
    let mut tcp = tokio::net::TcpStream::connect(addr).await.unwrap();
    let request = format!(
        "GET /ws/v1/rooms/{room} HTTP/1.1\r\nHost: {addr}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\
         Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n"
    );
    tcp.write_all(request.as_bytes()).await.unwrap();
    tcp
}

/// Reads a response's head: its status and its `Content-Length` (0 when it has none).
async fn response_head(tcp: &mut tokio::net::TcpStream) -> (u16, usize) {
    let mut head = Vec::new();
    while !head.ends_with(b"\r\n\r\n") {
        let mut byte = [0u8];
        let read = tcp.read(&mut byte).await.unwrap();
        assert_eq!(read, 1, "the connection ended before the response's head: {head:?}");
        head.push(byte[0]);
    }
    let head = String::from_utf8(head).unwrap();
    let status = head.split(' ').nth(1).unwrap().parse().unwrap();
    let length = head
        .lines()
        .filter_map(|line| line.split_once(':'))
        .find(|(name, _)| name.eq_ignore_ascii_case("content-length"))
        .map_or(0, |(_, value)| value.trim().parse().unwrap());
    (status, length)
}

/// Issue 23: with every connection held open, the refused ones too, the server ran out of
/// file descriptors: `Too many open files` in its log, and a new connection hung. Now every
/// connection the server does not serve is answered 503 and closed at once, plain HTTP ones
/// are capped too, and a spare descriptor answers even a connection accepted beyond the limit.
#[tokio::test]
async fn held_connections_never_exhaust_the_open_files_limit() {
    let db = TestDb::sqlite();
    let addr = free_addr();
    let args = ["--addr", &addr.to_string(), "--database-url", &db.url, "--web-dir", WEB_DIR];
    // A long header timeout: a refused connection must close at once, not when idle too long.
    let args: Vec<&str> = args
        .iter()
        .copied()
        .chain(["--max-sockets", "10000", "--max-sockets-per-room", "10000", "--header-read-timeout", "10m"])
        .collect();
    let child = spawn("ulimit -n 256 &&", &args);
    wait_listening(addr).await;
    let seats = create_room(addr, json!({})).await;

    let mut held = Vec::new();
    let mut refused = 0;
    for _ in 0..300 {
        let mut tcp = upgrade(addr, &seats.room).await;
        let (status, length) =
            tokio::time::timeout(PATIENCE, response_head(&mut tcp)).await.expect("an answer, not a hang");
        match status {
            101 => {}
            503 => {
                refused += 1;
                // The body, then the end: the server closed its side at once.
                let mut rest = Vec::new();
                // (A reset after the answer is an end too.)
                let end = tokio::time::timeout(PATIENCE, tcp.read_to_end(&mut rest)).await;
                end.expect("a refused connection is closed, not held").ok();
                assert_eq!(rest.len(), length, "{}", String::from_utf8_lossy(&rest));
                let body: serde_json::Value = serde_json::from_slice(&rest).unwrap();
                assert_eq!(body["error"], "too_many_connections", "{body}");
            }
            other => panic!("an upgrade answered {other}"),
        }
        // Every connection stays open on this side.
        held.push(tcp);
    }
    assert!(refused > 0, "the open-files limit was never reached");
    // A fresh connection is answered, not left to hang.
    let (status, _) = common::http_text(addr, "GET", "/healthz", None).await;
    assert!(status == 200 || status == 503, "{status}");

    // Once the held connections close, the server serves as before.
    drop(held);
    let started = tokio::time::Instant::now();
    let client = loop {
        if let Ok(client) = Client::connect_with_origin(addr, &seats.room, None).await {
            break client;
        }
        assert!(started.elapsed() < PATIENCE, "no socket once the others closed");
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    assert_eq!(common::http_text(addr, "GET", "/healthz", None).await.0, 200);
    drop(client);
    let text = output(child).await;
    assert!(!text.contains("Too many open files"), "{text}");
}
