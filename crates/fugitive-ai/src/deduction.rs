//! The Marshal's notepad, solved: which numbers each face-down hideout can still be.
//!
//! # What is counted: complete worlds
//! A **world** fixes every card the Marshal cannot see, but the order of the cards still in
//! the decks (that order multiplies every world by the same number, so it is left out):
//!
//! - the cards he was dealt: a set of 3 of deck 1 and 2 of deck 2 (R3);
//! - the card each of his draws took, draw by draw (R7, R8a, R11a);
//! - for every position, its hideout and the set of its sprint cards (R9, R10), for the
//!   face-down ones and for the hidden sprint cards under 42 (R11).
//!
//! His hand is what is left of his cards, so it is fixed too. A world is **consistent** when it
//! agrees with everything she has seen, i.e. with the rules below; [`Deduction::of`] counts
//! the consistent worlds, each once (the deal is uniform, so every world is as likely as any
//! other before play; his strategy is not modelled), and per face-down position how many put
//! each number there. A number's share is its count over the total. The rules:
//!
//! 1. **Cards.** All cards are distinct. No hidden hideout or hidden sprint card is in her
//!    hand or face up anywhere (R12); 42 is never a sprint card (R11). The dealt and drawn
//!    cards of deck `d` are cards of `d` that are not hers (her hand is the only public thing
//!    that is not his).
//! 2. **Order and reach.** The hideouts of positions 0 (card 0), 1, …, n strictly increase,
//!    and position `i` is at most `3 + S` above position `i − 1`, `S` the value of its sprint
//!    cards (R1, R9), revealed or not.
//! 3. **Draws.** Every card placed at position `i`, hideout or sprint card, is one of his
//!    fixed cards 1, 2, 3, 42, one he was dealt, or one he drew before placing position `i`
//!    (the history says from which deck each draw came, R8a).
//! 4. **Guesses.** For every wrong guess of numbers `G`, not every number of `G` was a
//!    face-down hideout at that moment (R12, R13). Right guesses are face up (rule 1). Of the
//!    wrong guesses naming two or more numbers still unknown, a guess another one implies is
//!    merged away (the same numbers named again later, or more numbers named with fewer
//!    positions), and only the newest 32 of the rest are used: past that budget the oldest
//!    guesses' evidence is left out, which allows more worlds, never fewer.
//!
//! The opening rule (R6) and the pass bonus (R11a) add nothing beyond this: the placements
//! and draws they allowed are in the history, and under `exactly_two` the second opening
//! placement shows that the first left one possible. While the Fugitive is between his two
//! opening placements under `exactly_two`, the worlds whose hand leaves no second placement
//! are ruled out (`worlds.rs`, `between_opening_placements`, by walking every deal).
//!
//! # The bound: consistent trails
//! The count before issue 15, kept as a fast bound ([`Deduction::trails_only`]): the trail
//! count of `fugitive-core` ([`Evidence`], [`Evidence::count_trails`]), which reads the same
//! rules from the public record with a face-down sprint stack of `k` cards only counted (worth
//! at most `2k`) and rule 3 for hideouts and revealed sprint cards only. It is also what the
//! Marshal's aids show everyone ([`View::candidates`](fugitive_core::View::candidates)), so the
//! computer's notepad and the public sets agree where they overlap. Every consistent world has a
//! consistent trail, so a number the bound rules out has no world: the exact count only tries
//! the numbers the bound allows. [`Deduction::of`] gives the bound instead (and says so:
//! [`Deduction::exact`] is `false`) when the exact count needs more than 300,000 steps or its
//! counts overflow `u128` (`worlds.rs`, `BUDGET`), and in the rare event states below.
//!
//! **Events** (`EVENTS.md`, issue 29): a world also agrees with everything each event told her
//! (`facts.rs`): the trail events' reach (F1, M1), M2 Informant's shown cards, M3 Stakeout's
//! count, M6 Eyewitness's group, the cards she knows lie in a deck (F4 and N6 put back by her,
//! N5 looked at by her: not his while there), the card he put back (N6: one he held then), and
//! each F5 Smoke Screen card (one he held then, under its hideout, adding no reach), and a card
//! she knew that he drew (his from that draw on, in its own slot of his draws). In the rare
//! states `facts.rs` does not follow (a card he put back drawn again or seen by her, a card put
//! back by him after he drew one she knew of that deck, such a card among sprint cards she has
//! seen), the count falls back to the bound, which leaves out M3, M6, her N5 peek, F4 and N6
//! ([`Deduction::ignored_events`] names those drawn so far; empty when the count is exact).
//!
//! Everything is read from the [`MarshalView`].
//!
//! # How
//! The worlds: see `worlds.rs`; the bound: `fugitive-core`'s `trails.rs`.

