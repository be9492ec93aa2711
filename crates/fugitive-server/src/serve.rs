//! The accept loop: the router over hyper's HTTP/1 connections. `axum::serve` has no header
//! read timeout, so a client sending a header byte now and then held a connection for ever;
//! here hyper cuts it off after `--header-read-timeout`. Each request carries the peer's
//! address ([`ConnectInfo`]) for the rate limits. Plain HTTP connections are capped below the
//! open-files limit (`open_files.rs`): one over the cap, or one accepted when the process has
//! no descriptor left, is answered `503` and closed at once, never left waiting. On shutdown
//! it stops accepting, lets every connection finish its request, and returns.

use std::convert::Infallible;
use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use axum::body::Body;
use axum::extract::ConnectInfo;
use hyper::body::Incoming;
use hyper::server::conn::http1;
use hyper_util::rt::{TokioIo, TokioTimer};
use tokio::net::TcpListener;
use tokio::sync::{Semaphore, watch};
use tokio::time::Instant;
use tower::ServiceExt;

use crate::open_files::{self, Spare};
use crate::{http, metrics};

/// How often at most the log says that connections were refused: a flood of them is one line.
const SAY_REFUSED_EVERY: Duration = Duration::from_secs(10);

/// The accept loop's settings.
#[derive(Clone, Copy, Debug)]
pub struct Options {
    /// `--header-read-timeout`.
    pub header_read_timeout: Duration,
    /// Plain HTTP connections served at once (an upgraded WebSocket no longer counts here).
    pub max_connections: usize,
}

/// Serves `app` on `listener` until `shutdown` completes, then waits for the open HTTP
/// connections (upgraded WebSockets are on their own by then).
pub async fn serve(listener: TcpListener, app: Router, options: Options, shutdown: impl Future<Output = ()>) {
    let (stop, stopping) = watch::channel(false);
    let (done, open) = watch::channel(());
    let connections = Arc::new(Semaphore::new(options.max_connections));
    let refusal = http::refusal();
    let mut refused = Refused::default();
    let mut spare = Spare::new();
    tokio::pin!(shutdown);
    loop {
        let accepted = tokio::select! {
            accepted = listener.accept() => accepted,
            () = &mut shutdown => break,
        };
        let (tcp, peer) = match accepted {
            Ok(accepted) => accepted,
            Err(error) if open_files::exhausted(&error) && spare.release() => {
                // The newcomer waits in the queue for a descriptor: lend it the spare one.
                if let Ok((socket, _)) = socket2::SockRef::from(&listener).accept() {
                    open_files::refuse(socket.into(), &refusal);
                    refused.one("no file descriptor was left");
                }
                spare.restore();
                continue;
            }
            Err(error) => {
                // Out of descriptors with no spare, or out of memory: wait for some to return.
                tracing::error!(%error, "cannot accept a connection");
                tokio::time::sleep(Duration::from_millis(100)).await;
                spare.restore();
                continue;
            }
        };
        let Ok(permit) = connections.clone().try_acquire_owned() else {
            if let Ok(tcp) = tcp.into_std() {
                open_files::refuse(tcp, &refusal);
            }
            refused.one("the server has its maximum of connections");
            continue;
        };
        // A move answers with a `state` and then a `reply`, two small writes: without
        // TCP_NODELAY the second waits for the client's delayed ACK of the first (~40 ms).
        if let Err(error) = tcp.set_nodelay(true) {
            tracing::warn!(%error, "could not set TCP_NODELAY");
        }
        let app = app.clone();
        let service = hyper::service::service_fn(move |mut request: hyper::Request<Incoming>| {
            request.extensions_mut().insert(ConnectInfo(peer));
            let app = app.clone();
            async move {
                Ok::<_, Infallible>(app.oneshot(request.map(Body::new)).await.unwrap_or_else(|e| match e {}))
            }
        });
        let mut stopping = stopping.clone();
        let open = open.clone();
        tokio::spawn(async move {
            // Held while hyper serves the connection: an upgrade hands it over to a WebSocket,
            // which the socket cap counts instead.
            let _permit = permit;
            let connection = http1::Builder::new()
                .timer(TokioTimer::new())
                .header_read_timeout(options.header_read_timeout)
                .serve_connection(TokioIo::new(tcp), service)
                .with_upgrades();
            tokio::pin!(connection);
            loop {
                tokio::select! {
                    result = connection.as_mut() => {
                        if let Err(error) = result {
                            tracing::debug!(%peer, %error, "connection ended with an error");
                        }
                        break;
                    }
                    _ = stopping.wait_for(|stop| *stop) => connection.as_mut().graceful_shutdown(),
                }
            }
            drop(open);
        });
    }
    drop(listener);
    let _ = stop.send(true);
    drop(open);
    done.closed().await;
}

/// The connections refused since the log last said so.
#[derive(Default)]
struct Refused {
    count: u64,
    said: Option<Instant>,
}

impl Refused {
    /// Counts one refused connection (`fugitive_errors_total{code="too_many_connections"}`);
    /// says so in the log at most every [`SAY_REFUSED_EVERY`].
    fn one(&mut self, why: &'static str) {
        metrics::error("too_many_connections");
        self.count += 1;
        if self.said.is_none_or(|said| said.elapsed() >= SAY_REFUSED_EVERY) {
            tracing::warn!(refused = self.count, why, "connections answered 503 and closed");
            self.count = 0;
            self.said = Some(Instant::now());
        }
    }
}
