//! The history checker of the fault tests (issue 27): what each client of a room sent, what it
//! was acknowledged and every state it saw, checked afterwards against the room's log as the
//! database holds it (Jepsen's way: record from outside, judge at the end).
//!
//! The checks, per room (game 1):
//! - every acknowledged action is in the log exactly once (else it was *lost*, or applied
//!   *twice*), the action that was sent, in the order of its seat's `seq`s;
//! - no entry of the log is a move nobody sent (a *phantom*): each is a seat's action with the
//!   `seq` of an action that seat sent, or the turn clock's `time_out`;
//! - the turn clock fired at most once, and never before the clock's time had passed since the
//!   action that began the turn was sent (a *misfire*), as the test's own monotonic clock saw it;
//! - every client saw versions in increasing order on each socket, each state the view of a
//!   prefix of the final log;
//! - a spectator's last state is the log's end.

use std::collections::HashMap;
use std::time::Duration;

use fugitive_core::{Action, Entry, Game, Role, RuleOptions, Seed, Setup, Viewer};
use serde_json::Value;
use tokio::time::Instant;

/// One action a client sent.
#[derive(Clone, Debug)]
pub struct Sent {
    pub seq: u64,
    pub action: Action,
    pub at: Instant,
}

/// One state a client saw.
#[derive(Clone, Debug)]
pub struct Seen {
    /// Which of the client's sockets it came on (0, then 1 after the first reconnect…).
    pub socket: usize,
    pub version: u64,
    pub view: Value,
    pub at: Instant,
}

/// What one client (a seat's player across its reconnects, or a spectator) did and saw.
#[derive(Clone, Debug)]
pub struct Record {
    /// `None`: a spectator.
    pub role: Option<Role>,
    pub sent: Vec<Sent>,
    /// The `seq`s answered `ok`.
    pub acked: Vec<u64>,
    pub states: Vec<Seen>,
    /// Replies other than `ok` (with their code), and reply waits that timed out.
    pub errors: Vec<String>,
    /// Sockets opened again after a failure.
    pub reconnects: usize,
}

impl Record {
    pub fn new(role: Option<Role>) -> Record {
        Record {
            role,
            sent: Vec::new(),
            acked: Vec::new(),
            states: Vec::new(),
            errors: Vec::new(),
            reconnects: 0,
        }
    }

    fn viewer(&self) -> Viewer {
        match self.role {
            Some(Role::Fugitive) => Viewer::Fugitive,
            Some(Role::Marshal) => Viewer::Marshal,
            None => Viewer::Spectator,
        }
    }
}

/// One entry of a room's log.
#[derive(Clone, Debug)]
pub struct Logged {
    pub role: Role,
    pub entry: Entry,
    pub client_seq: Option<u64>,
}

/// A room's game 1 as the database holds it.
#[derive(Clone, Debug)]
pub struct Log {
    pub setup: Setup,
    pub entries: Vec<Logged>,
}

/// Reads game 1 of `room` from the database at `url` (SQLite or PostgreSQL), trying again
/// while the database is away (a fault may be restarting it).
pub async fn read_log(url: &str, room: &str) -> Log {
    let started = Instant::now();
    loop {
        match try_read_log(url, room).await {
            Ok(log) => return log,
            Err(error) => {
                assert!(started.elapsed() < super::PATIENCE, "cannot read the log of {room}: {error}");
                tokio::time::sleep(Duration::from_millis(200)).await;
            }
        }
    }
}

/// At most this many logs are read at once: a hundred tables ending their games together would
/// otherwise open a hundred connections to a PostgreSQL that other tests share.
static READERS: tokio::sync::Semaphore = tokio::sync::Semaphore::const_new(8);

async fn try_read_log(url: &str, room: &str) -> Result<Log, sqlx::Error> {
    use sqlx::Connection;
    sqlx::any::install_default_drivers();
    let _reader = READERS.acquire().await.expect("the semaphore is never closed");
    let mut conn = sqlx::AnyConnection::connect(url).await?;
    let (seed, rules): (String, String) =
        sqlx::query_as("SELECT seed, rules FROM games WHERE room_id = $1 AND game = 1")
            .bind(room)
            .fetch_one(&mut conn)
            .await?;
    let rows: Vec<(String, String, Option<i64>)> = sqlx::query_as(
        "SELECT role, action, client_seq FROM actions WHERE room_id = $1 AND game = 1 ORDER BY number",
    )
    .bind(room)
    .fetch_all(&mut conn)
    .await?;
    let _ = conn.close().await;
    let setup = Setup {
        seed: Seed::try_from(seed).expect("a stored seed"),
        rules: serde_json::from_str::<RuleOptions>(&rules).unwrap(),
    };
    let entries = rows
        .into_iter()
        .map(|(role, entry, seq)| Logged {
            role: serde_json::from_value(Value::String(role)).unwrap(),
            entry: serde_json::from_str(&entry).unwrap(),
            client_seq: seq.map(|s| s as u64),
        })
        .collect();
    Ok(Log { setup, entries })
}

