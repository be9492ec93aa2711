//! The part of a room rebuilt from the database ([`Logged`]): read back whole when this copy
//! may be behind the log, or caught up with the actions another node appended.

use std::collections::VecDeque;

use fugitive_core::{Candidates, Evidence, Game, ReplayError, Role, RuleOptions, Unguessed};
use uuid::Uuid;

use super::clock::{Clock, deadline};
use super::{Machine, Now, RoomLimits};
use crate::db::{StoredAction, StoredRoom};
use crate::model::options::Computer;
use crate::model::replay;
use crate::model::seat::Seat;
use crate::model::table::{ChatLine, Series};
use crate::protocol::Notepad;

/// The part of a room rebuilt from the database ([`Logged::rebuild`]).
pub struct Logged {
    pub(super) id: Uuid,
    pub(super) limits: RoomLimits,
    pub(super) rules: RuleOptions,
    pub(super) turn_clock_secs: Option<u64>,
    pub(super) invite_hash: Option<String>,
    /// Each seat's token hash, by seat index (`None`: not claimed).
    pub(super) tokens: [Option<String>; 2],
    /// Every (seat, `seq`) of an accepted action in the log.
    pub(super) accepted: Vec<(Seat, u64)>,
    pub(super) game_number: u64,
    pub(super) game: Game,
    pub(super) fugitive_seat: Seat,
    pub(super) version: u64,
    pub(super) rematch: [bool; 2],
    pub(super) clock: Option<Clock>,
    pub(super) computer: Computer,
    /// Each seat's display name (`model/table.rs`), by seat index.
    pub(super) names: [Option<String>; 2],
    /// The newest chat messages, oldest first, and the number of the last one.
    pub(super) chat: VecDeque<ChatLine>,
    pub(super) chat_last: u64,
    /// Whether each seat lets spectators read the chat, by seat index.
    pub(super) chat_public: [bool; 2],
    /// The score of the room's finished games, by seat.
    pub(super) series: Series,
    /// The Marshal's notepad as of a version, solved by the shell off the actor.
    pub(super) notepad: Option<(u64, Option<Notepad>)>,
    /// Each viewer's public candidates (`View::candidates`, by `Viewer::ALL`'s order) as of a
    /// version, with the evidence they were made from: made once per version and viewer,
    /// however many sockets and publishes, and counted again only when the viewer's evidence
    /// changed (a draw of hers changes none of the spectators').
    pub(super) candidates: [Option<(u64, Counted)>; 3],
    /// A write failed: the database may hold it all the same (an ambiguous commit), or another
    /// node changed the room. The room is read back before it carries out anything else.
    pub(super) stale: bool,
}

/// A viewer's public candidates with the evidence they were made from (and what was counted
/// without its wrong guesses, `Candidates::of_after`); `None` where its view makes none (the
/// Fugitive's, a finished game's).
pub(super) type Counted = Option<(Evidence, Candidates, Option<Unguessed>)>;

impl Logged {
    /// Rebuilds a room from the database by replaying its current game's log, at `now`.
    ///
    /// # Errors
    /// [`ReplayError`] when a stored action does not apply (a corrupt log).
    pub fn rebuild(
        id: Uuid,
        stored: StoredRoom,
        limits: RoomLimits,
        now: Now,
    ) -> Result<Logged, ReplayError> {
        let mut game = Game::new(stored.game.setup);
        let mut turn_start = stored.game.started_at;
        for (index, record) in stored.game.actions.iter().enumerate() {
            let before = game.to_move();
            replay::apply_stored(&mut game, index, record.role, record.action)?;
            if game.to_move() != before {
                turn_start = record.at;
            }
        }
        // The clock of this turn started when the turn did, or when the second seat was claimed
        // if that came later.
        let turn_start = turn_start.max(stored.seated_at.unwrap_or(turn_start));
        let mut log = Logged {
            id,
            limits,
            rules: stored.rules,
            turn_clock_secs: stored.turn_clock_secs,
            invite_hash: stored.invite_hash,
            tokens: stored.seats,
            accepted: stored.seqs,
            game_number: stored.game.number,
            version: stored.earlier_actions
                + game.actions().len() as u64
                + stored.game.number.saturating_sub(1),
            game,
            fugitive_seat: stored.game.fugitive_seat,
            rematch: stored.rematch,
            clock: None,
            computer: stored.computer,
            names: stored.table.names,
            chat: stored.table.chat.into(),
            chat_last: stored.table.chat_last,
            chat_public: stored.table.chat_public,
            series: stored.table.series,
            notepad: None,
            candidates: Default::default(),
            stale: false,
        };
        log.clock =
            log.clock_due().map(|(secs, role)| Clock { role, deadline: deadline(secs, turn_start, now) });
        Ok(log)
    }

