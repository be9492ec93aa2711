//! The bytes each viewer is sent per change, protocol 1 (a whole `state`) beside protocol 2 (a
//! `delta`), as a game's history grows: for `BENCHMARKS.md`.
//!
//! It plays one long game with the rules engine — the Fugitive passes whenever he may and the
//! Marshal always guesses a number that is not a hideout (R11a, R13), so the game never ends —
//! and after every action builds each viewer's frames exactly as the room does (`frames.rs`).
//!
//! `cargo run --release -p fugitive-server --example frame_sizes [-- 100 500 2000]`

use fugitive_core::{Action, ByRole, Cards, Game, Role, RuleOptions, Setup, Viewer};
use fugitive_server::model::table::SeriesStatus;
use fugitive_server::protocol::RoomStatus;
use fugitive_server::protocol::frames::{self, Change, Current, Sent};

fn status() -> RoomStatus {
    RoomStatus {
        seats: ByRole::new_with(|_| true),
        presence: ByRole::new_with(|_| true),
        clock: None,
        rematch: ByRole::new_with(|_| false),
        names: ByRole { fugitive: Some("Zoë".into()), marshal: Some("Watanabe".into()) },
        spectators: 2,
        chat_spectators: ByRole::new_with(|_| false),
        series: SeriesStatus { wins: ByRole::new_with(|_| 0), best_of: None, winner: None },
        computer: None,
        aborted: false,
    }
}

fn current(game: &Game, viewer: Viewer, version: u64) -> Current {
    let legal = viewer.role().map(|role| game.legal_actions(role));
    let view = game.view(viewer);
    // The public candidates, as the room sends them to the Marshal and the spectators.
    let candidates = view.candidates();
    Current { version, game: 1, view, legal, notepad: None, candidates }
}

/// The stalling players' next action.
fn stall(game: &Game, role: Role) -> Action {
    let legal = game.legal_actions(role);
    if let Some(&deck) = legal.draws.first() {
        return Action::Draw { deck };
    }
    match role {
        Role::Fugitive if legal.pass => Action::Pass,
        Role::Fugitive if legal.end_turn => Action::EndTurn,
        Role::Fugitive => {
            let placement =
                legal.placements.iter().find(|p| p.sprints.allows(Cards::EMPTY)).expect("a placement");
            Action::Place { hideout: placement.hideout, sprints: Cards::EMPTY }
        }
        Role::Marshal => {
            let trail = game.view(Viewer::Fugitive).trail;
            let hidden: Cards = trail.iter().filter(|t| !t.face_up).filter_map(|t| t.card).collect();
            let wrong = legal.guess.expect("she guesses").numbers.difference(hidden);
            Action::Guess { numbers: wrong.first().expect("a wrong number").into() }
        }
    }
}

#[derive(Default)]
struct Totals {
    v1: usize,
    v2: usize,
    /// The last protocol-1 state and the protocol-2 deltas since the last checkpoint.
    last_state: usize,
    deltas: Vec<usize>,
}

fn main() {
    let mut checkpoints: Vec<usize> =
        std::env::args().skip(1).map(|a| a.parse().expect("a number")).collect();
    if checkpoints.is_empty() {
        checkpoints = vec![100, 500, 2000];
    }
    let setup = Setup { seed: 7.into(), rules: RuleOptions::default() };
    let mut game = Game::new(setup);
    let room = status();
    let fields = std::sync::Arc::new(room.clone());
    let mut version = 0;
    let mut sent: Vec<Sent> = Vec::new();
    let mut totals: Vec<Totals> = Viewer::ALL.iter().map(|_| Totals::default()).collect();
    for (viewer, totals) in Viewer::ALL.into_iter().zip(&mut totals) {
        let now = current(&game, viewer, version);
        let snapshot = now.snapshot(&room).len();
        totals.v1 += now.state(&room).len();
        totals.v2 += snapshot;
        sent.push(now.sent(&fields));
    }
    println!(
        "| history entries | viewer | protocol 1 `state` (B) | protocol 2 `delta`, mean of the last 50 (B) | largest of them (B) | ratio | whole game so far, protocol 1 → 2 |"
    );
    println!("|---|---|---|---|---|---|---|");
    let mut next = 0;
    while next < checkpoints.len() {
        let role = game.to_move().expect("the stalling game never ends");
        game.apply(role, stall(&game, role)).expect("a legal action");
        version += 1;
        for (index, viewer) in Viewer::ALL.into_iter().enumerate() {
            let now = current(&game, viewer, version);
            let state = now.state(&room).len();
            let (change, mut after) = frames::delta(&sent[index], now, &fields);
            after.shed();
            let delta = match change {
                Change::Delta(frame) => frame.len(),
                Change::None => 0,
                Change::Snapshot => unreachable!("one game"),
            };
            sent[index] = after;
            let totals = &mut totals[index];
            totals.v1 += state;
            totals.v2 += delta;
            totals.last_state = state;
            totals.deltas.push(delta);
        }
        let history = game.view(Viewer::Spectator).history.len();
        if history >= checkpoints[next] {
            for (viewer, totals) in Viewer::ALL.into_iter().zip(&mut totals) {
                let last: Vec<usize> = totals.deltas.iter().rev().take(50).copied().collect();
                let mean = last.iter().sum::<usize>() / last.len();
                let largest = last.iter().max().copied().unwrap_or(0);
                println!(
                    "| {history} | {viewer:?} | {} | {mean} | {largest} | {:.0}× smaller | {:.1} MB → {:.2} MB |",
                    totals.last_state,
                    totals.last_state as f64 / mean as f64,
                    totals.v1 as f64 / 1e6,
                    totals.v2 as f64 / 1e6,
                );
                totals.deltas.clear();
            }
            next += 1;
        }
    }
    println!("\n{version} actions played.");
}
