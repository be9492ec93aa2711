//! Every setting of the server: a flag and an environment variable each (`--help` lists them).

use std::net::SocketAddr;
use std::num::NonZeroU32;
use std::path::PathBuf;
use std::time::Duration;

use axum::http::HeaderName;
use clap::Parser;

/// The server's settings. `main` parses them from the command line and the environment; tests
/// build them with [`Config::try_parse_from`].
#[derive(Clone, Debug, Parser)]
#[command(name = "fugitive-server", version, about = "The Fugitive Online game server")]
pub struct Config {
    /// Address to listen on.
    #[arg(long, env = "FUGITIVE_ADDR", default_value = "127.0.0.1:8080")]
    pub addr: SocketAddr,

    /// Database: `sqlite://file.db` (created if missing, WAL mode) or `postgres://…`.
    #[arg(long, env = "DATABASE_URL", default_value = "sqlite://fugitive.db")]
    pub database_url: String,

    /// Directory of the web client, served at `/`.
    #[arg(long, env = "FUGITIVE_WEB_DIR", default_value = "web")]
    pub web_dir: PathBuf,

    /// Comma-separated `Origin`s allowed to open a WebSocket (`*` for any). Empty: the server's
    /// own address (`http://127.0.0.1:PORT`, `http://localhost:PORT`). A request without an
    /// `Origin` header (not a browser) is allowed.
    #[arg(long, env = "FUGITIVE_ALLOWED_ORIGINS", value_delimiter = ',')]
    pub allowed_origins: Vec<String>,

    /// Largest client message (and frame) in bytes; a bigger one closes the socket with 1009.
    #[arg(long, env = "FUGITIVE_MAX_MESSAGE_BYTES", default_value_t = 4096)]
    pub max_message_bytes: usize,

