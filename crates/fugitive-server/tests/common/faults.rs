//! The faults of issue 27's tests, each a tool of the tests' own: a TCP proxy between a node and
//! its database that can black-hole, delay and reset; a private PostgreSQL cluster to restart;
//! a small tmpfs to fill; signals for a node's process.

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::time::Duration;

use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::process::Command;
use tokio::sync::watch;

/// What a [`Proxy`] does with the bytes it carries.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Link {
    /// Passes them on.
    Open,
    /// Holds them (and stops reading, so the senders' buffers fill): a partition in which the
    /// sockets stay up. New connections hang. Healing delivers what was held, as TCP would.
    BlackHole,
    /// Passes each read on this much later.
    Delay(Duration),
}

#[derive(Clone, Copy, Debug)]
struct Setting {
    link: Link,
    /// How many times every connection was reset.
    resets: u64,
}

/// A TCP proxy of the tests' own in front of `upstream`. It runs on a thread and runtime of its
/// own: every byte between a node and its database passes through it, and on the test's own
/// thread (a current-thread runtime, busy with a hundred tables' players and the history
/// checker) it made the healthy node's database as slow as the test was busy.
pub struct Proxy {
    pub addr: SocketAddr,
    setting: watch::Sender<Setting>,
    runtime: Option<tokio::runtime::Runtime>,
}

impl Proxy {
    pub async fn start(upstream: SocketAddr) -> Proxy {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .thread_name("proxy")
            .enable_all()
            .build()
            .unwrap();
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        listener.set_nonblocking(true).unwrap();
        let addr = listener.local_addr().unwrap();
        let (setting, watching) = watch::channel(Setting { link: Link::Open, resets: 0 });
        runtime.spawn(async move {
            let listener = TcpListener::from_std(listener).unwrap();
            while let Ok((client, _)) = listener.accept().await {
                tokio::spawn(carry(client, upstream, watching.clone()));
            }
        });
        Proxy { addr, setting, runtime: Some(runtime) }
    }

    pub fn set(&self, link: Link) {
        self.setting.send_modify(|s| s.link = link);
    }

    /// Ends every open connection with a reset (RST); new ones are carried as before.
    pub fn reset(&self) {
        self.setting.send_modify(|s| s.resets += 1);
    }
}

impl Drop for Proxy {
    fn drop(&mut self) {
        if let Some(runtime) = self.runtime.take() {
            runtime.shutdown_background();
        }
    }
}

/// Waits while the link is black-holed; the delay to add, if any.
async fn pass(watching: &mut watch::Receiver<Setting>) -> Option<Duration> {
    loop {
        match watching.borrow_and_update().link {
            Link::Open => return None,
            Link::Delay(delay) => return Some(delay),
            Link::BlackHole => {}
        }
        if watching.changed().await.is_err() {
            return None;
        }
    }
}

async fn carry(mut client: TcpStream, upstream: SocketAddr, mut watching: watch::Receiver<Setting>) {
    pass(&mut watching).await;
    let Ok(mut server) = TcpStream::connect(upstream).await else { return };
    let resets = watching.borrow().resets;
    let reset = {
        let mut watching = watching.clone();
        async move {
            let _ = watching.wait_for(|s| s.resets != resets).await;
        }
    };
    let (mut client_read, mut client_write) = client.split();
    let (mut server_read, mut server_write) = server.split();
    let was_reset = tokio::select! {
        () = pump(&mut client_read, &mut server_write, watching.clone()) => false,
        () = pump(&mut server_read, &mut client_write, watching.clone()) => false,
        () = reset => true,
    };
    if was_reset {
        // Linger 0: the close sends a RST, not a FIN.
        for stream in [&client, &server] {
            let _ = socket2::SockRef::from(stream).set_linger(Some(Duration::ZERO));
        }
    }
}

async fn pump(
    from: &mut (impl AsyncRead + Unpin),
    to: &mut (impl AsyncWrite + Unpin),
    mut watching: watch::Receiver<Setting>,
) {
    let mut buffer = vec![0; 16 * 1024];
    loop {
        let n = match from.read(&mut buffer).await {
            Ok(0) | Err(_) => return,
            Ok(n) => n,
        };
        if let Some(delay) = pass(&mut watching).await {
            tokio::time::sleep(delay).await;
        }
        if to.write_all(&buffer[..n]).await.is_err() {
            return;
        }
    }
}

