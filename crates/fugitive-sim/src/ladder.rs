//! The round robin (`--round-robin`): every level against every level in both roles, the
//! win rates of each pairing, the steps of the ladder, and a Glicko-2 rating per role.
//!
//! The ratings come from `skillratings` with its defaults (start 1500, deviation 350,
//! volatility 0.06, tau 0.5), the scale players' ratings will have. A level plays as two
//! players, one per role (the roles are not symmetric: the same level is not as strong as
//! the Fugitive as it is as the Marshal); every game is one Fugitive-player against one
//! Marshal-player. The games are rated in rounds, as a site rates the games of a period:
//! round `r` holds every pairing's games that fall in it, a pairing of `n` games spread evenly
//! over the rounds (the longest pairing has one game per round), and a player rated in a round
//! is rated against the opponents' ratings at its start. A player with no game in a round
//! keeps its rating: a bot does not get rusty, so its deviation does not grow between games.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use fugitive_ai::Level;
use fugitive_core::Role;
use skillratings::Outcomes;
use skillratings::glicko2::{Glicko2Config, Glicko2Rating, glicko2_rating_period};

use crate::wilson;

/// One game of the round robin: who played whom, which game of the pairing, who won.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Played {
    /// The Fugitive's level.
    pub fugitive: Level,
    /// The Marshal's level.
    pub marshal: Level,
    /// The game's index in its pairing (its deal: the same index, the same deal).
    pub index: usize,
    /// The winner; `None` for an unfinished game (it counts for neither, and is not rated).
    pub winner: Option<Role>,
}

impl Played {
    /// The game as one line of a record file: `fugitive marshal index winner`.
    pub fn line(&self) -> String {
        let winner = match self.winner {
            Some(Role::Fugitive) => "fugitive",
            Some(Role::Marshal) => "marshal",
            None => "none",
        };
        format!("{} {} {} {winner}", self.fugitive, self.marshal, self.index)
    }

    /// Reads [`Played::line`] back.
    ///
    /// # Errors
    /// A line that is not four words of that form.
    pub fn parse(line: &str) -> Result<Played, String> {
        let words: Vec<&str> = line.split_whitespace().collect();
        let [fugitive, marshal, index, winner] = words[..] else {
            return Err(format!("not `fugitive marshal index winner`: {line:?}"));
        };
        let level = |s: &str| s.parse::<Level>().map_err(|e| e.to_string());
        let winner = match winner {
            "fugitive" => Some(Role::Fugitive),
            "marshal" => Some(Role::Marshal),
            "none" => None,
            _ => return Err(format!("no winner {winner:?}: fugitive, marshal or none")),
        };
        let index = index.parse().map_err(|_| format!("no game index {index:?}"))?;
        Ok(Played { fugitive: level(fugitive)?, marshal: level(marshal)?, index, winner })
    }
}

/// A level's two Glicko-2 ratings, one per role.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Rated {
    /// As the Marshal.
    pub marshal: Glicko2Rating,
    /// As the Fugitive.
    pub fugitive: Glicko2Rating,
}

/// Every level's ratings from these games (see the module documentation). Each pairing's
/// games are taken in the order of their index; a game played twice counts once.
pub fn ratings(games: &[Played], levels: &[Level]) -> Vec<(Level, Rated)> {
    let mut pairings: BTreeMap<(Level, Level), BTreeMap<usize, Role>> = BTreeMap::new();
    for g in games {
        if let Some(winner) = g.winner {
            pairings.entry((g.fugitive, g.marshal)).or_default().insert(g.index, winner);
        }
    }
    let rounds = pairings.values().map(BTreeMap::len).max().unwrap_or(0);
    // Round of each game: a pairing of `n` games spreads them over the `rounds` rounds.
    let mut by_round: Vec<Vec<(Level, Level, Role)>> = vec![Vec::new(); rounds];
    for (&(f, m), played) in &pairings {
        let n = played.len();
        for (j, &winner) in played.values().enumerate() {
            by_round[j * rounds / n].push((f, m, winner));
        }
    }
    let config = Glicko2Config::new();
    let slot = |level: Level| levels.iter().position(|&l| l == level);
    let mut rated: Vec<Rated> = levels
        .iter()
        .map(|_| Rated { marshal: Glicko2Rating::new(), fugitive: Glicko2Rating::new() })
        .collect();
    for round in by_round {
        let before = rated.clone();
        // Each player's games of the round, by (level, as the Fugitive).
        let mut results: BTreeMap<(usize, bool), Vec<(Glicko2Rating, Outcomes)>> = BTreeMap::new();
        for (f, m, winner) in round {
            let (Some(fi), Some(mi)) = (slot(f), slot(m)) else { continue };
            let (fo, mo) = match winner {
                Role::Fugitive => (Outcomes::WIN, Outcomes::LOSS),
                Role::Marshal => (Outcomes::LOSS, Outcomes::WIN),
            };
            results.entry((fi, true)).or_default().push((before[mi].marshal, fo));
            results.entry((mi, false)).or_default().push((before[fi].fugitive, mo));
        }
        for ((i, fugitive), results) in results {
            match fugitive {
                true => rated[i].fugitive = glicko2_rating_period(&before[i].fugitive, &results, &config),
                false => rated[i].marshal = glicko2_rating_period(&before[i].marshal, &results, &config),
            }
        }
    }
    levels.iter().copied().zip(rated).collect()
}

