//! A finished game, step by step (issue 13): what the replay page shows and the JSON export
//! returns. Once a game is over everything about it is public (R18), so each step shows the
//! whole table: the Fugitive's view (his trail with every face-down card, his hand) with the
//! Marshal's hand from hers.

use fugitive_core::{Action, Decision, Entry, Game, Phase, ReplayError, Role, Setup, Viewer};
use serde_json::Value;

/// Replays a game's log from its setup, as [`apply_stored`] reads each entry.
///
/// # Errors
/// [`ReplayError`] when a stored entry does not apply (a corrupt log).
pub fn replay(setup: Setup, actions: impl IntoIterator<Item = (Role, Entry)>) -> Result<Game, ReplayError> {
    let mut game = Game::new(setup);
    for (index, (role, action)) in actions.into_iter().enumerate() {
        apply_stored(&mut game, index, role, action)?;
    }
    Ok(game)
}

/// Applies the `index`th action of a stored log.
///
/// Logs written before the R11a bonus draw became the Fugitive's choice (issue 9) drew the
/// bonus card by itself after a pass, so they go on with the Marshal's turn while today's game
/// waits for that choice. Where a stored action is refused there, the bonus card is drawn as it
/// was then and the action applied after it; the game's own list of actions then holds the
/// draw, one more than the log (the room stores its next action under that larger number).
///
/// # Errors
/// [`ReplayError`] when the action does not apply, with or without that draw.
pub fn apply_stored(game: &mut Game, index: usize, role: Role, entry: Entry) -> Result<(), ReplayError> {
    let error = match game.apply_entry(role, entry) {
        Ok(_) => return Ok(()),
        Err(error) => error,
    };
    if matches!(game.phase(), Phase::Pending { role: Role::Fugitive, decision: Decision::PassBonus, .. }) {
        let choices = game.legal_actions(Role::Fugitive).choices;
        let draw = choices.into_iter().find(|choice| *choice != fugitive_core::Choice::Decline);
        if let Some(choice) = draw {
            let mut upgraded = game.clone();
            if upgraded.apply(Role::Fugitive, Action::Choose { choice }).is_ok()
                && upgraded.apply_entry(role, entry).is_ok()
            {
                *game = upgraded;
                return Ok(());
            }
        }
    }
    Err(ReplayError { index, role, entry, error })
}

/// The table before any action (step 0) and after each action: `actions.len() + 1` views.
///
/// # Errors
/// [`ReplayError`] when a stored action does not apply (a corrupt log).
pub fn steps(setup: Setup, actions: &[(Role, Entry)]) -> Result<Vec<Value>, ReplayError> {
    let mut game = Game::new(setup);
    let mut steps = Vec::with_capacity(actions.len() + 1);
    steps.push(everything(&game));
    for (index, &(role, entry)) in actions.iter().enumerate() {
        game.apply_entry(role, entry).map_err(|error| ReplayError { index, role, entry, error })?;
        steps.push(everything(&game));
    }
    Ok(steps)
}

/// The whole table at one moment, in the shape of a `View` read by a spectator.
fn everything(game: &Game) -> Value {
    let mut view = serde_json::to_value(game.view(Viewer::Fugitive)).expect("views serialize");
    let marshal = serde_json::to_value(game.view(Viewer::Marshal)).expect("views serialize");
    view["hands"]["marshal"] = marshal["hands"]["marshal"].clone();
    view["viewer"] = Value::from("spectator");
    view
}

#[cfg(test)]
mod tests {
    use fugitive_core::{Action, Cards, Choice, Seed};

    use super::*;

