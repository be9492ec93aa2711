use std::time::Duration;

use fugitive_core::{Action, Card, Cards, Role, RuleOptions};
use tokio::sync::oneshot;

use super::*;
use crate::db::Db;
use crate::model::options::Computer;
use crate::protocol::{Reply, code};

use crate::room::{Kick, RoomHandle, SeatRequest};
use crate::rooms::Rooms;

async fn rooms(commit: CommitOptions) -> (Rooms, tempfile::TempDir) {
    Rooms::scratch(Duration::from_secs(60), commit).await
}

/// A room with its Fugitive's socket joined.
#[derive(Clone)]
struct Table {
    id: Uuid,
    room: RoomHandle,
    socket: u64,
    /// The socket's frames (unread, but open) and kick.
    _frames: Arc<(Arc<crate::mailbox::Mailbox>, oneshot::Receiver<Kick>)>,
}

impl Table {
    async fn request(&self, seq: u64, request: SeatRequest) -> Reply {
        self.room.request(self.socket, seq, request).await.unwrap()
    }
}

async fn table(rooms: &Rooms) -> Table {
    let created =
        rooms.create(Role::Fugitive, RuleOptions::default(), None, Computer::default()).await.unwrap();
    let room = rooms.get(created.room).await.unwrap();
    let frames = crate::mailbox::Mailbox::new(64);
    let (kick, kicked) = oneshot::channel();
    let protocol = crate::protocol::Protocol::V1;
    let socket = room.join(Some(created.token), None, frames.clone(), protocol, kick).await.unwrap().unwrap();
    Table { id: created.room, room, socket, _frames: Arc::new((frames, kicked)) }
}

fn place(hideout: u8) -> SeatRequest {
    SeatRequest::Action(Action::Place { hideout: Card::new(hideout).unwrap(), sprints: Cards::EMPTY })
}

/// Holds the writer with the first action of its next batch until `queued` more wait.
async fn until_queued(db: &Db, queued: usize) {
    while db.writer.queued() < queued {
        tokio::task::yield_now().await;
    }
}

async fn stored_actions(db: &Db, room: Uuid) -> usize {
    db.load_room(room).await.unwrap().unwrap().game.actions.len()
}

async fn many_rooms_commit_their_actions_in_one_transaction(sqlite_writer: SqliteWriter) {
    let (rooms, _dir) = rooms(CommitOptions { sqlite_writer, ..CommitOptions::default() }).await;
    let db = rooms.db().clone();
    let mut tables = Vec::new();
    for _ in 0..12 {
        tables.push(table(&rooms).await);
    }
    let before = db.commit_stats();
    let gate = db.faults().gate.write().await;
    let mut requests = tokio::task::JoinSet::new();
    for table in tables.clone() {
        requests.spawn(async move { table.request(1, place(1)).await });
    }
    // The writer holds the first; the other eleven wait in its queue.
    until_queued(&db, 11).await;
    drop(gate);
    while let Some(reply) = requests.join_next().await {
        assert_eq!(reply.unwrap(), Reply::ok(1));
    }
    let after = db.commit_stats();
    assert_eq!(after.actions - before.actions, 12);
    assert_eq!(after.batches - before.batches, 1, "twelve rooms' actions, one transaction");
    for table in &tables {
        assert_eq!(stored_actions(&db, table.id).await, 1);
    }
    drop(tables);
    rooms.shut_down().await;
}

async fn a_lone_action_commits_at_once_and_each_batch_is_counted(sqlite_writer: SqliteWriter) {
    let (rooms, _dir) = rooms(CommitOptions { sqlite_writer, ..CommitOptions::default() }).await;
    let db = rooms.db().clone();
    let table = table(&rooms).await;
    let before = db.commit_stats();
    assert_eq!(table.request(1, place(3)).await, Reply::ok(1));
    assert_eq!(table.request(2, SeatRequest::Action(Action::EndTurn)).await, Reply::ok(2));
    let after = db.commit_stats();
    assert_eq!((after.batches - before.batches, after.actions - before.actions), (2, 2));
    assert_eq!(stored_actions(&db, table.id).await, 2);
    drop(table);
    rooms.shut_down().await;
}

