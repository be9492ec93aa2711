//! Puzzles (issue 26): positions of a played game where one answer is clearly best, found
//! with the exact notepad ([`Deduction`]).
//!
//! [`find`] replays a game from its deal and looks at every moment a player had to decide:
//!
//! - **[`Theme::Certain`]** — the Marshal is to guess and exactly one number is a face-down
//!   hideout on every consistent world, while no other number is on more than half of them.
//!   The answer is that number.
//! - **[`Theme::FindsAll`]** — the Marshal is to guess and every face-down hideout (two or more)
//!   is certain: naming all of them at once finds them all. The answer is that set; any other
//!   guess finds fewer or is wrong.
//! - **[`Theme::Cover`]** — the Fugitive is to place: of his hideout cards (each with the best of
//!   every sprint set his hand allows under it — she sees only their count, so each count he
//!   can reach is one choice), one leaves the Marshal a chance to name the new hideout with one
//!   number at least [`COVER_MARGIN`] below every other card's with any sprint set, and below
//!   passing (which leaves his newest hideout as it was). The answer is that hideout card.
//!
//! Only exact deductions count (no event variant, no fallback to the trail count), so every
//! answer is checked by the engine over complete worlds. A puzzle keeps the solver's view as
//! the rules let him see it then (R19, R20): the answer is never in it for the Marshal.

use fugitive_core::{Action, Cards, Game, Role, SprintOptions, View};
use serde::{Deserialize, Serialize};

use crate::deduction::Deduction;
use crate::view::{FugitiveView, MarshalView};

/// How far below the next best choice (in the Marshal's chance) a cover puzzle's answer lies.
pub const COVER_MARGIN: f64 = 0.2;

/// A certain number is clearly best only if no other number is a hideout on more than this
/// share of the worlds.
pub const CERTAIN_RUNNER_UP: f64 = 0.5;

/// What a puzzle asks.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Theme {
    /// A guess is certain: find it (the Marshal, one number).
    Certain,
    /// One multi-number guess finds all (the Marshal, every face-down hideout).
    FindsAll,
    /// Keep your cover: which placement? (the Fugitive, one hideout card).
    Cover,
}

impl Theme {
    /// The theme's name on the wire and in the database.
    pub const fn name(self) -> &'static str {
        match self {
            Theme::Certain => "certain",
            Theme::FindsAll => "finds_all",
            Theme::Cover => "cover",
        }
    }

    /// The theme of this name, if there is one.
    pub fn from_name(name: &str) -> Option<Theme> {
        [Theme::Certain, Theme::FindsAll, Theme::Cover].into_iter().find(|t| t.name() == name)
    }

    /// Who solves it.
    pub const fn role(self) -> Role {
        match self {
            Theme::Certain | Theme::FindsAll => Role::Marshal,
            Theme::Cover => Role::Fugitive,
        }
    }
}

/// One puzzle: the solver's view, the one best answer and the figures that explain it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Puzzle {
    /// What it asks.
    pub theme: Theme,
    /// The solver's view at that moment ([`Theme::role`]'s), as the rules let him see it.
    pub view: View,
    /// The numbers of the answer: the guess (Marshal), or the one hideout card (Fugitive).
    pub answer: Cards,
    /// The answer's figure: the chance the guess is right (Marshal themes), or the Marshal's
    /// best chance to name the new hideout with one number after the placement (cover).
    pub best: f64,
    /// The same figure for the next best choice (the likeliest other number, the best other
    /// placement or passing, whichever is better).
    pub next: f64,
}

/// Every puzzle in the game so far, in the order its moments came.
pub fn find(game: &Game) -> Vec<Puzzle> {
    find_within(game, &mut || true).0
}

/// [`find`], asking `keep_going` before each moment it looks at: once it says `false` the
/// search stops. Returns the puzzles found so far and whether every moment was looked at.
pub fn find_within(game: &Game, keep_going: &mut dyn FnMut() -> bool) -> (Vec<Puzzle>, bool) {
    let Ok(mut replay) =
        Game::from_deal_with_events(game.rules(), game.deal().clone(), game.event_deal().clone())
    else {
        return (Vec::new(), true);
    };
    if !game.rules().events.is_off() {
        return (Vec::new(), true);
    }
    let mut found = Vec::new();
    for &(role, entry) in game.actions() {
        if !keep_going() {
            return (found, false);
        }
        found.extend(at(&replay));
        if replay.apply_entry(role, entry).is_err() {
            break;
        }
    }
    if !keep_going() {
        return (found, false);
    }
    found.extend(at(&replay));
    (found, true)
}

