//! The notepad counted over complete worlds (the base game): see `deduction.rs` for what a
//! world is.
//!
//! # How
//! A dynamic programme over the positions in trail order, like the trail count, whose
//! transitions also choose each hidden sprint stack's *classes*: a class is a deck (0 for the
//! fixed cards 1–3, then decks 1–3) and a parity (even +2, odd +1), 8 in all. Which cards of a
//! class the hidden sprint cards are, and which of his deal and draws each placed card was, are
//! counted with binomials and falling factorials instead of being enumerated:
//!
//! - **Draws.** The cards he took from deck `d` are slots in time order (the deal's three or
//!   two first). A card placed at position `i` fills a slot taken before `i`: with `U` cards of
//!   `d` placed before, `N` slots taken by then and `n` cards of `d` placed at `i`, there are
//!   `(N − U)(N − U − 1)…(N − U − n + 1)` ways. The slots never placed hold any of the cards of
//!   `d` left (not hers, not placed): `(A − p)` falling `(m − p)` ways at the end. The deal is a
//!   set, not a sequence, so the total is divided by `3! · 2!`.
//! - **Sprint identities.** A class's hidden sprint cards are any of its cards that are not
//!   ruled out (hers, face up) and not a hidden hideout of the class: `C(X − a, b)` sets, split
//!   among the positions in `b! / Π bᵢ!` ways. Hideouts increase, so a deck's hideouts are one
//!   run of positions: once the trail's last hideout is above deck `d`, `a` is final for its
//!   classes and each later sprint stack takes `C(X − used, bᵢ)` of what is left. Before that
//!   the state keeps `used = a + b` per class and `a` for the current deck, and the
//!   `C(X − a, b)` is taken when the trail leaves the deck (or at the end).
//!
//! A hidden sprint stack of more than two cards is chosen one class at a time ([`SprintClass`]):
//! eight small steps, each taking some of the stack's cards from one class with that class's
//! factor, instead of one step over every split of the stack among the eight classes
//! (`C(k + 7, 7)` of them, 3,432 for 7 cards, which made random play's long stacks outgrow the
//! budget); the states between the steps keep the cards left to choose and the value so far.
//!
//! Two shortcuts leave out states that change no count ([`Shortcuts`], checked against the
//! count without them): a state of a stack chosen class by class is dropped as soon as the
//! classes after it cannot take its cards left or add the value it needs (each deck at most the
//! cards of it he still held); and the last position's hidden stack is chosen after its
//! hideout, each deck's end factors taken as soon as its two classes are chosen, so its counts
//! leave the state ([`Fold`]). In random play the last stack was where the states multiplied.
//!
//! The state after a position is the hideout there, `used` of the 8 classes, `a` of the
//! current deck's two classes, and the open-guess bits of the trail count. Forward and backward
//! passes give each position's numbers. Only the numbers the trail count allows are tried
//! (it is a relaxation: a number with no consistent trail has no world). Counts are `u128`
//! with checked arithmetic; an overflow or more than [`BUDGET`] transitions gives `None`, and
//! the caller falls back to the trail count. Each layer's transitions are counted before any
//! is made, so a state that outgrows the budget gives up at the start of the layer that would
//! cross it rather than at its end (the same states give up: the count is the same).

use fugitive_core::{Card, Cards, Deck, Evidence, Reach, can_place};

use hashbrown::HashTable;
use hashbrown::hash_table::Entry;

use crate::facts::{Between, Facts, KnownDraw, KnownStack, MAX_SMOKES, deck_number};

/// A hidden sprint stack with more splits among the classes than this is chosen class by
/// class ([`SprintClass`]); the splits of up to 2 cards (36 at most) are made at once.
const MOST_SPLITS: usize = 36;

/// How a position's sprint stack is chosen: one of these splits (its classes or its known
/// cards), or class by class (`k` hidden cards, at most `room[c]` of class `c`).
enum Stacks {
    Splits(Vec<Stack>),
    Classes(u8, [u8; 8]),
}

/// The most transitions the exact count makes before it gives up (the fast bound is used).
/// 300,000 since each step got about a third cheaper (`Layer`): the p99 per state of random
/// play stays about the old budget's (200,000), and the fallback in 100 random games without
/// events fell from 5.1 to 2.9 % (`BENCHMARKS.md`, stop 34).
pub(crate) const BUDGET: usize = 300_000;

/// The exact count: worlds in all and, per face-down position, per number.
#[derive(Clone, Debug)]
pub(crate) struct Worlds {
    pub(crate) total: u128,
    /// For each face-down position (1-based), the worlds with each number 0–41 there.
    pub(crate) positions: Vec<(usize, [u128; 42])>,
}

/// The deck of a number: 0 for card 0 and 1–3, 1–3 for the decks, 4 for 42.
fn deck(n: u8) -> usize {
    match n {
        0..=3 => 0,
        4..=14 => 1,
        15..=28 => 2,
        29..=41 => 3,
        _ => 4,
    }
}

/// The deck numbered `d` (1–3), as [`deck`] numbers them.
fn of_deck(d: usize) -> Deck {
    Deck::ALL[d - 1]
}

/// The class of a card that can be a hidden hideout or sprint card (1–41).
fn class(n: u8) -> usize {
    2 * deck(n) + usize::from(n % 2)
}

/// A class's sprint value.
fn value(class: usize) -> u8 {
    if class % 2 == 1 { 1 } else { 2 }
}

/// `C(n, k)` for `n < 64` (all below `2^63`), built at compile time: the programme takes
/// several binomials per transition, and computing each with `u128` divisions was a tenth of
/// its time (perf).
static BINOMIALS: [[u64; 64]; 64] = {
    let mut table = [[0u64; 64]; 64];
    let mut n = 0;
    while n < 64 {
        table[n][0] = 1;
        let mut k = 1;
        while k <= n {
            table[n][k] = table[n - 1][k - 1] + table[n - 1][k];
            k += 1;
        }
        n += 1;
    }
    table
};

/// `n (n − 1) … (n − k + 1)` for `n ≤ 20` (all below `20! < 2^62`), for the same reason.
static FALLING: [[u64; 21]; 21] = {
    let mut table = [[0u64; 21]; 21];
    let mut n = 0;
    while n < 21 {
        table[n][0] = 1;
        let mut k = 1;
        while k <= n {
            table[n][k] = table[n][k - 1] * (n - k + 1) as u64;
            k += 1;
        }
        n += 1;
    }
    table
};

fn binomial(n: i64, k: i64) -> u128 {
    if k < 0 || n < k {
        return 0;
    }
    if n < 64 {
        return u128::from(BINOMIALS[n as usize][k as usize]);
    }
    let mut r: u128 = 1;
    for j in 0..k {
        // Exact at every step: r · (n − j) / (j + 1) is C(n, j + 1).
        r = r * (n - j) as u128 / (j + 1) as u128;
    }
    r
}

