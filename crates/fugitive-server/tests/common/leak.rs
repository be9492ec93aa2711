//! What a viewer must never receive, checked on the structure of every frame it got (R19–R22):
//! no face-down hideout's number or sprint cards, no Fugitive's hand, no other player's drawn
//! card, no seed and no deck order while the game runs. And every view it got is exactly the
//! core's view of the game at that point, rebuilt from the finished game's replay.

use std::collections::BTreeSet;
use std::net::SocketAddr;

use fugitive_core::{Entry, Game, Role, Setup, Viewer};
use serde_json::Value;

fn keys(value: &Value) -> BTreeSet<&str> {
    value.as_object().expect("an object").keys().map(String::as_str).collect()
}

fn set(names: &[&'static str]) -> BTreeSet<&'static str> {
    names.iter().copied().collect()
}

/// Checks every `state` frame of game `number` that `viewer` ("marshal" or "spectator")
/// received while the game ran.
pub fn assert_hidden(frames: &[Value], viewer: &str, number: u64) {
    assert_only_known_frames(frames);
    let mut checked = 0;
    for frame in frames.iter().filter(|f| f["type"] == "state" && f["game"] == number) {
        // The public candidates while the game runs (issue 23), never after.
        let running = frame["view"]["outcome"].is_null();
        let mut expected = set(&["v", "type", "version", "game", "view", "legal", "room"]);
        expected.extend(running.then_some("candidates"));
        assert_eq!(keys(frame), expected, "{frame}");
        assert_eq!(
            keys(&frame["room"]),
            set(&[
                "aborted",
                "seats",
                "presence",
                "clock",
                "rematch",
                "names",
                "spectators",
                "chat_spectators",
                "series",
                "computer"
            ])
        );
        let view = &frame["view"];
        assert_eq!(view["viewer"], viewer);
        if !view["outcome"].is_null() {
            continue; // R18: everything is public once the game is over.
        }
        checked += 1;
        let expected =
            ["viewer", "rules", "phase", "to_move", "trail", "decks", "hands", "history", "outcome", "seed"];
        assert_eq!(keys(view), set(&expected), "{view}");
        assert!(view["seed"].is_null(), "seed leaked: {frame}");
        for deck in view["decks"].as_array().unwrap() {
            assert_eq!(keys(deck), set(&["deck", "low", "high", "size", "cards"]));
            assert!(deck["cards"].is_null(), "deck order leaked: {frame}");
        }
        for card in view["trail"].as_array().unwrap() {
            assert_eq!(keys(card), set(&["card", "face_up", "sprint_count", "sprints"]));
            if card["face_up"] == false {
                assert!(card["card"].is_null(), "face-down hideout leaked: {frame}");
                assert!(card["sprints"].is_null(), "face-down sprint cards leaked: {frame}");
            }
            if card["card"] == 42 {
                assert!(card["sprints"].is_null(), "42's sprint cards leaked: {frame}");
            }
        }
        assert!(view["hands"]["fugitive"]["cards"].is_null(), "the Fugitive's hand leaked: {frame}");
        if viewer == "spectator" {
            assert!(view["hands"]["marshal"]["cards"].is_null(), "the Marshal's hand leaked: {frame}");
            assert!(frame["legal"].is_null());
            assert_eq!(frame["candidates"]["ruled_out"]["held"], serde_json::json!([]), "her hand leaked");
        }
        for event in view["history"].as_array().unwrap() {
            match event["type"].as_str().unwrap() {
                "placed" => {
                    assert!(
                        event["hideout"].is_null() || event["hideout"] == 42,
                        "placed hideout leaked: {event}"
                    );
                    assert!(event["sprints"].is_null(), "placed sprint cards leaked: {event}");
                }
                "drew" if event["role"] == "fugitive" || viewer == "spectator" => {
                    assert!(event["card"].is_null(), "drawn card leaked: {event}");
                }
                _ => {}
            }
        }
    }
    assert!(checked > 0, "no running-game frame was checked");
}

/// The finished game `number` of `room`, from the replay endpoint: setup and actions.
pub async fn replay(addr: SocketAddr, room: &str, number: u64) -> (Setup, Vec<(Role, Entry)>) {
    let (status, body) = super::http(addr, "GET", &format!("/api/rooms/{room}/games/{number}"), None).await;
    assert_eq!(status, 200, "{body}");
    let setup: Setup = serde_json::from_value(body["setup"].clone()).unwrap();
    let actions: Vec<(Role, Entry)> = serde_json::from_value(body["actions"].clone()).unwrap();
    let game = Game::replay(setup, &actions).unwrap();
    assert!(game.is_over());
    assert_eq!(body["view"], serde_json::to_value(game.view(Viewer::Spectator)).unwrap());
    (setup, actions)
}

/// Every `state` of game `number` that `viewer` received equals the core's view of the game
/// after as many actions as the frame's version says (counted from `base`, the version at the
/// game's start), and the seed appears in no frame before the end.
pub fn assert_views_replay(
    frames: &[Value],
    viewer: Viewer,
    number: u64,
    base: u64,
    setup: Setup,
    actions: &[(Role, Entry)],
) {
    let seed = String::from(setup.seed);
    assert_only_known_frames(frames);
    let mut checked = 0;
    for frame in frames.iter().filter(|f| f["type"] == "state" && f["game"] == number) {
        let played = (frame["version"].as_u64().unwrap() - base) as usize;
        let game = Game::replay(setup, &actions[..played]).unwrap();
        assert_eq!(frame["view"], serde_json::to_value(game.view(viewer)).unwrap(), "version {played}");
        let legal = viewer.role().map(|role| game.legal_actions(role));
        assert_eq!(frame["legal"], serde_json::to_value(legal).unwrap());
        let candidates = game.view(viewer).candidates();
        assert_eq!(frame["candidates"], serde_json::to_value(candidates).unwrap(), "version {played}");
        if !game.is_over() {
            assert!(!frame.to_string().contains(&seed), "the seed leaked");
        }
        checked += 1;
    }
    assert!(checked > 0);
}

/// Besides `state`, a socket gets only `welcome` and `reply` frames, with no field beyond theirs.
fn assert_only_known_frames(frames: &[Value]) {
    for frame in frames.iter().filter(|f| f["type"] != "state") {
        let allowed = match frame["type"].as_str() {
            Some("welcome") => set(&["v", "type", "role", "room", "last_seq"]),
            Some("reply") => set(&["v", "type", "seq", "ok", "error"]),
            // The players' own words only (issue 13).
            Some("chat") => set(&["v", "type", "full", "messages"]),
            _ => panic!("unexpected frame {frame}"),
        };
        assert!(keys(frame).is_subset(&allowed), "{frame}");
    }
}
