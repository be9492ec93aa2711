//! A role's view: all a bot or the deduction may read, and the legal actions it allows.

use std::fmt;
use std::str::FromStr;

use fugitive_core::{
    Card, Cards, Deck, Event, Game, GuessOptions, HandView, LegalActions, OpeningHideouts, Phase, Placement,
    Role, SprintOptions, TrailEffect, View, Viewer,
};
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
        MarshalView(blank(game.view(Viewer::Marshal), Role::Marshal))
    }

    /// Wraps a view the Marshal received, e.g. from the server.
    ///
    /// # Errors
    /// [`WrongViewer`] when it is not the Marshal's view.
    pub fn new(view: View) -> Result<MarshalView, WrongViewer> {
        check(&view, Role::Marshal)?;
        Ok(MarshalView(blank(view, Role::Marshal)))
    }

    /// The view.
    pub fn view(&self) -> &View {
        &self.0
    }

    /// What the Marshal may do now (agrees with `Game::legal_actions`).
    pub fn legal_actions(&self) -> LegalActions {
        legal_actions(&self.0, Role::Marshal)
    }
}

impl FugitiveView {
    /// The Fugitive's view of `game`.
    pub fn of(game: &Game) -> FugitiveView {
        FugitiveView(blank(game.view(Viewer::Fugitive), Role::Fugitive))
    }

    /// Wraps a view the Fugitive received, e.g. from the server.
    ///
    /// # Errors
    /// [`WrongViewer`] when it is not the Fugitive's view.
    pub fn new(view: View) -> Result<FugitiveView, WrongViewer> {
        check(&view, Role::Fugitive)?;
        Ok(FugitiveView(blank(view, Role::Fugitive)))
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
        legal_actions(&self.0, Role::Fugitive)
    }
}

fn check(view: &View, expected: Role) -> Result<(), WrongViewer> {
    if view.viewer.is(expected) { Ok(()) } else { Err(WrongViewer { expected, found: view.viewer }) }
}

/// `view` with everything `role` may not see while the game runs removed (R19, R20), even
/// after the end: a bot never needs it, and this keeps a hand-built view from leaking.
fn blank(mut view: View, role: Role) -> View {
    let viewer = Viewer::from(role);
    view.viewer = viewer;
    if role == Role::Marshal {
        for card in &mut view.trail {
            let revealed = card.face_up && card.card != Some(Card::ESCAPE);
            card.card = card.card.filter(|_| card.face_up);
            card.sprints = card.sprints.filter(|_| revealed);
        }
    }
    let other = role.opponent();
    view.hands[other] = HandView { size: view.hands[other].size, cards: None };
    for deck in &mut view.decks {
        deck.cards = None;
    }
    view.seed = None;
    if let Some(events) = &mut view.events {
        events.pile_cards = None;
    }
    for event in &mut view.history {
        *event = event.seen_by(viewer);
    }
    // M2 Informant showed these sprint cards of a face-down hideout to everyone.
    for event in &view.history {
        if let Event::SprintsShown { position, sprints } = *event {
            if let Some(card) = view.trail.get_mut(position).filter(|c| !c.face_up) {
                card.sprints = Some(sprints);
            }
        }
    }
    view
}

/// The legal actions of `role` in `view`, built as `Game::legal_actions` builds them.
fn legal_actions(view: &View, role: Role) -> LegalActions {
    if view.outcome.is_some() {
        return LegalActions::default();
    }
    let mut legal = LegalActions { resign: true, ..LegalActions::default() };
    if view.phase.to_move() != Some(role) {
        return legal;
    }
    legal.time_out = true;
    match view.phase {
        Phase::Draw { .. } => {
            legal.draws = Deck::ALL.into_iter().filter(|d| view.decks[d.index()].size > 0).collect();
        }
        Phase::Opening { placed } => {
            legal.placements = placements(view);
            legal.end_turn = placed == 1 && view.rules.opening_hideouts == OpeningHideouts::OneOrTwo;
        }
        Phase::PlaceOrPass => {
            legal.placements = placements(view);
            legal.pass = true;
        }
        Phase::Guess | Phase::Manhunt => {
            let numbers = Cards::range(1, 41).difference(face_up(view));
            // F3 Lie Low limits the next guess to one number.
            let single = view.phase == Phase::Manhunt || view.events.as_ref().is_some_and(|e| e.single_guess);
            legal.guess = Some(GuessOptions { numbers, single });
        }
        // An event's pending decision (E3): the answers follow from the chooser's view.
        Phase::Pending { .. } => legal.choices = view.choices(),
        Phase::Over => {}
    }
    legal
}

