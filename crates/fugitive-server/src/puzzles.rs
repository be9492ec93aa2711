//! Where puzzles come from (issue 26): the file `fugitive-sim --puzzles` wrote, loaded at
//! start-up, and the **miner**, a background task off the room actors that looks at each
//! finished game once across every node and stores the puzzles `fugitive_ai::puzzle::find`
//! sees in it.
//!
//! Once: a node claims a game by inserting its row in `puzzle_mined` before it mines it; the
//! key lets one node's insert through. A node that dies between its claim and its puzzles
//! leaves that game unmined: a puzzle lost, never one stored twice (the puzzle's id is its
//! position, so a position found in two games is one puzzle too).
//!
//! The miner solves the notepad on a background worker (`background.rs`, shared with the
//! analyses: at the idle priority, one game at a time), within `--puzzle-cpu-ms` of that
//! thread's CPU time per game: past it the game keeps the puzzles found so far and stays mined,
//! so a game too long to mine is never tried again.

use std::path::Path;
use std::time::Duration;

use cpu_time::ThreadTime;
use fugitive_ai::puzzle::{self, Puzzle};
use fugitive_core::Game;

use crate::background::Background;
use crate::db::{Db, DbError, now_ms, puzzles};

/// How many finished games one look of the miner takes at most.
const BATCH: i64 = 20;

/// Loads the puzzles of `path` (one JSON puzzle a line); returns how many were new.
pub async fn load_file(db: &Db, path: &Path) -> usize {
    let text = match tokio::fs::read_to_string(path).await {
        Ok(text) => text,
        Err(error) => {
            tracing::error!(%error, path = %path.display(), "cannot read the puzzles file");
            return 0;
        }
    };
    let mut new = 0;
    for (number, line) in text.lines().enumerate().filter(|(_, l)| !l.trim().is_empty()) {
        let puzzle: Puzzle = match serde_json::from_str(line) {
            Ok(puzzle) => puzzle,
            Err(error) => {
                tracing::error!(%error, line = number + 1, "a line of the puzzles file does not parse: skipped");
                continue;
            }
        };
        match puzzles::insert(db, &puzzle, "sim", now_ms()).await {
            Ok(true) => new += 1,
            Ok(false) => {}
            Err(error) => tracing::error!(%error, "could not store a puzzle of the file"),
        }
    }
    new
}

/// The miner of this node: the database, the background workers, the CPU budget per game.
#[derive(Clone, Debug)]
pub struct Miner {
    db: Db,
    workers: Background,
    budget: Duration,
}

/// What one look of the miner did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Mined {
    /// Finished games claimed and mined (each once across every node).
    pub games: usize,
    /// Of those, the games whose search ran out of its CPU budget (mined all the same).
    pub stopped: usize,
    /// New puzzles stored.
    pub puzzles: usize,
}

impl Miner {
    /// Mines on `workers`, each game within `budget` of CPU time.
    pub fn new(db: Db, workers: Background, budget: Duration) -> Miner {
        Miner { db, workers, budget }
    }

    /// One look: claims the finished games no node has mined, finds their puzzles on a
    /// background worker (never on a room's actor), each within the budget, and stores them.
    ///
    /// # Errors
    /// On a database failure.
    pub async fn mine(&self) -> Result<Mined, DbError> {
        let db = &self.db;
        let mut mined = Mined::default();
        for (room, number) in puzzles::unmined(db, BATCH).await? {
            if !puzzles::claim(db, room, number, now_ms()).await? {
                continue;
            }
            mined.games += 1;
            let Some(game) = db.load_game(room, number).await? else { continue };
            let record: Vec<_> = game.actions.iter().map(|a| (a.role, a.action)).collect();
            let setup = game.setup;
            let budget = self.budget;
            let search = move || match Game::replay(setup, &record) {
                Ok(game) => {
                    let start = ThreadTime::try_now().ok();
                    puzzle::find_within(&game, &mut || {
                        start.is_none_or(|s| s.try_elapsed().is_ok_and(|t| t < budget))
                    })
                }
                Err(error) => {
                    tracing::warn!(%error, "a finished game does not replay: no puzzles from it");
                    (Vec::new(), true)
                }
            };
            let Some((found, complete)) = self.workers.run("puzzles", search).await else {
                tracing::error!(%room, game = number, "a puzzle search failed: the game stays mined without");
                continue;
            };
            if !complete {
                mined.stopped += 1;
                tracing::info!(%room, game = number, found = found.len(), ?budget,
                    "a finished game's puzzle search ran out of its CPU budget: mined with what it found");
            }
            let source = format!("game {room} {number}");
            for puzzle in &found {
                mined.puzzles += usize::from(puzzles::insert(db, puzzle, &source, now_ms()).await?);
            }
        }
        Ok(mined)
    }
}

/// Mines every `interval` until aborted (never with a zero interval).
pub async fn mine_forever(miner: Miner, interval: Duration) {
    if interval.is_zero() {
        return;
    }
    let mut tick = tokio::time::interval(interval);
    loop {
        tick.tick().await;
        match miner.mine().await {
            Ok(Mined { puzzles: 0, .. }) => {}
            Ok(Mined { puzzles, .. }) => tracing::info!(puzzles, "puzzles mined from finished games"),
            Err(error) => tracing::warn!(%error, "the puzzle miner failed; it tries again"),
        }
    }
}
