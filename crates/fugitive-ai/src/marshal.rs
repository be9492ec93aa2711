//! The computer Marshal: it reads only a [`MarshalView`].

use fugitive_core::{Action, Card, Cards, Choice, Deck, DeckCard, Event, Icon, Reach};
use rand::seq::IndexedRandom;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use crate::deduction::{Deduction, Joint};
use crate::view::{Level, MarshalView, best_choice, peeked};

/// How often the `medium` Marshal plays her hunch (see [`MarshalBot`]): 7 guesses in 10. Over
/// games 0-1,999 of `fugitive-sim --seed 2` the `easy` Fugitive won 29.1 % against her (33.6 %
/// at 6 in 10, 24.9 % at 8 in 10, 16.4 % always), and the `hard` one 86 of 100 games at 6 in
/// 10; measured on seed 1 in the round robin, 29.0 % of 2,000 and 70.5 % of 722: a clear step
/// (at least 65 %) from both sides. The single styles tried first were not:
/// the hunch every time (the `easy` Fugitive 16.4 %, the `hard` one 55 %), the likeliest number
/// with ties drawn at random (31.2 %, 62 %), or the `easy` odds sharpened to the 4th power with
/// draws from the deck holding most candidates (29.1 %, 60 %) (`BENCHMARKS.md`, issue 29).
const MEDIUM_HUNCH: f64 = 0.7;

/// A computer Marshal.
///
/// - `random`: any legal action (`LegalActions::sample`).
/// - `easy`: draws from a random deck; guesses one number, drawn at random with the trail
///   count's odds of it being a hideout ([`Deduction::trails_only`]).
/// - `medium`: reads the same trail count and draws from a random deck, like `easy`; but on
///   most of her guesses ([`MEDIUM_HUNCH`]) she plays her hunch: the likeliest number, and of
///   equally likely ones the furthest along (a Fugitive runs as far as he can); on the others
///   she names a number with the odds, as `easy` does. One number at a time, never the exact
///   notepad.
/// - `hard`: reads [`Deduction::trails_within_worlds`] (the numbers the exact count of worlds
///   leaves, with the trail count's odds); draws from the deck holding most of the
///   deduction's candidates; guesses the most
///   likely number, adding every number it is certain of (a multi-number guess only when it is
///   certain of all but one); in the Manhunt, a number of the set of face-down hideouts the
///   worlds make likeliest ([`manhunt_guess`]: she must name them all). A guess that would
///   find a hideout of 30 or more without finding them all, while his 42 could reach past the
///   trail's end on his next move (the escape, R15), is replaced: by the same guess among the
///   numbers below 30 if one can be right, else by every face-down hideout at once, each its
///   likeliest number (not a guess she already made).
/// - Events (`easy` and `medium`; `hard` reads her notepad for each, `choose_hard`): M4 Dragnet names the most likely
///   number; M2 Informant picks the face-down hideout with most sprint cards; M3 Stakeout the
///   range holding most of the candidates; F4 Bad Intel returns her lowest card; N5 Town Gossip
///   looks at the deck she would draw from and sends a footprints event to the bottom; N6
///   Change of Plans is declined (her cards are her knowledge).
#[derive(Clone, Debug)]
pub struct MarshalBot {
    level: Level,
    rng: ChaCha8Rng,
    /// Reads the trail count alone (`Deduction::trails_only`): the cheap model of her the hard
    /// Fugitive plays thousands of games against.
    fast: bool,
}

impl MarshalBot {
    /// A Marshal of this level; `seed` makes its choices reproducible.
    pub fn new(level: Level, seed: u64) -> MarshalBot {
        MarshalBot { level, rng: ChaCha8Rng::seed_from_u64(seed), fast: false }
    }

    /// The same Marshal reading the trail count instead of the worlds (the notepad before
    /// issue 15): about a hundred times cheaper, for the hard Fugitive's rollouts.
    #[must_use]
    pub(crate) fn fast(self) -> MarshalBot {
        MarshalBot { fast: true, ..self }
    }

    /// What she reads her odds from. The hard Marshal: the trail count's odds on what the worlds
    /// leave (`deduction.rs`; on the worlds' own shares she was weaker). The easy one keeps the
    /// trail count she was measured with, so her strength, and the levels' order, stay as they were.
    fn deduction(&self, view: &MarshalView) -> Deduction {
        match self.level {
            Level::Hard if !self.fast => Deduction::trails_within_worlds(view),
            _ => Deduction::trails_only(view),
        }
    }

