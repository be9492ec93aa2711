//! The computer opponent's schedule: when it thinks, about what, and on which node.

use fugitive_core::{Game, Viewer};

use super::Machine;
use super::command::{Effect, SeatRequest, Think};
use crate::model::options::{Computer, TUTORIAL_DEAL, bot_seed};
use crate::model::seat::Seat;
use crate::protocol::Notepad;

impl Machine {
    /// Whether something here must happen once, by one node: a running turn clock, or a
    /// computer opponent with something to do.
    pub fn needs_owner(&self) -> bool {
        let bot_plays =
            self.log.computer.bot.is_some() && (!self.log.game.is_over() || self.bot_job().is_some());
        self.log.clock.is_some() || bot_plays
    }

    /// Whether a notepad is shown for `game` in this room (so the shell solves it).
    pub fn wants_notepad(&self, game: &Game) -> bool {
        self.log.computer.notepad_assist && !game.is_over()
    }

    /// The room's computer options.
    pub fn computer(&self) -> Computer {
        self.log.computer
    }

    /// The notepad of the current version, solved by the shell.
    pub fn set_notepad(&mut self, notepad: Option<Notepad>) {
        self.log.notepad = Some((self.log.version, notepad));
    }

    /// The database failed under the computer's request: it asks again in a second (by then
    /// the room may have moved on, and it thinks again).
    pub(super) fn bot_retry(&mut self, version: u64, request: Option<SeatRequest>) {
        tracing::warn!(room = %self.log.id, "the computer opponent waits for the database");
        self.thinking = Some(version);
        self.effects.push(Effect::Think { version, think: Think::Retry { request } });
    }

    /// What the computer opponent has to do now: move on its turn, or accept the rematch its
    /// opponent offered.
    pub(super) fn bot_job(&self) -> Option<Think> {
        let level = self.log.computer.bot?;
        let role = self.role_of(Seat::Guest);
        let pause = self.log.limits.bot_pause;
        if self.log.game.to_move() == Some(role) {
            // With `--deal-seed` the computer's choices are reproducible: they follow from it
            // and the room's version; in the guided first game, from its deal.
            let base =
                if self.log.computer.tutorial { Some(TUTORIAL_DEAL) } else { self.log.limits.deal_seed };
            let seed = base.map(|base| bot_seed(base, self.log.version));
            let view = Box::new(self.log.game.view(Viewer::from(role)));
            return Some(Think::Move { level, view, seed, pause });
        }
        (self.log.game.is_over() && self.log.rematch == [true, false] && self.log.series.winner().is_none())
            .then_some(Think::Rematch { pause })
    }

    /// Sets the computer opponent thinking when it has something to do and this node runs it.
    pub(super) fn wake_bot(&mut self) {
        if self.thinking.is_some() || !self.owner {
            return;
        }
        if let Some(think) = self.bot_job() {
            self.thinking = Some(self.log.version);
            self.effects.push(Effect::Think { version: self.log.version, think });
        }
    }
}
