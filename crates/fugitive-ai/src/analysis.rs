//! The analysis of a finished game (issue 26): every guess and every placement or pass marked
//! by what it lost against the best one could have played, read from the exact notepad.
//!
//! # What is measured
//! Every figure is read from the Marshal's view at that moment and her notepad over complete
//! worlds ([`Deduction::of`]), so it is what she could know, never the truth.
//!
//! - **Her chance** in a view: the best chance a guess has of being right, the largest
//!   [`Deduction::hideout_share`] of a number she may name (1 when a number is certain). It is
//!   also the chance that her best next guess finds a hideout, the chart's first line.
//! - **A guess of hers** (a turn's guess or one in the Manhunt) is worth its chance of being
//!   right: every named number a face-down hideout, counted exactly over complete worlds
//!   ([`Joint`]: the worlds on which it would be wrong are those that fit her view with that
//!   guess added as a wrong one). Only where that count outgrows its budget (or would keep more
//!   than 32 open wrong guesses) is a guess of two or more uncertain numbers given the smallest
//!   of their shares (an upper bound) and marked an [`Estimate::Joint`]. The best single number
//!   is the one with the largest share; the best multi-number guess, by expected reveal (chance
//!   × numbers named), names every certain number she may name (one more keeps the chance and
//!   adds to the reveal) with the best set of the [`MULTI_CANDIDATES`] uncertain numbers with
//!   the largest shares (see `best_multi`).
//! - **A placement, a pass, or the end of his opening** is worth one minus her chance in the
//!   view it leaves her (the view before her draw). Her view shows only how many sprint cards
//!   lie under a hideout, so every hideout with the same count leaves her the same view: his
//!   alternatives are passing (or ending the opening) when legal, placing 42 when legal, and a
//!   placement with each count of sprint cards his hand allows. His **cover** is `log2` of the
//!   consistent worlds of that view (trails, hidden sprint cards and draws), in bits.
//! - **The loss** of a move is the best alternative's worth less the move's, in chance (0 to
//!   1). The marks ([`Mark`]): best ≤ 0.001, good < 0.05, inaccuracy < 0.10, mistake < 0.20,
//!   blunder ≥ 0.20.
//! - **Accuracy** per player: 100 × (1 − the mean loss of their marked moves).
//! - **Win chance**: after each marked move, [`Playouts::count`] games played on to the end by
//!   the `hard` Marshal and a `hard` Fugitive ([`Playouts::rollouts`] rollouts per candidate),
//!   each bot from its own view, with the cards still in the decks shuffled anew (neither
//!   side knew their order; in a game with events the decks are kept). The share the Fugitive
//!   wins, with a 95 % Wilson interval: with the server's 16 playouts, at most ±0.22 (at 50 %).
//! - **Estimates**: where the notepad falls back to the trail count (past its work budget, or
//!   an event it cannot read) the move is marked [`Estimate::Budget`] or
//!   [`Estimate::Events`] and its figures are of trails, not worlds.
//!
//! [`analyse`] is pure: the deal, the record and the bots' seeds fix the result. The caller
//! bounds the work with its `keep_going` callback, called after each move with the progress.

use fugitive_core::{
    Action, ByRole, Card, Cards, Deal, Deck, Entry, EventCard, Game, Phase, ReplayError, Role, Setup,
    SprintOptions,
};
use rand::SeedableRng;
use rand::seq::SliceRandom;
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};

use crate::deduction::{Deduction, Joint};
use crate::fugitive::FugitiveBot;
use crate::marshal::MarshalBot;
use crate::sim::MAX_ACTIONS;
use crate::view::{FugitiveView, Level, MarshalView};

/// A finished game, move by move.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Analysis {
    /// The marked moves, in order: every guess, placement, pass and end of the opening.
    pub moves: Vec<MoveAnalysis>,
    /// Each player's accuracy (0–100), `None` for a player with no marked move.
    pub accuracy: ByRole<Option<f64>>,
    /// Whether every move has its win chance (`false`: the caller stopped the playouts; the
    /// later moves have none). Every move is always marked.
    pub complete: bool,
    /// Playouts per win chance.
    pub playouts: usize,
}

