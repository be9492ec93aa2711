//! Play against the computer: the room options for a computer opponent and the Marshal's
//! notepad assist, and the bot's move, made from its role's view alone (`fugitive-ai`).

use std::time::Duration;

use fugitive_ai::{Deduction, FugitiveBot, FugitiveView, Level, MarshalBot, MarshalView};
use fugitive_core::{Action, Game, View, Viewer};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use serde::{Deserialize, Serialize};

use crate::protocol::{Notepad, NotepadCandidate, NotepadPosition};

/// A room's computer options, stored with the room.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Computer {
    /// The guest seat is played by the computer at this level.
    pub bot: Option<Level>,
    /// The Marshal's state carries the deduction's candidates (`notepad`).
    pub notepad_assist: bool,
}

/// The Marshal's notepad, solved, for her state message: only in rooms with the option and
/// while the game runs. With events it stays sound and names the events it leaves out
/// (`ignored_events`).
pub fn notepad(computer: Computer, game: &Game, viewer: Viewer) -> Option<Notepad> {
    let wanted = computer.notepad_assist && viewer == Viewer::Marshal && !game.is_over();
    wanted.then(|| {
        let deduction = Deduction::of(&MarshalView::of(game));
        let positions = deduction.positions().iter().map(|p| NotepadPosition {
            position: p.position,
            candidates: p
                .candidates
                .iter()
                .map(|c| NotepadCandidate { number: c.number, trails: c.trails })
                .collect(),
        });
        Notepad {
            trails: deduction.trails(),
            positions: positions.collect(),
            ignored_events: deduction.ignored_events().to_vec(),
        }
    })
}

/// The bot's action for `view`, its own role's view, or `None` when it has nothing to do.
/// Runs on a blocking thread: the hard Fugitive searches for some milliseconds.
///
/// A bot's move that the view's legal actions do not allow (a bot bug) is replaced by a random
/// legal one and logged, so the game goes on instead of waiting for a move that never comes.
///
/// `seed` makes its choices reproducible (`--deal-seed`); `None` picks a fresh one.
pub fn think(level: Level, view: View, seed: Option<u64>) -> Option<Action> {
    let seed = seed.unwrap_or_else(|| rand::rng().random());
    let legal = view.legal_actions();
    let action = match view.viewer {
        Viewer::Fugitive => FugitiveBot::new(level, seed).act(&FugitiveView::new(view).ok()?),
        Viewer::Marshal => MarshalBot::new(level, seed).act(&MarshalView::new(view).ok()?),
        Viewer::Spectator => None,
    };
    match action {
        Some(action) if legal.contains(&action) => Some(action),
        other => {
            tracing::error!(
                ?level,
                ?other,
                "the computer opponent chose no legal move; it plays a random one"
            );
            crate::metrics::error("bot_illegal_move");
            legal.sample(&mut StdRng::seed_from_u64(seed))
        }
    }
}

/// A natural pause before the bot moves: `base` give or take a third.
pub fn pause(base: Duration) -> Duration {
    base.mul_f64(rand::rng().random_range(0.67..1.33))
}
