//! Puzzles (issue 26): loaded from a `fugitive-sim --puzzles` file, handed out as the solver's
//! view only, answered once per attempt and checked on the server, rated with and without a
//! profile; and mined from the finished games of the server, once.

use crate::common;

use std::time::Duration;

use common::child::ChildServer;
use common::{PATIENCE, Server, TestDb, http, http_text};
use fugitive_ai::puzzle::{self, Puzzle, Theme};
use fugitive_core::{Action, Card, Cards, Deal, Game, Role, RuleOptions};
use fugitive_server::background::Background;
use fugitive_server::config::Priority;
use fugitive_server::db::{Db, puzzles};
use fugitive_server::model::puzzle::id;
use fugitive_server::puzzles::{Mined, Miner};
use serde_json::{Value, json};

fn c(n: u8) -> Card {
    Card::new(n).unwrap()
}

/// The record of a short game: he hides at 1; she draws from deck 3 and guesses 2, then 3,
/// both wrong, while he draws from deck 3 and passes; then she draws and 1 is certain (R12).
fn script() -> Vec<(Role, Value)> {
    let draw = json!({ "type": "draw", "deck": 3 });
    let guess = |n: u8| json!({ "type": "guess", "numbers": [n] });
    use Role::{Fugitive as F, Marshal as M};
    vec![
        (F, json!({ "type": "place", "hideout": 1, "sprints": [] })),
        (F, json!({ "type": "end_turn" })),
        (M, draw.clone()),
        (M, draw.clone()),
        (M, guess(2)),
        (F, draw.clone()),
        (F, json!({ "type": "pass" })),
        (M, draw.clone()),
        (M, guess(3)),
        (F, draw.clone()),
        (F, json!({ "type": "pass" })),
        (M, draw),
    ]
}

/// The certain puzzle of `script` on a known deal.
fn certain_puzzle() -> Puzzle {
    let dealt: Cards = [1, 2, 3, 42, 4, 5, 6, 15, 16].into_iter().map(c).collect();
    let deck = |low: u8, high: u8| (low..=high).map(c).filter(|card| !dealt.contains(*card)).collect();
    let deal = Deal { decks: [deck(4, 14), deck(15, 28), deck(29, 41)], fugitive_hand: dealt };
    let mut game = Game::from_deal(RuleOptions::default(), deal).unwrap();
    for (role, action) in script() {
        let action: Action = serde_json::from_value(action).unwrap();
        game.apply(role, action).unwrap();
    }
    puzzle::find(&game).into_iter().find(|p| p.theme == Theme::Certain).expect("1 is certain")
}

/// A puzzles file holding `puzzles` (and a line that does not parse, which is skipped).
fn file(puzzles: &[Puzzle]) -> tempfile::NamedTempFile {
    let mut text: String = puzzles.iter().map(|p| serde_json::to_string(p).unwrap() + "\n").collect();
    text.push_str("not a puzzle\n");
    let file = tempfile::NamedTempFile::new().unwrap();
    std::fs::write(file.path(), text).unwrap();
    file
}

async fn attempt(server: &Server, id: &str, body: Value) -> (u16, Value) {
    server.http("POST", &format!("/api/puzzles/{id}/attempt"), Some(&body)).await
}

