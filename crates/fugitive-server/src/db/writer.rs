//! Group commit: one writer per database stores the accepted actions of every room.
//!
//! A room hands its action to the writer and waits. The writer takes everything waiting (up to
//! [`CommitOptions::max_batch`]), writes it in one transaction, commits once, and only then
//! answers each room; a room tells nobody before that answer, so no acknowledged action is ever
//! lost. Whatever fails fails the whole batch: the transaction rolls back and every room in it
//! hears the same error, with nothing stored.
//!
//! When nothing else waits, a lone action is committed at once. When several wait (the server
//! is busy), the batch stays open for at most [`CommitOptions::linger`] to gather more; the
//! actions that arrive while a batch commits form the next one. A queue longer than
//! [`CommitOptions::max_queue`] refuses new actions at once ([`DbError::Overloaded`]) rather
//! than letting them wait seconds.
//!
//! On SQLite the writer owns one connection of its own (SQLite has one writer at a time
//! anyway): by default a `rusqlite` connection on a thread of its own, which takes a whole
//! batch in one hand-off ([`SqliteWriter::Rusqlite`]); or an sqlx connection, whose every
//! statement is a round trip to sqlx's own SQLite thread ([`SqliteWriter::Sqlx`]). Both were
//! measured (`fugitive-load --mode writers`, BENCHMARKS.md). On PostgreSQL it borrows one from the pool for each batch and keeps up to
//! [`CommitOptions::pipeline`] batches in flight, each on its own connection: while one batch
//! waits for its commit (a round trip and PostgreSQL's WAL flush), the next is gathered and
//! written. Two batches in flight never hold actions of the same room (a room hands the writer
//! its next action only once its last is committed), so they touch different rows.
//!
//! Several nodes may share one PostgreSQL database. An action whose (room, game, number) another
//! node stored first is answered [`DbError::Conflict`] alone (the rest of its batch is stored):
//! its room reads the log and decides again. The batch's rows are written in the order of
//! their rooms, so two nodes' batches never wait for each other in a cycle. On PostgreSQL the
//! whole batch is one statement (`writer/batch.rs`), not two round trips per action. In the
//! same transaction the writer `NOTIFY`s the other nodes of each stored action, so they hear of
//! it exactly when it is committed.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use sqlx::{Any, AnyConnection, AnyPool, Connection, Transaction};
use tokio::sync::{mpsc, oneshot};
use tokio::task::JoinSet;
use tokio::time::Instant;
use uuid::Uuid;

use super::{DbError, StoredAction, role_name, to_json};
pub use crate::config::SqliteWriter;
use crate::metrics::{self, Stage};
pub(crate) use sqlite::SqliteThread;

/// How the writer gathers and bounds its batches.
#[derive(Clone, Copy, Debug)]
pub struct CommitOptions {
    /// Most actions in one transaction.
    pub max_batch: usize,
    /// How long a batch of several actions may wait for more before it commits.
    pub linger: Duration,
    /// Most actions waiting for the writer; more are refused as overload.
    pub max_queue: usize,
    /// PostgreSQL: most batches committing at once, each on a connection of the pool.
    pub pipeline: usize,
    /// SQLite: which connection the writer owns.
    pub sqlite_writer: SqliteWriter,
    /// How stale a room's `touched_at` (what expiry reads) may get before an action writes it
    /// again: zero writes it with every action. The server sets a sixteenth of
    /// `--room-idle-ttl`, at most a minute (`lib.rs`), and expiry waits that much longer
    /// ([`super::Db::stale_rooms`]), so no room expires sooner than before.
    pub touch_every: Duration,
    /// Test-only, never for a server anyone plays on: answer every action of a batch as
    /// stored *before* the batch is written, so a batch that then fails loses actions that were
    /// acknowledged. A deliberately broken server, for the fault tests' history checker to
    /// catch (`tests/it/faults.rs`). Off by default.
    pub ack_before_commit: bool,
}

impl Default for CommitOptions {
    fn default() -> Self {
        CommitOptions {
            max_batch: 512,
            linger: Duration::from_millis(1),
            max_queue: 4096,
            pipeline: 4,
            sqlite_writer: SqliteWriter::default(),
            touch_every: Duration::ZERO,
            ack_before_commit: false,
        }
    }
}

