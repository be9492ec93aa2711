//! The turn clock (R17): when it runs, when it rings, and when the room is idle.

use std::time::{Duration, Instant};

use fugitive_core::Role;

use super::{Machine, Now};

/// The running turn clock.
#[derive(Clone, Copy, Debug)]
pub(super) struct Clock {
    pub(super) role: Role,
    pub(super) deadline: Instant,
}

/// When a turn of `secs` that began at `started_ms` (Unix ms) runs out.
pub(super) fn deadline(secs: u64, started_ms: i64, now: Now) -> Instant {
    let elapsed = u64::try_from(now.wall_ms - started_ms).unwrap_or(0);
    now.at + Duration::from_millis((secs * 1000).saturating_sub(elapsed))
}

impl Machine {
    /// When the shell must tick the clock ([`Input::TimeOut`]): only the owner's clock rings.
    pub fn alarm(&self) -> Option<Instant> {
        self.log.clock.filter(|_| self.owner).map(|clock| clock.deadline)
    }

    /// Since when the room has had no socket and no running clock (it may unload).
    pub fn idle_since(&self) -> Option<Instant> {
        (self.sockets.is_empty() && self.log.clock.is_none()).then_some(self.empty_since)
    }

    /// Whether the turn clock runs now ([`Logged::clock_due`]).
    pub(super) fn clock_due(&self) -> Option<(u64, Role)> {
        self.log.clock_due()
    }

    /// Starts the clock of the player to move when it is due and the turn passed (at
    /// `turn_passed`, Unix ms, on whichever node) or no clock ran; stops it when it is not due.
    pub(super) fn restart_clock(&mut self, turn_passed: Option<i64>) {
        self.log.clock = match self.clock_due() {
            None => None,
            Some((secs, role)) if turn_passed.is_some() || self.log.clock.is_none() => {
                let started = turn_passed.unwrap_or(self.now.wall_ms);
                Some(Clock { role, deadline: deadline(secs, started, self.now) })
            }
            Some(_) => self.log.clock,
        };
    }
}
