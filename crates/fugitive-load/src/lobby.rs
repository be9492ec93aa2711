//! `--mode lobby`: the lobby under load (issue 25).
//!
//! One server; `--seeks` open seeks (correspondence ones, three per profile, the most a profile
//! may have; their seekers' sockets closed again); then `--pages` lobby pages, WebSockets that
//! read their first list and wait. Figures:
//! 1. memory per lobby page: the server's RSS after the pages opened less before, per page, and
//!    how long the pages took to open (each gets the whole list of seeks first);
//! 2. a new seek → every lobby page: `--seek-rounds` times, one more seek is made (and cancelled
//!    again, so the list stays at `--seeks`), timed from sending it until each page has its
//!    `seek_added`: one sample per page and round, the next round once every page has the last;
//! 3. the baseline, in the same run: as many sockets on a bare axum WebSocket echo in a process of
//!    its own (`echo.rs`), all sending at once, `--seek-rounds` times: each socket's round trip. It is
//!    what the machine and the client take to get one small frame to and back from that many
//!    sockets at once, the floor under the lobby's fan-out.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use anyhow::{Context, bail};
use futures_util::{SinkExt, StreamExt, stream};
use hdrhistogram::Histogram;
use serde_json::{Value, json};
use tokio::net::TcpStream;
use tokio::sync::{Barrier, mpsc};
use tokio::time::Instant;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::tungstenite::client::IntoClientRequest;
use tokio_tungstenite::{MaybeTlsStream, WebSocketStream};

use crate::Args;
use crate::echo::{EchoClient, EchoServer};
use crate::server::{Caps, Server};

type Socket = WebSocketStream<MaybeTlsStream<TcpStream>>;

/// How long one page may wait for a message it is owed.
const PATIENCE: Duration = Duration::from_secs(60);

/// What a run found.
pub struct Figures {
    pages: usize,
    seeks: usize,
    rss_before_kib: u64,
    rss_after_kib: u64,
    /// How long opening every page took (each read its first list).
    open_all: Duration,
    /// The first list's size in bytes.
    list_bytes: usize,
    /// A new seek → each page's `seek_added` (µs).
    fanout: Histogram<u64>,
    /// Each echo socket's round trip, all at once (µs).
    echo: Histogram<u64>,
}

