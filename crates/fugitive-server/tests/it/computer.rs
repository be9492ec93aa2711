//! Playing against the computer: whole games against the bot in either seat, over a real
//! socket, and the Marshal's notepad assist.

use crate::common;

use common::child::ChildServer;
use common::{Client, Server, TestDb, http};
use fugitive_core::{Action, LegalActions, Role, View};
use rand::SeedableRng;
use rand::rngs::StdRng;
use serde_json::{Value, json};

/// The player's moves after which it resigns.
const RESIGN_AFTER: usize = 500;

/// The servers of these tests deal known deals and let the computer choose from a known seed
/// (`--deal-seed`), so every run plays the same games: what a test counts over them (decisions
/// the computer made) does not depend on luck.
const KNOWN: [&str; 2] = ["--deal-seed", "7"];

/// Creates a room against the computer and plays it to the end with random legal moves; returns
/// the player's socket (its `states()` are every state it got).
async fn play_against(server: &Server, body: Value, me: Role) -> Client {
    let (status, created) = http(server.addr, "POST", "/api/rooms", Some(&body)).await;
    assert_eq!(status, 201, "{created}");
    assert!(created["links"].get("invite").is_none(), "no invitation: the computer has the seat");
    let room = created["room"].as_str().unwrap();
    let mut client = Client::join(server.addr, room, created["token"].as_str()).await;
    let mut rng = StdRng::seed_from_u64(5);
    let mut acted_at = None;
    for played in 0..2_000 {
        let state = client
            .wait_state(|s| {
                let view: View = serde_json::from_value(s["view"].clone()).unwrap();
                s["version"].as_u64() > acted_at
                    && (view.outcome.is_some() || view.phase.to_move() == Some(me))
            })
            .await;
        let view: View = serde_json::from_value(state["view"].clone()).unwrap();
        if view.outcome.is_some() {
            return client;
        }
        let legal: LegalActions = serde_json::from_value(state["legal"].clone()).unwrap();
        // Nothing bounds a random game: past this the player resigns, so it ends whatever the
        // deal and the computer's choices.
        let action = if played < RESIGN_AFTER { legal.sample(&mut rng).unwrap() } else { Action::Resign };
        acted_at = state["version"].as_u64();
        let reply = client.act(serde_json::to_value(action).unwrap()).await;
        assert_eq!(reply["ok"], true, "{reply}");
    }
    panic!("the game did not end");
}

/// The Marshal's states carry the public candidates while the game runs (issue 23), one
/// position per face-down hideout, and none once it is over (R18).
fn assert_public_candidates(states: &[Value]) {
    for state in states {
        let view: View = serde_json::from_value(state["view"].clone()).unwrap();
        if view.outcome.is_some() {
            assert!(state.get("candidates").is_none(), "not after the end: all is public");
            continue;
        }
        let candidates: fugitive_core::Candidates =
            serde_json::from_value(state["candidates"].clone()).unwrap();
        assert_eq!(Some(candidates), view.candidates(), "the core's sets of her view");
    }
}

/// The server replaces a bot's illegal move by a random one so no game stalls; in tests that
/// must never have been needed.
async fn assert_no_illegal_bot_move(server: &Server) {
    let (status, metrics) = http(server.addr, "GET", "/metrics", None).await;
    assert_eq!(status, 200);
    assert!(!metrics.to_string().contains("bot_illegal_move"), "a bot chose an illegal move");
}