async fn a_failed_batch_answers_unavailable_to_every_room_in_it_and_stores_nothing(
    sqlite_writer: SqliteWriter,
) {
    let (rooms, _dir) = rooms(CommitOptions { sqlite_writer, ..CommitOptions::default() }).await;
    let db = rooms.db().clone();
    let mut tables = Vec::new();
    for _ in 0..3 {
        tables.push(table(&rooms).await);
    }
    let before = db.commit_stats();
    db.faults().fail_next_batch.store(true, Ordering::SeqCst);
    let gate = db.faults().gate.write().await;
    let mut requests = tokio::task::JoinSet::new();
    for table in tables.clone() {
        requests.spawn(async move { table.request(1, place(2)).await });
    }
    until_queued(&db, 2).await;
    drop(gate);
    while let Some(reply) = requests.join_next().await {
        let reply = reply.unwrap();
        assert_eq!(reply.code(), Some(code::UNAVAILABLE), "{reply:?}");
        assert_eq!(reply.error.unwrap().retry_after_ms, None, "a failure, not an overload");
    }
    assert_eq!(db.commit_stats(), before, "no transaction committed");
    for table in &tables {
        assert_eq!(stored_actions(&db, table.id).await, 0, "nothing of the batch was stored");
    }
    // Nothing changed in the rooms either: the same placement is still the legal next
    // action, and the retry with the same seq goes through.
    for table in &tables {
        assert_eq!(table.request(1, place(2)).await, Reply::ok(1));
        assert_eq!(stored_actions(&db, table.id).await, 1);
    }
    drop(tables);
    rooms.shut_down().await;
}

async fn an_action_another_node_stored_first_conflicts_alone(sqlite_writer: SqliteWriter) {
    let (rooms, _dir) = rooms(CommitOptions { sqlite_writer, ..CommitOptions::default() }).await;
    let db = rooms.db().clone();
    let [good, raced] = [table(&rooms).await, table(&rooms).await];
    let append = |room: Uuid, at: i64| Append {
        room,
        game: 1,
        number: 0,
        record: StoredAction {
            role: Role::Fugitive,
            action: Action::Place { hideout: Card::new(at as u8).unwrap(), sprints: Cards::EMPTY }.into(),
            seat: None,
            client_seq: None,
            at,
        },
        finished: None,
    };
    // "Another node" stores the raced room's action 0 first.
    db.writer.append(append(raced.id, 1)).await.unwrap();
    let gate = db.faults().gate.write().await;
    let mut appends = tokio::task::JoinSet::new();
    for room in [good.id, raced.id] {
        let writer = db.writer.clone();
        appends.spawn(async move { (room, writer.append(append(room, 2)).await) });
    }
    until_queued(&db, 1).await;
    drop(gate);
    while let Some(result) = appends.join_next().await {
        let (room, result) = result.unwrap();
        if room == good.id {
            assert!(result.is_ok(), "{result:?}");
        } else {
            assert!(matches!(result, Err(DbError::Conflict)), "{result:?}");
        }
    }
    assert_eq!(stored_actions(&db, good.id).await, 1, "the other room's action is stored");
    let stored = db.load_room(raced.id).await.unwrap().unwrap();
    assert_eq!(stored.game.actions.len(), 1);
    assert_eq!(stored.game.actions[0].at, 1, "the first writer's action stays");
    drop([good, raced]);
    rooms.shut_down().await;
}

async fn an_action_of_a_room_that_expired_first_fails_alone(sqlite_writer: SqliteWriter) {
    let (rooms, _dir) = rooms(CommitOptions { sqlite_writer, ..CommitOptions::default() }).await;
    let db = rooms.db().clone();
    let [kept, expired] = [table(&rooms).await, table(&rooms).await];
    let append = |room: Uuid| Append {
        room,
        game: 1,
        number: 0,
        record: StoredAction {
            role: Role::Fugitive,
            action: Action::Place { hideout: Card::new(1).unwrap(), sprints: Cards::EMPTY }.into(),
            seat: None,
            client_seq: None,
            at: crate::db::now_ms(),
        },
        finished: None,
    };
    // Expiry commits first: the room's unfinished game and its seats are gone.
    assert!(db.expire_room(expired.id, crate::db::now_ms() + 60_000).await.unwrap());
    let gate = db.faults().gate.write().await;
    let mut appends = tokio::task::JoinSet::new();
    for room in [kept.id, expired.id] {
        let writer = db.writer.clone();
        appends.spawn(async move { (room, writer.append(append(room)).await) });
    }
    until_queued(&db, 1).await;
    drop(gate);
    while let Some(result) = appends.join_next().await {
        let (room, result) = result.unwrap();
        if room == kept.id {
            assert!(result.is_ok(), "{result:?}");
        } else {
            assert!(matches!(result, Err(DbError::Expired)), "{result:?}");
        }
    }
    assert_eq!(stored_actions(&db, kept.id).await, 1, "the other room's action is stored");
    assert!(db.stale_rooms(crate::db::now_ms() + 60_000).await.unwrap() == vec![kept.id]);
    drop([kept, expired]);
    rooms.shut_down().await;
}

