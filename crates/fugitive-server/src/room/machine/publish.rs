//! The room's state turned into frames for each socket, and the [`Outbox`] they go out
//! through.

use std::fmt::Debug;
use std::sync::Arc;

use fugitive_core::{ByRole, Candidates, Viewer};

use super::{Effect, Machine};
use crate::computer;
use crate::model::push::{Kind, Notice};
use crate::model::rating;
use crate::model::seat::Seat;
use crate::model::seek;
use crate::model::table::SeriesStatus;
use crate::protocol::frames::{self, Change, Current};
use crate::protocol::{ClockStatus, Frame, Protocol, RoomStatus};

/// Where a socket's frames go: the shell's queue, which its writer drains. The queue decides
/// what a socket that stopped reading costs: what it refuses, the machine drops the socket for.
pub trait Outbox: Debug + Send + Sync {
    /// Queues a frame that must be written (a welcome, chat); `false`: the socket has too many
    /// unread, it stopped reading.
    fn send(&self, frame: Frame) -> bool;
    /// Queues a full state, in place of any state still unread.
    fn snapshot(&self, frame: Frame);
    /// Queues a delta; `false`: too far behind, send a snapshot instead.
    fn delta(&self, frame: Frame) -> bool;
}

/// A socket of this node in the room: its seat (`None`: a spectator), its outbound mailbox (an
/// in-memory queue the socket's writer drains), its protocol, and whether it holds its viewer's
/// latest state.
#[derive(Debug)]
pub(super) struct Member {
    pub(super) seat: Option<Seat>,
    pub(super) queue: Arc<dyn Outbox>,
    pub(super) protocol: Protocol,
    pub(super) synced: bool,
}

impl Machine {
    pub(super) fn status(&self) -> RoomStatus {
        let seated = |role| self.seat_of(role);
        let now = self.now.at;
        RoomStatus {
            seats: ByRole::new_with(|role| self.log.tokens[seated(role).index()].is_some()),
            // The computer is always at the table.
            presence: ByRole::new_with(|role| {
                let seat = seated(role);
                let bot = self.log.computer.bot.is_some() && seat == Seat::Guest;
                bot || self.remote.seats[seat.index()] || self.sockets.values().any(|s| s.seat == Some(seat))
            }),
            clock: self.log.clock.zip(self.log.turn_clock_secs).map(|(clock, turn_secs)| ClockStatus {
                turn_secs,
                role: clock.role,
                remaining_ms: clock.deadline.saturating_duration_since(now).as_millis() as u64,
            }),
            rematch: ByRole::new_with(|role| self.log.rematch[seated(role).index()]),
            names: ByRole::new_with(|role| self.log.names[seated(role).index()].clone()),
            spectators: self.sockets.values().filter(|s| s.seat.is_none()).count() as u64
                + self.remote.spectators,
            chat_spectators: ByRole::new_with(|role| self.log.chat_public[seated(role).index()]),
            series: SeriesStatus {
                wins: ByRole::new_with(|role| self.log.series.wins[seated(role).index()]),
                best_of: self.log.series.best_of,
                winner: self.log.series.winner().map(|seat| self.role_of(seat)),
            },
            computer: self.log.computer.bot.map(|_| self.role_of(Seat::Guest)),
            aborted: rating::aborted(&self.log.game),
        }
    }

    /// Queues the Web Push notices of an action this node stored: the player whose turn it
    /// became (`turn_passed`), or both players once the game is over; each only while he has
    /// no socket open in the room on any node, or always in a game by correspondence.
    pub(super) fn push_notices(&mut self, turn_passed: bool) {
        let room = self.log.id;
        let game = &self.log.game;
        let notices: Vec<(Seat, Kind)> = match (game.outcome(), game.to_move()) {
            (Some(_), _) if rating::aborted(game) => Seat::ALL.map(|seat| (seat, Kind::Aborted)).into(),
            (Some(outcome), _) => Seat::ALL
                .map(|seat| (seat, if self.role_of(seat) == outcome.winner { Kind::Won } else { Kind::Lost }))
                .into(),
            (None, Some(role)) if turn_passed => vec![(self.seat_of(role), Kind::Turn)],
            (None, _) => Vec::new(),
        };
        let correspondence = self.log.turn_clock_secs.is_some_and(seek::correspondence);
        for (seat, kind) in notices {
            let away =
                !self.remote.seats[seat.index()] && !self.sockets.values().any(|s| s.seat == Some(seat));
            if away || correspondence {
                self.effects.push(Effect::Push { seat, notice: Notice { kind, room } });
            }
        }
    }

    /// Queues a frame that must be written (chat) for each socket `to` picks, in its protocol
    /// (`frames` by [`Protocol`], 1 then 2). A socket with too many such frames unread has
    /// stopped reading: it is closed.
    pub(super) fn send_each(&mut self, to: impl Fn(&Member) -> bool, frames: &[Frame; 2]) {
        let mut slow = Vec::new();
        for (&id, member) in self.sockets.iter().filter(|(_, member)| to(member)) {
            let frame = &frames[usize::from(member.protocol == Protocol::V2)];
            if !member.queue.send(frame.clone()) {
                slow.push(id);
            }
        }
        for socket in slow {
            self.slow(socket, self.now);
        }
    }

    // The frames: the one place a state is turned into frames for each protocol.

