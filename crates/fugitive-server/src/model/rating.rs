//! Ratings (issue 25): Glicko-2 through `skillratings`, one rating per role (the roles are not
//! symmetric), on the same scale as the computer levels' (`fugitive_ai::Level::ratings`).
//!
//! A game is rated when two different live profiles hold its seats, the room has a turn clock,
//! and neither seat is the computer's; a game the loser lost on time without ever making a move
//! of his own is aborted, and unrated. Resignation and a clock run out count as losses.

use fugitive_core::{Entry, Game, Outcome, Reason, Role};
use skillratings::Outcomes;
use skillratings::glicko2::{Glicko2Config, Glicko2Rating, glicko2};

/// Above this deviation a rating is provisional, shown with a "?" (lichess's threshold).
pub const PROVISIONAL_DEVIATION: f64 = 110.0;

/// One profile's rating in one role.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Rating {
    /// The Glicko-2 rating, 1500 at first.
    pub rating: f64,
    /// Its deviation, 350 at first.
    pub deviation: f64,
    /// Its volatility, 0.06 at first.
    pub volatility: f64,
    /// Rated games played in this role.
    pub games: i64,
}

impl Default for Rating {
    fn default() -> Rating {
        let start = Glicko2Rating::new();
        Rating { rating: start.rating, deviation: start.deviation, volatility: start.volatility, games: 0 }
    }
}

impl Rating {
    /// Whether the rating is still provisional ("?").
    pub fn provisional(&self) -> bool {
        self.deviation > PROVISIONAL_DEVIATION
    }

    fn glicko(self) -> Glicko2Rating {
        Glicko2Rating { rating: self.rating, deviation: self.deviation, volatility: self.volatility }
    }

    fn after(self, new: Glicko2Rating) -> Rating {
        Rating {
            rating: new.rating,
            deviation: new.deviation,
            volatility: new.volatility,
            games: self.games + 1,
        }
    }
}

/// Why a finished game is not rated.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Unrated {
    /// The room has no turn clock.
    NoClock,
    /// The computer holds a seat.
    Computer,
    /// A seat has no live profile, or both seats have the same one.
    NotTwoProfiles,
    /// The loser never made a move of his own before his clock ran out: aborted.
    Aborted,
}

/// What is known of a finished game to decide whether it is rated.
#[derive(Clone, Copy, Debug)]
pub struct Finished<'a> {
    /// How it ended.
    pub outcome: Outcome,
    /// Whether its room has a turn clock.
    pub clock: bool,
    /// Whether the computer holds a seat.
    pub computer: bool,
    /// The live profile of the Fugitive's seat and of the Marshal's.
    pub fugitive: Option<&'a str>,
    /// See `fugitive`.
    pub marshal: Option<&'a str>,
    /// How many actions the loser's seat took itself (not the server's clock).
    pub loser_moves: u64,
}

/// Whether a finished game is rated.
///
/// # Errors
/// [`Unrated`] says why not.
pub fn rated(game: &Finished<'_>) -> Result<(), Unrated> {
    if !game.clock {
        return Err(Unrated::NoClock);
    }
    if game.computer {
        return Err(Unrated::Computer);
    }
    match (game.fugitive, game.marshal) {
        (Some(fugitive), Some(marshal)) if fugitive != marshal => {}
        _ => return Err(Unrated::NotTwoProfiles),
    }
    if game.outcome.reason == Reason::TimeOut && game.loser_moves == 0 {
        return Err(Unrated::Aborted);
    }
    Ok(())
}

/// Whether `game` ended aborted: the loser's clock ran out before he made a move of his own (the
/// rule [`rated`] calls [`Unrated::Aborted`]). Nobody won it, and it is unrated.
pub fn aborted(game: &Game) -> bool {
    game.outcome().is_some_and(|outcome| {
        outcome.reason == Reason::TimeOut
            && !game
                .actions()
                .iter()
                .any(|(role, entry)| *role != outcome.winner && matches!(entry, Entry::Action(_)))
    })
}

/// The two ratings after one game: the Fugitive's (as the Fugitive) and the Marshal's (as the
/// Marshal), rated as one Glicko-2 game with `skillratings`' defaults.
pub fn rate(fugitive: Rating, marshal: Rating, winner: Role) -> (Rating, Rating) {
    let outcome = match winner {
        Role::Fugitive => Outcomes::WIN,
        Role::Marshal => Outcomes::LOSS,
    };
    let (f, m) = glicko2(&fugitive.glicko(), &marshal.glicko(), &outcome, &Glicko2Config::new());
    (fugitive.after(f), marshal.after(m))
}

/// A rating change as shown on the game-over screen: "+12", "−8" (rounded; a true minus sign).
pub fn change(before: f64, after: f64) -> String {
    let delta = (after - before).round() as i64;
    if delta < 0 { format!("\u{2212}{}", -delta) } else { format!("+{delta}") }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn finished(reason: Reason) -> Finished<'static> {
        Finished {
            outcome: Outcome { winner: Role::Marshal, reason },
            clock: true,
            computer: false,
            fugitive: Some("ada"),
            marshal: Some("bob"),
            loser_moves: 3,
        }
    }

    #[test]
    fn only_two_profiles_on_a_clock_without_the_computer_are_rated() {
        assert_eq!(rated(&finished(Reason::Resignation)), Ok(()));
        assert_eq!(rated(&finished(Reason::TimeOut)), Ok(()));
        assert_eq!(rated(&Finished { clock: false, ..finished(Reason::Resignation) }), Err(Unrated::NoClock));
        assert_eq!(
            rated(&Finished { computer: true, ..finished(Reason::Resignation) }),
            Err(Unrated::Computer)
        );
        let same = Finished { marshal: Some("ada"), ..finished(Reason::Resignation) };
        assert_eq!(rated(&same), Err(Unrated::NotTwoProfiles));
        let alone = Finished { fugitive: None, ..finished(Reason::Resignation) };
        assert_eq!(rated(&alone), Err(Unrated::NotTwoProfiles));
        // Lost on time without a move of his own: aborted. Resigning before a move is a loss.
        let never = Finished { loser_moves: 0, ..finished(Reason::TimeOut) };
        assert_eq!(rated(&never), Err(Unrated::Aborted));
        assert_eq!(rated(&Finished { loser_moves: 0, ..finished(Reason::Resignation) }), Ok(()));
    }

    #[test]
    fn the_winner_gains_what_the_loser_loses_at_equal_ratings_and_the_deviation_shrinks() {
        let (f, m) = rate(Rating::default(), Rating::default(), Role::Fugitive);
        assert!(f.rating > 1500.0 && m.rating < 1500.0, "{f:?} {m:?}");
        assert!((f.rating - 1500.0 - (1500.0 - m.rating)).abs() < 1e-6);
        assert!(f.deviation < 350.0 && f.games == 1 && m.games == 1);
        assert!(Rating::default().provisional());
        assert_eq!(change(1500.0, 1512.4), "+12");
        assert_eq!(change(1500.0, 1491.6), "\u{2212}8");
    }
}