/// `a · b`, checked. Counts and weights nearly always fit in 64 bits, and a 64 × 64-bit
/// product cannot overflow 128 bits: one multiply instead of `u128::checked_mul`'s wide one
/// and its overflow test (a sixth of the programme's time, perf).
fn mul(a: u128, b: u128) -> Option<u128> {
    match (u64::try_from(a), u64::try_from(b)) {
        (Ok(a), Ok(b)) => Some(u128::from(a) * u128::from(b)),
        _ => a.checked_mul(b),
    }
}

fn falling(n: i64, k: i64) -> Option<u128> {
    if k < 0 || n < k {
        return Some(0);
    }
    if n < 21 {
        return Some(u128::from(FALLING[n as usize][k as usize]));
    }
    (0..k).try_fold(1u128, |r, j| r.checked_mul((n - j) as u128))
}

/// The mask of the numbers above `p` up to `top` (bit `h` for number `h`).
fn between_mask(p: u8, top: u8) -> u64 {
    if top <= p { 0 } else { (u64::MAX >> (63 - top)) & !(u64::MAX >> (63 - p)) }
}

/// The numbers of a mask, ascending.
fn bits(mut mask: u64) -> impl Iterator<Item = u8> {
    std::iter::from_fn(move || {
        let h = mask.trailing_zeros() as u8;
        mask &= mask.wrapping_sub(1);
        (h < 64).then_some(h)
    })
}

/// The programme's state (see the module documentation), packed: the hideout in bits 0–5,
/// `used` of class `c` in bits `8 + 4c`, `a` of the current deck's even and odd class in bits
/// 40 and 44; and the open-guess bits.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Key(u64, u64);

impl Key {
    /// Both words mixed into one hash whose every bit depends on every field. The table indexes
    /// by the hash's low bits: a multiplicative hash of the words as they are (the core's
    /// `TrailHasher`) left those depending on the low fields only (the hideout, the fixed cards'
    /// classes, the open-guess bits), so the states that differ in the other classes' counts
    /// crowded a few slots, and probing them was most of the programme's time (perf).
    fn hash(self) -> u64 {
        let mut x = self.0.wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ self.1;
        x = (x ^ (x >> 32)).wrapping_mul(0xd6e8_feb8_6659_fd93);
        x ^ (x >> 32)
    }
}

impl Key {
    fn new(h: u8, used: &[u8; 8], a: [u8; 2], open: u64) -> Key {
        let mut packed = u64::from(h) | u64::from(a[0]) << 40 | u64::from(a[1]) << 44;
        for (c, &u) in used.iter().enumerate() {
            packed |= u64::from(u) << (8 + 4 * c);
        }
        Key(packed, open)
    }
    fn h(self) -> u8 {
        (self.0 & 0x3f) as u8
    }
    fn used(self) -> [u8; 8] {
        std::array::from_fn(|c| ((self.0 >> (8 + 4 * c)) & 0xf) as u8)
    }
    fn a(self) -> [u8; 2] {
        [((self.0 >> 40) & 0xf) as u8, ((self.0 >> 44) & 0xf) as u8]
    }
}

/// One class vector of a hidden sprint stack: how many cards of each class, and their value.
#[derive(Clone, Copy, Debug)]
struct Stack {
    counts: [u8; 8],
    value: u8,
    /// Per deck (1–3), its known cards placed with the hideout.
    public: [u8; 4],
    /// Per smoke slot, the deck of the known card it is (see [`Key::pending`]).
    pending: [u8; 2],
}

/// Every way to split `k` sprint cards among the classes, each at most `room[c]`, the highest
/// values first.
fn stacks(k: u8, room: &[u8; 8]) -> Vec<Stack> {
    fn go(c: usize, left: u8, counts: &mut [u8; 8], room: &[u8; 8], out: &mut Vec<Stack>) {
        if c == 8 {
            if left == 0 {
                let value = (0..8).map(|c| counts[c] * value(c)).sum();
                out.push(Stack { counts: *counts, value, public: [0; 4], pending: [0; 2] });
            }
            return;
        }
        for b in 0..=left.min(room[c]) {
            counts[c] = b;
            go(c + 1, left - b, counts, room, out);
        }
        counts[c] = 0;
    }
    let mut out = Vec::new();
    go(0, k, &mut [0; 8], room, &mut out);
    out.sort_by_key(|s| std::cmp::Reverse(s.value));
    out
}

/// A state of a layer and its forward count: the worlds' ways to reach it. 32 bytes, aligned
/// to 32 so that none straddles two cache lines.
#[derive(Clone, Copy, Debug)]
#[repr(align(32))]
struct State {
    key: Key,
    forward: u128,
}

/// One step of the programme: the states after it, their forward counts, and its edges.
struct Layer {
    /// Each state's place in `keys`, by [`Key::hash`]. The table holds 4-byte places, not the
    /// 16-byte keys: it is a fifth of the size of a map of keys to places, so more of it stays
    /// in the cache, and a new state, most of those a step looks up, is told apart by the
    /// table's tag bytes without reading a key (the load of the map's bucket was 41 % of
    /// `Layer::add`, perf).
    index: HashTable<u32>,
    /// The states, each beside its forward count: a step that reaches a state again reads
    /// both, from one cache line.
    states: Vec<State>,
    /// `(from, to, weight)`: a single transition's weight fits in 64 bits (a few binomials
    /// and falling factorials of small numbers); 16 bytes an edge instead of 32 saves memory
    /// traffic, a large share of the programme's time.
    edges: Vec<(u32, u32, u64)>,
}

impl Layer {
    fn new() -> Layer {
        Layer::with_capacity(0, 0)
    }

    /// A layer sized for `states` states (the size of the one before it is a fair guess, and
    /// saves most of the rehashing a growing table does) and `edges` edges: each step counts
    /// its transitions before it makes any (for the budget), so its edges are sized once
    /// instead of copied as they grow.
    fn with_capacity(states: usize, edges: usize) -> Layer {
        Layer {
            index: HashTable::with_capacity(states.min(edges)),
            states: Vec::with_capacity(states.min(edges)),
            edges: Vec::with_capacity(edges),
        }
    }

    /// Adds the edge `from` → `to` of `weight`, `f` being the forward count of `from`.
    fn add(&mut self, from: usize, f: u128, to: Key, weight: u128) -> Option<()> {
        let states = &self.states;
        let at = match self.index.entry(
            to.hash(),
            |&at| states[at as usize].key == to,
            |&at| states[at as usize].key.hash(),
        ) {
            Entry::Occupied(entry) => *entry.get() as usize,
            Entry::Vacant(entry) => {
                let at = self.states.len();
                entry.insert(u32::try_from(at).ok()?);
                self.states.push(State { key: to, forward: 0 });
                at
            }
        };
        let forward = &mut self.states[at].forward;
        *forward = forward.checked_add(mul(f, weight)?)?;
        self.edges.push((from as u32, at as u32, u64::try_from(weight).ok()?));
        Some(())
    }