/// The puzzle of this moment of `game`, if there is one.
pub fn at(game: &Game) -> Option<Puzzle> {
    match game.to_move()? {
        Role::Marshal => marshal(game),
        Role::Fugitive => cover(game),
    }
}

/// A Marshal's moment: she has drawn and must guess.
fn marshal(game: &Game) -> Option<Puzzle> {
    let legal = game.legal_actions(Role::Marshal);
    let options = legal.guess?;
    if !legal.draws.is_empty() || !legal.choices.is_empty() {
        return None;
    }
    let view = MarshalView::of(game);
    let deduction = Deduction::of(&view);
    if !deduction.exact() || deduction.positions().is_empty() {
        return None;
    }
    let certain = deduction.certain();
    let all = certain.len() == deduction.positions().len();
    let (theme, answer) = match certain.len() {
        1 => (Theme::Certain, certain),
        n if n >= 2 && all && !options.single => (Theme::FindsAll, certain),
        _ => return None,
    };
    let next = options
        .numbers
        .iter()
        .filter(|n| !answer.contains(*n))
        .map(|n| deduction.hideout_share(n))
        .fold(0.0, f64::max);
    if theme == Theme::Certain && next > CERTAIN_RUNNER_UP {
        return None;
    }
    Some(Puzzle { theme, view: view.view().clone(), answer, best: 1.0, next })
}

/// A Fugitive's moment: he has drawn and may place.
fn cover(game: &Game) -> Option<Puzzle> {
    let legal = game.legal_actions(Role::Fugitive);
    if !legal.draws.is_empty() || !legal.choices.is_empty() || legal.placements.len() < 2 {
        return None;
    }
    // Her chance to name the new hideout after each card, with its best sprint set of all his
    // hand allows: another card with more sprint cards must not cover him as well.
    let mut scores: Vec<(Cards, f64)> = Vec::new();
    for placement in &legal.placements {
        let best = one_set_per_count(&placement.sprints)
            .into_iter()
            .map(|sprints| after(game, Action::Place { hideout: placement.hideout, sprints }))
            .try_fold(f64::INFINITY, |best, chance| chance.map(|c| best.min(c)))?;
        if best.is_finite() {
            scores.push((Cards::from_iter([placement.hideout]), best));
        }
    }
    if scores.len() < 2 {
        return None;
    }
    let pass = if legal.pass { after(game, Action::Pass) } else { None };
    scores.sort_by(|a, b| a.1.total_cmp(&b.1));
    let (answer, best) = scores[0];
    let next = scores[1].1.min(pass.unwrap_or(f64::INFINITY));
    (next - best >= COVER_MARGIN).then(|| Puzzle {
        theme: Theme::Cover,
        view: FugitiveView::of(game).view().clone(),
        answer,
        best,
        next,
    })
}

/// Once the Fugitive has done `action`: the Marshal's best chance to name his newest face-down
/// hideout with one number (the largest share of worlds any number has at that position), if
/// the deduction is exact. After a pass, the newest hideout is the last one placed before.
fn after(game: &Game, action: Action) -> Option<f64> {
    let mut game = game.clone();
    game.apply(Role::Fugitive, action).ok()?;
    let deduction = Deduction::of(&MarshalView::of(&game));
    if !deduction.exact() {
        return None;
    }
    let newest = deduction.positions().last()?;
    Some(newest.candidates.iter().map(|c| deduction.share(newest.position, c.number)).fold(0.0, f64::max))
}