/// One marked move.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct MoveAnalysis {
    /// The replay step this move leads to: its index in the record plus one.
    pub step: usize,
    /// Who moved.
    pub role: Role,
    /// What was played.
    pub action: Action,
    /// Its worth (0–1): a guess's chance of being right; for his move, one minus her chance after it.
    pub worth: f64,
    /// The best alternative's worth.
    pub best_worth: f64,
    /// `best_worth - worth`, never below 0.
    pub loss: f64,
    /// Its mark.
    pub mark: Mark,
    /// Her guesses: the best single number and the best multi-number guess.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub best_guess: Option<BestGuess>,
    /// After the move: the chance her best next guess finds a hideout.
    pub next_guess: f64,
    /// After the move: his cover, `log2` of the consistent worlds she faces.
    pub cover: f64,
    /// After the move: the share of playouts the Fugitive won, `None` if none were played.
    pub fugitive_wins: Option<f64>,
    /// Why the figures are estimates, if they are.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub estimate: Option<Estimate>,
}

/// The best guesses the Marshal had before her guess.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct BestGuess {
    /// The number most likely to be a face-down hideout.
    pub single: Card,
    /// Its chance.
    pub single_chance: f64,
    /// The multi-number guess with the best expected reveal.
    pub multi: Cards,
    /// Its chance of being right.
    pub multi_chance: f64,
    /// Its expected reveal: chance × numbers.
    pub multi_reveal: f64,
}

/// A move's mark, by its loss (see the module documentation).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Mark {
    /// Loss ≤ 0.001.
    Best,
    /// Loss < 0.05.
    Good,
    /// Loss < 0.10.
    Inaccuracy,
    /// Loss < 0.20.
    Mistake,
    /// Loss ≥ 0.20.
    Blunder,
}

impl Mark {
    /// The mark of a move that lost `loss` of chance.
    pub fn of(loss: f64) -> Mark {
        match loss {
            l if l <= 0.001 => Mark::Best,
            l if l < 0.05 => Mark::Good,
            l if l < 0.10 => Mark::Inaccuracy,
            l if l < 0.20 => Mark::Mistake,
            _ => Mark::Blunder,
        }
    }
}

/// Why a move's figures are estimates.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Estimate {
    /// The exact count outgrew its work budget: the figures count trails.
    Budget,
    /// Events the notepad cannot read were drawn: the figures count trails.
    Events {
        /// Those events.
        ignored: Vec<EventCard>,
    },
    /// Her guess named two or more uncertain numbers: its chance is the smallest of theirs,
    /// an upper bound.
    Joint,
}

/// How the win chance is played out.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Playouts {
    /// Games played on after each move (0: no win chance).
    pub count: usize,
    /// The `hard` Fugitive's rollouts per candidate move in them.
    pub rollouts: usize,
}

impl Default for Playouts {
    /// What the server plays: 16 playouts, 4 rollouts per candidate.
    fn default() -> Playouts {
        Playouts { count: 16, rollouts: 4 }
    }
}

/// Analyses a finished (or unfinished) game from its setup and record. Every move is marked
/// first; then the win chances are played out, move after move, each after a call of
/// `keep_going(done, total)` (moves with their win chance, moves in all): when it returns
/// `false` the rest keep no win chance and the analysis is marked incomplete.
///
/// # Errors
/// [`ReplayError`] when the record does not replay.
pub fn analyse(
    setup: Setup,
    actions: &[(Role, Entry)],
    playouts: Playouts,
    keep_going: &mut dyn FnMut(usize, usize) -> bool,
) -> Result<Analysis, ReplayError> {
    let mut game = Game::new(setup);
    let mut moves = Vec::new();
    for (index, &(role, entry)) in actions.iter().enumerate() {
        let before = game.clone();
        game.apply_entry(role, entry).map_err(|error| ReplayError { index, role, entry, error })?;
        let Entry::Action(action) = entry else { continue };
        if !marked(&entry) {
            continue;
        }
        let mut analysed = match role {
            Role::Marshal => guess(&before, &game, action),
            Role::Fugitive => hide(&before, &game, action),
        };
        analysed.step = index + 1;
        moves.push(analysed);
    }
    // The marks cost little; the playouts most of the time, so they come last and are what a
    // stop leaves out.
    let mut complete = true;
    let total = moves.len();
    for (done, analysed) in moves.iter_mut().enumerate() {
        if !keep_going(done, total) {
            complete = false;
            break;
        }
        let record = &actions[..analysed.step];
        let game = Game::replay(setup, record)?;
        analysed.fugitive_wins = win_chance(setup, record, &game, playouts, analysed.step as u64);
    }
    keep_going(total, total);
    let accuracy =
        ByRole { fugitive: accuracy(&moves, Role::Fugitive), marshal: accuracy(&moves, Role::Marshal) };
    Ok(Analysis { moves, accuracy, complete, playouts: playouts.count })
}

