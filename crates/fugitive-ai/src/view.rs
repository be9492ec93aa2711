//! A role's view: all a bot or the deduction may read, and the legal actions it allows.

use std::fmt;
use std::str::FromStr;

use fugitive_core::{Card, Cards, Choice, DeckCard, Event, Game, LegalActions, Role, View, Viewer};
use serde::{Deserialize, Serialize};
use thiserror::Error;

/// The Marshal's view (R20). It can be built only from a view for the Marshal, and whatever
/// she may not see is blanked on the way in, so a bot holding one cannot learn the trail.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MarshalView(View);

/// The Fugitive's view (R19), blanked the same way of what he may not see.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FugitiveView(View);

/// A view handed to the wrong role's wrapper.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Error)]
#[error("this is the {found:?}'s view, not the {expected}'s")]
pub struct WrongViewer {
    /// The role the wrapper is for.
    pub expected: Role,
    /// Whose view it was.
    pub found: Viewer,
}

impl MarshalView {
    /// The Marshal's view of `game`.
    pub fn of(game: &Game) -> MarshalView {
        MarshalView(game.view(Viewer::Marshal).during_play())
    }

    /// Wraps a view the Marshal received, e.g. from the server.
    ///
    /// # Errors
    /// [`WrongViewer`] when it is not the Marshal's view.
    pub fn new(view: View) -> Result<MarshalView, WrongViewer> {
        during_play(view, Role::Marshal).map(MarshalView)
    }

    /// The view.
    pub fn view(&self) -> &View {
        &self.0
    }

    /// What the Marshal may do now (agrees with `Game::legal_actions`).
    pub fn legal_actions(&self) -> LegalActions {
        self.0.legal_actions()
    }
}

impl FugitiveView {
    /// The Fugitive's view of `game`.
    pub fn of(game: &Game) -> FugitiveView {
        FugitiveView(game.view(Viewer::Fugitive).during_play())
    }

    /// Wraps a view the Fugitive received, e.g. from the server.
    ///
    /// # Errors
    /// [`WrongViewer`] when it is not the Fugitive's view.
    pub fn new(view: View) -> Result<FugitiveView, WrongViewer> {
        during_play(view, Role::Fugitive).map(FugitiveView)
    }

    /// The view.
    pub fn view(&self) -> &View {
        &self.0
    }

    /// His hand.
    pub fn hand(&self) -> Cards {
        self.0.hands.fugitive.cards.unwrap_or_default()
    }

    /// What the Fugitive may do now (agrees with `Game::legal_actions`).
    pub fn legal_actions(&self) -> LegalActions {
        self.0.legal_actions()
    }
}

/// `expected`'s view as he may see it while the game runs, even after the end: a bot never
/// needs more, and this keeps a hand-built view from leaking. The rules are the core's
/// ([`View::during_play`]).
fn during_play(view: View, expected: Role) -> Result<View, WrongViewer> {
    if view.viewer.is(expected) {
        Ok(view.during_play())
    } else {
        Err(WrongViewer { expected, found: view.viewer })
    }
}

/// The last card of the trail, `p` of R9 (the Fugitive's view knows it).
pub(crate) fn last_card(view: &View) -> Card {
    view.trail.last().and_then(|t| t.card).unwrap_or(Card::START)
}

/// The card this player last looked at with N5 Town Gossip, if it is still known.
pub(crate) fn peeked(view: &View) -> Option<DeckCard> {
    view.history.iter().rev().find_map(|e| match *e {
        Event::Peeked { card, .. } => card,
        _ => None,
    })
}

/// The first of `choices` with the highest score (an answer to an event's decision, E3).
pub(crate) fn best_choice<S: PartialOrd>(choices: &[Choice], score: impl Fn(&Choice) -> S) -> Choice {
    let mut best = choices[0];
    for choice in &choices[1..] {
        if score(choice) > score(&best) {
            best = *choice;
        }
    }
    best
}

/// How strong a computer player is; the order is the ladder's, weakest first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Level {
    /// Uniformly random legal play (`LegalActions::sample`): the baseline.
    Random,
    /// Simple rules of thumb.
    Easy,
    /// A step between: the Marshal mostly names the likeliest number of the trail count, one at
    /// a time; the Fugitive searches a few rollouts against a casual Marshal.
    Medium,
    /// The Marshal: greedy on the exact deduction. The Fugitive: determinized Monte Carlo against
    /// our own Marshals, hiding where her belief is weakest.
    Hard,
}

impl Level {
    /// All levels, weakest first: the ladder (`BENCHMARKS.md`, issue 29), each a clear step up
    /// from the one before in both roles.
    pub const ALL: [Level; 4] = [Level::Random, Level::Easy, Level::Medium, Level::Hard];

    /// The level's name on the command line and the wire.
    pub const fn name(self) -> &'static str {
        match self {
            Level::Random => "random",
            Level::Easy => "easy",
            Level::Medium => "medium",
            Level::Hard => "hard",
        }
    }
}

impl fmt::Display for Level {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A level name that is not `random`, `easy`, `medium` or `hard`.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
#[error("there is no level {0:?}: levels are random, easy, medium and hard")]
pub struct LevelError(pub String);

impl FromStr for Level {
    type Err = LevelError;

    fn from_str(s: &str) -> Result<Level, LevelError> {
        Level::ALL.into_iter().find(|l| l.name() == s).ok_or_else(|| LevelError(s.to_string()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use fugitive_core::Setup;
    use rand::SeedableRng;
    use rand_chacha::ChaCha8Rng;

    #[test]
    fn a_view_is_blanked_of_what_the_role_may_not_see() {
        let mut game = Game::new(Setup::new(3u64));
        let mut rng = ChaCha8Rng::seed_from_u64(3);
        while let Some(role) = game.to_move() {
            let action = game.legal_actions(role).sample(&mut rng).unwrap();
            game.apply(role, action).unwrap();
        }
        // After the end everything is public (R18); the wrappers still keep to R19/R20.
        let full = game.view(Viewer::Marshal);
        assert!(full.hands.fugitive.cards.is_some());
        let marshal = MarshalView::new(full).unwrap();
        assert_eq!(marshal.view().hands.fugitive.cards, None);
        assert!(marshal.view().trail.iter().all(|t| t.face_up || t.card.is_none()));
        assert!(marshal.view().decks.iter().all(|d| d.cards.is_none()));
        assert_eq!(marshal.view().seed, None);
        let fugitive = FugitiveView::new(game.view(Viewer::Fugitive)).unwrap();
        assert_eq!(fugitive.view().hands.marshal.cards, None);
        assert!(MarshalView::new(game.view(Viewer::Spectator)).is_err());
        assert!(FugitiveView::new(game.view(Viewer::Marshal)).is_err());
        assert_eq!("hard".parse::<Level>(), Ok(Level::Hard));
        assert!("best".parse::<Level>().is_err());
    }
}
