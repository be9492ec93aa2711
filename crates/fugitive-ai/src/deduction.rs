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
//! The count before issue 15, kept as a fast bound ([`Deduction::trails_only`]): a *trail*
//! gives every face-down position a number, with rules 1, 2 and 4 for the hideouts alone;
//! a face-down sprint stack of `k` cards is only counted, worth at most `2k` (reach `3 + 2k`),
//! and its cards are not identified; rule 3 counts hideouts and revealed sprint cards only
//! (for every position `i` and deck `d`, those of positions `1..=i` from `d` number at most
//! what he had taken from `d` when he placed `i`). Every consistent world has a consistent
//! trail, so a number the bound rules out has no world: the exact count only tries the
//! numbers the bound allows. [`Deduction::of`] gives the bound instead (and says so:
//! [`Deduction::exact`] is `false`) in two cases: in a game with an event variant, and when
//! the exact count needs more than 200,000 steps or its counts overflow `u128`
//! (`worlds.rs`, `BUDGET`).
//!
//! **Events** (`EVENTS.md`): with an event variant the bound is used. Its reach uses the
//! trail events: a hideout on an F1 Safe House
//! space may lie `5 + S` above, on an M1 Roadblock space at most 3 (sprint cards an F5 Smoke
//! Screen added later never counted). Sprint cards shown by M2 Informant count like revealed
//! ones; a position that got a Smoke Screen card counts its sprint cards only for the reach
//! (the added card may have been drawn after the placement, so the draws rule leaves them out).
//! Draws caused by events are `drew` entries like any other; M4 Dragnet's guesses are guesses.
//! The rest is left out, which only ever allows more trails, never fewer: the counts of M3
//! Stakeout, M6 Eyewitness's group, the top card the Marshal saw with N5 Town Gossip,
//! and the cards returned to a deck by F4 Bad Intel or N6 Change of Plans (a card leaving the
//! Marshal's hand is no longer ruled out). [`Deduction::ignored_events`] names those drawn so far.
//!
//! Everything is read from the [`MarshalView`].
//!
//! # How
//! The worlds: see `worlds.rs`. The bound: a dynamic programme over the positions in trail
//! order. Its state after position `i` is the number there, how many hideouts so far come from that number's deck (the decks are
//! ranges in order, so an earlier deck's count never grows again and, with the limits of the draws
//! rule replaced by their minimum over the later positions, can be dropped), and one bit per
//! multi-number wrong guess still open: "every number of the guess up to here is on the
//! trail". Counting forward and backward gives each position's numbers. At most 41 numbers ×
//! 15 counts × the open-guess bits per position, each with at most `4 + 2k` successors. Counts
//! are `u64`: there are fewer than 2^41 increasing sequences of 1–41.

use std::collections::HashMap;

