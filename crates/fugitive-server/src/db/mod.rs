//! Persistence: rooms, seats (token hashes), each game's setup and its log of accepted actions.
//!
//! One `sqlx` `Any` pool runs the same portable SQL (`$1` parameters, `BIGINT`, `TEXT`) on
//! SQLite (the default: a file, WAL mode, created if missing) and PostgreSQL (when the URL says
//! `postgres://`). `migrations/` runs at start-up.
//!
//! Accepted actions go through the [`writer`]: one per database, committing the actions of all
//! rooms that wait in one transaction (group commit).

pub mod analyses;
mod leases;
pub mod lobby;
pub mod profiles;
pub mod push;
pub mod puzzles;
pub mod ratings;
mod rooms;
pub mod table;
mod writer;

use std::sync::{Once, OnceLock};
use std::time::{Instant, SystemTime, UNIX_EPOCH};

use fugitive_core::Role;
use fugitive_core::{Entry, RuleOptions, Seed, Setup};
use std::sync::Arc;

use std::str::FromStr;

use sqlx::any::{AnyPoolOptions, install_default_drivers};
use sqlx::sqlite::SqliteConnectOptions;
use sqlx::{AnyConnection, AnyPool, Connection, Executor};
use thiserror::Error;
use uuid::Uuid;

use crate::model::options::Computer;
use crate::model::seat::Seat;
pub use leases::Beat;
use writer::{Append, SqliteThread, Target, Writer};
pub use writer::{CommitOptions, CommitStats, SqliteWriter};

/// A database failure.
#[derive(Debug, Error)]
pub enum DbError {
    /// The driver's error. Its text is sqlx's, which already ends with its cause's (an I/O
    /// error's, the database's): no cause of its own, or a log's chain of causes would say the
    /// same thing twice (issue 23; `tests/it/startup.rs`, a database that closes each connection).
    #[error("{0}")]
    Sqlx(sqlx::Error),
    /// The SQLite writer's error.
    #[error(transparent)]
    Sqlite(#[from] rusqlite::Error),
    /// A migration failed.
    #[error(transparent)]
    Migrate(#[from] sqlx::migrate::MigrateError),
    /// A stored value does not parse.
    #[error("stored data is corrupt: {0}")]
    Corrupt(String),
    /// Too many actions wait to be stored: this one was refused at once, nothing written.
    #[error("too many actions wait to be stored")]
    Overloaded,
    /// The batch of actions this one was part of failed as a whole: nothing of it was stored
    /// (or, if the commit itself failed, it may have been).
    #[error("the batch of actions failed: {0}")]
    Batch(Arc<DbError>),
    /// The room expired (or is gone) before its action was stored: nothing of it was written;
    /// the other actions of its batch were.
    #[error("the room expired before its action was stored")]
    Expired,
    /// Another node wrote first under the same unique key (the same action number of the
    /// game, the same chat number): nothing of this was written; read the room back.
    #[error("another node wrote first")]
    Conflict,
}

impl From<sqlx::Error> for DbError {
    fn from(error: sqlx::Error) -> DbError {
        DbError::Sqlx(error)
    }
}

impl DbError {
    /// A unique-key violation becomes [`DbError::Conflict`]; anything else stays.
    pub fn conflict_or(self) -> DbError {
        match &self {
            DbError::Sqlx(sqlx::Error::Database(error)) if error.is_unique_violation() => DbError::Conflict,
            _ => self,
        }
    }
}

/// How a rematch offer was stored.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Rematched {
    /// The offer stands; the other seat has not offered.
    Offered,
    /// Both seats have offered: the next game is dealt, by this write (`ours`) or by another
    /// node's a moment before (then read it back).
    Started {
        /// Whether this write dealt it.
        ours: bool,
    },
}

/// What a node tells the others (PostgreSQL `NOTIFY` on [`CHANNEL`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum News {
    /// A room's rows other than its log changed.
    Room,
    /// A node's presence in a room changed.
    Presence,
}

/// The channel every node listens on. Each line of a payload is `a NODE MS ROOM GAME NUMBER`
/// (an appended action), `r NODE MS ROOM` (other rows of the room) or `p NODE MS ROOM`
/// (presence); `MS` is when it was sent (Unix ms), for the notify lag.
pub const CHANNEL: &str = "fugitive";

/// PostgreSQL's own clock in Unix ms: leases are timed by the database, not by each node's.
const DB_NOW: &str = "(EXTRACT(EPOCH FROM clock_timestamp()) * 1000)::BIGINT";