#[tokio::test]
async fn a_full_commit_queue_refuses_at_once_with_a_retry_hint() {
    let (rooms, _dir) = rooms(CommitOptions { max_queue: 1, ..CommitOptions::default() }).await;
    let db = rooms.db().clone();
    let [first, second, third] = [table(&rooms).await, table(&rooms).await, table(&rooms).await];
    let gate = db.faults().gate.write().await;
    let held = tokio::spawn({
        let first = first.clone();
        async move { first.request(1, place(1)).await }
    });
    // The writer took the first action and waits at the gate with it.
    while !db.faults().at_gate.load(Ordering::SeqCst) {
        tokio::task::yield_now().await;
    }
    let queued = tokio::spawn({
        let second = second.clone();
        async move { second.request(1, place(1)).await }
    });
    until_queued(&db, 1).await;
    // The queue is full: the third room is answered now, while the writer is still held.
    let refused = third.request(1, place(1)).await;
    assert_eq!(refused.code(), Some(code::UNAVAILABLE));
    let hint = refused.error.as_ref().unwrap().retry_after_ms.expect("a retry hint");
    assert!((250..500).contains(&hint), "{hint}");
    drop(gate);
    assert_eq!(held.await.unwrap(), Reply::ok(1));
    assert_eq!(queued.await.unwrap(), Reply::ok(1));
    assert_eq!(stored_actions(&db, third.id).await, 0, "the refused action changed nothing");
    // Retried once the queue has room, it goes through.
    assert_eq!(third.request(1, place(1)).await, Reply::ok(1));
    for table in [&first, &second, &third] {
        assert_eq!(stored_actions(&db, table.id).await, 1);
    }
    drop([first, second, third]);
    rooms.shut_down().await;
}

#[tokio::test]
async fn rusqlite_many_rooms_commit_their_actions_in_one_transaction() {
    many_rooms_commit_their_actions_in_one_transaction(SqliteWriter::Rusqlite).await;
}

#[tokio::test]
async fn sqlx_many_rooms_commit_their_actions_in_one_transaction() {
    many_rooms_commit_their_actions_in_one_transaction(SqliteWriter::Sqlx).await;
}

#[tokio::test]
async fn rusqlite_a_lone_action_commits_at_once_and_each_batch_is_counted() {
    a_lone_action_commits_at_once_and_each_batch_is_counted(SqliteWriter::Rusqlite).await;
}

#[tokio::test]
async fn sqlx_a_lone_action_commits_at_once_and_each_batch_is_counted() {
    a_lone_action_commits_at_once_and_each_batch_is_counted(SqliteWriter::Sqlx).await;
}

#[tokio::test]
async fn rusqlite_a_failed_batch_answers_unavailable_to_every_room_in_it_and_stores_nothing() {
    a_failed_batch_answers_unavailable_to_every_room_in_it_and_stores_nothing(SqliteWriter::Rusqlite).await;
}

#[tokio::test]
async fn sqlx_a_failed_batch_answers_unavailable_to_every_room_in_it_and_stores_nothing() {
    a_failed_batch_answers_unavailable_to_every_room_in_it_and_stores_nothing(SqliteWriter::Sqlx).await;
}

#[tokio::test]
async fn rusqlite_an_action_another_node_stored_first_conflicts_alone() {
    an_action_another_node_stored_first_conflicts_alone(SqliteWriter::Rusqlite).await;
}

#[tokio::test]
async fn sqlx_an_action_another_node_stored_first_conflicts_alone() {
    an_action_another_node_stored_first_conflicts_alone(SqliteWriter::Sqlx).await;
}

#[tokio::test]
async fn rusqlite_an_action_of_a_room_that_expired_first_fails_alone() {
    an_action_of_a_room_that_expired_first_fails_alone(SqliteWriter::Rusqlite).await;
}

#[tokio::test]
async fn sqlx_an_action_of_a_room_that_expired_first_fails_alone() {
    an_action_of_a_room_that_expired_first_fails_alone(SqliteWriter::Sqlx).await;
}

/// A room's `touched_at`, as stored.
async fn touched_at(db: &Db, room: Uuid) -> i64 {
    sqlx::query_scalar("SELECT touched_at FROM rooms WHERE id = $1")
        .bind(room.to_string())
        .fetch_one(&db.pool)
        .await
        .unwrap()
}

