//! What a player can do, what a game's record holds, and why the game refuses an action.

use serde::{Deserialize, Serialize};
use thiserror::Error;

use crate::card::{Card, Cards};
use crate::deck::Deck;
use crate::events::Choice;
use crate::phase::Phase;
use crate::refusal::{ChoiceReason, PhaseReason};
use crate::role::Role;

/// One action of one player. Serialized with a `type` tag, e.g.
/// `{"type":"place","hideout":12,"sprints":[4]}`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
pub enum Action {
    /// Draw the top card of a deck (R7, R8).
    Draw {
        /// Which deck.
        deck: Deck,
    },
    /// Place a hideout with sprint cards under it (R9–R11).
    Place {
        /// The hideout card.
        hideout: Card,
        /// The sprint cards, possibly none.
        #[serde(default)]
        sprints: Cards,
    },
    /// Place nothing this turn (R11a).
    Pass,
    /// End the first turn after one hideout (R6, `one_or_two` only).
    EndTurn,
    /// Name one or more distinct numbers (R12); exactly one in the Manhunt (R16).
    Guess {
        /// The numbers guessed.
        numbers: Cards,
    },
    /// Answer the pending decision of an event (E3), e.g.
    /// `{"type":"choose","choice":{"kind":"number","number":17}}`.
    Choose {
        /// The answer.
        choice: Choice,
    },
    /// Give up: the other side wins (R17).
    Resign,
}

/// One entry of a game's record: a player's [`Action`], or the turn clock running out on the
/// player to move (R17). The clock is not a player, so a time out is not an `Action` a client
/// could send; it is recorded beside them, as `{"type":"time_out"}`, the way records have
/// always stored it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(from = "EntryJson", into = "EntryJson")]
pub enum Entry {
    /// A player's action.
    Action(Action),
    /// The turn clock ran out on the player to move: the other side wins (R17).
    TimeOut,
}

impl From<Action> for Entry {
    fn from(action: Action) -> Entry {
        Entry::Action(action)
    }
}

/// An [`Entry`] as JSON: an action's object, or `{"type":"time_out"}`.
#[derive(Clone, Copy, Serialize, Deserialize)]
#[serde(untagged)]
enum EntryJson {
    Action(Action),
    Clock(Clock),
}

/// The clock's one entry, tagged like an action.
#[derive(Clone, Copy, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
enum Clock {
    TimeOut,
}

impl From<EntryJson> for Entry {
    fn from(json: EntryJson) -> Entry {
        match json {
            EntryJson::Action(action) => Entry::Action(action),
            EntryJson::Clock(Clock::TimeOut) => Entry::TimeOut,
        }
    }
}

impl From<Entry> for EntryJson {
    fn from(entry: Entry) -> EntryJson {
        match entry {
            Entry::Action(action) => EntryJson::Action(action),
            Entry::TimeOut => EntryJson::Clock(Clock::TimeOut),
        }
    }
}

