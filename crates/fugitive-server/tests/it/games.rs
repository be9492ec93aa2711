//! Complete games over real sockets: two players and a spectator, to each kind of ending
//! (R14–R17), a rematch, the turn clock; and on every frame the Marshal and the spectator got,
//! the leak checks (R19–R22).

use crate::common;

use common::driver::{Goal, MAX_ACTIONS, deal_reaching, play, view_of};
use common::leak::{assert_hidden, assert_views_replay, replay};
use common::{Client, Server, Table, TestDb};
use fugitive_core::{Outcome, Reason, Role, Viewer};
use serde_json::json;

/// Plays a room towards `goal` on a known deal that the driver ends with `reason` (see
/// `deal_reaching`), then checks what each socket saw.
async fn ending(goal: Goal, reason: Reason, winner: Role) {
    let db = TestDb::sqlite();
    let deal = deal_reaching(&[(goal, reason)], 0).to_string();
    let server = Server::start(&db, &["--deal-seed", &deal]).await;
    let mut table = Table::open(server.addr, json!({ "role": "fugitive" })).await;
    let outcome = play(&mut table, goal, MAX_ACTIONS).await.expect("the known deal ends");
    assert_eq!(outcome, Outcome { winner, reason });
    check_finished_table(&server, &table, 1, 0).await;
    server.stop().await;
}

/// Every socket saw the same ending and the whole game (R18); the Marshal and the spectator
/// never saw a hidden card; every view was the core's view at its version.
async fn check_finished_table(server: &Server, table: &Table, number: u64, base: u64) {
    let last = view_of(table.spectator.state.as_ref().unwrap());
    let outcome = last.outcome.expect("the game is over");
    for client in [&table.fugitive, &table.marshal, &table.spectator] {
        let view = view_of(client.state.as_ref().unwrap());
        assert_eq!(view.outcome, Some(outcome));
        assert!(view.seed.is_some(), "R18: the seed is public at the end");
        assert!(view.trail.iter().all(|t| t.card.is_some() && t.sprints.is_some()), "R18: the whole trail");
    }
    assert_hidden(&table.marshal.frames, "marshal", number);
    assert_hidden(&table.spectator.frames, "spectator", number);
    let (setup, actions) = replay(server.addr, &table.seats.room, number).await;
    assert_views_replay(&table.fugitive.frames, Viewer::Fugitive, number, base, setup, &actions);
    assert_views_replay(&table.marshal.frames, Viewer::Marshal, number, base, setup, &actions);
    assert_views_replay(&table.spectator.frames, Viewer::Spectator, number, base, setup, &actions);
}

#[tokio::test]
async fn r15_escape() {
    ending(Goal::Escape, Reason::Escape, Role::Fugitive).await;
}

#[tokio::test]
async fn r16_manhunt_survived() {
    ending(Goal::ManhuntSurvived, Reason::ManhuntSurvived, Role::Fugitive).await;
}

#[tokio::test]
async fn r16_manhunt_success() {
    ending(Goal::ManhuntSuccess, Reason::ManhuntSuccess, Role::Marshal).await;
}

#[tokio::test]
async fn r14_all_hideouts_found() {
    ending(Goal::AllHideoutsFound, Reason::AllHideoutsFound, Role::Marshal).await;
}

#[tokio::test]
async fn r17_resignation() {
    ending(Goal::Resignation, Reason::Resignation, Role::Fugitive).await;
}

#[tokio::test]
async fn sqlite_rematch_swaps_roles_in_the_same_room() {
    rematch(TestDb::sqlite()).await;
}

#[tokio::test]
#[ignore = "needs FUGITIVE_TEST_DATABASE_URL"]
async fn postgres_rematch_swaps_roles_in_the_same_room() {
    rematch(TestDb::postgres().await).await;
}

