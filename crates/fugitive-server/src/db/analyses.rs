//! The analyses of finished games (issue 26): one row per game, claimed by the node that
//! computes it, its progress while it runs and its result once done (`analysis.rs`).

use uuid::Uuid;

use super::{DB_NOW, Db, DbError, now_ms};

/// An analysis row as another request finds it.
#[derive(Clone, Debug, PartialEq)]
pub enum AnalysisRow {
    /// Done: the JSON result.
    Done(String),
    /// Running (on this node or another): moves done, in all.
    Running {
        /// Moves analysed so far.
        done: u64,
        /// Moves in all.
        total: u64,
        /// While it waits for a worker: the analyses ahead of it on its node.
        ahead: Option<u64>,
        /// Whether its claim expired (its node stopped renewing it): the next request takes it.
        expired: bool,
    },
}

/// An analysis row's columns: result, done, total, expired (0 or 1), ahead.
type RowColumns = (Option<String>, i64, i64, i64, Option<i64>);

/// The claim on a game's analysis.
#[derive(Clone, Debug, PartialEq)]
pub enum Claim {
    /// This node claimed it and must compute it.
    Mine,
    /// It is done or running elsewhere.
    Found(AnalysisRow),
}

impl Db {
    /// The clock claims are timed by: PostgreSQL's own (several nodes), else this node's.
    fn claim_now(&self) -> String {
        if self.postgres { DB_NOW.to_string() } else { now_ms().to_string() }
    }

    /// Claims the analysis of a game for this node for `lease_ms`, atomically: a new row, or a
    /// running one whose claim expired. Otherwise returns what is there.
    ///
    /// # Errors
    /// On a database failure.
    pub async fn claim_analysis(&self, room: Uuid, game: u64, lease_ms: u64) -> Result<Claim, DbError> {
        let now = self.claim_now();
        let inserted = sqlx::query(&format!(
            "INSERT INTO analyses (room_id, game, owner, expires_at, done, total, ahead) \
             VALUES ($1, $2, $3, {now} + $4, 0, 0, NULL) ON CONFLICT (room_id, game) DO NOTHING"
        ))
        .bind(room.to_string())
        .bind(game as i64)
        .bind(self.node.to_string())
        .bind(lease_ms as i64)
        .execute(&self.pool)
        .await?;
        if inserted.rows_affected() == 1 {
            return Ok(Claim::Mine);
        }
        let taken = sqlx::query(&format!(
            "UPDATE analyses SET owner = $3, expires_at = {now} + $4, ahead = NULL \
             WHERE room_id = $1 AND game = $2 AND result IS NULL AND expires_at < {now}"
        ))
        .bind(room.to_string())
        .bind(game as i64)
        .bind(self.node.to_string())
        .bind(lease_ms as i64)
        .execute(&self.pool)
        .await?;
        if taken.rows_affected() == 1 {
            return Ok(Claim::Mine);
        }
        match self.load_analysis(room, game).await? {
            Some(row) => Ok(Claim::Found(row)),
            // Deleted between the two statements: nothing stored, nobody computing.
            None => Err(DbError::Corrupt("an analysis row vanished while it was claimed".into())),
        }
    }

    /// The analysis row of a game, if any.
    ///
    /// # Errors
    /// On a database failure.
    pub async fn load_analysis(&self, room: Uuid, game: u64) -> Result<Option<AnalysisRow>, DbError> {
        let now = self.claim_now();
        let row: Option<RowColumns> = sqlx::query_as(&format!(
            "SELECT result, done, total, CASE WHEN expires_at < {now} THEN 1 ELSE 0 END, ahead \
             FROM analyses WHERE room_id = $1 AND game = $2"
        ))
        .bind(room.to_string())
        .bind(game as i64)
        .fetch_optional(&self.pool)
        .await?;
        Ok(row.map(|(result, done, total, expired, ahead)| match result {
            Some(json) => AnalysisRow::Done(json),
            None => AnalysisRow::Running {
                done: done as u64,
                total: total as u64,
                ahead: ahead.map(|a| a as u64),
                expired: expired != 0,
            },
        }))
    }

    /// Stores the progress of this node's analysis (moves done, in all, and the analyses ahead
    /// of it while it waits for a worker) and renews its claim. `false`: the claim is no longer
    /// this node's.
    ///
    /// # Errors
    /// On a database failure.
    pub async fn analysis_progress(
        &self,
        room: Uuid,
        game: u64,
        (done, total, ahead): (u64, u64, Option<u64>),
        lease_ms: u64,
    ) -> Result<bool, DbError> {
        let now = self.claim_now();
        let updated = sqlx::query(&format!(
            "UPDATE analyses SET done = $4, total = $5, expires_at = {now} + $6, ahead = $7 \
             WHERE room_id = $1 AND game = $2 AND owner = $3 AND result IS NULL"
        ))
        .bind(room.to_string())
        .bind(game as i64)
        .bind(self.node.to_string())
        .bind(done as i64)
        .bind(total as i64)
        .bind(lease_ms as i64)
        .bind(ahead.map(|a| a as i64))
        .execute(&self.pool)
        .await?;
        Ok(updated.rows_affected() == 1)
    }

    /// Stores this node's finished analysis: its JSON and each player's accuracy.
    ///
    /// # Errors
    /// On a database failure.
    pub async fn finish_analysis(
        &self,
        room: Uuid,
        game: u64,
        json: &str,
        accuracy: [Option<f64>; 2],
    ) -> Result<bool, DbError> {
        let updated = sqlx::query(
            "UPDATE analyses SET result = $4, fugitive_accuracy = $5, marshal_accuracy = $6, \
             finished_at = $7, owner = NULL, done = total \
             WHERE room_id = $1 AND game = $2 AND owner = $3 AND result IS NULL",
        )
        .bind(room.to_string())
        .bind(game as i64)
        .bind(self.node.to_string())
        .bind(json)
        .bind(accuracy[0])
        .bind(accuracy[1])
        .bind(now_ms())
        .execute(&self.pool)
        .await?;
        Ok(updated.rows_affected() == 1)
    }

    /// A profile's mean accuracy over its last `last` analysed rated games, in either role,
    /// and how many games that is.
    ///
    /// # Errors
    /// On a database failure.
    pub async fn profile_accuracy(&self, profile: &str, last: u32) -> Result<Option<(f64, u64)>, DbError> {
        let rows: Vec<(Option<f64>,)> = sqlx::query_as(
            "SELECT CASE WHEN r.fugitive_profile = $1 THEN a.fugitive_accuracy ELSE a.marshal_accuracy END \
             FROM rated_games r JOIN analyses a ON a.room_id = r.room_id AND a.game = r.game \
             WHERE (r.fugitive_profile = $1 OR r.marshal_profile = $1) AND a.result IS NOT NULL \
             ORDER BY r.at DESC LIMIT $2",
        )
        .bind(profile)
        .bind(i64::from(last))
        .fetch_all(&self.pool)
        .await?;
        let values: Vec<f64> = rows.into_iter().filter_map(|(a,)| a).collect();
        Ok((!values.is_empty())
            .then(|| (values.iter().sum::<f64>() / values.len() as f64, values.len() as u64)))
    }
}
