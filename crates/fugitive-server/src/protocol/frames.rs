//! The state frames of protocol 2 (`docs/protocol-v2.md`): a `snapshot` of a viewer's whole view,
//! then `delta`s that say only what changed for that viewer.
//!
//! The room keeps, per viewer (Fugitive, Marshal, spectators), a [`Sent`]: what the protocol-2
//! sockets of that viewer hold, without the history (only its length) — every such socket holds
//! the same, because each gets every delta, or a snapshot of the same state. Each change is one
//! [`Current`] per viewer, from which [`delta`] builds the one frame all of that viewer's sockets
//! share, and the next [`Sent`].
//!
//! What a delta holds, so that applying it to the held view gives exactly the server's view:
//! - `history`: the entries added since `base`, as this viewer sees them (the history only ever
//!   grows within a game, and an entry does not change while the game runs: it is never resent);
//! - `revealed`: once, when the game ends (R18), the earlier entries this viewer saw blanked,
//!   whole, as `[index, entry]` — a bounded number, since only entries about cards are blanked;
//! - `trail`: the trail's `length` and the positions that are new or changed, as
//!   `[position, card]`;
//! - `view`: every other field of the view that changed (`phase`, `hands`, `decks`, `outcome`,
//!   `seed`, `events`…), whole;
//! - `legal`: whole, when changed (a placement's `from` always included: the clients once filled
//!   it in from "his hand less the hideout and 42", a rule three clients had to repeat);
//! - `notepad`: whole, when changed;
//! - `candidates`: whole, when changed (the Marshal's and spectators' public sets);
//! - `room`: the fields of the room status that changed, whole.
//!
//! Nothing here depends on the game's length but the history, and only the new entries of it
//! are sent.
//!
//! A delta is made from the typed values, never through `serde_json::Value`: the fields that
//! changed are found by comparing the two states' typed fields, and only those are written,
//! straight into the frame's text. Each of these types serializes one value one way, so two
//! fields are equal exactly when their JSON is (`frames/tests.rs` plays whole random games and
//! checks every delta against the JSON maps' difference it replaced, issue 28). The keys of
//! `view` and `room` are written in alphabetical order, as a `serde_json` map wrote them; the
//! objects inside a field keep the order of their type, as in a snapshot.

use std::sync::Arc;

use axum::extract::ws::Utf8Bytes;
use fugitive_core::{
    ByRole, Candidates, DeckView, Event, EventsView, HandView, LegalActions, Outcome, Phase, Role,
    RuleOptions, Seed, TrailCard, View, Viewer,
};
use serde::Serialize;

use super::{Full, Notepad, Protocol, RoomStatus, ServerMessage, encode, encode_as};
use crate::model::table::SeriesStatus;

#[cfg(test)]
mod tests;

/// One viewer's state after a change: what its snapshot shows.
#[derive(Debug)]
pub struct Current {
    /// The room's version.
    pub version: u64,
    /// The game's number in the room.
    pub game: u64,
    /// The viewer's view.
    pub view: View,
    /// The player's legal actions; `None` for spectators.
    pub legal: Option<LegalActions>,
    /// The Marshal's notepad, in her view of a room that shows it.
    pub notepad: Option<Notepad>,
    /// What each face-down hideout can be by the public rules alone (`View::candidates`): in
    /// the Marshal's and the spectators' views while the game runs.
    pub candidates: Option<Candidates>,
}

impl Current {
    /// Protocol 1's `state` frame.
    pub fn state(&self, room: &RoomStatus) -> Utf8Bytes {
        encode(&ServerMessage::State(self.full(room)))
    }

    /// Protocol 2's `snapshot` frame: the same fields as `state`.
    pub fn snapshot(&self, room: &RoomStatus) -> Utf8Bytes {
        encode_as(Protocol::V2, &ServerMessage::Snapshot(self.full(room)))
    }

    fn full<'a>(&'a self, room: &'a RoomStatus) -> Full<'a> {
        Full {
            version: self.version,
            game: self.game,
            view: &self.view,
            legal: self.legal.as_ref(),
            room,
            notepad: self.notepad.as_ref(),
            candidates: self.candidates.as_ref(),
        }
    }

    /// What the viewer holds once it has this state (with the room status `room`), for the
    /// next delta: this state itself, moved, not copied.
    pub fn sent(self, room: &Arc<RoomStatus>) -> Sent {
        Sent { history: self.view.history.len(), now: self, room: Arc::clone(room) }
    }
}