/// What became of a claim of the guest seat.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SeatClaim {
    /// The seat was free and is now the claimant's.
    Claimed,
    /// Somebody claimed it first.
    Taken,
    /// The room expired meanwhile: its seats are gone.
    Gone,
}

/// The database: a cheap clone of the pool.
#[derive(Clone, Debug)]
pub struct Db {
    pool: AnyPool,
    writer: Writer,
    /// This process's id among the nodes sharing the database.
    node: Uuid,
    postgres: bool,
    url: String,
    /// [`CommitOptions::touch_every`] in ms: how far a room's `touched_at` may lag its last
    /// action, which expiry allows for.
    touch_slack_ms: i64,
}

/// Unix time in milliseconds, as the wall clock said at the first call (`run` makes it at
/// start-up) plus the monotonic time since: a wall clock that jumps (an hour forward or back, as a stepped NTP or an operator
/// does) moves nothing here. Turn clocks compare this stamp with the ones other nodes stored
/// (`room/machine/clock.rs`): a node that read its jumped wall clock fired a turn clock an
/// hour early (issue 27, `tests/it/faults.rs`).
pub fn now_ms() -> i64 {
    static START: OnceLock<(i64, Instant)> = OnceLock::new();
    let (wall, at) = *START.get_or_init(|| {
        let wall = SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_millis() as i64);
        (wall, Instant::now())
    });
    wall + i64::try_from(at.elapsed().as_millis()).unwrap_or(i64::MAX - wall)
}

/// A room to create, with its first game.
#[derive(Clone, Debug)]
pub struct NewRoom {
    /// Its id.
    pub id: Uuid,
    /// The rule options of every game.
    pub rules: RuleOptions,
    /// Seconds per turn, if the room has a clock.
    pub turn_clock_secs: Option<u64>,
    /// Hash of the invitation.
    pub invite_hash: String,
    /// Hash of the creator's token.
    pub host_token_hash: String,
    /// The first game's seed.
    pub seed: Seed,
    /// Which seat plays the Fugitive in the first game.
    pub fugitive_seat: Seat,
    /// The computer options; with a bot, the guest seat is the bot's from the start.
    pub computer: Computer,
}

/// A room as stored: enough to rebuild its actor.
#[derive(Clone, Debug)]
pub struct StoredRoom {
    /// The rule options.
    pub rules: RuleOptions,
    /// Seconds per turn, if any.
    pub turn_clock_secs: Option<u64>,
    /// Hash of the unused invitation.
    pub invite_hash: Option<String>,
    /// Each seat's token hash, if claimed.
    pub seats: [Option<String>; 2],
    /// When the later of the two seats was claimed, once both are.
    pub seated_at: Option<i64>,
    /// Which seats have offered a rematch after the current game, which is over.
    pub rematch: [bool; 2],
    /// The current (latest) game with its actions.
    pub game: StoredGame,
    /// Accepted actions in the room's earlier games.
    pub earlier_actions: u64,
    /// Every (seat, client seq) of an accepted action in any game of the room.
    pub seqs: Vec<(Seat, u64)>,
    /// The computer options.
    pub computer: Computer,
    /// Names and the like (`model/table.rs`).
    pub table: crate::model::table::Stored,
}

/// One game as stored.
#[derive(Clone, Debug)]
pub struct StoredGame {
    /// Its number in the room, from 1.
    pub number: u64,
    /// Seed and rules.
    pub setup: Setup,
    /// Which seat plays the Fugitive.
    pub fugitive_seat: Seat,
    /// When it started.
    pub started_at: i64,
    /// When it ended, if it has.
    pub finished_at: Option<i64>,
    /// Its accepted actions, in order.
    pub actions: Vec<StoredAction>,
}

/// One accepted action, or the turn clock's time out.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StoredAction {
    /// Who took it.
    pub role: Role,
    /// What it was.
    pub action: Entry,
    /// The seat that sent it; `None` for the server's turn clock.
    pub seat: Option<Seat>,
    /// The client's `seq`; `None` for the server's turn clock.
    pub client_seq: Option<u64>,
    /// When it was accepted.
    pub at: i64,
}

fn corrupt(what: impl std::fmt::Display) -> DbError {
    DbError::Corrupt(what.to_string())
}

fn to_json<T: serde::Serialize>(value: &T) -> String {
    serde_json::to_string(value).expect("core types serialize")
}

