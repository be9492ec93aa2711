//! The guided first game (issue 26): `"opponent": "tutorial"` deals the tutorial's fixed deal
//! and the computer Marshal plays it the same way every time, so the walk-through of
//! `web/tests/tutorial.test.mjs` meets every step it explains: sprint cards, a pass, a
//! multi-number guess and the Manhunt.

use crate::common;

use common::{Client, Server, TestDb, http};
use serde_json::{Value, json};

/// The Fugitive's moves of the walk-through (the same as `web/tests/tutorial.test.mjs`).
const SCRIPT: &str = r#"[{"type":"place","hideout":5,"sprints":[2]}, {"type":"end_turn"}, {"type":"draw","deck":1}, {"type":"place","hideout":10,"sprints":[4]}, {"type":"draw","deck":1}, {"type":"pass"}, {"type":"draw","deck":1}, {"type":"place","hideout":14,"sprints":[1]}, {"type":"draw","deck":2}, {"type":"place","hideout":18,"sprints":[3]}, {"type":"draw","deck":2}, {"type":"place","hideout":23,"sprints":[20]}, {"type":"draw","deck":2}, {"type":"place","hideout":27,"sprints":[7]}, {"type":"draw","deck":3}, {"type":"place","hideout":31,"sprints":[13]}, {"type":"draw","deck":3}, {"type":"place","hideout":34,"sprints":[]}, {"type":"draw","deck":3}, {"type":"place","hideout":38,"sprints":[15]}, {"type":"draw","deck":3}, {"type":"place","hideout":42,"sprints":[40]}]"#;

async fn tutorial(addr: std::net::SocketAddr) -> Client {
    let (status, created) = http(addr, "POST", "/api/rooms", Some(&json!({ "opponent": "tutorial" }))).await;
    assert_eq!(status, 201, "{created}");
    assert_eq!(created["role"], "fugitive");
    Client::join(addr, created["room"].as_str().unwrap(), created["token"].as_str()).await
}

fn mine_or_over(state: &Value) -> bool {
    state["view"]["to_move"] == "fugitive" || !state["view"]["outcome"].is_null()
}

#[tokio::test]
async fn every_tutorial_plays_the_same_deal_to_a_multi_number_guess_and_the_manhunt() {
    let db = TestDb::sqlite();
    let server = Server::start(&db, &["--bot-pause", "0ms"]).await;
    let mut first = tutorial(server.addr).await;
    let mut other = tutorial(server.addr).await;
    let hand = |state: &Value| state["view"]["hands"]["fugitive"]["cards"].clone();
    let a = first.wait_state(mine_or_over).await;
    let b = other.wait_state(mine_or_over).await;
    assert_eq!(hand(&a), hand(&b), "the same deal");

    let script: Vec<Value> = serde_json::from_str(SCRIPT).unwrap();
    let mut seen = 0;
    for action in script {
        let state = first.wait_state(|s| s["version"].as_u64() >= Some(seen) && mine_or_over(s)).await;
        seen = state["version"].as_u64().unwrap() + 1;
        let reply = first.act(action.clone()).await;
        assert_eq!(reply["ok"], true, "{action}: {reply}");
    }
    let end = first.wait_state(|s| !s["view"]["outcome"].is_null()).await;
    assert_eq!(end["view"]["outcome"], json!({ "winner": "fugitive", "reason": "manhunt_survived" }));
    let history = end["view"]["history"].as_array().unwrap();
    let multi = history
        .iter()
        .any(|e| e["type"] == "guessed" && e["numbers"].as_array().is_some_and(|n| n.len() > 1));
    assert!(multi, "the computer Marshal names several numbers at once");
    assert!(history.iter().any(|e| e["type"] == "manhunt_started"));
    server.stop().await;
}

#[tokio::test]
async fn the_tutorial_is_the_fugitives_with_the_default_rules() {
    let db = TestDb::sqlite();
    let server = Server::start(&db, &[]).await;
    for body in [
        json!({ "opponent": "tutorial", "role": "marshal" }),
        json!({ "opponent": "tutorial", "turn_clock_secs": 60 }),
        json!({ "opponent": "tutorial", "rules": { "opening_hideouts": "exactly_two" } }),
        json!({ "opponent": "tutorial", "notepad_assist": true }),
    ] {
        let (status, answer) = http(server.addr, "POST", "/api/rooms", Some(&body)).await;
        assert_eq!((status, answer["error"].as_str()), (400, Some("bad_request")), "{body}");
    }
    server.stop().await;
}
