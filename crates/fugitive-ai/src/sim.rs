//! Bot-vs-bot games, for `fugitive-sim` and the tests.

use std::time::{Duration, Instant};

use cpu_time::ThreadTime;
use fugitive_core::{Action, ByRole, Entry, Game, Outcome, Role, Setup};

use crate::fugitive::FugitiveBot;
use crate::marshal::MarshalBot;
use crate::view::{FugitiveView, Level, MarshalView};

/// No bot game may take more actions than this; one that does is reported unfinished.
pub const MAX_ACTIONS: usize = 2_000;

/// How one bot-vs-bot game went.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MatchResult {
    /// The winner and why; `None` if the game hit [`MAX_ACTIONS`].
    pub outcome: Option<Outcome>,
    /// Accepted actions.
    pub actions: usize,
    /// Turns the Marshal began.
    pub marshal_turns: u32,
    /// The bot whose move was refused (a bot bug); it then resigned, ending the game.
    pub refused: Option<Role>,
    /// How long each of a bot's decisions took (wall clock), in order.
    pub thinking: ByRole<Vec<Duration>>,
    /// The CPU time of the deciding thread for each of those decisions: on a shared machine,
    /// the part of the wall clock that was the bot's own work.
    pub thinking_cpu: ByRole<Vec<Duration>>,
    /// The baseline of the Fugitive's time: how long an `easy` Fugitive took to decide in the
    /// same views, timed right after each of the Fugitive's decisions (so under the same load).
    pub baseline: Vec<Duration>,
    /// The game's record (`Game::actions`): with its setup, `Game::replay` rebuilds it (e.g.
    /// for `fugitive-sim --puzzles`).
    pub record: Vec<(Role, Entry)>,
}

/// Plays one game of a `fugitive` bot against a `marshal` bot. Each bot is handed only its
/// own role's view; `seed` seeds the bots (the deal comes from `setup`).
pub fn play_match(setup: Setup, fugitive: Level, marshal: Level, seed: u64) -> MatchResult {
    play_bots(setup, FugitiveBot::new(fugitive, seed), MarshalBot::new(marshal, seed ^ 0x5eed))
}

/// Plays one game between these two bots (built with any options, e.g.
/// [`FugitiveBot::with_budget`]). Each bot is handed only its own role's view.
pub fn play_bots(setup: Setup, mut fugitive: FugitiveBot, mut marshal: MarshalBot) -> MatchResult {
    let mut game = Game::new(setup);
    let mut easy = FugitiveBot::new(Level::Easy, 0);
    let mut baseline = Vec::new();
    let mut refused = None;
    let mut thinking: ByRole<Vec<Duration>> = ByRole::default();
    let mut thinking_cpu: ByRole<Vec<Duration>> = ByRole::default();
    while let Some(role) = game.to_move() {
        if game.actions().len() >= MAX_ACTIONS {
            break;
        }
        let start = Instant::now();
        let cpu = ThreadTime::try_now().ok();
        let mut took = |role: Role| {
            thinking[role].push(start.elapsed());
            thinking_cpu[role].push(cpu.and_then(|c| c.try_elapsed().ok()).unwrap_or_default());
        };
        let action = match role {
            Role::Fugitive => {
                let view = FugitiveView::of(&game);
                let action = fugitive.act(&view);
                took(role);
                let start = Instant::now();
                easy.act(&FugitiveView::of(&game));
                baseline.push(start.elapsed());
                action
            }
            Role::Marshal => {
                let action = marshal.act(&MarshalView::of(&game));
                took(role);
                action
            }
        };
        // A bot always has a legal move on its turn; if it had none, it resigns and the
        // result says so, so a bot bug is counted, not taken for a loss.
        if action.is_none_or(|action| game.apply(role, action).is_err()) {
            refused = Some(role);
            game.apply(role, Action::Resign).expect("resigning is always legal");
        }
    }
    MatchResult {
        outcome: game.outcome(),
        actions: game.actions().len(),
        marshal_turns: game.marshal_turns(),
        refused,
        thinking,
        thinking_cpu,
        baseline,
        record: game.actions().to_vec(),
    }
}
