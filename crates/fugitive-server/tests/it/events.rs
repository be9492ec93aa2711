//! Rooms with event variants (`EVENTS.md`): the room option `events` at creation, pending
//! decisions (E3) answered over the same socket protocol with `choose`, and the whole game
//! persisted as accepted actions and replayed like any other.

use crate::common;

use common::driver::{legal_of, view_of};
use common::leak::{assert_views_replay, replay};
use common::{Server, Table, TestDb, http};
use fugitive_core::{Action, EventVariant, Phase, Role, Viewer};
use rand::SeedableRng;
use rand::rngs::StdRng;
use serde_json::json;

/// The actions after which a random player resigns.
const RESIGN_AFTER: usize = 1_000;

/// Plays a room of `variant` to its end with random legal actions taken from each state's
/// `legal`; returns how many were answers to pending decisions.
async fn random_game(server: &Server, variant: &str, seed: u64) -> usize {
    let rules = json!({ "events": variant });
    let mut table = Table::open(server.addr, json!({ "role": "fugitive", "rules": rules })).await;
    let mut rng = StdRng::seed_from_u64(seed);
    let mut choices = 0;
    for played in 0..3_000 {
        let state = table.fugitive.state.clone().expect("a state");
        let version = state["version"].as_u64().unwrap();
        let view = view_of(&state);
        assert_eq!(serde_json::to_value(view.rules.events).unwrap(), variant);
        if view.outcome.is_some() {
            break;
        }
        let mover = view.phase.to_move().expect("the game runs");
        if let Phase::Pending { role, .. } = view.phase {
            // Every viewer sees who must choose (E3).
            let spectator = table.spectator.wait_version(version).await;
            assert_eq!(view_of(&spectator).phase, view.phase);
            assert_eq!(role, mover);
        }
        let client = match mover {
            Role::Fugitive => &mut table.fugitive,
            Role::Marshal => &mut table.marshal,
        };
        let state = client.wait_version(version).await;
        // Random play ends long before, but nothing bounds it: past this the mover resigns, so
        // the game ends whatever the deal.
        let action = if played < RESIGN_AFTER {
            legal_of(&state).sample(&mut rng).expect("the mover has a move")
        } else {
            Action::Resign
        };
        choices += usize::from(matches!(action, Action::Choose { .. }));
        let reply = client.act(serde_json::to_value(action).unwrap()).await;
        assert_eq!(reply["ok"], true, "{action:?} was refused: {reply}");
        table.sync(version + 1).await;
    }
    assert!(view_of(table.fugitive.state.as_ref().unwrap()).outcome.is_some(), "the game ended");
    // Persisted and replayed like any action: every frame is the core's view at its version.
    let (setup, actions) = replay(server.addr, &table.seats.room, 1).await;
    assert_eq!(setup.rules.events, serde_json::from_value::<EventVariant>(json!(variant)).unwrap());
    assert_views_replay(&table.fugitive.frames, Viewer::Fugitive, 1, 0, setup, &actions);
    assert_views_replay(&table.marshal.frames, Viewer::Marshal, 1, 0, setup, &actions);
    assert_views_replay(&table.spectator.frames, Viewer::Spectator, 1, 0, setup, &actions);
    choices
}

#[tokio::test]
async fn every_variant_plays_to_the_end_over_sockets_and_replays() {
    let db = TestDb::sqlite();
    // The random players act as fast as the server answers: lift the per-socket rate limit. A
    // known deal (`--deal-seed`) and seeded players: the same five games every run, so "some
    // pending decision was answered" does not hang on luck.
    let server = Server::start(&db, &["--max-messages-per-sec", "1000", "--deal-seed", "1"]).await;
    let mut choices = 0;
    for (i, variant) in
        ["random", "discovery", "helpful:fugitive", "helpful:marshal", "catchup"].iter().enumerate()
    {
        choices += random_game(&server, variant, i as u64).await;
    }
    assert!(choices > 0, "some pending decision was answered over the socket");
    server.stop().await;
}

#[tokio::test]
async fn an_unknown_event_variant_is_refused_at_room_creation() {
    let db = TestDb::sqlite();
    let server = Server::start(&db, &[]).await;
    let body = json!({ "role": "fugitive", "rules": { "events": "sometimes" } });
    let (status, reply) = http(server.addr, "POST", "/api/rooms", Some(&body)).await;
    assert!((400..500).contains(&status), "{status} {reply}");
    // Without the option a room plays without events, and its rules read as before.
    let (status, created) =
        http(server.addr, "POST", "/api/rooms", Some(&json!({ "role": "marshal" }))).await;
    assert_eq!(status, 201, "{created}");
    let room = created["room"].as_str().unwrap();
    let (_, summary) = http(server.addr, "GET", &format!("/api/rooms/{room}"), None).await;
    assert_eq!(summary["rules"], json!({ "opening_hideouts": "one_or_two", "pass_bonus_draw": false }));
    server.stop().await;
}