/// What every protocol-2 socket of one viewer holds: the last snapshot or delta it was sent.
///
/// Kept as the typed values, not as JSON: comparing them is what every change does for every
/// viewer, and the JSON (`serde_json::Value` maps) of the view, the legal actions and the room
/// cost more to build, compare and drop than the rest of an action (perf, issues 10 and 28).
#[derive(Debug)]
pub struct Sent {
    /// The state, whose history is dropped once its frames are made ([`Sent::shed`]).
    now: Current,
    /// How many history entries it has.
    history: usize,
    /// The room status, made once per change and shared by the viewers.
    room: Arc<RoomStatus>,
}

impl Sent {
    /// The state it holds: whole (with its history) until [`Sent::shed`].
    pub fn current(&self) -> &Current {
        &self.now
    }

    /// Drops the history, once every frame that shows it whole is made: a delta needs only
    /// its length, and the room's game keeps it anyway.
    pub fn shed(&mut self) {
        self.now.view.history = Vec::new();
    }
}

/// What to send the protocol-2 sockets of a viewer after a change.
#[derive(Debug)]
pub enum Change {
    /// Nothing they see changed.
    None,
    /// This delta.
    Delta(Utf8Bytes),
    /// A delta cannot say it (a new game): a snapshot.
    Snapshot,
}

/// The change from what the viewer's sockets hold (`sent`) to `now` (with the room status
/// `room`), and what they hold afterwards.
pub fn delta(sent: &Sent, now: Current, room: &Arc<RoomStatus>) -> (Change, Sent) {
    let before = &sent.now;
    let history = &now.view.history;
    if before.game != now.game || sent.history > history.len() || before.version > now.version {
        return (Change::Snapshot, now.sent(room));
    }
    let revealed = if before.view.outcome.is_none() && now.view.outcome.is_some() {
        // R18: the finished game shows every entry whole; those this viewer saw blanked change.
        let viewer: Viewer = now.view.viewer;
        history[..sent.history].iter().enumerate().filter(|(_, e)| e.seen_by(viewer) != **e).collect()
    } else {
        Vec::new()
    };
    let trail = &now.view.trail;
    let cards: Vec<(usize, &TrailCard)> =
        trail.iter().enumerate().filter(|(i, card)| before.view.trail.get(*i) != Some(card)).collect();
    let trail = (!cards.is_empty() || trail.len() != before.view.trail.len())
        .then_some(TrailPatch { length: trail.len(), cards });
    let delta = Delta {
        version: now.version,
        base: before.version,
        game: now.game,
        history: &history[sent.history..],
        revealed,
        trail,
        view: ViewChanges::between(&before.view, &now.view),
        legal: changed(&before.legal, &now.legal).map(Option::as_ref),
        room: if Arc::ptr_eq(&sent.room, room) {
            RoomChanges::default()
        } else {
            RoomChanges::between(&sent.room, room)
        },
        notepad: changed(&before.notepad, &now.notepad).map(Option::as_ref),
        candidates: changed(&before.candidates, &now.candidates).map(Option::as_ref),
    };
    let change = if delta.is_nothing() {
        Change::None
    } else {
        Change::Delta(encode_as(Protocol::V2, &ServerMessage::Delta(&delta)))
    };
    (change, now.sent(room))
}

/// `now`, if it differs from `before`.
fn changed<'a, T: PartialEq>(before: &T, now: &'a T) -> Option<&'a T> {
    (before != now).then_some(now)
}

/// The trail part of a delta.
#[derive(Debug, Serialize)]
pub struct TrailPatch<'a> {
    /// How many positions the trail has now (position 0 included).
    pub length: usize,
    /// The positions that are new or changed, `[position, card]`.
    pub cards: Vec<(usize, &'a TrailCard)>,
}

/// A `delta` frame's fields (see the module's documentation).
#[derive(Debug, Serialize)]
pub struct Delta<'a> {
    /// The room's version after this change.
    pub version: u64,
    /// The version of the view it applies to: a client holding another one asks for a
    /// `resync`. Equal to `version` for a change to the room only (presence, names…).
    pub base: u64,
    /// The game's number; a delta never crosses games.
    pub game: u64,
    /// The new history entries, as this viewer sees them.
    #[serde(skip_serializing_if = "<[_]>::is_empty")]
    pub history: &'a [Event],
    /// When the game ends: the earlier entries this viewer saw blanked, whole.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub revealed: Vec<(usize, &'a Event)>,
    /// The new or changed trail positions.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub trail: Option<TrailPatch<'a>>,
    /// The other view fields that changed, whole.
    #[serde(skip_serializing_if = "ViewChanges::is_empty")]
    pub view: ViewChanges<'a>,
    /// The legal actions, when they changed (`null`: none).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub legal: Option<Option<&'a LegalActions>>,
    /// The room status fields that changed.
    #[serde(skip_serializing_if = "RoomChanges::is_empty")]
    pub room: RoomChanges<'a>,
    /// The notepad, when it changed (`null`: no notepad any more).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub notepad: Option<Option<&'a Notepad>>,
    /// The public candidates, when they changed (`null`: none any more, the game ended).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub candidates: Option<Option<&'a Candidates>>,
}

