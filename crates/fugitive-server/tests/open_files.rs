//! The spare file descriptor (issue 23): a connection accepted when the process has no
//! descriptor left is answered `503` and closed, not left waiting in the listen queue. The
//! server's caps keep it below the open-files limit (`startup.rs` tests them on the binary), so
//! here the accept loop runs in this process, its cap far above the limit, and this process's
//! own limit is lowered: alone in its test binary, as the limit is the whole process's.

use std::time::Duration;

use axum::Router;
use axum::routing::get;
use fugitive_server::serve::{self, Options};
use rlimit::Resource;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

/// A hang detector, not a timing.
const PATIENCE: Duration = Duration::from_secs(60);

/// The descriptors open in this process, by number.
fn open_descriptors() -> Vec<u64> {
    let listed: Vec<u64> = std::fs::read_dir("/proc/self/fd")
        .unwrap()
        .map(|entry| entry.unwrap().file_name().to_str().unwrap().parse().unwrap())
        .collect();
    // The directory's own descriptor was open while it was read: the highest new one.
    let listing =
        listed.iter().copied().filter(|fd| std::fs::metadata(format!("/proc/self/fd/{fd}")).is_err());
    let gone: Vec<u64> = listing.collect();
    listed.into_iter().filter(|fd| !gone.contains(fd)).collect()
}

/// Descriptors this process may still open: the free numbers below the soft limit (the limit
/// bounds a descriptor's number, not how many are open).
fn free_descriptors() -> u64 {
    let (soft, _) = Resource::NOFILE.get().unwrap();
    soft - open_descriptors().into_iter().filter(|&fd| fd < soft).count() as u64
}

/// `GET /healthz` on `tcp`; the whole answer, up to the server's close or the `ok` body.
async fn get_healthz(tcp: &mut TcpStream) -> String {
    tcp.write_all(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n").await.unwrap();
    let mut answer = Vec::new();
    let mut buffer = [0u8; 1024];
    while !answer.ends_with(b"ok") {
        let read =
            tokio::time::timeout(PATIENCE, tcp.read(&mut buffer)).await.expect("an answer, not a hang");
        match read {
            Ok(0) | Err(_) => break,
            Ok(read) => answer.extend_from_slice(&buffer[..read]),
        }
    }
    String::from_utf8(answer).unwrap()
}

#[tokio::test]
async fn a_connection_accepted_without_a_descriptor_left_is_answered_503_and_closed() {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let app = Router::new().route("/healthz", get(|| async { "ok" }));
    let options = Options { header_read_timeout: Duration::from_secs(600), max_connections: 100_000 };
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let server = tokio::spawn(serve::serve(listener, app, options, async move {
        let _ = stopped.await;
    }));
    // Let the accept loop take its spare descriptor before the limit comes down.
    let mut first = TcpStream::connect(addr).await.unwrap();
    assert!(get_healthz(&mut first).await.starts_with("HTTP/1.1 200"));
    let (soft, hard) = Resource::NOFILE.get().unwrap();
    let highest = open_descriptors().into_iter().max().unwrap();
    Resource::NOFILE.set(highest + 20, hard).unwrap();

    // Served connections take two descriptors each here (both ends are in this process).
    let mut held = vec![first];
    while free_descriptors() > 2 {
        let mut tcp = TcpStream::connect(addr).await.unwrap();
        assert!(get_healthz(&mut tcp).await.starts_with("HTTP/1.1 200"));
        held.push(tcp);
    }
    let ballast: Vec<std::fs::File> =
        (1..free_descriptors()).map(|_| std::fs::File::open("/dev/null").unwrap()).collect();
    assert_eq!(free_descriptors(), 1);
    // The client end takes the last descriptor: the server has none to accept it with. It
    // answers with its spare one and closes the connection (the answer reads to its end).
    let mut newcomer = TcpStream::connect(addr).await.unwrap();
    let answer = get_healthz(&mut newcomer).await;
    assert!(answer.starts_with("HTTP/1.1 503"), "{answer}");
    assert!(
        answer.ends_with(
            r#"{"error":"too_many_connections","message":"too many connections; try again later"}"#
        ),
        "{answer}"
    );
    // And it took its spare descriptor back.
    let full = std::fs::File::open("/dev/null");
    assert!(matches!(full, Err(e) if e.raw_os_error() == Some(libc::EMFILE)));

    // Once descriptors come back, the server serves again.
    drop((newcomer, ballast, held));
    Resource::NOFILE.set(soft, hard).unwrap();
    let mut tcp = TcpStream::connect(addr).await.unwrap();
    assert!(get_healthz(&mut tcp).await.starts_with("HTTP/1.1 200"));
    stop.send(()).unwrap();
    drop(tcp);
    tokio::time::timeout(PATIENCE, server).await.unwrap().unwrap();
}
