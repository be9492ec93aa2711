//! Protocol 2 (`/ws/v2/…`, docs/protocol-v2.md) over real sockets, beside protocol 1 on the same
//! rooms: a client that folds the deltas into its snapshot holds exactly protocol 1's view and a
//! fresh snapshot's, for each viewer, through whole games; no delta tells the Marshal or a
//! spectator a hidden card (R19–R21); frames after `hello` stay small however long the game; a
//! lost delta is mended by a `resync`; and a client that stops reading is not closed but finds
//! a current state when it reads again.

use crate::common;

use common::driver::{Goal, MAX_ACTIONS, deal_reaching, fugitive_move, legal_of, marshal_move, view_of};
use common::leak::{assert_hidden, assert_views_replay, replay};
use common::v2::{V2, held_of};
use common::{Client, Server, Table, TestDb};
use fugitive_core::{Action, Event, Reason, Role, TrailCard, Viewer};
use serde_json::{Value, json};

/// The most bytes of any frame after `hello` but the one that ends the game (which shows the
/// whole deal, R18: bounded by the cards, not by the game's length), leaving out a player's
/// `legal` and the public `candidates`: his legal actions are sent whole when they change, and
/// they grow with his hand (each of the Fugitive's placements lists the sprint cards it may
/// take; the Marshal's guess lists up to 41 numbers), never with the game's length.
const SMALL: usize = 600;
/// The most bytes of the public candidates (issue 23) in a frame: sent whole when they change,
/// they name each number 1–41 once per face-down position it can be, or once as ruled out —
/// bounded by the cards and the positions face down, never by the game's length (761 at most
/// measured here).
const CANDIDATES: usize = 1_200;
/// The most bytes of the frame that ends a game.
const GAME_OVER: usize = 6_000;

/// A protocol-2 client for each viewer of a table's room.
struct Watchers {
    fugitive: V2,
    marshal: V2,
    spectator: V2,
}

impl Watchers {
    async fn join(table: &Table, addr: std::net::SocketAddr) -> Watchers {
        let room = &table.seats.room;
        Watchers {
            fugitive: V2::join(addr, room, Some(&table.seats.fugitive_token)).await,
            marshal: V2::join(addr, room, Some(&table.seats.marshal_token)).await,
            spectator: V2::join(addr, room, None).await,
        }
    }

    fn pairs<'a>(&'a mut self, table: &'a Table) -> [(&'a mut V2, &'a Client, Viewer); 3] {
        [
            (&mut self.fugitive, &table.fugitive, Viewer::Fugitive),
            (&mut self.marshal, &table.marshal, Viewer::Marshal),
            (&mut self.spectator, &table.spectator, Viewer::Spectator),
        ]
    }

    /// Each protocol-2 client, once at `version`, holds what its protocol-1 twin was sent.
    async fn agree(&mut self, table: &Table, version: u64) {
        for (v2, v1, viewer) in self.pairs(table) {
            let held = v2.wait_version(version).await;
            assert_eq!(held, held_of(v1.state.as_ref().unwrap()), "{viewer:?} at version {version}");
        }
    }

    /// Each one's held view is what a fresh snapshot shows.
    async fn resync(&mut self, table: &Table) {
        for (v2, _, viewer) in self.pairs(table) {
            let held = v2.held.clone().unwrap();
            assert_eq!(v2.resync().await, held, "{viewer:?}");
        }
    }
}

/// One action of the driver towards `goal` (see `driver::play`); `false` once the game is over.
async fn step(table: &mut Table, choose: impl Fn(Role, &Value, &Value) -> Action) -> bool {
    let fugitive = table.fugitive.state.clone().unwrap();
    let version = fugitive["version"].as_u64().unwrap();
    let marshal = table.marshal.wait_version(version).await;
    let Some(role) = view_of(&fugitive).phase.to_move() else { return false };
    let action = choose(role, &fugitive, &marshal);
    let client = if role == Role::Fugitive { &mut table.fugitive } else { &mut table.marshal };
    let reply = client.act(serde_json::to_value(action).unwrap()).await;
    assert_eq!(reply["ok"], true, "{action:?}: {reply}");
    table.sync(version + 1).await;
    true
}

