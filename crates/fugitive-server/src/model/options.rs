//! A room's options beyond the rules: the computer's, the known deals of `--deal-seed`, and the
//! guided first game's deal.

use fugitive_ai::Level;
use fugitive_core::Seed;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

/// A room's computer options, stored with the room.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Computer {
    /// The guest seat is played by the computer at this level.
    pub bot: Option<Level>,
    /// The Marshal's state carries the deduction's candidates (`notepad`).
    pub notepad_assist: bool,
    /// The guided first game (issue 26): game 1 is dealt from [`TUTORIAL_DEAL`] and the
    /// computer's choices follow from it, so every tutorial plays the same deal the same way.
    pub tutorial: bool,
}

/// The base of the guided first game's deal ([`deal`]) and of its computer's choices
/// ([`bot_seed`]): a deal on which the Fugitive's moves of the tutorial's walk-through
/// (`web/tests/tutorial.test.mjs`) meet every step it explains, a multi-number guess of the
/// computer Marshal and the Manhunt included.
pub const TUTORIAL_DEAL: u64 = 2260;

/// The seed of the computer's choice at `version` of a room whose choices follow from `base`
/// (`--deal-seed`, or [`TUTORIAL_DEAL`]).
pub fn bot_seed(base: u64, version: u64) -> u64 {
    base.wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ version
}

/// The known deal of game `game` of every room under `--deal-seed base` (tests and operators
/// reproducing a game): SHA-256 of the two numbers.
pub fn deal(base: u64, game: u64) -> Seed {
    let mut hash = Sha256::new();
    hash.update(b"fugitive deal");
    hash.update(base.to_le_bytes());
    hash.update(game.to_le_bytes());
    Seed(hash.finalize().into())
}