    /// The states reached (forward count not 0).
    fn live(&self) -> impl Iterator<Item = Key> + '_ {
        self.states.iter().filter(|s| s.forward != 0).map(|s| s.key)
    }

    /// The first state, `key`, with the forward count `forward`.
    fn start(key: Key, forward: u128) -> Layer {
        let mut layer = Layer::new();
        layer.index.insert_unique(key.hash(), 0, |_| key.hash());
        layer.states.push(State { key, forward });
        layer
    }
}

/// Counts the worlds of `evidence` and of what the events told her (`facts`); `allowed[i]`
/// are the numbers the trail count leaves to the face-down position `i + 1`. `None` when the
/// work or the numbers outgrow the budget.
///
/// Each position is two steps: its sprint stack (the state then also holds the stack's value),
/// then its hideout. A stack's classes are counted against the deck of the hideout before it
/// (its cards are distinct from the new hideout either way: a class's `C(X − a, b)` is taken
/// with every hideout of the class in `a`). The events add steps between two placements, in
/// the order they happened (`facts.rs`): a hidden smoke card is a stack of one card whose value
/// counts for no reach, taken from what he held then; a smoke card among known sprint cards is
/// chosen with its stack (the key keeps its deck until the smoke step takes its draw); a card he
/// put back takes one of the cards he held then, and is counted with those never placed at the
/// end. M3 Stakeout keeps a counter in the key, checked at the position it was asked after.
pub(crate) fn count(evidence: &Evidence, facts: &Facts, allowed: &[Cards]) -> Option<Worlds> {
    count_with(evidence, facts, allowed, Shortcuts::ALL)
}

/// The shortcuts the count takes; each changes no count (`the_shortcuts_change_no_count`), only
/// how many states it makes.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Shortcuts {
    /// The last position's hidden stack after its hideout, each deck folded in ([`Fold`]).
    fold_last_stack: bool,
    /// A state of a stack chosen class by class is kept only if the classes after it can
    /// still take its cards left and the value it needs ([`SprintClass::run`]).
    prune_stacks: bool,
}

impl Shortcuts {
    const ALL: Shortcuts = Shortcuts { fold_last_stack: true, prune_stacks: true };
}

