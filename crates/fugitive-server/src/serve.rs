//! The accept loop: the router over hyper's HTTP/1 connections. `axum::serve` has no header
//! read timeout, so a client sending a header byte now and then held a connection for ever;
//! here hyper cuts it off after `--header-read-timeout`. Each request carries the peer's
//! address ([`ConnectInfo`]) for the rate limits. On shutdown it stops accepting, lets every
//! connection finish its request, and returns.

use std::convert::Infallible;
use std::future::Future;
use std::net::SocketAddr;
use std::time::Duration;

use axum::Router;
use axum::body::Body;
use axum::extract::ConnectInfo;
use hyper::body::Incoming;
use hyper::server::conn::http1;
use hyper_util::rt::{TokioIo, TokioTimer};
use tokio::net::TcpListener;
use tokio::sync::watch;
use tower::ServiceExt;

/// Serves `app` on `listener` until `shutdown` completes, then waits for the open HTTP
/// connections (upgraded WebSockets are on their own by then).
pub async fn serve(
    listener: TcpListener,
    app: Router,
    header_read_timeout: Duration,
    shutdown: impl Future<Output = ()>,
) {
    let (stop, stopping) = watch::channel(false);
    let (done, open) = watch::channel(());
    tokio::pin!(shutdown);
    loop {
        let (tcp, peer) = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok(accepted) => accepted,
                Err(error) => {
                    // Out of file descriptors, most likely: wait for some to come back.
                    tracing::error!(%error, "cannot accept a connection");
                    tokio::time::sleep(Duration::from_millis(100)).await;
                    continue;
                }
            },
            () = &mut shutdown => break,
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
            let connection = http1::Builder::new()
                .timer(TokioTimer::new())
                .header_read_timeout(header_read_timeout)
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

/// The peer's address, for a handler.
pub type Peer = ConnectInfo<SocketAddr>;
