//! A player who drops the connection right after a move (issue 9, defect 13): the server must
//! not panic, the opponent must see the player gone, and `fugitive_sockets` must come back to
//! 0. Alone in its test binary: the metrics recorder is process-wide, so no other test's
//! sockets may count here.

mod common;

use common::{Client, PATIENCE, Server, TestDb, create_room, http_text};
use serde_json::json;

/// The value of the `fugitive_sockets` gauge.
async fn sockets_gauge(server: &Server) -> f64 {
    let (_, text) = http_text(server.addr, "GET", "/metrics", None).await;
    text.lines()
        .find_map(|line| line.strip_prefix("fugitive_sockets "))
        .map_or(0.0, |value| value.trim().parse().unwrap())
}

/// The gauge counts every server of the process: the two tests never run at once.
static ONE_AT_A_TIME: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());

#[tokio::test]
async fn sqlite_drops_right_after_a_move_leave_no_presence_and_no_socket_behind() {
    let _alone = ONE_AT_A_TIME.lock().await;
    drops(TestDb::sqlite()).await;
}

#[tokio::test]
#[ignore = "needs FUGITIVE_TEST_DATABASE_URL"]
async fn postgres_drops_right_after_a_move_leave_no_presence_and_no_socket_behind() {
    let _alone = ONE_AT_A_TIME.lock().await;
    drops(TestDb::postgres().await).await;
}

async fn drops(db: TestDb) {
    let server = Server::start(&db, &[]).await;
    for attempt in 0..40 {
        let seats = create_room(server.addr, json!({ "role": "fugitive" })).await;
        let mut fugitive = Client::join(server.addr, &seats.room, Some(&seats.fugitive_token)).await;
        // The Fugitive leaves the Marshal's arrival unread.
        let mut marshal = Client::join(server.addr, &seats.room, Some(&seats.marshal_token)).await;
        let legal = fugitive.state.as_ref().unwrap()["legal"].clone();
        let place = json!({ "v": 1, "seq": 1, "type": "action",
            "action": { "type": "place", "hideout": legal["placements"][0]["hideout"] } });
        fugitive.send_text(place.to_string()).await;
        // Gone while the server stores the move, with the server's frames unread: the kernel
        // resets the connection, and the server's next write fails.
        tokio::time::sleep(std::time::Duration::from_micros(attempt % 8 * 250)).await;
        drop(fugitive);
        let gone = marshal.wait_state(|s| s["room"]["presence"]["fugitive"] == false).await;
        assert_eq!(gone["room"]["presence"]["marshal"], true);
        marshal.close().await;
    }
    let deadline = tokio::time::Instant::now() + PATIENCE;
    loop {
        let open = sockets_gauge(&server).await;
        if open == 0.0 {
            break;
        }
        assert!(tokio::time::Instant::now() < deadline, "fugitive_sockets stays at {open}");
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    server.stop().await;
    db.drop_database().await;
}
