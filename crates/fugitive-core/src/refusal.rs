//! The typed reasons behind two refusals: an action that does not fit the phase of the turn
//! ([`PhaseReason`]) and an answer that does not fit the pending decision ([`ChoiceReason`]).
//!
//! Each reason has a stable code, sent to clients beside the error's code, so a client says
//! the reason in its reader's language (the web client's `refusal.{code}` strings). The English
//! sentence of each (its `Display`) is the error's message and names the rule.

use std::fmt;

use crate::events::Decision;

/// Why an action does not fit the phase of the turn: what the player must do instead.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PhaseReason {
    /// An event waits for this player's choice (E3).
    ChoiceFirst,
    /// A choice was sent while no event waits for one (E3).
    NothingToChoose,
    /// The turn begins with a draw (R7, R8).
    DrawFirst,
    /// In the Manhunt the Marshal only guesses (R16).
    ManhuntGuessesOnly,
    /// The Marshal has drawn: now she guesses (R8).
    GuessNow,
    /// The Fugitive draws nothing on his first turn (R6).
    NoDrawFirstTurn,
    /// The Fugitive has drawn this turn: he places a hideout or passes (R7).
    DrawnAlready,
    /// The Fugitive may not pass on his first turn (R11a).
    NoPassFirstTurn,
    /// Under `exactly_two` the first turn ends only after two hideouts (R6).
    TwoHideoutsFirstTurn,
    /// The first turn ends only after a hideout (R6).
    PlaceFirst,
    /// A turn ends by placing a hideout or passing, not by ending it (R7).
    PlaceOrPass,
}

impl PhaseReason {
    /// Every reason, for the clients' tables of translations.
    pub const ALL: [PhaseReason; 11] = [
        PhaseReason::ChoiceFirst,
        PhaseReason::NothingToChoose,
        PhaseReason::DrawFirst,
        PhaseReason::ManhuntGuessesOnly,
        PhaseReason::GuessNow,
        PhaseReason::NoDrawFirstTurn,
        PhaseReason::DrawnAlready,
        PhaseReason::NoPassFirstTurn,
        PhaseReason::TwoHideoutsFirstTurn,
        PhaseReason::PlaceFirst,
        PhaseReason::PlaceOrPass,
    ];

    /// The stable code sent to clients (the wire's `error.reason`).
    pub const fn code(self) -> &'static str {
        match self {
            PhaseReason::ChoiceFirst => "choice_first",
            PhaseReason::NothingToChoose => "nothing_to_choose",
            PhaseReason::DrawFirst => "draw_first",
            PhaseReason::ManhuntGuessesOnly => "manhunt_guesses_only",
            PhaseReason::GuessNow => "guess_now",
            PhaseReason::NoDrawFirstTurn => "no_draw_first_turn",
            PhaseReason::DrawnAlready => "drawn_already",
            PhaseReason::NoPassFirstTurn => "no_pass_first_turn",
            PhaseReason::TwoHideoutsFirstTurn => "two_hideouts_first_turn",
            PhaseReason::PlaceFirst => "place_first",
            PhaseReason::PlaceOrPass => "place_or_pass",
        }
    }
}

impl fmt::Display for PhaseReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            PhaseReason::ChoiceFirst => "an event waits for your choice first (E3)",
            PhaseReason::NothingToChoose => "there is nothing to choose now (E3)",
            PhaseReason::DrawFirst => "draw a card first (R7, R8)",
            PhaseReason::ManhuntGuessesOnly => "the Manhunt allows only guesses (R16)",
            PhaseReason::GuessNow => "now guess (R8)",
            PhaseReason::NoDrawFirstTurn => "there is no draw on the first turn (R6)",
            PhaseReason::DrawnAlready => "you have drawn: now place a hideout or pass (R7)",
            PhaseReason::NoPassFirstTurn => "passing is not allowed on the first turn (R11a)",
            PhaseReason::TwoHideoutsFirstTurn => "the first turn needs two hideouts under exactly_two (R6)",
            PhaseReason::PlaceFirst => "place a hideout first (R6)",
            PhaseReason::PlaceOrPass => "place a hideout or pass (R7)",
        })
    }
}

/// Why an answer does not fit the pending decision: which decision waits, and so what answers
/// it. One reason per kind of [`Decision`]; its code is the decision's `kind` on the wire.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ChoiceReason {
    /// F4 Bad Intel: a card of the Marshal's hand to the bottom of its deck.
    BadIntel,
    /// F5 Smoke Screen: a card of the Fugitive's hand under a face-down hideout, or decline.
    SmokeScreen,
    /// M2 Informant: a face-down hideout.
    Informant,
    /// M3 Stakeout: a deck's range.
    Stakeout,
    /// M4 Dragnet: one number from 1 to 41 that is not face up.
    Dragnet,
    /// N5 Town Gossip: a deck that is not empty.
    TownGossip,
    /// N5 Town Gossip: keep the card looked at on top, or move it to the bottom.
    TownGossipMove,
    /// N6 Change of Plans: a card of the hand from decks 1–3 to the bottom of its deck, or
    /// decline.
    ChangeOfPlans,
    /// R11a: the bonus card from the lowest-numbered non-empty deck, or decline.
    PassBonus,
}

