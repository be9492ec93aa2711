//! A room's rows: the room, its seats, its games and their logs.

use fugitive_core::Setup;
use uuid::Uuid;

use super::*;
use crate::model::seat::{hash_secret, new_secret};

impl Db {
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
        // The earlier games' actions only, which no node appends to any more: counting the
        // current game's here too, in a query after the one that read them, counted the actions
        // another node appended in between, and the room showed a version ahead of its game
        // (issue 27: a node whose database connection was slow showed its spectators the
        // state of version n as version n + 1).
        let earlier: i64 =
            sqlx::query_scalar("SELECT COUNT(*) FROM actions WHERE room_id = $1 AND game < $2")
                .bind(&id)
                .bind(number)
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
            earlier_actions: earlier as u64,
            game,
            seqs,
            computer: computer.map_or(Ok(Computer::default()), |c| from_json(&c))?,
            table: table::load(self, room).await?,
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
}