/// The driver's move towards `goal`.
fn towards(goal: Goal) -> impl Fn(Role, &Value, &Value) -> Action {
    move |role, fugitive, marshal| {
        let trail = view_of(fugitive);
        match role {
            Role::Fugitive => fugitive_move(&trail, &legal_of(fugitive), goal),
            Role::Marshal => marshal_move(&view_of(marshal), &legal_of(marshal), &trail, goal),
        }
    }
}

/// A game that goes on and on: the Fugitive passes whenever he may, the Marshal always guesses
/// a number that is not a hideout (R11a, R13).
fn stalling(role: Role, fugitive: &Value, marshal: &Value) -> Action {
    let trail = view_of(fugitive);
    let (view, legal) = match role {
        Role::Fugitive => (trail.clone(), legal_of(fugitive)),
        Role::Marshal => (view_of(marshal), legal_of(marshal)),
    };
    if let Some(&deck) = legal.draws.first() {
        return Action::Draw { deck };
    }
    match role {
        Role::Fugitive if legal.pass => Action::Pass,
        Role::Fugitive => fugitive_move(&view, &legal, Goal::Escape),
        Role::Marshal => {
            let hidden: fugitive_core::Cards =
                trail.trail.iter().filter(|t| !t.face_up).filter_map(|t| t.card).collect();
            let wrong = legal.guess.expect("she guesses").numbers.difference(hidden);
            Action::Guess { numbers: wrong.first().expect("a wrong number").into() }
        }
    }
}

/// No delta of a running game tells `viewer` more than its view may hold (R19–R21).
fn assert_deltas_hide(client: &V2, viewer: Viewer) {
    let mut checked = 0;
    for (_, delta) in client.frames.iter().filter(|(_, f)| f["type"] == "delta") {
        let over = delta["view"].get("outcome").is_some_and(|o| !o.is_null());
        if over {
            continue; // R18: the end shows everything.
        }
        checked += 1;
        assert!(delta.get("revealed").is_none(), "{delta}");
        for entry in delta["history"].as_array().into_iter().flatten() {
            let entry: Event = serde_json::from_value(entry.clone()).unwrap();
            assert_eq!(entry.seen_by(viewer), entry, "a history entry leaked: {delta}");
        }
        for pair in delta["trail"]["cards"].as_array().into_iter().flatten() {
            let card: TrailCard = serde_json::from_value(pair[1].clone()).unwrap();
            if viewer != Viewer::Fugitive && !card.face_up {
                assert!(card.card.is_none() && card.sprints.is_none(), "a face-down hideout leaked: {delta}");
            }
            if card.card.is_some_and(|c| c.number() == 42) {
                assert!(card.sprints.is_none() || viewer == Viewer::Fugitive, "42's sprints leaked: {delta}");
            }
        }
        let view = &delta["view"];
        assert!(view.get("seed").is_none_or(Value::is_null), "the seed leaked: {delta}");
        for deck in view.get("decks").and_then(Value::as_array).into_iter().flatten() {
            assert!(deck["cards"].is_null(), "a deck's order leaked: {delta}");
        }
        if let Some(hands) = view.get("hands") {
            for role in ["fugitive", "marshal"] {
                if !viewer.role().is_some_and(|r| serde_json::to_value(r).unwrap() == role) {
                    assert!(hands[role]["cards"].is_null(), "the {role}'s hand leaked: {delta}");
                }
            }
        }
        if viewer == Viewer::Spectator {
            assert!(delta.get("legal").is_none_or(Value::is_null), "{delta}");
        }
    }
    assert!(checked > 0, "no delta was checked");
}

/// Sizes of the frames after the reply to `hello` (but the snapshots asked for with `resync`
/// and the frame that ended the game).
#[derive(Debug, Default)]
struct Sizes {
    /// The largest frame, whole.
    largest: usize,
    /// The largest frame without `legal` and `candidates`.
    rest: usize,
    /// The largest `candidates` field.
    candidates: usize,
    /// The frame that ended the game.
    end: Option<usize>,
}

fn sizes_after_hello(client: &V2) -> Sizes {
    let hello = client.frames.iter().position(|(_, f)| f["type"] == "reply").expect("hello's reply");
    let mut sizes = Sizes::default();
    for (size, frame) in client.frames[hello + 1..].iter().filter(|(_, f)| f["type"] != "snapshot") {
        if frame["view"].get("outcome").is_some_and(|o| !o.is_null()) {
            sizes.end = Some(*size);
            continue;
        }
        let mut rest = frame.clone();
        rest.as_object_mut().unwrap().remove("legal");
        let candidates =
            rest.as_object_mut().unwrap().remove("candidates").map_or(0, |c| c.to_string().len());
        sizes.largest = sizes.largest.max(*size);
        sizes.rest = sizes.rest.max(rest.to_string().len());
        sizes.candidates = sizes.candidates.max(candidates);
    }
    sizes
}

