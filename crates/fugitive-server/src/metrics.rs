//! Prometheus metrics (`GET /metrics`): rooms, sockets, actions, errors and request latency,
//! through the `metrics` facade and its Prometheus exporter.

use std::sync::OnceLock;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use metrics::Histogram;
use metrics_exporter_prometheus::{Matcher, PrometheusBuilder, PrometheusHandle};

const ROOMS: &str = "fugitive_rooms_loaded";
const SOCKETS: &str = "fugitive_sockets";
const ACTIONS: &str = "fugitive_actions_total";
const ERRORS: &str = "fugitive_errors_total";
const LATENCY: &str = "fugitive_request_seconds";
const BATCHES: &str = "fugitive_commit_batches_total";
const BATCH_SIZE: &str = "fugitive_commit_batch_size";
const COMMIT: &str = "fugitive_commit_seconds";
const OVERLOAD: &str = "fugitive_commit_overload_total";
const NODE: &str = "fugitive_node_info";
const LEASES: &str = "fugitive_leases_held";
const LEASE_CHANGES: &str = "fugitive_lease_changes_total";
const NOTIFY_LAG: &str = "fugitive_notify_lag_seconds";
const RESYNCS: &str = "fugitive_listener_resyncs_total";
const STAGE: &str = "fugitive_action_stage_seconds";

/// The stages of a seat's action, from the socket's reader to the frames written (issue 28:
/// where the p99 at human pace goes). Each is a histogram of `fugitive_action_stage_seconds`
/// with its name as the `stage` label.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stage {
    /// The request waited in the room actor's queue (the reader sent it, the actor took it).
    Queue,
    /// The machine's step before the write (checking the action, applying it).
    Step,
    /// The action waited for the writer to take it into a batch (linger included).
    WriterQueue,
    /// The database's own time for the batch: on SQLite the writer thread's transaction and
    /// its WAL fsync; on PostgreSQL the statement's round trip and commit.
    Db,
    /// SQLite: of `db`, the writer thread's time on a CPU.
    DbCpu,
    /// SQLite: of `db`, the writer thread's time waiting for a CPU (runnable, not running).
    /// The rest of `db` is waiting for the disk (the fsync) or for a lock.
    DbRunqueue,
    /// The batch, as the writer task waited for it: `db` and the hand-offs to the SQLite
    /// thread and back.
    Commit,
    /// From the writer answering to the room actor running again.
    Resume,
    /// The machine's step after the write: the frames built and queued on the sockets.
    Publish,
    /// A frame waited in a socket's mailbox until its writer took it.
    Mailbox,
    /// The writer's `write` calls for the frames it took at once.
    SocketWrite,
}

impl Stage {
    /// Every stage, in the order an action passes them.
    pub const ALL: [Stage; 11] = [
        Stage::Queue,
        Stage::Step,
        Stage::WriterQueue,
        Stage::Db,
        Stage::DbCpu,
        Stage::DbRunqueue,
        Stage::Commit,
        Stage::Resume,
        Stage::Publish,
        Stage::Mailbox,
        Stage::SocketWrite,
    ];

    /// The `stage` label.
    pub fn name(self) -> &'static str {
        match self {
            Stage::Queue => "queue",
            Stage::Step => "step",
            Stage::WriterQueue => "writer_queue",
            Stage::Db => "db",
            Stage::DbCpu => "db_cpu",
            Stage::DbRunqueue => "db_runqueue",
            Stage::Commit => "commit",
            Stage::Resume => "resume",
            Stage::Publish => "publish",
            Stage::Mailbox => "mailbox",
            Stage::SocketWrite => "socket_write",
        }
    }
}
const OWNER_WRITES: &str = "fugitive_owner_writes_total";

/// The histograms recorded for every action, looked up once when the recorder is installed:
/// the `histogram!` macro hashes the name and labels and searches the registry on each call,
/// and about fifteen are recorded per action (issue 28: 3–4 % of the server's CPU at full
/// speed).
struct Hot {
    /// By [`Stage::ALL`]'s order.
    stages: [Histogram; Stage::ALL.len()],
    latency: Histogram,
}

static HOT: OnceLock<Hot> = OnceLock::new();

/// How often the recorder's histograms are drained without a scrape. Each histogram keeps every
/// sample in memory until it is drained, and only `/metrics` drained them: a server nobody
/// scraped grew by about 8 bytes per sample (some 120 bytes per action), without bound.
const UPKEEP_EVERY: Duration = Duration::from_secs(1);

/// How many times the upkeep thread has drained the histograms (for its test).
static UPKEEPS: AtomicU64 = AtomicU64::new(0);