    /// Client messages per second per socket, with bursts of twice as many; more closes the
    /// socket with 1008.
    #[arg(long, env = "FUGITIVE_MAX_MESSAGES_PER_SEC", default_value_t = 10,
          value_parser = clap::value_parser!(u32).range(1..))]
    pub max_messages_per_sec: u32,

    /// Most WebSockets open at once; more are refused with 503 before the upgrade. Capped at
    /// start-up below the process's open-files limit (the soft limit is first raised to the
    /// hard one), so that overload is always a 503.
    #[arg(long, env = "FUGITIVE_MAX_SOCKETS", default_value_t = 10_000)]
    pub max_sockets: usize,

    /// Most spectators' WebSockets on one room; more are closed with 1013 at `hello`. The two
    /// players' seats are never refused for lack of room.
    #[arg(long, env = "FUGITIVE_MAX_SOCKETS_PER_ROOM", default_value_t = 64)]
    pub max_sockets_per_room: usize,

    /// A WebSocket that has not joined with `hello` this long after it opened is closed with 1008.
    #[arg(long, env = "FUGITIVE_HELLO_TIMEOUT", default_value = "10s", value_parser = humantime::parse_duration)]
    pub hello_timeout: Duration,

    /// Frames queued for one socket: replies and chat messages beyond this many unread close the
    /// socket with 1008; states never do (a snapshot replaces the unread ones, and a protocol-2
    /// socket with this many deltas unread gets a snapshot instead of the next).
    #[arg(long, env = "FUGITIVE_SOCKET_QUEUE", default_value_t = 32)]
    pub socket_queue: usize,

    /// How many times a socket's writer lets the other tasks run before it writes what waits
    /// (0: at once). Each frame that waits is written in the same `write` call, so a reply and
    /// the delta queued beside it cost one system call; a wait lets the reply that follows an
    /// actor's delta join it (BENCHMARKS.md, issue 28).
    #[arg(long, env = "FUGITIVE_SOCKET_WRITE_YIELDS", default_value_t = 0,
          value_parser = clap::value_parser!(u8).range(0..=8))]
    pub socket_write_yields: u8,

    /// The kernel's send buffer of each connection, in bytes (default: the system's, which on
    /// Linux grows up to `net.ipv4.tcp_wmem`'s maximum, 4 MiB). A smaller one bounds what a
    /// client that stops reading holds in the kernel; the socket's queue then keeps only what
    /// it still needs.
    #[arg(long, env = "FUGITIVE_SOCKET_SEND_BUFFER")]
    pub socket_send_buffer: Option<usize>,

    /// How often the server pings each socket.
    #[arg(long, env = "FUGITIVE_PING_INTERVAL", default_value = "20s", value_parser = humantime::parse_duration)]
    pub ping_interval: Duration,

    /// A socket from which nothing (not even a pong) arrives for this long is closed with 1008.
    #[arg(long, env = "FUGITIVE_IDLE_TIMEOUT", default_value = "60s", value_parser = humantime::parse_duration)]
    pub idle_timeout: Duration,

    /// Room creations and seat claims per minute from one client address, in bursts of as
    /// many; more are refused with `429 rate_limited` and `Retry-After`.
    #[arg(long, env = "FUGITIVE_MAX_ROOMS_PER_MINUTE", default_value_t = NonZeroU32::new(20).expect("20"))]
    pub max_rooms_per_minute: NonZeroU32,

    /// Behind a reverse proxy: the header in which the proxy puts the client's address
    /// (`X-Forwarded-For`, `X-Real-IP`…; its last address counts). Only name a header your
    /// proxy sets: without this flag the connection's address is the client's.
    #[arg(long, env = "FUGITIVE_CLIENT_IP_HEADER")]
    pub client_ip_header: Option<HeaderName>,

    /// An HTTP client has this long to send a request's headers; then the connection is closed.
    #[arg(long, env = "FUGITIVE_HEADER_READ_TIMEOUT", default_value = "10s", value_parser = humantime::parse_duration)]
    pub header_read_timeout: Duration,

    /// A request (its body included) not answered within this long gets `408 request_timeout`.
    #[arg(long, env = "FUGITIVE_REQUEST_TIMEOUT", default_value = "30s", value_parser = humantime::parse_duration)]
    pub request_timeout: Duration,

    /// A room whose game is unfinished and has seen no action for this long is deleted.
    #[arg(long, env = "FUGITIVE_ROOM_IDLE_TTL", default_value = "24h", value_parser = humantime::parse_duration)]
    pub room_idle_ttl: Duration,

    /// How often expired rooms are looked for.
    #[arg(long, env = "FUGITIVE_EXPIRY_INTERVAL", default_value = "60s", value_parser = humantime::parse_duration)]
    pub expiry_interval: Duration,

    /// Log lines as human-readable `text` or as one JSON object per line (`json`). The level
    /// comes from `RUST_LOG` (default `info`).
    #[arg(long, env = "FUGITIVE_LOG_FORMAT", value_enum, default_value_t = LogFormat::Text)]
    pub log_format: LogFormat,

    /// A room in memory with no socket for this long (and no running turn clock) is unloaded;
    /// it is rebuilt from the database when someone comes back.
    #[arg(long, env = "FUGITIVE_ROOM_UNLOAD_AFTER", default_value = "5m", value_parser = humantime::parse_duration)]
    pub room_unload_after: Duration,

    /// About how long a computer opponent waits before each move (give or take a third), so
    /// it feels like a player; tests set it near 0.
    #[arg(long, env = "FUGITIVE_BOT_PAUSE", default_value = "900ms", value_parser = humantime::parse_duration)]
    pub bot_pause: Duration,

    /// Most accepted actions waiting to be committed; beyond it a new action is answered
    /// `unavailable` with `retry_after_ms` at once instead of waiting (see docs/protocol.md).
    #[arg(long, env = "FUGITIVE_MAX_COMMIT_QUEUE", default_value_t = 4096,
          value_parser = clap::value_parser!(u64).range(1..))]
    pub max_commit_queue: u64,

    /// Most actions the writer commits in one transaction.
    #[arg(long, env = "FUGITIVE_MAX_COMMIT_BATCH", default_value_t = 512,
          value_parser = clap::value_parser!(u64).range(1..))]
    pub max_commit_batch: u64,

    /// PostgreSQL: most batches of actions committing at once, each on a connection of its
    /// own; the pool has this many connections more than the 8 that serve everything else.
    #[arg(long, env = "FUGITIVE_COMMIT_PIPELINE", default_value_t = 4,
          value_parser = clap::value_parser!(u64).range(1..=64))]
    pub commit_pipeline: u64,

    /// SQLite: the writer's connection: `rusqlite` on a thread of its own, or `sqlx` (kept to
    /// measure the two against each other).
    #[arg(long, env = "FUGITIVE_SQLITE_WRITER", value_enum, default_value_t = SqliteWriter::Rusqlite)]
    pub sqlite_writer: SqliteWriter,
    /// Several nodes on one PostgreSQL database: how long a node's lease on a room (its turn
    /// clock, its computer opponent) lasts without renewal. A node that dies or freezes hands
    /// its rooms to another within about this long (plus a third). Renewed every third of it.
    #[arg(long, env = "FUGITIVE_LEASE_MS", default_value_t = 10_000,
          value_parser = clap::value_parser!(u64).range(300..))]
    pub lease_ms: u64,

    /// For tests and for operators reproducing a game, never for a public server: deal every
    /// game from this number instead of a fresh random seed (game n of every room gets the same
    /// deal: `fugitive_server::rooms::deal(seed, n)`), and the computer opponent's choices follow
    /// from it too. Only the server's operator sets it; no client can set or see it (a game's
    /// seed is public only once the game is over, as always).
    #[arg(long, env = "FUGITIVE_DEAL_SEED")]
    pub deal_seed: Option<u64>,

    /// Web Push: the server's VAPID private key (the P-256 private scalar, base64url). Without
    /// it, the first start makes one and keeps it in the database, so a self-hoster sets
    /// nothing and every node signs with the same key. Changing it voids every subscription.
    #[arg(long, env = "FUGITIVE_VAPID_PRIVATE_KEY", hide_env_values = true)]
    pub vapid_private_key: Option<String>,

    /// Web Push: the contact the push services are given with each message (`mailto:` or
    /// `https:` URL); some (Apple's) refuse messages whose contact is not a real address.
    #[arg(long, env = "FUGITIVE_VAPID_SUBJECT", default_value = "mailto:webmaster@localhost")]
    pub vapid_subject: String,

    /// Web Push: take subscriptions whose push service is a plain `http://` URL. For tests
    /// with a local push service only: a browser's push service is always HTTPS.
    #[arg(long, env = "FUGITIVE_PUSH_ALLOW_HTTP")]
    pub push_allow_http: bool,

    /// Puzzles to load at start-up (issue 26): a file `fugitive-sim --puzzles` wrote, one JSON
    /// puzzle a line. Puzzles already stored are kept once; a line that does not parse is
    /// logged and skipped. Default: `puzzles/puzzles.jsonl` (the bot games' puzzles of the
    /// repository) when that file exists in the working directory, else none.
    #[arg(long, env = "FUGITIVE_PUZZLES")]
    pub puzzles: Option<PathBuf>,

    /// The CPU time the puzzle miner may spend on one finished game, in ms: past it the game
    /// stays mined with the puzzles found so far (it is never tried again).
    #[arg(long, env = "FUGITIVE_PUZZLE_CPU_MS", default_value_t = 2_000)]
    pub puzzle_cpu_ms: u64,

    /// How often the puzzle miner looks for finished games no node has mined yet (`0s`: never).
    #[arg(long, env = "FUGITIVE_PUZZLE_MINE_INTERVAL", default_value = "30s", value_parser = humantime::parse_duration)]
    pub puzzle_mine_interval: Duration,

    /// Test-only, hidden, off by default: a deliberately broken server that acknowledges each
    /// action before its commit, so a commit that fails loses acknowledged actions. Only the
    /// fault tests' history checker uses it (`tests/it/faults.rs`), to prove it catches that.
    #[arg(long, env = "FUGITIVE_TEST_ACK_BEFORE_COMMIT", hide = true)]
    pub test_ack_before_commit: bool,
    /// Background jobs (issue 26: analyses of finished games and the puzzle miner) this node
    /// runs at once, each on its own thread at the background priority; the others queue.
    /// Default: the machine's cores less one (at least one), so a core is left to live games.
    #[arg(long, env = "FUGITIVE_ANALYSIS_WORKERS", value_parser = clap::value_parser!(u64).range(1..=64))]
    pub analysis_workers: Option<u64>,
    /// The background jobs' CPU priority: `idle` (Linux `SCHED_IDLE`: any live game's thread
    /// preempts them at once; nice 19 where refused) or `nice` (nice 19: they still take a
    /// share of a busy machine).
    #[arg(long, env = "FUGITIVE_BACKGROUND_PRIORITY", value_enum, default_value_t = Priority::Idle)]
    pub background_priority: Priority,
    /// The CPU time one analysis may use, in ms: past it the moves done are stored, marked
    /// incomplete.
    #[arg(long, env = "FUGITIVE_ANALYSIS_CPU_MS", default_value_t = 10_000,
          value_parser = clap::value_parser!(u64).range(100..))]
    pub analysis_cpu_ms: u64,
}