/// [`count`] with only the given shortcuts.
fn count_with(evidence: &Evidence, facts: &Facts, allowed: &[Cards], shortcuts: Shortcuts) -> Option<Worlds> {
    let slots = evidence.positions();
    let n = slots.len();
    // X: each class's cards not ruled out; A: each deck's cards not hers (nor known in a deck).
    // His draws of cards she knew are counted on their own (`Known`), not in a class.
    let known = Known { draws: &facts.known_draws };
    let known_cards: Cards = facts.known_draws.iter().map(|k| k.card).collect();
    let excluded = evidence.excluded().union(facts.in_decks).union(known_cards);
    let mut pool = [0i64; 8];
    for number in 1..=41u8 {
        let card = Card::new(number)?;
        if !excluded.contains(card) {
            pool[class(number)] += 1;
        }
    }
    let free = Deck::ALL.map(|d| {
        d.cards().difference(evidence.hand()).difference(facts.in_decks).difference(known_cards).len() as i64
    });
    // His draws from each deck taken unseen: all but those of cards she knew.
    let taken: [i64; 4] = std::array::from_fn(|d| {
        if d == 0 {
            return 0;
        }
        evidence.taken(of_deck(d))
            - facts.known_draws.iter().filter(|k| deck_number(k.card) == d).count() as i64
    });
    let allowed: Vec<Cards> =
        (0..n).map(|i| allowed[i].intersection(facts.groups[i]).difference(facts.in_decks)).collect();
    let count_decks = |cards: Cards| {
        let mut p = [0i64; 4];
        for card in cards {
            let d = deck(card.number());
            if (1..=3).contains(&d) {
                p[d] += 1;
            }
        }
        p
    };
    // Cards of each deck placed in sight: known sprint cards (smoke cards among them too).
    let public_sprints: Vec<[i64; 4]> =
        (0..n).map(|i| count_decks(facts.known[i].as_ref().map_or(Cards::EMPTY, |k| k.cards))).collect();
    // The sprint stacks each known one can be, with each choice of its smoke cards; a hidden
    // one from the classes he can have held by then (its smoke cards are steps): every split
    // of its cards among the classes when there are few, else chosen class by class
    // (`SprintClass`).
    let stacks: Vec<Stacks> = (0..n)
        .map(|i| match &facts.known[i] {
            Some(known) => Some(Stacks::Splits(known_stacks(known))),
            None => {
                let had = facts.had[i];
                let room: [u8; 8] =
                    std::array::from_fn(
                        |c| if c < 2 || had[c / 2] > 0 { pool[c].clamp(0, 15) as u8 } else { 0 },
                    );
                let k = slots[i].sprint_count.checked_sub(facts.hidden_smokes[i])?;
                let splits = stacks(k, &room);
                let among = k > 0 && known.held(i, usize::MAX) != 0;
                Some(if splits.len() <= MOST_SPLITS && !among {
                    Stacks::Splits(splits)
                } else {
                    Stacks::Classes(k, room)
                })
            }
        })
        .collect::<Option<_>>()?;

    let mut layers: Vec<Layer> = Vec::with_capacity(2 * n + 1);
    // The position whose hideout each layer chose, if it is a hideout layer.
    let mut hideout_of: Vec<Option<usize>> = vec![None];
    let start_key = Key::new(0, &[0; 8], [0, 0], evidence.all_open());
    layers.push(Layer::start(start_key, if evidence.impossible() { 0 } else { 1 }));
    let mut work = 0usize;
    let mut before = [0i64; 4];
    // Whether every deck's count is folded in already (the last stack's `Fold`).
    let mut folded = false;
    for i in 1..=n {
        for (j, &step) in facts.between[i - 1].iter().enumerate() {
            let layer = between(
                &layers[layers.len() - 1],
                step,
                &before,
                &pool,
                known.for_step(step, i - 1, j),
                &mut work,
            )?;
            layers.push(layer);
            hideout_of.push(None);
        }
        let slot = &slots[i - 1];
        let had = facts.had[i - 1];
        // The values of the sprint stack that make a difference after the hideout `p`: enough
        // for the nearest number the position may be, and no more than the farthest needs
        // (larger ones merge into that). `None`: no number above `p`.
        let values = |p: u8| -> Option<(u8, u8)> {
            let numbers = slot.number.map_or(allowed[i - 1].bits(), |h| 1 << h.number());
            let above = numbers & !between_mask(0, p) & !1;
            if above == 0 {
                return None;
            }
            let (near, far) = (above.trailing_zeros() as u8, 63 - above.leading_zeros() as u8);
            Some((near.saturating_sub(p + slot.reach.free()), far.saturating_sub(p + slot.reach.free())))
        };
        // The last position's hidden stack is chosen after its hideout, and each deck's count
        // folded in as soon as its classes are chosen (see [`Fold`]); when nothing follows it.
        let hideout_first = match stacks[i - 1] {
            Stacks::Classes(..) => {
                shortcuts.fold_last_stack
                    && i == n
                    && facts.between[n].is_empty()
                    && known.held(i - 1, usize::MAX) == 0
            }
            Stacks::Splits(_) => false,
        };
        // A hidden stack, class by class: the state keeps the cards left to choose and the
        // value so far (see [`SprintClass`]).
        if let (false, &Stacks::Classes(k, room)) = (hideout_first, &stacks[i - 1]) {
            let step = SprintClass {
                k,
                room: &room,
                pool: &pool,
                had: &had,
                before: &before,
                fold: None,
                prune: shortcuts.prune_stacks,
            };
            // First whether each card he drew that she knew is one of its cards.
            let mut first = true;
            for (b, draw) in facts.known_draws.iter().enumerate() {
                if k > 0 && known.held(i - 1, usize::MAX) & (1 << b) != 0 {
                    let layer = known_sprint(&layers[layers.len() - 1], k, b, draw, first, &mut work)?;
                    layers.push(layer);
                    hideout_of.push(None);
                    first = false;
                }
            }
            // The classes it can take from (the last step checks the stack even when none).
            let mut classes: Vec<usize> = (0..8).filter(|&c| k > 0 && room[c] > 0).collect();
            if classes.is_empty() {
                classes.push(7);
            }
            for (j, &c) in classes.iter().enumerate() {
                let first = first && j == 0;
                let layer =
                    step.run(&layers[layers.len() - 1], c, first, &classes[j + 1..], &values, &mut work)?;
                layers.push(layer);
                hideout_of.push(None);
            }
        }
        // Or the stack's splits, sorted by value, highest first: how many are worth `need`.
        if let Stacks::Splits(splits) = &stacks[i - 1] {
            let at_least = |need: u8| splits.partition_point(|s| s.value >= need);
            let mut mid;
            {
                let prev = &layers[layers.len() - 1];
                // The layer's transitions, counted before any is made: a state that outgrows the
                // budget gives up without making them (the same states give up as when they were
                // counted one by one).
                let transitions = prev
                    .live()
                    .filter_map(|key| values(key.h()))
                    .map(|(need, _)| at_least(need))
                    .sum::<usize>();
                work += transitions;
                if work > BUDGET {
                    return None;
                }
                mid = Layer::with_capacity(prev.states.len(), transitions);
                for (from, &State { key, forward: f }) in prev.states.iter().enumerate() {
                    if f == 0 {
                        continue;
                    }
                    let (p, used, a) = (key.h(), key.used(), key.a());
                    let d0 = deck(p);
                    let Some((need, enough)) = values(p) else { continue };
                    'stack: for stack in &splits[..at_least(need)] {
                        let mut weight: u128 = 1;
                        let mut next = used;
                        for c in 0..8 {
                            let b = i64::from(stack.counts[c]);
                            if b == 0 {
                                continue;
                            }
                            let u = i64::from(used[c]);
                            if u + b > pool[c] {
                                continue 'stack;
                            }
                            let ways = if c / 2 < d0 {
                                binomial(pool[c] - u, b)
                            } else {
                                let a_c = if c / 2 == d0 { i64::from(a[c % 2]) } else { 0 };
                                binomial(u - a_c + b, b)
                            };
                            weight = mul(weight, ways)?;
                            next[c] += stack.counts[c];
                        }
                        // Which of his deal and draws these cards were.
                        for d in 1..=3 {
                            let here = i64::from(stack.counts[2 * d] + stack.counts[2 * d + 1])
                                + i64::from(stack.public[d]);
                            if here > 0 {
                                let placed =
                                    before[d] + i64::from(used[2 * d] + used[2 * d + 1]) - key.pending_in(d);
                                weight = mul(weight, falling(had[d] - placed, here)?)?;
                            }
                        }
                        if weight == 0 {
                            continue;
                        }
                        let mut to =
                            Key::new(p, &next, a, key.open()).with_extra(key.extra()).with_known(key.known());
                        for (slot, &d) in stack.pending.iter().enumerate() {
                            if d != 0 {
                                to = to.with_pending(slot, d);
                            }
                        }
                        mid.add(from, f, to.with_value(stack.value.min(enough)), weight)?;
                    }
                }
            }
            layers.push(mid);
            hideout_of.push(None);
        }
        // The hideout: the numbers a state may go to, as a mask (bit `h` for number `h`).
        // (Before its stack, its value is at most 2 a card.)
        let bonus = |key: Key| match stacks[i - 1] {
            Stacks::Classes(k, _) if hideout_first => 2 * k,
            _ => key.value(),
        };
        let numbers = |key: Key| -> u64 {
            let p = key.h();
            let top = p.saturating_add(slot.reach.free() + bonus(key));
            match slot.number.map(Card::number) {
                Some(h) if h > p && h <= top => 1 << h,
                Some(_) => 0,
                None => allowed[i - 1].bits() & between_mask(p, top.min(41)) & !known.unavailable(key, i - 1),
            }
        };
        let stakeout = facts.stakeout.as_ref().filter(|s| i <= s.horizon);
        let mut layer;
        {
            let prev = &layers[layers.len() - 1];
            // Counted before any is made, as for the stacks.
            let transitions = prev.live().map(|key| numbers(key).count_ones() as usize).sum::<usize>();
            work += transitions;
            if work > BUDGET {
                return None;
            }
            layer = Layer::with_capacity(prev.states.len(), transitions);
            for (from, &State { key, forward: f }) in prev.states.iter().enumerate() {
                if f == 0 {
                    continue;
                }
                let (p, used, a) = (key.h(), key.used(), key.a());
                let d0 = deck(p);
                for h in bits(numbers(key)) {
                    let Some(open) = evidence.guess_step(i, p, h, key.open()) else { continue };
                    let d1 = deck(h);
                    // M3 Stakeout: the face-down hideouts of then in its deck's range.
                    let mut extra = key.extra();
                    if let Some(s) = stakeout {
                        let counter = key.counter() + u8::from(s.hidden[i] && d1 == s.deck);
                        if i == s.horizon && counter != s.count {
                            continue;
                        }
                        let counter = if i == s.horizon { 0 } else { counter };
                        extra = (extra & !0xf) | u64::from(counter);
                    }
                    // The trail leaves decks d0..d1: their classes' hideouts are final.
                    let mut weight: u128 = 1;
                    let mut next_a = a;
                    if d1 > d0 {
                        for d in d0..d1.min(4) {
                            for (parity, &a_p) in a.iter().enumerate() {
                                let c = 2 * d + parity;
                                let a_c = if d == d0 { i64::from(a_p) } else { 0 };
                                weight = mul(weight, binomial(pool[c] - a_c, i64::from(used[c]) - a_c))?;
                            }
                        }
                        next_a = [0, 0];
                    }
                    let mut next = used;
                    let mut to_known = key.known();
                    let drawn_known = known.bit(h);
                    if let Some(b) = drawn_known.filter(|_| slot.number.is_none()) {
                        to_known |= 1 << b;
                    } else if slot.number.is_none() {
                        let c = class(h);
                        if i64::from(next[c]) + 1 > pool[c] {
                            continue;
                        }
                        next[c] += 1;
                        next_a[c % 2] += 1;
                    }
                    // Which of his deal and draws the hideout was (a card she knew: its own).
                    if (1..=3).contains(&d1) && drawn_known.is_none() {
                        let placed = before[d1]
                            + public_sprints[i - 1][d1]
                            + i64::from(used[2 * d1] + used[2 * d1 + 1])
                            - key.pending_in(d1);
                        weight = mul(weight, falling(had[d1] - placed, 1)?)?;
                    }
                    if weight == 0 {
                        continue;
                    }
                    let mut to = Key::new(h, &next, next_a, open).with_extra(extra).with_known(to_known);
                    if let (true, &Stacks::Classes(k, _)) = (hideout_first, &stacks[i - 1]) {
                        // The value its stack must have, and its cards, still to choose.
                        to = to.with_value(h.saturating_sub(p + slot.reach.free())).with_left(k);
                    }
                    layer.add(from, f, to, weight)?;
                }
            }
        }
        layers.push(layer);
        hideout_of.push(Some(i));
        for d in 1..=3 {
            before[d] += public_sprints[i - 1][d];
        }
        if let Some(h) = slot.number.filter(|&h| known.bit(h.number()).is_none()) {
            let d = deck(h.number());
            if (1..=3).contains(&d) {
                before[d] += 1;
            }
        }
        if let (true, &Stacks::Classes(k, room)) = (hideout_first, &stacks[i - 1]) {
            let fold = Fold { free: &free, taken: &taken };
            let step = SprintClass {
                k,
                room: &room,
                pool: &pool,
                had: &had,
                before: &before,
                fold: Some(fold),
                prune: shortcuts.prune_stacks,
            };
            let classes: Vec<usize> = (0..8).collect();
            for c in 0..8 {
                let layer =
                    step.run(&layers[layers.len() - 1], c, false, &classes[c + 1..], &values, &mut work)?;
                layers.push(layer);
                hideout_of.push(None);
            }
            folded = true;
        }
    }
    for (j, &step) in facts.between[n].iter().enumerate() {
        let layer =
            between(&layers[layers.len() - 1], step, &before, &pool, known.for_step(step, n, j), &mut work)?;
        layers.push(layer);
        hideout_of.push(None);
    }
    // The end: the classes of the decks not yet left, and his cards never placed.
    let finish = |key: Key| -> Option<u128> {
        if folded {
            return Some(1);
        }
        let (h, used, a) = (key.h(), key.used(), key.a());
        let mut weight: u128 = 1;
        for d in deck(h)..4 {
            for (parity, &a_p) in a.iter().enumerate() {
                let c = 2 * d + parity;
                let a_c = if d == deck(h) { i64::from(a_p) } else { 0 };
                weight = mul(weight, binomial(pool[c] - a_c, i64::from(used[c]) - a_c))?;
            }
        }
        for d in 1..=3 {
            let placed = before[d] + i64::from(used[2 * d] + used[2 * d + 1]) - key.pending_in(d);
            weight = mul(weight, falling(free[d - 1] - placed, taken[d] - placed)?)?;
        }
        Some(weight)
    };
    let last = &layers[layers.len() - 1];
    let mut after: Vec<u128> = last.states.iter().map(|s| finish(s.key)).collect::<Option<_>>()?;
    let mut total: u128 = 0;
    for (s, w) in last.states.iter().zip(&after) {
        total = total.checked_add(mul(s.forward, *w)?)?;
    }
    let mut positions = Vec::new();
    for step in (1..layers.len()).rev() {
        let layer = &layers[step];
        if let Some(i) = hideout_of[step].filter(|&i| slots[i - 1].number.is_none()) {
            let mut counts = [0u128; 42];
            for (s, &a) in layer.states.iter().zip(&after) {
                let c = &mut counts[usize::from(s.key.h())];
                *c = c.checked_add(mul(s.forward, a)?)?;
            }
            positions.push((i, counts));
        }
        let mut back = vec![0u128; layers[step - 1].states.len()];
        for &(from, to, weight) in &layer.edges {
            let b = &mut back[from as usize];
            *b = b.checked_add(mul(u128::from(weight), after[to as usize])?)?;
        }
        after = back;
    }
    positions.reverse();
    // The deal is a set: every world was counted once per order of its 3 + 2 dealt cards.
    const DEAL_ORDERS: u128 = 6 * 2;
    for (_, counts) in &mut positions {
        for c in counts.iter_mut() {
            *c /= DEAL_ORDERS;
        }
    }
    Some(Worlds { total: total / DEAL_ORDERS, positions })
}