/// One accepted action to append to a room's log.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Append {
    pub(crate) room: Uuid,
    pub(crate) game: u64,
    pub(crate) number: usize,
    pub(crate) record: StoredAction,
    /// It ended the game, so: the game is marked finished, and rated (`ratings.rs`), in the same
    /// transaction.
    pub(crate) finished: Option<fugitive_core::Outcome>,
}

struct Pending {
    append: Append,
    /// When the room handed it over: the writer measures its wait for a batch.
    queued: Instant,
    reply: oneshot::Sender<Answer>,
}

/// What the writer answers a room: the action's result, and when it was sent (the room
/// measures how long it took to run again).
type Answer = (Result<(), DbError>, Instant);

enum Message {
    Append(Pending),
    /// Commit what is queued, close the connection, then answer.
    Stop(oneshot::Sender<()>),
}

/// Counts of what the writer did, for tests and `/metrics`.
#[derive(Debug, Default)]
pub(crate) struct Counters {
    batches: AtomicU64,
    actions: AtomicU64,
}

/// Totals since start-up.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CommitStats {
    /// Transactions committed.
    pub batches: u64,
    /// Actions they stored.
    pub actions: u64,
}

/// Failures a unit test injects into the writer; they do not exist outside `cargo test`'s
/// build of this crate.
#[cfg(test)]
#[derive(Debug, Default)]
pub(crate) struct Faults {
    /// The next batch fails after its rows are written, before its commit.
    pub(crate) fail_next_batch: std::sync::atomic::AtomicBool,
    /// The next batch commits, then reports an error: an ambiguous commit, as when the
    /// connection drops between the commit and its acknowledgement.
    pub(crate) ambiguous_next_batch: std::sync::atomic::AtomicBool,
    /// Held (for writing) by a test, the writer waits with the first action of a batch
    /// before it gathers the rest.
    pub(crate) gate: tokio::sync::RwLock<()>,
    /// The writer waits at the gate.
    pub(crate) at_gate: std::sync::atomic::AtomicBool,
}

/// Where the writer writes.
pub(crate) enum Target {
    /// SQLite: an sqlx connection of its own.
    Connection(AnyConnection),
    /// SQLite: a rusqlite connection on a thread of its own.
    Thread(SqliteThread),
    /// PostgreSQL: a connection from the pool per batch.
    Pool(AnyPool),
}

/// What became of one action of a batch.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Written {
    Stored,
    /// Its room expired first.
    Expired,
    /// Another node stored an action under the same number first.
    Conflict,
}

/// The handle rooms use: a cheap clone.
#[derive(Clone, Debug)]
pub(crate) struct Writer {
    tx: mpsc::Sender<Message>,
    counters: Arc<Counters>,
    #[cfg(test)]
    pub(crate) faults: Arc<Faults>,
}

impl Writer {
    /// Starts the writer on `target`. On PostgreSQL, `node` is this node's id, in the notices
    /// of what it stored.
    pub(crate) fn start(target: Target, options: CommitOptions, node: Option<Uuid>) -> Writer {
        let (tx, rx) = mpsc::channel(options.max_queue.max(1));
        let counters = Arc::new(Counters::default());
        #[cfg(test)]
        let faults = Arc::new(Faults::default());
        let run = Run {
            target,
            options,
            node,
            counters: counters.clone(),
            #[cfg(test)]
            faults: faults.clone(),
        };
        tokio::spawn(run.run(rx));
        Writer {
            tx,
            counters,
            #[cfg(test)]
            faults,
        }
    }

    /// Appends one action and waits until it is durable.
    ///
    /// # Errors
    /// [`DbError::Overloaded`] at once when too many actions wait; otherwise the batch's
    /// failure, and then nothing of the batch was stored.
    pub(crate) async fn append(&self, append: Append) -> Result<(), DbError> {
        let (reply, answer) = oneshot::channel();
        let queued = Instant::now();
        match self.tx.try_send(Message::Append(Pending { append, queued, reply })) {
            Ok(()) => {}
            Err(mpsc::error::TrySendError::Full(_)) => {
                metrics::commit_overload();
                return Err(DbError::Overloaded);
            }
            Err(mpsc::error::TrySendError::Closed(_)) => return Err(sqlx::Error::PoolClosed.into()),
        }
        match answer.await {
            Ok((result, sent)) => {
                metrics::stage(Stage::Resume, sent.elapsed());
                result
            }
            Err(_) => Err(DbError::Sqlx(sqlx::Error::PoolClosed)),
        }
    }

