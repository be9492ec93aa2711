//! Seats: who sits where, their secret tokens, and the memory of each seat's client `seq`s.
//!
//! A room has two seats: seat 0 is the creator's, seat 1 the invited player's. Which role a seat
//! plays changes with each rematch; the token stays with the seat. The server keeps only the
//! SHA-256 of a token. A seat is played through its token today; a server-side bot would be one
//! more kind of holder of a seat, acting through the same [`RoomHandle`](crate::room::RoomHandle).

use std::collections::{HashSet, VecDeque};

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use rand::RngCore;
use sha2::{Digest, Sha256};

use crate::protocol::Reply;

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
    let mut bytes = [0u8; 32];
    rand::rng().fill_bytes(&mut bytes);
    URL_SAFE_NO_PAD.encode(bytes)
}

/// The SHA-256 of a secret, in hex: all the server stores of a token or an invitation.
pub fn hash_secret(secret: &str) -> String {
    Sha256::digest(secret.as_bytes()).iter().map(|b| format!("{b:02x}")).collect()
}

/// How many replies a seat remembers for retries.
const REMEMBERED_REPLIES: usize = 64;

/// What the server knows of a seat's client `seq`s: a repeated `seq` is answered, not re-applied.
#[derive(Debug, Default)]
pub struct SeqMemory {
    /// The highest `seq` seen from this seat.
    pub last: u64,
    /// The recent replies, oldest first.
    replies: VecDeque<(u64, Reply)>,
    /// Every `seq` whose action was accepted, rebuilt from the action log after a restart.
    accepted: HashSet<u64>,
}

/// What to do with an incoming `seq`.
#[derive(Debug, PartialEq)]
pub enum Recall {
    /// Never seen: carry it out.
    New,
    /// Seen before: send this reply again.
    Repeat(Reply),
}

impl SeqMemory {
    /// Notes that `seq` was an accepted action (when rebuilding from the log).
    pub fn note_accepted(&mut self, seq: u64) {
        self.accepted.insert(seq);
        self.last = self.last.max(seq);
    }

    /// Whether `seq` was seen, and if so its reply. A `seq` at or below the last one whose
    /// reply is forgotten was either an accepted action (answered ok) or a refused one, which
    /// changed nothing (answered `stale_seq`).
    pub fn recall(&self, seq: u64) -> Recall {
        // Every remembered seq is at or below `last`: a new one (each action) is known at once,
        // without a look through the remembered replies.
        if seq > self.last {
            return Recall::New;
        }
        if let Some((_, reply)) = self.replies.iter().find(|(s, _)| *s == seq) {
            return Recall::Repeat(reply.clone());
        }
        if self.accepted.contains(&seq) {
            Recall::Repeat(Reply::ok(seq))
        } else {
            Recall::Repeat(Reply::error(Some(seq), "stale_seq", "this seq was already used by this seat"))
        }
    }

    /// Remembers the reply to a new `seq`.
    pub fn remember(&mut self, seq: u64, reply: &Reply, accepted: bool) {
        self.last = self.last.max(seq);
        if accepted {
            self.accepted.insert(seq);
        }
        if self.replies.len() == REMEMBERED_REPLIES {
            self.replies.pop_front();
        }
        self.replies.push_back((seq, reply.clone()));
    }
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

    #[test]
    fn a_repeated_seq_gets_the_same_reply() {
        let mut memory = SeqMemory::default();
        assert_eq!(memory.recall(1), Recall::New);
        let refused = Reply::error(Some(1), "too_far", "no");
        memory.remember(1, &refused, false);
        assert_eq!(memory.recall(1), Recall::Repeat(refused));
        memory.remember(2, &Reply::ok(2), true);
        assert_eq!(memory.recall(2), Recall::Repeat(Reply::ok(2)));
        assert_eq!(memory.recall(3), Recall::New);
    }

    #[test]
    fn after_a_restart_accepted_seqs_are_known() {
        let mut memory = SeqMemory::default();
        memory.note_accepted(4);
        assert_eq!(memory.recall(4), Recall::Repeat(Reply::ok(4)));
        assert!(
            matches!(memory.recall(3), Recall::Repeat(r) if r.error.as_ref().unwrap().code == "stale_seq")
        );
        assert_eq!(memory.recall(5), Recall::New);
    }
}
