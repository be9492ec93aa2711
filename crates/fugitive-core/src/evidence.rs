//! The public record, read as evidence about the face-down hideouts: what a Marshal (or a
//! spectator) can know of the trail from the rules alone. [`Evidence::count_trails`]
//! (`trails.rs`) counts the trails that fit it, and [`Evidence::trail_numbers`] finds the
//! numbers they put at each position without counting them;
//! [`View::candidates`](crate::View::candidates) (`candidates.rs`) and the computer's exact
//! count of worlds (`fugitive-ai`) build on them.
//!
//! # The rules read
//! 1. **Cards.** No face-down hideout is face up anywhere or in her hand (R12; her hand only when
//!    the view shows it: a spectator does not see it, R21).
//! 2. **Order and reach.** The hideouts of positions 0 (card 0), 1, …, n strictly increase, and
//!    position `i` is at most [`Reach::with`] its sprint value above position `i − 1` (R9, R10,
//!    E4): the value of its sprint cards when they are known (face up, or shown by M2
//!    Informant), else at most 2 per card.
//! 3. **Draws.** Every card placed at position `i`, hideout or sprint card, is one of his fixed
//!    cards 1, 2, 3, 42, one he was dealt, or one he drew before placing position `i`: the
//!    history says from which deck each draw came (R3, R8a), so the hideouts of positions
//!    `1..=i` from deck `d`, with the sprint cards known there, number at most what he had
//!    taken from `d` by then.
//! 4. **Guesses.** For every wrong guess of numbers `G`, not every number of `G` was a
//!    face-down hideout **at that moment** (R12, R13): a hideout placed later may be any number
//!    the other rules allow. A number of `G` since found at a position that was face down then
//!    was one of them; a number face up elsewhere or in her hand made the guess wrong alone.
//!    With one number left it is ruled out at the positions face down then; with more, the
//!    guess stays *open* (one of them was not a hideout then). Of the open guesses, one implied
//!    by another is merged away (the same numbers named again later, or more numbers named with
//!    fewer positions), and only the newest [`MAX_OPEN_GUESSES`] are kept: past that budget the
//!    oldest guesses' evidence is left out, which allows more trails, never fewer.
//!
//! With event cards, the trail events are read (rule 2) and the draws they cause are draws;
//! what M3 Stakeout counted, M6 Eyewitness's group, a top card seen with N5 Town Gossip and the
//! cards returned to a deck by F4 Bad Intel or N6 Change of Plans are left out, which only ever
//! allows more trails. A card an F5 Smoke Screen added counts for the reach only (it may have
//! been drawn after the placement).

use crate::card::{Card, Cards};
use crate::deck::Deck;
use crate::history::Event;
use crate::reach::Reach;
use crate::role::Role;
use crate::view::View;

/// The most open multi-number wrong guesses kept (one bit each in the trail count's state);
/// older ones beyond it are left out (rule 4).
pub const MAX_OPEN_GUESSES: usize = 32;

/// What the Fugitive holds of each deck at the start (R3), by [`Deck::index`].
const DEALT: [i64; 3] = [3, 2, 0];

/// One position of the trail as the public record shows it (see the module documentation).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PositionEvidence {
    /// The hideout, if face up.
    pub number: Option<Card>,
    /// The rule of its space (E4).
    pub reach: Reach,
    /// How many sprint cards lie under it.
    pub sprint_count: u8,
    /// Its sprint cards, when face up (never under 42 while the game runs, R11).
    pub sprints: Option<Cards>,
    /// The most it may lie above the previous position (rule 2).
    pub most: u8,
    /// The numbers single-number wrong guesses rule out here (rule 4).
    pub forbidden: Cards,
    /// Per deck ([`Deck::index`]), the cards he had taken from it when he placed this position:
    /// the deal and his draws before it (rule 3); `i64::MAX` (no bound) for a position the
    /// history does not show placed, which only hand-built views have.
    had: [i64; 3],
    /// Per deck, the most hideouts from it among positions up to here (rule 3), already the
    /// least over the later positions.
    pub(crate) cap: [i64; 3],
}

impl PositionEvidence {
    /// How many cards of `deck` he had taken (dealt and drawn) when he placed this position:
    /// the most cards of `deck` this position and the earlier ones can hold (rule 3).
    pub fn had(&self, deck: Deck) -> i64 {
        self.had[deck.index()]
    }
}

/// A wrong guess of two or more numbers still unknown, made when the trail had `horizon`
/// positions (rule 4).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct OpenGuess {
    pub(crate) numbers: Cards,
    pub(crate) horizon: usize,
}

/// The evidence of a view's public record about its face-down hideouts (see the module
/// documentation).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Evidence {
    positions: Vec<PositionEvidence>,
    excluded: Cards,
    face_up: Cards,
    hand: Cards,
    taken: [i64; 3],
    events: bool,
    pub(crate) guesses: Vec<OpenGuess>,
    doubtful: Cards,
    impossible: bool,
}

