//! The figures of a run, as markdown: the bare tables, or the whole `## fugitive-server`
//! section of `BENCHMARKS.md`.

use std::fmt::Write;
use std::time::SystemTime;

use hdrhistogram::Histogram;

use crate::server::Memory;

/// The server's memory before and after adding `count` sockets or rooms.
pub struct MemoryDelta {
    /// Before.
    pub before: Memory,
    /// After.
    pub after: Memory,
    /// How many were added.
    pub count: usize,
}

impl MemoryDelta {
    /// RSS growth per added socket or room, in KiB.
    fn rss_each(&self) -> f64 {
        (self.after.rss_kib as f64 - self.before.rss_kib as f64) / self.count as f64
    }

    /// PSS growth per added socket or room, in KiB, when the kernel reports PSS.
    fn pss_each(&self) -> Option<f64> {
        let (before, after) = (self.before.pss_kib?, self.after.pss_kib?);
        Some((after as f64 - before as f64) / self.count as f64)
    }

    fn row(&self, what: &str) -> String {
        let pss = |m: Memory| m.pss_kib.map_or("—".to_string(), mib);
        let each_pss = self.pss_each().map_or("—".to_string(), |k| format!("{k:.1} KiB"));
        format!(
            "| {what} | {} → {} | {} → {} | **{:.1} KiB** | {each_pss} |\n",
            mib(self.before.rss_kib),
            mib(self.after.rss_kib),
            pss(self.before),
            pss(self.after),
            self.rss_each(),
        )
    }
}

/// The action → view latencies of the games, in microseconds.
pub struct Latency {
    /// Until the actor has its new `state`.
    pub own_state: Histogram<u64>,
    /// Until the actor has its `reply` and new `state`.
    pub own: Histogram<u64>,
    /// Until the opponent has the new `state`.
    pub other: Histogram<u64>,
    /// Games played.
    pub games: usize,
}

/// Everything one run measured.
pub struct Figures {
    /// Idle spectator sockets.
    pub idle: MemoryDelta,
    /// Active rooms.
    pub active: MemoryDelta,
    /// One game's latencies.
    pub latency: Latency,
    /// `--sockets`.
    pub sockets: usize,
    /// `--rooms`.
    pub rooms: usize,
    /// `--spectator-rooms`.
    pub spectator_rooms: usize,
    /// The open-files limit of the run.
    pub fds: u64,
}

fn mib(kib: u64) -> String {
    format!("{:.1} MiB", kib as f64 / 1024.0)
}

fn latency_row(what: &str, h: &Histogram<u64>) -> String {
    let q = |q: f64| h.value_at_quantile(q);
    format!("| {what} | {} | {} | {} | {} | {} |\n", h.len(), q(0.5), q(0.9), q(0.99), h.max())
}

/// The two tables.
pub fn tables(f: &Figures) -> String {
    let mut out = String::new();
    out.push_str(
        "| Memory of the server | RSS before → after | PSS before → after | RSS each | PSS each |\n",
    );
    out.push_str("|---|---|---|---|---|\n");
    out.push_str(
        &f.idle.row(&format!(
            "{} idle spectator sockets over {} rooms (per socket)",
            f.sockets, f.spectator_rooms
        )),
    );
    out.push_str(
        &f.active
            .row(&format!("{} active rooms, 2 players connected each, sockets included (per room)", f.rooms)),
    );
    out.push('\n');
    let _ =
        writeln!(out, "| Action → view, {} games (µs) | actions | p50 | p90 | p99 | max |", f.latency.games);
    out.push_str("|---|---|---|---|---|---|\n");
    out.push_str(&latency_row("actor has its new `state`", &f.latency.own_state));
    out.push_str(&latency_row("actor has its `state` and its `reply`", &f.latency.own));
    out.push_str(&latency_row("opponent has the new `state`", &f.latency.other));
    out
}

/// The whole `## fugitive-server` section of `BENCHMARKS.md`.
pub fn section(f: &Figures, command: &str) -> String {
    let date = humantime::format_rfc3339_seconds(SystemTime::now()).to_string();
    let cpus = std::thread::available_parallelism().map_or(0, |n| n.get());
    let mut out = String::new();
    let _ = write!(
        out,
        "## fugitive-server

Measured with the load client `crates/fugitive-load` (`src/main.rs` says how). It starts the
release server itself as a child on a free loopback port, with a new SQLite database in `{tmp}`,
and reads the child's `VmRSS` from `/proc/<pid>/status` and its `Pss` from
`/proc/<pid>/smaps_rollup`. Each of the three runs has a fresh server:

- **Idle sockets**: {rooms_s} rooms with one warm-up spectator each, then the baseline, then
  {sockets} more spectators spread over them, each having said `hello` and read its snapshot, then
  only answering pings. The server's `fugitive_sockets` gauge confirmed every socket open.
- **Active rooms**: {warm} warm-up rooms, then the baseline, then {rooms} rooms: created, the
  second seat claimed, both players connected, the opening played up to the Marshal's first guess
  (random legal actions from each `state`'s `legal`). Both sockets count in the room's figure.
- **Latency**: one room, two players playing {games} whole games one after the other (random legal
  actions of both, a rematch between games), one action at a time. Each action is timed from
  sending it until the actor has its new `state`, until it also has its `reply`, and until the
  opponent has the `state` with the new version. Every action is stored in SQLite (WAL, FULL sync)
  before anyone is told, so each figure includes one durable commit.

- Machine: {cpu}, {cpus} CPUs, shared with other builds (load average {load} when the run
  ended). Client and server share the same CPUs.
- Date: {date}, release profile. The open-files limit was {fds} (raised to the hard limit by the
  client; the server inherits it).
- Commands:

  ```sh
  {target}cargo build --release -p fugitive-server -p fugitive-load
  {command}
  ```

",
        tmp = std::env::temp_dir().display(),
        target =
            std::env::var("CARGO_TARGET_DIR").map_or(String::new(), |dir| format!("CARGO_TARGET_DIR={dir} ")),
        rooms_s = f.spectator_rooms,
        sockets = f.sockets,
        warm = crate::WARM_UP_ROOMS,
        rooms = f.rooms,
        games = f.latency.games,
        cpu = cpu_model(),
        load = load_average(),
        date = &date[..10],
        fds = f.fds,
    );
    out.push_str(&tables(f));
    out
}

/// The CPU's model name from `/proc/cpuinfo`.
fn cpu_model() -> String {
    std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|info| {
            info.lines()
                .find_map(|line| line.strip_prefix("model name"))
                .map(|rest| rest.trim_start_matches([' ', '\t', ':']).trim().to_string())
        })
        .unwrap_or_else(|| "unknown CPU".to_string())
}

/// The 1, 5 and 15 minute load averages from `/proc/loadavg`.
pub(crate) fn load_average() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .map(|text| text.split_whitespace().take(3).collect::<Vec<_>>().join(" / "))
        .unwrap_or_else(|_| "unknown".to_string())
}