fn new_room() -> crate::db::NewRoom {
    use crate::model::seat::{Seat, hash_secret};
    crate::db::NewRoom {
        id: Uuid::new_v4(),
        rules: RuleOptions::default(),
        turn_clock_secs: None,
        invite_hash: hash_secret("invite"),
        host_token_hash: hash_secret("token"),
        seed: fugitive_core::Seed::from(1),
        fugitive_seat: Seat::Host,
        computer: Computer::default(),
    }
}

/// Action `number` of `room`'s first game, made at `at`.
fn append_at(room: Uuid, number: usize, at: i64) -> Append {
    Append {
        room,
        game: 1,
        number,
        record: StoredAction {
            role: if number % 2 == 0 { Role::Fugitive } else { Role::Marshal },
            action: Action::Pass.into(),
            seat: None,
            client_seq: None,
            at,
        },
        finished: None,
    }
}

/// Appends each of `appends` in one batch (the writer held until all wait); what each got.
async fn one_batch(db: &Db, appends: Vec<Append>) -> Vec<Result<(), DbError>> {
    let gate = db.faults().gate.write().await;
    let mut waiting = Vec::new();
    for append in appends {
        let writer = db.writer.clone();
        waiting.push(tokio::spawn(async move { writer.append(append).await }));
    }
    while !db.faults().at_gate.load(Ordering::SeqCst) {
        tokio::task::yield_now().await;
    }
    until_queued(db, waiting.len() - 1).await;
    let before = db.commit_stats();
    drop(gate);
    let mut results = Vec::new();
    for waiting in waiting {
        results.push(waiting.await.unwrap());
    }
    assert_eq!(db.commit_stats().batches - before.batches, 1, "one batch");
    results
}

/// `touch_every` (issue 28): an action writes its room's `touched_at` only when that is older
/// than `touch_every`; a room that expired still fails alone; expiry allows for the slack, so a
/// room is never expired within the idle time of its last action, and is once idle that long
/// and `touch_every` more.
async fn touch_every_and_expiry(db: &Db) {
    const EVERY: i64 = 60_000;
    let [kept, stale, expired] = [new_room(), new_room(), new_room()];
    for room in [&kept, &stale, &expired] {
        db.create_room(room).await.unwrap();
    }
    let created = touched_at(db, kept.id).await;
    // The stale room was last touched two intervals ago.
    sqlx::query("UPDATE rooms SET touched_at = $1 WHERE id = $2")
        .bind(created - 2 * EVERY)
        .bind(stale.id.to_string())
        .execute(&db.pool)
        .await
        .unwrap();
    assert!(db.expire_room(expired.id, crate::db::now_ms() + 3 * EVERY).await.unwrap());

    let at = created + 1000;
    let results = one_batch(
        db,
        vec![append_at(kept.id, 0, at), append_at(stale.id, 0, at), append_at(expired.id, 0, at)],
    )
    .await;
    assert!(results[0].is_ok() && results[1].is_ok(), "{results:?}");
    assert!(matches!(results[2], Err(DbError::Expired)), "{results:?}");
    assert_eq!(touched_at(db, kept.id).await, created, "touched less than a minute ago: left");
    assert_eq!(touched_at(db, stale.id).await, at, "touched two minutes ago: written");
    assert_eq!(stored_actions(db, kept.id).await, 1);
    assert_eq!(stored_actions(db, stale.id).await, 1);

    // Idle since before `at + 1` by the actions, but `touched_at` may lag by `EVERY`: not yet.
    assert!(db.stale_rooms(at + 1).await.unwrap().is_empty());
    assert!(!db.expire_room(kept.id, at + 1).await.unwrap());
    // Its next action, 59 s later, still leaves `touched_at`; expiry at that moment keeps it.
    let later = created + EVERY - 1000;
    assert!(one_batch(db, vec![append_at(kept.id, 1, later)]).await[0].is_ok());
    assert_eq!(touched_at(db, kept.id).await, created);
    assert!(!db.expire_room(kept.id, later).await.unwrap(), "its last action is not before the cutoff");
    // Idle since `later` and `EVERY` more: it goes.
    let mut stale_rooms = db.stale_rooms(later + EVERY + 1).await.unwrap();
    stale_rooms.sort();
    let mut expected = vec![kept.id, stale.id];
    expected.sort();
    assert_eq!(stale_rooms, expected);
    assert!(db.expire_room(kept.id, later + EVERY + 1).await.unwrap());
}

fn touching_every_minute(sqlite_writer: SqliteWriter) -> CommitOptions {
    CommitOptions { sqlite_writer, touch_every: Duration::from_secs(60), ..CommitOptions::default() }
}