    /// Commits what is queued, then stops; later appends fail.
    pub(crate) async fn stop(&self) {
        let (done, stopped) = oneshot::channel();
        if self.tx.send(Message::Stop(done)).await.is_ok() {
            let _ = stopped.await;
        }
    }

    /// How many actions wait for the writer (not counting the batch it is committing).
    #[cfg(test)]
    pub(crate) fn queued(&self) -> usize {
        self.tx.max_capacity() - self.tx.capacity()
    }

    pub(crate) fn stats(&self) -> CommitStats {
        CommitStats {
            batches: self.counters.batches.load(Ordering::Relaxed),
            actions: self.counters.actions.load(Ordering::Relaxed),
        }
    }
}

/// The writer's task.
struct Run {
    target: Target,
    options: CommitOptions,
    node: Option<Uuid>,
    counters: Arc<Counters>,
    #[cfg(test)]
    faults: Arc<Faults>,
}

/// Where the messages taken off the queue go.
struct Taken {
    batch: Vec<Pending>,
    stopped: Vec<oneshot::Sender<()>>,
    max_batch: usize,
}

impl Taken {
    fn full(&self) -> bool {
        self.batch.len() >= self.max_batch
    }

    fn take(&mut self, message: Message, rx: &mut mpsc::Receiver<Message>) {
        match message {
            Message::Append(pending) => self.batch.push(pending),
            Message::Stop(done) => {
                // What is queued still comes out of `recv`, then `None` ends the loop.
                rx.close();
                self.stopped.push(done);
            }
        }
    }

    /// Takes what is already waiting, up to a full batch.
    fn gather(&mut self, rx: &mut mpsc::Receiver<Message>) {
        while !self.full() {
            let Ok(message) = rx.try_recv() else { break };
            self.take(message, rx);
        }
    }

    /// Busy: lets the batch fill for at most `linger`.
    async fn linger(&mut self, rx: &mut mpsc::Receiver<Message>, linger: Duration) {
        let deadline = Instant::now() + linger;
        while !self.full() {
            match tokio::time::timeout_at(deadline, rx.recv()).await {
                Ok(Some(message)) => {
                    self.take(message, rx);
                    self.gather(rx);
                }
                Ok(None) | Err(_) => break,
            }
        }
    }
}

impl Run {
    async fn run(mut self, mut rx: mpsc::Receiver<Message>) {
        let max_batch = self.options.max_batch.max(1);
        let pipeline = self.options.pipeline.max(1);
        let mut taken = Taken { batch: Vec::with_capacity(max_batch), stopped: Vec::new(), max_batch };
        // PostgreSQL's batches committing now.
        let mut in_flight = JoinSet::new();
        while let Some(first) = rx.recv().await {
            taken.take(first, &mut rx);
            #[cfg(test)]
            {
                self.faults.at_gate.store(true, Ordering::SeqCst);
                drop(self.faults.gate.read().await);
                self.faults.at_gate.store(false, Ordering::SeqCst);
            }
            while in_flight.try_join_next().is_some() {}
            if in_flight.len() >= pipeline {
                // Every connection of the pipeline is busy: what waits meanwhile joins this batch.
                in_flight.join_next().await;
            }
            taken.gather(&mut rx);
            // A lone action commits at once; several mean a busy server: wait for company.
            if taken.batch.len() > 1 {
                taken.linger(&mut rx, self.options.linger).await;
            }
            if taken.batch.is_empty() {
                continue;
            }
            if self.options.ack_before_commit {
                acknowledge_early(&mut taken.batch);
            }
            let fail = self.fail();
            let touch = touch_ms(self.options.touch_every);
            let appends: Vec<Append> = taken.batch.iter().map(|p| p.append).collect();
            let started = Instant::now();
            for pending in &taken.batch {
                metrics::stage(Stage::WriterQueue, started.saturating_duration_since(pending.queued));
            }
            match &mut self.target {
                Target::Connection(connection) => {
                    let result = match connection.begin().await {
                        Ok(tx) => store(tx, &appends, fail, touch).await,
                        Err(error) => Err(error.into()),
                    };
                    metrics::stages(Stage::Db, started.elapsed(), appends.len());
                    answer(&mut taken.batch, result, &self.counters, started.elapsed());
                }
                Target::Thread(thread) => {
                    let result = thread.store(appends, fail, touch).await;
                    answer(&mut taken.batch, result, &self.counters, started.elapsed());
                }
                Target::Pool(pool) => {
                    let (pool, counters, node) = (pool.clone(), self.counters.clone(), self.node);
                    let mut batch = std::mem::replace(&mut taken.batch, Vec::with_capacity(max_batch));
                    in_flight.spawn(async move {
                        let result = store_postgres(&pool, &appends, fail, touch, node).await;
                        metrics::stages(Stage::Db, started.elapsed(), appends.len());
                        answer(&mut batch, result, &counters, started.elapsed());
                    });
                }
            }
        }
        while in_flight.join_next().await.is_some() {}
        match self.target {
            Target::Connection(connection) => {
                if let Err(error) = connection.close().await {
                    tracing::warn!(%error, "the writer's connection did not close cleanly");
                }
            }
            Target::Thread(thread) => thread.close().await,
            Target::Pool(_) => {}
        }
        for done in taken.stopped {
            let _ = done.send(());
        }
    }

