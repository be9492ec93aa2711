//! What each face-down hideout can be by the public rules alone ([`View::candidates`]): the
//! Marshal's aids (her guess board, her notebook, the warning before a guess that cannot be
//! right) show this and derive nothing themselves, so they can only be as wrong as the rules.
//!
//! It is the trail count's numbers (`trails.rs`, [`Evidence::trail_numbers`]: the same rules,
//! without the counting) over the [`Evidence`] of the view: a number is a candidate at a
//! position when at least one trail that fits the whole public record puts it there. The true
//! trail always fits, so a true hideout is never left out; no number is listed that the rules
//! (reach, order, draws, face-up cards, her hand, wrong guesses *as of when they were made*)
//! leave no place for.

use serde::{Deserialize, Serialize};

use crate::card::{Card, Cards};
use crate::evidence::Evidence;
use crate::role::Viewer;
use crate::view::View;

/// What each face-down hideout can be by the public rules alone, and why every other number
/// can be none of them.
///
/// # Examples
/// ```
/// use fugitive_core::{Action, Card, Cards, Game, Ruling, Setup, Viewer};
///
/// let mut game = Game::new(Setup::new(42u64));
/// let hideout = Card::new(2).unwrap();
/// game.apply(fugitive_core::Role::Fugitive, Action::Place { hideout, sprints: Cards::EMPTY })?;
///
/// // No sprint card under it: 3 above card 0 at most (R9).
/// let candidates = game.view(Viewer::Spectator).candidates().unwrap();
/// let numbers: Vec<u8> = candidates.positions[0].numbers.iter().map(Card::number).collect();
/// assert_eq!(numbers, [1, 2, 3]);
/// assert_eq!(candidates.why(Card::new(4).unwrap()), Some(Ruling::Trail));
/// // The Fugitive knows his trail: he gets none.
/// assert!(game.view(Viewer::Fugitive).candidates().is_none());
/// # Ok::<(), fugitive_core::ActionError>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Candidates {
    /// Every face-down position, in trail order, with the numbers it can be.
    pub positions: Vec<PositionNumbers>,
    /// Every number 1–41 that no face-down position can be, by why.
    pub ruled_out: RuledOut,
    /// The numbers of wrong guesses of two or more numbers the record has not explained yet
    /// (one of them was no face-down hideout then, but which is not known) that some position
    /// can still be.
    pub doubtful: Cards,
}

/// The numbers one face-down position can be.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PositionNumbers {
    /// Trail position, 1 for the first hideout.
    pub position: usize,
    /// The numbers it can be (at least one trail that fits the record puts it there).
    pub numbers: Cards,
}

/// The numbers 1–41 that no face-down position can be, each under the first reason that
/// applies ([`Ruling`]'s order): every such number in exactly one set. Grouped by reason rather
/// than listed number by number, so that a state frame carries them in a few bytes each.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct RuledOut {
    /// Face-up hideouts ([`Ruling::Revealed`]).
    pub revealed: Cards,
    /// Face-up sprint cards and those M2 Informant showed ([`Ruling::Sprint`]).
    pub sprint: Cards,
    /// Her hand ([`Ruling::Held`]).
    pub held: Cards,
    /// Ruled out by wrong guesses ([`Ruling::Guessed`]).
    pub guessed: Cards,
    /// Left no place by the trail's order, reach and draws ([`Ruling::Trail`]).
    pub trail: Cards,
}

impl RuledOut {
    /// Every number ruled out, whatever the reason.
    pub fn all(&self) -> Cards {
        self.revealed.union(self.sprint).union(self.held).union(self.guessed).union(self.trail)
    }

    /// Why `number` is ruled out, if it is.
    pub fn why(&self, number: Card) -> Option<Ruling> {
        [
            (self.revealed, Ruling::Revealed),
            (self.sprint, Ruling::Sprint),
            (self.held, Ruling::Held),
            (self.guessed, Ruling::Guessed),
            (self.trail, Ruling::Trail),
        ]
        .into_iter()
        .find_map(|(numbers, why)| numbers.contains(number).then_some(why))
    }

    fn insert(&mut self, number: Card, why: Ruling) {
        let set = match why {
            Ruling::Revealed => &mut self.revealed,
            Ruling::Sprint => &mut self.sprint,
            Ruling::Held => &mut self.held,
            Ruling::Guessed => &mut self.guessed,
            Ruling::Trail => &mut self.trail,
        };
        set.insert(number);
    }
}

/// The numbers some face-down position could be were no wrong guess made, with the evidence
/// (without the guesses) they were found from: kept by a caller of [`Candidates::of_after`]
/// so that the next call looks for them again only when that evidence changed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Unguessed {
    evidence: Evidence,
    numbers: Cards,
}

