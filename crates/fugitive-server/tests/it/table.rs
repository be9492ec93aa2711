//! Around the table (issue 13): names and the spectator count.

use crate::common;

use common::{Client, Server, Table, TestDb};
use serde_json::{Value, json};

fn room_of(client: &Client) -> Value {
    client.state.as_ref().unwrap()["room"].clone()
}

#[tokio::test]
async fn names_are_shown_to_everyone_and_checked() {
    let db = TestDb::sqlite();
    let server = Server::start(&db, &[]).await;
    let seats = common::create_room(server.addr, json!({ "role": "fugitive" })).await;
    let mut fugitive = Client::connect(server.addr, &seats.room).await;
    // A control character or a 25th character refuses the hello; the socket may try again.
    let bad =
        fugitive.request(json!({ "type": "hello", "token": seats.fugitive_token, "name": "Ada\n" })).await;
    assert_eq!(bad["error"]["code"], "bad_name", "{bad}");
    let long = "ä".repeat(25);
    let bad = fugitive.request(json!({ "type": "hello", "token": seats.fugitive_token, "name": long })).await;
    assert_eq!(bad["error"]["code"], "bad_name", "{bad}");
    assert!(fugitive.state.is_none(), "a refused hello joins nothing");
    let ok = fugitive
        .request(json!({ "type": "hello", "token": seats.fugitive_token, "name": "  Ада 🦊 " }))
        .await;
    assert_eq!(ok["ok"], true, "{ok}");
    assert_eq!(room_of(&fugitive)["names"], json!({ "fugitive": "Ада 🦊", "marshal": null }));

    let mut marshal = Client::connect(server.addr, &seats.room).await;
    let reply =
        marshal.request(json!({ "type": "hello", "token": seats.marshal_token, "name": "渡辺" })).await;
    assert_eq!(reply["ok"], true);
    let names = json!({ "fugitive": "Ада 🦊", "marshal": "渡辺" });
    assert_eq!(room_of(&marshal)["names"], names);
    fugitive.wait_state(|s| s["room"]["names"] == names).await;

    // A spectator's name is ignored, and it may not rename anyone.
    let mut spectator = Client::connect(server.addr, &seats.room).await;
    let reply = spectator.request(json!({ "type": "hello", "name": "Eve" })).await;
    assert_eq!(reply["ok"], true);
    assert_eq!(room_of(&spectator)["names"], names);
    let reply = spectator.request(json!({ "type": "name", "name": "Mallory" })).await;
    assert_eq!(reply["error"]["code"], "spectator");

    // A player renames himself; everyone sees it; a bad name changes nothing.
    let reply = marshal.request(json!({ "type": "name", "name": "Watanabe" })).await;
    assert_eq!(reply["ok"], true, "{reply}");
    let renamed = json!({ "fugitive": "Ада 🦊", "marshal": "Watanabe" });
    spectator.wait_state(|s| s["room"]["names"] == renamed).await;
    let reply = marshal.request(json!({ "type": "name", "name": "tab\there" })).await;
    assert_eq!(reply["error"]["code"], "bad_name");
    // An empty name clears it.
    let reply = fugitive.request(json!({ "type": "name", "name": "" })).await;
    assert_eq!(reply["ok"], true);
    spectator.wait_state(|s| s["room"]["names"]["fugitive"].is_null()).await;
    assert_eq!(room_of(&spectator)["names"]["marshal"], "Watanabe");

    // A name is kept by the seat across sockets and restarts; a hello without one keeps it.
    server.stop().await;
    let server = Server::start(&db, &[]).await;
    let marshal = Client::join(server.addr, &seats.room, Some(&seats.marshal_token)).await;
    assert_eq!(room_of(&marshal)["names"], json!({ "fugitive": null, "marshal": "Watanabe" }));
    server.stop().await;
}

#[tokio::test]
async fn the_spectators_are_counted_for_everyone() {
    let db = TestDb::sqlite();
    let server = Server::start(&db, &[]).await;
    let mut table = Table::open(server.addr, json!({ "role": "fugitive" })).await;
    assert_eq!(room_of(&table.spectator)["spectators"], 1);
    table.fugitive.wait_state(|s| s["room"]["spectators"] == 1).await;
    let second = Client::join(server.addr, &table.seats.room, None).await;
    assert_eq!(room_of(&second)["spectators"], 2);
    table.marshal.wait_state(|s| s["room"]["spectators"] == 2).await;
    table.spectator.wait_state(|s| s["room"]["spectators"] == 2).await;
    second.close().await;
    table.fugitive.wait_state(|s| s["room"]["spectators"] == 1).await;
    // Players are not spectators.
    let again = Client::join(server.addr, &table.seats.room, Some(&table.seats.marshal_token)).await;
    assert_eq!(room_of(&again)["spectators"], 1);
    server.stop().await;
}

/// Reads frames until a `chat` frame; returns it.
async fn next_chat(client: &mut Client) -> Value {
    loop {
        let frame = client.recv().await;
        if frame["type"] == "chat" {
            return frame;
        }
    }
}

