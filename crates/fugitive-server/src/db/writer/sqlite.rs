//! The SQLite writer's own `rusqlite` connection on a thread of its own ([`SqliteWriter::Rusqlite`],
//! the default): a whole batch in one hand-off, its statements prepared once and cached.

use std::path::Path;
use std::time::Duration;

use rusqlite::OptionalExtension;
use tokio::sync::oneshot;

use super::super::{DbError, WAL_AUTOCHECKPOINT_PAGES, role_name, to_json};
use super::{Append, Fail, Written, endings};
use crate::metrics::{self, Stage};

/// A batch for the SQLite thread, and where its result goes.
struct Job {
    appends: Vec<Append>,
    fail: Fail,
    touch_every_ms: i64,
    done: oneshot::Sender<Result<Vec<Written>, DbError>>,
}

/// The SQLite writer's thread and its connection.
pub(crate) struct SqliteThread {
    jobs: std::sync::mpsc::Sender<Job>,
    thread: std::thread::JoinHandle<()>,
}

impl SqliteThread {
    /// Opens the database file at `path` (WAL, `synchronous = FULL`, foreign keys, a 5 s busy
    /// timeout as sqlx's) and starts the thread that owns the connection.
    ///
    /// Its page cache holds 64 MiB rather than SQLite's 2 MiB (issue 28): each action of a
    /// batch writes a page of the actions' key for its own room, so a batch dirties about a
    /// page per action, and the small cache read those pages back from the file for each
    /// batch. The WAL is checkpointed as on every connection ([`WAL_AUTOCHECKPOINT_PAGES`]).
    pub(crate) fn open(path: &Path) -> Result<SqliteThread, DbError> {
        let mut connection = rusqlite::Connection::open(path)?;
        connection.busy_timeout(Duration::from_secs(5))?;
        connection.pragma_update(None, "journal_mode", "WAL")?;
        connection.pragma_update(None, "synchronous", "FULL")?;
        connection.pragma_update(None, "foreign_keys", "ON")?;
        connection.pragma_update(None, "cache_size", -65_536)?;
        connection.pragma_update(None, "wal_autocheckpoint", WAL_AUTOCHECKPOINT_PAGES)?;
        let (jobs, queue) = std::sync::mpsc::channel::<Job>();
        let thread = std::thread::Builder::new()
            .name("sqlite-writer".into())
            .spawn(move || {
                for job in queue {
                    let started = std::time::Instant::now();
                    let sched = schedstat();
                    let result = store_sqlite(&mut connection, &job.appends, job.fail, job.touch_every_ms);
                    let count = job.appends.len();
                    metrics::stages(Stage::Db, started.elapsed(), count);
                    if let (Some((cpu, waited)), Some((cpu_after, waited_after))) = (sched, schedstat()) {
                        metrics::stages(Stage::DbCpu, cpu_after.saturating_sub(cpu), count);
                        metrics::stages(Stage::DbRunqueue, waited_after.saturating_sub(waited), count);
                    }
                    let _ = job.done.send(result);
                }
            })
            .map_err(|error| DbError::Corrupt(format!("cannot start the SQLite writer: {error}")))?;
        Ok(SqliteThread { jobs, thread })
    }

    /// Stores a batch on the thread.
    pub(super) async fn store(
        &self,
        appends: Vec<Append>,
        fail: Fail,
        touch_every_ms: i64,
    ) -> Result<Vec<Written>, DbError> {
        let (done, result) = oneshot::channel();
        if self.jobs.send(Job { appends, fail, touch_every_ms, done }).is_err() {
            return Err(sqlx::Error::PoolClosed.into());
        }
        result.await.unwrap_or(Err(DbError::Sqlx(sqlx::Error::PoolClosed)))
    }

    /// Ends the thread, closing its connection.
    pub(super) async fn close(self) {
        drop(self.jobs);
        let _ = tokio::task::spawn_blocking(move || self.thread.join()).await;
    }
}

/// This thread's time on a CPU and waiting for one, from Linux's `/proc/thread-self/schedstat`
/// (`None` elsewhere).
fn schedstat() -> Option<(Duration, Duration)> {
    let text = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    let mut fields = text.split_whitespace().map(|field| field.parse::<u64>().ok());
    let (cpu, waited) = (fields.next()??, fields.next()??);
    Some((Duration::from_nanos(cpu), Duration::from_nanos(waited)))
}

/// [`super::store`] and [`super::write`] on the SQLite thread's connection: the same rows,
/// the same checks. A room's row is read first (a cached statement, a function call here) and
/// written only when its `touched_at` is older than `touch_every_ms`. `BEGIN IMMEDIATE` takes
/// the write lock first (other writes go through the pool's connections), waiting for it up to
/// the busy timeout.
fn store_sqlite(
    connection: &mut rusqlite::Connection,
    batch: &[Append],
    fail: Fail,
    touch_every_ms: i64,
) -> Result<Vec<Written>, DbError> {
    let tx = connection.transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?;
    let mut written = Vec::with_capacity(batch.len());
    {
        let mut live =
            tx.prepare_cached("SELECT touched_at FROM rooms WHERE id = ?1 AND expired_at IS NULL")?;
        let mut touch = tx.prepare_cached("UPDATE rooms SET touched_at = ?1 WHERE id = ?2")?;
        let mut insert = tx.prepare_cached(
            "INSERT INTO actions (room_id, game, number, role, action, seat, client_seq, at) \
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8) ON CONFLICT (room_id, game, number) DO NOTHING",
        )?;
        let mut finish =
            tx.prepare_cached("UPDATE games SET finished_at = ?1 WHERE room_id = ?2 AND game = ?3")?;
        for append in batch {
            let id = append.room.to_string();
            let record = &append.record;
            let touched: Option<i64> = live.query_row(rusqlite::params![id], |row| row.get(0)).optional()?;
            let Some(touched) = touched else {
                written.push(Written::Expired);
                continue;
            };
            if touched < record.at.saturating_sub(touch_every_ms) {
                touch.execute(rusqlite::params![record.at, id])?;
            }
            let inserted = insert.execute(rusqlite::params![
                id,
                append.game as i64,
                append.number as i64,
                role_name(record.role),
                to_json(&record.action),
                record.seat.map(|s| s.index() as i64),
                record.client_seq.map(|s| s as i64),
                record.at,
            ])?;
            if inserted == 0 {
                written.push(Written::Conflict);
                continue;
            }
            if append.finished.is_some() {
                finish.execute(rusqlite::params![record.at, id, append.game as i64])?;
            }
            written.push(Written::Stored);
        }
    }
    let endings = endings(batch, &written);
    if !endings.is_empty() {
        super::super::ratings::settle_sqlite(&tx, &endings)?;
    }
    if fail.before_commit {
        return Err(DbError::Corrupt("injected: the batch fails before its commit".into()));
    }
    tx.commit()?;
    if fail.after_commit {
        return Err(DbError::Corrupt("injected: committed, then reported as failed".into()));
    }
    Ok(written)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn this_threads_scheduling_is_read_where_linux_tells_it() {
        let Some((cpu, _)) = schedstat() else { return };
        let spin = std::time::Instant::now();
        while spin.elapsed() < Duration::from_millis(20) {}
        let (after, _) = schedstat().expect("read once, read again");
        assert!(after > cpu, "the spin counts as CPU time");
    }
}
