//! A room's options beyond the rules: the computer's, and the known deals of `--deal-seed`.

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
