//! The brute force the tests check the engine against (issue 26): every world of a Marshal's
//! view, enumerated from the rules alone, not from the notepad's code.
//!
//! A world fixes every card the Marshal cannot see (`deduction.rs`): the 3 + 2 cards he was
//! dealt (R3), the card each of his draws took (R8a), and each position's hideout and sprint
//! cards (R9, R10). The walk tries every deal and every draw, then every trail his cards
//! allow, and keeps the worlds that agree with her view. Small moments only: at most two draws
//! of his.
#![allow(dead_code)]

use std::collections::HashMap;

use fugitive_ai::MarshalView;
use fugitive_core::{Card, Cards, Deck, Event, Game, Role};

/// Worlds counted by the set of face-down hideouts they give.
pub struct Worlds {
    pub total: u128,
    pub by_hideouts: HashMap<Cards, u128>,
    /// The worlds by the hideout of the trail's last position, when it is face down.
    pub newest: HashMap<Card, u128>,
}

impl Worlds {
    /// The share of worlds on which every number of `numbers` is a face-down hideout.
    pub fn joint(&self, numbers: Cards) -> f64 {
        let n: u128 = self.by_hideouts.iter().filter(|(h, _)| numbers.is_subset(**h)).map(|(_, n)| n).sum();
        n as f64 / self.total as f64
    }

    /// The best expected reveal (chance × numbers named) of any guess she may make, over every
    /// set of numbers: a guess right on some world names only face-down hideouts of it, so the
    /// subsets of each world's hideouts are every guess with a chance.
    pub fn best_reveal(&self, open: Cards) -> f64 {
        let mut best = 0.0f64;
        for hideouts in self.by_hideouts.keys() {
            for guess in hideouts.intersection(open).subsets().filter(|g| !g.is_empty()) {
                best = best.max(self.joint(guess) * guess.len() as f64);
            }
        }
        best
    }

    /// Her best chance: the largest share of a number she may name.
    pub fn best(&self, open: Cards) -> f64 {
        open.iter().map(|n| self.joint(Cards::from(n))).fold(0.0, f64::max)
    }
}

/// What she saw, read from her view.
struct Seen {
    face_up: Vec<Option<Card>>,
    sprint_count: Vec<usize>,
    revealed_sprints: Vec<Option<Cards>>,
    placed_at: Vec<usize>,
    /// His draws: (time, deck).
    draws: Vec<(usize, Deck)>,
    /// Wrong guesses with the face-down positions then.
    wrong: Vec<(Cards, Vec<usize>)>,
    hers: Cards,
    up: Cards,
}

fn seen(view: &MarshalView) -> Seen {
    let v = view.view();
    let n = v.trail.len() - 1;
    let mut placed_at = vec![0; n + 1];
    let mut down = vec![false; n + 1];
    let mut draws = Vec::new();
    let mut wrong = Vec::new();
    for (at, event) in v.history.iter().enumerate() {
        match *event {
            Event::Drew { role: Role::Fugitive, deck, .. } => draws.push((at + 1, deck)),
            Event::Placed { position, hideout, .. } => {
                placed_at[position] = at + 1;
                down[position] = hideout != Some(Card::ESCAPE);
            }
            Event::Revealed { position, .. } => down[position] = false,
            Event::Guessed { numbers, right: false } => {
                wrong.push((numbers, (1..=n).filter(|&j| down[j]).collect()));
            }
            _ => {}
        }
    }
    Seen {
        face_up: v.trail.iter().map(|t| t.card.filter(|_| t.face_up)).collect(),
        sprint_count: v.trail.iter().map(|t| t.sprint_count).collect(),
        revealed_sprints: v.trail.iter().map(|t| t.sprints.filter(|_| t.face_up)).collect(),
        placed_at,
        draws,
        wrong,
        hers: v.hands.marshal.cards.expect("her own view"),
        up: v.face_up(),
    }
}

pub fn k_subsets(from: Cards, k: usize) -> impl Iterator<Item = Cards> {
    from.subsets().filter(move |s| s.len() == k)
}