/// The moves that are marked: guesses, placements, passes and the end of the opening.
fn marked(entry: &Entry) -> bool {
    matches!(
        entry,
        Entry::Action(Action::Guess { .. } | Action::Place { .. } | Action::Pass | Action::EndTurn)
    )
}

fn accuracy(moves: &[MoveAnalysis], role: Role) -> Option<f64> {
    let losses: Vec<f64> = moves.iter().filter(|m| m.role == role).map(|m| m.loss).collect();
    (!losses.is_empty()).then(|| 100.0 * (1.0 - losses.iter().sum::<f64>() / losses.len() as f64))
}

/// Her notepad in this game's Marshal view, and why it is an estimate if it is.
fn notepad(game: &Game) -> (MarshalView, Deduction, Option<Estimate>) {
    let view = MarshalView::of(game);
    let deduction = Deduction::of(&view);
    let estimate = if deduction.exact() {
        None
    } else if !deduction.ignored_events().is_empty() || !Deduction::events_modelled(&view) {
        Some(Estimate::Events { ignored: deduction.ignored_events().to_vec() })
    } else {
        Some(Estimate::Budget)
    };
    (view, deduction, estimate)
}

/// The numbers she may name in this view, or `None` when she may not guess.
fn open(view: &MarshalView) -> Cards {
    let face_up = view.view().face_up();
    Cards::range(1, 41).difference(face_up)
}

/// Her best chance in a game: 0 once it is over (he won, or she found every hideout).
fn her_chance(game: &Game, deduction: &Deduction, view: &MarshalView) -> f64 {
    if game.is_over() {
        return 0.0;
    }
    open(view).iter().map(|n| deduction.hideout_share(n)).fold(0.0, f64::max)
}

/// The figures after a move: her next guess's chance and his cover.
fn after(game: &Game) -> (f64, f64, Option<Estimate>) {
    let (view, deduction, estimate) = notepad(game);
    let chance = her_chance(game, &deduction, &view);
    let cover = if deduction.worlds() == 0 { 0.0 } else { (deduction.worlds() as f64).log2() };
    (chance, cover, estimate)
}

fn scored(role: Role, action: Action, worth: f64, best_worth: f64) -> MoveAnalysis {
    let loss = (best_worth - worth).max(0.0);
    MoveAnalysis {
        step: 0,
        role,
        action,
        worth,
        best_worth,
        loss,
        mark: Mark::of(loss),
        best_guess: None,
        next_guess: 0.0,
        cover: 0.0,
        fugitive_wins: None,
        estimate: None,
    }
}

/// How many uncertain numbers the best multi-number guess is chosen among: those with the
/// largest shares (see [`best_multi`]).
pub const MULTI_CANDIDATES: usize = 6;

/// A guess of hers, from her view `before` it.
fn guess(before: &Game, after_guess: &Game, action: Action) -> MoveAnalysis {
    let (view, deduction, mut estimate) = notepad(before);
    let share = |n: Card| deduction.hideout_share(n);
    let named = match action {
        Action::Guess { numbers } => numbers,
        _ => Cards::EMPTY,
    };
    let certain = deduction.certain();
    let uncertain = named.difference(certain);
    let joint = if deduction.exact() { Joint::of(&view) } else { None };
    let exact = |numbers: Cards| joint.as_ref().and_then(|j| j.share(numbers));
    let worth = match uncertain.len() {
        0 if named.is_empty() => 0.0,
        0 | 1 => uncertain.iter().map(share).fold(1.0, f64::min),
        _ => exact(named).unwrap_or_else(|| {
            estimate.get_or_insert(Estimate::Joint);
            uncertain.iter().map(share).fold(1.0, f64::min)
        }),
    };
    let open = open(&view);
    let single = open.iter().max_by(|a, b| share(*a).total_cmp(&share(*b))).unwrap_or(Card::ESCAPE);
    let single_guess = before.single_guess() || before.phase() == Phase::Manhunt;
    let (multi, multi_chance) = if single_guess {
        (Cards::from(single), share(single))
    } else {
        best_multi(joint.as_ref(), &deduction, open)
    };
    let mut analysed = scored(Role::Marshal, action, worth, share(single).max(worth));
    analysed.best_guess = Some(BestGuess {
        single,
        single_chance: share(single),
        multi,
        multi_chance,
        multi_reveal: multi_chance * multi.len() as f64,
    });
    let (next_guess, cover, after_estimate) = after(after_guess);
    analysed.next_guess = next_guess;
    analysed.cover = cover;
    analysed.estimate = estimate.or(after_estimate);
    analysed
}

