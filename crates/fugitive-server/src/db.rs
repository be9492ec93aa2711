//! Persistence: rooms, seats (token hashes), each game's setup and its log of accepted actions.
//!
//! One `sqlx` `Any` pool runs the same portable SQL (`$1` parameters, `BIGINT`, `TEXT`) on
//! SQLite (the default: a file, WAL mode, created if missing) and PostgreSQL (when the URL says
//! `postgres://`). `migrations/` runs at start-up.
//!
//! Accepted actions go through the [`writer`]: one per database, committing the actions of all
//! rooms that wait in one transaction (group commit).

pub mod lobby;
pub mod profiles;
pub mod ratings;
mod writer;

use std::sync::Once;
use std::time::{SystemTime, UNIX_EPOCH};

use fugitive_core::Role;
use fugitive_core::{Entry, RuleOptions, Seed, Setup};
use std::sync::Arc;

use std::str::FromStr;

use sqlx::any::{AnyPoolOptions, install_default_drivers};
use sqlx::sqlite::SqliteConnectOptions;
use sqlx::{AnyConnection, AnyPool, Connection, Executor};
use thiserror::Error;
use uuid::Uuid;

use crate::computer::Computer;
use crate::seat::{Seat, hash_secret, new_secret};
use writer::{Append, SqliteThread, Target, Writer};
pub use writer::{CommitOptions, CommitStats, SqliteWriter};