#[tokio::test]
async fn a_puzzle_shows_the_solvers_view_and_each_attempt_is_answered_once() {
    let db = TestDb::sqlite();
    let puzzle = certain_puzzle();
    let file = file(std::slice::from_ref(&puzzle));
    let path = file.path();
    let server = Server::start(&db, &["--puzzles", path.to_str().unwrap()]).await;

    let (status, next) = server.http("GET", "/api/puzzles/next", None).await;
    assert_eq!(status, 200, "{next}");
    assert_eq!(next["id"], id(&puzzle));
    assert_eq!(next["theme"], "certain");
    assert_eq!(next["role"], "marshal");
    assert_eq!(next["view"], serde_json::to_value(&puzzle.view).unwrap());
    assert!(next["legal"]["guess"]["numbers"].as_array().unwrap().contains(&json!(1)));
    assert_eq!(next["candidates"]["positions"][0]["numbers"], json!([1]));
    assert_eq!(next["solver"], Value::Null);
    // No hidden card leaves the server before the answer (R20): no face-down number, no answer.
    assert!(next.get("answer").is_none());
    assert!(
        next["view"]["trail"].as_array().unwrap().iter().all(|t| t["face_up"] == true || t["card"].is_null())
    );
    let pid = next["id"].as_str().unwrap().to_string();
    let token = next["attempt"].as_str().unwrap().to_string();

    // Bad ids and bad answers change nothing.
    let (status, body) = attempt(&server, "nope", json!({ "attempt": token, "numbers": [1] })).await;
    assert_eq!((status, body["error"].as_str()), (400, Some("bad_puzzle_id")));
    let (status, body) = attempt(&server, &"0".repeat(32), json!({ "attempt": token, "numbers": [1] })).await;
    assert_eq!((status, body["error"].as_str()), (404, Some("puzzle_not_found")));
    for numbers in
        [json!([0]), json!([42]), json!([1, 1]), json!([1, 5]), json!([]), json!("1"), json!([1.5])]
    {
        let (status, body) = attempt(&server, &pid, json!({ "attempt": token, "numbers": numbers })).await;
        assert_eq!((status, body["error"].as_str()), (400, Some("bad_answer")), "{numbers}");
    }
    let (status, text) =
        http_text(server.addr, "POST", &format!("/api/puzzles/{pid}/attempt"), Some("[1]")).await;
    assert_eq!(status, 400, "{text}");
    let (status, body) = attempt(&server, &pid, json!({ "attempt": "forged", "numbers": [1] })).await;
    assert_eq!((status, body["error"].as_str()), (404, Some("attempt_unknown")));

    // The right answer, once.
    let (status, solved) = attempt(&server, &pid, json!({ "attempt": token, "numbers": [1] })).await;
    assert_eq!(status, 200, "{solved}");
    assert_eq!(solved["solved"], true);
    assert_eq!(solved["answer"], json!([1]));
    assert_eq!(solved["best"], json!(1.0));
    assert!(solved["rating"]["rating"].as_f64().unwrap() < 1500.0, "solving lowers the puzzle's rating");
    let (status, body) = attempt(&server, &pid, json!({ "attempt": token, "numbers": [1] })).await;
    assert_eq!((status, body["error"].as_str()), (409, Some("already_answered")));
    let (status, body) = attempt(&server, &pid, json!({ "attempt": token, "numbers": [5] })).await;
    assert_eq!((status, body["error"].as_str()), (409, Some("already_answered")));

    // A wrong answer of another attempt raises it again.
    let (_, next) = server.http("GET", "/api/puzzles/next", None).await;
    let token = next["attempt"].as_str().unwrap();
    let (status, failed) = attempt(&server, &pid, json!({ "attempt": token, "numbers": [5] })).await;
    assert_eq!(status, 200, "{failed}");
    assert_eq!(failed["solved"], false);
    assert_eq!(failed["answer"], json!([1]));
    assert!(failed["rating"]["rating"].as_f64().unwrap() > solved["rating"]["rating"].as_f64().unwrap());
    server.stop().await;
}

#[tokio::test]
async fn a_profile_has_a_puzzle_rating() {
    let db = TestDb::sqlite();
    let file = file(&[certain_puzzle()]);
    let path = file.path();
    let server = Server::start(&db, &["--puzzles", path.to_str().unwrap()]).await;
    let client = reqwest::Client::new();
    let url = |p: &str| format!("http://{}{p}", server.addr);
    let made = client.post(url("/api/profile")).send().await.unwrap();
    assert_eq!(made.status().as_u16(), 201);
    let cookie = made.headers()["set-cookie"].to_str().unwrap().split(';').next().unwrap().to_string();
    let next = || async {
        let response = client.get(url("/api/puzzles/next")).header("cookie", &cookie).send().await.unwrap();
        response.json::<Value>().await.unwrap()
    };
    let first = next().await;
    assert_eq!(first["solver"]["rating"], json!(1500.0));
    let answer = json!({ "attempt": first["attempt"], "numbers": [1] });
    let solved: Value = client
        .post(url(&format!("/api/puzzles/{}/attempt", first["id"].as_str().unwrap())))
        .header("cookie", &cookie)
        .json(&answer)
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert!(solved["solver"]["rating"].as_f64().unwrap() > 1500.0, "{solved}");
    // The next puzzle is handed out near the new rating (here the only one there is).
    assert_eq!(next().await["solver"]["rating"], solved["solver"]["rating"]);
    server.stop().await;
}

#[tokio::test]
async fn without_puzzles_next_says_so() {
    let db = TestDb::sqlite();
    let server = Server::start(&db, &[]).await;
    let (status, body) = server.http("GET", "/api/puzzles/next", None).await;
    assert_eq!((status, body["error"].as_str()), (404, Some("no_puzzles")));
    server.stop().await;
}

/// Plays `script` over real sockets, then the Marshal names 1 and wins (R14): returns the room
/// and the id of the certain puzzle the finished game holds.
async fn finish_a_game(server: &Server) -> (String, String) {
    let mut table = common::Table::open(server.addr, json!({ "role": "fugitive" })).await;
    let mut moves = script();
    moves.push((Role::Marshal, json!({ "type": "guess", "numbers": [1] })));
    for (role, action) in moves {
        let client = if role == Role::Fugitive { &mut table.fugitive } else { &mut table.marshal };
        let reply = client.act(action.clone()).await;
        assert_eq!(reply["ok"], true, "{action}: {reply}");
    }
    let (setup, actions) = common::leak::replay(server.addr, &table.seats.room, 1).await;
    let game = Game::replay(setup, &actions).unwrap();
    let expected: Vec<String> =
        puzzle::find(&game).iter().filter(|p| p.theme == Theme::Certain).map(id).collect();
    assert_eq!(expected.len(), 1);
    (table.seats.room.clone(), expected[0].clone())
}

