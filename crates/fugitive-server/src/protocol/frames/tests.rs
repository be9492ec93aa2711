//! The typed deltas against the JSON maps' difference they replaced (issue 28): over whole
//! random games of every rule variant, for each viewer, every delta (or its absence, or a
//! snapshot) is the same JSON as the one the old way made.

use std::sync::Arc;

use fugitive_core::{
    ByRole, Card, EventCard, EventVariant, Game, OpeningHideouts, Role, RuleOptions, Setup, TrailCard, View,
    Viewer,
};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use serde::Serialize;
use serde_json::{Map, Value, json};

use super::{Change, Current, delta};
use crate::model::table::SeriesStatus;
use crate::protocol::{ClockStatus, Notepad, NotepadCandidate, NotepadPosition, RoomStatus};

// The old way, as it was before issue 28's rewrite: each side as `serde_json` maps, compared key
// by key.

fn to_value(value: &impl Serialize) -> Value {
    serde_json::to_value(value).expect("state serializes")
}

fn fields(value: &impl Serialize) -> Map<String, Value> {
    match to_value(value) {
        Value::Object(fields) => fields,
        other => panic!("not an object: {other}"),
    }
}

fn view_fields(view: &View) -> Map<String, Value> {
    let mut fields = fields(view);
    fields.remove("history");
    fields.remove("trail");
    fields
}

fn changed(before: &Map<String, Value>, now: &Map<String, Value>) -> Map<String, Value> {
    let mut changes: Map<String, Value> =
        now.iter().filter(|(k, v)| before.get(*k) != Some(v)).map(|(k, v)| (k.clone(), v.clone())).collect();
    for key in before.keys().filter(|k| !now.contains_key(*k)) {
        changes.insert(key.clone(), Value::Null);
    }
    changes
}

/// What the old `delta` sent: `None` for nothing, `Some(None)` for a snapshot, else the frame.
fn old_delta(
    sent: &Current,
    sent_room: &RoomStatus,
    now: &Current,
    room: &RoomStatus,
) -> Option<Option<Value>> {
    let history = &now.view.history;
    if sent.game != now.game || sent.view.history.len() > history.len() || sent.version > now.version {
        return Some(None);
    }
    let seen = sent.view.history.len();
    let mut delta = Map::new();
    let mut put = |key: &str, value: Value| delta.insert(key.to_owned(), value);
    put("v", json!(2));
    put("type", json!("delta"));
    put("version", json!(now.version));
    put("base", json!(sent.version));
    put("game", json!(now.game));
    let mut said = false;
    if history.len() > seen {
        put("history", to_value(&&history[seen..]));
        said = true;
    }
    if sent.view.outcome.is_none() && now.view.outcome.is_some() {
        let viewer = now.view.viewer;
        let revealed: Vec<_> =
            history[..seen].iter().enumerate().filter(|(_, e)| e.seen_by(viewer) != **e).collect();
        if !revealed.is_empty() {
            put("revealed", to_value(&revealed));
            said = true;
        }
    }
    let trail = &now.view.trail;
    let cards: Vec<(usize, &TrailCard)> =
        trail.iter().enumerate().filter(|(i, card)| sent.view.trail.get(*i) != Some(card)).collect();
    if !cards.is_empty() || trail.len() != sent.view.trail.len() {
        put("trail", json!({ "length": trail.len(), "cards": to_value(&cards) }));
        said = true;
    }
    let view = changed(&view_fields(&sent.view), &view_fields(&now.view));
    if !view.is_empty() {
        put("view", Value::Object(view));
        said = true;
    }
    let room = changed(&fields(sent_room), &fields(room));
    if !room.is_empty() {
        put("room", Value::Object(room));
        said = true;
    }
    for (key, before, after) in [
        ("legal", to_value(&sent.legal), to_value(&now.legal)),
        ("notepad", to_value(&sent.notepad), to_value(&now.notepad)),
        ("candidates", to_value(&sent.candidates), to_value(&now.candidates)),
    ] {
        if before != after {
            put(key, after);
            said = true;
        }
    }
    (said || now.version != sent.version).then_some(Some(Value::Object(delta)))
}

// The states the room would show, made the way the room makes them.

