//! What one viewer may see of the game (R18–R22).

use serde::{Deserialize, Serialize};

use crate::card::{Card, Cards};
use crate::deck::{Deck, Seed};
use crate::events::{DeckCard, EventCard, TrailEvent};
use crate::game::Game;
use crate::history::Event;
use crate::phase::{Outcome, Phase};
use crate::role::{ByRole, Role, Viewer};
use crate::rules::RuleOptions;

/// One viewer's view of the game: all a client ever receives. Two games that differ only in
/// what this viewer cannot know give byte-identical JSON (R22).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct View {
    /// Who this view is for.
    pub viewer: Viewer,
    /// The rule options.
    pub rules: RuleOptions,
    /// The phase: what the player to move must do now.
    pub phase: Phase,
    /// Whose move it is (R5–R8, R16; an event's or the pass bonus's choice, E3), `None` once
    /// the game is over: [`Phase::to_move`], so that a client need not work it out.
    pub to_move: Option<Role>,
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
    pub pile_cards: Option<[Vec<EventCard>; 3]>,
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
    /// Its lowest card (R2).
    pub low: Card,
    /// Its highest card (R2).
    pub high: Card,
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
    /// spectator, everything once the game is over (R18). The whole game is written out, then
    /// [`View::during_play`] hides what the viewer may not know while it runs: one definition
    /// of hidden information, which the computer players use too.
    pub fn view(&self, viewer: Viewer) -> View {
        // The decks' and the event piles' cards, which `during_play` hides whole, are not
        // copied while the game runs: the server makes three views per action (issue 28).
        let over = self.is_over();
        let trail = self
            .trail
            .positions()
            .iter()
            .map(|h| TrailCard {
                card: Some(h.card),
                face_up: h.face_up,
                sprint_count: h.sprints.len(),
                sprints: Some(h.sprints),
            })
            .collect();
        let decks = Deck::ALL.map(|deck| {
            let cards = self.deck(deck);
            let (low, high) = deck.range();
            let card = |n| Card::new(n).expect("a deck's range holds cards");
            DeckView {
                deck,
                low: card(low),
                high: card(high),
                size: cards.len(),
                cards: over.then(|| cards.to_vec()),
            }
        });
        let hands = ByRole::new_with(|role| {
            let cards = self.hand(role);
            HandView { size: cards.len(), cards: Some(cards) }
        });
        let view = View {
            viewer,
            rules: self.rules,
            phase: self.phase,
            to_move: self.phase.to_move(),
            trail,
            decks,
            hands,
            history: self.history.clone(),
            outcome: self.outcome,
            seed: self.seed,
            events: (!self.rules.events.is_off()).then(|| EventsView {
                trail: self.trail_events.clone(),
                piles: self.piles.each_ref().map(Vec::len),
                pile_cards: over.then(|| self.piles.clone()),
                single_guess: self.single_guess,
                skips: self.skips,
            }),
        };
        if over { view } else { view.during_play() }
    }
}

impl View {
    /// This view as its viewer may see it while the game runs (R19–R21): the other hand, the
    /// decks' order, the seed and the event piles hidden; for anyone but the Fugitive the
    /// face-down cards' numbers and their sprint cards (but those M2 Informant showed, as they
    /// were then) and the sprint cards under 42 (R11); each history entry
    /// [`Event::seen_by`] the viewer. After the end a view shows everything (R18); this takes it
    /// back, so a computer player never holds more than during play.
    #[must_use]
    pub fn during_play(mut self) -> View {
        let viewer = self.viewer;
        let fugitive = viewer == Viewer::Fugitive;
        // What M2 Informant showed everyone, oldest first (nothing, in most games): read once,
        // not once per face-down card (the server makes three views per action, issue 28).
        let shown: Vec<(usize, Cards)> = self
            .history
            .iter()
            .filter_map(|e| match *e {
                Event::SprintsShown { position, sprints } => Some((position, sprints)),
                _ => None,
            })
            .collect();
        for (position, card) in self.trail.iter_mut().enumerate() {
            // 42 lies face up, but its sprint cards stay hidden until the end (R11).
            let revealed = card.face_up && card.card != Some(Card::ESCAPE);
            card.card = card.card.filter(|_| card.face_up || fugitive);
            card.sprints = if revealed || fugitive {
                card.sprints
            } else {
                // M2 Informant showed these to everyone, possibly none: its last showing.
                shown.iter().rev().find(|(p, _)| *p == position).map(|&(_, sprints)| sprints)
            };
        }
        for deck in &mut self.decks {
            deck.cards = None;
        }
        for role in Role::ALL {
            let hand = &mut self.hands[role];
            hand.cards = hand.cards.filter(|_| viewer.is(role));
        }
        for event in &mut self.history {
            *event = event.seen_by(viewer);
        }
        self.seed = None;
        if let Some(events) = &mut self.events {
            events.pile_cards = None;
        }
        self
    }

    /// The highest face-up hideout number, ignoring card 0 and 42 (`H` of R15), as
    /// [`Trail::highest_revealed`](crate::Trail::highest_revealed) finds it in the game.
    pub fn highest_revealed(&self) -> u8 {
        let face_up = self.trail.iter().filter(|t| t.face_up).filter_map(|t| t.card);
        face_up.filter(|&c| c != Card::ESCAPE).map(Card::number).max().unwrap_or(0)
    }

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