impl ChoiceReason {
    /// Every reason, for the clients' tables of translations.
    pub const ALL: [ChoiceReason; 9] = [
        ChoiceReason::BadIntel,
        ChoiceReason::SmokeScreen,
        ChoiceReason::Informant,
        ChoiceReason::Stakeout,
        ChoiceReason::Dragnet,
        ChoiceReason::TownGossip,
        ChoiceReason::TownGossipMove,
        ChoiceReason::ChangeOfPlans,
        ChoiceReason::PassBonus,
    ];

    /// The reason an answer to `decision` is refused.
    pub const fn of(decision: Decision) -> ChoiceReason {
        match decision {
            Decision::BadIntel => ChoiceReason::BadIntel,
            Decision::SmokeScreen => ChoiceReason::SmokeScreen,
            Decision::Informant => ChoiceReason::Informant,
            Decision::Stakeout => ChoiceReason::Stakeout,
            Decision::Dragnet => ChoiceReason::Dragnet,
            Decision::TownGossip => ChoiceReason::TownGossip,
            Decision::TownGossipMove { .. } => ChoiceReason::TownGossipMove,
            Decision::ChangeOfPlans => ChoiceReason::ChangeOfPlans,
            Decision::PassBonus => ChoiceReason::PassBonus,
        }
    }

    /// The stable code sent to clients (the wire's `error.reason`): the decision's `kind`.
    pub const fn code(self) -> &'static str {
        match self {
            ChoiceReason::BadIntel => "bad_intel",
            ChoiceReason::SmokeScreen => "smoke_screen",
            ChoiceReason::Informant => "informant",
            ChoiceReason::Stakeout => "stakeout",
            ChoiceReason::Dragnet => "dragnet",
            ChoiceReason::TownGossip => "town_gossip",
            ChoiceReason::TownGossipMove => "town_gossip_move",
            ChoiceReason::ChangeOfPlans => "change_of_plans",
            ChoiceReason::PassBonus => "pass_bonus",
        }
    }
}

impl fmt::Display for ChoiceReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            ChoiceReason::BadIntel => "put a card of your hand at the bottom of its deck (F4 Bad Intel)",
            ChoiceReason::SmokeScreen => {
                "add a card of your hand under a face-down hideout, or decline (F5 Smoke Screen)"
            }
            ChoiceReason::Informant => "pick a face-down hideout (M2 Informant)",
            ChoiceReason::Stakeout => "name a range: deck 1, 2 or 3 (M3 Stakeout)",
            ChoiceReason::Dragnet => "name one number from 1 to 41 that is not face up (M4 Dragnet)",
            ChoiceReason::TownGossip => "pick a deck that is not empty (N5 Town Gossip)",
            ChoiceReason::TownGossipMove => "keep the card on top or move it to the bottom (N5)",
            ChoiceReason::ChangeOfPlans => {
                "put a card of your hand from decks 1–3 at the bottom of its deck, or decline (N6)"
            }
            ChoiceReason::PassBonus => {
                "draw the bonus card from the lowest-numbered non-empty deck, or decline (R11a)"
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use std::collections::HashSet;

    use super::*;
    use crate::deck::Deck;

    #[test]
    fn every_reason_has_its_own_code_and_a_sentence_that_names_its_rule() {
        let phase = PhaseReason::ALL.map(|r| (r.code(), r.to_string()));
        let choice = ChoiceReason::ALL.map(|r| (r.code(), r.to_string()));
        let all: Vec<_> = phase.iter().chain(&choice).collect();
        let codes: HashSet<_> = all.iter().map(|(code, _)| *code).collect();
        assert_eq!(codes.len(), all.len(), "a code is used twice");
        for (code, sentence) in all {
            assert!(code.chars().all(|c| c.is_ascii_lowercase() || c == '_'), "{code}");
            assert!(sentence.ends_with(')'), "{code}: {sentence} names no rule");
        }
    }

    #[test]
    fn a_choice_reason_is_the_decisions_kind_on_the_wire() {
        let decisions = [
            Decision::BadIntel,
            Decision::SmokeScreen,
            Decision::Informant,
            Decision::Stakeout,
            Decision::Dragnet,
            Decision::TownGossip,
            Decision::TownGossipMove { deck: Deck::Two },
            Decision::ChangeOfPlans,
            Decision::PassBonus,
        ];
        for (decision, reason) in decisions.into_iter().zip(ChoiceReason::ALL) {
            assert_eq!(ChoiceReason::of(decision), reason);
            let json = serde_json::to_value(decision).expect("a decision serializes");
            assert_eq!(json["kind"], reason.code(), "{decision:?}");
        }
    }
}