/// A database failure.
#[derive(Debug, Error)]
pub enum DbError {
    /// The driver's error.
    #[error(transparent)]
    Sqlx(#[from] sqlx::Error),
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
}

/// Unix time in milliseconds.
pub fn now_ms() -> i64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_millis() as i64)
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
    /// Names and the like (`table.rs`).
    pub table: crate::table::Stored,
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
                    }
                    Ok(())
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
        Ok(Db { pool, writer, node, postgres, url })
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

    /// The pool, for the modules that keep their own tables (`table.rs`).
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

    /// Stores a new room, its seats and its first game, in one transaction.
    ///
    /// # Errors
    /// On a database failure.
    pub async fn create_room(&self, room: &NewRoom) -> Result<(), DbError> {
        let now = now_ms();
        let id = room.id.to_string();
        let mut tx = self.pool.begin().await?;
        sqlx::query(
            "INSERT INTO rooms (id, rules, turn_clock_secs, invite_hash, created_at, touched_at, computer) \
             VALUES ($1, $2, $3, $4, $5, $6, $7)",
        )
        .bind(&id)
        .bind(to_json(&room.rules))
        .bind(room.turn_clock_secs.map(|s| s as i64))
        .bind(room.computer.bot.is_none().then_some(&room.invite_hash))
        .bind(now)
        .bind(now)
        .bind(to_json(&room.computer))
        .execute(&mut *tx)
        .await?;
        // A bot's seat is taken from the start, by a token nobody holds.
        let bot = room.computer.bot.map(|_| hash_secret(&new_secret()));
        for (seat, hash) in [(Seat::Host, Some(room.host_token_hash.clone())), (Seat::Guest, bot)] {
            let claimed_at = hash.as_ref().map(|_| now);
            sqlx::query("INSERT INTO seats (room_id, seat, token_hash, claimed_at) VALUES ($1, $2, $3, $4)")
                .bind(&id)
                .bind(seat.index() as i64)
                .bind(hash)
                .bind(claimed_at)
                .execute(&mut *tx)
                .await?;
        }
        insert_game(&mut tx, &id, 1, &Setup { seed: room.seed, rules: room.rules }, room.fugitive_seat, now)
            .await?;
        tx.commit().await?;
        Ok(())
    }

    /// Gives the guest seat its token hash and spends the invitation.
    ///
    /// # Errors
    /// On a database failure.
    pub async fn claim_guest_seat(&self, room: Uuid, token_hash: &str) -> Result<SeatClaim, DbError> {
        let id = room.to_string();
        let mut tx = self.pool.begin().await?;
        // The room's row first, as expiry and the writer lock it: a claim that took the seat's
        // row first deadlocked with an expiry of the same room on PostgreSQL (503 instead of
        // an answer, seen once in the 20-run check of issue 9).
        let live = sqlx::query("UPDATE rooms SET touched_at = $1 WHERE id = $2 AND expired_at IS NULL")
            .bind(now_ms())
            .bind(&id)
            .execute(&mut *tx)
            .await?
            .rows_affected();
        if live == 0 {
            // The room expired while the claim was on its way.
            tx.rollback().await?;
            return Ok(SeatClaim::Gone);
        }
        let claimed = sqlx::query(
            "UPDATE seats SET token_hash = $1, claimed_at = $2 \
             WHERE room_id = $3 AND seat = 1 AND token_hash IS NULL",
        )
        .bind(token_hash)
        .bind(now_ms())
        .bind(&id)
        .execute(&mut *tx)
        .await?
        .rows_affected();
        if claimed == 0 {
            tx.rollback().await?;
            return Ok(SeatClaim::Taken);
        }
        sqlx::query("UPDATE rooms SET invite_hash = NULL WHERE id = $1").bind(&id).execute(&mut *tx).await?;
        tx.commit().await?;
        Ok(SeatClaim::Claimed)
    }

    /// Appends an accepted action to the log (and marks the game finished if it ended it),
    /// through the writer: it returns once the batch it joined is committed.
    ///
    /// # Errors
    /// [`DbError::Overloaded`] at once when the writer's queue is full; [`DbError::Batch`] when
    /// its batch failed. Then nothing was written (unless the commit's own answer was lost).
    pub async fn append_action(
        &self,
        room: Uuid,
        game: u64,
        number: usize,
        record: &StoredAction,
        finished: Option<fugitive_core::Outcome>,
    ) -> Result<(), DbError> {
        self.writer.append(Append { room, game, number, record: *record, finished }).await
    }

    /// Stores the setup of the room's next game.
    ///
    /// # Errors
    /// On a database failure.
    pub async fn new_game(
        &self,
        room: Uuid,
        game: u64,
        setup: &Setup,
        fugitive_seat: Seat,
        at: i64,
    ) -> Result<(), DbError> {
        let id = room.to_string();
        let mut tx = self.pool.begin().await?;
        insert_game(&mut tx, &id, game, setup, fugitive_seat, at).await?;
        sqlx::query("UPDATE rooms SET touched_at = $1 WHERE id = $2")
            .bind(at)
            .bind(&id)
            .execute(&mut *tx)
            .await?;
        tx.commit().await?;
        Ok(())
    }

    /// Loads a room with its current game, or `None` if there is no such room.
    ///
    /// # Errors
    /// On a database failure or corrupt data.
    pub async fn load_room(&self, room: Uuid) -> Result<Option<StoredRoom>, DbError> {
        let id = room.to_string();
        let row: Option<RoomRow> = sqlx::query_as(
            "SELECT rules, turn_clock_secs, invite_hash, computer FROM rooms \
                 WHERE id = $1 AND expired_at IS NULL",
        )
        .bind(&id)
        .fetch_optional(&self.pool)
        .await?;
        let Some((rules, turn_clock_secs, invite_hash, computer)) = row else {
            return Ok(None);
        };
        let mut seats = [None, None];
        let mut claimed = [None, None];
        let mut offered = [None, None];
        let rows: Vec<SeatRow> =
            sqlx::query_as("SELECT seat, token_hash, claimed_at, rematch_game FROM seats WHERE room_id = $1")
                .bind(&id)
                .fetch_all(&self.pool)
                .await?;
        for (seat, hash, claimed_at, rematch_game) in rows {
            let seat = seat_of(seat)?.index();
            seats[seat] = hash;
            claimed[seat] = claimed_at;
            offered[seat] = rematch_game;
        }
        let seated_at = claimed[0].zip(claimed[1]).map(|(a, b): (i64, i64)| a.max(b));
        let number: Option<i64> = sqlx::query_scalar("SELECT MAX(game) FROM games WHERE room_id = $1")
            .bind(&id)
            .fetch_one(&self.pool)
            .await?;
        let number = number.ok_or_else(|| corrupt(format!("room {id} has no game")))?;
        let game = self.load_game(room, number as u64).await?.ok_or_else(|| corrupt("game vanished"))?;
        let rematch = offered.map(|offer| offer == Some(number));
        let total: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM actions WHERE room_id = $1")
            .bind(&id)
            .fetch_one(&self.pool)
            .await?;
        let rows: Vec<(i64, i64)> = sqlx::query_as(
            "SELECT seat, client_seq FROM actions WHERE room_id = $1 AND seat IS NOT NULL AND client_seq IS NOT NULL",
        )
        .bind(&id)
        .fetch_all(&self.pool)
        .await?;
        let seqs = rows
            .into_iter()
            .map(|(seat, seq)| Ok((seat_of(seat)?, seq as u64)))
            .collect::<Result<_, DbError>>()?;
        Ok(Some(StoredRoom {
            rules: from_json(&rules)?,
            turn_clock_secs: turn_clock_secs.map(|s| s as u64),
            invite_hash,
            seats,
            seated_at,
            rematch: rematch.map(|offered| offered && game.finished_at.is_some()),
            earlier_actions: (total as u64).saturating_sub(game.actions.len() as u64),
            game,
            seqs,
            computer: computer.map_or(Ok(Computer::default()), |c| from_json(&c))?,
            table: crate::table::load(self, room).await?,
        }))
    }

    /// Loads game `number` of a room with its actions, or `None` if there is none.
    ///
    /// # Errors
    /// On a database failure or corrupt data.
    pub async fn load_game(&self, room: Uuid, number: u64) -> Result<Option<StoredGame>, DbError> {
        let id = room.to_string();
        let row: Option<GameRow> = sqlx::query_as(
            "SELECT game, seed, rules, fugitive_seat, started_at, finished_at FROM games \
             WHERE room_id = $1 AND game = $2",
        )
        .bind(&id)
        .bind(number as i64)
        .fetch_optional(&self.pool)
        .await?;
        let Some((number, seed, rules, fugitive_seat, started_at, finished_at)) = row else {
            return Ok(None);
        };
        let seed = Seed::try_from(seed).map_err(corrupt)?;
        let rows: Vec<ActionRow> = sqlx::query_as(
            "SELECT role, action, seat, client_seq, at FROM actions WHERE room_id = $1 AND game = $2 ORDER BY number",
        )
        .bind(&id)
        .bind(number)
        .fetch_all(&self.pool)
        .await?;
        let actions = rows.into_iter().map(action_of).collect::<Result<_, DbError>>()?;
        Ok(Some(StoredGame {
            number: number as u64,
            setup: Setup { seed, rules: from_json(&rules)? },
            fugitive_seat: seat_of(fugitive_seat)?,
            started_at,
            finished_at,
            actions,
        }))
    }

    /// The rooms whose current game is unfinished and which have been idle since before
    /// `cutoff` (Unix ms): candidates for [`Db::expire_room`].
    ///
    /// # Errors
    /// On a database failure.
    pub async fn stale_rooms(&self, cutoff: i64) -> Result<Vec<Uuid>, DbError> {
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
    /// and its game unfinished: the check is part of the deletion (a move since the selection
    /// keeps the room). Deletes the unfinished game with its actions and the seats; a room
    /// with finished games keeps them, marked expired, for their replays; one without is
    /// deleted. Returns whether it expired.
    ///
    /// # Errors
    /// On a database failure; then nothing changed.
    pub async fn expire_room(&self, room: Uuid, cutoff: i64) -> Result<bool, DbError> {
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

    /// Stores that `seat` offers a rematch after game `game`.
    ///
    /// # Errors
    /// On a database failure; then nothing was written.
    pub async fn offer_rematch(&self, room: Uuid, seat: Seat, game: u64) -> Result<(), DbError> {
        sqlx::query("UPDATE seats SET rematch_game = $1 WHERE room_id = $2 AND seat = $3")
            .bind(game as i64)
            .bind(room.to_string())
            .bind(seat.index() as i64)
            .execute(&self.pool)
            .await?;
        Ok(())
    }

    /// Stores `seat`'s rematch offer after game `game` and, when both seats have offered,
    /// deals game `game + 1` (`setup`, the Fugitive in `fugitive_seat`), in one transaction that
    /// first locks the room's row: of two nodes storing the two offers at once, the second sees
    /// the first's and deals; a game already dealt is not dealt twice.
    ///
    /// # Errors
    /// On a database failure; then nothing was written.
    pub async fn rematch(
        &self,
        room: Uuid,
        seat: Seat,
        game: u64,
        setup: &Setup,
        fugitive_seat: Seat,
        at: i64,
    ) -> Result<Rematched, DbError> {
        let id = room.to_string();
        let mut tx = self.pool.begin().await?;
        sqlx::query("UPDATE rooms SET touched_at = $1 WHERE id = $2")
            .bind(at)
            .bind(&id)
            .execute(&mut *tx)
            .await?;
        sqlx::query("UPDATE seats SET rematch_game = $1 WHERE room_id = $2 AND seat = $3")
            .bind(game as i64)
            .bind(&id)
            .bind(seat.index() as i64)
            .execute(&mut *tx)
            .await?;
        let offers: i64 =
            sqlx::query_scalar("SELECT COUNT(*) FROM seats WHERE room_id = $1 AND rematch_game = $2")
                .bind(&id)
                .bind(game as i64)
                .fetch_one(&mut *tx)
                .await?;
        if offers < 2 {
            tx.commit().await?;
            return Ok(Rematched::Offered);
        }
        let dealt = sqlx::query(
            "INSERT INTO games (room_id, game, seed, rules, fugitive_seat, started_at, finished_at) \
             VALUES ($1, $2, $3, $4, $5, $6, NULL) ON CONFLICT (room_id, game) DO NOTHING",
        )
        .bind(&id)
        .bind(game as i64 + 1)
        .bind(String::from(setup.seed))
        .bind(to_json(&setup.rules))
        .bind(fugitive_seat.index() as i64)
        .bind(at)
        .execute(&mut *tx)
        .await?
        .rows_affected();
        tx.commit().await?;
        Ok(Rematched::Started { ours: dealt == 1 })
    }

    /// The actions of game `game` of a room numbered `from` or later, in order: what other
    /// nodes appended after this copy's last one.
    ///
    /// # Errors
    /// On a database failure or corrupt data.
    pub async fn load_actions(
        &self,
        room: Uuid,
        game: u64,
        from: usize,
    ) -> Result<Vec<StoredAction>, DbError> {
        let rows: Vec<ActionRow> = sqlx::query_as(
            "SELECT role, action, seat, client_seq, at FROM actions \
             WHERE room_id = $1 AND game = $2 AND number >= $3 ORDER BY number",
        )
        .bind(room.to_string())
        .bind(game as i64)
        .bind(from as i64)
        .fetch_all(&self.pool)
        .await?;
        rows.into_iter().map(action_of).collect()
    }

    /// Tells the other nodes (PostgreSQL; nothing on SQLite). A lost notice is not fatal: the
    /// nodes also read a room back whenever a write conflicts.
    pub async fn notify(&self, news: News, room: Uuid) {
        if !self.postgres {
            return;
        }
        let kind = match news {
            News::Room => 'r',
            News::Presence => 'p',
        };
        let payload = format!("{kind} {} {} {room}", self.node, now_ms());
        if let Err(error) =
            sqlx::query("SELECT pg_notify($1, $2)").bind(CHANNEL).bind(payload).execute(&self.pool).await
        {
            tracing::warn!(%room, %error, "could not notify the other nodes");
        }
    }

    /// Sends one notice line of the lobby to the other nodes (PostgreSQL; nothing on SQLite).
    ///
    /// # Errors
    /// On a database failure.
    pub async fn notify_line(&self, line: &str) -> Result<(), DbError> {
        if self.postgres {
            sqlx::query("SELECT pg_notify($1, $2)").bind(CHANNEL).bind(line).execute(&self.pool).await?;
        }
        Ok(())
    }

    /// Stores this node's presence in a room and tells the other nodes.
    ///
    /// # Errors
    /// On a database failure.
    pub async fn publish_presence(
        &self,
        room: Uuid,
        presence: crate::room::machine::Presence,
    ) -> Result<(), DbError> {
        sqlx::query(
            "INSERT INTO presence (room_id, node, host, guest, spectators) VALUES ($1, $2, $3, $4, $5) \
             ON CONFLICT (room_id, node) DO UPDATE SET host = EXCLUDED.host, guest = EXCLUDED.guest, \
             spectators = EXCLUDED.spectators",
        )
        .bind(room.to_string())
        .bind(self.node.to_string())
        .bind(i64::from(presence.seats[0]))
        .bind(i64::from(presence.seats[1]))
        .bind(presence.spectators as i64)
        .execute(&self.pool)
        .await?;
        self.notify(News::Presence, room).await;
        Ok(())
    }

    /// The presence in a room of the other live nodes, summed.
    ///
    /// # Errors
    /// On a database failure.
    pub async fn load_presence(&self, room: Uuid) -> Result<crate::room::machine::Presence, DbError> {
        let rows: Vec<(i64, i64, i64)> = sqlx::query_as(&format!(
            "SELECT p.host, p.guest, p.spectators FROM presence p JOIN nodes n ON n.node = p.node \
             WHERE p.room_id = $1 AND p.node <> $2 AND n.alive_until > {DB_NOW}"
        ))
        .bind(room.to_string())
        .bind(self.node.to_string())
        .fetch_all(&self.pool)
        .await?;
        let mut presence = crate::room::machine::Presence::default();
        for (host, guest, spectators) in rows {
            presence.seats[0] |= host != 0;
            presence.seats[1] |= guest != 0;
            presence.spectators += spectators as u64;
        }
        Ok(presence)
    }

    /// This node is alive for `lease_ms` more (PostgreSQL's clock); renews every lease it
    /// holds for as long, and returns their keys (a lease another node took is not among them).
    ///
    /// # Errors
    /// On a database failure.
    pub async fn heartbeat(&self, lease_ms: i64) -> Result<Vec<String>, DbError> {
        let node = self.node.to_string();
        sqlx::query(&format!(
            "INSERT INTO nodes (node, alive_until) VALUES ($1, {DB_NOW} + $2) \
             ON CONFLICT (node) DO UPDATE SET alive_until = EXCLUDED.alive_until"
        ))
        .bind(&node)
        .bind(lease_ms)
        .execute(&self.pool)
        .await?;
        let held: Vec<String> = sqlx::query_scalar(&format!(
            "UPDATE leases SET expires_at = {DB_NOW} + $1 WHERE node = $2 AND expires_at > {DB_NOW} RETURNING name"
        ))
        .bind(lease_ms)
        .bind(&node)
        .fetch_all(&self.pool)
        .await?;
        Ok(held)
    }

    /// Takes the lease `key` for `lease_ms` if nobody holds it (or its holder let it run out),
    /// or renews it if this node holds it. Returns whether this node holds it now.
    ///
    /// # Errors
    /// On a database failure.
    pub async fn acquire_lease(&self, key: &str, lease_ms: i64) -> Result<bool, DbError> {
        let taken = sqlx::query(&format!(
            "INSERT INTO leases (name, node, expires_at) VALUES ($1, $2, {DB_NOW} + $3) \
             ON CONFLICT (name) DO UPDATE SET node = EXCLUDED.node, expires_at = EXCLUDED.expires_at \
             WHERE leases.node = EXCLUDED.node OR leases.expires_at < {DB_NOW}"
        ))
        .bind(key)
        .bind(self.node.to_string())
        .bind(lease_ms)
        .execute(&self.pool)
        .await?
        .rows_affected();
        Ok(taken == 1)
    }

    /// Gives the lease `key` back, if this node holds it.
    ///
    /// # Errors
    /// On a database failure.
    pub async fn release_lease(&self, key: &str) -> Result<(), DbError> {
        sqlx::query("DELETE FROM leases WHERE name = $1 AND node = $2")
            .bind(key)
            .bind(self.node.to_string())
            .execute(&self.pool)
            .await?;
        Ok(())
    }

    /// Drops the room's lease if it ran out (nothing in the room needs an owner any more).
    ///
    /// # Errors
    /// On a database failure.
    pub async fn drop_expired_lease(&self, room: Uuid) -> Result<(), DbError> {
        sqlx::query(&format!("DELETE FROM leases WHERE name = $1 AND expires_at < {DB_NOW}"))
            .bind(format!("room:{room}"))
            .execute(&self.pool)
            .await?;
        Ok(())
    }

    /// The rooms whose lease ran out: their owner died, was cut off or froze. Some live node
    /// loads each and takes its lease.
    ///
    /// # Errors
    /// On a database failure.
    pub async fn orphaned_rooms(&self) -> Result<Vec<Uuid>, DbError> {
        let keys: Vec<String> = sqlx::query_scalar(&format!(
            "SELECT name FROM leases WHERE expires_at < {DB_NOW} AND name LIKE 'room:%'"
        ))
        .fetch_all(&self.pool)
        .await?;
        Ok(keys
            .iter()
            .filter_map(|key| key.strip_prefix("room:"))
            .filter_map(|id| Uuid::parse_str(id).ok())
            .collect())
    }

    /// Forgets the nodes that stopped beating, with their presence, and tells the nodes of the
    /// rooms they were in. Returns those rooms.
    ///
    /// # Errors
    /// On a database failure.
    pub async fn reap_nodes(&self) -> Result<Vec<Uuid>, DbError> {
        let mut tx = self.pool.begin().await?;
        let dead: Vec<String> = sqlx::query_scalar(&format!(
            "DELETE FROM nodes WHERE alive_until < {DB_NOW} - 1000 RETURNING node"
        ))
        .fetch_all(&mut *tx)
        .await?;
        let mut rooms = Vec::new();
        for node in dead {
            let gone: Vec<String> =
                sqlx::query_scalar("DELETE FROM presence WHERE node = $1 RETURNING room_id")
                    .bind(&node)
                    .fetch_all(&mut *tx)
                    .await?;
            rooms.extend(gone.iter().filter_map(|id| Uuid::parse_str(id).ok()));
        }
        tx.commit().await?;
        for room in &rooms {
            self.notify(News::Presence, *room).await;
        }
        Ok(rooms)
    }

    /// This node stops (a graceful shutdown): its presence goes at once, not a lease time
    /// later, and the other nodes hear of it; its leases were given back by its rooms.
    ///
    /// # Errors
    /// On a database failure.
    pub async fn leave_cluster(&self) -> Result<(), DbError> {
        let node = self.node.to_string();
        let rooms: Vec<String> = sqlx::query_scalar("DELETE FROM presence WHERE node = $1 RETURNING room_id")
            .bind(&node)
            .fetch_all(&self.pool)
            .await?;
        sqlx::query("DELETE FROM leases WHERE node = $1").bind(&node).execute(&self.pool).await?;
        sqlx::query("DELETE FROM nodes WHERE node = $1").bind(&node).execute(&self.pool).await?;
        for room in rooms.iter().filter_map(|id| Uuid::parse_str(id).ok()) {
            self.notify(News::Presence, room).await;
        }
        Ok(())
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

/// WAL: readers never block the writer; FULL sync (sqlx's default) makes every commit durable
/// before the actor tells anyone.
async fn sqlite_pragmas(conn: &mut AnyConnection) -> Result<(), sqlx::Error> {
    conn.execute("PRAGMA journal_mode = WAL").await?;
    conn.execute("PRAGMA foreign_keys = ON").await?;
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
mod tests {
    use fugitive_core::Role;

    use super::*;

    async fn db() -> (Db, tempfile::TempDir) {
        let dir = tempfile::tempdir().unwrap();
        let db = Db::connect(&format!("sqlite://{}", dir.path().join("db.db").display())).await.unwrap();
        (db, dir)
    }

    fn new_room() -> NewRoom {
        NewRoom {
            id: Uuid::new_v4(),
            rules: RuleOptions::default(),
            turn_clock_secs: None,
            invite_hash: hash_secret("invite"),
            host_token_hash: hash_secret("token"),
            seed: Seed::from(1),
            fugitive_seat: Seat::Host,
            computer: Computer::default(),
        }
    }

    #[tokio::test]
    async fn expiry_spares_a_room_touched_after_it_was_selected() {
        let (db, _dir) = db().await;
        let room = new_room();
        db.create_room(&room).await.unwrap();
        let cutoff = now_ms() + 1;
        assert_eq!(db.stale_rooms(cutoff).await.unwrap(), vec![room.id]);
        // A move lands between the selection and the deletion: the deletion checks again.
        let record = StoredAction {
            role: Role::Fugitive,
            action: fugitive_core::Action::Pass.into(),
            seat: Some(Seat::Host),
            client_seq: Some(1),
            at: cutoff + 1000,
        };
        db.append_action(room.id, 1, 0, &record, None).await.unwrap();
        assert!(!db.expire_room(room.id, cutoff).await.unwrap(), "a room touched since is not expired");
        let stored = db.load_room(room.id).await.unwrap().expect("the room is still there");
        assert_eq!(stored.game.actions, vec![record]);
        // Idle again past a later cutoff, it goes.
        assert!(db.expire_room(room.id, cutoff + 2000).await.unwrap());
        assert!(db.load_room(room.id).await.unwrap().is_none());
        assert!(!db.expire_room(room.id, cutoff + 2000).await.unwrap(), "once");
    }

    #[tokio::test]
    async fn a_claim_after_the_room_expired_finds_it_gone_not_taken() {
        let (db, _dir) = db().await;
        let room = new_room();
        db.create_room(&room).await.unwrap();
        assert!(db.expire_room(room.id, now_ms() + 1).await.unwrap());
        assert_eq!(db.claim_guest_seat(room.id, &hash_secret("guest")).await.unwrap(), SeatClaim::Gone);
        let other = new_room();
        db.create_room(&other).await.unwrap();
        assert_eq!(db.claim_guest_seat(other.id, &hash_secret("a")).await.unwrap(), SeatClaim::Claimed);
        assert_eq!(db.claim_guest_seat(other.id, &hash_secret("b")).await.unwrap(), SeatClaim::Taken);
    }
}
