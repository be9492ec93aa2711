//! `--puzzles OUT`: the puzzles of the run's games (`fugitive_ai::puzzle`, issue 26), one JSON
//! [`Puzzle`] a line, for the server to load at start-up (`fugitive-server --puzzles OUT`).

use std::io::Write;
use std::path::Path;

use anyhow::{Context, Result};
use fugitive_ai::MatchResult;
use fugitive_ai::puzzle::{self, Puzzle};
use fugitive_core::{Game, Setup};

/// Every puzzle of these games (each with its setup), in game order.
pub fn of_games<'a>(games: impl IntoIterator<Item = (Setup, &'a MatchResult)>) -> Result<Vec<Puzzle>> {
    let mut found = Vec::new();
    for (setup, result) in games {
        let game = Game::replay(setup, &result.record).context("a bot game does not replay")?;
        found.extend(puzzle::find(&game));
    }
    Ok(found)
}

/// Writes `puzzles` to `out`, one JSON object a line.
pub fn write(out: &Path, puzzles: &[Puzzle]) -> Result<()> {
    let mut file = std::io::BufWriter::new(
        std::fs::File::create(out).with_context(|| format!("cannot write {}", out.display()))?,
    );
    for puzzle in puzzles {
        serde_json::to_writer(&mut file, puzzle)?;
        file.write_all(b"\n")?;
    }
    file.flush()?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use fugitive_ai::{Level, play_match};

    #[test]
    fn the_file_holds_one_puzzle_a_line_that_reads_back() {
        let setups: Vec<Setup> = (0..4u64).map(Setup::new).collect();
        let results: Vec<MatchResult> =
            setups.iter().map(|s| play_match(*s, Level::Medium, Level::Medium, 1)).collect();
        let puzzles = of_games(setups.iter().copied().zip(&results)).unwrap();
        let out = std::env::temp_dir().join(format!("puzzles-{}.jsonl", std::process::id()));
        write(&out, &puzzles).unwrap();
        let text = std::fs::read_to_string(&out).unwrap();
        std::fs::remove_file(&out).unwrap();
        let back: Vec<Puzzle> = text.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
        assert!(!back.is_empty());
        assert_eq!(back.len(), puzzles.len());
        // The figures read back to within a rounding of the last digit; the rest exactly.
        for (back, puzzle) in back.iter().zip(&puzzles) {
            assert_eq!((back.theme, &back.view, back.answer), (puzzle.theme, &puzzle.view, puzzle.answer));
            assert!((back.best - puzzle.best).abs() < 1e-12 && (back.next - puzzle.next).abs() < 1e-12);
        }
    }
}