fn from_json<T: serde::de::DeserializeOwned>(text: &str) -> Result<T, DbError> {
    serde_json::from_str(text).map_err(corrupt)
}

fn role_name(role: Role) -> &'static str {
    match role {
        Role::Fugitive => "fugitive",
        Role::Marshal => "marshal",
    }
}

fn seat_of(index: i64) -> Result<Seat, DbError> {
    Seat::from_index(index).ok_or_else(|| corrupt(format!("seat {index}")))
}

/// rules, turn_clock_secs, invite_hash, computer.
type RoomRow = (String, Option<i64>, Option<String>, Option<String>);
/// seat, token_hash, claimed_at, rematch_game.
type SeatRow = (i64, Option<String>, Option<i64>, Option<i64>);
type GameRow = (i64, String, String, i64, i64, Option<i64>);
type ActionRow = (String, String, Option<i64>, Option<i64>, i64);

impl Db {
    /// Connects, creating a SQLite file if missing, and runs the migrations.
    ///
    /// # Errors
    /// When the database cannot be reached or migrated.
    pub async fn connect(url: &str) -> Result<Db, DbError> {
        Db::connect_with(url, CommitOptions::default()).await
    }

    /// [`Db::connect`] with the writer's batch and queue limits.
    ///
    /// # Errors
    /// When the database cannot be reached or migrated.
    pub async fn connect_with(url: &str, commit: CommitOptions) -> Result<Db, DbError> {
        static DRIVERS: Once = Once::new();
        DRIVERS.call_once(install_default_drivers);
        let sqlite = url.starts_with("sqlite:");
        let url = if sqlite && !url.contains("mode=") {
            let sep = if url.contains('?') { '&' } else { '?' };
            format!("{url}{sep}mode=rwc")
        } else {
            url.to_string()
        };
        let pool = AnyPoolOptions::new()
            // PostgreSQL: the writer's pipeline of batches, beside 8 for everything else.
            .max_connections(if sqlite { 4 } else { 8 + commit.pipeline.max(1) as u32 })
            .after_connect(move |conn, _| {
                Box::pin(async move {
                    if sqlite {
                        sqlite_pragmas(conn).await?;
                    } else {
                        // A node cut off from the database mid-transaction (its sockets up)
                        // leaves the transaction open, and its row locks (a room's, a lease's)
                        // stop every other node that touches them, for as long as the kernel
                        // keeps the dead session: PostgreSQL ends it after this instead
                        // (issue 27, `tests/it/faults.rs`).
                        conn.execute("SET idle_in_transaction_session_timeout = '5s'").await?;
                    }
                    Ok(())
                })
            })
            .after_release(move |conn, _| {
                Box::pin(async move {
                    if !sqlite {
                        return Ok(true);
                    }
                    // A COMMIT that fails for a full disk is rolled back by SQLite itself; sqlx's
                    // ROLLBACK then fails too, and the connection keeps counting one transaction
                    // open. Its next `begin` is a SAVEPOINT, whose rollback leaves a transaction
                    // open, holding the write lock: every other write waited out its busy
                    // timeout and was `unavailable` from then on (issue 27, `tests/it/faults.rs`, a
                    // full disk under load). Such a connection is closed instead of kept. The
                    // query first lets a rollback the pool queued on release run.
                    conn.execute("SELECT 1").await?;
                    Ok(!conn.is_in_transaction())
                })
            })
            .connect(&url)
            .await?;
        sqlx::migrate!("../../migrations").run(&pool).await?;
        // SQLite: the writer's own connection, outside the pool (whose connections read).
        let target = match (sqlite, commit.sqlite_writer) {
            (false, _) => Target::Pool(pool.clone()),
            (true, SqliteWriter::Rusqlite) => {
                let options = SqliteConnectOptions::from_str(&url)?;
                Target::Thread(SqliteThread::open(options.get_filename())?)
            }
            (true, SqliteWriter::Sqlx) => {
                let mut connection = AnyConnection::connect(&url).await?;
                sqlite_pragmas(&mut connection).await?;
                Target::Connection(connection)
            }
        };
        let node = Uuid::new_v4();
        let postgres = !sqlite;
        let writer = Writer::start(target, commit, postgres.then_some(node));
        let touch_slack_ms = i64::try_from(commit.touch_every.as_millis()).unwrap_or(i64::MAX);
        Ok(Db { pool, writer, node, postgres, url, touch_slack_ms })
    }

    /// This node's id.
    pub fn node(&self) -> Uuid {
        self.node
    }