use fugitive_core::{Card, Cards, Event, EventCard, Evidence, Role, TrailCount};
use serde::{Deserialize, Serialize};

use crate::facts::Facts;
use crate::view::MarshalView;

/// The solved notepad: every consistent world counted (see the module documentation).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Deduction {
    worlds: u128,
    positions: Vec<PositionCandidates>,
    /// Whether the counts are of complete worlds (`true`) or of trails, the bound.
    exact: bool,
    /// The event cards drawn so far whose information this deduction does not use.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    ignored_events: Vec<EventCard>,
}

/// What one face-down position can still be.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PositionCandidates {
    /// Trail position, 1 for the first hideout.
    pub position: usize,
    /// The numbers it can be, ascending, each with how many consistent worlds give it.
    pub candidates: Vec<Candidate>,
}

/// One number a face-down position can be.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Candidate {
    /// The number.
    pub number: Card,
    /// How many consistent worlds put it here.
    pub worlds: u128,
}

impl Deduction {
    /// Solves the Marshal's notepad from her view alone: the exact count of worlds, or the
    /// count of trails when the exact one does not apply (see the module documentation).
    pub fn of(view: &MarshalView) -> Deduction {
        let evidence = Evidence::read(view.view());
        let bound = from_trails(evidence.count_trails());
        let worlds = match crate::worlds::between_opening_placements(view.view()) {
            Some(worlds) => Some(worlds),
            None => Facts::read(view.view()).and_then(|facts| {
                crate::worlds::count(&evidence, &facts, &allowed(&bound, evidence.positions().len()))
            }),
        };
        match worlds {
            Some(worlds) => from_worlds(worlds),
            None => Deduction { ignored_events: ignored_events(view), ..bound },
        }
    }

    /// For each set of numbers, the exact share of consistent worlds on which every number of
    /// it is a face-down hideout: the chance a guess naming them is right ([`Joint`]). `None`
    /// where [`Joint::of`] or one of its counts is.
    pub fn joint_shares(view: &MarshalView, guesses: &[Cards]) -> Option<Vec<f64>> {
        let joint = Joint::of(view)?;
        guesses.iter().map(|&numbers| joint.share(numbers)).collect()
    }

    /// The hard Marshal's odds: per position, the numbers the exact count leaves (those with a
    /// consistent world), weighted as the trail count weighs them, each position's weights
    /// scaled to the same total (2^32). Weighing worlds (as [`Deduction::of`] does) prices in
    /// how likely he was to hold each card, as if he chose uniformly among his cards; a
    /// Fugitive who goes as far as he can does not, and the greedy Marshal guessed worse with
    /// those odds (`BENCHMARKS.md`). Falls back to the trail count like [`Deduction::of`].
    pub fn trails_within_worlds(view: &MarshalView) -> Deduction {
        let worlds = Deduction::of(view);
        let mut bound = Deduction::trails_only(view);
        if !worlds.exact || bound.worlds == 0 {
            return worlds;
        }
        const TOTAL: u128 = 1 << 32;
        for p in &mut bound.positions {
            p.candidates.retain(|c| worlds.share(p.position, c.number) > 0.0);
            let sum: u128 = p.candidates.iter().map(|c| c.worlds).sum();
            for c in &mut p.candidates {
                c.worlds = c.worlds * TOTAL / sum.max(1);
            }
        }
        bound.worlds = if worlds.worlds == 0 { 0 } else { TOTAL };
        bound.exact = true;
        bound.ignored_events = worlds.ignored_events;
        bound
    }