pub fn brute_force(view: &MarshalView) -> Worlds {
    let s = seen(view);
    let mut worlds = Worlds { total: 0, by_hideouts: HashMap::new(), newest: HashMap::new() };
    let fixed: Cards = [1, 2, 3, 42].into_iter().filter_map(Card::new).collect();
    for d1 in k_subsets(Deck::One.cards().difference(s.hers), 3) {
        for d2 in k_subsets(Deck::Two.cards().difference(s.hers), 2) {
            draw(&s, 0, fixed.union(d1).union(d2), &mut Vec::new(), &mut worlds);
        }
    }
    worlds
}

/// Tries every card for his draw `i`, then the trails.
fn draw(s: &Seen, i: usize, his: Cards, drawn: &mut Vec<(usize, Card)>, worlds: &mut Worlds) {
    let Some(&(time, deck)) = s.draws.get(i) else {
        let dealt = his.difference(drawn.iter().map(|d| d.1).collect());
        trail(s, 1, dealt, drawn, Cards::EMPTY, 0, &mut Vec::new(), worlds);
        return;
    };
    for card in deck.cards().difference(s.hers).difference(his).iter() {
        drawn.push((time, card));
        draw(s, i + 1, his.with(card), drawn, worlds);
        drawn.pop();
    }
}

/// Places position `j` from the cards he held then, less those `used`.
#[allow(clippy::too_many_arguments)]
fn trail(
    s: &Seen,
    j: usize,
    dealt: Cards,
    drawn: &[(usize, Card)],
    used: Cards,
    last: u8,
    hideouts: &mut Vec<(usize, Card)>,
    worlds: &mut Worlds,
) {
    if j == s.face_up.len() {
        let ok = s.wrong.iter().all(|(numbers, down)| {
            !numbers.iter().all(|n| hideouts.iter().any(|&(p, h)| h == n && down.contains(&p)))
        });
        if ok {
            let down: Cards = hideouts.iter().filter(|(p, _)| s.face_up[*p].is_none()).map(|p| p.1).collect();
            worlds.total += 1;
            *worlds.by_hideouts.entry(down).or_default() += 1;
            if let Some(&(p, h)) = hideouts.last().filter(|(p, _)| s.face_up[*p].is_none()) {
                debug_assert_eq!(p, s.face_up.len() - 1);
                *worlds.newest.entry(h).or_default() += 1;
            }
        }
        return;
    }
    let held = drawn
        .iter()
        .filter(|(t, _)| *t < s.placed_at[j])
        .map(|d| d.1)
        .collect::<Cards>()
        .union(dealt)
        .difference(used);
    let choices: Vec<Card> = match s.face_up[j] {
        Some(card) => held.contains(card).then_some(card).into_iter().collect(),
        None => held.difference(s.up).difference(s.hers).iter().filter(|&h| h != Card::ESCAPE).collect(),
    };
    for h in choices {
        if h.number() <= last {
            continue;
        }
        let pool = held.without(h).without(Card::ESCAPE);
        let stacks: Vec<Cards> = match s.revealed_sprints[j] {
            Some(known) if known.is_subset(pool) => vec![known],
            Some(_) => vec![],
            None => k_subsets(pool.difference(s.up), s.sprint_count[j]).collect(),
        };
        for stack in stacks {
            if h.number() - last > 3 + stack.sprint_value() {
                continue;
            }
            hideouts.push((j, h));
            trail(s, j + 1, dealt, drawn, used.with(h).union(stack), h.number(), hideouts, worlds);
            hideouts.pop();
        }
    }
}

impl Worlds {
    /// Her best chance to name the trail's last hideout with one number (0 if it is face up).
    pub fn newest_best(&self) -> f64 {
        self.newest.values().map(|&n| n as f64 / self.total as f64).fold(0.0, f64::max)
    }
}

pub fn close(a: f64, b: f64) -> bool {
    (a - b).abs() < 1e-9
}

pub fn his_draws(game: &Game) -> usize {
    game.history().iter().filter(|e| matches!(e, Event::Drew { role: Role::Fugitive, .. })).count()
}