    /// A short game under R11a's bonus draw in which the Fugitive passes and takes every bonus
    /// card: today's log, with his choices in it.
    fn passing_game() -> (Setup, Vec<(Role, Entry)>) {
        let rules = fugitive_core::RuleOptions { pass_bonus_draw: true, ..Default::default() };
        let setup = Setup { seed: Seed([7; 32]), rules };
        let mut game = Game::new(setup);
        while game.actions().len() < 40 {
            let role = game.to_move().expect("the game runs");
            let legal = game.legal_actions(role);
            let action = if let Some(&choice) = legal.choices.iter().find(|c| **c != Choice::Decline) {
                Action::Choose { choice }
            } else if let Some(&deck) = legal.draws.first() {
                Action::Draw { deck }
            } else if legal.pass {
                Action::Pass
            } else if legal.end_turn {
                Action::EndTurn
            } else if let Some(guess) = legal.guess {
                Action::Guess { numbers: Cards::from_iter(guess.numbers.iter().last()) }
            } else {
                Action::Place { hideout: legal.placements[0].hideout, sprints: Cards::EMPTY }
            };
            game.apply(role, action).unwrap();
        }
        (setup, game.actions().to_vec())
    }

    #[test]
    fn a_log_from_before_the_bonus_choice_replays_with_the_draw_it_had() {
        let (setup, today) = passing_game();
        let is_bonus = |(role, entry): &(Role, Entry)| {
            *role == Role::Fugitive && matches!(entry, Entry::Action(Action::Choose { .. }))
        };
        assert!(
            today.iter().filter(|a| is_bonus(a)).count() >= 3,
            "the game passes with a bonus now and then"
        );
        // The same game as the server stored it before: the bonus card was drawn by itself.
        let old: Vec<(Role, Entry)> = today.iter().copied().filter(|a| !is_bonus(a)).collect();
        assert!(Game::replay(setup, &old).is_err(), "today's rules alone refuse the old log");
        let game = replay(setup, old).unwrap();
        assert_eq!(game.actions(), today, "the old log reads as the game it was");
        assert_eq!(game, Game::replay(setup, &today).unwrap());
    }

    #[test]
    fn a_stored_log_that_ends_with_the_clocks_time_out_replays() {
        // The log as the server has always stored it: the clock's entry is `{"type":"time_out"}`,
        // written as if it were an action, though no client may send one.
        let setup = Setup { seed: Seed([7; 32]), rules: Default::default() };
        let hideout = Game::new(setup).legal_actions(Role::Fugitive).placements[0].hideout;
        let stored = format!(
            r#"[["fugitive",{{"type":"place","hideout":{hideout},"sprints":[]}}],["fugitive",{{"type":"time_out"}}]]"#
        );
        let log: Vec<(Role, Entry)> = serde_json::from_str(&stored).unwrap();
        let game = replay(setup, log.iter().copied()).unwrap();
        let outcome =
            fugitive_core::Outcome { winner: Role::Marshal, reason: fugitive_core::Reason::TimeOut };
        assert_eq!(game.outcome(), Some(outcome));
        assert_eq!(game.actions(), log);
        assert_eq!(serde_json::to_string(game.actions()).unwrap(), stored, "written back the same");
        assert_eq!(steps(setup, game.actions()).unwrap().len(), 3);
    }

    #[test]
    fn a_corrupt_log_is_still_refused() {
        let (setup, mut today) = passing_game();
        today.insert(3, (Role::Marshal, Action::Pass.into()));
        assert_eq!(replay(setup, today).unwrap_err().index, 3);
    }

    #[test]
    fn every_step_shows_both_hands_and_the_whole_trail() {
        let setup = Setup { seed: Seed([7; 32]), rules: Default::default() };
        let legal = Game::new(setup).legal_actions(Role::Fugitive);
        let place = Action::Place { hideout: legal.placements[0].hideout, sprints: Cards::EMPTY };
        let actions = [(Role::Fugitive, place.into()), (Role::Fugitive, Action::Resign.into())];
        let steps = steps(setup, &actions).unwrap();
        assert_eq!(steps.len(), 3);
        let hideout = legal.placements[0].hideout;
        assert_eq!(
            steps[1]["trail"][1]["card"],
            serde_json::to_value(hideout).unwrap(),
            "a face-down hideout is shown"
        );
        assert_eq!(steps[1]["trail"][1]["face_up"], false);
        assert!(steps[1]["hands"]["fugitive"]["cards"].is_array());
        assert!(steps[1]["hands"]["marshal"]["cards"].is_array());
        assert!(steps[0]["outcome"].is_null());
        assert_eq!(steps[2]["outcome"]["reason"], "resignation");
        assert_eq!(steps[1]["viewer"], "spectator");
    }
}