#[tokio::test]
async fn the_players_chat_and_spectators_read_only_when_both_allow_it() {
    let db = TestDb::sqlite();
    let server = Server::start(&db, &[]).await;
    let mut table = Table::open(server.addr, json!({ "role": "fugitive" })).await;

    let reply = table.fugitive.request(json!({ "type": "chat", "text": " Bonne chance ! " })).await;
    assert_eq!(reply["ok"], true, "{reply}");
    let chat = next_chat(&mut table.marshal).await;
    assert_eq!(chat["full"], false);
    assert_eq!(chat["messages"][0]["from"], "fugitive");
    assert_eq!(chat["messages"][0]["text"], "Bonne chance !");
    assert_eq!(chat["messages"][0]["n"], 1);
    let reply = table.marshal.request(json!({ "type": "chat", "quick": "good_luck" })).await;
    assert_eq!(reply["ok"], true);
    let chat = next_chat(&mut table.fugitive).await;
    assert_eq!(chat["messages"][0]["quick"], "good_luck");
    assert_eq!(chat["messages"][0]["from"], "marshal");
    assert!(chat["messages"][0].get("text").is_none());

    // Refused messages change nothing.
    for (message, code) in [
        (json!({ "type": "chat", "text": "line\nbreak" }), "bad_chat"),
        (json!({ "type": "chat", "text": "x".repeat(201) }), "bad_chat"),
        (json!({ "type": "chat", "text": "" }), "bad_chat"),
        (json!({ "type": "chat", "quick": "my_hideout_is_17" }), "malformed"),
    ] {
        let reply = table.marshal.request(message).await;
        assert_eq!(reply["error"]["code"], code, "{reply}");
    }
    // A spectator may not write, and reads nothing until both players allow it.
    let reply = table.spectator.request(json!({ "type": "chat", "text": "hi" })).await;
    assert_eq!(reply["error"]["code"], "spectator");
    let reply = table.fugitive.request(json!({ "type": "chat_spectators", "allow": true })).await;
    assert_eq!(reply["ok"], true);
    table.spectator.wait_state(|s| s["room"]["chat_spectators"]["fugitive"] == true).await;
    assert!(table.spectator.frames.iter().all(|f| f["type"] != "chat"), "one allowing is not enough");
    let late = Client::join(server.addr, &table.seats.room, None).await;
    assert!(late.frames.iter().all(|f| f["type"] != "chat"));
    let reply = table.marshal.request(json!({ "type": "chat_spectators", "allow": true })).await;
    assert_eq!(reply["ok"], true);
    let chat = next_chat(&mut table.spectator).await;
    assert_eq!(chat["full"], true);
    assert_eq!(chat["messages"].as_array().unwrap().len(), 2);
    let reply = table.fugitive.request(json!({ "type": "chat", "text": "gg" })).await;
    assert_eq!(reply["ok"], true);
    assert_eq!(next_chat(&mut table.spectator).await["messages"][0]["text"], "gg");
    // Taking it back clears the spectators' chat.
    let reply = table.marshal.request(json!({ "type": "chat_spectators", "allow": false })).await;
    assert_eq!(reply["ok"], true);
    let chat = next_chat(&mut table.spectator).await;
    assert_eq!((chat["full"].clone(), chat["messages"].clone()), (json!(true), json!([])));

    // A reconnect and a restart show the chat again.
    server.stop().await;
    let server = Server::start(&db, &[]).await;
    let marshal = Client::join(server.addr, &table.seats.room, Some(&table.seats.marshal_token)).await;
    let chat = marshal.frames.iter().find(|f| f["type"] == "chat").expect("the history").clone();
    let texts: Vec<Value> = chat["messages"].as_array().unwrap().iter().map(|m| m["text"].clone()).collect();
    assert_eq!(texts, [json!("Bonne chance !"), Value::Null, json!("gg")]);
    assert_eq!(room_of(&marshal)["chat_spectators"], json!({ "fugitive": true, "marshal": false }));
    assert_eq!(room_of(&marshal)["computer"], Value::Null, "two people: no computer");
    server.stop().await;
}

#[tokio::test]
async fn chat_is_rate_limited_per_seat() {
    let db = TestDb::sqlite();
    let server = Server::start(&db, &[]).await;
    let mut table = Table::open(server.addr, json!({ "role": "fugitive" })).await;
    // A burst of 5, then `chat_too_fast` (the refill is one message per 5 seconds).
    let mut codes = Vec::new();
    for i in 0..7 {
        let reply = table.fugitive.request(json!({ "type": "chat", "text": format!("{i}") })).await;
        codes.push(reply["error"]["code"].as_str().unwrap_or("ok").to_string());
    }
    assert_eq!(codes[..5], ["ok"; 5]);
    assert_eq!(codes[6], "chat_too_fast", "{codes:?}");
    // The other seat has its own allowance.
    let reply = table.marshal.request(json!({ "type": "chat", "quick": "thinking" })).await;
    assert_eq!(reply["ok"], true);
    server.stop().await;
}

/// The player on `client` resigns; everyone waits for the game's end.
async fn resign(client: &mut Client) {
    let reply = client.act(json!({ "type": "resign" })).await;
    assert_eq!(reply["ok"], true, "{reply}");
}

