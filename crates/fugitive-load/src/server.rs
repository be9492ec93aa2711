//! The server under test: a child process on a free loopback port with a fresh SQLite database,
//! and readings of its memory from `/proc`.

use std::net::{Ipv4Addr, SocketAddr, TcpListener};
use std::path::Path;
use std::process::Stdio;
use std::time::Duration;

use anyhow::{Context, bail};
use tempfile::TempDir;
use tokio::process::{Child, Command};

/// How many sockets and messages the server must allow for one run.
#[derive(Clone, Copy, Debug)]
pub struct Caps {
    /// Sockets open at once, over all rooms.
    pub sockets: usize,
    /// Sockets on one room.
    pub sockets_per_room: usize,
}

/// A running `fugitive-server` child. Killed when dropped.
pub struct Server {
    child: Child,
    pid: u32,
    /// Where it listens.
    pub addr: SocketAddr,
    /// Holds the database and the (empty) web directory until the server is gone.
    _dir: TempDir,
}

/// The server's memory, in KiB, as `/proc` tells it.
#[derive(Clone, Copy, Debug)]
pub struct Memory {
    /// `VmRSS` of `/proc/<pid>/status`.
    pub rss_kib: u64,
    /// `Pss` of `/proc/<pid>/smaps_rollup`, when the kernel has it.
    pub pss_kib: Option<u64>,
}

impl Server {
    /// Starts `bin` on a free loopback port with a database in a new temporary directory, and
    /// waits (at most 20 s) until `/healthz` answers.
    ///
    /// # Errors
    /// When the binary cannot be started, or the server does not answer in time.
    pub async fn start(bin: &Path, caps: Caps, http: &reqwest::Client) -> anyhow::Result<Server> {
        Server::start_on(bin, caps, http, None, &[]).await
    }

    /// [`Server::start`] on `database` (a URL) instead of a new SQLite file, with `extra` flags.
    ///
    /// # Errors
    /// When the binary cannot be started, or the server does not answer in time.
    pub async fn start_on(
        bin: &Path,
        caps: Caps,
        http: &reqwest::Client,
        database: Option<&str>,
        extra: &[&str],
    ) -> anyhow::Result<Server> {
        let dir = tempfile::Builder::new().prefix("fugitive-load-").tempdir()?;
        let addr = free_port()?;
        let database = database
            .map_or_else(|| format!("sqlite://{}", dir.path().join("load.db").display()), str::to_string);
        // The server refuses to start without a web client; the load needs none of it.
        std::fs::write(dir.path().join("index.html"), "<!doctype html><title>load</title>\n")?;
        let child = Command::new(bin)
            .arg("--addr")
            .arg(addr.to_string())
            .arg("--database-url")
            .arg(&database)
            .arg("--web-dir")
            .arg(dir.path())
            .arg("--max-sockets")
            .arg(caps.sockets.to_string())
            .arg("--max-sockets-per-room")
            .arg(caps.sockets_per_room.to_string())
            // The games of the latency run play as fast as the server answers.
            .arg("--max-messages-per-sec")
            .arg("10000")
            // Every room of the load comes from one address.
            .arg("--max-rooms-per-minute")
            .arg("1000000")
            .args(extra)
            .env("RUST_LOG", "warn")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::inherit())
            .kill_on_drop(true)
            .spawn()
            .with_context(|| format!("cannot start the server {}", bin.display()))?;
        let pid = child.id().context("the server exited at once")?;
        let mut server = Server { child, pid, addr, _dir: dir };
        server.wait_ready(http).await?;
        Ok(server)
    }

    /// Starts `bin` as one node of several on the PostgreSQL database `database_url`, with
    /// `args` besides, and waits until `/healthz` answers.
    ///
    /// # Errors
    /// When the binary cannot be started, or the server does not answer in time.
    pub async fn start_node(
        bin: &Path,
        database_url: &str,
        args: &[&str],
        http: &reqwest::Client,
    ) -> anyhow::Result<Server> {
        // A handful of players per node.
        let caps = Caps { sockets: 256, sockets_per_room: 64 };
        Server::start_on(bin, caps, http, Some(database_url), args).await
    }

    /// Starts the fan-out ceiling of `--mode ceiling` (`fanout.rs`: this same binary with
    /// `--mode fanout-server`) as the server under test, and waits until `/healthz` answers.
    /// `write_each`: one `write` per frame (`--fanout-write-each`).
    ///
    /// # Errors
    /// When it cannot be started, or does not answer in time.
    pub async fn start_fanout(http: &reqwest::Client, write_each: bool) -> anyhow::Result<Server> {
        let dir = tempfile::Builder::new().prefix("fugitive-load-").tempdir()?;
        let addr = free_port()?;
        let child = Command::new(std::env::current_exe()?)
            .args(["--mode", "fanout-server", "--echo-addr", &addr.to_string()])
            .args(write_each.then_some("--fanout-write-each"))
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::inherit())
            .kill_on_drop(true)
            .spawn()
            .context("cannot start the fan-out server")?;
        let pid = child.id().context("the fan-out server exited at once")?;
        let mut server = Server { child, pid, addr, _dir: dir };
        server.wait_ready(http).await?;
        Ok(server)
    }

    async fn wait_ready(&mut self, http: &reqwest::Client) -> anyhow::Result<()> {
        let url = format!("http://{}/healthz", self.addr);
        for _ in 0..200 {
            if let Some(status) = self.child.try_wait()? {
                bail!("the server exited: {status}");
            }
            if let Ok(response) = http.get(&url).send().await {
                if response.status().is_success() {
                    return Ok(());
                }
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        bail!("the server did not answer {url} within 20 s")
    }

    /// The child's memory now.
    ///
    /// # Errors
    /// When `/proc/<pid>/status` cannot be read or has no `VmRSS` (the child is gone).
    pub fn memory(&self) -> anyhow::Result<Memory> {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.pid))
            .context("cannot read the server's /proc/<pid>/status")?;
        let rss_kib = kib_field(&status, "VmRSS:").context("no VmRSS in /proc/<pid>/status")?;
        let pss_kib = std::fs::read_to_string(format!("/proc/{}/smaps_rollup", self.pid))
            .ok()
            .and_then(|rollup| kib_field(&rollup, "Pss:"));
        Ok(Memory { rss_kib, pss_kib })
    }

    /// The CPU time the child has used so far (user and system, `/proc/<pid>/stat`).
    ///
    /// # Errors
    /// When `/proc/<pid>/stat` cannot be read or parsed (the child is gone).
    pub fn cpu_time(&self) -> anyhow::Result<Duration> {
        let stat = std::fs::read_to_string(format!("/proc/{}/stat", self.pid))
            .context("cannot read the server's /proc/<pid>/stat")?;
        cpu_time_of(&stat).context("no utime/stime in /proc/<pid>/stat")
    }

    /// The server's own count of open sockets (`fugitive_sockets` of `/metrics`).
    ///
    /// # Errors
    /// When `/metrics` does not answer or has no such line.
    pub async fn sockets_open(&self, http: &reqwest::Client) -> anyhow::Result<u64> {
        let text = http.get(format!("http://{}/metrics", self.addr)).send().await?.text().await?;
        text.lines()
            .find_map(|line| line.strip_prefix("fugitive_sockets "))
            .and_then(|value| value.trim().parse::<f64>().ok())
            .map(|value| value as u64)
            .context("no fugitive_sockets in /metrics")
    }

    /// The whole `/metrics` text.
    ///
    /// # Errors
    /// When `/metrics` does not answer.
    pub async fn metrics_text(&self, http: &reqwest::Client) -> anyhow::Result<String> {
        Ok(http.get(format!("http://{}/metrics", self.addr)).send().await?.text().await?)
    }

    /// A figure of `/metrics` without labels, such as `fugitive_commit_batches_total`.
    ///
    /// # Errors
    /// When `/metrics` does not answer or has no such line.
    pub async fn metric(&self, http: &reqwest::Client, name: &str) -> anyhow::Result<f64> {
        let text = self.metrics_text(http).await?;
        text.lines()
            .find_map(|line| line.strip_prefix(name)?.strip_prefix(' '))
            .and_then(|value| value.trim().parse::<f64>().ok())
            .with_context(|| format!("no {name} in /metrics"))
    }

    /// Kills the child (SIGKILL: its database is thrown away) and waits for it.
    pub async fn stop(mut self) {
        let _ = self.child.kill().await;
    }
}