/// Installs the process-wide recorder once (tests run several servers in one process) and
/// returns the handle that renders it. Call it before anything is counted: `run` does so first,
/// before the rooms of the database are rebuilt. It starts a thread that drains the histograms
/// every [`UPKEEP_EVERY`] for the life of the process, scraped or not.
pub fn install() -> PrometheusHandle {
    static HANDLE: OnceLock<PrometheusHandle> = OnceLock::new();
    HANDLE
        .get_or_init(|| {
            let buckets = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0];
            let recorder = PrometheusBuilder::new()
                .set_buckets_for_metric(Matcher::Full(LATENCY.into()), &buckets)
                .expect("buckets are not empty")
                .set_buckets_for_metric(Matcher::Full(COMMIT.into()), &buckets)
                .expect("buckets are not empty")
                .set_buckets_for_metric(Matcher::Full(NOTIFY_LAG.into()), &buckets)
                .expect("buckets are not empty")
                .set_buckets_for_metric(Matcher::Full(STAGE.into()), &STAGE_BUCKETS)
                .expect("buckets are not empty")
                .set_buckets_for_metric(
                    Matcher::Full(BATCH_SIZE.into()),
                    &[1.0, 2.0, 4.0, 8.0, 16.0, 32.0, 64.0, 128.0, 256.0, 512.0],
                )
                .expect("buckets are not empty")
                .build_recorder();
            let handle = recorder.handle();
            if metrics::set_global_recorder(recorder).is_err() {
                tracing::warn!("a metrics recorder was already installed; /metrics will be empty");
            }
            metrics::describe_gauge!(ROOMS, "Rooms whose actor is running");
            metrics::describe_gauge!(SOCKETS, "Open WebSockets");
            metrics::describe_counter!(ACTIONS, "Accepted game actions");
            metrics::describe_counter!(ERRORS, "Error replies and refused requests, by code");
            metrics::describe_histogram!(LATENCY, "Time to answer a client message, storage included");
            metrics::describe_counter!(
                BATCHES,
                "Transactions of the group-commit writer, failed ones included"
            );
            metrics::describe_histogram!(BATCH_SIZE, "Actions per group-commit transaction");
            metrics::describe_histogram!(COMMIT, "Time to write and commit one batch of actions");
            metrics::describe_counter!(OVERLOAD, "Actions refused because the commit queue was full");
            metrics::describe_gauge!(
                NODE,
                "This node's id among the nodes sharing the database (PostgreSQL)"
            );
            metrics::describe_gauge!(LEASES, "Room leases this node holds (it runs their clocks and bots)");
            metrics::describe_counter!(
                LEASE_CHANGES,
                "Room leases acquired, released, or lost to another node"
            );
            metrics::describe_histogram!(
                NOTIFY_LAG,
                "From another node's commit (or change) to this node hearing of it"
            );
            metrics::describe_counter!(
                OWNER_WRITES,
                "Computer moves and turn-clock time-outs this node sent to be stored, by kind"
            );
            metrics::describe_counter!(RESYNCS, "Times the listener (re)connected and read its rooms back");
            metrics::describe_histogram!(STAGE, "Each stage of a seat's action, by stage");
            // Every metric exists from start-up, before the first room or socket: a gauge that
            // appears only later reads as missing, not as 0. Of the error codes, `unavailable`
            // (the database failed) is the one to alert on; the others appear when they happen.
            metrics::gauge!(ROOMS).set(0.0);
            metrics::gauge!(SOCKETS).set(0.0);
            metrics::counter!(ACTIONS).absolute(0);
            metrics::counter!(ERRORS, "code" => "unavailable").absolute(0);
            let _ = metrics::histogram!(LATENCY);
            metrics::counter!(BATCHES).absolute(0);
            metrics::counter!(OVERLOAD).absolute(0);
            let _ = metrics::histogram!(BATCH_SIZE);
            let _ = metrics::histogram!(COMMIT);
            metrics::gauge!(LEASES).set(0.0);
            for change in ["acquired", "released", "lost"] {
                metrics::counter!(LEASE_CHANGES, "change" => change).absolute(0);
            }
            let _ = metrics::histogram!(NOTIFY_LAG);
            metrics::counter!(RESYNCS).absolute(0);
            for stage in Stage::ALL {
                let _ = metrics::histogram!(STAGE, "stage" => stage.name());
            }
            for kind in ["computer", "clock"] {
                metrics::counter!(OWNER_WRITES, "kind" => kind).absolute(0);
            }
            let _ = HOT.set(Hot {
                stages: Stage::ALL.map(|stage| metrics::histogram!(STAGE, "stage" => stage.name())),
                latency: metrics::histogram!(LATENCY),
            });
            let upkeep = handle.clone();
            let started = std::thread::Builder::new().name("metrics-upkeep".into()).spawn(move || {
                loop {
                    std::thread::sleep(UPKEEP_EVERY);
                    upkeep.run_upkeep();
                    UPKEEPS.fetch_add(1, Ordering::Relaxed);
                }
            });
            if let Err(error) = started {
                tracing::warn!(%error, "no metrics upkeep thread: histograms drain only when scraped");
            }
            handle
        })
        .clone()
}

/// The buckets of [`Stage`]s, in seconds: fine below 10 ms, where the p99's goal is.
const STAGE_BUCKETS: [f64; 21] = [
    0.00005, 0.0001, 0.00025, 0.0005, 0.001, 0.0015, 0.002, 0.003, 0.004, 0.005, 0.0075, 0.01, 0.015, 0.02,
    0.03, 0.05, 0.075, 0.1, 0.25, 0.5, 1.0,
];

