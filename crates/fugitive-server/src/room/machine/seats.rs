//! Seats and sockets: each seat's memory of its client `seq`s (a retried request is answered
//! again, never carried out twice), the replies, sockets joining and leaving.

use std::collections::{HashSet, VecDeque};

use super::command::{Effect, JoinIo, Kick};
use super::publish::Member;
use super::{Machine, Now};
use crate::model::seat::{Presence, Seat};
use crate::protocol::{Reply, ServerMessage, encode_as};

/// How many replies a seat remembers for retries.
const REMEMBERED_REPLIES: usize = 64;

/// What the server knows of a seat's client `seq`s: a repeated `seq` is answered, not re-applied.
#[derive(Debug, Default)]
pub(super) struct SeqMemory {
    /// The highest `seq` seen from this seat.
    pub(super) last: u64,
    /// The recent replies, oldest first.
    replies: VecDeque<(u64, Reply)>,
    /// Every `seq` whose action was accepted, rebuilt from the action log after a restart.
    accepted: HashSet<u64>,
}

/// What to do with an incoming `seq`.
#[derive(Debug, PartialEq)]
pub(super) enum Recall {
    /// Never seen: carry it out.
    New,
    /// Seen before: send this reply again.
    Repeat(Reply),
}

impl SeqMemory {
    /// Notes that `seq` was an accepted action (when rebuilding from the log).
    pub(super) fn note_accepted(&mut self, seq: u64) {
        self.accepted.insert(seq);
        self.last = self.last.max(seq);
    }

    /// Whether `seq` was seen, and if so its reply. A `seq` at or below the last one whose
    /// reply is forgotten was either an accepted action (answered ok) or a refused one, which
    /// changed nothing (answered `stale_seq`).
    pub(super) fn recall(&self, seq: u64) -> Recall {
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
    pub(super) fn remember(&mut self, seq: u64, reply: &Reply, accepted: bool) {
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

/// How a request's reply is remembered for a retry with the same `seq`.
pub(super) enum Memo {
    Accepted,
    Refused,
    /// Not remembered: a retry may succeed (the database was unavailable).
    Forget,
}

impl Machine {
    /// A socket went away.
    pub fn leave(&mut self, socket: u64, now: Now) {
        self.now = now;
        let before = self.status();
        if self.sockets.remove(&socket).is_some() && self.status().others_see_a_change(&before) {
            self.broadcast();
        }
        if self.sockets.is_empty() {
            self.empty_since = now.at;
        }
        self.publish_presence();
    }

    /// A socket stopped reading (its queue is full): it is closed.
    pub fn slow(&mut self, socket: u64, now: Now) {
        self.now = now;
        if self.sockets.remove(&socket).is_some() {
            self.effects.push(Effect::Kick {
                socket,
                why: Kick { code: 1008, reason: "too slow: messages were not read" },
            });
        }
        if self.sockets.is_empty() {
            self.empty_since = now.at;
        }
        self.publish_presence();
    }

    /// The room expired: every socket is closed with 4004.
    pub fn expire(&mut self) {
        for socket in std::mem::take(&mut self.sockets).into_keys() {
            self.effects
                .push(Effect::Kick { socket, why: Kick { code: 4004, reason: "the room has expired" } });
        }
    }

    pub(super) fn joined(&mut self, seat: Option<Seat>, io: JoinIo) -> u64 {
        let before = self.status();
        let id = self.next_socket;
        self.next_socket += 1;
        let welcome = ServerMessage::Welcome {
            role: seat.map(|s| self.role_of(s)),
            room: self.log.id,
            last_seq: seat.map_or(0, |s| self.seqs[s.index()].last),
        };
        let JoinIo { queue, protocol } = io;
        let _ = queue.send(encode_as(protocol, &welcome));
        self.sockets.insert(id, Member { seat, queue, protocol, synced: false });
        // Its first state (a snapshot); the others' too when they see a change.
        self.publish(self.status().others_see_a_change(&before));
        if self.reads_chat(seat) && !self.log.chat.is_empty() {
            let frame = self.chat_frame(protocol, true, self.log.chat.iter());
            let _ = self.sockets[&id].queue.send(frame);
        }
        self.publish_presence();
        id
    }

    /// Protocol 2's `resync`: the socket gets a snapshot of its view (in place of any state
    /// frame it has not read yet).
    pub fn resync(&mut self, socket: u64, now: Now) {
        self.now = now;
        if let Some(member) = self.sockets.get_mut(&socket) {
            member.synced = false;
            self.publish(false);
        }
    }

    /// Queues this node's presence for the other nodes when it changed.
    pub(super) fn publish_presence(&mut self) {
        let presence = self.local_presence();
        if presence != self.published {
            self.published = presence;
            self.effects.push(Effect::Publish(presence));
        }
    }

    /// Queues this node's presence again, as if nothing had been published: the other nodes
    /// forgot it (this node was taken for dead). Nothing when nobody is here.
    pub fn republish_presence(&mut self) {
        self.published = Presence::default();
        self.publish_presence();
    }

    pub(super) fn local_presence(&self) -> Presence {
        Presence {
            seats: Seat::ALL.map(|seat| self.sockets.values().any(|s| s.seat == Some(seat))),
            spectators: self.sockets.values().filter(|s| s.seat.is_none()).count() as u64,
        }
    }

    /// Remembers the reply to a seat's `seq` as `memo` says.
    pub(super) fn remember(&mut self, seat: Seat, seq: u64, reply: &Reply, memo: Memo) {
        match memo {
            Memo::Accepted => self.seqs[seat.index()].remember(seq, reply, true),
            Memo::Refused => self.seqs[seat.index()].remember(seq, reply, false),
            Memo::Forget => {}
        }
    }

    /// Whether both seats are claimed (by players or the computer).
    pub(super) fn both_seated(&self) -> bool {
        self.log.tokens.iter().all(Option::is_some)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