/// Why no face-down position can be a number, the first that applies in this order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Ruling {
    /// It is a face-up hideout.
    Revealed,
    /// It is a face-up sprint card, or one M2 Informant showed (R12).
    Sprint,
    /// It is in the Marshal's hand (her view only: a spectator does not see it).
    Held,
    /// Wrong guesses rule it out: without them some position could be it (R12, R13).
    Guessed,
    /// The order of the trail, the reach and the draws leave no place for it (R9, R10, R3,
    /// R8a).
    Trail,
}

impl Candidates {
    /// The candidates the evidence leaves (see the module documentation).
    pub fn of(evidence: &Evidence) -> Candidates {
        Candidates::of_after(evidence, None).0
    }

    /// [`Candidates::of`], and what it found without the wrong guesses (to tell
    /// [`Ruling::Guessed`] from [`Ruling::Trail`]), for the next call: given `before` (what a
    /// call on earlier evidence returned), that second pass over the trails is made only when
    /// the evidence without the guesses changed. A wrong guess changes the evidence and not
    /// what the other rules allow, and the second pass was half of the trail counting a server
    /// did per action (issue 28).
    ///
    /// # Examples
    /// ```
    /// use fugitive_core::{Action, Card, Cards, Candidates, Game, Role, Setup, Viewer};
    ///
    /// let mut game = Game::new(Setup::new(42u64));
    /// let hideout = Card::new(2).unwrap();
    /// game.apply(Role::Fugitive, Action::Place { hideout, sprints: Cards::EMPTY })?;
    /// let evidence = game.view(Viewer::Spectator).evidence().unwrap();
    /// let (candidates, unguessed) = Candidates::of_after(&evidence, None);
    /// assert_eq!(candidates, Candidates::of(&evidence));
    /// // No wrong guess yet: nothing was found without them.
    /// assert!(unguessed.is_none());
    /// # Ok::<(), fugitive_core::ActionError>(())
    /// ```
    pub fn of_after(evidence: &Evidence, before: Option<&Unguessed>) -> (Candidates, Option<Unguessed>) {
        let positions = evidence.trail_numbers();
        let possible = any_position(&positions);
        let revealed: Cards = evidence.positions().iter().filter_map(|p| p.number).collect();
        let unguessed = evidence.has_guess_evidence().then(|| {
            let without = evidence.without_guesses();
            match before {
                Some(before) if before.evidence.counts_the_same(&without) => before.clone(),
                _ => {
                    let numbers = any_position(&without.trail_numbers());
                    Unguessed { evidence: without, numbers }
                }
            }
        });
        let mut ruled_out = RuledOut::default();
        for number in Cards::range(1, 41).difference(possible) {
            let why = if revealed.contains(number) {
                Ruling::Revealed
            } else if evidence.face_up().contains(number) {
                Ruling::Sprint
            } else if evidence.hand().contains(number) {
                Ruling::Held
            } else if unguessed.as_ref().is_some_and(|u| u.numbers.contains(number)) {
                Ruling::Guessed
            } else {
                Ruling::Trail
            };
            ruled_out.insert(number, why);
        }
        let candidates =
            Candidates { positions, ruled_out, doubtful: evidence.doubtful().intersection(possible) };
        (candidates, unguessed)
    }

    /// The numbers face-down `position` can be (empty for a position that is not face down).
    pub fn at(&self, position: usize) -> Cards {
        self.positions.iter().find(|p| p.position == position).map(|p| p.numbers).unwrap_or_default()
    }

    /// Why no face-down position can be `number`; `None` when some can.
    pub fn why(&self, number: Card) -> Option<Ruling> {
        self.ruled_out.why(number)
    }
}

/// The numbers some position can be.
fn any_position(positions: &[PositionNumbers]) -> Cards {
    positions.iter().fold(Cards::EMPTY, |all, p| all.union(p.numbers))
}

impl View {
    /// What each face-down hideout can be by the public rules alone, read from this view: the
    /// public record, and the Marshal's hand in her view. `None` for the Fugitive, who knows his
    /// trail, and once the game is over, when every card is public (R18).
    pub fn candidates(&self) -> Option<Candidates> {
        self.evidence().map(|evidence| Candidates::of(&evidence))
    }

    /// The evidence [`View::candidates`] are made from (`None` when it makes none): the
    /// candidates are a function of it alone, so a caller that kept the last evidence and its
    /// candidates need not go over the trails again while the evidence stays the same.
    pub fn evidence(&self) -> Option<Evidence> {
        (self.viewer != Viewer::Fugitive && self.outcome.is_none()).then(|| Evidence::read(self))
    }
}
