//! `fugitive-server`: parses the settings, sets up logging, binds, and runs until ctrl-c or
//! SIGTERM.

use std::io::IsTerminal;

use anyhow::Context;
use clap::Parser;
use fugitive_server::Config;
use fugitive_server::config::LogFormat;
use tokio::net::TcpListener;
use tracing_subscriber::EnvFilter;

/// mimalloc instead of glibc's allocator: the frames of every change are many small allocations
/// made and freed on several threads (BENCHMARKS.md, "The server's allocator").
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let config = Config::parse();
    let filter = EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new("info"));
    // Colours only for a person at a terminal, not in a file or a log collector.
    let logs = tracing_subscriber::fmt().with_env_filter(filter).with_ansi(std::io::stdout().is_terminal());
    match config.log_format {
        LogFormat::Text => logs.init(),
        LogFormat::Json => logs.json().init(),
    }
    let listener =
        TcpListener::bind(config.addr).await.with_context(|| format!("cannot listen on {}", config.addr))?;
    fugitive_server::run(listener, config, shutdown_signal()).await.context("server failed")?;
    Ok(())
}

/// Completes on ctrl-c or SIGTERM.
async fn shutdown_signal() {
    let ctrl_c = async {
        if let Err(error) = tokio::signal::ctrl_c().await {
            tracing::error!(%error, "cannot listen for ctrl-c");
            std::future::pending::<()>().await;
        }
    };
    #[cfg(unix)]
    let terminate = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut signal) => {
                signal.recv().await;
            }
            Err(error) => {
                tracing::error!(%error, "cannot listen for SIGTERM");
                std::future::pending::<()>().await;
            }
        }
    };
    #[cfg(not(unix))]
    let terminate = std::future::pending::<()>();
    tokio::select! {
        () = ctrl_c => {}
        () = terminate => {}
    }
}