impl Evidence {
    /// Reads the evidence in `view`: meant for a Marshal's or a spectator's view during play
    /// (it reads what the view shows: a Fugitive's view, or one of a finished game, shows the
    /// face-down cards' sprint cards, and it would use them).
    pub fn read(view: &View) -> Evidence {
        let trail = &view.trail[1..];
        let n = trail.len();
        let face_up = view.face_up();
        let hand = view.hands.marshal.cards.unwrap_or_default();
        // Rule 3: what he had from each deck at each placement, less known sprint cards.
        let mut drawn = DEALT;
        let mut had = vec![[i64::MAX; 3]; n];
        // Rule 4: each wrong guess with the trail length and the face-down positions then.
        let mut placed = 0;
        let mut revealed_before = vec![false; n + 1];
        let mut wrong = Vec::new();
        let mut smoke = vec![false; n + 1];
        for event in &view.history {
            match *event {
                Event::SprintAdded { position, .. } if position <= n => smoke[position] = true,
                Event::Drew { role: Role::Fugitive, deck, .. } => drawn[deck.index()] += 1,
                Event::Placed { position, .. } if (1..=n).contains(&position) => {
                    placed = position;
                    had[position - 1] = drawn;
                }
                Event::Revealed { position, .. } if position <= n => revealed_before[position] = true,
                Event::Guessed { numbers, right: false } => {
                    let hidden: Vec<bool> = (0..=placed).map(|i| i > 0 && !revealed_before[i]).collect();
                    wrong.push((numbers, hidden));
                }
                _ => {}
            }
        }
        let mut used = [0i64; 3];
        let spaces = trail_spaces(view, n);
        let mut positions: Vec<PositionEvidence> = trail
            .iter()
            .zip(&had)
            .enumerate()
            .map(|(i, (card, &had))| {
                let sprints = card.sprints.unwrap_or_default();
                if !smoke[i + 1] {
                    for deck in sprints.iter().filter_map(Deck::of) {
                        used[deck.index()] += 1;
                    }
                }
                let reach = spaces[i];
                let value = card.sprints.map_or(2 * card.sprint_count.min(20) as u8, Cards::sprint_value);
                let number = card.card.filter(|_| card.face_up);
                PositionEvidence {
                    number,
                    reach,
                    sprint_count: card.sprint_count.min(40) as u8,
                    sprints: card.sprints.filter(|_| number.is_some_and(|n| n != Card::ESCAPE)),
                    most: reach.with(value),
                    forbidden: Cards::EMPTY,
                    had,
                    cap: std::array::from_fn(|d| had[d].saturating_sub(used[d])),
                }
            })
            .collect();
        for i in (0..n.saturating_sub(1)).rev() {
            for d in 0..3 {
                positions[i].cap[d] = positions[i].cap[d].min(positions[i + 1].cap[d]);
            }
        }
        let mut evidence = Evidence {
            positions,
            excluded: hand.union(face_up),
            face_up,
            hand,
            taken: drawn,
            events: !view.rules.events.is_off(),
            guesses: Vec::new(),
            doubtful: Cards::EMPTY,
            impossible: false,
        };
        for (numbers, hidden) in wrong {
            evidence.add_wrong_guess(numbers, &hidden);
        }
        evidence.doubtful = evidence.guesses.iter().fold(Cards::EMPTY, |all, g| all.union(g.numbers));
        evidence.keep_open_guesses(MAX_OPEN_GUESSES);
        evidence
    }

    /// The positions of the trail, position 1 first (card 0 is not one).
    pub fn positions(&self) -> &[PositionEvidence] {
        &self.positions
    }

    /// The numbers no face-down hideout can be, whatever the trail: her hand (when the view
    /// shows it) and every number face up anywhere on the trail.
    pub fn excluded(&self) -> Cards {
        self.excluded
    }

    /// Every number face up anywhere on the trail ([`View::face_up`]).
    pub fn face_up(&self) -> Cards {
        self.face_up
    }

    /// The Marshal's hand, if the view shows it (else empty).
    pub fn hand(&self) -> Cards {
        self.hand
    }

    /// How many cards of `deck` he has taken from it: the deal and every draw (R3, R8a).
    pub fn taken(&self, deck: Deck) -> i64 {
        self.taken[deck.index()]
    }