    /// The count of consistent trails alone, each world's sprint cards not identified: the
    /// fast bound the exact count prunes with and falls back to (`fugitive-core`'s
    /// [`Evidence::count_trails`]).
    pub fn trails_only(view: &MarshalView) -> Deduction {
        let mut deduction = from_trails(Evidence::read(view.view()).count_trails());
        deduction.ignored_events = ignored_events(view);
        deduction
    }

    /// Whether the exact count can read everything the events told her in this view
    /// (`facts.rs`): `false` only in the rare states it does not follow (a card he put back drawn
    /// again or seen by her, see `deduction.rs`), where [`Deduction::of`] gives the trail count
    /// (as it does past its budget).
    pub fn events_modelled(view: &MarshalView) -> bool {
        Facts::read(view.view()).is_some()
    }

    /// The event cards drawn so far whose information is left out (see the module
    /// documentation): M3, M6, N5 drawn by the Marshal, F4 and N6.
    pub fn ignored_events(&self) -> &[EventCard] {
        &self.ignored_events
    }

    /// How many consistent worlds there are (0 only for evidence no real game can produce);
    /// consistent trails when [`Deduction::exact`] is false.
    pub fn worlds(&self) -> u128 {
        self.worlds
    }

    /// Whether the counts are of complete worlds; `false`: of trails (the bound, with events
    /// or when the exact count outgrew its budget).
    pub fn exact(&self) -> bool {
        self.exact
    }

    /// The face-down positions, in trail order, with their candidates.
    pub fn positions(&self) -> &[PositionCandidates] {
        &self.positions
    }

    /// The share of consistent worlds that put `number` at `position` (0 if none do).
    pub fn share(&self, position: usize, number: Card) -> f64 {
        let count = self
            .positions
            .iter()
            .find(|p| p.position == position)
            .and_then(|p| p.candidates.iter().find(|c| c.number == number))
            .map_or(0, |c| c.worlds);
        self.ratio(count)
    }

    /// The share of consistent worlds on which `number` is a face-down hideout anywhere.
    pub fn hideout_share(&self, number: Card) -> f64 {
        let count: u128 = self
            .positions
            .iter()
            .flat_map(|p| &p.candidates)
            .filter(|c| c.number == number)
            .map(|c| c.worlds)
            .sum();
        self.ratio(count)
    }

    /// The numbers that are a face-down hideout on every consistent world.
    pub fn certain(&self) -> Cards {
        self.positions.iter().filter(|p| p.candidates.len() == 1).map(|p| p.candidates[0].number).collect()
    }

    fn ratio(&self, count: u128) -> f64 {
        if self.worlds == 0 { 0.0 } else { count as f64 / self.worlds as f64 }
    }
}

/// The chances of multi-number guesses, counted exactly: the worlds on which a guess of
/// `numbers` would be wrong are counted as if she had just made it and it had been wrong (rule
/// 4, [`Evidence::with_wrong_guess`]); the others are the worlds on which it is right. One
/// exact count per guess, whatever its size.
#[derive(Clone, Debug)]
pub struct Joint {
    evidence: Evidence,
    facts: Facts,
    allowed: Vec<Cards>,
    total: u128,
}

impl Joint {
    /// The counter of her view, `None` where [`Deduction::of`] is not exact or between the two
    /// opening placements (she cannot guess then).
    pub fn of(view: &MarshalView) -> Option<Joint> {
        if crate::worlds::between_opening_placements(view.view()).is_some() {
            return None;
        }
        let evidence = Evidence::read(view.view());
        let facts = Facts::read(view.view())?;
        let bound = from_trails(evidence.count_trails());
        // A relaxation for every guess too: a number with no consistent trail has no world.
        let allowed = allowed(&bound, evidence.positions().len());
        let total = crate::worlds::count(&evidence, &facts, &allowed)?.total;
        (total > 0).then_some(Joint { evidence, facts, allowed, total })
    }

