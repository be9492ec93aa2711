//! The legal actions of a role, in a compact form that a client can show and check.

use rand::Rng;
use rand::seq::{IndexedRandom, SliceRandom};
use serde::{Deserialize, Serialize};

use crate::action::Action;
use crate::card::{Card, Cards};
use crate::deck::Deck;
use crate::events::{Choice, Decision, TrailEffect};
use crate::game::Game;
use crate::phase::Phase;
use crate::reach::{Reach, can_place};
use crate::role::Role;
use crate::rules::{OpeningHideouts, RuleOptions};
use crate::view::View;

/// Everything a role may do now. [`LegalActions::contains`] agrees with [`Game::is_legal`].
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct LegalActions {
    /// Decks that may be drawn from.
    pub draws: Vec<Deck>,
    /// Hideouts that may be placed, each with the sprint sets it allows.
    pub placements: Vec<Placement>,
    /// While he may place, every other card of the Fugitive's hand with the reason it may not
    /// be placed, so a client shows the rules' verdict instead of working it out. Left out of
    /// the JSON when empty.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub blocked: Vec<Blocked>,
    /// Whether passing is legal.
    pub pass: bool,
    /// Whether ending the first turn after one hideout is legal.
    pub end_turn: bool,
    /// What may be guessed, if guessing is legal.
    pub guess: Option<GuessOptions>,
    /// Whether resigning is legal (always, while the game runs).
    pub resign: bool,
    /// Whether the turn clock may run out on this role now (its turn: see [`crate::Game::time_out`]).
    pub time_out: bool,
    /// The answers to the pending decision, if one waits for this role (E3). Left out of the
    /// JSON when empty.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub choices: Vec<Choice>,
}

/// A hideout card that may be placed now, and with which sprint cards.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Placement {
    /// The hideout card.
    pub hideout: Card,
    /// The sprint sets allowed under it.
    pub sprints: SprintOptions,
}

/// A card of the Fugitive's hand that may not be placed now, and why.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Blocked {
    /// The card.
    pub hideout: Card,
    /// Why it may not be placed.
    pub why: Why,
}

/// Why a card of the hand may not be placed now.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Why {
    /// It is not above `last`, the last card of the trail (R9).
    NotAbove {
        /// The last card of the trail.
        last: Card,
    },
    /// It needs sprint cards worth `need` (beyond 3 above the last card, or 5 on an F1 Safe
    /// House space, R9), more than his other cards hold, or any at all on an M1 Roadblock space.
    TooFar {
        /// The sprint value it needs.
        need: u8,
    },
    /// On the first turn under `exactly_two`, no sprint set leaves a legal second hideout (R6).
    NoSecondHideout,
}

/// The sprint sets allowed under one hideout.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum SprintOptions {
    /// Any cards of `from` whose sprint values add up to at least `value` (R9, R10): the
    /// usual case, overpaying included.
    AtLeast {
        /// The least sprint value needed.
        value: u8,
        /// The cards that may be used.
        from: Cards,
    },
    /// Exactly one of these sets: the first placement under `exactly_two`, which must leave a
    /// legal second one (R6).
    OneOf {
        /// The allowed sets.
        sets: Vec<Cards>,
    },
}

impl SprintOptions {
    /// Whether these sprint cards are allowed.
    pub fn allows(&self, sprints: Cards) -> bool {
        match self {
            SprintOptions::AtLeast { value, from } => {
                sprints.is_subset(*from) && sprints.sprint_value() >= *value
            }
            SprintOptions::OneOf { sets } => sets.contains(&sprints),
        }
    }
}

/// The numbers the Marshal may name now (R12, R16).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct GuessOptions {
    /// The numbers not yet face up, 1–41.
    pub numbers: Cards,
    /// Whether a guess names exactly one number (the Manhunt).
    pub single: bool,
}

impl LegalActions {
    /// Whether `action` is among these.
    pub fn contains(&self, action: &Action) -> bool {
        match *action {
            Action::Draw { deck } => self.draws.contains(&deck),
            Action::Place { hideout, sprints } => {
                self.placements.iter().any(|p| p.hideout == hideout && p.sprints.allows(sprints))
            }
            Action::Pass => self.pass,
            Action::EndTurn => self.end_turn,
            Action::Guess { numbers } => self.guess.is_some_and(|g| {
                !numbers.is_empty() && numbers.is_subset(g.numbers) && (!g.single || numbers.len() == 1)
            }),
            Action::Choose { choice } => self.choices.contains(&choice),
            Action::Resign => self.resign,
        }
    }

