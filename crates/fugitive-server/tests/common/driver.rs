//! Plays whole games over the real sockets. The driver sees both players' views, so the
//! Marshal can read the Fugitive's trail and guess right or wrong at will: that is how a test
//! steers to each ending. Only the rules' legal actions from the server's `legal` are used.

use std::cmp::Reverse;

use fugitive_core::{Action, Card, Cards, Deck, LegalActions, Outcome, Role, SprintOptions, View};
use serde_json::Value;

use super::Table;

/// The ending a game is steered to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Goal {
    /// The Fugitive plays 42 after the Marshal revealed a hideout of 30 or more (R15).
    Escape,
    /// 42 with nothing high revealed starts the Manhunt; the Marshal misses (R16).
    ManhuntSurvived,
    /// The same, but the Marshal finds every hideout (R16).
    ManhuntSuccess,
    /// The Marshal names every face-down hideout in one guess (R12, R14).
    AllHideoutsFound,
    /// The Marshal resigns (R17).
    Resignation,
}

pub fn view_of(state: &Value) -> View {
    serde_json::from_value(state["view"].clone()).expect("a view")
}

pub fn legal_of(state: &Value) -> LegalActions {
    serde_json::from_value(state["legal"].clone()).expect("a player's legal actions")
}

/// Plays up to `max_actions` actions towards `goal`; the outcome if the game ended.
pub async fn play(table: &mut Table, goal: Goal, max_actions: usize) -> Option<Outcome> {
    for _ in 0..max_actions {
        let fugitive_state = table.fugitive.state.clone().expect("a state");
        let version = fugitive_state["version"].as_u64().unwrap();
        let marshal_state = table.marshal.wait_version(version).await;
        let trail_view = view_of(&fugitive_state);
        if let Some(outcome) = trail_view.outcome {
            return Some(outcome);
        }
        let (client, action) = match trail_view.phase.to_move().expect("the game runs") {
            Role::Fugitive => {
                (&mut table.fugitive, fugitive_move(&trail_view, &legal_of(&fugitive_state), goal))
            }
            Role::Marshal => {
                let action =
                    marshal_move(&view_of(&marshal_state), &legal_of(&marshal_state), &trail_view, goal);
                (&mut table.marshal, action)
            }
        };
        let reply = client.act(serde_json::to_value(action).unwrap()).await;
        assert_eq!(reply["ok"], true, "{action:?} was refused: {reply}");
        table.sync(version + 1).await;
    }
    view_of(table.fugitive.state.as_ref().unwrap()).outcome
}

fn last_card(view: &View) -> u8 {
    view.trail.last().and_then(|t| t.card).map_or(0, Card::number)
}

/// `H` of R15 as the Fugitive sees it.
fn highest_revealed(view: &View) -> u8 {
    view.trail
        .iter()
        .filter(|t| t.face_up)
        .filter_map(|t| t.card.map(Card::number))
        .filter(|&n| n != 42)
        .max()
        .unwrap_or(0)
}

/// The Fugitive walks towards 42 in small, cheap steps, and plays 42 when the goal wants it.
pub fn fugitive_move(view: &View, legal: &LegalActions, goal: Goal) -> Action {
    let last = last_card(view);
    if !legal.draws.is_empty() {
        let deck = Deck::ALL
            .into_iter()
            .filter(|d| legal.draws.contains(d))
            .find(|d| d.range().1 > last + 1)
            .unwrap_or(legal.draws[0]);
        return Action::Draw { deck };
    }
    let want_42 = goal != Goal::Escape || highest_revealed(view) >= 30;
    let escape = legal.placements.iter().find(|p| p.hideout == Card::ESCAPE);
    if let (true, Some(placement)) = (want_42, escape) {
        return Action::Place { hideout: placement.hideout, sprints: cheapest(&placement.sprints, last) };
    }
    let step = legal
        .placements
        .iter()
        .filter(|p| p.hideout != Card::ESCAPE)
        .min_by_key(|p| (needed(&p.sprints), Reverse(p.hideout)));
    match step {
        Some(p) if needed(&p.sprints) <= 2 || !legal.pass => {
            Action::Place { hideout: p.hideout, sprints: cheapest(&p.sprints, last) }
        }
        _ if legal.pass => Action::Pass,
        _ if legal.end_turn => Action::EndTurn,
        _ => {
            let p = escape.expect("some placement is legal");
            Action::Place { hideout: p.hideout, sprints: cheapest(&p.sprints, last) }
        }
    }
}

fn needed(sprints: &SprintOptions) -> u8 {
    match sprints {
        SprintOptions::AtLeast { value, .. } => *value,
        SprintOptions::OneOf { sets } => sets.iter().map(|s| s.sprint_value()).min().unwrap_or(0),
    }
}

/// The fewest sprint cards that pay, spending cards below the trail's end first.
fn cheapest(sprints: &SprintOptions, last: u8) -> Cards {
    match sprints {
        SprintOptions::OneOf { sets } => *sets.iter().min_by_key(|s| s.len()).expect("a set"),
        SprintOptions::AtLeast { value, from } => {
            let mut cards: Vec<Card> = from.iter().collect();
            cards.sort_by_key(|c| (c.number() > last, Reverse(c.sprint_value())));
            let mut chosen = Cards::EMPTY;
            for card in cards {
                if chosen.sprint_value() >= *value {
                    break;
                }
                chosen.insert(card);
            }
            chosen
        }
    }
}

/// The Marshal draws low, then guesses right or wrong as the goal wants, reading the
/// Fugitive's trail.
pub fn marshal_move(view: &View, legal: &LegalActions, trail_view: &View, goal: Goal) -> Action {
    if goal == Goal::Resignation {
        return Action::Resign;
    }
    if !legal.draws.is_empty() {
        return Action::Draw { deck: legal.draws[0] };
    }
    let options = legal.guess.expect("the Marshal guesses");
    let hidden: Cards = trail_view.trail.iter().filter(|t| !t.face_up).filter_map(|t| t.card).collect();
    let right = |card: Card| Action::Guess { numbers: Cards::from(card) };
    match goal {
        Goal::AllHideoutsFound if !options.single => return Action::Guess { numbers: hidden },
        Goal::ManhuntSuccess if options.single => return right(hidden.first().expect("a hidden hideout")),
        Goal::Escape if hidden.len() >= 2 && !options.single => {
            if let Some(high) = hidden.iter().find(|c| c.number() >= 30) {
                return right(high);
            }
        }
        _ => {}
    }
    let own = view.hands.marshal.cards.unwrap_or(Cards::EMPTY);
    let wrong = options.numbers.difference(hidden);
    let number = wrong.intersection(own).first().or(wrong.first()).expect("a wrong number");
    right(number)
}
