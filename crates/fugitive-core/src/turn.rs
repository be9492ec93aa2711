//! The flow of a turn as a stack of steps: due draws, event effects, pending decisions (E3)
//! and the phases that wait for a player. Events enter here, through the same
//! [`Game::apply`] as every action; no variant has a turn logic of its own.

use crate::card::{Card, Cards};
use crate::deck::Deck;
use crate::events::{Choice, Decision, DeckCard, Effect, EventCard, Icon, TrailEffect, TrailEvent};
use crate::game::{Game, Step};
use crate::history::Event;
use crate::phase::{Phase, Reason};
use crate::role::Role;
use crate::rules::EventVariant;

impl Game {
    /// Adds `count` due draws for `role`, merged with the top step if it is `role`'s draws.
    pub(crate) fn push_draws(&mut self, role: Role, count: u8) {
        match self.steps.last_mut() {
            Some(Step::Draws { role: top, left }) if *top == role => *left += count,
            _ => self.steps.push(Step::Draws { role, left: count }),
        }
    }

    /// Runs steps until one waits for a player or the game ends.
    pub(crate) fn proceed(&mut self) {
        while !self.is_over() {
            let Some(step) = self.steps.pop() else { return };
            match step {
                Step::Draws { left: 0, .. } => {}
                Step::Draws { role, left } if self.skips[role] > 0 => {
                    // N2 Detour.
                    self.skips[role] -= 1;
                    self.history.push(Event::DrawMissed { role });
                    self.push_draws(role, left - 1);
                }
                Step::Draws { role, left } if self.decks.iter().all(Vec::is_empty) => {
                    for _ in 0..left {
                        self.history.push(Event::DrawSkipped { role });
                    }
                }
                Step::Draws { role, left } => {
                    self.phase = Phase::Draw { role, left };
                    return;
                }
                Step::Effect { card, effect } => {
                    if self.run(card, effect) {
                        return;
                    }
                }
                Step::Wait(phase) => {
                    self.phase = phase;
                    return;
                }
                Step::MarshalTurn => {
                    self.turn = Role::Marshal;
                    self.marshal_turns += 1;
                    self.steps.push(Step::Wait(Phase::Guess));
                    self.push_draws(Role::Marshal, if self.marshal_turns == 1 { 2 } else { 1 });
                }
            }
        }
    }

    /// `role` takes the top card of `deck`: a hideout card goes to the hand; an event is
    /// resolved and owes a replacement draw (E2); a placeholder resolves an event from the pile
    /// the trail picks, and the player whose turn it is owes the replacement (Catchup).
    pub(crate) fn take(&mut self, role: Role, deck: Deck) {
        match self.decks[deck.index()].remove(0) {
            DeckCard::Hideout(card) => {
                self.hands[role].insert(card);
                self.history.push(Event::Drew { role, deck, card: Some(card) });
            }
            DeckCard::Event(card) => {
                self.history.push(Event::EventDrawn { role, deck: Some(deck), card });
                self.push_draws(role, 1);
                self.resolve(card, role);
            }
            DeckCard::Placeholder => {
                let hidden = self.trail.hidden_count();
                let pile = match hidden {
                    1 => Icon::Footprints,
                    3.. => Icon::Binoculars,
                    _ => Icon::None,
                };
                self.history.push(Event::CatchupDrawn { role, deck, hidden, pile });
                self.push_draws(self.turn, 1);
                self.resolve_from_pile(pile.index(), role);
            }
        }
    }

    /// `role` resolves the top event of a pile, if it has one (Discovery, Catchup).
    fn resolve_from_pile(&mut self, pile: usize, role: Role) {
        if !self.piles[pile].is_empty() {
            let card = self.piles[pile].remove(0);
            self.history.push(Event::EventDrawn { role, deck: None, card });
            self.resolve(card, role);
        }
    }

    /// Discovery: the Marshal found hideouts on her turn; the Fugitive resolves an event.
    pub(crate) fn discover(&mut self) {
        if self.rules.events == EventVariant::Discovery && self.turn == Role::Marshal {
            self.resolve_from_pile(0, Role::Fugitive);
        }
    }

    /// Puts the card's effects on the stack, the first on top (E2).
    fn resolve(&mut self, card: EventCard, drawer: Role) {
        for effect in card.effects(drawer).into_iter().rev() {
            self.steps.push(Step::Effect { card, effect });
        }
    }