/// A loopback port nobody listens on now. The server binds it a moment later; another process
/// could take it in between, in which case the server fails to start and says so.
fn free_port() -> anyhow::Result<SocketAddr> {
    let listener = TcpListener::bind((Ipv4Addr::LOCALHOST, 0)).context("no free loopback port")?;
    Ok(listener.local_addr()?)
}

/// User plus system time of a `/proc/<pid>/stat` line: fields 14 and 15, in clock ticks
/// (100 a second on Linux for user space: `USER_HZ`). The command name (field 2) may hold
/// spaces and parentheses, so the fields are counted after its last `)`.
pub(crate) fn cpu_time_of(stat: &str) -> Option<Duration> {
    let [utime, stime, ..] = stat_ticks(stat)?;
    Some(Duration::from_millis((utime + stime) * 10))
}

/// utime, stime, cutime, cstime of a `/proc/<pid>/stat` line (fields 14–17, counted after the
/// command name's last `)`).
pub(crate) fn stat_ticks(stat: &str) -> Option<[u64; 4]> {
    let rest = &stat[stat.rfind(')')? + 1..];
    let mut fields = rest.split_whitespace().skip(11).map(str::parse::<u64>);
    let mut ticks = [0; 4];
    for tick in &mut ticks {
        *tick = fields.next()?.ok()?;
    }
    Some(ticks)
}

/// The number of kB of a `/proc` line such as `VmRSS:     12345 kB`.
fn kib_field(text: &str, name: &str) -> Option<u64> {
    let line = text.lines().find(|line| line.starts_with(name))?;
    line[name.len()..].split_whitespace().next()?.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_kib_fields_of_proc_files() {
        let status = "Name:\tfugitive-server\nVmPeak:\t  9000 kB\nVmRSS:\t    12345 kB\n";
        assert_eq!(kib_field(status, "VmRSS:"), Some(12345));
        assert_eq!(kib_field(status, "VmSwap:"), None);
        let rollup = "00400000-7ffd [rollup]\nRss:  2000 kB\nPss:  1500 kB\nPss_Anon: 900 kB\n";
        assert_eq!(kib_field(rollup, "Pss:"), Some(1500));
    }

    #[test]
    fn reads_the_cpu_time_of_a_proc_stat_line() {
        let stat = "1234 (fugitive (x) s) S 1 1234 1234 0 -1 4194304 500 0 0 0 250 50 0 0 20 0 9 0";
        assert_eq!(cpu_time_of(stat), Some(Duration::from_millis(3000)));
        assert!(cpu_time_of(&std::fs::read_to_string("/proc/self/stat").unwrap()).is_some());
    }

    #[test]
    fn the_own_process_has_a_resident_size() {
        let status = std::fs::read_to_string("/proc/self/status").unwrap();
        assert!(kib_field(&status, "VmRSS:").unwrap() > 0);
    }
}