/// How log lines are written.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum LogFormat {
    /// For people.
    Text,
    /// One JSON object per line, for log collectors.
    Json,
}

/// Which `Origin`s may open a WebSocket.
#[derive(Clone, Debug)]
pub enum Origins {
    /// Any origin (`*`).
    Any,
    /// Only these, compared exactly (scheme, host and port).
    List(Vec<String>),
}

impl Config {
    /// The puzzles file to load: the flag's, else [`DEFAULT_PUZZLES`] under `dir` when it
    /// exists (a missing default is no error: there is nothing to load).
    pub fn puzzles_file(&self, dir: &std::path::Path) -> Option<PathBuf> {
        self.puzzles.clone().or_else(|| Some(dir.join(DEFAULT_PUZZLES)).filter(|p| p.is_file()))
    }
}

/// The puzzles file loaded when `--puzzles` is not given and it exists, relative to the working
/// directory (the repository's root for the README's `cargo run`).
pub const DEFAULT_PUZZLES: &str = "puzzles/puzzles.jsonl";

impl Origins {
    /// The allowlist of `config`, or the server's own address when it is empty.
    pub fn new(config: &Config, local: SocketAddr) -> Origins {
        let listed: Vec<String> = config
            .allowed_origins
            .iter()
            .map(|o| o.trim().trim_end_matches('/').to_string())
            .filter(|o| !o.is_empty())
            .collect();
        if listed.iter().any(|o| o == "*") {
            return Origins::Any;
        }
        if !listed.is_empty() {
            return Origins::List(listed);
        }
        let port = local.port();
        let mut own = vec![format!("http://{local}")];
        if local.ip().is_loopback() || local.ip().is_unspecified() {
            own.push(format!("http://localhost:{port}"));
            own.push(format!("http://127.0.0.1:{port}"));
        }
        Origins::List(own)
    }

