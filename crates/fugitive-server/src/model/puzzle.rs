//! Puzzles (issue 26) as the server keeps them: their id, the answer a request may give, and
//! the Glicko-2 rating of a puzzle and of its solver (`skillratings`, as `rating.rs`).
//!
//! A puzzle is rated by how often it is solved: each answered attempt is one game between the
//! solver (a profile's puzzle rating, or a new player's 1500 without a profile) and the puzzle,
//! which the solver wins by solving it. Only a profile's rating is stored.

use fugitive_ai::puzzle::{Puzzle, Theme};
use fugitive_core::{Card, Cards};
use serde_json::Value;
use skillratings::Outcomes;
use skillratings::glicko2::{Glicko2Config, Glicko2Rating, glicko2};

use super::rating::Rating;
use super::seat::hash_secret;

/// How many of the puzzles nearest the solver's rating `next` picks one from at random.
pub const NEAREST: i64 = 20;

/// A puzzle's id: 32 hex digits of the SHA-256 of its theme and view, so that the same
/// position, found twice, is stored once.
pub fn id(puzzle: &Puzzle) -> String {
    let view = serde_json::to_string(&puzzle.view).unwrap_or_default();
    hash_secret(&format!("{} {view}", puzzle.theme.name()))[..32].to_string()
}

/// Whether `text` has the shape of a puzzle id (32 lowercase hex digits).
pub fn is_id(text: &str) -> bool {
    text.len() == 32 && text.bytes().all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
}

/// Why an answer is refused before it is checked (`bad_answer`).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum AnswerError {
    /// `numbers` is not a list of whole numbers.
    #[error("numbers must be a list of card numbers")]
    NotNumbers,
    /// A number is outside the cards the theme asks for.
    #[error(
        "{0} is not a number this puzzle can be answered with (1 to 41 for a guess, 1 to 42 for a hideout card)"
    )]
    OutOfRange(i64),
    /// A number is named twice.
    #[error("{0} is named twice")]
    Twice(u8),
    /// The count of numbers is not what the theme asks for.
    #[error("this puzzle is answered with {0}")]
    Count(&'static str),
}

/// The numbers of an answer to a puzzle of `theme`: a guess of one or more distinct numbers
/// 1–41 (R12), or the one hideout card 1–42 the Fugitive places.
///
/// # Errors
/// [`AnswerError`] says what is wrong; nothing is recorded then.
pub fn answer(theme: Theme, numbers: &Value) -> Result<Cards, AnswerError> {
    let list = numbers.as_array().ok_or(AnswerError::NotNumbers)?;
    let highest = if theme == Theme::Cover { 42 } else { 41 };
    let mut cards = Cards::EMPTY;
    for value in list {
        let n = value.as_i64().ok_or(AnswerError::NotNumbers)?;
        let card = u8::try_from(n)
            .ok()
            .filter(|&n| (1..=highest).contains(&n))
            .and_then(Card::new)
            .ok_or(AnswerError::OutOfRange(n))?;
        if !cards.insert(card) {
            return Err(AnswerError::Twice(card.number()));
        }
    }
    match theme {
        Theme::Certain | Theme::Cover if cards.len() != 1 => Err(AnswerError::Count("exactly one number")),
        Theme::FindsAll if cards.is_empty() => Err(AnswerError::Count("one or more numbers")),
        _ => Ok(cards),
    }
}

/// The solver's and the puzzle's ratings after one answered attempt.
pub fn rate(solver: Rating, puzzle: Rating, solved: bool) -> (Rating, Rating) {
    let glicko =
        |r: Rating| Glicko2Rating { rating: r.rating, deviation: r.deviation, volatility: r.volatility };
    let outcome = if solved { Outcomes::WIN } else { Outcomes::LOSS };
    let (s, p) = glicko2(&glicko(solver), &glicko(puzzle), &outcome, &Glicko2Config::new());
    let after = |before: Rating, new: Glicko2Rating| Rating {
        rating: new.rating,
        deviation: new.deviation,
        volatility: new.volatility,
        games: before.games + 1,
    };
    (after(solver, s), after(puzzle, p))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn an_answer_is_distinct_numbers_in_range_as_many_as_the_theme_asks() {
        let one = |n: u8| Cards::from_iter([Card::new(n).unwrap()]);
        assert_eq!(answer(Theme::Certain, &json!([7])), Ok(one(7)));
        assert_eq!(answer(Theme::Cover, &json!([42])), Ok(one(42)));
        assert_eq!(answer(Theme::Certain, &json!([42])), Err(AnswerError::OutOfRange(42)));
        assert_eq!(answer(Theme::FindsAll, &json!([0])), Err(AnswerError::OutOfRange(0)));
        assert_eq!(answer(Theme::FindsAll, &json!([5, 5])), Err(AnswerError::Twice(5)));
        assert_eq!(answer(Theme::FindsAll, &json!([])), Err(AnswerError::Count("one or more numbers")));
        assert_eq!(answer(Theme::Cover, &json!([4, 5])), Err(AnswerError::Count("exactly one number")));
        assert_eq!(answer(Theme::Certain, &json!("7")), Err(AnswerError::NotNumbers));
        assert_eq!(answer(Theme::Certain, &json!([7.5])), Err(AnswerError::NotNumbers));
    }

    #[test]
    fn solving_raises_the_solver_and_lowers_the_puzzle() {
        let start = Rating::default();
        let (solver, puzzle) = rate(start, start, true);
        assert!(solver.rating > start.rating && puzzle.rating < start.rating);
        let (solver, puzzle) = rate(start, start, false);
        assert!(solver.rating < start.rating && puzzle.rating > start.rating);
        assert_eq!(puzzle.games, 1);
        assert!(is_id(&"ab12".repeat(8)) && !is_id("AB") && !is_id(&"g".repeat(32)));
    }
}
