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
//!
//! # The numbers alone
//! The candidates ([`View::candidates`](crate::View::candidates), made on a server's room at
//! each version, issue 28) need only which numbers have a trail, never how many.
//! [`Evidence::trail_numbers`] gives them by the same programme, its rules in one place
//! ([`Evidence::successors`]), over sets of states instead of counts: after each position, per
//! open-guess bits that occur, per number, the set of its deck's counts reached as the bits of
//! a `u16` (a [`Tally`] moves a whole set at once). Forward, the states some trail reaches;
//! backward, of those, the ones a trail goes on from to the end. A number is at a position
//! exactly when a state with it there is both, which is exactly when the count gives it
//! trails there (`tests/it/candidates.rs` compares the two over random games).

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hash, Hasher};
use std::ops::ControlFlow;

use crate::candidates::PositionNumbers;
use crate::card::{Card, Cards};
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

/// The states of [`Evidence::trail_numbers`] after a position with the same open-guess bits:
/// per number (0–42), the set of counts reached ([`Tally`]), and the numbers with one.
#[derive(Clone, Copy, Debug)]
struct Row {
    open: u64,
    numbers: u64,
    counts: [u16; 43],
}

impl Row {
    fn new(open: u64) -> Row {
        Row { open, numbers: 0, counts: [0; 43] }
    }

    /// Adds the counts `counts` (none: nothing) at `number`.
    fn add(&mut self, number: u8, counts: u16) {
        if counts != 0 {
            self.counts[usize::from(number)] |= counts;
            self.numbers |= 1 << number;
        }
    }

    /// Each number with a count reached, and its counts.
    fn states(&self) -> impl Iterator<Item = (u8, u16)> + '_ {
        numbers(self.numbers).map(|number| (number, self.counts[usize::from(number)]))
    }
}

/// The numbers of the bits set in `mask`, ascending.
fn numbers(mut mask: u64) -> impl Iterator<Item = u8> {
    std::iter::from_fn(move || {
        let number = (mask != 0).then(|| mask.trailing_zeros() as u8)?;
        mask &= mask - 1;
        Some(number)
    })
}

/// The rows of the position [`Evidence::trail_numbers`] is reaching, found by their open-guess
/// bits; kept from one position to the next, so that its storage is allocated once.
#[derive(Default)]
struct Reaching {
    rows: Vec<Row>,
    /// Where each row is, once there are more than [`Reaching::FEW`].
    index: HashMap<u64, usize, BuildHasherDefault<TrailHasher>>,
    /// The row found last: the hideouts after one state mostly keep its open-guess bits.
    last: usize,
}

impl Reaching {
    /// The most rows searched one by one: most evidence has no open guess (one row), the long
    /// games with many have hundreds.
    const FEW: usize = 8;

    /// The row of the open-guess bits `open`, added empty if none was reached yet.
    fn row(&mut self, open: u64) -> &mut Row {
        if self.rows.get(self.last).is_none_or(|row| row.open != open) {
            let found = match self.rows.len() {
                ..=Reaching::FEW => self.rows.iter().position(|row| row.open == open),
                _ => self.index.get(&open).copied(),
            };
            self.last = found.unwrap_or_else(|| {
                self.rows.push(Row::new(open));
                if self.rows.len() > Reaching::FEW {
                    let indexed = self.index.len();
                    self.index.extend(self.rows[indexed..].iter().map(|row| row.open).zip(indexed..));
                }
                self.rows.len() - 1
            });
        }
        &mut self.rows[self.last]
    }

    /// Moves the rows reached to the end of `into`, sorted by their open-guess bits (for
    /// [`find`]), and starts the next position.
    fn finish(&mut self, into: &mut Vec<Row>) {
        self.rows.sort_unstable_by_key(|row| row.open);
        into.append(&mut self.rows);
        self.index.clear();
        self.last = 0;
    }
}