/// A hidden sprint stack of `k` cards, chosen one class at a time (8 steps, one per class):
/// each step takes `b` of the cards still to choose from class `c`, so a state makes at most
/// `k + 1` transitions per step instead of one per way to split `k` cards among 8 classes
/// (`C(k + 7, 7)`, 3,432 for 7 cards: random play's long stacks outgrew the budget there). The
/// weight of a class is the one a whole stack had for it: `C(X − u, b)` once its deck is left,
/// `C(u − a + b, b)` before (see the module documentation), and `(N − U)` falling `b` for which
/// of his draws they were; the classes of a deck follow each other, so the deck's draws are
/// counted in order. The state keeps the cards left to choose and the value so far (up to what
/// the farthest number needs); the last step keeps only stacks that reach a number.
struct SprintClass<'a> {
    k: u8,
    room: &'a [u8; 8],
    pool: &'a [i64; 8],
    had: &'a [i64; 4],
    before: &'a [i64; 4],
    /// The last position's stack, chosen after its hideout: the state keeps the value still
    /// needed instead of the value so far, and each deck is folded once its classes are chosen.
    fold: Option<Fold<'a>>,
    /// Whether a state that the classes after this one cannot finish is left out at once.
    prune: bool,
}

/// The last position's stack, chosen after its hideout (when no step follows it): once both
/// classes of a deck are chosen, nothing later reads that deck's counts but the end, so the
/// end's factors for it are taken at once — its classes' `C(X − a, u − a)` (when the trail is
/// still in it or below it) and his draws of it never placed — and its counts leave the state.
/// States that differ only in those counts merge: the last stack was where random play's
/// states multiplied (each split of the stack among the classes a state of its own, though
/// nothing after it could tell them apart). The order of a position's hideout and stack does
/// not change a world's weight: their draws' falling factors multiply to the same product, and
/// a deck's `C(X − a, u − a)` taken before its last stack cards equals it taken after.
struct Fold<'a> {
    /// Per deck (1–3 at index 0–2), its cards not hers nor known elsewhere.
    free: &'a [i64; 3],
    /// Per deck (1–3 at index 1–3), his draws of it taken unseen.
    taken: &'a [i64; 4],
}