/// A notepad that changes now and then, and is gone once the game ends.
fn notepad(game: &Game, rng: &mut StdRng, last: &Option<Notepad>) -> Option<Notepad> {
    if game.is_over() {
        return None;
    }
    if last.is_some() && rng.random_bool(0.6) {
        return last.clone();
    }
    let positions = (1..=rng.random_range(0..4))
        .map(|position| NotepadPosition {
            position,
            candidates: (0..rng.random_range(1..4))
                .map(|_| NotepadCandidate {
                    number: Card::new(rng.random_range(1..=41)).expect("a card"),
                    trails: rng.random_range(1..1_000_000),
                })
                .collect(),
        })
        .collect();
    let ignored_events = if rng.random_bool(0.2) {
        vec![EventCard::ALL[rng.random_range(0..EventCard::ALL.len())]]
    } else {
        vec![]
    };
    Some(Notepad {
        trails: rng.random_range(1..u128::from(u64::MAX)),
        exact: rng.random(),
        positions,
        ignored_events,
    })
}

fn current(game: &Game, number: u64, version: u64, viewer: Viewer, notepad: &Option<Notepad>) -> Current {
    let view = game.view(viewer);
    let candidates = if viewer == Viewer::Fugitive { None } else { view.candidates() };
    Current {
        version,
        game: number,
        legal: viewer.role().map(|role| game.legal_actions(role)),
        notepad: notepad.clone().filter(|_| viewer == Viewer::Marshal),
        candidates,
        view,
    }
}

/// The room status, each field changed now and then.
fn next_room(room: &RoomStatus, game: &Game, rng: &mut StdRng) -> RoomStatus {
    let mut next = room.clone();
    let flip = |rng: &mut StdRng, p| rng.random_bool(p);
    if flip(rng, 0.5) {
        next.clock = game.to_move().filter(|_| flip(rng, 0.8)).map(|role| ClockStatus {
            turn_secs: 60,
            role,
            remaining_ms: rng.random_range(0..60_000),
        });
    }
    if flip(rng, 0.1) {
        next.presence = ByRole::new_with(|_| rng.random());
    }
    if flip(rng, 0.1) {
        next.spectators = rng.random_range(0..5);
    }
    if flip(rng, 0.05) {
        next.names[Role::Marshal] = flip(rng, 0.5).then(|| "Zoë".to_owned());
    }
    if flip(rng, 0.05) {
        next.chat_spectators = ByRole::new_with(|_| rng.random());
    }
    if game.is_over() {
        next.rematch = ByRole::new_with(|_| rng.random());
        next.aborted = flip(rng, 0.2);
        next.series.wins[Role::Fugitive] += 1;
        next.series.winner = flip(rng, 0.3).then_some(Role::Fugitive);
    }
    next
}

fn first_room() -> RoomStatus {
    RoomStatus {
        seats: ByRole::new_with(|_| true),
        presence: ByRole::new_with(|_| true),
        clock: None,
        rematch: ByRole::new_with(|_| false),
        names: ByRole::new_with(|_| None),
        spectators: 1,
        chat_spectators: ByRole::new_with(|_| false),
        series: SeriesStatus { wins: ByRole::new_with(|_| 0), best_of: Some(3), winner: None },
        computer: None,
        aborted: false,
    }
}

fn read(frame: &str) -> Value {
    serde_json::from_str(frame).expect("a frame is JSON")
}