    /// Whether `self` and `other` give the same trail count and the same candidates: they
    /// differ at most in how many cards he has taken in all ([`Evidence::taken`], which neither
    /// reads). A draw of his changes only that until he places a card, and the server counts
    /// the trails again only for evidence that does not count the same (issue 28).
    pub fn counts_the_same(&self, other: &Evidence) -> bool {
        // Every field named, so that a new one cannot be left out.
        let Evidence { positions, excluded, face_up, hand, taken: _, events, guesses, doubtful, impossible } =
            self;
        *positions == other.positions
            && *excluded == other.excluded
            && *face_up == other.face_up
            && *hand == other.hand
            && *events == other.events
            && *guesses == other.guesses
            && *doubtful == other.doubtful
            && *impossible == other.impossible
    }

    /// Whether the game has an event variant.
    pub fn has_events(&self) -> bool {
        self.events
    }

    /// Whether a wrong guess named only numbers that are known hideouts (only hand-built views
    /// have one): no trail fits.
    pub fn impossible(&self) -> bool {
        self.impossible
    }

    /// The numbers of the open wrong guesses (rule 4, before merging): each guess was wrong
    /// because one of its numbers was not a face-down hideout then, and the record does not
    /// yet say which.
    pub fn doubtful(&self) -> Cards {
        self.doubtful
    }

    /// Whether wrong guesses say anything here (rule 4).
    pub(crate) fn has_guess_evidence(&self) -> bool {
        self.impossible || !self.guesses.is_empty() || self.positions.iter().any(|p| !p.forbidden.is_empty())
    }

    /// This evidence without what wrong guesses say (rule 4): the trails the other rules allow.
    /// Two records that differ only in their wrong guesses give equal evidence here.
    #[must_use]
    pub fn without_guesses(&self) -> Evidence {
        let mut evidence = self.clone();
        for position in &mut evidence.positions {
            position.forbidden = Cards::EMPTY;
        }
        evidence.guesses.clear();
        evidence.doubtful = Cards::EMPTY;
        evidence.impossible = false;
        evidence
    }

    /// This evidence with one more wrong guess of `numbers`, made now (rule 4): what is left
    /// of it on the trails where not every number of `numbers` is a face-down hideout. Counting
    /// those and subtracting them from the count of this evidence gives the trails (or worlds)
    /// on which a guess of `numbers` would be right, exactly. `None` when keeping the new guess
    /// would drop an older one's evidence (more than [`MAX_OPEN_GUESSES`] open guesses).
    #[must_use]
    pub fn with_wrong_guess(&self, numbers: Cards) -> Option<Evidence> {
        let mut evidence = self.clone();
        let hidden: Vec<bool> =
            std::iter::once(false).chain(self.positions.iter().map(|p| p.number.is_none())).collect();
        evidence.add_wrong_guess(numbers, &hidden);
        evidence.doubtful = evidence.guesses.iter().fold(evidence.doubtful, |all, g| all.union(g.numbers));
        evidence.keep_open_guesses(usize::MAX);
        (evidence.guesses.len() <= MAX_OPEN_GUESSES).then_some(evidence)
    }

    /// The open-guess bits before position 1: one per open guess kept (rule 4), all set. A
    /// trail count carries them from position to position through [`Evidence::guess_step`].
    pub fn all_open(&self) -> u64 {
        (1u64 << self.guesses.len()) - 1
    }

    /// Rule 4 from the hideout `p` before position `i` (1-based) to `h` there: the open-guess
    /// bits after it, or `None` when a wrong guess would have been right. A bit stays set while
    /// every number of its guess up to here is on the trail.
    pub fn guess_step(&self, i: usize, p: u8, h: u8, mut open: u64) -> Option<u64> {
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

    /// Rule 4 for one wrong guess; `hidden[i]` says position `i` was face down then.
    fn add_wrong_guess(&mut self, numbers: Cards, hidden: &[bool]) {
        let horizon = hidden.len() - 1;
        let mut open = Cards::EMPTY;
        for g in numbers {
            let known = self.positions.iter().position(|s| s.number == Some(g)).map(|i| i + 1);
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
        // The face-down hideouts of then whose numbers are still unknown: a guess naming more
        // unknown numbers than that could not have been right, and says nothing.
        let room = (1..=horizon).filter(|&i| hidden[i] && self.positions[i - 1].number.is_none()).count();
        match open.len() {
            0 => self.impossible = true,
            n if n > room => {}
            1 => {
                for (i, position) in self.positions.iter_mut().enumerate().take(horizon) {
                    if hidden[i + 1] {
                        position.forbidden = position.forbidden.union(open);
                    }
                }
            }
            _ => self.guesses.push(OpenGuess { numbers: open, horizon }),
        }
    }
}

/// The reach rule of each of positions 1..=n, by the trail event under its space (E4).
fn trail_spaces(view: &View, n: usize) -> Vec<Reach> {
    let events = view.events.as_ref().map(|e| e.trail.as_slice()).unwrap_or_default();
    (1..=n).map(|p| Reach::on(events.iter().find(|t| t.position == p).map(|t| t.effect))).collect()
}