    /// The share of consistent worlds on which every number of `numbers` is a face-down
    /// hideout (1 for no number). `None` past the count's work budget, or when one more open
    /// guess would exceed their budget ([`fugitive_core::MAX_OPEN_GUESSES`]).
    pub fn share(&self, numbers: Cards) -> Option<f64> {
        if numbers.is_empty() {
            return Some(1.0);
        }
        let wrong = self.evidence.with_wrong_guess(numbers)?;
        let wrong = crate::worlds::count(&wrong, &self.facts, &self.allowed)?.total;
        Some(self.total.checked_sub(wrong)? as f64 / self.total as f64)
    }
}

/// Per position, the numbers the trail count `bound` leaves (the exact count tries no other).
fn allowed(bound: &Deduction, n: usize) -> Vec<Cards> {
    (1..=n)
        .map(|i| {
            let p = bound.positions.iter().find(|p| p.position == i);
            p.map(|p| p.candidates.iter().map(|c| c.number).collect()).unwrap_or_default()
        })
        .collect()
}

/// The trail count as a deduction (not exact).
fn from_trails(count: TrailCount) -> Deduction {
    let positions = count
        .positions
        .into_iter()
        .map(|p| PositionCandidates {
            position: p.position,
            candidates: p
                .numbers
                .into_iter()
                .map(|(number, trails)| Candidate { number, worlds: u128::from(trails) })
                .collect(),
        })
        .collect();
    Deduction { worlds: u128::from(count.trails), positions, exact: false, ignored_events: Vec::new() }
}

fn from_worlds(worlds: crate::worlds::Worlds) -> Deduction {
    let positions = worlds
        .positions
        .iter()
        .map(|(position, counts)| PositionCandidates {
            position: *position,
            candidates: (1..42u8)
                .filter(|&h| counts[usize::from(h)] > 0)
                .map(|h| Candidate { number: Card::new(h).expect("1 to 41"), worlds: counts[usize::from(h)] })
                .collect(),
        })
        .collect();
    Deduction { worlds: worlds.total, positions, exact: true, ignored_events: Vec::new() }
}

/// The drawn events whose information the deduction leaves out, each once.
fn ignored_events(view: &MarshalView) -> Vec<EventCard> {
    let mut ignored = Vec::new();
    for event in &view.view().history {
        let Event::EventDrawn { role, card, .. } = *event else { continue };
        let left_out = match card {
            EventCard::M3 | EventCard::M6 | EventCard::F4 | EventCard::N6 => true,
            EventCard::N5 => role == Role::Marshal,
            _ => false,
        };
        if left_out && !ignored.contains(&card) {
            ignored.push(card);
        }
    }
    ignored
}

#[cfg(test)]
mod tests {
    use super::*;
    use fugitive_core::{Action, Game, Setup};

    fn c(n: u8) -> Card {
        Card::new(n).unwrap()
    }

    #[test]
    fn one_hideout_without_sprints_is_1_2_or_3() {
        // The opening: he holds 1, 2, 3 and cards of decks 1 and 2; 4 or more is out of reach.
        let mut game = Game::new(Setup::new(1u64));
        game.apply(Role::Fugitive, Action::Place { hideout: c(2), sprints: Cards::EMPTY }).unwrap();
        let d = Deduction::of(&MarshalView::of(&game));
        // Each of 1, 2, 3 with any deal: 3 of deck 1's 11 cards, 2 of deck 2's 14.
        assert_eq!(d.worlds(), 3 * 165 * 91);
        assert!(d.exact());
        let numbers: Vec<u8> = d.positions()[0].candidates.iter().map(|c| c.number.number()).collect();
        assert_eq!(numbers, [1, 2, 3]);
        assert!((d.share(1, c(2)) - 1.0 / 3.0).abs() < 1e-12);
    }
}