    /// Whether this is PostgreSQL (several nodes may share it).
    pub fn is_postgres(&self) -> bool {
        self.postgres
    }

    /// The URL, for the listener's own connection.
    pub(crate) fn url(&self) -> &str {
        &self.url
    }

    /// Whether the database answers a query (`/readyz`).
    ///
    /// # Errors
    /// When it does not.
    pub async fn ping(&self) -> Result<(), DbError> {
        sqlx::query("SELECT 1").execute(&self.pool).await?;
        Ok(())
    }

    /// The pool, for the modules that keep their own tables (`table.rs`: the table's rows).
    pub(crate) fn pool(&self) -> &AnyPool {
        &self.pool
    }

    /// Stops the writer once what it holds is committed, then closes the pool, waiting for
    /// running queries (SQLite checkpoints its WAL).
    pub async fn close(&self) {
        self.writer.stop().await;
        self.pool.close().await;
    }

    /// What the writer has committed since start-up.
    pub fn commit_stats(&self) -> CommitStats {
        self.writer.stats()
    }

    /// Unit tests only: the writer's fault hooks.
    #[cfg(test)]
    pub(crate) fn faults(&self) -> &writer::Faults {
        &self.writer.faults
    }

    /// The rooms whose current game is unfinished and which have been idle since before
    /// `cutoff` (Unix ms): candidates for [`Db::expire_room`]. An action writes `touched_at`
    /// only when it is older than [`CommitOptions::touch_every`], so a room counts as idle
    /// since before `cutoff` when `touched_at` is that much older still: rooms expire as late
    /// as that, never sooner.
    ///
    /// # Errors
    /// On a database failure.
    pub async fn stale_rooms(&self, cutoff: i64) -> Result<Vec<Uuid>, DbError> {
        let cutoff = cutoff.saturating_sub(self.touch_slack_ms);
        // A room whose turn clock still runs is not idle: the player to move has until its end
        // (a slow game's clock may be days, longer than the idle time).
        let ids: Vec<String> = sqlx::query_scalar(
            "SELECT id FROM rooms WHERE touched_at < $1 AND expired_at IS NULL \
             AND (turn_clock_secs IS NULL OR touched_at + turn_clock_secs * 1000 < $1) AND EXISTS \
             (SELECT 1 FROM games WHERE games.room_id = rooms.id AND games.finished_at IS NULL)",
        )
        .bind(cutoff)
        .fetch_all(&self.pool)
        .await?;
        Ok(ids.iter().filter_map(|id| Uuid::parse_str(id).ok()).collect())
    }

    /// Expires a room found by [`Db::stale_rooms`], if it is still idle since before `cutoff`
    /// (allowing for [`CommitOptions::touch_every`] as that does) and its game unfinished: the
    /// check is part of the deletion (a move since the selection keeps the room). Deletes the
    /// unfinished game with its actions and the seats; a room with finished games keeps them,
    /// marked expired, for their replays; one without is deleted. Returns whether it expired.
    ///
    /// # Errors
    /// On a database failure; then nothing changed.
    pub async fn expire_room(&self, room: Uuid, cutoff: i64) -> Result<bool, DbError> {
        let cutoff = cutoff.saturating_sub(self.touch_slack_ms);
        let id = room.to_string();
        let mut tx = self.pool.begin().await?;
        // First, so the room's row is locked before anything is deleted (an append locks it
        // first too).
        let expired = sqlx::query(
            "UPDATE rooms SET expired_at = $1, invite_hash = NULL \
             WHERE id = $2 AND expired_at IS NULL AND touched_at < $3 \
             AND (turn_clock_secs IS NULL OR touched_at + turn_clock_secs * 1000 < $4) AND EXISTS \
             (SELECT 1 FROM games WHERE games.room_id = $5 AND games.finished_at IS NULL)",
        )
        .bind(now_ms())
        .bind(&id)
        .bind(cutoff)
        .bind(cutoff)
        .bind(&id)
        .execute(&mut *tx)
        .await?
        .rows_affected();
        if expired == 0 {
            tx.rollback().await?;
            return Ok(false);
        }
        sqlx::query(
            "DELETE FROM actions WHERE room_id = $1 AND game IN \
             (SELECT game FROM games WHERE room_id = $2 AND finished_at IS NULL)",
        )
        .bind(&id)
        .bind(&id)
        .execute(&mut *tx)
        .await?;
        sqlx::query("DELETE FROM games WHERE room_id = $1 AND finished_at IS NULL")
            .bind(&id)
            .execute(&mut *tx)
            .await?;
        sqlx::query("DELETE FROM seats WHERE room_id = $1").bind(&id).execute(&mut *tx).await?;
        // The chat goes with the room; a room kept for its replays keeps it too.
        sqlx::query(
            "DELETE FROM chat WHERE room_id = $1 AND NOT EXISTS (SELECT 1 FROM games WHERE room_id = $2)",
        )
        .bind(&id)
        .bind(&id)
        .execute(&mut *tx)
        .await?;
        sqlx::query(
            "DELETE FROM rooms WHERE id = $1 AND NOT EXISTS (SELECT 1 FROM games WHERE room_id = $2)",
        )
        .bind(&id)
        .bind(&id)
        .execute(&mut *tx)
        .await?;
        tx.commit().await?;
        Ok(true)
    }

