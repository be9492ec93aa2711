//! The ladder of levels: how strong each [`Level`] plays, on the players' rating scale.
//!
//! The figures are measured, not chosen: `fugitive-sim --round-robin` plays every level
//! against every level in both roles and rates the games with Glicko-2 (`skillratings`, its
//! defaults: every player starts at 1500), one rating per role, because the two roles are not
//! symmetric. `BENCHMARKS.md` ("The ladder of levels", issue 29) has the command, the seeds,
//! the games and the win rates behind each number. They are rounded to 10: a player is told
//! "about" this much. Measure again and update this table when a bot changes.

use serde::Serialize;

use crate::view::Level;

/// A level's Glicko-2 ratings, one per role.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Ratings {
    /// Its rating as the Marshal.
    pub marshal: u32,
    /// Its rating as the Fugitive.
    pub fugitive: u32,
}

impl Level {
    /// The level's ratings as measured by the round robin (see the module documentation).
    pub const fn ratings(self) -> Ratings {
        match self {
            Level::Random => Ratings { marshal: 940, fugitive: 1170 },
            Level::Easy => Ratings { marshal: 1480, fugitive: 1450 },
            Level::Medium => Ratings { marshal: 1640, fugitive: 1610 },
            Level::Hard => Ratings { marshal: 2170, fugitive: 1800 },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each level rates higher than the one below it, in both roles: the ladder the round robin
    /// measured.
    #[test]
    fn each_level_rates_above_the_one_below_in_both_roles() {
        for pair in Level::ALL.windows(2) {
            let (below, above) = (pair[0].ratings(), pair[1].ratings());
            assert!(above.marshal > below.marshal, "{pair:?}");
            assert!(above.fugitive > below.fugitive, "{pair:?}");
        }
    }
}