async fn rematch(host: &mut Client, guest: &mut Client, game: u64) {
    for client in [&mut *host, &mut *guest] {
        let reply = client.request(json!({ "type": "rematch" })).await;
        assert_eq!(reply["ok"], true, "{reply}");
    }
    host.wait_state(|s| s["game"] == game).await;
    guest.wait_state(|s| s["game"] == game).await;
}

#[tokio::test]
async fn a_best_of_3_series_counts_by_seat_and_ends() {
    let db = TestDb::sqlite();
    let server = Server::start(&db, &[]).await;
    let (status, body) = server.http("POST", "/api/rooms", Some(&json!({ "best_of": 4 }))).await;
    assert_eq!((status, body["error"].clone()), (400, json!("bad_request")), "{body}");
    // The host plays the Fugitive first; `host` and `guest` keep their seats across rematches.
    let table = Table::open(server.addr, json!({ "role": "fugitive", "best_of": 3 })).await;
    let (mut host, mut guest, mut spectator) = (table.fugitive, table.marshal, table.spectator);
    let series = |c: &Client| room_of(c)["series"].clone();
    assert_eq!(
        series(&spectator),
        json!({ "wins": { "fugitive": 0, "marshal": 0 }, "best_of": 3, "winner": null })
    );

    resign(&mut host).await; // the guest (Marshal) wins game 1
    spectator.wait_state(|s| s["room"]["series"]["wins"]["marshal"] == 1).await;
    rematch(&mut host, &mut guest, 2).await;
    // Roles swapped: the guest's win is now under the Fugitive.
    assert_eq!(series(&host)["wins"], json!({ "fugitive": 1, "marshal": 0 }));
    resign(&mut guest).await; // the host (Marshal) wins game 2
    spectator.wait_state(|s| s["room"]["series"]["wins"] == json!({ "fugitive": 1, "marshal": 1 })).await;
    rematch(&mut host, &mut guest, 3).await;
    resign(&mut host).await; // the guest (Marshal) wins game 3: 2–1, the series
    let state = spectator.wait_state(|s| s["room"]["series"]["winner"] == "marshal").await;
    assert_eq!(state["room"]["series"]["wins"], json!({ "fugitive": 1, "marshal": 2 }));
    let reply = host.request(json!({ "type": "rematch" })).await;
    assert_eq!(reply["error"]["code"], "no_rematch", "the series is over");

    // The score is counted from the games' logs: a restart keeps it.
    server.stop().await;
    let server = Server::start(&db, &[]).await;
    let spectator = Client::join(server.addr, &table.seats.room, None).await;
    assert_eq!(
        series(&spectator),
        json!({ "wins": { "fugitive": 1, "marshal": 2 }, "best_of": 3, "winner": "marshal" })
    );
    server.stop().await;
}

#[tokio::test]
async fn the_summary_says_whose_turn_it_is_and_how_the_game_ended() {
    let db = TestDb::sqlite();
    let server = Server::start(&db, &[]).await;
    let mut table = Table::open(server.addr, json!({ "role": "fugitive" })).await;
    let path = format!("/api/rooms/{}", table.seats.room);
    let (status, summary) = server.http("GET", &path, None).await;
    assert_eq!(status, 200);
    assert_eq!((summary["to_move"].clone(), summary["outcome"].clone()), (json!("fugitive"), Value::Null));
    assert_eq!(summary["names"], json!({ "fugitive": null, "marshal": null }));
    resign(&mut table.marshal).await;
    let (_, summary) = server.http("GET", &path, None).await;
    assert_eq!(summary["to_move"], Value::Null);
    assert_eq!(summary["outcome"], json!({ "winner": "fugitive", "reason": "resignation" }));
    server.stop().await;
}

#[tokio::test]
async fn a_slow_game_with_a_days_long_clock_is_not_expired_while_the_clock_runs() {
    let db = TestDb::sqlite();
    let server = Server::start(&db, &["--room-idle-ttl", "3s", "--expiry-interval", "200ms"]).await;
    let (status, body) =
        server.http("POST", "/api/rooms", Some(&json!({ "turn_clock_secs": 604_801 }))).await;
    assert_eq!(status, 400, "{body}");
    let slow = Table::open(server.addr, json!({ "role": "fugitive", "turn_clock_secs": 3 * 86_400 })).await;
    let clock = &room_of(&slow.fugitive)["clock"];
    assert_eq!((clock["turn_secs"].clone(), clock["role"].clone()), (json!(259_200), json!("fugitive")));
    // A room without a clock, idle as long, expires in the same sweeps; the slow one stays.
    let idle = common::create_room(server.addr, json!({})).await;
    let mut watcher = Client::join(server.addr, &idle.room, None).await;
    assert_eq!(watcher.closed().await, Some(4004));
    let (status, summary) = server.http("GET", &format!("/api/rooms/{}", slow.seats.room), None).await;
    assert_eq!((status, summary["turn_clock_secs"].clone()), (200, json!(259_200)));
    server.stop().await;
}
