//! The computer Marshal: it reads only a [`MarshalView`].

use fugitive_core::{Action, Card, Cards, Deck, Phase};
use rand::SeedableRng;
use rand::seq::IndexedRandom;
use rand_chacha::ChaCha8Rng;

use crate::deduction::Deduction;
use crate::view::{Level, MarshalView};

/// A computer Marshal.
///
/// - `random`: any legal action (`LegalActions::sample`).
/// - `easy`: draws from a random deck; guesses one number, drawn at random with the
///   deduction's odds of it being a hideout.
/// - `hard`: draws from the deck holding most of the deduction's candidates; guesses the most
///   likely number, adding every number it is certain of (a multi-number guess only when it is
///   certain of all but one); in the Manhunt, the most likely number each time (greedy).
#[derive(Clone, Debug)]
pub struct MarshalBot {
    level: Level,
    rng: ChaCha8Rng,
}

impl MarshalBot {
    /// A Marshal of this level; `seed` makes its choices reproducible.
    pub fn new(level: Level, seed: u64) -> MarshalBot {
        MarshalBot { level, rng: ChaCha8Rng::seed_from_u64(seed) }
    }

    /// The level.
    pub fn level(&self) -> Level {
        self.level
    }

    /// Its action, or `None` when it is not the Marshal's move.
    pub fn act(&mut self, view: &MarshalView) -> Option<Action> {
        let legal = view.legal_actions();
        if self.level == Level::Random {
            return legal.sample(&mut self.rng);
        }
        if legal.draws.is_empty() && legal.guess.is_none() {
            return None;
        }
        let deduction = Deduction::of(view);
        if !legal.draws.is_empty() {
            let deck = match self.level {
                Level::Hard => best_deck(&deduction, &legal.draws),
                _ => *legal.draws.choose(&mut self.rng)?,
            };
            return Some(Action::Draw { deck });
        }
        let open = legal.guess?.numbers;
        let likely = |n: Card| deduction.hideout_share(n);
        let numbers = match self.level {
            Level::Hard => {
                let certain = deduction.certain().intersection(open);
                let best = open.difference(certain).iter().max_by(|a, b| likely(*a).total_cmp(&likely(*b)));
                match best {
                    _ if view.view().phase == Phase::Manhunt => Cards::from(most_likely(&deduction, open)?),
                    Some(best) if likely(best) > 0.0 || certain.is_empty() => certain.with(best),
                    _ => certain,
                }
            }
            _ => {
                let numbers: Vec<Card> = open.iter().collect();
                let chosen = numbers
                    .choose_weighted(&mut self.rng, |&n| likely(n))
                    .or_else(|_| numbers.choose(&mut self.rng).ok_or(()))
                    .ok()?;
                Cards::from(*chosen)
            }
        };
        Some(Action::Guess { numbers })
    }
}

fn most_likely(deduction: &Deduction, open: Cards) -> Option<Card> {
    open.iter().max_by(|a, b| deduction.hideout_share(*a).total_cmp(&deduction.hideout_share(*b)))
}

/// The deck whose cards carry most of the candidates' weight: drawing one of them rules it out.
fn best_deck(deduction: &Deduction, decks: &[Deck]) -> Deck {
    let weight = |deck: &Deck| -> f64 { deck.cards().iter().map(|n| deduction.hideout_share(n)).sum() };
    let mut best = decks[0];
    for deck in &decks[1..] {
        if weight(deck) > weight(&best) {
            best = *deck;
        }
    }
    best
}