/// Every frame after `hello` is small: each without `legal` and `candidates` within [`SMALL`],
/// the candidates within [`CANDIDATES`], and so a spectator's whole frame within both.
fn assert_small(client: &V2, viewer: Viewer) -> Sizes {
    let sizes = sizes_after_hello(client);
    assert!(
        sizes.rest <= SMALL,
        "{viewer:?}: a frame of {} bytes (legal and candidates left out)",
        sizes.rest
    );
    assert!(sizes.candidates <= CANDIDATES, "{viewer:?}: candidates of {} bytes", sizes.candidates);
    if viewer == Viewer::Spectator {
        assert!(sizes.largest <= SMALL + CANDIDATES, "{viewer:?}: a frame of {} bytes", sizes.largest);
    }
    sizes
}

#[tokio::test]
async fn a_v2_client_holds_each_viewers_view_through_a_whole_game_and_a_rematch() {
    let db = TestDb::sqlite();
    let deal = deal_reaching(&[(Goal::Escape, Reason::Escape)], 0).to_string();
    let server = Server::start(&db, &["--deal-seed", &deal]).await;
    let mut table = Table::open(server.addr, json!({ "role": "fugitive" })).await;
    let mut watchers = Watchers::join(&table, server.addr).await;
    let mut held: [Vec<Value>; 3] = Default::default();
    let mut actions = 0;
    while step(&mut table, towards(Goal::Escape)).await {
        actions += 1;
        assert!(actions <= MAX_ACTIONS);
        let version = table.fugitive.version().unwrap();
        watchers.agree(&table, version).await;
        for ((v2, _, _), held) in watchers.pairs(&table).into_iter().zip(&mut held) {
            held.push(v2.as_state());
        }
        if actions % 10 == 0 {
            watchers.resync(&table).await;
        }
    }
    watchers.resync(&table).await;

    // What they held was never more than their view (R19–R21), and was the core's view at each
    // version; no delta said more either.
    let [fugitive_held, marshal_held, spectator_held] = &held;
    assert_hidden(marshal_held, "marshal", 1);
    assert_hidden(spectator_held, "spectator", 1);
    let (setup, played) = replay(server.addr, &table.seats.room, 1).await;
    assert_views_replay(fugitive_held, Viewer::Fugitive, 1, 0, setup, &played);
    assert_views_replay(marshal_held, Viewer::Marshal, 1, 0, setup, &played);
    assert_views_replay(spectator_held, Viewer::Spectator, 1, 0, setup, &played);
    assert_deltas_hide(&watchers.marshal, Viewer::Marshal);
    assert_deltas_hide(&watchers.spectator, Viewer::Spectator);
    for (v2, _, viewer) in watchers.pairs(&table) {
        let Sizes { largest, candidates, end, .. } = assert_small(v2, viewer);
        let end = end.expect("the frame that ends the game");
        println!(
            "{viewer:?}: largest frame after hello {largest} B (candidates at most {candidates} B), the game's end {end} B"
        );
        assert!(end <= GAME_OVER, "{viewer:?}: the game ended in a frame of {end} bytes");
        assert_eq!(v2.gaps, 0);
    }

    // A rematch: the new game comes as a snapshot.
    let version = table.fugitive.version().unwrap();
    for client in [&mut table.fugitive, &mut table.marshal] {
        assert_eq!(client.request(json!({ "type": "rematch" })).await["ok"], true);
    }
    table.sync(version + 1).await;
    watchers.agree(&table, version + 1).await;
    for (v2, _, _) in watchers.pairs(&table) {
        let (_, last) = v2.frames.iter().rev().find(|(_, f)| f["version"] == version + 1).unwrap();
        assert_eq!((last["type"].as_str(), last["game"].as_u64()), (Some("snapshot"), Some(2)));
    }
    server.stop().await;
}