    /// The state `viewer` sees now.
    pub(super) fn current(&mut self, viewer: Viewer) -> Current {
        let view = self.log.game.view(viewer);
        let index = Viewer::ALL.iter().position(|&v| v == viewer).expect("one of the viewers");
        let candidates = match &self.log.candidates[index] {
            // He knows his trail.
            _ if viewer == Viewer::Fugitive => None,
            Some((version, made)) if *version == self.log.version => made.as_ref().map(|(_, c, _)| c.clone()),
            known => {
                // `View::candidates`, but the trails are counted only for evidence that counts
                // differently (not for his draws), and without the wrong guesses only when that
                // changed (not for a wrong guess).
                let made = view.evidence().map(|evidence| match known {
                    Some((_, Some((before, candidates, unguessed)))) if before.counts_the_same(&evidence) => {
                        (evidence, candidates.clone(), unguessed.clone())
                    }
                    _ => {
                        #[cfg(test)]
                        super::tests::CANDIDATES_MADE.with(|made| made.set(made.get() + 1));
                        let before = known.as_ref().and_then(|(_, made)| made.as_ref()?.2.as_ref());
                        let (candidates, unguessed) = Candidates::of_after(&evidence, before);
                        (evidence, candidates, unguessed)
                    }
                });
                let candidates = made.as_ref().map(|(_, c, _)| c.clone());
                self.log.candidates[index] = Some((self.log.version, made));
                candidates
            }
        };
        let legal = viewer.role().map(|role| self.log.game.legal_actions(role));
        let solved = match &self.log.notepad {
            Some((version, notepad)) if *version == self.log.version => notepad.clone(),
            _ => {
                if computer::wants_notepad(self.log.computer, &self.log.game, viewer) {
                    // Every path that changes the game hands its notepad in: this is a bug.
                    tracing::error!(room = %self.log.id, version = self.log.version, "no notepad was handed in");
                }
                None
            }
        };
        let notepad = if viewer == Viewer::Marshal { solved } else { None };
        Current { version: self.log.version, game: self.log.game_number, view, legal, notepad, candidates }
    }

    /// Tells every socket the room's new state, and wakes the computer opponent.
    pub(super) fn broadcast(&mut self) {
        self.publish(true);
        self.wake_bot();
    }

    /// Queues the room's state: for a protocol-1 socket a `state`, for a protocol-2 socket a
    /// `delta` (or a `snapshot` when a delta cannot say it: a new game, a socket far behind).
    /// With `everyone` false only the sockets that hold no state yet (joined, or asked for a
    /// resync) get a snapshot, and the other protocol-2 sockets of their viewer whatever changed
    /// since their last frame (their viewer's [`Sent`] is shared). Each viewer's frames are made
    /// once and shared by its sockets. A socket that stopped reading is never closed for its
    /// states: its queue keeps only what it still needs (`mailbox.rs`).
    pub(super) fn publish(&mut self, everyone: bool) {
        let status = self.status();
        let mut room = None;
        for (index, viewer) in Viewer::ALL.into_iter().enumerate() {
            let members: Vec<u64> = self
                .sockets
                .iter()
                .filter(|(_, socket)| self.viewer_of(socket.seat) == viewer)
                .map(|(&id, _)| id)
                .collect();
            let v2 = members.iter().any(|id| self.sockets[id].protocol == Protocol::V2);
            if !v2 {
                self.sent[index] = None;
            }
            if members.is_empty() || (!everyone && members.iter().all(|id| self.sockets[id].synced)) {
                continue;
            }
            let now = self.current(viewer);
            // The viewer's state: moved into its `Sent` (protocol 2), or kept here (protocol 1 only).
            let (change, v1_only) = if v2 {
                let room = room.get_or_insert_with(|| Arc::new(status.clone()));
                let (change, next) = match self.sent[index].take() {
                    Some(sent) => frames::delta(&sent, now, room),
                    None => (Change::Snapshot, now.sent(room)),
                };
                self.sent[index] = Some(next);
                (change, None)
            } else {
                (Change::None, Some(now))
            };
            let current = match (&v1_only, &self.sent[index]) {
                (Some(now), _) => now,
                (None, Some(sent)) => sent.current(),
                (None, None) => unreachable!("a protocol-2 viewer's state was just kept"),
            };
            let (mut state, mut snapshot) = (None, None);
            for id in members {
                let socket = self.sockets.get_mut(&id).expect("a member");
                let fresh = !socket.synced;
                socket.synced = true;
                let mut snapshot = || snapshot.get_or_insert_with(|| current.snapshot(&status)).clone();
                match (socket.protocol, &change) {
                    (Protocol::V1, _) if everyone || fresh => {
                        socket.queue.snapshot(state.get_or_insert_with(|| current.state(&status)).clone());
                    }
                    (Protocol::V1, _) => {}
                    (Protocol::V2, _) if fresh => socket.queue.snapshot(snapshot()),
                    (Protocol::V2, Change::Snapshot) => socket.queue.snapshot(snapshot()),
                    (Protocol::V2, Change::Delta(frame)) => {
                        if !socket.queue.delta(frame.clone()) {
                            // Too far behind: what it waits for is replaced by where it gets to.
                            socket.queue.snapshot(snapshot());
                        }
                    }
                    (Protocol::V2, Change::None) => {}
                }
            }
            if let Some(sent) = &mut self.sent[index] {
                sent.shed();
            }
        }
    }
}