impl Delta<'_> {
    /// Whether it says nothing: the same version, and no field changed.
    fn is_nothing(&self) -> bool {
        self.version == self.base
            && self.history.is_empty()
            && self.revealed.is_empty()
            && self.trail.is_none()
            && self.view.is_empty()
            && self.legal.is_none()
            && self.room.is_empty()
            && self.notepad.is_none()
            && self.candidates.is_none()
    }
}

/// The fields of a [`View`] but `history` and `trail` (which a delta carries in its own way)
/// that changed, each whole; `events` gone is `null`. In alphabetical order, as the JSON map
/// these replaced wrote them.
#[derive(Debug, Default, Serialize)]
pub struct ViewChanges<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    decks: Option<&'a [DeckView; 3]>,
    #[serde(skip_serializing_if = "Option::is_none")]
    events: Option<&'a Option<EventsView>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    hands: Option<&'a ByRole<HandView>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    outcome: Option<&'a Option<Outcome>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    phase: Option<&'a Phase>,
    #[serde(skip_serializing_if = "Option::is_none")]
    rules: Option<&'a RuleOptions>,
    #[serde(skip_serializing_if = "Option::is_none")]
    seed: Option<&'a Option<Seed>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    to_move: Option<&'a Option<Role>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    viewer: Option<&'a Viewer>,
}

impl<'a> ViewChanges<'a> {
    fn between(before: &View, now: &'a View) -> ViewChanges<'a> {
        // Every field named, so that a new one cannot be left out of the deltas.
        let View { viewer, rules, phase, to_move, trail: _, decks, hands, history: _, outcome, seed, events } =
            now;
        ViewChanges {
            decks: changed(&before.decks, decks),
            events: changed(&before.events, events),
            hands: changed(&before.hands, hands),
            outcome: changed(&before.outcome, outcome),
            phase: changed(&before.phase, phase),
            rules: changed(&before.rules, rules),
            seed: changed(&before.seed, seed),
            to_move: changed(&before.to_move, to_move),
            viewer: changed(&before.viewer, viewer),
        }
    }

    fn is_empty(&self) -> bool {
        let ViewChanges { decks, events, hands, outcome, phase, rules, seed, to_move, viewer } = self;
        decks.is_none()
            && events.is_none()
            && hands.is_none()
            && outcome.is_none()
            && phase.is_none()
            && rules.is_none()
            && seed.is_none()
            && to_move.is_none()
            && viewer.is_none()
    }
}

/// The fields of a [`RoomStatus`] that changed, each whole, in alphabetical order.
#[derive(Debug, Default, Serialize)]
pub struct RoomChanges<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    aborted: Option<&'a bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    chat_spectators: Option<&'a ByRole<bool>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    clock: Option<&'a Option<super::ClockStatus>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    computer: Option<&'a Option<Role>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    names: Option<&'a ByRole<Option<String>>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    presence: Option<&'a ByRole<bool>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    rematch: Option<&'a ByRole<bool>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    seats: Option<&'a ByRole<bool>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    series: Option<&'a SeriesStatus>,
    #[serde(skip_serializing_if = "Option::is_none")]
    spectators: Option<&'a u64>,
}

impl<'a> RoomChanges<'a> {
    fn between(before: &RoomStatus, now: &'a RoomStatus) -> RoomChanges<'a> {
        // Every field named, so that a new one cannot be left out of the deltas.
        let RoomStatus {
            seats,
            presence,
            clock,
            rematch,
            names,
            spectators,
            chat_spectators,
            series,
            computer,
            aborted,
        } = now;
        RoomChanges {
            aborted: changed(&before.aborted, aborted),
            chat_spectators: changed(&before.chat_spectators, chat_spectators),
            clock: changed(&before.clock, clock),
            computer: changed(&before.computer, computer),
            names: changed(&before.names, names),
            presence: changed(&before.presence, presence),
            rematch: changed(&before.rematch, rematch),
            seats: changed(&before.seats, seats),
            series: changed(&before.series, series),
            spectators: changed(&before.spectators, spectators),
        }
    }

    fn is_empty(&self) -> bool {
        let RoomChanges {
            aborted,
            chat_spectators,
            clock,
            computer,
            names,
            presence,
            rematch,
            seats,
            series,
            spectators,
        } = self;
        aborted.is_none()
            && chat_spectators.is_none()
            && clock.is_none()
            && computer.is_none()
            && names.is_none()
            && presence.is_none()
            && rematch.is_none()
            && seats.is_none()
            && series.is_none()
            && spectators.is_none()
    }
}