    /// Runs one primitive; returns whether it waits for a choice.
    fn run(&mut self, card: EventCard, effect: Effect) -> bool {
        match effect {
            Effect::Draw { role, count } => self.push_draws(role, count),
            Effect::SkipDraw { role } => self.skips[role] += 1,
            Effect::Trail(effect) => {
                let mut position = self.trail.positions().len();
                while self.trail_events.iter().any(|t| t.position == position) {
                    position += 1;
                }
                self.trail_events.push(TrailEvent { position, card, effect });
                self.history.push(Event::TrailEventLaid { position, card, effect });
            }
            Effect::SingleGuess => self.single_guess = true,
            Effect::DrawFromHighest { role } => {
                match Deck::ALL.into_iter().rev().find(|d| !self.decks[d.index()].is_empty()) {
                    Some(deck) => self.take(role, deck),
                    None => self.history.push(Event::NoEffect { card }),
                }
            }
            Effect::Eyewitness => match self.trail.hidden().last() {
                Some((position, hideout)) => {
                    let (low, high) = match Deck::of(hideout.card) {
                        Some(deck) => deck.range(),
                        None => (1, 3),
                    };
                    self.history.push(Event::Eyewitness { position, low, high });
                }
                None => self.history.push(Event::NoEffect { card }),
            },
            Effect::Ask { role, decision } => {
                if !self.choices(role, decision).is_empty() {
                    self.phase = Phase::Pending { role, card: Some(card), decision };
                    return true;
                }
                self.history.push(Event::NoEffect { card });
            }
        }
        false
    }

    /// Carries out a checked answer to the pending decision.
    pub(crate) fn answer(&mut self, role: Role, card: Option<EventCard>, decision: Decision, choice: Choice) {
        match (decision, choice) {
            (_, Choice::Decline) => self.history.push(Event::Declined { role, card }),
            (Decision::PassBonus, Choice::Deck { deck }) => self.take(role, deck),
            (_, Choice::Card { card }) => {
                self.hands[role].remove(card);
                let deck = Deck::of(card).expect("checked: a card of decks 1–3");
                self.decks[deck.index()].push(DeckCard::Hideout(card));
                self.history.push(Event::ReturnedToDeck { role, deck, card: Some(card) });
            }
            (_, Choice::Sprint { card, position }) => {
                self.hands.fugitive.remove(card);
                self.trail.add_sprint(position, card);
                self.history.push(Event::SprintAdded { position, card: Some(card) });
            }
            (_, Choice::Hideout { position }) => {
                let sprints = self.trail.show_sprints(position);
                self.history.push(Event::SprintsShown { position, sprints });
            }
            (_, Choice::Range { deck }) => {
                let count = self.trail.hidden().filter(|(_, h)| deck.cards().contains(h.card)).count();
                self.history.push(Event::StakeoutCounted { deck, count });
            }
            (_, Choice::Number { number }) => self.dragnet(number),
            (_, Choice::Deck { deck }) => {
                let top = self.decks[deck.index()][0];
                self.history.push(Event::Peeked { role, deck, card: Some(top) });
                let decision = Decision::TownGossipMove { deck };
                let card = card.expect("checked: N5 Town Gossip asks");
                self.steps.push(Step::Effect { card, effect: Effect::Ask { role, decision } });
            }
            (decision, Choice::Move { bottom }) => {
                let Decision::TownGossipMove { deck } = decision else { unreachable!("checked") };
                if bottom {
                    let top = self.decks[deck.index()].remove(0);
                    self.decks[deck.index()].push(top);
                }
                self.history.push(Event::MovedToBottom { deck, moved: bottom });
            }
        }
    }

    /// M4 Dragnet: one extra number; a miss costs nothing, finding the last hideout wins.
    fn dragnet(&mut self, number: Card) {
        let position = self.trail.hidden_position(number);
        self.history.push(Event::Guessed { numbers: Cards::from(number), right: position.is_some() });
        if let Some(position) = position {
            let hideout = self.trail.reveal(position);
            self.history.push(Event::Revealed { position, hideout: number, sprints: hideout.sprints });
            if self.trail.hidden_count() == 0 {
                self.end(Role::Marshal, Reason::AllHideoutsFound);
            } else {
                self.discover();
            }
        }
    }

    /// The trail event under the next hideout's space, if any (E4).
    pub(crate) fn next_space_effect(&self) -> Option<TrailEffect> {
        let position = self.trail.positions().len();
        self.trail_events.iter().find(|t| t.position == position).map(|t| t.effect)
    }
}
