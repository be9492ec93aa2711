//! Play against the computer, the adapter to `fugitive-ai`: the Marshal's notepad assist, and
//! the bot's move, made from its role's view alone. (The room's computer options are
//! `model/options.rs`.)

use std::time::Duration;

use crate::model::options::Computer;
use crate::protocol::{Notepad, NotepadCandidate, NotepadPosition};
use fugitive_ai::{Budget, Deduction, FugitiveBot, FugitiveView, Level, MarshalBot, MarshalView};
use fugitive_core::{Action, Game, View, Viewer};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

/// The Marshal's notepad, solved, for her state message: only in rooms with the option and
/// while the game runs. With events it counts what they told her; where it falls back to the
/// trail count it stays sound and names the events it then leaves out (`ignored_events`).
pub fn notepad(computer: Computer, game: &Game, viewer: Viewer) -> Option<Notepad> {
    wants_notepad(computer, game, viewer).then(|| {
        #[cfg(test)]
        SOLVED.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        let deduction = Deduction::of(&MarshalView::of(game));
        let positions = deduction.positions().iter().map(|p| NotepadPosition {
            position: p.position,
            candidates: p
                .candidates
                .iter()
                .map(|c| NotepadCandidate { number: c.number, trails: c.worlds })
                .collect(),
        });
        Notepad {
            trails: deduction.worlds(),
            exact: deduction.exact(),
            positions: positions.collect(),
            ignored_events: deduction.ignored_events().to_vec(),
        }
    })
}

/// Whether `viewer`'s state carries the notepad: the Marshal's, in a room with the option,
/// while the game runs.
pub fn wants_notepad(computer: Computer, game: &Game, viewer: Viewer) -> bool {
    computer.notepad_assist && viewer == Viewer::Marshal && !game.is_over()
}

/// Unit tests only: how many notepads were solved in this process.
#[cfg(test)]
pub(crate) static SOLVED: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

/// How long the searching Fugitive (`medium`, `hard`) thinks about one move
/// ([`FugitiveBot::with_budget`]): at most 150 ms of his thread's CPU time, so he plays as well
/// on a busy machine as on a quiet one, unless the machine is so busy that 250 ms of wall clock
/// pass first (the player's wait); past either, once every candidate has played in one world,
/// he plays the best move of the worlds he finished. His rollout count bounds the search too,
/// and usually first (`BENCHMARKS.md`, issue 29: time per decision).
pub const FUGITIVE_BUDGET: Budget = Budget {
    cpu: Some(Duration::from_millis(150)),
    wall: Some(Duration::from_millis(250)),
    cap: Some(FUGITIVE_CAP),
};

/// The longest the searching Fugitive ever thinks, whatever the machine does: past it he stops
/// at his next rollout, even in his first world, and plays; it leaves 200 ms of the 1 s a
/// player is promised for the rollout in flight and the move's way to the room.
pub const FUGITIVE_CAP: Duration = Duration::from_millis(800);

/// The bot's action for `view`, its own role's view, or `None` when it has nothing to do.
/// Runs on a blocking thread, never on the room's actor: the searching Fugitive thinks within
/// [`FUGITIVE_BUDGET`], never past [`FUGITIVE_CAP`]. Under
/// `--deal-seed` its choices repeat as long as its search ends within the budget (on a machine
/// so loaded that it does not, they follow the clock).
///
/// A bot's move that the view's legal actions do not allow (a bot bug) is replaced by a random
/// legal one and logged, so the game goes on instead of waiting for a move that never comes.
///
/// `seed` makes its choices reproducible (`--deal-seed`); `None` picks a fresh one.
pub fn think(level: Level, view: View, seed: Option<u64>) -> Option<Action> {
    let seed = seed.unwrap_or_else(|| rand::rng().random());
    let legal = view.legal_actions();
    let action = match view.viewer {
        Viewer::Fugitive => {
            FugitiveBot::new(level, seed).with_budget(FUGITIVE_BUDGET).act(&FugitiveView::new(view).ok()?)
        }
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

#[cfg(test)]
mod tests {
    use std::sync::atomic::Ordering;

    use fugitive_core::{Card, Cards, Role, RuleOptions};
    use serde_json::Value;
    use tokio::sync::oneshot;

    use super::*;
    use crate::mailbox::Mailbox;
    use crate::protocol::Protocol;
    use crate::room::SeatRequest;
    use crate::rooms::Rooms;

    /// Every frame queued so far, as JSON.
    fn frames(queue: &Mailbox) -> Vec<Value> {
        std::iter::from_fn(|| queue.try_recv()).map(|f| serde_json::from_str(f.as_str()).unwrap()).collect()
    }

    #[tokio::test]
    async fn the_notepad_is_solved_once_per_version_whoever_watches() {
        let (rooms, _dir) = Rooms::scratch(Duration::from_secs(60), Default::default()).await;
        let computer = Computer { notepad_assist: true, ..Computer::default() };
        let created = rooms.create(Role::Fugitive, RuleOptions::default(), None, computer).await.unwrap();
        let before = SOLVED.load(Ordering::SeqCst);
        let room = rooms.get(created.room).await.unwrap();
        let marshal = room.claim(created.invite).await.unwrap().unwrap();
        let mut kicks = Vec::new();
        let mut join = |token: Option<String>| {
            let queue = Mailbox::new(64);
            let (kick, kicked) = oneshot::channel();
            kicks.push(kicked);
            (room.join(token, None, queue.clone(), Protocol::V1, kick), queue)
        };
        let (joined, marshal_queue) = join(Some(marshal.token.clone()));
        joined.await.unwrap().unwrap();
        let (joined, other_marshal_queue) = join(Some(marshal.token));
        joined.await.unwrap().unwrap();
        let (joined, spectator_queue) = join(None);
        joined.await.unwrap().unwrap();
        let (joined, _fugitive_frames) = join(Some(created.token));
        let fugitive = joined.await.unwrap().unwrap();
        // Read as a client does (a state unread is replaced by the next one).
        let queues = [&marshal_queue, &other_marshal_queue, &spectator_queue];
        let mut seen: [Vec<Value>; 3] = Default::default();
        let mut read = || {
            for (queue, seen) in queues.iter().zip(&mut seen) {
                seen.extend(frames(queue));
            }
        };
        read();
        let place = Action::Place { hideout: Card::new(1).unwrap(), sprints: Cards::EMPTY };
        assert!(room.request(fugitive, 1, SeatRequest::Action(place)).await.unwrap().ok);
        read();
        assert!(room.request(fugitive, 2, SeatRequest::Action(Action::EndTurn)).await.unwrap().ok);
        read();
        let summary = room.summary().await.unwrap();
        assert_eq!(summary.game, 1);

        // Versions 0, 1 and 2, each solved once, whatever the number of sockets and frames.
        assert_eq!(SOLVED.load(Ordering::SeqCst) - before, 3);
        let [marshal_frames, other_marshal_frames, spectator_frames] = seen;
        for frames in [marshal_frames, other_marshal_frames] {
            let states: Vec<Value> = frames.into_iter().filter(|f| f["type"] == "state").collect();
            assert!(states.len() >= 3, "{states:?}");
            assert!(states.iter().all(|s| s["notepad"].is_object()), "every Marshal state has it");
            assert_eq!(states.last().unwrap()["version"], 2);
        }
        let states: Vec<Value> = spectator_frames.into_iter().filter(|f| f["type"] == "state").collect();
        assert!(!states.is_empty() && states.iter().all(|s| s.get("notepad").is_none_or(Value::is_null)));
        drop(room);
        rooms.shut_down().await;
    }
}
