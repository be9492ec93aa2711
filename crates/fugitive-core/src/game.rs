//! The game: one door in ([`Game::apply`]), one door out ([`Game::view`]).

use thiserror::Error;

use crate::action::{Action, ActionError, Entry};
use crate::card::{Card, Cards};
use crate::deck::{Deal, DealError, Deck, Seed};
use crate::events::{Decision, DeckCard, Effect, EventCard, EventDeal, TrailEffect, TrailEvent};
use crate::history::Event;
use crate::phase::{Outcome, Phase, Reason};
use crate::reach::{Reach, can_place};
use crate::refusal::{ChoiceReason, PhaseReason};
use crate::role::{ByRole, Role};
use crate::rules::{OpeningHideouts, RuleOptions, Setup};
use crate::trail::Trail;

/// A recorded entry that replay could not apply.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
#[error("action {index} ({role} {entry:?}) was refused: {error}")]
pub struct ReplayError {
    /// Its index in the record.
    pub index: usize,
    /// Whose it is.
    pub role: Role,
    /// The entry.
    pub entry: Entry,
    /// Why it was refused.
    pub error: ActionError,
}

/// What is still to happen, the top of the stack first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Step {
    /// `role` owes `left` draws from decks of their choice (R7, R8, E2).
    Draws { role: Role, left: u8 },
    /// One primitive of an event card.
    Effect { card: EventCard, effect: Effect },
    /// Wait for the player in this phase.
    Wait(Phase),
    /// The Marshal's turn begins (R8).
    MarshalTurn,
}

/// The authoritative state of one game. Server-side only: it is never serialized to a client;
/// clients get a [`View`](crate::View). Two games are equal when every card, the phase and the
/// history are.
#[derive(Debug, PartialEq, Eq)]
pub struct Game {
    pub(crate) rules: RuleOptions,
    pub(crate) seed: Option<Seed>,
    pub(crate) deal: Deal,
    pub(crate) event_deal: EventDeal,
    /// Each deck, top card first.
    pub(crate) decks: [Vec<DeckCard>; 3],
    /// The event piles beside the decks, top first (Discovery, Catchup).
    pub(crate) piles: [Vec<EventCard>; 3],
    /// What is still to happen this turn, the top last.
    pub(crate) steps: Vec<Step>,
    /// Whose turn it is (the Fugitive's during his opening).
    pub(crate) turn: Role,
    /// Events beside the trail (E4).
    pub(crate) trail_events: Vec<TrailEvent>,
    /// F3 Lie Low: the Marshal's next guess names one number.
    pub(crate) single_guess: bool,
    /// N2 Detour: draws each role will skip.
    pub(crate) skips: ByRole<u8>,
    pub(crate) hands: ByRole<Cards>,
    pub(crate) trail: Trail,
    pub(crate) phase: Phase,
    pub(crate) marshal_turns: u32,
    pub(crate) history: Vec<Event>,
    pub(crate) outcome: Option<Outcome>,
    pub(crate) actions: Vec<(Role, Entry)>,
}

/// A copy made into another game ([`Clone::clone_from`]) keeps that game's vectors: the server
/// checks each action on a copy of the game before it is stored, into the game it replaced last
/// time, so the copy allocates nothing once that game's vectors are large enough, and the
/// action's new entries find room (issue 28).
impl Clone for Game {
    fn clone(&self) -> Game {
        Game {
            deal: self.deal.clone(),
            event_deal: self.event_deal.clone(),
            decks: self.decks.clone(),
            piles: self.piles.clone(),
            steps: self.steps.clone(),
            trail_events: self.trail_events.clone(),
            trail: self.trail.clone(),
            history: self.history.clone(),
            actions: self.actions.clone(),
            ..*self
        }
    }

    fn clone_from(&mut self, source: &Game) {
        // Every field named, so that a new one cannot be left out of the copy.
        let Game {
            rules,
            seed,
            deal,
            event_deal,
            decks,
            piles,
            steps,
            turn,
            trail_events,
            single_guess,
            skips,
            hands,
            trail,
            phase,
            marshal_turns,
            history,
            outcome,
            actions,
        } = source;
        self.rules = *rules;
        self.seed = *seed;
        self.deal.clone_from(deal);
        self.event_deal.clone_from(event_deal);
        self.decks.clone_from(decks);
        self.piles.clone_from(piles);
        self.steps.clone_from(steps);
        self.turn = *turn;
        self.trail_events.clone_from(trail_events);
        self.single_guess = *single_guess;
        self.skips = *skips;
        self.hands = *hands;
        self.trail.clone_from(trail);
        self.phase = *phase;
        self.marshal_turns = *marshal_turns;
        self.history.clone_from(history);
        self.outcome = *outcome;
        self.actions.clone_from(actions);
    }
}

