//! Seats: who sits where, their secret tokens, and who of a room is on a node. (Each seat's
//! memory of its client `seq`s is the room machine's: `room/machine/seats.rs`.)
//!
//! A room has two seats: seat 0 is the creator's, seat 1 the invited player's. Which role a seat
//! plays changes with each rematch; the token stays with the seat. The server keeps only the
//! SHA-256 of a token. A seat is played through its token today; a server-side bot would be one
//! more kind of holder of a seat, acting through the same `RoomHandle`.

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use rand::RngCore;
use sha2::{Digest, Sha256};

/// One of the two seats of a room.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Seat {
    /// The creator's seat.
    Host,
    /// The seat claimed with the invitation.
    Guest,
}

impl Seat {
    /// Both seats.
    pub const ALL: [Seat; 2] = [Seat::Host, Seat::Guest];

    /// 0 or 1, as stored.
    pub const fn index(self) -> usize {
        match self {
            Seat::Host => 0,
            Seat::Guest => 1,
        }
    }

    /// The seat stored as `index`.
    pub fn from_index(index: i64) -> Option<Seat> {
        match index {
            0 => Some(Seat::Host),
            1 => Some(Seat::Guest),
            _ => None,
        }
    }

    /// The other seat.
    pub const fn other(self) -> Seat {
        match self {
            Seat::Host => Seat::Guest,
            Seat::Guest => Seat::Host,
        }
    }
}

/// A new secret: 256 random bits from the OS-seeded CSPRNG, base64url without padding.
pub fn new_secret() -> String {
    new_secret_from(&mut rand::rng())
}

/// A new secret from `rng`, which must be a CSPRNG seeded from the OS (the room machine's is).
pub fn new_secret_from(rng: &mut impl RngCore) -> String {
    let mut bytes = [0u8; 32];
    rng.fill_bytes(&mut bytes);
    URL_SAFE_NO_PAD.encode(bytes)
}

/// Who of a room is on one node, as published for the other nodes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Presence {
    /// Whether each seat (by index) has a socket open.
    pub seats: [bool; 2],
    /// How many spectators' sockets are open.
    pub spectators: u64,
}

/// The SHA-256 of a secret, in hex: all the server stores of a token or an invitation.
pub fn hash_secret(secret: &str) -> String {
    Sha256::digest(secret.as_bytes()).iter().map(|b| format!("{b:02x}")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn secrets_are_long_distinct_and_hashed() {
        let a = new_secret();
        let b = new_secret();
        assert_ne!(a, b);
        // 32 bytes in base64url without padding.
        assert_eq!(a.len(), 43);
        assert!(a.chars().all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_'));
        assert_eq!(hash_secret(&a), hash_secret(&a));
        assert_eq!(hash_secret(&a).len(), 64);
        assert_ne!(hash_secret(&a), hash_secret(&b));
    }
}