/// What the checker counted, summed over rooms; `violations` says what went wrong where.
#[derive(Clone, Debug, Default)]
pub struct Verdict {
    pub games: usize,
    /// Actions acknowledged to the clients.
    pub actions: usize,
    pub lost: usize,
    pub twice: usize,
    pub misfires: usize,
    pub phantoms: usize,
    /// Replies other than `ok` and replies that never came, over every client.
    pub errors: usize,
    /// Sockets the clients had to open again.
    pub reconnects: usize,
    pub violations: Vec<String>,
}

impl Verdict {
    pub fn add(&mut self, other: Verdict) {
        self.games += other.games;
        self.actions += other.actions;
        self.lost += other.lost;
        self.twice += other.twice;
        self.misfires += other.misfires;
        self.phantoms += other.phantoms;
        self.errors += other.errors;
        self.reconnects += other.reconnects;
        self.violations.extend(other.violations);
    }

    /// Panics with every violation, if there is one.
    pub fn assert_clean(&self) {
        assert!(self.violations.is_empty(), "the history checker found:\n{}", self.violations.join("\n"));
    }
}

/// Checks the clients' records of `room` against its log; `clock`: its turn clock.
pub fn check(room: &str, log: &Log, records: &[Record], clock: Option<Duration>) -> Verdict {
    check_against(room, log, records, clock, None)
}