    /// Whether a request with this `Origin` header may upgrade. No header: not a browser, so
    /// not a cross-site hijack.
    pub fn allows(&self, origin: Option<&str>) -> bool {
        match (self, origin) {
            (_, None) | (Origins::Any, _) => true,
            (Origins::List(list), Some(origin)) => list.iter().any(|o| o == origin),
        }
    }
}

/// The CPU priority of background jobs (`background.rs`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum Priority {
    /// Linux `SCHED_IDLE` (nice 19 where the kernel refuses it).
    #[default]
    Idle,
    /// Nice 19.
    Nice,
    /// The server's own priority: a job competes with the live games as their equal. For a
    /// machine whose analyses matter as much as its latency, and for tests of what a job
    /// computes (on a busy machine a job at either lower priority may stand still for minutes).
    Normal,
}

/// The SQLite writer's connection.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum SqliteWriter {
    /// A `rusqlite` connection on a thread of its own: one hand-off per batch.
    #[default]
    Rusqlite,
    /// An sqlx connection: a hand-off to sqlx's SQLite thread per statement.
    Sqlx,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_parse_and_own_origin_is_allowed() {
        let config = Config::try_parse_from(["fugitive-server", "--addr", "127.0.0.1:9"]).unwrap();
        assert_eq!(config.max_message_bytes, 4096);
        let origins = Origins::new(&config, "127.0.0.1:8080".parse().unwrap());
        assert!(origins.allows(Some("http://127.0.0.1:8080")));
        assert!(origins.allows(Some("http://localhost:8080")));
        assert!(!origins.allows(Some("http://evil.example")));
        assert!(origins.allows(None));
    }

    #[test]
    fn the_puzzles_file_defaults_to_the_repositorys_when_it_exists_and_the_flag_wins() {
        let dir = tempfile::tempdir().unwrap();
        let none = Config::try_parse_from(["x"]).unwrap();
        assert_eq!(none.puzzles_file(dir.path()), None, "no default file: nothing, and no error");
        std::fs::create_dir(dir.path().join("puzzles")).unwrap();
        std::fs::write(dir.path().join(DEFAULT_PUZZLES), "").unwrap();
        assert_eq!(none.puzzles_file(dir.path()), Some(dir.path().join("puzzles/puzzles.jsonl")));
        let flag = Config::try_parse_from(["x", "--puzzles", "/elsewhere/p.jsonl"]).unwrap();
        assert_eq!(flag.puzzles_file(dir.path()), Some(PathBuf::from("/elsewhere/p.jsonl")));
    }

    #[test]
    fn listed_origins_replace_the_default() {
        let config =
            Config::try_parse_from(["x", "--allowed-origins", "https://a.example/,https://b.example"])
                .unwrap();
        let origins = Origins::new(&config, "127.0.0.1:8080".parse().unwrap());
        assert!(origins.allows(Some("https://a.example")));
        assert!(origins.allows(Some("https://b.example")));
        assert!(!origins.allows(Some("http://127.0.0.1:8080")));
        let any = Config::try_parse_from(["x", "--allowed-origins", "*"]).unwrap();
        assert!(Origins::new(&any, "127.0.0.1:1".parse().unwrap()).allows(Some("http://x")));
    }
}
