//! A finished game, step by step (issue 13): what the replay page shows and the JSON export
//! returns. Once a game is over everything about it is public (R18), so each step shows the
//! whole table: the Fugitive's view (his trail with every face-down card, his hand) with the
//! Marshal's hand from hers.

use fugitive_core::{Action, Game, ReplayError, Role, Setup, Viewer};
use serde_json::Value;

/// The table before any action (step 0) and after each action: `actions.len() + 1` views.
///
/// # Errors
/// [`ReplayError`] when a stored action does not apply (a corrupt log).
pub fn steps(setup: Setup, actions: &[(Role, Action)]) -> Result<Vec<Value>, ReplayError> {
    let mut game = Game::new(setup);
    let mut steps = Vec::with_capacity(actions.len() + 1);
    steps.push(everything(&game));
    for (index, &(role, action)) in actions.iter().enumerate() {
        game.apply(role, action).map_err(|error| ReplayError { index, role, action, error })?;
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
    use fugitive_core::{Action, Cards, Seed};

    use super::*;

    #[test]
    fn every_step_shows_both_hands_and_the_whole_trail() {
        let setup = Setup { seed: Seed([7; 32]), rules: Default::default() };
        let legal = Game::new(setup).legal_actions(Role::Fugitive);
        let place = Action::Place { hideout: legal.placements[0].hideout, sprints: Cards::EMPTY };
        let actions = [(Role::Fugitive, place), (Role::Fugitive, Action::Resign)];
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