    /// The failures a unit test injects into the next batch.
    #[cfg(test)]
    fn fail(&self) -> Fail {
        Fail {
            before_commit: self.faults.fail_next_batch.swap(false, Ordering::SeqCst),
            after_commit: self.faults.ambiguous_next_batch.swap(false, Ordering::SeqCst),
        }
    }

    /// No failures outside tests.
    #[cfg(not(test))]
    fn fail(&self) -> Fail {
        Fail::default()
    }
}

/// Answers every room of a batch with its result: for each action, what became of it.
fn answer(
    batch: &mut Vec<Pending>,
    result: Result<Vec<Written>, DbError>,
    counters: &Counters,
    took: Duration,
) {
    metrics::commit_batch(batch.len(), took);
    metrics::stages(Stage::Commit, took, batch.len());
    match result {
        Ok(written) => {
            let stored = written.iter().filter(|w| **w == Written::Stored).count();
            counters.batches.fetch_add(1, Ordering::Relaxed);
            counters.actions.fetch_add(stored as u64, Ordering::Relaxed);
            for (pending, written) in batch.drain(..).zip(written) {
                let result = match written {
                    Written::Stored => Ok(()),
                    Written::Expired => Err(DbError::Expired),
                    Written::Conflict => Err(DbError::Conflict),
                };
                let _ = pending.reply.send((result, Instant::now()));
            }
        }
        Err(error) => {
            tracing::error!(%error, actions = batch.len(), "a batch of actions was not stored");
            let error = Arc::new(error);
            for pending in batch.drain(..) {
                let _ = pending.reply.send((Err(DbError::Batch(error.clone())), Instant::now()));
            }
        }
    }
}

/// [`CommitOptions::ack_before_commit`]: tells every room of the batch that its action is
/// stored, before it is; what the batch's commit then says goes nowhere.
fn acknowledge_early(batch: &mut [Pending]) {
    for pending in batch {
        let (nowhere, _) = oneshot::channel();
        let _ = std::mem::replace(&mut pending.reply, nowhere).send((Ok(()), Instant::now()));
    }
}

/// Failures a unit test injects into one batch; never set outside tests.
#[derive(Clone, Copy, Debug, Default)]
struct Fail {
    /// The batch fails after its rows are written, before its commit.
    before_commit: bool,
    /// The batch commits, then reports an error (an ambiguous commit).
    after_commit: bool,
}

impl Fail {
    fn any(self) -> bool {
        self.before_commit || self.after_commit
    }
}

/// [`CommitOptions::touch_every`] in ms.
fn touch_ms(touch_every: Duration) -> i64 {
    i64::try_from(touch_every.as_millis()).unwrap_or(i64::MAX)
}

/// Stores a batch on PostgreSQL: its rows and its notices in one statement (`batch.rs`).
/// That statement is its own transaction, answered once committed (`synchronous_commit`
/// stays on), unless the batch ends a game (the rating joins its transaction) or a test
/// injects a failure: then `BEGIN` … `COMMIT` around them.
async fn store_postgres(
    pool: &AnyPool,
    batch: &[Append],
    fail: Fail,
    touch_every_ms: i64,
    node: Option<Uuid>,
) -> Result<Vec<Written>, DbError> {
    let notices = || {
        node.map(|node| batch::Notices {
            channel: super::CHANNEL,
            head: format!("a {node} {} ", super::now_ms()),
        })
    };
    if batch.iter().all(|append| append.finished.is_none()) && !fail.any() {
        let mut connection = pool.acquire().await?;
        return batch::write_all(&mut *connection, batch, touch_every_ms, notices()).await;
    }
    let mut tx = pool.begin().await?;
    let written = batch::write_all(&mut *tx, batch, touch_every_ms, notices()).await?;
    settle_and_commit(tx, batch, written, fail).await
}

