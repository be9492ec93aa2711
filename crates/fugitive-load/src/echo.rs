//! The baseline of the latency figures: a bare axum WebSocket echo, in a process of its own
//! (its own open-files limit), and its clients.

use std::net::SocketAddr;
use std::process::Stdio;
use std::time::Duration;

use anyhow::{Context, bail};
use axum::Router;
use axum::extract::ws::{Message as AxumMessage, WebSocketUpgrade};
use axum::routing::get;
use axum::serve::ListenerExt;
use futures_util::{SinkExt, StreamExt};
use tokio::net::TcpStream;
use tokio::process::{Child, Command};
use tokio::time::Instant;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::{MaybeTlsStream, WebSocketStream};

use crate::client::ANSWER_TIMEOUT;

/// What an echo client sends: about the size of an action.
pub const PAYLOAD: &str = r#"{"v":1,"seq":1,"type":"action","action":{"type":"guess","numbers":[17]}}"#;

/// Serves `GET /echo` on `addr` for ever: every text or binary message comes straight back.
/// `TCP_NODELAY` as the game server has it.
///
/// # Errors
/// When `addr` cannot be bound.
pub async fn serve(addr: SocketAddr) -> anyhow::Result<()> {
    rlimit::increase_nofile_limit(u64::MAX).context("cannot raise the open-files limit")?;
    let app = Router::new().route(
        "/echo",
        get(|ws: WebSocketUpgrade| async move {
            ws.on_upgrade(|mut socket| async move {
                while let Some(Ok(message)) = socket.recv().await {
                    if matches!(message, AxumMessage::Text(_) | AxumMessage::Binary(_))
                        && socket.send(message).await.is_err()
                    {
                        break;
                    }
                }
            })
        }),
    );
    let listener = tokio::net::TcpListener::bind(addr).await?.tap_io(|tcp| {
        let _ = tcp.set_nodelay(true);
    });
    axum::serve(listener, app).await?;
    Ok(())
}

/// The echo server as a child: this same binary with `--mode echo-server`. Killed when dropped.
pub struct EchoServer {
    _child: Child,
    /// Where it listens.
    pub addr: SocketAddr,
}

impl EchoServer {
    /// Starts it and waits (at most 10 s) until it accepts.
    ///
    /// # Errors
    /// When it cannot be started or does not listen in time.
    pub async fn start() -> anyhow::Result<EchoServer> {
        let addr = std::net::TcpListener::bind("127.0.0.1:0")?.local_addr()?;
        let child = Command::new(std::env::current_exe()?)
            .args(["--mode", "echo-server", "--echo-addr", &addr.to_string()])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::inherit())
            .kill_on_drop(true)
            .spawn()
            .context("cannot start the echo server")?;
        for _ in 0..100 {
            if TcpStream::connect(addr).await.is_ok() {
                return Ok(EchoServer { _child: child, addr });
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        bail!("the echo server did not listen within 10 s")
    }
}

/// One echo client socket.
pub struct EchoClient {
    ws: WebSocketStream<MaybeTlsStream<TcpStream>>,
}

impl EchoClient {
    /// Opens a socket (Nagle off, as the game clients have it).
    ///
    /// # Errors
    /// When the socket cannot be opened in time.
    pub async fn connect(addr: SocketAddr) -> anyhow::Result<EchoClient> {
        let connect = tokio_tungstenite::connect_async_with_config(format!("ws://{addr}/echo"), None, true);
        let (ws, _) =
            tokio::time::timeout(ANSWER_TIMEOUT, connect).await.context("no echo upgrade in time")??;
        Ok(EchoClient { ws })
    }

    /// Sends the payload and waits for it to come back; returns the round trip.
    ///
    /// # Errors
    /// When the socket fails or the echo is too slow.
    pub async fn round_trip(&mut self) -> anyhow::Result<Duration> {
        let sent = Instant::now();
        self.ws.send(Message::text(PAYLOAD)).await?;
        loop {
            let frame = tokio::time::timeout(ANSWER_TIMEOUT, self.ws.next())
                .await
                .context("no echo in time")?
                .context("the echo server closed the socket")??;
            if matches!(frame, Message::Text(_)) {
                return Ok(sent.elapsed());
            }
        }
    }
}