#[tokio::test]
async fn a_whole_game_against_each_computer_opponent() {
    let db = TestDb::sqlite();
    let server =
        Server::start(&db, &["--bot-pause", "1ms", "--max-messages-per-sec", "1000", KNOWN[0], KNOWN[1]])
            .await;
    for level in ["random", "easy", "medium", "hard"] {
        let body = json!({ "role": "fugitive", "opponent": { "bot": level } });
        let client = play_against(&server, body, Role::Fugitive).await;
        assert!(client.states().all(|s| s.get("notepad").is_none()), "the Fugitive never gets a notepad");
        assert!(client.states().all(|s| s.get("candidates").is_none()), "nor the public candidates");
        let body = json!({ "role": "marshal", "opponent": { "bot": level } });
        let mut client = play_against(&server, body, Role::Marshal).await;
        assert!(client.states().all(|s| s.get("notepad").is_none()), "notepad_assist is off by default");
        assert_public_candidates(&client.states().cloned().collect::<Vec<_>>());
        // The room says which role the computer plays (issue 23, item 10: no series line).
        assert!(client.states().all(|s| s["room"]["computer"] == "fugitive"));
        // The computer accepts a rematch, and plays the other role in game 2.
        assert_eq!(client.request(json!({ "type": "rematch" })).await["ok"], true);
        let state = client.wait_state(|s| s["game"] == 2).await;
        assert_eq!(state["view"]["viewer"], "fugitive");
        assert_eq!(state["room"]["computer"], "marshal", "the computer's role follows the swap");
    }
    assert_no_illegal_bot_move(&server).await;
    server.stop().await;
}

/// The level list the landing page shows: every level the room options take, weakest first,
/// each with its rating per role, each rated above the one below; a level not on it is refused
/// with `bad_request` and creates no room.
#[tokio::test]
async fn the_levels_come_with_their_ratings_and_no_other_level_is_taken() {
    let db = TestDb::sqlite();
    // Its own process: its count of loaded rooms is this server's alone (the tests' binary runs
    // many servers at once, and the metrics recorder is the process's).
    let server = ChildServer::spawn(&db, &[]).await;
    let (status, body) = http(server.addr, "GET", "/api/levels", None).await;
    assert_eq!(status, 200, "{body}");
    let levels = body["levels"].as_array().unwrap();
    let names: Vec<&str> = levels.iter().map(|l| l["level"].as_str().unwrap()).collect();
    assert_eq!(names, ["random", "easy", "medium", "hard"]);
    for pair in levels.windows(2) {
        for role in ["marshal", "fugitive"] {
            let rating = |l: &Value| l["ratings"][role].as_u64().unwrap();
            assert!(rating(&pair[1]) > rating(&pair[0]), "{role}: {pair:?}");
        }
    }
    let rooms = server.metric("fugitive_rooms_loaded").await.expect("the gauge");
    let bad = json!({ "role": "fugitive", "opponent": { "bot": "grandmaster" } });
    let (status, body) = http(server.addr, "POST", "/api/rooms", Some(&bad)).await;
    assert_eq!(status, 400, "{body}");
    assert_eq!(body["error"], "bad_request");
    let after = server.metric("fugitive_rooms_loaded").await;
    assert_eq!(after, Some(rooms), "a refused request creates no room");
    server.kill_9().await;
}

#[tokio::test]
async fn the_notepad_assist_gives_the_marshal_the_candidates() {
    let db = TestDb::sqlite();
    let server =
        Server::start(&db, &["--bot-pause", "1ms", "--max-messages-per-sec", "1000", KNOWN[0], KNOWN[1]])
            .await;
    let body = json!({ "role": "marshal", "opponent": { "bot": "easy" }, "notepad_assist": true });
    let client = play_against(&server, body, Role::Marshal).await;
    let states: Vec<Value> = client.states().cloned().collect();
    let running: Vec<&Value> = states.iter().filter(|s| s["view"]["outcome"].is_null()).collect();
    assert!(
        running.iter().all(|s| s["notepad"]["trails"].as_f64() > Some(0.0)),
        "every running state has one"
    );
    let placed = running.iter().find(|s| s["view"]["trail"].as_array().unwrap().len() > 1).unwrap();
    let candidates = &placed["notepad"]["positions"][0]["candidates"];
    assert!(!candidates.as_array().unwrap().is_empty(), "{placed}");
    assert!(states.last().unwrap().get("notepad").is_none(), "not after the end: all is public");
    assert_public_candidates(&states);
    // The notepad narrows the public candidates, never widens them (issue 23).
    for state in &running {
        for position in state["notepad"]["positions"].as_array().unwrap() {
            let public = state["candidates"]["positions"].as_array().unwrap();
            let at =
                public.iter().find(|p| p["position"] == position["position"]).expect("the same positions");
            for candidate in position["candidates"].as_array().unwrap() {
                let numbers = at["numbers"].as_array().unwrap();
                assert!(numbers.contains(&candidate["number"]), "{candidate} beyond {at}");
            }
        }
    }
    assert_no_illegal_bot_move(&server).await;
    server.stop().await;
}