async fn rematch(db: TestDb) {
    let games = [
        (Goal::AllHideoutsFound, Reason::AllHideoutsFound),
        (Goal::ManhuntSurvived, Reason::ManhuntSurvived),
    ];
    let deal = deal_reaching(&games, 0).to_string();
    let server = Server::start(&db, &["--deal-seed", &deal]).await;
    let mut table = Table::open(server.addr, json!({ "role": "marshal" })).await;
    let outcome = play(&mut table, Goal::AllHideoutsFound, MAX_ACTIONS).await;
    assert_eq!(outcome.unwrap().reason, Reason::AllHideoutsFound);
    let over = table.fugitive.version().unwrap();

    // Rematch is refused from a spectator, and needs both players.
    let reply = table.spectator.request(json!({ "type": "rematch" })).await;
    assert_eq!(reply["error"]["code"], "spectator");
    assert_eq!(table.fugitive.request(json!({ "type": "rematch" })).await["ok"], true);
    let offered = table.marshal.wait_state(|s| s["room"]["rematch"]["fugitive"] == true).await;
    assert_eq!(offered["game"], 1);
    assert_eq!(offered["version"], over);
    assert_eq!(table.marshal.request(json!({ "type": "rematch" })).await["ok"], true);

    // Game 2: the same sockets, the roles swapped, a new seed.
    for client in [&mut table.fugitive, &mut table.marshal, &mut table.spectator] {
        client.wait_state(|s| s["game"] == 2).await;
    }
    let first = table.fugitive.state.clone().unwrap();
    assert_eq!(first["version"], over + 1);
    assert_eq!(first["view"]["viewer"], "marshal");
    assert_eq!(first["room"]["rematch"], json!({ "fugitive": false, "marshal": false }));
    assert_eq!(table.marshal.state.as_ref().unwrap()["view"]["viewer"], "fugitive");
    std::mem::swap(&mut table.fugitive, &mut table.marshal);
    std::mem::swap(&mut table.seats.fugitive_token, &mut table.seats.marshal_token);

    // Game 2 cannot be replayed while it runs; game 1 can.
    let (status, body) = server.http("GET", &format!("/api/rooms/{}/games/2", table.seats.room), None).await;
    assert_eq!((status, body["error"].as_str()), (403, Some("game_running")));
    let (setup_1, _) = replay(server.addr, &table.seats.room, 1).await;

    // The same links keep working: the old Fugitive's token now joins as the Marshal.
    let rejoined = Client::join(server.addr, &table.seats.room, Some(&table.seats.marshal_token)).await;
    assert_eq!(rejoined.welcome.as_ref().unwrap()["role"], "marshal");
    rejoined.close().await;

    let outcome = play(&mut table, Goal::ManhuntSurvived, MAX_ACTIONS).await;
    assert_eq!(outcome.map(|o| o.reason), Some(Reason::ManhuntSurvived));
    check_finished_table(&server, &table, 2, over + 1).await;
    let (setup_2, _) = replay(server.addr, &table.seats.room, 2).await;
    assert_ne!(setup_1.seed, setup_2.seed);
    server.stop().await;
    db.drop_database().await;
}

#[tokio::test]
async fn r17_turn_clock_runs_out_and_is_in_every_view() {
    let db = TestDb::sqlite();
    let server = Server::start(&db, &[]).await;
    let mut table = Table::open(server.addr, json!({ "role": "fugitive", "turn_clock_secs": 1 })).await;
    // The Fugitive opens and then waits: his clock restarts on his turn and runs out.
    let state = table.spectator.wait_state(|s| !s["view"]["outcome"].is_null()).await;
    assert_eq!(state["view"]["outcome"], json!({ "winner": "marshal", "reason": "time_out" }));
    assert!(state["room"]["clock"].is_null(), "no clock once the game is over");
    for client in [&table.fugitive, &table.marshal, &table.spectator] {
        let running: Vec<_> = client.states().filter(|s| s["view"]["outcome"].is_null()).collect();
        assert!(!running.is_empty());
        for state in running {
            let clock = &state["room"]["clock"];
            assert_eq!(clock["turn_secs"], 1, "{state}");
            assert_eq!(clock["role"], "fugitive");
            assert!(clock["remaining_ms"].as_u64().unwrap() <= 1000);
        }
    }
    server.stop().await;
}

#[tokio::test]
async fn presence_says_whether_the_other_player_is_connected() {
    let db = TestDb::sqlite();
    let server = Server::start(&db, &[]).await;
    let mut table = Table::open(server.addr, json!({})).await;
    let both = table.spectator.wait_state(|s| s["room"]["presence"]["marshal"] == true).await;
    assert_eq!(both["room"]["presence"], json!({ "fugitive": true, "marshal": true }));
    assert_eq!(both["room"]["seats"], json!({ "fugitive": true, "marshal": true }));
    table.marshal.close().await;
    let away = table.fugitive.wait_state(|s| s["room"]["presence"]["marshal"] == false).await;
    assert_eq!(away["room"]["presence"]["fugitive"], true);
    let back = Client::join(server.addr, &table.seats.room, Some(&table.seats.marshal_token)).await;
    table.fugitive.wait_state(|s| s["room"]["presence"]["marshal"] == true).await;
    back.close().await;
    server.stop().await;
}

#[tokio::test]
async fn claiming_the_invited_seat_updates_every_socket() {
    let db = TestDb::sqlite();
    let server = Server::start(&db, &[]).await;
    let (status, created) = server.http("POST", "/api/rooms", Some(&json!({ "role": "fugitive" }))).await;
    assert_eq!(status, 201);
    let room = created["room"].as_str().unwrap();
    let mut spectator = Client::join(server.addr, room, None).await;
    let state = spectator.state.clone().unwrap();
    assert_eq!(state["room"]["seats"], json!({ "fugitive": true, "marshal": false }));
    assert!(state["room"]["clock"].is_null());
    let invite = created["links"]["invite"].as_str().unwrap().split("#invite=").nth(1).unwrap();
    let claim = format!("/api/rooms/{room}/claim");
    let (status, claimed) = server.http("POST", &claim, Some(&json!({ "invite": invite }))).await;
    assert_eq!((status, claimed["role"].as_str()), (200, Some("marshal")));
    let state = spectator.wait_state(|s| s["room"]["seats"]["marshal"] == true).await;
    assert_eq!(state["version"], 0, "a claim is not a move");
    server.stop().await;
}