#[test]
fn every_typed_delta_is_the_json_maps_difference_over_whole_random_games() {
    let (mut deltas, mut nothing, mut snapshots, mut rooms_only) = (0, 0, 0, 0);
    let mut over = 0;
    for seed in 0..24u64 {
        let mut rng = StdRng::seed_from_u64(seed);
        let rules = RuleOptions {
            opening_hideouts: if seed % 2 == 0 {
                OpeningHideouts::OneOrTwo
            } else {
                OpeningHideouts::ExactlyTwo
            },
            pass_bonus_draw: seed % 3 == 0,
            events: EventVariant::ALL[(seed as usize / 2) % EventVariant::ALL.len()],
        };
        let mut game = Game::new(Setup::new(seed).with_rules(rules));
        let (mut number, mut version) = (1, 0);
        let mut pad = notepad(&game, &mut rng, &None);
        let mut room = Arc::new(first_room());
        let mut sent = Viewer::ALL.map(|viewer| current(&game, number, version, viewer, &pad).sent(&room));
        let mut old =
            Viewer::ALL.map(|viewer| (current(&game, number, version, viewer, &pad), (*room).clone()));
        for step in 0.. {
            // An action (most steps), a change to the room alone, or nothing; then, once over,
            // the next game.
            match rng.random_range(0..10) {
                _ if game.is_over() && step % 7 == 0 => {
                    over += 1;
                    if over % 2 == 0 {
                        break;
                    }
                    number += 1;
                    version += 1;
                    game = Game::new(Setup::new(seed + 1000).with_rules(rules));
                }
                0 => {}
                1 => room = Arc::new(next_room(&room, &game, &mut rng)),
                _ => {
                    if let Some(role) = game.to_move() {
                        let action = game.legal_actions(role).sample(&mut rng).expect("a legal action");
                        game.apply(role, action).expect("legal");
                        version += 1;
                    }
                    room = Arc::new(next_room(&room, &game, &mut rng));
                }
            }
            pad = notepad(&game, &mut rng, &pad);
            for (index, viewer) in Viewer::ALL.into_iter().enumerate() {
                let now = current(&game, number, version, viewer, &pad);
                let (before, before_room) = &old[index];
                let want = old_delta(before, before_room, &now, &room);
                let held =
                    std::mem::replace(&mut sent[index], current(&game, 0, 0, viewer, &None).sent(&room));
                let (change, mut next) = delta(&held, now, &room);
                let at = format!("seed {seed}, step {step}, {viewer:?}");
                match (change, want) {
                    (Change::None, None) => nothing += 1,
                    (Change::Snapshot, Some(None)) => snapshots += 1,
                    (Change::Delta(frame), Some(Some(want))) => {
                        assert_eq!(read(frame.as_str()), want, "{at}: {}", frame.as_str());
                        deltas += 1;
                        if frame.as_str().contains(r#""room""#) && !frame.as_str().contains(r#""view""#) {
                            rooms_only += 1;
                        }
                    }
                    (change, want) => panic!("{at}: {change:?}, the old way {want:?}"),
                }
                next.shed();
                sent[index] = next;
                old[index] = (current(&game, number, version, viewer, &pad), (*room).clone());
            }
        }
    }
    assert!(
        deltas > 3_000 && nothing > 50 && snapshots >= 24 * 3 && rooms_only > 50,
        "{deltas} {nothing} {snapshots} {rooms_only}"
    );
}

#[test]
fn a_delta_writes_the_view_and_room_fields_in_alphabetical_order_as_before() {
    let game = Game::new(Setup::new(7));
    let mut next = game.clone();
    let role = next.to_move().expect("the Fugitive opens");
    next.apply(role, next.legal_actions(role).sample(&mut StdRng::seed_from_u64(7)).expect("a move"))
        .unwrap();
    let room = Arc::new(first_room());
    let mut later = first_room();
    later.spectators = 2;
    later.aborted = true;
    let later = Arc::new(later);
    let sent = current(&game, 1, 0, Viewer::Spectator, &None).sent(&room);
    let (Change::Delta(frame), _) = delta(&sent, current(&next, 1, 1, Viewer::Spectator, &None), &later)
    else {
        panic!("a delta");
    };
    let text = frame.as_str();
    let keys = |object: &str| -> Vec<String> {
        let start = text.find(&format!(r#""{object}":{{"#)).expect(object);
        let value: Value = serde_json::Deserializer::from_str(&text[start + object.len() + 3..])
            .into_iter()
            .next()
            .expect("an object")
            .expect("JSON");
        let mut written: Vec<(usize, String)> = value
            .as_object()
            .expect("an object")
            .keys()
            .map(|key| (text[start..].find(&format!(r#""{key}":"#)).expect("a key"), key.clone()))
            .collect();
        written.sort();
        written.into_iter().map(|(_, key)| key).collect()
    };
    let room_keys = keys("room");
    assert_eq!(room_keys, ["aborted", "spectators"], "{text}");
    let view_keys = keys("view");
    let mut sorted = view_keys.clone();
    sorted.sort();
    assert!(view_keys.len() >= 2, "{text}");
    assert_eq!(view_keys, sorted, "{text}");
}