/// The multi-number guess with the best expected reveal (chance × numbers named) and its
/// chance. A best guess names every certain number she may name (one more certain number keeps
/// the chance and adds one to the reveal), so the candidates are those numbers with each set
/// of the [`MULTI_CANDIDATES`] uncertain numbers with the largest shares (the empty set too,
/// when a number is certain), each chance counted exactly ([`Deduction::joint_shares`]). A set
/// whose smallest share (a bound on its chance) cannot beat the best so far is not counted.
/// Ties go to the larger chance, then to fewer numbers. Where the notepad is not exact, the
/// guesses of two uncertain numbers or more are left out (their chance is not known), as
/// before issue 26's fifth part.
fn best_multi(joint: Option<&Joint>, deduction: &Deduction, open: Cards) -> (Cards, f64) {
    let share = |n: Card| deduction.hideout_share(n);
    let sure = deduction.certain().intersection(open);
    let mut uncertain: Vec<Card> = open.difference(sure).iter().filter(|&n| share(n) > 0.0).collect();
    uncertain.sort_by(|a, b| share(*b).total_cmp(&share(*a)).then(a.cmp(b)));
    uncertain.truncate(MULTI_CANDIDATES);
    let most = if joint.is_some() { uncertain.len() } else { 1 };
    // Every subset of the candidates, by its bits: the guess, its bound, how many uncertain.
    let mut sets: Vec<(Cards, f64, usize)> = (0u32..1 << uncertain.len())
        .map(|bits| {
            let picked: Vec<Card> =
                uncertain.iter().enumerate().filter(|(i, _)| bits & (1 << i) != 0).map(|(_, n)| *n).collect();
            let bound = picked.iter().map(|&n| share(n)).fold(1.0, f64::min);
            (sure.union(picked.iter().copied().collect()), bound, picked.len())
        })
        .filter(|(set, _, picked)| !set.is_empty() && *picked <= most)
        .collect();
    let reveal = |set: Cards, chance: f64| chance * set.len() as f64;
    // The largest bounds on the reveal first: once a bound is below the best reveal, so are
    // the rest.
    sets.sort_by(|a, b| reveal(b.0, b.1).total_cmp(&reveal(a.0, a.1)).then(a.0.len().cmp(&b.0.len())));
    const EPS: f64 = 1e-12;
    let mut best: Option<(Cards, f64)> = None;
    for (set, bound, picked) in sets {
        if best.is_some_and(|(b, c)| reveal(set, bound) < reveal(b, c) - EPS) {
            break;
        }
        let chance = match (picked, joint) {
            (0 | 1, _) => bound,
            (_, Some(joint)) => match joint.share(set) {
                Some(chance) => chance,
                None => continue,
            },
            (_, None) => continue,
        };
        let better = best.is_none_or(|(b, c)| {
            let (r, rb) = (reveal(set, chance), reveal(b, c));
            r > rb + EPS
                || (r >= rb - EPS && (chance > c + EPS || (chance >= c - EPS && set.len() < b.len())))
        });
        if better {
            best = Some((set, chance));
        }
    }
    best.unwrap_or((Cards::EMPTY, 0.0))
}

/// A placement, pass or end of the opening of his, against what else his hand allowed.
fn hide(before: &Game, after_move: &Game, action: Action) -> MoveAnalysis {
    let (next_guess, cover, estimate) = after(after_move);
    let mut best = 1.0 - next_guess;
    for alternative in alternatives(before) {
        let mut game = before.clone();
        if game.apply(Role::Fugitive, alternative).is_ok() {
            best = f64::max(best, 1.0 - after(&game).0);
        }
    }
    let mut analysed = scored(Role::Fugitive, action, 1.0 - next_guess, best);
    analysed.next_guess = next_guess;
    analysed.cover = cover;
    analysed.estimate = estimate;
    analysed
}