/// Why an action was refused. The game is left exactly as it was. The message names the rule.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum ActionError {
    /// The game has ended.
    #[error("the game is over (R18)")]
    GameOver,
    /// It is the other player's turn.
    #[error("it is the {expected}'s turn, not the {actual}'s (R5)")]
    NotYourTurn {
        /// Whose turn it is.
        expected: Role,
        /// Who tried to act.
        actual: Role,
    },
    /// The action is one the other role takes.
    #[error("only the {0} may do that (R5)")]
    WrongRole(Role),
    /// The action does not fit the phase of the turn.
    #[error("{reason}")]
    WrongPhase {
        /// What the player must do now.
        reason: PhaseReason,
        /// The phase the game is in.
        phase: Phase,
    },
    /// The deck has no cards left.
    #[error("{0} is empty (R7, R8)")]
    DeckEmpty(Deck),
    /// The hideout card is not in the Fugitive's hand.
    #[error("card {0} is not in your hand (R9)")]
    NotInHand(Card),
    /// A sprint card is not in the Fugitive's hand.
    #[error("sprint card {0} is not in your hand (R10)")]
    SprintNotInHand(Card),
    /// The same card was named as hideout and as sprint card.
    #[error("card {0} cannot be both the hideout and a sprint card (R10)")]
    SprintIsHideout(Card),
    /// 42 was offered as a sprint card.
    #[error("42 cannot be used as a sprint card (R11)")]
    SprintIs42,
    /// The hideout is not above the last card of the trail.
    #[error("hideout {hideout} is not above {last}, the last card of the trail (R9)")]
    NotAbove {
        /// The card placed.
        hideout: Card,
        /// The last card of the trail.
        last: Card,
    },
    /// The hideout is too far above the last card for its sprint cards.
    #[error("hideout {hideout} is more than 3 + sprint {sprint} above {last} (R9)")]
    TooFar {
        /// The card placed.
        hideout: Card,
        /// The last card of the trail.
        last: Card,
        /// The sprint value under it.
        sprint: u8,
    },
    /// Under `exactly_two`, the first placement leaves no legal second one.
    #[error("this placement leaves no legal second hideout, and the first turn needs two (R6)")]
    NoSecondHideout,
    /// A guess named no number.
    #[error("a guess names at least one number (R12)")]
    EmptyGuess,
    /// A guessed number is 0 or 42.
    #[error("{0} cannot be guessed: guesses are 1 to 41 (R12)")]
    GuessOutOfRange(Card),
    /// A guessed number is already face up.
    #[error("{0} is already face up on the trail (R12)")]
    GuessFaceUp(Card),
    /// More than one number in the Manhunt.
    #[error("in the Manhunt each guess names exactly one number (R16)")]
    ManhuntOneNumber,
    /// More than one number after Lie Low.
    #[error("after Lie Low the next guess names exactly one number (F3)")]
    LieLowOneNumber,
    /// Sprint cards on a Roadblock space.
    #[error("no sprint cards on a Roadblock space (M1)")]
    RoadblockSprints,
    /// The hideout is too far above the last card, even for a Safe House.
    #[error("hideout {hideout} is more than 5 + sprint {sprint} above {last} (F1 Safe House)")]
    SafeHouseTooFar {
        /// The card placed.
        hideout: Card,
        /// The last card of the trail.
        last: Card,
        /// The sprint value under it.
        sprint: u8,
    },
    /// The answer does not fit the pending decision; the reason says what does.
    #[error("{0} (E3)")]
    BadChoice(ChoiceReason),
}

impl ActionError {
    /// A stable, machine-readable code for the wire protocol.
    pub const fn code(&self) -> &'static str {
        match self {
            ActionError::GameOver => "game_over",
            ActionError::NotYourTurn { .. } => "not_your_turn",
            ActionError::WrongRole(_) => "wrong_role",
            ActionError::WrongPhase { .. } => "wrong_phase",
            ActionError::DeckEmpty(_) => "deck_empty",
            ActionError::NotInHand(_) => "not_in_hand",
            ActionError::SprintNotInHand(_) => "sprint_not_in_hand",
            ActionError::SprintIsHideout(_) => "sprint_is_hideout",
            ActionError::SprintIs42 => "sprint_is_42",
            ActionError::NotAbove { .. } => "not_above",
            ActionError::TooFar { .. } => "too_far",
            ActionError::NoSecondHideout => "no_second_hideout",
            ActionError::EmptyGuess => "empty_guess",
            ActionError::GuessOutOfRange(_) => "guess_out_of_range",
            ActionError::GuessFaceUp(_) => "guess_face_up",
            ActionError::ManhuntOneNumber => "manhunt_one_number",
            ActionError::LieLowOneNumber => "lie_low_one_number",
            ActionError::RoadblockSprints => "roadblock_sprints",
            ActionError::SafeHouseTooFar { .. } => "too_far",
            ActionError::BadChoice(_) => "bad_choice",
        }
    }

    /// The stable code of the typed reason behind [`ActionError::WrongPhase`] and
    /// [`ActionError::BadChoice`] (the wire's `error.reason`), which one code alone does not
    /// tell; `None` for every other refusal, whose code says it all.
    pub const fn reason(&self) -> Option<&'static str> {
        match self {
            ActionError::WrongPhase { reason, .. } => Some(reason.code()),
            ActionError::BadChoice(reason) => Some(reason.code()),
            _ => None,
        }
    }

    /// Every code [`ActionError::reason`] may return.
    pub fn reason_codes() -> impl Iterator<Item = &'static str> {
        let phase = PhaseReason::ALL.into_iter().map(PhaseReason::code);
        phase.chain(ChoiceReason::ALL.into_iter().map(ChoiceReason::code))
    }
}