/// The row of the open-guess bits `open` among `rows`, sorted by them.
fn find(rows: &[Row], open: u64) -> Option<&Row> {
    rows.binary_search_by_key(&open, |row| row.open).ok().map(|r| &rows[r])
}

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
                self.next_states(i, state, |next| *layer.entry(next).or_insert(0) += count);
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
                self.next_states(i, state, |next| ways += after.get(&next).copied().unwrap_or(0));
                before.insert(state, ways);
            }
            after = before;
        }
        positions.reverse();
        TrailCount { trails, positions }
    }

    /// Each face-down position, in trail order, with the numbers at least one trail puts
    /// there: the numbers of [`Evidence::count_trails`] without their counts, by the same
    /// programme over sets of states (see the module documentation).
    pub fn trail_numbers(&self) -> Vec<PositionNumbers> {
        let n = self.positions().len();
        // Every position's rows one after the other, those of position `i` from `starts[i]`.
        let mut rows = Vec::with_capacity(n + 1);
        let mut starts = vec![0];
        if !self.impossible() {
            let mut start = Row::new(self.all_open());
            start.add(0, 1);
            rows.push(start);
        }
        let mut reaching = Reaching::default();
        for i in 1..=n {
            starts.push(rows.len());
            for row in &rows[starts[i - 1]..starts[i]] {
                for (p, counts) in row.states() {
                    self.successors(i, p, row.open, |h, tally, open| {
                        let after = tally.forward(counts);
                        if after != 0 {
                            reaching.row(open).add(h, after);
                        }
                        ControlFlow::Continue(())
                    });
                }
            }
            reaching.finish(&mut rows);
        }
        // Backward: of the states reached, those a trail goes on from to the end.
        let mut after = rows[starts[n]..].to_vec();
        let mut before = Vec::with_capacity(after.len());
        let mut positions = Vec::new();
        for i in (1..=n).rev() {
            if self.positions()[i - 1].number.is_none() {
                let reached = after.iter().fold(0, |all, row| all | row.numbers);
                let numbers = numbers(reached).filter_map(Card::new).collect();
                positions.push(PositionNumbers { position: i, numbers });
            }
            before.clear();
            for row in &rows[starts[i - 1]..starts[i]] {
                let mut ongoing = Row::new(row.open);
                for (p, counts) in row.states() {
                    let mut on = 0;
                    self.successors(i, p, row.open, |h, tally, open| {
                        if let Some(next) = find(&after, open) {
                            on |= tally.backward(next.counts[usize::from(h)]);
                        }
                        // Every count of `p` goes on: no need to look further.
                        if counts & !on == 0 { ControlFlow::Break(()) } else { ControlFlow::Continue(()) }
                    });
                    ongoing.add(p, counts & on);
                }
                before.push(ongoing);
            }
            std::mem::swap(&mut after, &mut before);
        }
        positions.reverse();
        positions
    }

    /// The states that follow `state` at position `i` (1-based), by [`Evidence::successors`].
    fn next_states(&self, i: usize, state: State, mut visit: impl FnMut(State)) {
        self.successors(i, state.number, state.open, |number, tally, open| {
            if let Some(count) = tally.after(state.count) {
                visit(State { number, count, open });
            }
            ControlFlow::Continue(())
        });
    }

    /// The hideouts that may follow the number `p` at position `i` (1-based), given the
    /// open-guess bits `open`: each number `h` there, what it does to the count of its deck's
    /// hideouts, and the open-guess bits after it, until `visit` breaks off. The rules of the
    /// programme, for the count and for the numbers alike.
    fn successors(
        &self,
        i: usize,
        p: u8,
        open: u64,
        mut visit: impl FnMut(u8, Tally, u64) -> ControlFlow<()>,
    ) {
        let position = &self.positions()[i - 1];
        let numbers = match position.number {
            Some(c) if c.number() > p && c.number() - p <= position.most => Cards::from(c),
            Some(_) => return,
            // Within the reach, less the numbers no face-down hideout (or none here) can be.
            None => Cards::range(p + 1, p.saturating_add(position.most).min(41))
                .difference(self.excluded().union(position.forbidden)),
        };
        let from = deck(p);
        for card in numbers {
            let h = card.number();
            let tally = match Deck::of(card) {
                None => Tally::Fixed,
                Some(d) if from == Some(d) => Tally::Next { allowed: counts_up_to(position.cap[d.index()]) },
                Some(d) if position.cap[d.index()] < 1 => continue,
                Some(_) => Tally::First,
            };
            if let Some(open) = self.guess_step(i, p, h, open)
                && visit(h, tally, open).is_break()
            {
                return;
            }
        }
    }
}

/// What a hideout does to the count of the hideouts so far from its deck (rule 3 of
/// `evidence.rs`), on a set of counts: bit `c` for `c` hideouts (at most 14, a deck's size).
/// The trail count follows one count, the numbers pass every count reached at once.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Tally {
    /// A fixed card (1, 2, 3, 42): no deck, count 0.
    Fixed,
    /// The first from its deck after another deck's number: count 1 (its deck allows one).
    First,
    /// The same deck as the number before: one more, within `allowed`.
    Next { allowed: u16 },
}

impl Tally {
    /// The counts after the hideout, from the counts before it.
    fn forward(self, before: u16) -> u16 {
        match self {
            _ if before == 0 => 0,
            Tally::Fixed => 1,
            Tally::First => 1 << 1,
            Tally::Next { allowed } => before << 1 & allowed,
        }
    }

    /// The counts before the hideout from which [`Tally::forward`] reaches one of `after`.
    fn backward(self, after: u16) -> u16 {
        match self {
            Tally::Fixed if after & 1 != 0 => u16::MAX,
            Tally::First if after & 1 << 1 != 0 => u16::MAX,
            Tally::Fixed | Tally::First => 0,
            Tally::Next { allowed } => (after & allowed) >> 1,
        }
    }

    /// The count after the hideout from the count `before`, if its deck allows one more.
    fn after(self, before: u8) -> Option<u8> {
        let after = self.forward(1 << before);
        (after != 0).then(|| after.trailing_zeros() as u8)
    }
}

/// The counts `0..=cap` (every count for a cap past a deck's size).
fn counts_up_to(cap: i64) -> u16 {
    match cap {
        ..0 => 0,
        0..15 => (1 << (cap + 1)) - 1,
        _ => u16::MAX,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A set of counts moves as each of its counts does, and backward gives exactly the counts
    /// whose move meets the set after: the numbers pass moves sets as the count moves one
    /// count (rule 3 of `evidence.rs`).
    #[test]
    fn a_tally_moves_a_set_of_counts_as_each_count() {
        let tallies = [Tally::Fixed, Tally::First]
            .into_iter()
            .chain((-1..=16).map(|cap| Tally::Next { allowed: counts_up_to(cap) }));
        for tally in tallies {
            for before in [0u16, 1, 0b1010, 0x7fff, 0x4001, 0x0ff0] {
                let each =
                    (0..15).filter(|c| before & 1 << c != 0).fold(0, |all, c| all | tally.forward(1 << c));
                assert_eq!(tally.forward(before), each, "{tally:?} {before:#x}");
            }
            for count in 0..15u8 {
                let moved = tally.after(count);
                for after in 0..16 {
                    let meets = tally.forward(1 << count) & 1 << after != 0;
                    assert_eq!(
                        tally.backward(1 << after) & 1 << count != 0,
                        meets,
                        "{tally:?} {count} {after}"
                    );
                    assert_eq!(moved == Some(after), meets, "{tally:?} {count} {after}");
                }
            }
        }
    }
}