#[tokio::test]
async fn the_computer_plays_every_event_variant() {
    // The bot answers the events' pending decisions (E3) through the same door; the notepad
    // comes with events too.
    let db = TestDb::sqlite();
    let server =
        Server::start(&db, &["--bot-pause", "1ms", "--max-messages-per-sec", "1000", KNOWN[0], KNOWN[1]])
            .await;
    let mut bot_choices = 0;
    for (i, events) in
        ["random", "discovery", "helpful:fugitive", "helpful:marshal", "catchup"].iter().enumerate()
    {
        let (role, viewer) =
            if i % 2 == 0 { ("fugitive", Role::Fugitive) } else { ("marshal", Role::Marshal) };
        let body = json!({ "role": role, "opponent": { "bot": "hard" }, "notepad_assist": true, "rules": { "events": events } });
        let client = play_against(&server, body, viewer).await;
        let bot = if viewer == Role::Fugitive { "marshal" } else { "fugitive" };
        let pending =
            |s: &&Value| s["view"]["phase"]["phase"] == "pending" && s["view"]["phase"]["role"] == bot;
        bot_choices += client.states().filter(pending).count();
        let last = client.states().last().unwrap();
        assert_eq!(last["view"]["rules"]["events"], *events);
        assert!(!last["view"]["outcome"].is_null());
        if viewer == Role::Marshal {
            assert!(client.states().any(|s| s["notepad"]["trails"].as_f64() > Some(0.0)));
        }
    }
    assert!(bot_choices > 0, "the computer had no decision to make in five games");
    let (status, answer) =
        server.http("POST", "/api/rooms", Some(&json!({ "opponent": { "bot": "genius" } }))).await;
    assert_eq!(status, 400, "{answer}");
    assert_no_illegal_bot_move(&server).await;
    server.stop().await;
}

#[tokio::test]
async fn the_computer_keeps_its_seat_across_a_restart() {
    let db = TestDb::sqlite();
    // A long pause: the server stops while the computer Marshal is still thinking.
    let server = Server::start(&db, &["--bot-pause", "10s"]).await;
    let body = json!({ "role": "fugitive", "opponent": { "bot": "hard" }, "notepad_assist": true });
    let (status, created) = http(server.addr, "POST", "/api/rooms", Some(&body)).await;
    assert_eq!(status, 201, "{created}");
    let room = created["room"].as_str().unwrap().to_string();
    let token = created["token"].as_str().unwrap().to_string();
    let mut fugitive = Client::join(server.addr, &room, Some(&token)).await;
    let place = json!({ "type": "place", "hideout": 3, "sprints": [] });
    assert_eq!(fugitive.act(place).await["ok"], true);
    assert_eq!(fugitive.act(json!({ "type": "end_turn" })).await["ok"], true);
    fugitive.close().await;
    assert_no_illegal_bot_move(&server).await;
    server.stop().await;
    // Back up with a short pause: the rebuilt room's computer takes its turn by itself.
    let server = Server::start(&db, &["--bot-pause", "1ms"]).await;
    let mut fugitive = Client::join(server.addr, &room, Some(&token)).await;
    let state = fugitive
        .wait_state(|s| s["view"]["history"].as_array().unwrap().iter().any(|e| e["type"] == "guessed"))
        .await;
    assert_eq!(state["room"]["seats"], json!({ "fugitive": true, "marshal": true }));
    assert_eq!(
        state["room"]["presence"],
        json!({ "fugitive": true, "marshal": true }),
        "the computer is here"
    );
    assert!(state.get("notepad").is_none(), "the assist is the Marshal's, not the Fugitive's");
    fugitive.close().await;
    assert_no_illegal_bot_move(&server).await;
    server.stop().await;
}