#[tokio::test]
async fn rusqlite_an_action_touches_its_room_only_when_stale_and_expiry_allows_for_it() {
    let (rooms, _dir) = rooms(touching_every_minute(SqliteWriter::Rusqlite)).await;
    touch_every_and_expiry(rooms.db()).await;
    rooms.shut_down().await;
}

#[tokio::test]
async fn sqlx_an_action_touches_its_room_only_when_stale_and_expiry_allows_for_it() {
    let (rooms, _dir) = rooms(touching_every_minute(SqliteWriter::Sqlx)).await;
    touch_every_and_expiry(rooms.db()).await;
    rooms.shut_down().await;
}

/// A scratch PostgreSQL database on `FUGITIVE_TEST_DATABASE_URL`: its URL, and how to drop it.
async fn postgres_scratch() -> (String, impl AsyncFnOnce()) {
    use sqlx::{Connection, Executor};
    let admin = std::env::var("FUGITIVE_TEST_DATABASE_URL").expect("FUGITIVE_TEST_DATABASE_URL is not set");
    let name = format!("fugitive_writer_{}", Uuid::new_v4().simple());
    let mut conn = sqlx::PgConnection::connect(&admin).await.unwrap();
    conn.execute(format!("CREATE DATABASE {name}").as_str()).await.unwrap();
    conn.close().await.unwrap();
    let (base, _) = admin.rsplit_once('/').unwrap();
    let url = format!("{base}/{name}");
    let drop = async move || {
        let mut conn = sqlx::PgConnection::connect(&admin).await.unwrap();
        conn.execute(format!("DROP DATABASE {name} WITH (FORCE)").as_str()).await.unwrap();
    };
    (url, drop)
}

#[tokio::test]
#[ignore = "needs FUGITIVE_TEST_DATABASE_URL"]
async fn postgres_an_action_touches_its_room_only_when_stale_and_expiry_allows_for_it() {
    let (url, drop_database) = postgres_scratch().await;
    let db = Db::connect_with(&url, touching_every_minute(SqliteWriter::default())).await.unwrap();
    touch_every_and_expiry(&db).await;
    db.close().await;
    drop_database().await;
}

/// The batch's statement on PostgreSQL (issue 28): one statement, no transaction around it,
/// tells the other nodes of exactly the stored actions, each once, each notice under
/// PostgreSQL's 8,000 bytes; a conflicting action is not told.
#[tokio::test]
#[ignore = "needs FUGITIVE_TEST_DATABASE_URL"]
async fn postgres_a_batch_is_one_statement_that_notifies_each_stored_action_once() {
    let (url, drop_database) = postgres_scratch().await;
    let db = Db::connect_with(&url, CommitOptions::default()).await.unwrap();
    let mut rooms = Vec::new();
    for _ in 0..120 {
        let room = new_room();
        db.create_room(&room).await.unwrap();
        rooms.push(room.id);
    }
    // Another node stored the first room's action 0 already.
    db.writer.append(append_at(rooms[0], 0, crate::db::now_ms())).await.unwrap();
    let mut listener = sqlx::postgres::PgListener::connect(&url).await.unwrap();
    listener.listen(crate::db::CHANNEL).await.unwrap();
    let at = crate::db::now_ms();
    let results = one_batch(&db, rooms.iter().map(|&room| append_at(room, 0, at)).collect()).await;
    assert!(matches!(results[0], Err(DbError::Conflict)), "{:?}", results[0]);
    assert!(results[1..].iter().all(Result::is_ok), "{results:?}");
    let mut told = Vec::new();
    while told.len() < rooms.len() - 1 {
        let notice = tokio::time::timeout(Duration::from_secs(10), listener.recv()).await.unwrap().unwrap();
        assert!(notice.payload().len() < 8000, "{} bytes", notice.payload().len());
        for line in notice.payload().lines() {
            let fields: Vec<&str> = line.split(' ').collect();
            assert_eq!(fields[..2], ["a", db.node().to_string().as_str()], "{line}");
            assert_eq!(fields[4..], ["1", "0"], "{line}");
            told.push(Uuid::parse_str(fields[3]).unwrap());
        }
    }
    told.sort();
    let mut expected = rooms[1..].to_vec();
    expected.sort();
    assert_eq!(told, expected, "every stored action once");
    assert!(tokio::time::timeout(Duration::from_millis(300), listener.recv()).await.is_err(), "no more");
    db.close().await;
    drop_database().await;
}
