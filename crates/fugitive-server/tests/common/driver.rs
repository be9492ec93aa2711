//! Plays whole games over the real sockets. The driver sees both players' views, so the
//! Marshal can read the Fugitive's trail and guess right or wrong at will: that is how a test
//! steers to each ending. Only the rules' legal actions from the server's `legal` are used.
//!
//! The driver cannot reach every goal with every deal (its Fugitive may find no way to 42 and
//! pass forever while its Marshal misses on purpose). So a test that plays to an ending plays a
//! known deal: [`deal_reaching`] finds, by playing the driver against the rules engine itself,
//! a `--deal-seed` under which the server deals games the driver does end as wanted. The driver
//! is deterministic, so the game over the sockets is that same game.

use std::cmp::Reverse;

use fugitive_core::{
    Action, Card, Cards, Deck, Game, LegalActions, Outcome, Reason, Role, RuleOptions, Setup, SprintOptions,
    View, Viewer,
};
use serde_json::Value;

/// The most actions a test lets the driver play in one game.
pub const MAX_ACTIONS: usize = 400;

/// Plays `setup` with the driver towards `goal` against the rules engine, as [`play`] does over
/// the sockets: the outcome, if the game ended within `max_actions`, and the actions played.
pub fn simulate(setup: Setup, goal: Goal, max_actions: usize) -> (Option<Outcome>, usize) {
    let mut game = Game::new(setup);
    for _ in 0..max_actions {
        let Some(role) = game.to_move() else { break };
        let trail_view = game.view(Viewer::Fugitive);
        let action = match role {
            Role::Fugitive => fugitive_move(&trail_view, &game.legal_actions(role), goal),
            Role::Marshal => {
                marshal_move(&game.view(Viewer::Marshal), &game.legal_actions(role), &trail_view, goal)
            }
        };
        game.apply(role, action).expect("the driver plays legal actions");
    }
    (game.outcome(), game.actions().len())
}

/// A `--deal-seed` for a server on which the driver, steering game n of a room (default rules)
/// to `endings[n - 1].0`, ends it with `endings[n - 1].1` within [`MAX_ACTIONS`], and never
/// before `at_least` actions (for tests that interrupt a running game). Deterministic: the same
/// seed every run.
pub fn deal_reaching(endings: &[(Goal, Reason)], at_least: usize) -> u64 {
    (0..2_000u64)
        .find(|&base| {
            endings.iter().zip(1u64..).all(|(&(goal, reason), number)| {
                let setup =
                    Setup { seed: fugitive_server::rooms::deal(base, number), rules: RuleOptions::default() };
                let (outcome, played) = simulate(setup, goal, MAX_ACTIONS);
                outcome.is_some_and(|o| o.reason == reason) && played >= at_least
            })
        })
        .unwrap_or_else(|| {
            panic!("the driver reaches {endings:?} with no deal of 2,000: the driver is broken")
        })
}

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

/// Plays up to `max_actions` actions towards `goal`; the outcome if the game ended. To an
/// ending only on a known deal ([`deal_reaching`]); on a random deal only for a few actions
/// that cannot end the game.
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