/// Runs a command to its end; panics with its output if it fails.
async fn run(command: &mut Command) {
    let output = command.output().await.unwrap();
    assert!(
        output.status.success(),
        "{command:?} failed: {}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
}

/// The newest PostgreSQL's programs, where Debian installs them (`/usr/lib/postgresql/15/bin`).
fn pg_bin() -> PathBuf {
    let versions =
        std::fs::read_dir("/usr/lib/postgresql").expect("PostgreSQL's programs in /usr/lib/postgresql");
    let newest = versions
        .filter_map(|entry| entry.ok()?.file_name().to_str()?.parse::<u32>().ok())
        .max()
        .expect("a PostgreSQL version in /usr/lib/postgresql");
    PathBuf::from(format!("/usr/lib/postgresql/{newest}/bin"))
}

/// A PostgreSQL cluster of the test's own (`initdb` in a temporary directory, on a free port),
/// run as the `postgres` user; stopped when dropped.
pub struct PrivatePostgres {
    dir: tempfile::TempDir,
    pub port: u16,
}

impl PrivatePostgres {
    pub async fn start() -> PrivatePostgres {
        let dir = tempfile::tempdir().unwrap();
        run(Command::new("chown").args(["postgres:postgres", &dir.path().display().to_string()])).await;
        let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
        let cluster = PrivatePostgres { dir, port };
        let data = cluster.data();
        run(cluster.as_postgres("initdb").args(["-D", &data, "-A", "trust", "-U", "postgres", "--no-sync"]))
            .await;
        let conf = format!(
            "port = {port}\nlisten_addresses = '127.0.0.1'\nunix_socket_directories = '{}'\nmax_connections = 100\n",
            cluster.dir.path().display()
        );
        std::fs::write(Path::new(&data).join("postgresql.auto.conf"), conf).unwrap();
        cluster.pg_ctl(&["start"]).await;
        cluster
    }

    fn data(&self) -> String {
        self.dir.path().join("data").display().to_string()
    }

    fn as_postgres(&self, program: &str) -> Command {
        let mut command = Command::new("runuser");
        command.args(["-u", "postgres", "--"]).arg(pg_bin().join(program));
        command
    }

    async fn pg_ctl(&self, args: &[&str]) {
        let log = self.dir.path().join("log").display().to_string();
        run(self.as_postgres("pg_ctl").args(["-D", &self.data(), "-l", &log, "-w"]).args(args)).await;
    }

    pub fn url(&self) -> String {
        format!("postgres://postgres@127.0.0.1:{}/postgres", self.port)
    }

    pub fn addr(&self) -> SocketAddr {
        SocketAddr::from(([127, 0, 0, 1], self.port))
    }

    /// `pg_ctl restart` with shutdown `mode` (`fast`: sessions ended, a clean checkpoint;
    /// `immediate`: killed, crash recovery at start-up).
    /// Shuts the cluster down (`fast` or `immediate`).
    pub async fn stop(&self, mode: &str) {
        self.pg_ctl(&["-m", mode, "stop"]).await;
    }

    /// Starts it again after [`PrivatePostgres::stop`].
    pub async fn start_again(&self) {
        self.pg_ctl(&["start"]).await;
    }
}

impl Drop for PrivatePostgres {
    fn drop(&mut self) {
        let _ = std::process::Command::new("runuser")
            .args(["-u", "postgres", "--"])
            .arg(pg_bin().join("pg_ctl"))
            .args(["-D", &self.data(), "-m", "immediate", "stop"])
            .output();
    }
}

/// A small tmpfs mounted on a temporary directory (root only, as `.ci/run` is); unmounted
/// when dropped.
pub struct Tmpfs {
    dir: tempfile::TempDir,
}

impl Tmpfs {
    pub async fn mount(size: &str) -> Tmpfs {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().display().to_string();
        let output = Command::new("mount")
            .args(["-t", "tmpfs", "-o", &format!("size={size}"), "tmpfs", &path])
            .output()
            .await
            .unwrap();
        assert!(
            output.status.success(),
            "this test mounts a tmpfs and needs root, as .ci/run has: {}",
            String::from_utf8_lossy(&output.stderr)
        );
        Tmpfs { dir }
    }

    pub fn path(&self) -> &Path {
        self.dir.path()
    }

    fn filler(&self) -> PathBuf {
        self.dir.path().join("filler")
    }

    /// Fills the file system to the last byte.
    pub fn fill(&self) {
        use std::io::Write;
        let mut file = std::fs::File::create(self.filler()).unwrap();
        let block = vec![0u8; 4096];
        while file.write_all(&block).is_ok() {}
        let byte = [0u8];
        while file.write_all(&byte).is_ok() {}
        let _ = file.sync_all();
    }

    /// Frees what [`Tmpfs::fill`] took, if it took anything.
    pub fn free(&self) {
        match std::fs::remove_file(self.filler()) {
            Err(error) if error.kind() != std::io::ErrorKind::NotFound => panic!("{error}"),
            _ => {}
        }
    }
}

impl Drop for Tmpfs {
    fn drop(&mut self) {
        let _ = std::process::Command::new("umount")
            .args(["-l", &self.dir.path().display().to_string()])
            .output();
    }
}

/// Sends `signal` (`-STOP`, `-CONT`…) to process `pid`.
pub fn signal(pid: u32, signal: &str) {
    let status = std::process::Command::new("kill").args([signal, &pid.to_string()]).status().unwrap();
    assert!(status.success());
}