use fugitive_core::{Card, Cards, Deck, Event, EventCard, Role, TrailEffect};
use serde::{Deserialize, Serialize};

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
        let evidence = Evidence::read(view);
        let bound = evidence.solve();
        let worlds = match crate::worlds::between_opening_placements(view.view()) {
            Some(worlds) => Some(worlds),
            None if evidence.events => None,
            None => crate::worlds::count(&evidence, &allowed(&bound, evidence.slots.len())),
        };
        let mut deduction = worlds.map_or(bound, from_worlds);
        deduction.ignored_events = ignored_events(view);
        deduction
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
    /// fast bound the exact count prunes with and falls back to.
    pub fn trails_only(view: &MarshalView) -> Deduction {
        let mut deduction = Evidence::read(view).solve();
        deduction.ignored_events = ignored_events(view);
        deduction
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

/// Per position, the numbers the trail count `bound` leaves (the exact count tries no other).
fn allowed(bound: &Deduction, n: usize) -> Vec<Cards> {
    (1..=n)
        .map(|i| {
            let p = bound.positions.iter().find(|p| p.position == i);
            p.map(|p| p.candidates.iter().map(|c| c.number).collect()).unwrap_or_default()
        })
        .collect()
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

/// The trail event under each of positions 1..=n (E4).
fn trail_effects(view: &fugitive_core::View, n: usize) -> Vec<Option<TrailEffect>> {
    let events = view.events.as_ref().map(|e| e.trail.as_slice()).unwrap_or_default();
    (1..=n).map(|p| events.iter().find(|t| t.position == p).map(|t| t.effect)).collect()
}

/// Where a number's card comes from: 0 for card 0, 1–3 and 42 (never drawn), else its deck.
fn source(number: u8) -> usize {
    Card::new(number).and_then(Deck::of).map_or(0, |d| d.number() as usize)
}

/// The most open multi-number wrong guesses the programme keeps (one bit each in [`State`]);
/// older ones beyond it are left out (rule 4).
const MAX_OPEN_GUESSES: usize = 32;

/// What the Fugitive holds of deck `d` (1–3) at the start (R3).
const DEALT: [i64; 4] = [0, 3, 2, 0];

/// One position of the trail as the Marshal knows it.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Slot {
    /// The number, if face up.
    pub(crate) number: Option<u8>,
    /// The most it may lie above the previous position (rule 2).
    reach: u8,
    /// How far it may lie above the previous position without sprint cards: 3, or 5 on an F1
    /// Safe House space.
    pub(crate) base: u8,
    /// How many sprint cards lie under it.
    pub(crate) sprint_count: u8,
    /// Its sprint cards, once revealed (never under 42 while the game runs, R11).
    pub(crate) sprints: Option<Cards>,
    /// Numbers it can't be because of wrong single-number guesses.
    pub(crate) forbidden: Cards,
    /// Per deck, the most hideouts from it among positions up to here (rule 3), already the
    /// minimum over the later positions.
    cap: [i64; 4],
    /// Per deck (1–3), the cards he had taken from it when he placed this position: the deal
    /// and his draws before it (R3, R8a).
    pub(crate) had: [i64; 4],
}

/// A wrong guess of two or more numbers that are still unknown, made when the trail had
/// `horizon` positions (rule 4).
#[derive(Clone, Copy, Debug)]
struct OpenGuess {
    numbers: Cards,
    horizon: usize,
}

/// The evidence of the rules above, read from the view.
#[derive(Clone, Debug)]
pub(crate) struct Evidence {
    pub(crate) slots: Vec<Slot>,
    /// Her hand and every number face up on the trail.
    pub(crate) excluded: Cards,
    /// Her hand.
    pub(crate) hand: Cards,
    /// Per deck (1–3), the cards he has taken from it: the deal and every draw (R3, R8a).
    pub(crate) taken: [i64; 4],
    /// Whether the game has an event variant (the exact count leaves those games to the bound).
    pub(crate) events: bool,
    guesses: Vec<OpenGuess>,
    /// A wrong guess that no trail can explain: only hand-built views have one.
    pub(crate) impossible: bool,
}

impl Evidence {
    fn read(view: &MarshalView) -> Evidence {
        let view = view.view();
        let trail = &view.trail[1..];
        let n = trail.len();
        let excluded = view.hands.marshal.cards.unwrap_or_default().union(view.face_up());
        // Rule 4: what he had from each deck at each placement, less revealed sprint cards.
        let mut drawn = DEALT;
        let mut had = vec![[i64::MAX; 4]; n];
        // Rule 5: each wrong guess with the trail length and the face-down positions then.
        let mut placed = 0;
        let mut revealed_before = vec![false; n + 1];
        let mut wrong = Vec::new();
        let mut smoke = vec![false; n + 1];
        for event in &view.history {
            match *event {
                Event::SprintAdded { position, .. } if position <= n => smoke[position] = true,
                Event::Drew { role: Role::Fugitive, deck, .. } => drawn[deck.number() as usize] += 1,
                Event::Placed { position, .. } if (1..=n).contains(&position) => {
                    placed = position;
                    had[position - 1][1..].copy_from_slice(&drawn[1..]);
                }
                Event::Revealed { position, .. } if position <= n => revealed_before[position] = true,
                Event::Guessed { numbers, right: false } => {
                    let hidden: Vec<bool> = (0..=placed).map(|i| i > 0 && !revealed_before[i]).collect();
                    wrong.push((numbers, hidden));
                }
                _ => {}
            }
        }
        let mut used = [0i64; 4];
        let effects = trail_effects(view, n);
        let mut slots: Vec<Slot> = trail
            .iter()
            .zip(&had)
            .enumerate()
            .map(|(i, (card, had))| {
                let sprints = card.sprints.unwrap_or_default();
                if !smoke[i + 1] {
                    for s in sprints {
                        used[source(s.number())] += 1;
                    }
                }
                let value = match (effects[i], card.sprints) {
                    (Some(TrailEffect::Roadblock), _) => 0,
                    (_, Some(s)) => s.sprint_value(),
                    (_, None) => 2 * card.sprint_count.min(20) as u8,
                };
                let base = if effects[i] == Some(TrailEffect::SafeHouse) { 5 } else { 3 };
                let mut cap = [i64::MAX; 4];
                for d in 1..4 {
                    cap[d] = had[d] - used[d];
                }
                let number = card.card.filter(|_| card.face_up).map(Card::number);
                Slot {
                    number,
                    reach: base + value,
                    base,
                    sprint_count: card.sprint_count.min(40) as u8,
                    sprints: card.sprints.filter(|_| number.is_some_and(|n| n != 42)),
                    forbidden: Cards::EMPTY,
                    cap,
                    had: *had,
                }
            })
            .collect();
        for i in (0..n.saturating_sub(1)).rev() {
            for d in 1..4 {
                slots[i].cap[d] = slots[i].cap[d].min(slots[i + 1].cap[d]);
            }
        }
        let hand = view.hands.marshal.cards.unwrap_or_default();
        let events = !view.rules.events.is_off();
        let mut evidence =
            Evidence { slots, excluded, hand, taken: drawn, events, guesses: Vec::new(), impossible: false };
        for (numbers, hidden) in wrong {
            evidence.add_wrong_guess(numbers, &hidden);
        }
        evidence.keep_open_guesses(MAX_OPEN_GUESSES);
        evidence
    }

    /// Merges the open guesses and keeps at most `budget` of them, dropping the oldest
    /// evidence first: a guess implied by another one adds nothing (the same numbers named
    /// again when the trail was longer, or a subset of them named when it was at least as
    /// long), and a dropped guess only ever allows more trails, so the true one stays counted.
    fn keep_open_guesses(&mut self, budget: usize) {
        let guesses = std::mem::take(&mut self.guesses);
        // `a` implies `b`: every trail `a` rules out, `b` rules out too.
        let implies = |a: &OpenGuess, b: &OpenGuess| a.numbers.is_subset(b.numbers) && a.horizon >= b.horizon;
        for (i, guess) in guesses.iter().enumerate() {
            let implied = guesses
                .iter()
                .enumerate()
                .any(|(j, other)| j != i && implies(other, guess) && (!implies(guess, other) || j > i));
            if !implied {
                self.guesses.push(*guess);
            }
        }
        let dropped = self.guesses.len().saturating_sub(budget);
        self.guesses.drain(..dropped);
    }

    /// Rule 5 for one wrong guess; `hidden[i]` says position `i` was face down then.
    fn add_wrong_guess(&mut self, numbers: Cards, hidden: &[bool]) {
        let horizon = hidden.len() - 1;
        let mut open = Cards::EMPTY;
        for g in numbers {
            let known = self.slots.iter().position(|s| s.number == Some(g.number())).map(|i| i + 1);
            match known {
                // Face up now, and face down within the first `horizon` positions then: it was
                // one of the hideouts, so the guess was wrong elsewhere.
                Some(i) if i <= horizon && hidden[i] => {}
                // Face up elsewhere, or a card that is no hideout: this number made it wrong.
                Some(_) => return,
                None if self.excluded.contains(g) || g.number() > 41 => return,
                None => {
                    open.insert(g);
                }
            }
        }
        match open.len() {
            0 => self.impossible = true,
            1 => {
                for (i, slot) in self.slots.iter_mut().enumerate().take(horizon) {
                    if hidden[i + 1] {
                        slot.forbidden = slot.forbidden.union(open);
                    }
                }
            }
            _ => self.guesses.push(OpenGuess { numbers: open, horizon }),
        }
    }

    /// The successors of `state` at position `i` (1-based): each with its number.
    fn successors(&self, i: usize, state: State, mut visit: impl FnMut(State)) {
        let slot = &self.slots[i - 1];
        let p = state.number;
        let top = p.saturating_add(slot.reach).min(41);
        let (low, high) = match slot.number {
            Some(c) if c > p && c - p <= slot.reach => (c, c),
            Some(_) => return,
            None => (p + 1, top),
        };
        for h in low..=high {
            let card = Card::new(h).expect("1 to 42");
            if slot.number.is_none() && (self.excluded.contains(card) || slot.forbidden.contains(card)) {
                continue;
            }
            let d = source(h);
            let count = match d {
                0 => 0,
                _ if d == source(p) => state.count + 1,
                _ => 1,
            };
            if d != 0 && i64::from(count) > slot.cap[d] {
                continue;
            }
            if let Some(open) = self.guess_step(i, p, h, state.open) {
                visit(State { number: h, count, open });
            }
        }
    }

    /// Rule 5 from the hideout `p` before position `i` to `h` there: the open-guess bits
    /// after it, or `None` when a wrong guess would have been right.
    pub(crate) fn guess_step(&self, i: usize, p: u8, h: u8, mut open: u64) -> Option<u64> {
        let mut rejected = false;
        for (bit, guess) in self.guesses.iter().enumerate() {
            if open & (1 << bit) == 0 || guess.horizon < i {
                continue;
            }
            // The guess's numbers strictly between the two positions were skipped.
            let between = (1u64 << h) - (1u64 << (p + 1));
            let still = guess.numbers.bits() & between == 0;
            if guess.horizon == i {
                rejected |= still && guess.numbers.last().is_some_and(|g| g.number() <= h);
                open &= !(1 << bit);
            } else if !still {
                open &= !(1 << bit);
            }
        }
        (!rejected).then_some(open)
    }

    /// The open-guess bits before the first position: every open guess still possible.
    pub(crate) fn all_open(&self) -> u64 {
        (1u64 << self.guesses.len()) - 1
    }

    fn solve(&self) -> Deduction {
        let n = self.slots.len();
        let start = State { number: 0, count: 0, open: self.all_open() };
        let mut forward: Vec<HashMap<State, u64>> = vec![HashMap::from([(start, 1)])];
        if self.impossible {
            forward[0].clear();
        }
        for i in 1..=n {
            let mut layer = HashMap::new();
            for (&state, &count) in &forward[i - 1] {
                self.successors(i, state, |next| *layer.entry(next).or_insert(0) += count);
            }
            forward.push(layer);
        }
        let trails: u64 = forward[n].values().sum();
        // Backward: how many ways each state can be completed.
        let mut after: HashMap<State, u64> = forward[n].keys().map(|&s| (s, 1)).collect();
        let mut positions = Vec::new();
        for i in (1..=n).rev() {
            if self.slots[i - 1].number.is_none() {
                let mut counts = [0u64; 42];
                for (state, &f) in &forward[i] {
                    counts[state.number as usize] += f * after.get(state).copied().unwrap_or(0);
                }
                let candidates = (1..42)
                    .filter(|&h| counts[h] > 0)
                    .map(|h| Candidate {
                        number: Card::new(h as u8).expect("1 to 41"),
                        worlds: u128::from(counts[h]),
                    })
                    .collect();
                positions.push(PositionCandidates { position: i, candidates });
            }
            let mut before = HashMap::new();
            for &state in forward[i - 1].keys() {
                let mut ways = 0;
                self.successors(i, state, |next| ways += after.get(&next).copied().unwrap_or(0));
                before.insert(state, ways);
            }
            after = before;
        }
        positions.reverse();
        Deduction { worlds: u128::from(trails), positions, exact: false, ignored_events: Vec::new() }
    }
}

/// The programme's state after a position (see the module documentation).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
struct State {
    number: u8,
    count: u8,
    open: u64,
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