impl Game {
    /// A new game: the decks shuffled by the seed (R2–R4), the Fugitive to open (R5, R6).
    pub fn new(setup: Setup) -> Game {
        let deal = Deal::shuffled(&setup.seed);
        let events = EventDeal::shuffled(setup.rules.events, &setup.seed, &deal);
        let mut game =
            Game::from_deal_with_events(setup.rules, deal, events).expect("a shuffled deal is legal");
        game.seed = Some(setup.seed);
        game
    }

    /// A new game from a hand-built deal, without a seed.
    ///
    /// # Errors
    /// [`DealError`] when the deal breaks R2 or R3.
    pub fn from_deal(rules: RuleOptions, deal: Deal) -> Result<Game, DealError> {
        Game::from_deal_with_events(rules, deal, EventDeal::default())
    }

    /// A new game from a hand-built deal and event cards, without a seed.
    ///
    /// # Errors
    /// [`DealError`] when the deal breaks R2 or R3, or the events are misplaced.
    pub fn from_deal_with_events(
        rules: RuleOptions,
        deal: Deal,
        events: EventDeal,
    ) -> Result<Game, DealError> {
        deal.check()?;
        let decks = events.decks(&deal)?;
        Ok(Game {
            rules,
            seed: None,
            decks,
            piles: events.piles.clone(),
            event_deal: events,
            steps: Vec::new(),
            turn: Role::Fugitive,
            trail_events: Vec::new(),
            single_guess: false,
            skips: ByRole::default(),
            hands: ByRole { fugitive: deal.fugitive_hand, marshal: Cards::EMPTY },
            deal,
            trail: Trail::new(),
            phase: Phase::Opening { placed: 0 },
            marshal_turns: 0,
            history: Vec::new(),
            outcome: None,
            actions: Vec::new(),
        })
    }

