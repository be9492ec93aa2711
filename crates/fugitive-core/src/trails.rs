//! The trail count: how many trails fit the [`Evidence`], and per face-down position how many
//! put each number there. A *trail* gives every face-down position a number, by the rules of
//! `evidence.rs`; a face-down sprint stack is only counted (worth at most 2 per card) and its
//! cards are not identified, and the draws rule counts hideouts and known sprint cards only. A
//! number with no trail cannot be there by the public rules; the computer's exact count of
//! worlds (`fugitive-ai`) tries only the numbers this leaves.
//!
//! # How
//! A dynamic programme over the positions in trail order. Its state after position `i` is the
//! number there, how many hideouts so far come from that number's deck (the decks are ranges
//! in order, so an earlier deck's count never grows again and, with the limits of the draws
//! rule replaced by their minimum over the later positions, can be dropped), and one bit per
//! open wrong guess ([`Evidence::guess_step`]). Counting forward and backward gives each
//! position's numbers: at most 41 numbers × 15 counts × the open-guess bits per position, each
//! with at most `4 + 2k` successors. Counts are `u64`: there are fewer than 2^41 increasing
//! sequences of 1–41.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hash, Hasher};

use crate::card::Card;
use crate::deck::Deck;
use crate::evidence::Evidence;

/// The trails that fit some evidence ([`Evidence::count_trails`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TrailCount {
    /// How many trails fit (0 only for evidence no real game gives).
    pub trails: u64,
    /// Each face-down position, in trail order, with the numbers it can be.
    pub positions: Vec<PositionTrails>,
}

/// The numbers one face-down position can be, by the trail count.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PositionTrails {
    /// Trail position, 1 for the first hideout.
    pub position: usize,
    /// Each number with a trail, ascending, with how many trails put it here.
    pub numbers: Vec<(Card, u64)>,
}

/// The programme's state after a position (see the module documentation).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct State {
    number: u8,
    count: u8,
    open: u64,
}

impl Hash for State {
    fn hash<H: Hasher>(&self, hasher: &mut H) {
        hasher.write_u64(self.open.rotate_left(16) ^ u64::from(self.number) << 8 ^ u64::from(self.count));
    }
}

/// A small multiplicative hasher for the keys of the dynamic programmes over the trail (this
/// trail count's states, and `fugitive-ai`'s count of worlds): their keys are already
/// well-mixed bit fields, and a programme does a map lookup per transition, where the standard
/// library's SipHash was most of its time (the server makes the public candidates on the room's
/// actor, at each version).
#[derive(Clone, Copy, Debug, Default)]
pub struct TrailHasher(u64);

impl Hasher for TrailHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.write_u64(u64::from(b));
        }
    }
    fn write_u64(&mut self, x: u64) {
        self.0 = (self.0.rotate_left(5) ^ x).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    }
}

type Map<V> = HashMap<State, V, BuildHasherDefault<TrailHasher>>;

/// The deck of a number, if it is neither card 0 nor a fixed card (1, 2, 3, 42).
fn deck(number: u8) -> Option<Deck> {
    Card::new(number).and_then(Deck::of)
}

impl Evidence {
    /// Counts the trails that fit this evidence (see the module documentation).
    pub fn count_trails(&self) -> TrailCount {
        let n = self.positions().len();
        let start = State { number: 0, count: 0, open: self.all_open() };
        let mut forward: Vec<Map<u64>> = vec![Map::from_iter([(start, 1)])];
        if self.impossible() {
            forward[0].clear();
        }
        for i in 1..=n {
            // Sized for the layer before it and then some: growing a map (its rehash) was a
            // tenth of the count (perf, issue 28).
            let mut layer = Map::with_capacity_and_hasher(2 * forward[i - 1].len(), Default::default());
            for (&state, &count) in &forward[i - 1] {
                self.successors(i, state, |next| *layer.entry(next).or_insert(0) += count);
            }
            forward.push(layer);
        }
        let trails: u64 = forward[n].values().sum();
        // Backward: how many ways each state can be completed.
        let mut after: Map<u64> = forward[n].keys().map(|&s| (s, 1)).collect();
        let mut positions = Vec::new();
        for i in (1..=n).rev() {
            if self.positions()[i - 1].number.is_none() {
                let mut counts = [0u64; 42];
                for (state, &f) in &forward[i] {
                    counts[usize::from(state.number)] += f * after.get(state).copied().unwrap_or(0);
                }
                let numbers = (1..42u8)
                    .filter(|&h| counts[usize::from(h)] > 0)
                    .map(|h| (Card::new(h).expect("1 to 41"), counts[usize::from(h)]))
                    .collect();
                positions.push(PositionTrails { position: i, numbers });
            }
            let mut before = Map::with_capacity_and_hasher(forward[i - 1].len(), Default::default());
            for &state in forward[i - 1].keys() {
                let mut ways = 0;
                self.successors(i, state, |next| ways += after.get(&next).copied().unwrap_or(0));
                before.insert(state, ways);
            }
            after = before;
        }
        positions.reverse();
        TrailCount { trails, positions }
    }

    /// The successors of `state` at position `i` (1-based).
    fn successors(&self, i: usize, state: State, mut visit: impl FnMut(State)) {
        let position = &self.positions()[i - 1];
        let p = state.number;
        let top = p.saturating_add(position.most).min(41);
        let (low, high) = match position.number.map(Card::number) {
            Some(c) if c > p && c - p <= position.most => (c, c),
            Some(_) => return,
            None => (p + 1, top),
        };
        for h in low..=high {
            let card = Card::new(h).expect("1 to 42");
            let hidden = position.number.is_none();
            if hidden && (self.excluded().contains(card) || position.forbidden.contains(card)) {
                continue;
            }
            let count = match deck(h) {
                None => 0,
                Some(d) if deck(p) == Some(d) => state.count + 1,
                Some(_) => 1,
            };
            if deck(h).is_some_and(|d| i64::from(count) > position.cap[d.index()]) {
                continue;
            }
            if let Some(open) = self.guess_step(i, p, h, state.open) {
                visit(State { number: h, count, open });
            }
        }
    }
}