/// One sprint set for each count of sprint cards a hideout allows (the Marshal sees the count,
/// not the cards, so every set of a count leaves her the same view), fewest cards first.
fn one_set_per_count(options: &SprintOptions) -> Vec<Cards> {
    let mut by_count: Vec<Option<Cards>> = vec![None; 43];
    let mut keep = |set: Cards| {
        by_count[set.len()].get_or_insert(set);
    };
    match options {
        SprintOptions::AtLeast { value, from } => {
            from.subsets().filter(|s| s.sprint_value() >= *value).for_each(&mut keep)
        }
        SprintOptions::OneOf { sets } => sets.iter().copied().for_each(&mut keep),
    }
    by_count.into_iter().flatten().collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use fugitive_core::{Card, RuleOptions, Setup};

    fn c(n: u8) -> Card {
        Card::new(n).unwrap()
    }

    #[test]
    fn a_bot_game_gives_puzzles_whose_answer_the_view_holds_only_for_the_fugitive() {
        let mut found = Vec::new();
        for seed in 0..6u64 {
            let mut game = Game::new(Setup::new(seed));
            let mut fugitive = crate::FugitiveBot::new(crate::Level::Medium, seed);
            let mut marshal = crate::MarshalBot::new(crate::Level::Medium, seed);
            while let Some(role) = game.to_move() {
                let action = match role {
                    Role::Fugitive => fugitive.act(&FugitiveView::of(&game)),
                    Role::Marshal => marshal.act(&MarshalView::of(&game)),
                };
                game.apply(role, action.unwrap()).unwrap();
            }
            found.extend(find(&game));
        }
        assert!(!found.is_empty(), "six medium games hold no puzzle");
        for puzzle in &found {
            assert!(puzzle.view.viewer.is(puzzle.theme.role()));
            assert!(puzzle.best != puzzle.next);
            if puzzle.theme.role() == Role::Marshal {
                assert!(puzzle.view.trail.iter().all(|t| t.face_up || t.card.is_none()));
            }
        }
    }

    #[test]
    fn a_search_told_to_stop_stops_with_what_it_found() {
        let mut game = Game::new(Setup::new(3u64));
        let mut fugitive = crate::FugitiveBot::new(crate::Level::Medium, 3);
        let mut marshal = crate::MarshalBot::new(crate::Level::Medium, 3);
        while let Some(role) = game.to_move() {
            let action = match role {
                Role::Fugitive => fugitive.act(&FugitiveView::of(&game)),
                Role::Marshal => marshal.act(&MarshalView::of(&game)),
            };
            game.apply(role, action.unwrap()).unwrap();
        }
        let moments = game.actions().len() + 1;
        let mut asked = 0;
        assert_eq!(find_within(&game, &mut || true), (find(&game), true));
        let (found, complete) = find_within(&game, &mut || {
            asked += 1;
            false
        });
        assert_eq!((found.len(), complete, asked), (0, false, 1), "stopped before the first moment");
        let mut left = moments / 2;
        let (found, complete) = find_within(&game, &mut || {
            left = left.saturating_sub(1);
            left > 0
        });
        assert!(!complete);
        assert!(find(&game).starts_with(&found), "the puzzles of the moments looked at");
    }

    #[test]
    fn a_game_with_events_gives_none() {
        let rules = RuleOptions { events: fugitive_core::EventVariant::Random, ..RuleOptions::default() };
        let game = Game::new(Setup { seed: 1u64.into(), rules });
        assert!(find(&game).is_empty());
    }

    #[test]
    fn one_set_per_count_reaches_every_count_the_hand_allows() {
        let from = Cards::from_iter([c(4), c(5), c(7)]);
        let sets = one_set_per_count(&SprintOptions::AtLeast { value: 2, from });
        // 4 alone (2), 5 and 7 (2), any two with 4, all three: one of each count.
        assert_eq!(sets.iter().map(|s| s.len()).collect::<Vec<_>>(), [1, 2, 3]);
        assert!(sets.iter().all(|s| s.is_subset(from) && s.sprint_value() >= 2));
        assert_eq!(one_set_per_count(&SprintOptions::AtLeast { value: 0, from }).len(), 4);
        let sets = vec![Cards::from_iter([c(4)]), Cards::from_iter([c(5)]), Cards::EMPTY];
        assert_eq!(
            one_set_per_count(&SprintOptions::OneOf { sets }),
            [Cards::EMPTY, Cards::from_iter([c(4)])]
        );
    }
}
