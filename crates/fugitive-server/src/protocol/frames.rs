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

use std::sync::Arc;

use axum::extract::ws::Utf8Bytes;
use fugitive_core::{Candidates, LegalActions, TrailCard, View, Viewer};
use serde::Serialize;
use serde_json::{Map, Value};

use super::{Delta, Full, Notepad, Protocol, RoomStatus, ServerMessage, TrailPatch, encode, encode_as};

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

    /// What the viewer holds once it has this state, for the next delta.
    pub fn sent(&self, room: &Arc<Map<String, Value>>) -> Sent {
        let view = short(&self.view);
        let fields = Arc::new(view_fields(&view));
        self.sent_with(room, view, fields)
    }

    /// [`Current::sent`] with the short view and its fields made already.
    fn sent_with(&self, room: &Arc<Map<String, Value>>, view: View, fields: Arc<Map<String, Value>>) -> Sent {
        Sent {
            game: self.game,
            version: self.version,
            history: self.view.history.len(),
            over: self.view.outcome.is_some(),
            view,
            view_fields: fields,
            trail: self.view.trail.clone(),
            legal: self.legal.clone(),
            room: Arc::clone(room),
            notepad: self.notepad.clone(),
            candidates: self.candidates.clone(),
        }
    }
}

/// What every protocol-2 socket of one viewer holds: the last snapshot or delta it was sent.
///
/// Kept as the typed values, not as JSON: comparing them is what every change does for every
/// viewer, and the JSON (`serde_json::Value` maps) of a player's legal actions cost more to
/// build, compare and drop than the rest of an action (perf, issue 10). Each of these types
/// serializes one value one way (no field skipped but empty ones), so two of them are equal
/// exactly when their JSON is; the JSON of what changed is made only when it changed.
#[derive(Clone, Debug)]
pub struct Sent {
    game: u64,
    version: u64,
    /// How many history entries.
    history: usize,
    /// Whether the game was over.
    over: bool,
    /// The view without its `history` and `trail` (both left empty).
    view: View,
    /// `view`'s JSON fields ([`view_fields`]), made once per change of the view and shared
    /// while it stays the same: a delta compares the next view's fields with these, and would
    /// otherwise make both sides' each time (a tenth of the server's CPU per action, issue 28).
    view_fields: Arc<Map<String, Value>>,
    trail: Vec<TrailCard>,
    legal: Option<LegalActions>,
    /// The room status's fields, made once per change and shared by the viewers.
    room: Arc<Map<String, Value>>,
    notepad: Option<Notepad>,
    candidates: Option<Candidates>,
}

/// The room status as the JSON object every state frame carries, made once per change and
/// shared by the viewers' [`Sent`].
pub fn room_fields(room: &RoomStatus) -> Arc<Map<String, Value>> {
    Arc::new(fields(room))
}

fn to_value(value: &impl Serialize) -> Value {
    serde_json::to_value(value).expect("state serializes")
}

/// The JSON fields of a struct. serde_json turns a value into a `Value`, never straight into
/// a `Map`, so no type says a struct becomes an object; serde's derive does (the one
/// `unreachable!` left, for [`RoomStatus`] and [`View`], plain structs).
fn fields(value: &impl Serialize) -> Map<String, Value> {
    match to_value(value) {
        Value::Object(fields) => fields,
        _ => unreachable!("a struct serializes to an object"),
    }
}

/// The fields of a [`short`] view but `history` and `trail`, which deltas carry in their own way.
fn view_fields(short: &View) -> Map<String, Value> {
    let mut fields = fields(short);
    fields.remove("history");
    fields.remove("trail");
    fields
}

/// A copy of the view's short fields, with an empty history and trail (the delta carries
/// those itself).
fn short(view: &View) -> View {
    View {
        viewer: view.viewer,
        rules: view.rules,
        phase: view.phase,
        to_move: view.to_move,
        trail: Vec::new(),
        decks: view.decks.clone(),
        hands: view.hands,
        history: Vec::new(),
        outcome: view.outcome,
        seed: view.seed,
        events: view.events.clone(),
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
pub fn delta(sent: &Sent, now: &Current, room: &Arc<Map<String, Value>>) -> (Change, Sent) {
    let view = short(&now.view);
    let same_view = sent.view == view;
    let fields = if same_view { Arc::clone(&sent.view_fields) } else { Arc::new(view_fields(&view)) };
    let next = now.sent_with(room, view, fields);
    let history = &now.view.history;
    if sent.game != now.game || sent.history > history.len() || sent.version > now.version {
        return (Change::Snapshot, next);
    }
    let revealed = if !sent.over && next.over {
        // R18: the finished game shows every entry whole; those this viewer saw blanked change.
        let viewer: Viewer = now.view.viewer;
        history[..sent.history].iter().enumerate().filter(|(_, e)| e.seen_by(viewer) != **e).collect()
    } else {
        Vec::new()
    };
    let trail = &now.view.trail;
    let cards: Vec<(usize, &TrailCard)> =
        trail.iter().enumerate().filter(|(i, card)| sent.trail.get(*i) != Some(card)).collect();
    let trail = (!cards.is_empty() || trail.len() != sent.trail.len())
        .then_some(TrailPatch { length: trail.len(), cards });
    let delta = Delta {
        version: now.version,
        base: sent.version,
        game: now.game,
        history: &history[sent.history..],
        revealed,
        trail,
        view: if same_view { Map::new() } else { changed(&sent.view_fields, &next.view_fields) },
        legal: (sent.legal != next.legal).then(|| to_value(&next.legal)),
        room: if Arc::ptr_eq(&sent.room, room) { Map::new() } else { changed(&sent.room, room) },
        notepad: (sent.notepad != next.notepad).then(|| to_value(&next.notepad)),
        candidates: (sent.candidates != next.candidates).then(|| to_value(&next.candidates)),
    };
    let nothing = delta.version == delta.base
        && delta.history.is_empty()
        && delta.revealed.is_empty()
        && delta.trail.is_none()
        && delta.view.is_empty()
        && delta.legal.is_none()
        && delta.room.is_empty()
        && delta.notepad.is_none()
        && delta.candidates.is_none();
    if nothing {
        return (Change::None, next);
    }
    let frame = encode_as(Protocol::V2, &ServerMessage::Delta(&delta));
    (Change::Delta(frame), next)
}

/// The fields of `now` that differ from `before`, whole; a field gone is `null`.
fn changed(before: &Map<String, Value>, now: &Map<String, Value>) -> Map<String, Value> {
    let mut changes: Map<String, Value> =
        now.iter().filter(|(k, v)| before.get(*k) != Some(v)).map(|(k, v)| (k.clone(), v.clone())).collect();
    for key in before.keys().filter(|k| !now.contains_key(*k)) {
        changes.insert(key.clone(), Value::Null);
    }
    changes
}
