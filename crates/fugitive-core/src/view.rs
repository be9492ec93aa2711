//! What one viewer may see of the game (R18–R22).

use serde::{Deserialize, Serialize};

use crate::card::{Card, Cards};
use crate::deck::{Deck, Seed};
use crate::event::Event;
use crate::event_deal::DeckCard;
use crate::game::{Game, Outcome, Phase};
use crate::role::{ByRole, Role, Viewer};
use crate::rules::RuleOptions;
use crate::turn::TrailEvent;

/// One viewer's view of the game: all a client ever receives. Two games that differ only in
/// what this viewer cannot know give byte-identical JSON (R22).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct View {
    /// Who this view is for.
    pub viewer: Viewer,
    /// The rule options.
    pub rules: RuleOptions,
    /// The phase, which says whose turn it is.
    pub phase: Phase,
    /// The trail, card 0 first.
    pub trail: Vec<TrailCard>,
    /// The three decks, deck 1 first.
    pub decks: [DeckView; 3],
    /// Both hands.
    pub hands: ByRole<HandView>,
    /// The history as this viewer may see it.
    pub history: Vec<Event>,
    /// The winner and reason, once the game is over.
    pub outcome: Option<Outcome>,
    /// The seed, once the game is over (R18).
    pub seed: Option<Seed>,
    /// The public state of the events, in games with an event variant (left out otherwise).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub events: Option<EventsView>,
}

/// The public state of the events (E4, E5).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct EventsView {
    /// The events beside the trail, each under the space of a hideout still to come or placed.
    pub trail: Vec<TrailEvent>,
    /// How many events are left in each pile (Discovery uses the first, Catchup all three:
    /// footprints, no icon, binoculars).
    pub piles: [usize; 3],
    /// The pile cards, top first, once the game is over (R18).
    pub pile_cards: Option<[Vec<crate::event_card::EventCard>; 3]>,
    /// Whether the Marshal's next guess names one number (F3 Lie Low).
    pub single_guess: bool,
    /// Draws each role will skip (N2 Detour).
    pub skips: ByRole<u8>,
}

/// One position of the trail as a viewer sees it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TrailCard {
    /// The card's number: face-up cards for everyone, face-down ones for the Fugitive.
    pub card: Option<Card>,
    /// Whether it is face up.
    pub face_up: bool,
    /// How many sprint cards lie under it (always public, R10).
    pub sprint_count: usize,
    /// The sprint cards: once face up for everyone, always for the Fugitive. While it lies face
    /// down, after M2 Informant, everyone sees those shown then (`[]` if there were none; a
    /// later F5 Smoke Screen card is counted in `sprint_count` but not listed).
    pub sprints: Option<Cards>,
}

/// A deck as a viewer sees it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct DeckView {
    /// Which deck.
    pub deck: Deck,
    /// Cards left.
    pub size: usize,
    /// The cards, top first, once the game is over (R18): hideout numbers, event ids and
    /// `"catchup"` placeholders.
    pub cards: Option<Vec<DeckCard>>,
}

/// A hand as a viewer sees it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct HandView {
    /// How many cards.
    pub size: usize,
    /// The cards, for their owner (and everyone once the game is over).
    pub cards: Option<Cards>,
}

impl Game {
    /// The game as `viewer` may see it: R19 for the Fugitive, R20 for the Marshal, R21 for a
    /// spectator, everything once the game is over (R18).
    pub fn view(&self, viewer: Viewer) -> View {
        let over = self.is_over();
        let sees = |role: Role| over || viewer.is(role);
        let trail = self
            .trail
            .positions()
            .iter()
            .map(|h| {
                // 42 lies face up, but its sprint cards stay hidden until the end (R11).
                let revealed = h.face_up && h.card != Card::ESCAPE;
                TrailCard {
                    card: (h.face_up || sees(Role::Fugitive)).then_some(h.card),
                    face_up: h.face_up,
                    sprint_count: h.sprints.len(),
                    sprints: if revealed || sees(Role::Fugitive) {
                        Some(h.sprints)
                    } else {
                        // M2 Informant showed these to everyone, possibly none.
                        h.shown
                    },
                }
            })
            .collect();
        let decks = Deck::ALL.map(|deck| {
            let cards = self.deck(deck);
            DeckView { deck, size: cards.len(), cards: over.then(|| cards.to_vec()) }
        });
        let hands = ByRole::new_with(|role| {
            let cards = self.hand(role);
            HandView { size: cards.len(), cards: sees(role).then_some(cards) }
        });
        let history = if over {
            self.history.clone()
        } else {
            self.history.iter().map(|e| e.seen_by(viewer)).collect()
        };
        View {
            viewer,
            rules: self.rules,
            phase: self.phase,
            trail,
            decks,
            hands,
            history,
            outcome: self.outcome,
            seed: self.seed.filter(|_| over),
            events: (!self.rules.events.is_off()).then(|| EventsView {
                trail: self.trail_events.clone(),
                piles: self.piles.each_ref().map(Vec::len),
                pile_cards: over.then(|| self.piles.clone()),
                single_guess: self.single_guess,
                skips: self.skips,
            }),
        }
    }
}

impl View {
    /// Every number face up anywhere on the trail, as [`Trail::face_up`](crate::Trail::face_up)
    /// finds it in the game: the face-up cards, the sprint cards revealed with them (not 42's)
    /// and those M2 Informant showed (from the public history, so every viewer finds the same).
    pub fn face_up(&self) -> Cards {
        let mut face_up = Cards::EMPTY;
        for t in self.trail.iter().filter(|t| t.face_up) {
            face_up = face_up.union(t.card.into_iter().collect());
            if t.card != Some(Card::ESCAPE) {
                face_up = face_up.union(t.sprints.unwrap_or_default());
            }
        }
        for event in &self.history {
            if let Event::SprintsShown { sprints, .. } = event {
                face_up = face_up.union(*sprints);
            }
        }
        face_up
    }
}