    /// The rooms whose turn clock runs: a clock, an unfinished game, both seats claimed (R17).
    /// They are loaded at start-up so their clocks run out even if nobody returns; every
    /// other room loads when someone asks for it.
    ///
    /// # Errors
    /// On a database failure.
    pub async fn rooms_with_running_clock(&self) -> Result<Vec<Uuid>, DbError> {
        let ids: Vec<String> = sqlx::query_scalar(
            "SELECT id FROM rooms WHERE expired_at IS NULL AND turn_clock_secs IS NOT NULL AND EXISTS \
             (SELECT 1 FROM games WHERE games.room_id = rooms.id AND games.finished_at IS NULL) \
             AND (SELECT COUNT(*) FROM seats WHERE seats.room_id = rooms.id AND seats.token_hash IS NOT NULL) = 2",
        )
        .fetch_all(&self.pool)
        .await?;
        Ok(ids.iter().filter_map(|id| Uuid::parse_str(id).ok()).collect())
    }

    /// Whether a room exists and has not expired.
    ///
    /// # Errors
    /// On a database failure.
    pub async fn room_exists(&self, room: Uuid) -> Result<bool, DbError> {
        let found: Option<String> =
            sqlx::query_scalar("SELECT id FROM rooms WHERE id = $1 AND expired_at IS NULL")
                .bind(room.to_string())
                .fetch_optional(&self.pool)
                .await?;
        Ok(found.is_some())
    }
}

/// How many pages the WAL holds before the connection that commits copies it into the
/// database, on every connection (SQLite's default: 1,000). A batch of the writer dirties about
/// a page per action (`db/writer/sqlite.rs`), so at 1,000 the same pages were copied every
/// second or third batch; whichever connection commits past it checkpoints, so the pool's
/// connections have it too (issue 28).
pub(crate) const WAL_AUTOCHECKPOINT_PAGES: u32 = 10_000;

/// WAL: readers never block the writer; FULL sync (sqlx's default) makes every commit durable
/// before the actor tells anyone.
async fn sqlite_pragmas(conn: &mut AnyConnection) -> Result<(), sqlx::Error> {
    conn.execute("PRAGMA journal_mode = WAL").await?;
    conn.execute("PRAGMA foreign_keys = ON").await?;
    conn.execute(format!("PRAGMA wal_autocheckpoint = {WAL_AUTOCHECKPOINT_PAGES}").as_str()).await?;
    Ok(())
}

fn action_of((role, action, seat, client_seq, at): ActionRow) -> Result<StoredAction, DbError> {
    Ok(StoredAction {
        role: from_json(&format!("\"{role}\""))?,
        action: from_json(&action)?,
        seat: seat.map(seat_of).transpose()?,
        client_seq: client_seq.map(|s| s as u64),
        at,
    })
}

async fn insert_game(
    tx: &mut sqlx::Transaction<'_, sqlx::Any>,
    room: &str,
    game: u64,
    setup: &Setup,
    fugitive_seat: Seat,
    at: i64,
) -> Result<(), DbError> {
    sqlx::query(
        "INSERT INTO games (room_id, game, seed, rules, fugitive_seat, started_at, finished_at) \
         VALUES ($1, $2, $3, $4, $5, $6, NULL)",
    )
    .bind(room)
    .bind(game as i64)
    .bind(String::from(setup.seed))
    .bind(to_json(&setup.rules))
    .bind(fugitive_seat.index() as i64)
    .bind(at)
    .execute(&mut **tx)
    .await?;
    Ok(())
}

#[cfg(test)]
mod tests;
