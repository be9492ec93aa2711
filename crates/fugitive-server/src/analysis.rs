//! The analysis of finished games (issue 26), off the room actors.
//!
//! The first request for a finished game's analysis claims its row in the database
//! (`db/analyses.rs`: an owner and an expiry, taken atomically) and starts the work; every
//! later request, on any node, reads the row: how many analyses are ahead of it while it
//! waits for a worker, its progress while it runs, its result once done. Each analysis runs on
//! a background worker (`background.rs`: a thread of its own at the idle priority, at most
//! `--analysis-workers` at once, by default the cores less one; the others queue), with a
//! budget of `--analysis-cpu-ms` of that thread's CPU time: past it the analysis stops and
//! stores the moves it finished, marked incomplete. The claim is renewed with the progress
//! (every [`RENEW`]); a node that dies leaves a claim that expires, and the next request takes
//! it over.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use cpu_time::ThreadTime;
use fugitive_ai::{Playouts, analyse};
use fugitive_core::{Entry, Role, Setup};
use uuid::Uuid;

use crate::background::{Background, Ticket};
use crate::db::analyses::{AnalysisRow, Claim};
use crate::db::{Db, DbError};

/// How often a running analysis stores its progress and renews its claim.
pub const RENEW: Duration = Duration::from_secs(2);

/// A claim not renewed for this long may be taken over by another node.
const LEASE_MS: u64 = 10_000;

/// The analyses of this node: its background workers and the budget.
#[derive(Clone, Debug)]
pub struct Analyses {
    db: Db,
    workers: Background,
    budget: Duration,
}

/// What a request for an analysis finds.
#[derive(Clone, Debug, PartialEq)]
pub enum Answer {
    /// Done: the stored JSON (`fugitive_ai::Analysis`).
    Done(String),
    /// Queued or running: moves analysed, in all.
    Running {
        /// Moves analysed so far.
        done: u64,
        /// Moves in all (0 until the work starts).
        total: u64,
        /// While it waits for a worker: the analyses ahead of it (`None`: computing).
        ahead: Option<u64>,
    },
}

/// Why there is no analysis.
#[derive(Debug, thiserror::Error)]
pub enum AnalysisError {
    /// No such room.
    #[error("no such room")]
    RoomNotFound,
    /// No such game, or it is not over.
    #[error("no such finished game")]
    GameNotFound,
    /// The database failed.
    #[error(transparent)]
    Db(#[from] DbError),
}

impl Analyses {
    /// Analyses on `workers` (shared with the puzzle miner), each with `budget` of CPU time.
    pub fn new(db: Db, workers: Background, budget: Duration) -> Analyses {
        Analyses { db, workers, budget }
    }

    /// The analysis of a finished game: done, or running (started here by this request if
    /// nobody had).
    ///
    /// # Errors
    /// [`AnalysisError`]: an unknown room, an unknown or unfinished game, the database.
    pub async fn open(&self, room: Uuid, game: u64) -> Result<Answer, AnalysisError> {
        // One read answers every request but the first (and one after a claim expired).
        match self.db.load_analysis(room, game).await? {
            Some(AnalysisRow::Done(json)) => return Ok(Answer::Done(json)),
            Some(AnalysisRow::Running { done, total, ahead, expired: false }) => {
                return Ok(Answer::Running { done, total, ahead });
            }
            _ => {}
        }
        let Some(stored) = self.db.load_game(room, game).await? else {
            let exists = self.db.room_exists(room).await?;
            return Err(if exists { AnalysisError::GameNotFound } else { AnalysisError::RoomNotFound });
        };
        if stored.finished_at.is_none() {
            return Err(AnalysisError::GameNotFound);
        }
        match self.db.claim_analysis(room, game, LEASE_MS).await? {
            Claim::Found(AnalysisRow::Done(json)) => Ok(Answer::Done(json)),
            Claim::Found(AnalysisRow::Running { done, total, ahead, .. }) => {
                Ok(Answer::Running { done, total, ahead })
            }
            Claim::Mine => {
                let log = stored.actions.iter().map(|a| (a.role, a.action));
                let Ok(replayed) = crate::model::replay::replay(stored.setup, log) else {
                    tracing::error!(%room, game, "a stored game does not replay");
                    return Err(AnalysisError::Db(DbError::Corrupt("a game that does not replay".into())));
                };
                let actions = replayed.actions().to_vec();
                let ticket = self.workers.ticket();
                let ahead = ticket.place().ahead().unwrap_or(0) as u64;
                tokio::spawn(self.clone().run(room, game, stored.setup, actions, ticket));
                Ok(Answer::Running { done: 0, total: 0, ahead: Some(ahead) })
            }
        }
    }

    /// Waits for a worker (its place in the queue is `ticket`), computes, renewing the claim
    /// meanwhile, and stores the result.
    async fn run(self, room: Uuid, game: u64, setup: Setup, actions: Vec<(Role, Entry)>, ticket: Ticket) {
        let progress = Arc::new([AtomicU64::new(0), AtomicU64::new(0)]);
        let place = ticket.place();
        let work = {
            let progress = progress.clone();
            let budget = self.budget;
            async move { ticket.run("analysis", move || compute(setup, &actions, budget, &progress)).await }
        };
        tokio::pin!(work);
        let mut renew = tokio::time::interval(RENEW);
        let result = loop {
            tokio::select! {
                result = &mut work => break result,
                _ = renew.tick() => {
                    let ahead = place.ahead().map(|a| a as u64);
                    let now = (progress[0].load(Ordering::Relaxed), progress[1].load(Ordering::Relaxed), ahead);
                    match self.db.analysis_progress(room, game, now, LEASE_MS).await {
                        Ok(true) => {}
                        Ok(false) => tracing::warn!(%room, game, "another node took this analysis over"),
                        Err(error) => tracing::warn!(%room, game, %error, "could not store an analysis's progress"),
                    }
                }
            }
        };
        let Some(Some((json, accuracy))) = result else {
            tracing::error!(%room, game, "an analysis failed: its claim will expire");
            return;
        };
        if let Err(error) = self.db.finish_analysis(room, game, &json, accuracy).await {
            tracing::error!(%room, game, %error, "could not store an analysis");
        }
    }
}

/// The analysis on this (background) thread, within `budget` of its CPU time:
/// its JSON and each player's accuracy (Fugitive, Marshal); `None` if the record does not
/// replay.
fn compute(
    setup: Setup,
    actions: &[(Role, Entry)],
    budget: Duration,
    progress: &[AtomicU64; 2],
) -> Option<(String, [Option<f64>; 2])> {
    let start = ThreadTime::try_now().ok();
    let mut keep_going = |done: usize, total: usize| {
        progress[0].store(done as u64, Ordering::Relaxed);
        progress[1].store(total as u64, Ordering::Relaxed);
        start.is_none_or(|s| s.try_elapsed().is_ok_and(|t| t < budget))
    };
    let analysis = analyse(setup, actions, Playouts::default(), &mut keep_going).ok()?;
    let json = serde_json::to_string(&analysis).ok()?;
    Some((json, [analysis.accuracy.fugitive, analysis.accuracy.marshal]))
}
