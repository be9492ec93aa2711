//! Two seated players playing over their sockets: each move is a random legal action of the
//! player to move, taken from the `legal` field of its latest `state`.

use std::time::Duration;

use anyhow::{Context, bail};
use fugitive_core::Action;
use rand::Rng;
use tokio::time::Instant;

use crate::client::Player;

/// Most actions one game may take: a random game is about 60, so this only stops a broken run.
const MAX_ACTIONS_PER_GAME: usize = 1000;

/// One accepted action and how long its answers took.
pub struct Step {
    /// The action.
    pub action: Action,
    /// From sending it to the actor having its new `state`.
    pub own_state: Duration,
    /// From sending it to the actor having its `reply` and its new `state`.
    pub own: Duration,
    /// From sending it to the opponent having the `state` with the new version.
    pub other: Duration,
}

/// Plays one random legal action of the player to move and waits for both sockets' answers.
/// `None` when nobody has a move (the game is over).
///
/// # Errors
/// When the server refuses the action or is too slow.
pub async fn step(players: &mut [Player; 2], rng: &mut impl Rng) -> anyhow::Result<Option<Step>> {
    let moves = players.each_ref().map(|p| p.state.legal.as_ref().and_then(|legal| legal.sample(rng)));
    let (mover, action) = match moves {
        [Some(action), None] => (0, action),
        [None, Some(action)] => (1, action),
        [None, None] => return Ok(None),
        [Some(_), Some(_)] => bail!("both players have a move: their states disagree"),
    };
    let [first, second] = players;
    let (actor, opponent) = if mover == 0 { (first, second) } else { (second, first) };
    let version = actor.state.version;
    let sent = Instant::now();
    let seq = actor.act(action).await?;
    let ((own_state, own), other) = tokio::try_join!(
        actor.own_answer(seq, version),
        opponent.state_until(|state| state.version > version),
    )?;
    Ok(Some(Step { action, own_state: own_state - sent, own: own - sent, other: other - sent }))
}

/// Plays the start of a game: the Fugitive's opening, and the Marshal's draws up to and
/// including her first guess.
///
/// # Errors
/// When the server refuses an action or is too slow.
pub async fn opening(players: &mut [Player; 2], rng: &mut impl Rng) -> anyhow::Result<()> {
    for _ in 0..MAX_ACTIONS_PER_GAME {
        match step(players, rng).await? {
            Some(Step { action: Action::Guess { .. }, .. }) | None => return Ok(()),
            Some(_) => {}
        }
    }
    bail!("no guess after {MAX_ACTIONS_PER_GAME} actions")
}

/// Plays the game to its end; calls `record` with every step.
///
/// # Errors
/// When the server refuses an action, is too slow, or the game does not end.
pub async fn whole_game(
    players: &mut [Player; 2],
    rng: &mut impl Rng,
    mut record: impl FnMut(&Step),
) -> anyhow::Result<()> {
    for _ in 0..MAX_ACTIONS_PER_GAME {
        match step(players, rng).await? {
            Some(step) => record(&step),
            None if players.iter().all(|p| p.state.over) => return Ok(()),
            None => bail!("nobody has a move, yet the game is not over"),
        }
    }
    bail!("the game did not end within {MAX_ACTIONS_PER_GAME} actions")
}

/// Both players offer a rematch; returns once both sockets show the next game.
///
/// # Errors
/// When the server refuses or is too slow.
pub async fn rematch(players: &mut [Player; 2]) -> anyhow::Result<()> {
    let next = players[0].state.game + 1;
    for player in players.iter_mut() {
        let seq = player.offer_rematch().await?;
        player.reply(seq).await.context("rematch")?;
    }
    for player in players.iter_mut() {
        player.state_until(|state| state.game == next).await?;
    }
    Ok(())
}