impl SprintClass<'_> {
    fn run(
        &self,
        prev: &Layer,
        c: usize,
        first: bool,
        later: &[usize],
        values: &dyn Fn(u8) -> Option<(u8, u8)>,
        work: &mut usize,
    ) -> Option<Layer> {
        let left_of = |key: Key| if first && self.fold.is_none() { self.k } else { key.left() };
        let live = || prev.live();
        // Counted before any is made, as for the other steps.
        let transitions = live().map(|key| usize::from(left_of(key).min(self.room[c])) + 1).sum::<usize>();
        *work += transitions;
        if *work > BUDGET {
            return None;
        }
        let mut layer = Layer::with_capacity(prev.states.len(), transitions);
        for (from, &State { key, forward: f }) in prev.states.iter().enumerate() {
            if f == 0 {
                continue;
            }
            let (p, used, a) = (key.h(), key.used(), key.a());
            // Before its hideout: the value so far against what the numbers need; after it
            // (`fold`): the value still needed.
            let (need, enough) = match self.fold {
                Some(_) => (key.value(), u8::MAX),
                None => match values(p) {
                    Some(values) => values,
                    None => continue,
                },
            };
            let d0 = deck(p);
            let left = left_of(key);
            let value = if first || self.fold.is_some() { 0 } else { key.value() };
            let u = i64::from(used[c]);
            // The last step takes every card left.
            let last = later.is_empty();
            let fewest = if last { left } else { 0 };
            // What the classes after this one can still take, per deck: their cards left in
            // the pool, at most their room, even and odd apart.
            let mut spare = [[0i64; 2]; 4];
            for &l in later {
                spare[l / 2][l % 2] += i64::from(self.room[l]).min(self.pool[l] - i64::from(used[l])).max(0);
            }
            let d = c / 2;
            let held = |e: usize, taken: i64| {
                if e == 0 {
                    i64::MAX
                } else {
                    self.had[e] - self.before[e] - i64::from(used[2 * e] + used[2 * e + 1])
                        + key.pending_in(e)
                        - taken
                }
            };
            let held_other: [i64; 4] = std::array::from_fn(|e| held(e, 0));
            for b in fewest..=left.min(self.room[c]) {
                let rest = left - b;
                let value = value.saturating_add(b * self::value(c)).min(enough);
                // What the key keeps: the value so far, or still needed.
                let kept = if self.fold.is_some() { need.saturating_sub(value) } else { value };
                // Whether the classes after this one can take the cards left (each deck at most
                // the cards of it he still held) and add the value still needed: the most
                // value takes the even classes (2 a card) first. A state that cannot is dead.
                let (mut evens, mut odds) = (0i64, 0i64);
                for (e, [even, odd]) in spare.iter().enumerate() {
                    let cap = if e == d { held(e, i64::from(b)) } else { held_other[e] }.max(0);
                    let take = (*even).min(cap);
                    evens += take;
                    odds += (*odd).min(cap - take);
                }
                let rest_i = i64::from(rest);
                let top = 2 * rest_i.min(evens) + (rest_i - rest_i.min(evens)).min(odds);
                let dead = if self.prune {
                    rest_i > evens + odds || i64::from(value) + top < i64::from(need)
                } else {
                    i64::from(value) + 2 * rest_i < i64::from(need)
                };
                if dead {
                    continue;
                }
                let bb = i64::from(b);
                if b > self.room[c] || u + bb > self.pool[c] {
                    break;
                }
                let mut weight = if b == 0 {
                    1
                } else if c / 2 < d0 {
                    binomial(self.pool[c] - u, bb)
                } else {
                    let a_c = if c / 2 == d0 { i64::from(a[c % 2]) } else { 0 };
                    binomial(u - a_c + bb, bb)
                };
                if d >= 1 && b > 0 {
                    let placed =
                        self.before[d] + i64::from(used[2 * d] + used[2 * d + 1]) - key.pending_in(d);
                    weight = mul(weight, falling(self.had[d] - placed, bb)?)?;
                }
                if weight == 0 {
                    continue;
                }
                let mut next = used;
                next[c] += b;
                let mut next_a = a;
                if let (Some(fold), 1) = (&self.fold, c % 2) {
                    // Both classes of deck `d` chosen: its end factors now, its counts out.
                    if d >= d0 {
                        for (parity, &a_p) in a.iter().enumerate() {
                            let cc = 2 * d + parity;
                            let a_c = if d == d0 { i64::from(a_p) } else { 0 };
                            weight = mul(weight, binomial(self.pool[cc] - a_c, i64::from(next[cc]) - a_c))?;
                        }
                    }
                    if d >= 1 {
                        let placed =
                            self.before[d] + i64::from(next[2 * d] + next[2 * d + 1]) - key.pending_in(d);
                        weight = mul(weight, falling(fold.free[d - 1] - placed, fold.taken[d] - placed)?)?;
                    }
                    if weight == 0 {
                        continue;
                    }
                    next[2 * d] = 0;
                    next[2 * d + 1] = 0;
                    if d == d0 {
                        next_a = [0, 0];
                    }
                }
                let to = Key::new(p, &next, next_a, key.open())
                    .with_extra(key.extra())
                    .with_value(kept)
                    .with_known(key.known());
                layer.add(from, f, if last { to } else { to.with_left(rest) }, weight)?;
            }
        }
        Some(layer)
    }
}

/// His draws of cards she knew (`facts.rs`, [`KnownDraw`]): each is its own slot of his
/// draws, so which draw such a card was is no choice (weight 1), and a bit of the key says
/// whether it is placed (or put back) yet; one not placed at the end is in his hand.
struct Known<'a> {
    draws: &'a [KnownDraw],
}

impl Known<'_> {
    /// The bits of those he held by the step `step` after `placed` placements (`usize::MAX`:
    /// by the next placement), but those face up as hideouts (placed where she sees).
    fn held(&self, placed: usize, step: usize) -> u8 {
        let mut mask = 0;
        for (b, draw) in self.draws.iter().enumerate() {
            if draw.held_at(placed, step) && !draw.public {
                mask |= 1 << b;
            }
        }
        mask
    }

    /// Those a step between placements can take: any held, for a hidden smoke card (a card
    /// he put back is never one of them: `facts.rs` gives up on that).
    fn for_step(&self, step: Between, placed: usize, j: usize) -> u8 {
        match step {
            Between::HiddenSmoke { .. } => self.held(placed, j),
            Between::Return { .. } | Between::KnownSmoke { .. } => 0,
        }
    }

    /// The bit of the card numbered `h`, if he drew it while she knew it.
    fn bit(&self, h: u8) -> Option<usize> {
        self.draws.iter().position(|d| d.card.number() == h)
    }

    /// The numbers of those that cannot be the hideout of position `placed + 1` in `key`: not
    /// drawn by then, or placed or put back already.
    fn unavailable(&self, key: Key, placed: usize) -> u64 {
        let held = self.held(placed, usize::MAX) & !key.known();
        let mut mask = 0;
        for (b, draw) in self.draws.iter().enumerate() {
            if held & (1 << b) == 0 {
                mask |= 1 << draw.card.number();
            }
        }
        mask
    }
}