/// The miner finds the certain moment in the finished game, once. Its jobs run at the server's
/// own priority here, as in `analysis.rs`: the test waits for them on a machine that is busy.
async fn mined(db: TestDb) {
    let server =
        Server::start(&db, &["--puzzle-mine-interval", "100ms", "--background-priority", "normal"]).await;
    let (room, expected) = finish_a_game(&server).await;
    let store = Db::connect(&db.url).await.unwrap();
    let found = tokio::time::timeout(PATIENCE, async {
        loop {
            if let Some(found) = puzzles::get(&store, &expected).await.unwrap() {
                return found;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    })
    .await
    .expect("the miner stores the finished game's puzzle");
    assert_eq!(found.answer, Cards::from_iter([c(1)]));
    // Mined once: the game is claimed, and another look finds nothing new to claim.
    assert!(!puzzles::claim(&store, room.parse().unwrap(), 1, 0).await.unwrap());
    let (status, _) = http(server.addr, "GET", "/api/puzzles/next", None).await;
    assert_eq!(status, 200);
    store.close().await;
    server.stop().await;
    db.drop_database().await;
}

/// A game whose search runs out of its CPU budget is mined all the same: it keeps what was
/// found (here nothing: a zero budget stops before the first moment), and no look tries it again.
#[tokio::test]
async fn a_game_over_the_miners_cpu_budget_stops_and_stays_mined() {
    let db = TestDb::sqlite();
    let server = Server::start(&db, &["--puzzle-mine-interval", "0s"]).await;
    let (_, expected) = finish_a_game(&server).await;
    let store = Db::connect(&db.url).await.unwrap();
    let workers = Background::new(1, Priority::Normal);
    let broke = Miner::new(store.clone(), workers.clone(), Duration::ZERO);
    assert_eq!(broke.mine().await.unwrap(), Mined { games: 1, stopped: 1, puzzles: 0 });
    assert_eq!(puzzles::get(&store, &expected).await.unwrap(), None, "the search stopped");
    assert!(puzzles::unmined(&store, 10).await.unwrap().is_empty(), "the game is mined");
    let rich = Miner::new(store.clone(), workers, Duration::from_secs(60));
    assert_eq!(rich.mine().await.unwrap(), Mined::default(), "and never tried again");
    store.close().await;
    server.stop().await;
}

/// Within the budget the same game gives its puzzle (the test above stopped for its budget).
#[tokio::test]
async fn a_game_within_the_miners_cpu_budget_gives_its_puzzles() {
    let db = TestDb::sqlite();
    let server = Server::start(&db, &["--puzzle-mine-interval", "0s"]).await;
    let (_, expected) = finish_a_game(&server).await;
    let store = Db::connect(&db.url).await.unwrap();
    let miner = Miner::new(store.clone(), Background::new(1, Priority::Normal), Duration::from_secs(60));
    let mined = miner.mine().await.unwrap();
    assert_eq!((mined.games, mined.stopped), (1, 0));
    assert!(mined.puzzles >= 1);
    assert!(puzzles::get(&store, &expected).await.unwrap().is_some());
    store.close().await;
    server.stop().await;
}

/// Without `--puzzles`, the server loads `puzzles/puzzles.jsonl` of its working directory when
/// it is there (the README's `cargo run`); a missing one is no error; the flag wins.
#[tokio::test]
async fn the_default_puzzles_file_is_loaded_when_there_and_the_flag_wins() {
    let repo = tempfile::tempdir().unwrap();
    std::fs::create_dir(repo.path().join("puzzles")).unwrap();
    let text = serde_json::to_string(&certain_puzzle()).unwrap() + "\n";
    std::fs::write(repo.path().join("puzzles/puzzles.jsonl"), text).unwrap();
    let empty = tempfile::NamedTempFile::new().unwrap();
    let bare = tempfile::tempdir().unwrap();
    let empty_path = empty.path().to_str().unwrap();
    for (dir, args, status) in [
        (repo.path(), vec![], 200),
        (bare.path(), vec![], 404),
        (repo.path(), vec!["--puzzles", empty_path], 404),
    ] {
        let db = TestDb::sqlite();
        let server = ChildServer::spawn_in(Some(dir), &db.url, &args, &[]).await;
        let (got, body) = http(server.addr, "GET", "/api/puzzles/next", None).await;
        assert_eq!(got, status, "in {} with {args:?}: {body}", dir.display());
        if status == 404 {
            assert_eq!(body["error"], "no_puzzles");
        } else {
            assert_eq!(body["theme"], "certain", "{body}");
        }
        server.kill_9().await;
    }
}

#[tokio::test]
async fn sqlite_a_finished_game_is_mined_once() {
    mined(TestDb::sqlite()).await;
}

#[tokio::test]
#[ignore = "needs FUGITIVE_TEST_DATABASE_URL"]
async fn postgres_a_finished_game_is_mined_once() {
    mined(TestDb::postgres().await).await;
}
