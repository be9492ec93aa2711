//! Where puzzles come from (issue 26): the file `fugitive-sim --puzzles` wrote, loaded at
//! start-up, and the **miner**, a background task off the room actors that looks at each
//! finished game once across every node and stores the puzzles `fugitive_ai::puzzle::find`
//! sees in it.
//!
//! Once: a node claims a game by inserting its row in `puzzle_mined` before it mines it; the
//! key lets one node's insert through. A node that dies between its claim and its puzzles
//! leaves that game unmined: a puzzle lost, never one stored twice (the puzzle's id is its
//! position, so a position found in two games is one puzzle too).

use std::path::Path;
use std::time::Duration;

use fugitive_ai::puzzle::{self, Puzzle};
use fugitive_core::Game;

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

/// Mines every `interval` until aborted (never with a zero interval).
pub async fn mine_forever(db: Db, interval: Duration) {
    if interval.is_zero() {
        return;
    }
    let mut tick = tokio::time::interval(interval);
    loop {
        tick.tick().await;
        match mine(&db).await {
            Ok(0) => {}
            Ok(n) => tracing::info!(puzzles = n, "puzzles mined from finished games"),
            Err(error) => tracing::warn!(%error, "the puzzle miner failed; it tries again"),
        }
    }
}

/// One look: claims the finished games no node has mined, finds their puzzles on a blocking
/// thread (the notepad is solved there, never on a room's actor) and stores them. Returns
/// how many new puzzles were stored.
///
/// # Errors
/// On a database failure.
pub async fn mine(db: &Db) -> Result<usize, DbError> {
    let mut new = 0;
    for (room, number) in puzzles::unmined(db, BATCH).await? {
        if !puzzles::claim(db, room, number, now_ms()).await? {
            continue;
        }
        let Some(game) = db.load_game(room, number).await? else { continue };
        let record: Vec<_> = game.actions.iter().map(|a| (a.role, a.action)).collect();
        let setup = game.setup;
        let found = tokio::task::spawn_blocking(move || match Game::replay(setup, &record) {
            Ok(game) => puzzle::find(&game),
            Err(error) => {
                tracing::warn!(%error, "a finished game does not replay: no puzzles from it");
                Vec::new()
            }
        })
        .await
        .unwrap_or_default();
        let source = format!("game {room} {number}");
        for puzzle in &found {
            new += usize::from(puzzles::insert(db, puzzle, &source, now_ms()).await?);
        }
    }
    Ok(new)
}
