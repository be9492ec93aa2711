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

/// The lines of an earlier puzzle file that [`keep`] kept.
#[derive(Debug)]
pub struct Kept {
    /// Those puzzles, one JSON object a line, with the figures found now.
    pub text: String,
    /// How many.
    pub kept: usize,
    /// How many of each theme were read and kept: (theme, read, kept).
    pub by_theme: Vec<(&'static str, usize, usize)>,
}

/// The puzzles of `old` (a puzzle file) that `found` holds too (the same theme, view and
/// answer), in their order, each with `found`'s figures (a finder of today may measure its
/// answer and the next best choice over more placements). A line that is no puzzle is an error.
pub fn keep(old: &str, found: &[Puzzle]) -> Result<Kept> {
    let mut kept = Kept { text: String::new(), kept: 0, by_theme: Vec::new() };
    for (number, line) in old.lines().enumerate().filter(|(_, l)| !l.trim().is_empty()) {
        let puzzle: Puzzle =
            serde_json::from_str(line).with_context(|| format!("line {} is no puzzle", number + 1))?;
        let again = found
            .iter()
            .find(|f| (f.theme, &f.view, f.answer) == (puzzle.theme, &puzzle.view, puzzle.answer));
        let name = puzzle.theme.name();
        let i = kept.by_theme.iter().position(|t| t.0 == name).unwrap_or_else(|| {
            kept.by_theme.push((name, 0, 0));
            kept.by_theme.len() - 1
        });
        kept.by_theme[i].1 += 1;
        if let Some(again) = again {
            kept.by_theme[i].2 += 1;
            kept.kept += 1;
            kept.text.push_str(&serde_json::to_string(again)?);
            kept.text.push('\n');
        }
    }
    Ok(kept)
}

#[cfg(test)]
mod tests {
    use super::*;
    use fugitive_ai::{Level, play_match};
    use fugitive_core::Cards;

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

    #[test]
    fn keep_keeps_the_lines_found_again_as_they_were() {
        let setups: Vec<Setup> = (0..2u64).map(Setup::new).collect();
        let results: Vec<MatchResult> =
            setups.iter().map(|s| play_match(*s, Level::Medium, Level::Medium, 1)).collect();
        let puzzles = of_games(setups.iter().copied().zip(&results)).unwrap();
        assert!(puzzles.len() >= 2);
        let line = |p: &Puzzle| serde_json::to_string(p).unwrap();
        let mut gone = puzzles[0].clone();
        gone.answer = Cards::EMPTY;
        // Other figures still match (and are written as found now); a puzzle no game holds is
        // dropped.
        let mut other_figure = puzzles[1].clone();
        other_figure.best += 0.5;
        let old = format!("{}\n{}\n\n{}\n", line(&gone), line(&other_figure), line(&puzzles[0]));
        let kept = keep(&old, &puzzles).unwrap();
        assert_eq!(kept.kept, 2);
        assert_eq!(kept.text, format!("{}\n{}\n", line(&puzzles[1]), line(&puzzles[0])));
        assert_eq!(kept.by_theme.iter().map(|t| t.1).sum::<usize>(), 3);
        assert!(keep("{not a puzzle", &puzzles).is_err());
    }
}