    /// The current game.
    pub fn game(&self) -> &Game {
        &self.game
    }

    /// R17, the one rule of the turn clock: in a room with a clock, the clock of the player to
    /// move runs while the game runs and both seats are claimed. Never against a seat nobody
    /// has claimed yet, however the room got here (a move, a claim, a rematch, a rebuild).
    pub(super) fn clock_due(&self) -> Option<(u64, Role)> {
        let secs = self.turn_clock_secs?;
        let role = self.game.to_move()?;
        self.tokens.iter().all(Option::is_some).then_some((secs, role))
    }
}

impl Machine {
    /// Replaces the part rebuilt from the log with `fresh`, the room read back from the
    /// database; the sockets, the seats' remembered replies, the chat allowances and the lease
    /// stay. Tells every socket what changed.
    pub fn reload(&mut self, fresh: Logged, notepad: Option<Notepad>, now: Now) {
        let (old_chat_last, old_game, old_readers) =
            (self.log.chat_last, self.log.game_number, self.reads_chat(None));
        self.now = now;
        self.log = fresh;
        for (seat, seq) in std::mem::take(&mut self.log.accepted) {
            self.seqs[seat.index()].note_accepted(seq);
        }
        self.log.notepad = Some((self.log.version, notepad));
        tracing::debug!(room = %self.log.id, version = self.log.version, "room read back from the database");
        self.broadcast();
        if self.log.game_number != old_game {
            self.send_chat_to_readers(true, None);
        } else if self.reads_chat(None) != old_readers {
            self.send_chat_to_spectators(old_readers);
        } else if self.log.chat_last > old_chat_last {
            let new: Vec<ChatLine> =
                self.log.chat.iter().filter(|l| l.number > old_chat_last).cloned().collect();
            let frames = self.chat_frames(false, new.iter());
            self.send_to_readers(&frames);
        }
    }

    /// The current game with `records` applied, actions another node appended after ours
    /// (read from the log, numbered from `from` in game `game`); `None` when they do not
    /// follow on from this copy (the room is then read back whole).
    pub fn catch_up(&self, game: u64, from: usize, records: &[StoredAction]) -> Option<Game> {
        if game != self.log.game_number || from != self.log.game.actions().len() {
            return None;
        }
        let mut next = self.log.game.clone();
        for (offset, record) in records.iter().enumerate() {
            if replay::apply_stored(&mut next, from + offset, record.role, record.action).is_err() {
                return None;
            }
        }
        Some(next)
    }

    /// Applies actions read from the log ([`Machine::catch_up`] made `next` of them).
    pub fn caught_up(&mut self, records: &[StoredAction], next: Game, notepad: Option<Notepad>, now: Now) {
        self.now = now;
        let Some(last) = records.last() else { return };
        // When the turn last passed, on whichever node: the clock runs from there.
        let mut scratch = self.log.game.clone();
        let mut turn_passed = None;
        for (offset, record) in records.iter().enumerate() {
            if let (Some(seat), Some(seq)) = (record.seat, record.client_seq) {
                self.seqs[seat.index()].note_accepted(seq);
            }
            let before = scratch.to_move();
            let index = scratch.actions().len() + offset;
            let _ = replay::apply_stored(&mut scratch, index, record.role, record.action);
            if scratch.to_move() != before {
                turn_passed = Some(record.at);
            }
        }
        self.log.version += records.len() as u64 - 1;
        self.apply(last, next, notepad, turn_passed);
    }

    /// Makes `next` (the game with `record` applied, written to the log by this node or read
    /// from it) the game, and tells everyone. `turn_passed`: when the turn passed to the other
    /// player, if it did.
    pub(super) fn apply(
        &mut self,
        record: &StoredAction,
        next: Game,
        notepad: Option<Notepad>,
        turn_passed: Option<i64>,
    ) {
        self.log.series.count(&next, self.log.fugitive_seat);
        let replaced = std::mem::replace(&mut self.log.game, next);
        // A finished game takes no more actions: a spare would only hold a second copy of its
        // whole history while the room stays loaded (issue 28).
        self.spare = self.log.game.outcome().is_none().then_some(replaced);
        self.log.version += 1;
        self.log.notepad = Some((self.log.version, notepad));
        tracing::debug!(room = %self.log.id, role = %record.role, action = ?record.action, "action");
        self.restart_clock(turn_passed);
        self.broadcast();
    }
}