/// One move for each view his choices could leave her: pass, end the opening, 42, and a
/// placement with each count of sprint cards his hand allows.
fn alternatives(game: &Game) -> Vec<Action> {
    let legal = game.legal_actions(Role::Fugitive);
    let mut moves = Vec::new();
    if legal.pass {
        moves.push(Action::Pass);
    }
    if legal.end_turn {
        moves.push(Action::EndTurn);
    }
    let mut counts = [false; 2 * 43];
    for placement in &legal.placements {
        let escape = usize::from(placement.hideout == Card::ESCAPE);
        let sets: Vec<Cards> = match &placement.sprints {
            SprintOptions::OneOf { sets } => sets.clone(),
            SprintOptions::AtLeast { value, from } => at_least(*value, *from),
        };
        for sprints in sets {
            let slot = escape * 43 + sprints.len();
            if !std::mem::replace(&mut counts[slot], true) {
                moves.push(Action::Place { hideout: placement.hideout, sprints });
            }
        }
    }
    moves
}

/// For each count of cards from `from` that can be worth at least `value`, one such set: the
/// most valuable cards first, then the rest.
fn at_least(value: u8, from: Cards) -> Vec<Cards> {
    let mut cards: Vec<Card> = from.iter().collect();
    cards.sort_by_key(|c| std::cmp::Reverse(Cards::from(*c).sprint_value()));
    let mut sets = Vec::new();
    let mut set = Cards::EMPTY;
    if value == 0 {
        sets.push(set);
    }
    for card in cards {
        set = set.with(card);
        if set.sprint_value() >= value {
            sets.push(set);
        }
    }
    sets
}

/// The share of `playouts` games the Fugitive wins when played on from `game` (see the module
/// documentation), `None` when none are played or the game is over (then 1 or 0 is known).
fn win_chance(
    setup: Setup,
    record: &[(Role, Entry)],
    game: &Game,
    playouts: Playouts,
    salt: u64,
) -> Option<f64> {
    if let Some(outcome) = game.outcome() {
        return Some(if outcome.winner == Role::Fugitive { 1.0 } else { 0.0 });
    }
    if playouts.count == 0 {
        return None;
    }
    let mut wins = 0;
    for i in 0..playouts.count {
        let seed = salt.wrapping_mul(1_000_003).wrapping_add(i as u64);
        let mut game = reshuffled(setup, record, game, seed).unwrap_or_else(|| game.clone());
        let mut fugitive = FugitiveBot::new(Level::Hard, seed).with_rollouts(playouts.rollouts);
        let mut marshal = MarshalBot::new(Level::Hard, seed ^ 0x5eed);
        while let Some(role) = game.to_move() {
            let action = match role {
                Role::Fugitive => fugitive.act(&FugitiveView::of(&game)),
                Role::Marshal => marshal.act(&MarshalView::of(&game)),
            };
            let refused = action.is_none_or(|action| game.apply(role, action).is_err());
            if refused || game.actions().len() >= MAX_ACTIONS {
                let _ = game.apply(role, Action::Resign);
                break;
            }
        }
        wins += usize::from(game.outcome().is_some_and(|o| o.winner == Role::Fugitive));
    }
    Some(wins as f64 / playouts.count as f64)
}

/// The same game with the cards still in the decks shuffled by `seed`: the deal's drawn part
/// kept, the record replayed. `None` for a game with events (their cards lie in the decks).
fn reshuffled(setup: Setup, record: &[(Role, Entry)], game: &Game, seed: u64) -> Option<Game> {
    if !setup.rules.events.is_off() {
        return None;
    }
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut deal: Deal = game.deal().clone();
    for deck in Deck::ALL {
        let cards = &mut deal.decks[deck.index()];
        let drawn = cards.len() - game.deck(deck).len();
        cards[drawn..].shuffle(&mut rng);
    }
    let mut replayed = Game::from_deal(setup.rules, deal).ok()?;
    for &(role, entry) in record {
        replayed.apply_entry(role, entry).ok()?;
    }
    Some(replayed)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn marks_follow_the_documented_thresholds() {
        assert_eq!(Mark::of(0.0), Mark::Best);
        assert_eq!(Mark::of(0.001), Mark::Best);
        assert_eq!(Mark::of(0.04), Mark::Good);
        assert_eq!(Mark::of(0.05), Mark::Inaccuracy);
        assert_eq!(Mark::of(0.15), Mark::Mistake);
        assert_eq!(Mark::of(0.2), Mark::Blunder);
    }

    #[test]
    fn one_set_per_count_of_sprint_cards() {
        let from: Cards = [4, 5, 6].into_iter().filter_map(Card::new).collect();
        let counts: Vec<usize> = at_least(3, from).iter().map(|s| s.len()).collect();
        assert_eq!(counts, vec![2, 3], "4 and 6 are worth 4; one card is worth at most 2");
        assert_eq!(at_least(0, from).len(), 4, "none, one, two or three cards");
    }
}