/// The Prometheus text.
pub fn render(handle: &PrometheusHandle) -> String {
    handle.run_upkeep();
    handle.render()
}

/// Counts a room actor in `fugitive_rooms_loaded` until it is dropped.
pub struct RoomLoaded(());

/// A room actor is about to run.
pub fn room_loaded() -> RoomLoaded {
    metrics::gauge!(ROOMS).increment(1.0);
    RoomLoaded(())
}

impl Drop for RoomLoaded {
    fn drop(&mut self) {
        metrics::gauge!(ROOMS).decrement(1.0);
    }
}

/// A socket opened (+1) or closed (-1).
pub fn socket(delta: f64) {
    metrics::gauge!(SOCKETS).increment(delta);
}

/// An accepted action.
pub fn action() {
    metrics::counter!(ACTIONS).increment(1);
}

/// An error sent to a client or an HTTP error.
pub fn error(code: &'static str) {
    metrics::counter!(ERRORS, "code" => code).increment(1);
}

/// How long a client message took to answer.
pub fn latency(elapsed: Duration) {
    match HOT.get() {
        Some(hot) => hot.latency.record(elapsed.as_secs_f64()),
        None => metrics::histogram!(LATENCY).record(elapsed.as_secs_f64()),
    }
}

/// An action spent `elapsed` in `stage`.
pub fn stage(stage: Stage, elapsed: Duration) {
    stages(stage, elapsed, 1);
}

/// `count` actions (a batch) spent `elapsed` in `stage`.
pub fn stages(stage: Stage, elapsed: Duration, count: usize) {
    let seconds = elapsed.as_secs_f64();
    match HOT.get() {
        Some(hot) => hot.stages[stage as usize].record_many(seconds, count),
        // No recorder installed here (a unit test): whatever recorder is current.
        None => metrics::histogram!(STAGE, "stage" => stage.name()).record_many(seconds, count),
    }
}

/// The writer stored (or failed to store) a batch of `size` actions in `elapsed`.
pub fn commit_batch(size: usize, elapsed: Duration) {
    metrics::counter!(BATCHES).increment(1);
    metrics::histogram!(BATCH_SIZE).record(size as f64);
    metrics::histogram!(COMMIT).record(elapsed.as_secs_f64());
}

/// An action refused because the commit queue was full.
pub fn commit_overload() {
    metrics::counter!(OVERLOAD).increment(1);
}

/// This node's id (PostgreSQL: one of several nodes).
pub fn node(node: uuid::Uuid) {
    metrics::gauge!(NODE, "node" => node.to_string()).set(1.0);
}

/// How many room leases this node holds.
pub fn leases_held(count: usize) {
    metrics::gauge!(LEASES).set(count as f64);
}

/// A room lease was `acquired`, `released` or `lost`.
pub fn lease_change(change: &'static str) {
    metrics::counter!(LEASE_CHANGES, "change" => change).increment(1);
}

/// This node sent a `computer` move or a `clock`'s time-out to be stored: it runs the room's
/// clock and computer (it holds the lease; on SQLite, always).
pub fn owner_write(kind: &'static str) {
    metrics::counter!(OWNER_WRITES, "kind" => kind).increment(1);
}

/// A notice from another node arrived this long after it was sent.
pub fn notify_lag(elapsed: Duration) {
    metrics::histogram!(NOTIFY_LAG).record(elapsed.as_secs_f64());
}

/// The listener (re)connected and its rooms are read back.
pub fn resync() {
    metrics::counter!(RESYNCS).increment(1);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn count(text: &str, stage: Stage) -> u64 {
        let line = format!("{STAGE}_count{{stage=\"{}\"}} ", stage.name());
        text.lines().find_map(|l| l.strip_prefix(line.as_str())).map_or(0, |n| n.parse().unwrap())
    }

    #[test]
    fn each_stage_records_into_its_own_histogram_of_the_installed_recorder() {
        for (index, stage) in Stage::ALL.into_iter().enumerate() {
            assert_eq!(stage as usize, index, "{stage:?}: the handles are indexed by `Stage::ALL`");
        }
        let handle = install();
        let before = render(&handle);
        stages(Stage::DbRunqueue, Duration::from_micros(70), 3);
        stage(Stage::Resume, Duration::from_micros(20));
        let after = render(&handle);
        // Other tests of this process may record too: at least ours.
        assert!(count(&after, Stage::DbRunqueue) >= count(&before, Stage::DbRunqueue) + 3, "{after}");
        assert!(count(&after, Stage::Resume) > count(&before, Stage::Resume), "{after}");
    }

    #[test]
    fn the_histograms_are_drained_without_a_scrape() {
        let _handle = install();
        stage(Stage::Queue, Duration::from_micros(5));
        let before = UPKEEPS.load(Ordering::Relaxed);
        // Waits for two drains by the upkeep thread; before it, samples stayed in memory until
        // `/metrics` was read. A generous cap, not a timing: a loaded machine may be slow.
        for _ in 0..6_000 {
            if UPKEEPS.load(Ordering::Relaxed) >= before + 2 {
                return;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        panic!("the histograms were not drained in a minute");
    }
}