/// Opens a lobby socket (with a profile's cookie) and reads its first list.
async fn open(addr: SocketAddr, cookie: Option<&str>) -> anyhow::Result<(Socket, String)> {
    let mut request = format!("ws://{addr}/ws/lobby").into_client_request()?;
    if let Some(cookie) = cookie {
        request.headers_mut().insert("cookie", cookie.parse()?);
    }
    let (mut ws, _) =
        tokio::time::timeout(PATIENCE, tokio_tungstenite::connect_async_with_config(request, None, true))
            .await
            .context("no lobby upgrade in time")??;
    let list = next_text(&mut ws, |text| text.contains(r#""type":"seeks""#)).await?;
    Ok((ws, list))
}

/// The next text message that `wanted` accepts.
async fn next_text(ws: &mut Socket, wanted: impl Fn(&str) -> bool) -> anyhow::Result<String> {
    loop {
        let message = tokio::time::timeout(PATIENCE, ws.next())
            .await
            .context("a lobby page waited too long")?
            .context("the server closed a lobby page")??;
        if let Message::Text(text) = message {
            if text.contains(r#""type":"error""#) {
                bail!("the lobby refused: {text}");
            }
            if wanted(&text) {
                return Ok(text.to_string());
            }
        }
    }
}

/// A profile's cookie.
async fn profile(http: &reqwest::Client, addr: SocketAddr) -> anyhow::Result<String> {
    let response = http.post(format!("http://{addr}/api/profile")).send().await?.error_for_status()?;
    let cookie = response.headers().get("set-cookie").context("no profile cookie")?.to_str()?;
    Ok(cookie.split(';').next().unwrap_or_default().to_string())
}

/// Makes a seek on `ws`: its id.
async fn seek(ws: &mut Socket, turn_clock_secs: u64) -> anyhow::Result<String> {
    let seek = json!({ "type": "seek", "seek": { "role": "random", "rules": {}, "turn_clock_secs": turn_clock_secs, "rated": true } });
    ws.send(Message::text(seek.to_string())).await?;
    let seeked = next_text(ws, |text| text.contains(r#""type":"seeked""#)).await?;
    let seeked: Value = serde_json::from_str(&seeked)?;
    seeked["id"].as_str().map(str::to_string).context("a seek without an id")
}

/// Runs the whole measurement.
///
/// # Errors
/// When the server or the echo cannot be started, or a page is refused or too slow.
pub async fn run(args: &Args, http: &reqwest::Client) -> anyhow::Result<Figures> {
    let pages = args.pages as usize;
    let seeks = args.seeks as usize;
    crate::raise_fd_limit(pages + 64)?;
    let caps = Caps { sockets: pages + 256, sockets_per_room: 64 };
    let server = Server::start(&args.server_bin, caps, http).await?;
    let addr = server.addr;

    eprintln!("{seeks} seeks…");
    let seekers = seeks.div_ceil(3);
    let made = stream::iter(0..seekers)
        .map(|i| async move {
            let cookie = profile(http, addr).await?;
            let (mut ws, _) = open(addr, Some(&cookie)).await?;
            for _ in 0..(seeks - 3 * i).min(3) {
                seek(&mut ws, 86_400).await?;
            }
            ws.close(None).await.ok();
            anyhow::Ok(())
        })
        .buffer_unordered(args.concurrency as usize)
        .collect::<Vec<_>>()
        .await;
    made.into_iter().collect::<anyhow::Result<Vec<()>>>()?;
    let (mut seeker, list) = open(addr, Some(&profile(http, addr).await?)).await?;
    let listed = serde_json::from_str::<Value>(&list)?["seeks"].as_array().map_or(0, Vec::len);
    if listed != seeks {
        bail!("the lobby lists {listed} seeks, not {seeks}");
    }

    tokio::time::sleep(args.settle).await;
    let before = server.memory()?;
    eprintln!("{pages} lobby pages…");
    let started = Instant::now();
    let opened = stream::iter(0..pages)
        .map(|_| open(addr, None))
        .buffer_unordered(args.concurrency as usize)
        .collect::<Vec<_>>()
        .await;
    let open_all = started.elapsed();
    let sockets: Vec<Socket> =
        opened.into_iter().map(|r| r.map(|(ws, _)| ws)).collect::<anyhow::Result<_>>()?;
    tokio::time::sleep(args.settle).await;
    let after = server.memory()?;

    eprintln!("{} new seeks to {pages} pages…", args.seek_rounds);
    let fanout = fanout(&mut seeker, sockets, args.seek_rounds as usize).await?;
    drop(server);

    eprintln!("the echo baseline: {pages} sockets at once, {} rounds…", args.seek_rounds);
    let echo = echo_burst(pages, args.seek_rounds as usize, args.concurrency as usize).await?;
    Ok(Figures {
        pages,
        seeks,
        rss_before_kib: before.rss_kib,
        rss_after_kib: after.rss_kib,
        open_all,
        list_bytes: list.len(),
        fanout,
        echo,
    })
}

/// `rounds` new seeks made on `seeker`, each timed to every page's `seek_added`; the next is
/// made once every page has the last.
async fn fanout(seeker: &mut Socket, pages: Vec<Socket>, rounds: usize) -> anyhow::Result<Histogram<u64>> {
    let count = pages.len();
    let (samples, mut got) = mpsc::unbounded_channel::<(String, Instant)>();
    let mut readers = tokio::task::JoinSet::new();
    for mut ws in pages {
        let samples = samples.clone();
        readers.spawn(async move {
            for _ in 0..rounds {
                let text = next_text(&mut ws, |text| text.contains(r#""type":"seek_added""#)).await?;
                let _ = samples.send((seek_id(&text).context("a seek_added without an id")?, Instant::now()));
            }
            anyhow::Ok(ws)
        });
    }
    drop(samples);
    let mut histogram = Histogram::<u64>::new(3)?;
    for _ in 0..rounds {
        let start = Instant::now();
        let seek = json!({ "type": "seek", "seek": { "role": "random", "rules": {}, "turn_clock_secs": 300, "rated": true } });
        seeker.send(Message::text(seek.to_string())).await?;
        let seeked: Value =
            serde_json::from_str(&next_text(seeker, |t| t.contains(r#""type":"seeked""#)).await?)?;
        let id = seeked["id"].as_str().context("a seek without an id")?.to_string();
        for _ in 0..count {
            let (seen, at) = tokio::time::timeout(PATIENCE, got.recv())
                .await
                .context("a page waited too long for a new seek")?
                .context("a page failed")?;
            if seen != id {
                bail!("a page got seek {seen} while {id} was the new one");
            }
            histogram.record(at.duration_since(start).as_micros() as u64)?;
        }
        seeker.send(Message::text(json!({ "type": "cancel", "id": id }).to_string())).await?;
    }
    while let Some(done) = readers.join_next().await {
        done??;
    }
    Ok(histogram)
}

/// The seek's id in a `seek_added` text, found without parsing the whole message (the client's
/// JSON parsing of thousands of pages would be measured too): the first `"id"` is the seek's.
fn seek_id(text: &str) -> Option<String> {
    let start = text.find(r#""id":""#)? + 6;
    let end = start + text[start..].find('"')?;
    Some(text[start..end].to_string())
}

/// `sockets` echo sockets sending at once, `rounds` times: every round trip.
async fn echo_burst(sockets: usize, rounds: usize, concurrency: usize) -> anyhow::Result<Histogram<u64>> {
    let echo = EchoServer::start().await?;
    let clients: Vec<EchoClient> = stream::iter(0..sockets)
        .map(|_| EchoClient::connect(echo.addr))
        .buffer_unordered(concurrency)
        .collect::<Vec<_>>()
        .await
        .into_iter()
        .collect::<anyhow::Result<_>>()?;
    let barrier = Arc::new(Barrier::new(sockets));
    let mut tasks = tokio::task::JoinSet::new();
    for mut client in clients {
        let barrier = barrier.clone();
        tasks.spawn(async move {
            let mut trips = Vec::with_capacity(rounds);
            for _ in 0..rounds {
                barrier.wait().await;
                trips.push(client.round_trip().await?);
            }
            anyhow::Ok(trips)
        });
    }
    let mut histogram = Histogram::<u64>::new(3)?;
    while let Some(done) = tasks.join_next().await {
        for trip in done?? {
            histogram.record(trip.as_micros() as u64)?;
        }
    }
    Ok(histogram)
}

fn ms(micros: u64) -> String {
    format!("{:.1}", micros as f64 / 1000.0)
}

/// The section of BENCHMARKS.md.
pub fn section(f: &Figures, command: &str) -> String {
    let per_page = (f.rss_after_kib.saturating_sub(f.rss_before_kib)) as f64 / f.pages as f64;
    let row = |name: &str, h: &Histogram<u64>| {
        format!(
            "| {name} | {} | {} | {} | {} |\n",
            h.len(),
            ms(h.value_at_quantile(0.5)),
            ms(h.value_at_quantile(0.99)),
            ms(h.max())
        )
    };
    let ratio = f.fanout.value_at_quantile(0.99) as f64 / f.echo.value_at_quantile(0.99).max(1) as f64;
    let mut out = String::new();
    out.push_str(&format!("`{command}`\n\n"));
    out.push_str(&format!(
        "{} open seeks, {} lobby pages on one node (SQLite). Each page's first list is {} KiB; \
         opening all pages took {:.1} s.\n\n",
        f.seeks,
        f.pages,
        f.list_bytes / 1024,
        f.open_all.as_secs_f64()
    ));
    out.push_str(&format!(
        "Memory: RSS {} MiB before the pages, {} MiB after: **{per_page:.1} KiB per lobby page**.\n\n",
        f.rss_before_kib / 1024,
        f.rss_after_kib / 1024
    ));
    out.push_str("| (ms) | samples | p50 | p99 | max |\n|---|---|---|---|---|\n");
    out.push_str(&row("a new seek → every lobby page's `seek_added`", &f.fanout));
    out.push_str(&row("baseline: bare echo, as many sockets sending at once", &f.echo));
    out.push_str(&format!("\nRatio lobby / echo at p99: {ratio:.2}×.\n"));
    out
}