#[tokio::test]
async fn frames_after_hello_stay_small_however_long_the_game_and_a_slow_reader_catches_up() {
    let db = TestDb::sqlite();
    // Small kernel buffers and queues, so that what the slow readers are sent backs up soon.
    let server = Server::start(&db, &["--socket-queue", "4", "--socket-send-buffer", "4096"]).await;
    let mut table = Table::open(server.addr, json!({ "role": "fugitive" })).await;
    let room = table.seats.room.clone();
    // Two spectators that stop reading after hello, with small receive buffers so that what
    // the server sends them backs up into their queues.
    let mut slow_v1 = V2::connect(server.addr, 1, &room, Some(4096)).await;
    let mut slow_v2 = V2::connect(server.addr, 2, &room, Some(4096)).await;
    for slow in [&mut slow_v1, &mut slow_v2] {
        assert_eq!(slow.request(json!({ "type": "hello" })).await["ok"], true);
    }
    let mut watchers = Watchers::join(&table, server.addr).await;
    let target = 500;
    let mut history = 0;
    while history < target {
        assert!(step(&mut table, stalling).await, "the stalling game ended");
        history = view_of(table.fugitive.state.as_ref().unwrap()).history.len();
        let version = table.fugitive.version().unwrap();
        if version % 50 == 0 {
            watchers.agree(&table, version).await;
        }
    }
    let version = table.fugitive.version().unwrap();
    watchers.agree(&table, version).await;
    watchers.resync(&table).await;
    let v1_state = table.spectator.state.as_ref().unwrap().to_string().len();
    for (v2, _, viewer) in watchers.pairs(&table) {
        let Sizes { largest, candidates, .. } = assert_small(v2, viewer);
        let deltas: Vec<usize> =
            v2.frames.iter().filter(|(_, f)| f["type"] == "delta").map(|(size, _)| *size).collect();
        let mean = deltas.iter().sum::<usize>() / deltas.len();
        println!(
            "{viewer:?}: {history} history entries, {} deltas, mean {mean} B, largest frame after hello {largest} B \
             (candidates at most {candidates} B); \
             protocol 1's last spectator state {v1_state} B",
            deltas.len()
        );
        assert_eq!(v2.gaps, 0);
    }

    // The slow readers were not closed: reading again, each finds the current state.
    let current = held_of(table.spectator.state.as_ref().unwrap());
    for (slow, protocol) in [(&mut slow_v1, 1), (&mut slow_v2, 2)] {
        slow.wait_version(version).await;
        assert_eq!(slow.held.as_ref().unwrap(), &current, "protocol {protocol}");
        let states =
            slow.frames.iter().filter(|(_, f)| f["type"] != "reply" && f["type"] != "welcome").count();
        println!("slow reader of protocol {protocol}: {states} state frames for {version} versions");
        assert!(
            states < version as usize,
            "protocol {protocol}: nothing was ever replaced, so nothing backed up"
        );
        assert_eq!(slow.gaps, 0);
    }
    server.stop().await;
}

#[tokio::test]
async fn a_lost_delta_is_mended_by_a_resync() {
    let db = TestDb::sqlite();
    let server = Server::start(&db, &[]).await;
    let mut table = Table::open(server.addr, json!({ "role": "fugitive" })).await;
    let mut watchers = Watchers::join(&table, server.addr).await;
    watchers.spectator.lose_next_delta = true;
    for _ in 0..4 {
        assert!(step(&mut table, stalling).await);
    }
    let version = table.fugitive.version().unwrap();
    watchers.agree(&table, version).await;
    assert_eq!(watchers.spectator.gaps, 1, "the next delta did not apply, and it asked for a resync");
    let snapshots = watchers.spectator.frames.iter().filter(|(_, f)| f["type"] == "snapshot").count();
    assert_eq!(snapshots, 2, "hello's and the resync's");

    // Protocol 2's messages: `v` must be 2, and `resync` needs a `hello` first.
    let mut other = V2::connect(server.addr, 2, &table.seats.room, None).await;
    let reply = other.request(json!({ "type": "resync" })).await;
    assert_eq!(reply["error"]["code"], "hello_first");
    other.send_text(json!({ "v": 1, "seq": 50, "type": "hello" }).to_string()).await;
    assert_eq!(other.reply_to(50).await["error"]["code"], "bad_version");
    assert_eq!(other.request(json!({ "type": "hello" })).await["ok"], true);
    let mut v1 = Client::join(server.addr, &table.seats.room, None).await;
    assert_eq!(v1.request(json!({ "type": "resync" })).await["error"]["code"], "unknown_message");
    server.stop().await;
}