/// The face-up cards of the trail.
pub(crate) fn face_up(view: &View) -> Cards {
    view.trail.iter().filter(|t| t.face_up).filter_map(|t| t.card).collect()
}

/// The last card of the trail, `p` of R9 (the Fugitive's view knows it).
pub(crate) fn last_card(view: &View) -> Card {
    view.trail.last().and_then(|t| t.card).unwrap_or(Card::START)
}

fn placements(view: &View) -> Vec<Placement> {
    let hand = view.hands.fugitive.cards.unwrap_or_default();
    let last = last_card(view);
    let second = view.phase == (Phase::Opening { placed: 0 })
        && view.rules.opening_hideouts == OpeningHideouts::ExactlyTwo;
    let effect = next_space_effect(view);
    let reach = if effect == Some(TrailEffect::SafeHouse) { 5 } else { 3 };
    let mut placements = Vec::new();
    for hideout in hand.iter().filter(|&h| h > last) {
        let value = (hideout.number() - last.number()).saturating_sub(reach);
        let from = match effect {
            Some(TrailEffect::Roadblock) => Cards::EMPTY,
            _ => hand.without(hideout).without(Card::ESCAPE),
        };
        if from.sprint_value() < value {
            continue;
        }
        let sprints = if second {
            let sets: Vec<Cards> = from
                .subsets()
                .filter(|s| s.sprint_value() >= value)
                .filter(|s| can_place(hand.without(hideout).difference(*s), hideout))
                .collect();
            if sets.is_empty() {
                continue;
            }
            SprintOptions::OneOf { sets }
        } else {
            SprintOptions::AtLeast { value, from }
        };
        placements.push(Placement { hideout, sprints });
    }
    placements
}

/// The trail event (F1 Safe House, M1 Roadblock, E4) under the space of the next hideout.
pub(crate) fn next_space_effect(view: &View) -> Option<TrailEffect> {
    let position = view.trail.len();
    let events = view.events.as_ref()?;
    events.trail.iter().find(|t| t.position == position).map(|t| t.effect)
}

/// Whether a hand can place some hideout after `last` (R6 `exactly_two`; as in the engine).
fn can_place(hand: Cards, last: Card) -> bool {
    let spare = hand.without(Card::ESCAPE).sprint_value();
    hand.iter().any(|h| {
        let own = if h == Card::ESCAPE { 0 } else { h.sprint_value() };
        h > last && h.number() - last.number() <= 3 + spare - own
    })
}

/// How strong a computer player is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Level {
    /// Uniformly random legal play (`LegalActions::sample`): the baseline.
    Random,
    /// Simple rules of thumb.
    Easy,
    /// The Marshal: greedy on the exact deduction. The Fugitive: determinized Monte Carlo.
    Hard,
}

impl Level {
    /// All levels, weakest first.
    pub const ALL: [Level; 3] = [Level::Random, Level::Easy, Level::Hard];

    /// The level's name on the command line and the wire.
    pub const fn name(self) -> &'static str {
        match self {
            Level::Random => "random",
            Level::Easy => "easy",
            Level::Hard => "hard",
        }
    }
}

impl fmt::Display for Level {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A level name that is not `random`, `easy` or `hard`.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
#[error("there is no level {0:?}: levels are random, easy and hard")]
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
    use fugitive_core::{EventVariant, RuleOptions, Setup};
    use rand::SeedableRng;
    use rand_chacha::ChaCha8Rng;

    #[test]
    fn legal_actions_from_a_view_agree_with_the_game() {
        for seed in 0..60u64 {
            let rules = RuleOptions {
                opening_hideouts: if seed % 2 == 0 {
                    OpeningHideouts::OneOrTwo
                } else {
                    OpeningHideouts::ExactlyTwo
                },
                pass_bonus_draw: seed % 3 == 0,
                events: EventVariant::ALL[seed as usize % EventVariant::ALL.len()],
            };
            let mut game = Game::new(Setup::new(seed).with_rules(rules));
            let mut rng = ChaCha8Rng::seed_from_u64(seed);
            while let Some(role) = game.to_move() {
                assert_eq!(MarshalView::of(&game).legal_actions(), game.legal_actions(Role::Marshal));
                assert_eq!(FugitiveView::of(&game).legal_actions(), game.legal_actions(Role::Fugitive));
                let action = game.legal_actions(role).sample(&mut rng).unwrap();
                game.apply(role, action).unwrap();
            }
        }
    }

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
