//! Around the table (issue 13): names and the spectator count.

mod common;

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
