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
