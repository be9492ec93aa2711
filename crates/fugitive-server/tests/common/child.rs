//! The real `fugitive-server` binary as a child process: a process of its own (its own metrics
//! recorder, a real `kill -9`).

use std::net::SocketAddr;
use std::process::Stdio;
use std::time::Duration;

use tokio::process::{Child, Command};

use super::{PATIENCE, TestDb};

/// The server binary, running.
pub struct ChildServer {
    pub process: Child,
    pub addr: SocketAddr,
}

impl ChildServer {
    /// Starts the binary on a free port over `db`, with extra flags; waits until it listens.
    pub async fn spawn(db: &TestDb, args: &[&str]) -> ChildServer {
        ChildServer::spawn_on(&db.url, args).await
    }

    /// [`ChildServer::spawn`] on a database URL of its own (`db.url` with parameters, say).
    pub async fn spawn_on(database_url: &str, args: &[&str]) -> ChildServer {
        ChildServer::spawn_with_env(database_url, args, &[]).await
    }

    /// [`ChildServer::spawn_on`] with extra environment variables (`LD_PRELOAD`…).
    pub async fn spawn_with_env(database_url: &str, args: &[&str], env: &[(&str, &str)]) -> ChildServer {
        ChildServer::spawn_in(None, database_url, args, env).await
    }

    /// [`ChildServer::spawn_with_env`] in the working directory `dir` (the test's own if `None`).
    pub async fn spawn_in(
        dir: Option<&std::path::Path>,
        database_url: &str,
        args: &[&str],
        env: &[(&str, &str)],
    ) -> ChildServer {
        let addr = {
            let probe = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
            probe.local_addr().unwrap()
        };
        // `scripts/nemesis` runs copies of the binaries (a build meanwhile changes nothing).
        let program = std::env::var("FUGITIVE_SERVER_BIN")
            .unwrap_or_else(|_| env!("CARGO_BIN_EXE_fugitive-server").to_string());
        let mut command = Command::new(program);
        if let Some(dir) = dir {
            command.current_dir(dir);
        }
        let process = command
            .args(["--addr", &addr.to_string(), "--database-url", database_url, "--web-dir", super::WEB_DIR])
            .args(["--max-messages-per-sec", "1000", "--max-rooms-per-minute", "100000"])
            .args(args)
            .env("RUST_LOG", "warn")
            .envs(env.iter().copied())
            .stdout(Stdio::null())
            .stderr(Stdio::inherit())
            .kill_on_drop(true)
            .spawn()
            .expect("the server binary starts");
        // Until it serves, not only listens: the binary binds its port before it migrates the
        // database and compresses the web client, and connections wait in the backlog meanwhile
        // (24 s for a release build at a load of 24, issue 27: a hundred players' first
        // requests, sent on the first accepted connection, each took the node for lost).
        let started = tokio::time::Instant::now();
        while !serves(addr).await {
            assert!(started.elapsed() < PATIENCE, "the child server did not start serving");
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        ChildServer { process, addr }
    }

    /// SIGKILL: no shutdown, no flush.
    pub async fn kill_9(mut self) {
        self.process.start_kill().unwrap();
        let status = self.process.wait().await.unwrap();
        use std::os::unix::process::ExitStatusExt;
        assert_eq!(status.signal(), Some(9));
    }

    /// `GET /metrics`: each sample line's name (with labels) and value.
    pub async fn metrics(&self) -> Vec<(String, f64)> {
        let (status, text) = super::http_text(self.addr, "GET", "/metrics", None).await;
        assert_eq!(status, 200, "{text}");
        text.lines()
            .filter(|line| !line.starts_with('#') && !line.trim().is_empty())
            .filter_map(|line| {
                let (name, value) = line.rsplit_once(' ')?;
                Some((name.to_string(), value.parse().ok()?))
            })
            .collect()
    }

    /// The value of the metric sample `name` (exactly, labels included), if it is there.
    pub async fn metric(&self, name: &str) -> Option<f64> {
        self.metrics().await.into_iter().find(|(n, _)| n == name).map(|(_, v)| v)
    }
}

/// Whether the server at `addr` answers `/healthz` (within 5 s).
async fn serves(addr: SocketAddr) -> bool {
    let health = reqwest::Client::new().get(format!("http://{addr}/healthz")).timeout(Duration::from_secs(5));
    health.send().await.is_ok_and(|response| response.status() == 200)
}