/// Whether the card he drew that she knew (bit `b`) is one of the `k` cards of a hidden sprint
/// stack (before its classes are chosen, `SprintClass`): the state keeps the cards left and the
/// value so far, as those steps do.
fn known_sprint(
    prev: &Layer,
    k: u8,
    b: usize,
    draw: &KnownDraw,
    first: bool,
    work: &mut usize,
) -> Option<Layer> {
    let transitions = 2 * prev.live().count();
    *work += transitions;
    if *work > BUDGET {
        return None;
    }
    let worth = value(class(draw.card.number()));
    let mut layer = Layer::with_capacity(prev.states.len(), transitions);
    for (from, &State { key, forward: f }) in prev.states.iter().enumerate() {
        if f == 0 {
            continue;
        }
        let (left, value) = if first { (k, 0) } else { (key.left(), key.value()) };
        layer.add(from, f, key.with_left(left).with_value(value), 1)?;
        if left > 0 && key.known() & (1 << b) == 0 {
            let to = key.with_known(key.known() | 1 << b).with_left(left - 1).with_value(value + worth);
            layer.add(from, f, to, 1)?;
        }
    }
    Some(layer)
}

/// The stacks a known set of sprint cards can be: each way its smoke cards can be among them
/// (the rest were placed with the hideout and count for its reach).
fn known_stacks(known: &KnownStack) -> Vec<Stack> {
    fn go(smokes: &[usize], left: Cards, pending: [u8; 2], out: &mut Vec<Stack>) {
        let Some((&slot, rest)) = smokes.split_first() else {
            let mut public = [0u8; 4];
            for card in left {
                public[deck_number(card)] += 1;
            }
            public[0] = 0;
            out.push(Stack { counts: [0; 8], value: left.sprint_value(), public, pending });
            return;
        };
        for card in left {
            let mut pending = pending;
            pending[slot] = deck_number(card) as u8;
            go(rest, left.without(card), pending, out);
        }
    }
    let mut out = Vec::new();
    go(&known.smokes, known.cards, [0; 2], &mut out);
    out.sort_by_key(|s| std::cmp::Reverse(s.value));
    out
}

/// One step between placements (see [`count`]): a smoke card or a card he put back, each one
/// of the cards he held then.
fn between(
    prev: &Layer,
    step: Between,
    before: &[i64; 4],
    pool: &[i64; 8],
    held_known: u8,
    work: &mut usize,
) -> Option<Layer> {
    let live = prev.live().count();
    let transitions = live * if matches!(step, Between::HiddenSmoke { .. }) { 8 } else { 1 };
    *work += transitions;
    if *work > BUDGET {
        return None;
    }
    let mut layer = Layer::with_capacity(prev.states.len(), transitions);
    for (from, &State { key, forward: f }) in prev.states.iter().enumerate() {
        if f == 0 {
            continue;
        }
        let used = key.used();
        // The cards of deck `d` he held then: taken, less placed (and returned: `had`).
        let held = |d: usize, had: &[i64; 4]| {
            had[d] - before[d] - i64::from(used[2 * d] + used[2 * d + 1]) + key.pending_in(d)
        };
        match step {
            Between::HiddenSmoke { had } => {
                let (p, a) = (key.h(), key.a());
                let d0 = deck(p);
                for c in 0..8 {
                    let u = i64::from(used[c]);
                    if u + 1 > pool[c] {
                        continue;
                    }
                    let mut weight = if c / 2 < d0 {
                        binomial(pool[c] - u, 1)
                    } else {
                        let a_c = if c / 2 == d0 { i64::from(a[c % 2]) } else { 0 };
                        binomial(u - a_c + 1, 1)
                    };
                    if c / 2 >= 1 {
                        weight = mul(weight, falling(held(c / 2, &had), 1)?)?;
                    }
                    if weight == 0 {
                        continue;
                    }
                    let mut next = used;
                    next[c] += 1;
                    let to =
                        Key::new(p, &next, a, key.open()).with_extra(key.extra()).with_known(key.known());
                    layer.add(from, f, to, weight)?;
                }
                // Or a card he drew that she knew, held then and not yet placed.
                for b in bits(u64::from(held_known & !key.known())) {
                    layer.add(from, f, key.with_known(key.known() | 1 << b), 1)?;
                }
            }
            Between::KnownSmoke { slot, had } => {
                let d = key.pending(slot);
                let weight = if d >= 1 { falling(held(d, &had), 1)? } else { 1 };
                if weight != 0 {
                    layer.add(from, f, key.with_pending(slot, 0), weight)?;
                }
            }
            Between::Return { deck: d, had } => {
                let weight = falling(held(d, &had), 1)?;
                if weight != 0 {
                    layer.add(from, f, key, weight)?;
                }
            }
        }
    }
    Some(layer)
}

impl Key {
    /// The open-guess bits (the second word's low 48 bits).
    fn open(self) -> u64 {
        self.1 & ((1 << 48) - 1)
    }
    /// Which of his draws of cards she knew are placed or put back (bits 56–59 of the second
    /// word, one per [`KnownDraw`]).
    fn known(self) -> u8 {
        ((self.1 >> 56) & 0xf) as u8
    }
    fn with_known(self, known: u8) -> Key {
        Key(self.0, (self.1 & !(0xf << 56)) | u64::from(known) << 56)
    }
    /// The same state with a sprint stack of this value waiting for its hideout (bits 48–55).
    fn with_value(self, value: u8) -> Key {
        Key((self.0 & !(0xff << 48)) | u64::from(value) << 48, self.1)
    }
    fn value(self) -> u8 {
        ((self.0 >> 48) & 0xff) as u8
    }
    /// The same state with `left` cards of a hidden sprint stack still to choose (bits 48–55
    /// of the second word: the open-guess bits are at most 32).
    fn with_left(self, left: u8) -> Key {
        Key(self.0, (self.1 & !(0xff << 48)) | u64::from(left) << 48)
    }
    fn left(self) -> u8 {
        ((self.1 >> 48) & 0xff) as u8
    }
    /// The events' bits (56–63): M3 Stakeout's counter (56–59) and each smoke card's pending
    /// deck (60–61, 62–63).
    fn extra(self) -> u64 {
        self.0 >> 56
    }
    fn with_extra(self, extra: u64) -> Key {
        Key((self.0 & !(0xff << 56)) | extra << 56, self.1)
    }
    fn counter(self) -> u8 {
        (self.extra() & 0xf) as u8
    }
    /// The deck (1–3) of the smoke card of `slot` chosen among known cards and not yet taken
    /// from what he held; 0 for none (or one of his fixed cards).
    fn pending(self, slot: usize) -> usize {
        ((self.0 >> (60 + 2 * slot)) & 3) as usize
    }
    fn with_pending(self, slot: usize, deck: u8) -> Key {
        let shift = 60 + 2 * slot;
        Key((self.0 & !(3 << shift)) | u64::from(deck) << shift, self.1)
    }
    /// How many pending smoke cards are of deck `d`.
    fn pending_in(self, d: usize) -> i64 {
        (0..MAX_SMOKES).filter(|&slot| self.pending(slot) == d).count() as i64
    }
}