/// [`check`] for a room against the computer, which plays `computer`: nobody records what it
/// sent, so its entries are not phantoms, but each of its `seq`s must be in the log once (a
/// computer moved by two nodes would show one twice, as *twice*), in increasing order.
pub fn check_against(
    room: &str,
    log: &Log,
    records: &[Record],
    clock: Option<Duration>,
    computer: Option<Role>,
) -> Verdict {
    let mut verdict = Verdict { games: 1, ..Verdict::default() };
    let fail = |what: String| format!("room {room}: {what}");
    let mut violations = Vec::new();

    // The views of every prefix of the log, for each viewer; a log that does not replay is
    // a violation of its own.
    let mut game = Game::new(log.setup);
    let view = |game: &Game| Viewer::ALL.map(|viewer| serde_json::to_value(game.view(viewer)).unwrap());
    let mut views = vec![view(&game)];
    // For each version, the entry that passed the turn to the player to move (the clock runs
    // from there: a turn of several actions has one clock).
    let mut turn_began = vec![None];
    for (number, logged) in log.entries.iter().enumerate() {
        let before = game.to_move();
        if let Err(error) = game.apply_entry(logged.role, logged.entry) {
            violations.push(fail(format!("log entry {number} does not apply: {error}")));
            break;
        }
        views.push(view(&game));
        let began = if game.to_move() == before { turn_began[number] } else { Some(number) };
        turn_began.push(began);
    }

    // Where each seat's seqs are in the log.
    let mut at: HashMap<(Role, u64), Vec<usize>> = HashMap::new();
    for (number, logged) in log.entries.iter().enumerate() {
        if let Some(seq) = logged.client_seq {
            at.entry((logged.role, seq)).or_default().push(number);
        }
    }
    let mut sent_at: HashMap<(Role, u64), &Sent> = HashMap::new();
    for record in records {
        verdict.errors += record.errors.len();
        verdict.reconnects += record.reconnects;
        let Some(role) = record.role else { continue };
        for sent in &record.sent {
            sent_at.insert((role, sent.seq), sent);
        }
        let mut last = None;
        for &seq in &record.acked {
            verdict.actions += 1;
            match at.get(&(role, seq)).map_or(&[][..], Vec::as_slice) {
                [] => {
                    verdict.lost += 1;
                    violations
                        .push(fail(format!("{role:?}'s acknowledged seq {seq} is not in the log: lost")));
                }
                [number] => {
                    let sent = sent_at.get(&(role, seq)).map(|s| s.action);
                    if sent.map(Entry::Action) != Some(log.entries[*number].entry) {
                        violations.push(fail(format!(
                            "{role:?}'s seq {seq} is logged as {:?}, sent as {sent:?}",
                            log.entries[*number].entry
                        )));
                    }
                    if last.is_some_and(|last| last > *number) {
                        violations
                            .push(fail(format!("{role:?}'s seq {seq} is logged before an earlier seq")));
                    }
                    last = Some(*number);
                }
                numbers => {
                    verdict.twice += 1;
                    violations
                        .push(fail(format!("{role:?}'s seq {seq} is in the log {} times", numbers.len())));
                }
            }
        }
    }

    // Nothing nobody sent; the clock once, and not early.
    let mut time_outs = 0;
    let mut computer_seq: Option<u64> = None;
    for (number, logged) in log.entries.iter().enumerate() {
        match (logged.entry, logged.client_seq) {
            (Entry::TimeOut, None) => {
                time_outs += 1;
                let Some(clock) = clock else {
                    verdict.misfires += 1;
                    violations.push(fail(format!("entry {number}: a time_out in a room with no clock")));
                    continue;
                };
                let before = turn_began.get(number).copied().flatten().and_then(|n| {
                    let logged = &log.entries[n];
                    sent_at.get(&(logged.role, logged.client_seq?))
                });
                let seen = records
                    .iter()
                    .flat_map(|r| &r.states)
                    .filter(|s| s.version > number as u64)
                    .map(|s| s.at)
                    .min();
                if let (Some(before), Some(seen)) = (before, seen) {
                    if seen.duration_since(before.at) < clock {
                        verdict.misfires += 1;
                        violations.push(fail(format!(
                            "entry {number}: the clock fired {:?} after the turn began, under its {clock:?}",
                            seen.duration_since(before.at)
                        )));
                    }
                }
            }
            (Entry::Action(_), Some(seq)) if Some(logged.role) == computer => {
                if computer_seq.is_some_and(|last| last >= seq) {
                    verdict.twice += 1;
                    violations.push(fail(format!(
                        "entry {number}: the computer's seq {seq} after its {computer_seq:?}"
                    )));
                }
                computer_seq = Some(seq);
            }
            (Entry::Action(action), Some(seq)) => {
                if sent_at.get(&(logged.role, seq)).map(|s| s.action) != Some(action) {
                    verdict.phantoms += 1;
                    violations.push(fail(format!(
                        "entry {number}: {action:?} by {:?} that nobody sent",
                        logged.role
                    )));
                }
            }
            (entry, seq) => {
                verdict.phantoms += 1;
                violations.push(fail(format!("entry {number}: {entry:?} with seq {seq:?} nobody sent")));
            }
        }
    }
    if time_outs > 1 {
        verdict.misfires += time_outs - 1;
        violations.push(fail(format!("the clock fired {time_outs} times")));
    }

    // Every state a prefix of the log, in increasing versions; a spectator ends at its end.
    for record in records {
        let viewer = Viewer::ALL.iter().position(|&v| v == record.viewer()).unwrap();
        let (mut socket, mut last) = (0, 0);
        for seen in &record.states {
            if seen.socket != socket {
                // Another node's copy may lag behind what the last one showed; the client drops
                // the older state (docs/protocol.md): the order holds per socket.
                (socket, last) = (seen.socket, 0);
            }
            if seen.version < last {
                violations.push(fail(format!("{:?} saw version {} after {last}", record.role, seen.version)));
            }
            last = last.max(seen.version);
            match views.get(seen.version as usize) {
                None => violations.push(fail(format!(
                    "{:?} saw version {}, beyond the log's {}",
                    record.role,
                    seen.version,
                    log.entries.len()
                ))),
                Some(at) if at[viewer] != seen.view => violations.push(fail(format!(
                    "{:?} saw a state at version {} that is not the log's (the log's at {:?})",
                    record.role,
                    seen.version,
                    views.iter().position(|v| v[viewer] == seen.view)
                ))),
                Some(_) => {}
            }
        }
        if record.role.is_none() && record.states.last().map(|s| s.version) != Some(log.entries.len() as u64)
        {
            violations.push(fail(format!(
                "the spectator's last state is version {:?}, the log ends at {}",
                record.states.last().map(|s| s.version),
                log.entries.len()
            )));
        }
    }
    verdict.violations = violations;
    verdict
}