/// The ladder as text: the Fugitive's win rate in every pairing, each level against the one
/// below it in both roles (a clear step is at least [`STEP`]), and the ratings.
pub fn report(games: &[Played], levels: &[Level]) -> String {
    let mut out = String::new();
    let count = |f: Level, m: Level| {
        let mut seen = BTreeMap::new();
        for g in games.iter().filter(|g| g.fugitive == f && g.marshal == m) {
            seen.insert(g.index, g.winner);
        }
        let wins = seen.values().filter(|w| **w == Some(Role::Fugitive)).count();
        let finished = seen.values().filter(|w| w.is_some()).count();
        (wins, finished)
    };
    let rate = |k: usize, n: usize| {
        if n == 0 {
            return "—".to_string();
        }
        let (low, high) = wilson(k, n);
        format!("{:.1}% [{:.1}, {:.1}] of {n}", 100.0 * k as f64 / n as f64, 100.0 * low, 100.0 * high)
    };
    let _ = writeln!(out, "The Fugitive's wins (Wilson 95 %), Fugitive (rows) against Marshal (columns):");
    let _ =
        writeln!(out, "{:<8} {}", "", levels.iter().map(|m| format!("{:<30}", m.name())).collect::<String>());
    for &f in levels {
        let cells: String =
            levels.iter().map(|&m| format!("{:<30}", rate(count(f, m).0, count(f, m).1))).collect();
        let _ = writeln!(out, "{:<8} {cells}", f.name());
    }
    let _ = writeln!(
        out,
        "\nEach level against the one below (a clear step: at least {:.0}% in both roles):",
        100.0 * STEP
    );
    for pair in levels.windows(2) {
        let (below, above) = (pair[0], pair[1]);
        let (fw, fnn) = count(above, below);
        let (bw, bn) = count(below, above);
        let as_marshal = bn - bw;
        let clear = |k: usize, n: usize| n > 0 && wilson(k, n).0 >= STEP;
        let _ = writeln!(
            out,
            "{above} over {below}: as the Fugitive {}, as the Marshal {}: {}",
            rate(fw, fnn),
            rate(as_marshal, bn),
            match (clear(fw, fnn), clear(as_marshal, bn)) {
                (true, true) => "a clear step (both lower bounds at least the step)",
                _ if fnn > 0
                    && bn > 0
                    && fw as f64 >= STEP * fnn as f64
                    && as_marshal as f64 >= STEP * bn as f64 =>
                {
                    "a step by the point figures, not yet by both lower bounds"
                }
                _ => "NOT a clear step",
            }
        );
    }
    let _ = writeln!(
        out,
        "\nGlicko-2 per role (skillratings defaults: start 1500, deviation 350, volatility 0.06, tau 0.5; rated in rounds):"
    );
    let rated = ratings(games, levels);
    for (level, r) in rated {
        let _ = writeln!(
            out,
            "{:<8} as the Marshal {:>6.0} (deviation {:>3.0}), as the Fugitive {:>6.0} (deviation {:>3.0})",
            level.name(),
            r.marshal.rating,
            r.marshal.deviation,
            r.fugitive.rating,
            r.fugitive.deviation
        );
    }
    out
}

/// A clear step up the ladder: the level above wins at least this share against the one below.
pub const STEP: f64 = 0.65;

#[cfg(test)]
mod tests {
    use super::*;

    fn games(f: Level, m: Level, fugitive_wins: usize, n: usize) -> impl Iterator<Item = Played> {
        (0..n).map(move |index| Played {
            fugitive: f,
            marshal: m,
            index,
            // The wins spread evenly over the games, as in a long run.
            winner: Some(if index * fugitive_wins / n != (index + 1) * fugitive_wins / n {
                Role::Fugitive
            } else {
                Role::Marshal
            }),
        })
    }

    #[test]
    fn a_line_reads_back() {
        let g =
            Played { fugitive: Level::Medium, marshal: Level::Hard, index: 17, winner: Some(Role::Marshal) };
        assert_eq!(Played::parse(&g.line()), Ok(g));
        let none = Played { winner: None, ..g };
        assert_eq!(Played::parse(&none.line()), Ok(none));
        assert!(Played::parse("medium hard 17").is_err());
        assert!(Played::parse("medium best 17 marshal").is_err());
        assert!(Played::parse("medium hard 17 nobody").is_err());
    }

    /// The stronger level rates higher in both roles; nobody played, everybody is at the start.
    #[test]
    fn the_stronger_level_rates_higher_in_both_roles() {
        let levels = [Level::Easy, Level::Hard];
        let mut all: Vec<Played> = Vec::new();
        all.extend(games(Level::Easy, Level::Easy, 50, 100));
        all.extend(games(Level::Hard, Level::Hard, 30, 100));
        all.extend(games(Level::Hard, Level::Easy, 80, 100));
        all.extend(games(Level::Easy, Level::Hard, 2, 100));
        let rated = ratings(&all, &levels);
        let (easy, hard) = (rated[0].1, rated[1].1);
        assert!(hard.marshal.rating > easy.marshal.rating + 200.0, "{rated:?}");
        assert!(hard.fugitive.rating > easy.fugitive.rating + 200.0, "{rated:?}");
        assert!(hard.marshal.deviation < 100.0, "{rated:?}");
        let start = ratings(&[], &levels);
        assert_eq!(start[0].1.marshal, Glicko2Rating::new());
        // The report names the step and both ratings.
        let text = report(&all, &levels);
        assert!(text.contains("hard over easy: as the Fugitive 80.0%"), "{text}");
        assert!(text.contains("as the Marshal 98.0%"), "{text}");
        assert!(text.contains("a clear step"), "{text}");
    }
}