    /// A random legal action other than resigning or timing out, if there is one: the random
    /// player of tests, fuzzing and benchmarks. Places more often than it passes, sprints just
    /// enough and sometimes one card more, and guesses one number, sometimes two.
    pub fn sample(&self, rng: &mut impl Rng) -> Option<Action> {
        if let Some(&choice) = self.choices.choose(rng) {
            return Some(Action::Choose { choice });
        }
        if let Some(&deck) = self.draws.choose(rng) {
            return Some(Action::Draw { deck });
        }
        if let Some(guess) = self.guess {
            let numbers: Vec<Card> = guess.numbers.iter().collect();
            let count = if !guess.single && numbers.len() > 1 && rng.random_bool(0.2) { 2 } else { 1 };
            let chosen = numbers.choose_multiple(rng, count).copied().collect();
            return Some(Action::Guess { numbers: chosen });
        }
        let stop = self.pass || self.end_turn;
        if self.placements.is_empty() || (stop && rng.random_bool(0.25)) {
            return match (self.pass, self.end_turn) {
                (true, _) => Some(Action::Pass),
                (_, true) => Some(Action::EndTurn),
                _ => None,
            };
        }
        let placement = self.placements.choose(rng)?;
        let sprints = match &placement.sprints {
            SprintOptions::OneOf { sets } => *sets.choose(rng)?,
            SprintOptions::AtLeast { value, from } => {
                let mut spare: Vec<Card> = from.iter().collect();
                spare.shuffle(rng);
                let mut sprints = Cards::EMPTY;
                let mut cards = spare.into_iter();
                while sprints.sprint_value() < *value {
                    sprints.insert(cards.next()?);
                }
                if rng.random_bool(0.2) {
                    cards.next().map(|c| sprints.insert(c));
                }
                sprints
            }
        };
        Some(Action::Place { hideout: placement.hideout, sprints })
    }
}

/// What a player knows that legality depends on, and nothing else: built from the [`Game`] or
/// from the player's own [`View`], so that [`Game::legal_actions`] and [`View::legal_actions`]
/// (and the answers to a pending decision) are worked out once, from the same facts.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Knowledge {
    /// Whose legal actions.
    role: Role,
    /// The phase; `Over` once the game has ended.
    phase: Phase,
    /// The rule options.
    rules: RuleOptions,
    /// The player's own hand.
    hand: Cards,
    /// The last card of the trail (R9) as the Fugitive knows it; only his placements use it.
    last: Card,
    /// The trail event under the next hideout's space, if any (E4).
    next_space: Option<TrailEffect>,
    /// The positions of the face-down hideouts.
    hidden: Vec<usize>,
    /// Every number face up anywhere on the trail (R12).
    face_up: Cards,
    /// The decks that are not empty, deck 1 first.
    decks: Vec<Deck>,
    /// Whether the Marshal's next guess names one number (F3 Lie Low).
    single_guess: bool,
}

impl Knowledge {
    /// What `role` knows in `game`.
    pub(crate) fn of_game(game: &Game, role: Role) -> Knowledge {
        Knowledge {
            role,
            phase: game.phase,
            rules: game.rules,
            hand: game.hands[role],
            last: game.trail.last_card(),
            next_space: game.next_space_effect(),
            hidden: game.trail.hidden().map(|(position, _)| position).collect(),
            face_up: game.trail.face_up(),
            decks: Deck::ALL.into_iter().filter(|&d| !game.deck(d).is_empty()).collect(),
            single_guess: game.single_guess,
        }
    }

    /// What the view's player knows; `None` for a spectator.
    pub(crate) fn of_view(view: &View) -> Option<Knowledge> {
        let role = view.viewer.role()?;
        let position = view.trail.len();
        let events = view.events.as_ref();
        Some(Knowledge {
            role,
            phase: if view.outcome.is_some() { Phase::Over } else { view.phase },
            rules: view.rules,
            hand: view.hands[role].cards.unwrap_or_default(),
            last: view.trail.last().and_then(|t| t.card).unwrap_or(Card::START),
            next_space: events
                .and_then(|e| e.trail.iter().find(|t| t.position == position))
                .map(|t| t.effect),
            hidden: (0..view.trail.len()).filter(|&i| !view.trail[i].face_up).collect(),
            face_up: view.face_up(),
            decks: view.decks.iter().filter(|d| d.size > 0).map(|d| d.deck).collect(),
            single_guess: events.is_some_and(|e| e.single_guess),
        })
    }

    /// What the player may do now. Nothing once the game is over; only resigning off turn.
    pub(crate) fn legal_actions(&self) -> LegalActions {
        if self.phase == Phase::Over {
            return LegalActions::default();
        }
        let mut legal = LegalActions { resign: true, ..LegalActions::default() };
        if self.phase.to_move() != Some(self.role) {
            return legal;
        }
        legal.time_out = true;
        let one_or_two = self.rules.opening_hideouts == OpeningHideouts::OneOrTwo;
        match self.phase {
            Phase::Draw { .. } => legal.draws = self.decks.clone(),
            Phase::Opening { placed } => {
                (legal.placements, legal.blocked) = self.placements(placed == 0 && !one_or_two);
                legal.end_turn = placed == 1 && one_or_two;
            }
            Phase::PlaceOrPass => {
                (legal.placements, legal.blocked) = self.placements(false);
                legal.pass = true;
            }
            Phase::Guess | Phase::Manhunt => {
                let numbers = Cards::range(1, 41).difference(self.face_up);
                // F3 Lie Low limits the next guess to one number.
                let single = self.phase == Phase::Manhunt || self.single_guess;
                legal.guess = Some(GuessOptions { numbers, single });
            }
            Phase::Pending { decision, .. } => legal.choices = self.choices(decision),
            Phase::Over => {}
        }
        legal
    }