/// The worlds between the two opening placements under `exactly_two` (R6): the one state where
/// a public fact is about the cards he kept, since the first placement must leave a legal
/// second one. Counted by walking every deal (3 of deck 1 and 2 of deck 2, as sets; she holds
/// nothing yet) and every first hideout and sprint set from it. `None` in any other state.
pub(crate) fn between_opening_placements(view: &fugitive_core::View) -> Option<Worlds> {
    use fugitive_core::{OpeningHideouts, Phase};
    let opening = view.rules.opening_hideouts == OpeningHideouts::ExactlyTwo
        && view.phase == Phase::Opening { placed: 1 }
        && view.trail.len() == 2;
    if !opening {
        return None;
    }
    let k = view.trail[1].sprint_count;
    let fixed = Cards::from_iter([1, 2, 3, 42].map(|n| Card::new(n).expect("a card")));
    let deck_one: Vec<Card> = Deck::One.cards().iter().collect();
    let deck_two: Vec<Card> = Deck::Two.cards().iter().collect();
    let mut counts = [0u128; 42];
    let mut sets = Vec::new();
    for (i, &a) in deck_one.iter().enumerate() {
        for (j, &b) in deck_one.iter().enumerate().skip(i + 1) {
            for &c in &deck_one[j + 1..] {
                for (l, &x) in deck_two.iter().enumerate() {
                    for &y in &deck_two[l + 1..] {
                        let hand = fixed.union(Cards::from_iter([a, b, c, x, y]));
                        for h in hand.without(Card::ESCAPE) {
                            if h.number() > Reach::OPENING.with(2 * k as u8) {
                                continue;
                            }
                            sets.clear();
                            sets.extend(
                                hand.without(h).without(Card::ESCAPE).subsets().filter(|s| s.len() == k),
                            );
                            for &s in &sets {
                                let left = hand.without(h).difference(s);
                                if h.number() <= Reach::OPENING.with(s.sprint_value())
                                    && can_place(left, h, Reach::OPENING)
                                {
                                    counts[usize::from(h.number())] += 1;
                                }
                            }
                        }
                    }
                }
            }
        }
    }
    Some(Worlds { total: counts.iter().sum(), positions: vec![(1, counts)] })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The tables agree with the products they replace, edges included (`k < 0`, `n < k`).
    #[test]
    fn the_tables_agree_with_the_products() {
        for n in -2i64..70 {
            for k in -2i64..70 {
                let fits = k >= 0 && n >= k;
                let product = |from: i64| (from..=n).map(|x| x as u128).try_fold(1u128, u128::checked_mul);
                let falling_expected = if fits { product(n - k + 1) } else { Some(0) };
                assert_eq!(falling(n, k), falling_expected, "falling({n}, {k})");
                // C(n, k) = n! / (k! (n − k)!), from the falling factorial when it fits.
                if let Some(f) = falling_expected.filter(|_| fits) {
                    let k_factorial = (1..=k as u128).product::<u128>();
                    assert_eq!(binomial(n, k), f / k_factorial, "C({n}, {k})");
                } else if !fits {
                    assert_eq!(binomial(n, k), 0, "C({n}, {k})");
                }
            }
        }
        assert_eq!(binomial(63, 31), 916_312_070_471_295_267);
        assert_eq!(falling(20, 20), Some(2_432_902_008_176_640_000));
    }

    /// The 64-bit product and the wide one agree, and an overflow of 128 bits is `None`.
    #[test]
    fn mul_agrees_with_checked_mul() {
        let values =
            [0u128, 1, 3, u128::from(u32::MAX), u128::from(u64::MAX), 1 << 64, (1 << 64) + 7, u128::MAX / 3];
        for &a in &values {
            for &b in &values {
                assert_eq!(mul(a, b), a.checked_mul(b), "{a} · {b}");
            }
        }
        assert_eq!(mul(u128::from(u64::MAX), u128::from(u64::MAX)), Some(u128::from(u64::MAX).pow(2)));
    }

    /// Every count with the shortcuts equals the count without them, on every Marshal state of
    /// random games (both sides `LegalActions::sample`, events answered at random) of every
    /// event variant, where both stay within the budget: these states are far larger than the
    /// brute force of `tests/it/worlds.rs` can walk, and random play's long hidden stacks are where
    /// the shortcuts act (the test checks that some states had one at the last position).
    #[test]
    fn the_shortcuts_change_no_count() {
        use fugitive_core::{EventVariant, Game, RuleOptions, Seed, Setup};
        use rand::SeedableRng;
        let none = Shortcuts { fold_last_stack: false, prune_stacks: false };
        let (mut compared, mut long_last_stacks) = (0, 0);
        for events in EventVariant::ALL {
            for seed in 0..6u64 {
                let rules = RuleOptions { events, ..RuleOptions::default() };
                let mut game = Game::new(Setup::new(Seed::from(seed)).with_rules(rules));
                let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
                while let Some(role) = game.to_move() {
                    let view = crate::MarshalView::of(&game);
                    let evidence = Evidence::read(view.view());
                    if let Some(facts) = Facts::read(view.view()) {
                        let bound = evidence.count_trails();
                        let allowed: Vec<Cards> = (1..=evidence.positions().len())
                            .map(|i| {
                                let p = bound.positions.iter().find(|p| p.position == i);
                                p.map(|p| p.numbers.iter().map(|&(n, _)| n).collect()).unwrap_or_default()
                            })
                            .collect();
                        let fast = count_with(&evidence, &facts, &allowed, Shortcuts::ALL);
                        let slow = count_with(&evidence, &facts, &allowed, none);
                        if let (Some(fast), Some(slow)) = (fast, slow) {
                            assert_eq!(fast.total, slow.total, "{events:?}, seed {seed}");
                            assert_eq!(fast.positions, slow.positions, "{events:?}, seed {seed}");
                            compared += 1;
                            let last = evidence.positions().last();
                            long_last_stacks +=
                                usize::from(last.is_some_and(|p| p.sprint_count > 2 && p.sprints.is_none()));
                        }
                    }
                    let action = game.legal_actions(role).sample(&mut rng);
                    game.apply(role, action.unwrap_or(fugitive_core::Action::Resign))
                        .expect("a legal action");
                }
            }
        }
        assert!(compared > 1000, "{compared} states compared");
        assert!(long_last_stacks > 100, "{long_last_stacks} states with a long hidden last stack");
    }

    #[test]
    fn between_and_bits_name_the_numbers() {
        assert_eq!(bits(between_mask(3, 7)).collect::<Vec<_>>(), [4, 5, 6, 7]);
        assert_eq!(bits(between_mask(0, 41)).count(), 41);
        assert_eq!(bits(between_mask(7, 7)).count(), 0);
        assert_eq!(bits(between_mask(41, 40)).count(), 0);
        assert_eq!(bits(1 << 42).collect::<Vec<_>>(), [42]);
    }
}