    /// Its action, or `None` when it is not the Marshal's move.
    pub fn act(&mut self, view: &MarshalView) -> Option<Action> {
        let legal = view.legal_actions();
        if self.level == Level::Random {
            return legal.sample(&mut self.rng);
        }
        if legal.draws.is_empty() && legal.guess.is_none() && legal.choices.is_empty() {
            return None;
        }
        if !legal.draws.is_empty() && legal.choices.is_empty() {
            // The `easy` Marshal draws without reading her notepad (it is solved only when used:
            // the hard Fugitive's rollouts play thousands of her turns).
            let deck = match self.level {
                Level::Hard => best_deck(&self.deduction(view), &legal.draws),
                _ => *legal.draws.choose(&mut self.rng)?,
            };
            return Some(Action::Draw { deck });
        }
        let deduction = self.deduction(view);
        if !legal.choices.is_empty() {
            let choice = match self.level {
                Level::Hard => choose_hard(view, &deduction, &legal.choices, &legal.draws),
                _ => choose(view, &deduction, &legal.choices, &legal.draws),
            };
            return Some(Action::Choose { choice });
        }
        let guess = legal.guess?;
        let open = guess.numbers;
        let likely = |n: Card| deduction.hideout_share(n);
        let numbers = match self.level {
            Level::Hard => {
                // (Not in the hard Fugitive's rollouts: the exact count is a hundred times dearer.)
                let manhunt = !self.fast && view.view().trail.iter().any(|t| t.card == Some(Card::ESCAPE));
                let certain = deduction.certain().intersection(open);
                let best = open.difference(certain).iter().max_by(|a, b| likely(*a).total_cmp(&likely(*b)));
                let numbers = match best {
                    // One number only: in the Manhunt (R16) and after F3 Lie Low.
                    // In the Manhunt, the whole set she must still name, by the worlds.
                    _ if guess.single && manhunt => Cards::from(manhunt_guess(view, open)?),
                    _ if guess.single => Cards::from(most_likely(&deduction, open)?),
                    Some(best) if likely(best) > 0.0 || certain.is_empty() => certain.with(best),
                    _ => certain,
                };
                if guess.single || !opens_the_escape(view, &deduction, numbers) {
                    numbers
                } else {
                    // Finding a hideout of 30 or more alone would let him escape: the same
                    // guess among the numbers below 30 if one can be right, else every
                    // face-down hideout at once, each its likeliest number (right, she wins).
                    let low = open.intersection(Cards::from_iter((1..30).filter_map(Card::new)));
                    let certain_low = certain.intersection(low);
                    let best =
                        low.difference(certain).iter().max_by(|a, b| likely(*a).total_cmp(&likely(*b)));
                    let tried = |numbers: Cards| {
                        view.view()
                            .history
                            .iter()
                            .any(|e| matches!(*e, Event::Guessed { numbers: n, .. } if n == numbers))
                    };
                    match best {
                        Some(best) if likely(best) > 0.0 => certain_low.with(best),
                        // Not a guess she made already (it was wrong, and would be again).
                        _ => everywhere(&deduction, open).filter(|&all| !tried(all)).unwrap_or(numbers),
                    }
                }
            }
            // Her hunch: `most_likely` takes the last of equally likely numbers, the highest.
            Level::Medium if self.rng.random_bool(MEDIUM_HUNCH) => {
                Cards::from(most_likely(&deduction, open)?)
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

/// The Marshal's answer to an event's pending decision (E3), one of `choices`.
fn choose(view: &MarshalView, deduction: &Deduction, choices: &[Choice], draws: &[Deck]) -> Choice {
    let v = view.view();
    let score = |choice: &Choice| -> f64 {
        match *choice {
            // M4: the number most likely to be a hideout.
            Choice::Number { number } => deduction.hideout_share(number),
            // M2: the hideout with most sprint cards hides the most.
            Choice::Hideout { position } => v.trail.get(position).map_or(0.0, |t| t.sprint_count as f64),
            // M3: the range holding most of the candidates.
            Choice::Range { deck } => deck.cards().iter().map(|n| deduction.hideout_share(n)).sum(),
            // F4 and N6: her lowest card (behind the trail, least use to him); N6 is declined.
            Choice::Card { card } => -f64::from(card.number()),
            Choice::Decline => 100.0,
            // N5: the deck she would draw from next.
            Choice::Deck { deck } => {
                let pick = best_deck(deduction, if draws.is_empty() { &Deck::ALL } else { draws });
                if deck == pick { 1.0 } else { 0.0 }
            }
            // N5: a footprints event goes to the bottom; anything else stays for her to draw.
            Choice::Move { bottom } => {
                let footprints = matches!(
                    peeked(v),
                    Some(DeckCard::Event(e)) if e.icon() == Icon::Footprints
                );
                if bottom == footprints { 1.0 } else { 0.0 }
            }
            Choice::Sprint { .. } => 0.0,
        }
    };
    best_choice(choices, score)
}

/// The `hard` Marshal's answer (E3): every choice read from the notepad, which counts what
/// each event told her (`facts.rs`), so what she learns is never lost.
///
/// - M4 Dragnet: the likeliest number (as the others).
/// - M2 Informant: the face-down hideout her notepad knows least (the most even odds over its
///   numbers, by entropy), the one with more sprint cards of equals.
/// - M3 Stakeout: the range whose answer she can least foretell: the largest variance of the
///   count of face-down hideouts in it, each position's share of the range taken alone.
/// - F4 Bad Intel and N6 Change of Plans: the card of her largest deck (it lies deepest, so it
///   stays out of his hands longest, and a card she knows in a deck is as good as in her hand);
///   N6 is taken, not declined: she puts such a card back and draws a new one.
/// - N5 Town Gossip: the deck she would draw from; a hideout card goes to the bottom (out of his
///   reach, and still hers to know), a footprints event too; anything else stays for her.
fn choose_hard(view: &MarshalView, deduction: &Deduction, choices: &[Choice], draws: &[Deck]) -> Choice {
    let v = view.view();
    let entropy = |position: usize| -> f64 {
        let Some(p) = deduction.positions().iter().find(|p| p.position == position) else { return 0.0 };
        let total: f64 = p.candidates.iter().map(|c| c.worlds as f64).sum();
        if total <= 0.0 {
            return 0.0;
        }
        p.candidates.iter().map(|c| c.worlds as f64 / total).filter(|&q| q > 0.0).map(|q| -q * q.ln()).sum()
    };
    let score = |choice: &Choice| -> f64 {
        match *choice {
            Choice::Number { number } => deduction.hideout_share(number),
            Choice::Hideout { position } => {
                entropy(position) * 100.0 + v.trail.get(position).map_or(0.0, |t| t.sprint_count as f64)
            }
            Choice::Range { deck } => deduction
                .positions()
                .iter()
                .map(|p| {
                    let q: f64 = deck.cards().iter().map(|n| deduction.share(p.position, n)).sum();
                    q * (1.0 - q)
                })
                .sum(),
            Choice::Card { card } => {
                let size = Deck::of(card).map_or(0, |d| v.decks[d.index()].size);
                1000.0 + size as f64 - f64::from(card.number()) / 100.0
            }
            Choice::Decline => 0.0,
            Choice::Deck { deck } => {
                let pick = best_deck(deduction, if draws.is_empty() { &Deck::ALL } else { draws });
                if deck == pick { 1.0 } else { 0.0 }
            }
            Choice::Move { bottom } => {
                let down = match peeked(v) {
                    Some(DeckCard::Hideout(_)) => true,
                    Some(DeckCard::Event(e)) => e.icon() == Icon::Footprints,
                    _ => false,
                };
                if bottom == down { 1.0 } else { 0.0 }
            }
            Choice::Sprint { .. } => 0.0,
        }
    };
    best_choice(choices, score)
}

/// Whether finding `numbers` could let him escape on his very next move (R15): it would turn a
/// hideout of 30 or more face up while the door is still shut, leave some face down (finding
/// them all wins at once, R14), and his 42 could reach past the trail's last card with what he
/// may then hold: every other card of his hand and the one he draws first (R7), each worth 2 at
/// most, from the next space's reach (E4: 5 on a safe house, no sprint cards on a roadblock); a
/// face-down last card, if any of its candidates is that near. (Counting it near only when more
/// than 1 in 4 of her notepad's weight is, the `easy` Fugitive won more with helpful:fugitive:
/// 7.0 % against 6.4 % of 2,000 games, `BENCHMARKS.md`.)
fn opens_the_escape(view: &MarshalView, deduction: &Deduction, numbers: Cards) -> bool {
    let v = view.view();
    let placed_42 = v.trail.iter().any(|t| t.card == Some(Card::ESCAPE));
    let high = numbers.iter().any(|n| n.number() >= 30);
    if placed_42 || !high || v.highest_revealed() >= 30 || numbers.len() >= deduction.positions().len() {
        return false;
    }
    let Some(last) = v.trail.last() else { return false };
    let next = v.trail.len();
    let effect =
        v.events.as_ref().and_then(|e| e.trail.iter().find(|t| t.position == next)).map(|t| t.effect);
    let sprint = u8::try_from(2 * v.hands.fugitive.size).unwrap_or(u8::MAX);
    let reaches = |p: u8| 42 <= Reach::on(effect).with(sprint).saturating_add(p);
    match last.card.filter(|_| last.face_up) {
        Some(card) => reaches(card.number()),
        None => {
            let Some(p) = deduction.positions().iter().find(|p| p.position == next - 1) else { return true };
            p.candidates.iter().any(|c| c.worlds > 0 && reaches(c.number.number()))
        }
    }
}

/// A guess of every face-down hideout at once: each position's likeliest number among `open`
/// not named for an earlier one; `None` if a position has none.
fn everywhere(deduction: &Deduction, open: Cards) -> Option<Cards> {
    let mut numbers = Cards::EMPTY;
    for p in deduction.positions() {
        let best = p
            .candidates
            .iter()
            .filter(|c| open.contains(c.number) && !numbers.contains(c.number))
            .max_by_key(|c| c.worlds)?;
        numbers.insert(best.number);
    }
    Some(numbers)
}

/// How many full sets of face-down hideouts her Manhunt guess weighs exactly (one exact count
/// each, [`manhunt_guess`]), and how many partial sets the search for them keeps per position.
const MANHUNT_SETS: usize = 16;
const MANHUNT_BEAM: usize = 64;

/// Her guess in the Manhunt (R16). She names one number at a time and the first miss loses, so
/// she wins only if every number she will still name is right: what counts is the chance of the
/// whole set of face-down hideouts ([`likeliest_set`]), not of the next number alone. She names
/// first its number likeliest alone; a right guess shows its sprint cards, and she chooses
/// again with them. The likeliest number when the count is not exact, or with one hideout left
/// (the two are then the same).
fn manhunt_guess(view: &MarshalView, open: Cards) -> Option<Card> {
    let deduction = Deduction::of(view);
    match likeliest_set(view, &deduction, open) {
        Some(set) if deduction.positions().len() >= 2 => most_likely(&deduction, set),
        _ => most_likely(&deduction, open),
    }
}

/// The full set of face-down hideouts (one number of `open` per position) on which most worlds
/// put every number, counted exactly ([`Joint`]), among the [`MANHUNT_SETS`] sets with the
/// largest product of their positions' shares in `deduction` ([`Deduction::of`]: every
/// hideout placed, how likely he was to hold each card is what tells them apart). `None` when
/// the count is not exact or no set has a world.
fn likeliest_set(view: &MarshalView, deduction: &Deduction, open: Cards) -> Option<Cards> {
    if !deduction.exact() {
        return None;
    }
    let joint = Joint::of(view)?;
    let mut best: Option<(f64, Cards)> = None;
    for set in likeliest_sets(deduction, open) {
        let Some(share) = joint.share(set) else { continue };
        if share > 0.0 && best.is_none_or(|(b, _)| share > b) {
            best = Some((share, set));
        }
    }
    best.map(|(_, set)| set)
}

/// The [`MANHUNT_SETS`] full sets of face-down hideouts (one number of `open` per position,
/// increasing along the trail) with the largest product of their positions' shares, likeliest
/// first: a beam of [`MANHUNT_BEAM`] partial sets, position by position.
fn likeliest_sets(deduction: &Deduction, open: Cards) -> Vec<Cards> {
    let mut beam: Vec<(f64, u8, Cards)> = vec![(1.0, 0, Cards::EMPTY)];
    for p in deduction.positions() {
        let mut next = Vec::with_capacity(beam.len() * p.candidates.len());
        for &(score, last, set) in &beam {
            for c in p.candidates.iter().filter(|c| c.worlds > 0 && c.number.number() > last) {
                if open.contains(c.number) {
                    let share = deduction.share(p.position, c.number);
                    next.push((score * share, c.number.number(), set.with(c.number)));
                }
            }
        }
        next.sort_by(|a, b| b.0.total_cmp(&a.0));
        next.truncate(MANHUNT_BEAM);
        beam = next;
    }
    beam.truncate(MANHUNT_SETS);
    beam.into_iter().map(|(_, _, set)| set).collect()
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