    /// Rebuilds a game from its setup and its record (see [`Game::actions`]), in order.
    ///
    /// # Errors
    /// [`ReplayError`] names the first entry that does not apply.
    pub fn replay<'a>(
        setup: Setup,
        entries: impl IntoIterator<Item = &'a (Role, Entry)>,
    ) -> Result<Game, ReplayError> {
        let mut game = Game::new(setup);
        for (index, &(role, entry)) in entries.into_iter().enumerate() {
            game.apply_entry(role, entry).map_err(|error| ReplayError { index, role, entry, error })?;
        }
        Ok(game)
    }

    /// Applies one player's action and returns what happened, every field filled in (the
    /// server shows each viewer [`Event::seen_by`]).
    ///
    /// # Errors
    /// [`ActionError`] when the action is illegal, out of turn or by the wrong role; the game
    /// is then left exactly as it was.
    pub fn apply(&mut self, role: Role, action: Action) -> Result<Vec<Event>, ActionError> {
        self.apply_entry(role, Entry::Action(action))
    }

    /// The turn clock of `role` ran out: the other side wins (R17). The server's clock, not a
    /// player, calls this; it is recorded as [`Entry::TimeOut`].
    ///
    /// # Errors
    /// [`ActionError::GameOver`], or [`ActionError::NotYourTurn`] when `role` is not to move
    /// (only the mover's clock runs); the game is then left exactly as it was.
    pub fn time_out(&mut self, role: Role) -> Result<Vec<Event>, ActionError> {
        self.apply_entry(role, Entry::TimeOut)
    }

    /// Applies one entry of a record: [`Game::apply`] for an action, [`Game::time_out`] for the
    /// clock. A stored record is read back through here.
    ///
    /// # Errors
    /// As [`Game::apply`] and [`Game::time_out`]; the game is then left exactly as it was.
    pub fn apply_entry(&mut self, role: Role, entry: Entry) -> Result<Vec<Event>, ActionError> {
        match entry {
            Entry::Action(action) => self.check(role, action)?,
            Entry::TimeOut => self.check_turn(role)?,
        }
        let start = self.history.len();
        match entry {
            Entry::Action(action) => self.perform(role, action),
            Entry::TimeOut => {
                self.history.push(Event::TimedOut { role });
                self.end(role.opponent(), Reason::TimeOut);
            }
        }
        self.actions.push((role, entry));
        Ok(self.history[start..].to_vec())
    }

    /// Whether `role` may take `action` now.
    pub fn is_legal(&self, role: Role, action: &Action) -> bool {
        self.check(role, *action).is_ok()
    }

    /// The rule options.
    pub fn rules(&self) -> RuleOptions {
        self.rules
    }

    /// The seed, if the game was dealt from one. Hidden while the game runs (R4).
    pub fn seed(&self) -> Option<Seed> {
        self.seed
    }

    /// The starting deal.
    pub fn deal(&self) -> &Deal {
        &self.deal
    }

    /// The phase of the turn.
    pub fn phase(&self) -> Phase {
        self.phase
    }

    /// Whose move it is, if the game runs.
    pub fn to_move(&self) -> Option<Role> {
        self.phase.to_move()
    }

    /// The winner and reason, once the game is over.
    pub fn outcome(&self) -> Option<Outcome> {
        self.outcome
    }

    /// Whether the game has ended.
    pub fn is_over(&self) -> bool {
        self.outcome.is_some()
    }

    /// The trail.
    pub fn trail(&self) -> &Trail {
        &self.trail
    }

    /// A player's hand.
    pub fn hand(&self, role: Role) -> Cards {
        self.hands[role]
    }

    /// A deck's cards, top first.
    pub fn deck(&self, deck: Deck) -> &[DeckCard] {
        &self.decks[deck.index()]
    }

    /// The event cards the game started with (E2).
    pub fn event_deal(&self) -> &EventDeal {
        &self.event_deal
    }

    /// The event piles beside the decks, top first (Discovery, Catchup).
    pub fn piles(&self) -> &[Vec<EventCard>; 3] {
        &self.piles
    }

    /// The events beside the trail (E4).
    pub fn trail_events(&self) -> &[TrailEvent] {
        &self.trail_events
    }

    /// Whether the Marshal's next guess may name only one number (F3 Lie Low).
    pub fn single_guess(&self) -> bool {
        self.single_guess
    }

    /// How many draws each role will skip (N2 Detour).
    pub fn skips(&self) -> ByRole<u8> {
        self.skips
    }

    /// The whole history, every field filled in.
    pub fn history(&self) -> &[Event] {
        &self.history
    }

    /// The record so far, every accepted action and the time out that ended the game, if one
    /// did: with the setup, all a game is (see [`Game::replay`]).
    pub fn actions(&self) -> &[(Role, Entry)] {
        &self.actions
    }

    /// How many turns the Marshal has begun.
    pub fn marshal_turns(&self) -> u32 {
        self.marshal_turns
    }

    fn check(&self, role: Role, action: Action) -> Result<(), ActionError> {
        if self.is_over() {
            return Err(ActionError::GameOver);
        }
        let actor = match action {
            Action::Place { .. } | Action::Pass | Action::EndTurn => Some(Role::Fugitive),
            Action::Guess { .. } => Some(Role::Marshal),
            Action::Draw { .. } | Action::Choose { .. } => None,
            Action::Resign => return Ok(()),
        };
        if let Some(actor) = actor.filter(|&actor| actor != role) {
            return Err(ActionError::WrongRole(actor));
        }
        self.check_turn(role)?;
        let wrong = |reason| Err(ActionError::WrongPhase { reason, phase: self.phase });
        match (self.phase, action) {
            (Phase::Pending { decision, .. }, Action::Choose { choice }) => {
                if self.choices(role, decision).contains(&choice) {
                    Ok(())
                } else {
                    Err(ActionError::BadChoice(ChoiceReason::of(decision)))
                }
            }
            (Phase::Pending { .. }, _) => wrong(PhaseReason::ChoiceFirst),
            (_, Action::Choose { .. }) => wrong(PhaseReason::NothingToChoose),
            (Phase::Draw { .. }, Action::Draw { deck }) => {
                if self.decks[deck.index()].is_empty() {
                    Err(ActionError::DeckEmpty(deck))
                } else {
                    Ok(())
                }
            }
            (Phase::Draw { .. }, _) => wrong(PhaseReason::DrawFirst),
            (Phase::Manhunt, Action::Guess { numbers }) if numbers.len() > 1 => {
                Err(ActionError::ManhuntOneNumber)
            }
            (Phase::Guess, Action::Guess { numbers }) if self.single_guess && numbers.len() > 1 => {
                Err(ActionError::LieLowOneNumber)
            }
            (Phase::Guess | Phase::Manhunt, Action::Guess { numbers }) => self.check_guess(numbers),
            (Phase::Manhunt, _) => wrong(PhaseReason::ManhuntGuessesOnly),
            (Phase::Guess, _) => wrong(PhaseReason::GuessNow),
            (Phase::Opening { .. }, Action::Draw { .. }) => wrong(PhaseReason::NoDrawFirstTurn),
            (Phase::PlaceOrPass, Action::Draw { .. }) => wrong(PhaseReason::DrawnAlready),
            (Phase::Opening { .. } | Phase::PlaceOrPass, Action::Place { hideout, sprints }) => {
                self.check_place(hideout, sprints)
            }
            (Phase::Opening { .. }, Action::Pass) => wrong(PhaseReason::NoPassFirstTurn),
            (Phase::PlaceOrPass, Action::Pass) => Ok(()),
            (Phase::Opening { placed: 1 }, Action::EndTurn)
                if self.rules.opening_hideouts == OpeningHideouts::OneOrTwo =>
            {
                Ok(())
            }
            (Phase::Opening { placed: 1 }, Action::EndTurn) => wrong(PhaseReason::TwoHideoutsFirstTurn),
            (Phase::Opening { .. }, Action::EndTurn) => wrong(PhaseReason::PlaceFirst),
            (Phase::PlaceOrPass, Action::EndTurn) => wrong(PhaseReason::PlaceOrPass),
            (Phase::Opening { .. } | Phase::PlaceOrPass, Action::Guess { .. } | Action::Resign)
            | (Phase::Over, _) => unreachable!("roles and the end were checked above"),
        }
    }

    /// Whether it is `role`'s move: the checks every action but resigning passes, and all a
    /// time out needs (only the mover's clock runs).
    fn check_turn(&self, role: Role) -> Result<(), ActionError> {
        let expected = self.phase.to_move().ok_or(ActionError::GameOver)?;
        if role != expected {
            return Err(ActionError::NotYourTurn { expected, actual: role });
        }
        Ok(())
    }

    fn check_place(&self, hideout: Card, sprints: Cards) -> Result<(), ActionError> {
        let hand = self.hands.fugitive;
        if !hand.contains(hideout) {
            return Err(ActionError::NotInHand(hideout));
        }
        if sprints.contains(hideout) {
            return Err(ActionError::SprintIsHideout(hideout));
        }
        if sprints.contains(Card::ESCAPE) {
            return Err(ActionError::SprintIs42);
        }
        if let Some(card) = sprints.difference(hand).first() {
            return Err(ActionError::SprintNotInHand(card));
        }
        let last = self.trail.last_card();
        if hideout <= last {
            return Err(ActionError::NotAbove { hideout, last });
        }
        let sprint = sprints.sprint_value();
        let effect = self.next_space_effect();
        let reach = Reach::on(effect);
        if !reach.allows_sprints() && !sprints.is_empty() {
            return Err(ActionError::RoadblockSprints);
        }
        if hideout.number() - last.number() > reach.with(sprint) {
            return Err(match effect {
                Some(TrailEffect::SafeHouse) => ActionError::SafeHouseTooFar { hideout, last, sprint },
                _ => ActionError::TooFar { hideout, last, sprint },
            });
        }
        if self.needs_second_hideout()
            && !can_place(hand.without(hideout).difference(sprints), hideout, Reach::OPENING)
        {
            return Err(ActionError::NoSecondHideout);
        }
        Ok(())
    }

    /// Whether a first placement must leave a legal second one (R6, `exactly_two`).
    pub(crate) fn needs_second_hideout(&self) -> bool {
        self.phase == Phase::Opening { placed: 0 }
            && self.rules.opening_hideouts == OpeningHideouts::ExactlyTwo
    }

    fn check_guess(&self, numbers: Cards) -> Result<(), ActionError> {
        if numbers.is_empty() {
            return Err(ActionError::EmptyGuess);
        }
        let face_up = self.trail.face_up();
        for n in numbers {
            if n == Card::START || n == Card::ESCAPE {
                return Err(ActionError::GuessOutOfRange(n));
            }
            if face_up.contains(n) {
                return Err(ActionError::GuessFaceUp(n));
            }
        }
        Ok(())
    }

    /// Carries out a checked action.
    fn perform(&mut self, role: Role, action: Action) {
        match action {
            Action::Resign => {
                self.history.push(Event::Resigned { role });
                self.end(role.opponent(), Reason::Resignation);
            }
            Action::Draw { deck } => {
                let Phase::Draw { left, .. } = self.phase else { unreachable!("checked") };
                self.push_draws(role, left - 1);
                self.take(role, deck);
                self.proceed();
            }
            Action::Choose { choice } => {
                let Phase::Pending { card, decision, .. } = self.phase else { unreachable!("checked") };
                self.answer(role, card, decision, choice);
                self.proceed();
            }
            Action::Place { hideout, sprints } => self.place(hideout, sprints),
            Action::Pass => {
                self.history.push(Event::Passed);
                self.steps.push(Step::MarshalTurn);
                let decision = Decision::PassBonus;
                if self.rules.pass_bonus_draw && !self.choices(Role::Fugitive, decision).is_empty() {
                    // R11a: he may draw a bonus card; he says whether he does.
                    self.phase = Phase::Pending { role: Role::Fugitive, card: None, decision };
                } else {
                    self.proceed();
                }
            }
            Action::EndTurn => {
                self.history.push(Event::TurnEnded);
                self.steps.push(Step::MarshalTurn);
                self.proceed();
            }
            Action::Guess { numbers } => self.guess(numbers),
        }
    }

    fn place(&mut self, hideout: Card, sprints: Cards) {
        self.hands.fugitive = self.hands.fugitive.without(hideout).difference(sprints);
        let position = self.trail.place(hideout, sprints);
        self.history.push(Event::Placed {
            position,
            hideout: Some(hideout),
            sprint_count: sprints.len(),
            sprints: Some(sprints),
        });
        if hideout == Card::ESCAPE {
            self.escape();
            return;
        }
        match self.phase {
            Phase::Opening { placed: 0 } => self.phase = Phase::Opening { placed: 1 },
            _ => {
                self.steps.push(Step::MarshalTurn);
                self.proceed();
            }
        }
    }

    /// The Fugitive has played 42 (R15).
    fn escape(&mut self) {
        let highest_revealed = self.trail.highest_revealed();
        if highest_revealed >= 30 || self.trail.hidden_count() == 0 {
            self.end(Role::Fugitive, Reason::Escape);
        } else {
            self.history.push(Event::ManhuntStarted { highest_revealed });
            self.phase = Phase::Manhunt;
        }
    }

    fn guess(&mut self, numbers: Cards) {
        self.single_guess &= self.phase == Phase::Manhunt;
        let right = numbers.iter().all(|n| self.trail.hidden_position(n).is_some());
        self.history.push(Event::Guessed { numbers, right });
        if right {
            for n in numbers {
                let position = self.trail.hidden_position(n).expect("checked right");
                let hideout = self.trail.reveal(position);
                self.history.push(Event::Revealed { position, hideout: n, sprints: hideout.sprints });
            }
        }
        let manhunt = self.phase == Phase::Manhunt;
        match (right, self.trail.hidden_count(), manhunt) {
            (true, 0, false) => self.end(Role::Marshal, Reason::AllHideoutsFound),
            (true, 0, true) => self.end(Role::Marshal, Reason::ManhuntSuccess),
            (true, _, true) => {}
            (false, _, true) => self.end(Role::Fugitive, Reason::ManhuntSurvived),
            (_, _, false) => {
                self.steps.push(Step::Wait(Phase::PlaceOrPass));
                self.push_draws(Role::Fugitive, 1);
                if right {
                    self.discover();
                }
                self.turn = Role::Fugitive;
                self.proceed();
            }
        }
    }

    pub(crate) fn end(&mut self, winner: Role, reason: Reason) {
        self.steps.clear();
        let outcome = Outcome { winner, reason };
        self.outcome = Some(outcome);
        self.phase = Phase::Over;
        self.history.push(Event::GameOver { outcome });
    }
}