    fn placements(&self, second: bool) -> (Vec<Placement>, Vec<Blocked>) {
        placements(self.hand, self.last, self.next_space, second)
    }

    /// Every legal answer to `decision` by this player (E3). Empty when there is no answer at
    /// all; the event then has no effect and is never asked.
    pub(crate) fn choices(&self, decision: Decision) -> Vec<Choice> {
        let hand = self.hand;
        let from_decks = |hand: Cards| hand.iter().filter(|&c| Deck::of(c).is_some());
        let or_decline = |mut choices: Vec<Choice>| {
            if !choices.is_empty() {
                choices.push(Choice::Decline);
            }
            choices
        };
        match decision {
            Decision::BadIntel => from_decks(hand).map(|card| Choice::Card { card }).collect(),
            Decision::SmokeScreen => or_decline(
                hand.without(Card::ESCAPE)
                    .iter()
                    .flat_map(|card| {
                        self.hidden.iter().map(move |&position| Choice::Sprint { card, position })
                    })
                    .collect(),
            ),
            Decision::Informant => self.hidden.iter().map(|&position| Choice::Hideout { position }).collect(),
            Decision::Stakeout => Deck::ALL.map(|deck| Choice::Range { deck }).to_vec(),
            Decision::Dragnet => Cards::range(1, 41)
                .difference(self.face_up)
                .iter()
                .map(|number| Choice::Number { number })
                .collect(),
            Decision::TownGossip => self.decks.iter().map(|&deck| Choice::Deck { deck }).collect(),
            Decision::TownGossipMove { .. } => {
                vec![Choice::Move { bottom: false }, Choice::Move { bottom: true }]
            }
            Decision::ChangeOfPlans => {
                or_decline(from_decks(hand).map(|card| Choice::Card { card }).collect())
            }
            Decision::PassBonus => {
                or_decline(self.decks.first().map(|&deck| Choice::Deck { deck }).into_iter().collect())
            }
        }
    }
}

impl Game {
    /// What `role` may do now. Nothing once the game is over; only resigning off turn.
    pub fn legal_actions(&self, role: Role) -> LegalActions {
        Knowledge::of_game(self, role).legal_actions()
    }

    /// Every legal answer to `decision` by `role` now (E3).
    pub(crate) fn choices(&self, role: Role, decision: Decision) -> Vec<Choice> {
        Knowledge::of_game(self, role).choices(decision)
    }
}

impl View {
    /// What this view's player may do now, worked out from the view alone: the same as
    /// [`Game::legal_actions`] for that role, so a bot or a client needs nothing else. Nothing
    /// for a spectator.
    pub fn legal_actions(&self) -> LegalActions {
        Knowledge::of_view(self).map(|k| k.legal_actions()).unwrap_or_default()
    }

    /// The legal answers to the pending decision, if it waits for this view's player: what
    /// [`Game::legal_actions`] lists, from the view alone (for computer players).
    pub fn choices(&self) -> Vec<Choice> {
        self.legal_actions().choices
    }
}

/// The hideouts `hand` may place after `last`, with their sprint options (R9–R11), under the
/// trail event of that space if any (F1 Safe House, M1 Roadblock); `second` when the placement
/// must leave a legal second one (R6 `exactly_two`). The other cards of the hand come back with
/// the reason they may not be placed.
fn placements(
    hand: Cards,
    last: Card,
    effect: Option<TrailEffect>,
    second: bool,
) -> (Vec<Placement>, Vec<Blocked>) {
    let reach = Reach::on(effect);
    let mut placements = Vec::new();
    let mut blocked = Vec::new();
    for hideout in hand {
        if hideout <= last {
            blocked.push(Blocked { hideout, why: Why::NotAbove { last } });
            continue;
        }
        let value = reach.need(hideout.number() - last.number());
        let from =
            if reach.allows_sprints() { hand.without(hideout).without(Card::ESCAPE) } else { Cards::EMPTY };
        if from.sprint_value() < value {
            blocked.push(Blocked { hideout, why: Why::TooFar { need: value } });
            continue;
        }
        let sprints = if second {
            let sets: Vec<Cards> = from
                .subsets()
                .filter(|s| s.sprint_value() >= value)
                .filter(|s| can_place(hand.without(hideout).difference(*s), hideout, Reach::OPENING))
                .collect();
            if sets.is_empty() {
                blocked.push(Blocked { hideout, why: Why::NoSecondHideout });
                continue;
            }
            SprintOptions::OneOf { sets }
        } else {
            SprintOptions::AtLeast { value, from }
        };
        placements.push(Placement { hideout, sprints });
    }
    (placements, blocked)
}