/// Writes the batch through the sqlx SQLite connection and commits; on any error the
/// transaction rolls back (when dropped). Returns, for each action, what became of it.
async fn store(
    mut tx: Transaction<'_, Any>,
    batch: &[Append],
    fail: Fail,
    touch_every_ms: i64,
) -> Result<Vec<Written>, DbError> {
    // In the order of the rooms, as PostgreSQL's batch locks them.
    let mut order: Vec<usize> = (0..batch.len()).collect();
    order.sort_by_key(|&i| (batch[i].room, batch[i].game, batch[i].number));
    let mut written = vec![Written::Stored; batch.len()];
    for &i in &order {
        written[i] = write(&mut tx, &batch[i], touch_every_ms).await?;
    }
    settle_and_commit(tx, batch, written, fail).await
}

/// The end of a batch's transaction on either database: settles the ratings of the games it
/// ended, then commits, with a test's injected failure before or after the commit.
async fn settle_and_commit(
    mut tx: Transaction<'_, Any>,
    batch: &[Append],
    written: Vec<Written>,
    fail: Fail,
) -> Result<Vec<Written>, DbError> {
    let endings = endings(batch, &written);
    if !endings.is_empty() {
        super::ratings::settle(&mut tx, &endings).await?;
    }
    if fail.before_commit {
        return Err(DbError::Corrupt("injected: the batch fails before its commit".into()));
    }
    tx.commit().await?;
    if fail.after_commit {
        return Err(DbError::Corrupt("injected: committed, then reported as failed".into()));
    }
    Ok(written)
}

/// One action's rows: the room's row first (as expiry does, so the two never deadlock), the
/// action, and the game's end if it ended the game. `Expired`, with nothing written, when the
/// room expired first: its game is gone, and its action's row would fail the whole batch.
/// When this comes first, expiry's own check sees the room touched and keeps it. `Conflict`,
/// with nothing written, when another node stored an action under this number first.
async fn write(
    tx: &mut Transaction<'_, Any>,
    append: &Append,
    touch_every_ms: i64,
) -> Result<Written, DbError> {
    let id = append.room.to_string();
    let record = &append.record;
    let touched = sqlx::query(
        "UPDATE rooms SET touched_at = $1 WHERE id = $2 AND expired_at IS NULL AND touched_at < $3",
    )
    .bind(record.at)
    .bind(&id)
    .bind(record.at.saturating_sub(touch_every_ms))
    .execute(&mut **tx)
    .await?
    .rows_affected();
    if touched == 0 {
        // Touched lately, or expired.
        let live = sqlx::query("SELECT 1 FROM rooms WHERE id = $1 AND expired_at IS NULL")
            .bind(&id)
            .fetch_optional(&mut **tx)
            .await?;
        if live.is_none() {
            return Ok(Written::Expired);
        }
    }
    let inserted = sqlx::query(
        "INSERT INTO actions (room_id, game, number, role, action, seat, client_seq, at) \
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8) ON CONFLICT (room_id, game, number) DO NOTHING",
    )
    .bind(&id)
    .bind(append.game as i64)
    .bind(append.number as i64)
    .bind(role_name(record.role))
    .bind(to_json(&record.action))
    .bind(record.seat.map(|s| s.index() as i64))
    .bind(record.client_seq.map(|s| s as i64))
    .bind(record.at)
    .execute(&mut **tx)
    .await?
    .rows_affected();
    if inserted == 0 {
        return Ok(Written::Conflict);
    }
    if append.finished.is_some() {
        sqlx::query("UPDATE games SET finished_at = $1 WHERE room_id = $2 AND game = $3")
            .bind(record.at)
            .bind(&id)
            .bind(append.game as i64)
            .execute(&mut **tx)
            .await?;
    }
    Ok(Written::Stored)
}

/// The games the stored actions of a batch ended, to rate in its transaction.
fn endings(batch: &[Append], written: &[Written]) -> Vec<super::ratings::Ending> {
    batch
        .iter()
        .zip(written)
        .filter(|(_, written)| **written == Written::Stored)
        .filter_map(|(append, _)| {
            let outcome = append.finished?;
            Some(super::ratings::Ending {
                room: append.room,
                game: append.game,
                outcome,
                at: append.record.at,
            })
        })
        .collect()
}

mod batch;
mod sqlite;
#[cfg(test)]
mod tests;
