use fugitive_core::Role;

use super::*;
use crate::model::seat::hash_secret;

async fn db() -> (Db, tempfile::TempDir) {
    let dir = tempfile::tempdir().unwrap();
    let db = Db::connect(&format!("sqlite://{}", dir.path().join("db.db").display())).await.unwrap();
    (db, dir)
}

fn new_room() -> NewRoom {
    NewRoom {
        id: Uuid::new_v4(),
        rules: RuleOptions::default(),
        turn_clock_secs: None,
        invite_hash: hash_secret("invite"),
        host_token_hash: hash_secret("token"),
        seed: Seed::from(1),
        fugitive_seat: Seat::Host,
        computer: Computer::default(),
    }
}

#[tokio::test]
async fn expiry_spares_a_room_touched_after_it_was_selected() {
    let (db, _dir) = db().await;
    let room = new_room();
    db.create_room(&room).await.unwrap();
    let cutoff = now_ms() + 1;
    assert_eq!(db.stale_rooms(cutoff).await.unwrap(), vec![room.id]);
    // A move lands between the selection and the deletion: the deletion checks again.
    let record = StoredAction {
        role: Role::Fugitive,
        action: fugitive_core::Action::Pass.into(),
        seat: Some(Seat::Host),
        client_seq: Some(1),
        at: cutoff + 1000,
    };
    db.append_action(room.id, 1, 0, &record, None).await.unwrap();
    assert!(!db.expire_room(room.id, cutoff).await.unwrap(), "a room touched since is not expired");
    let stored = db.load_room(room.id).await.unwrap().expect("the room is still there");
    assert_eq!(stored.game.actions, vec![record]);
    // Idle again past a later cutoff, it goes.
    assert!(db.expire_room(room.id, cutoff + 2000).await.unwrap());
    assert!(db.load_room(room.id).await.unwrap().is_none());
    assert!(!db.expire_room(room.id, cutoff + 2000).await.unwrap(), "once");
}

#[tokio::test]
async fn a_claim_after_the_room_expired_finds_it_gone_not_taken() {
    let (db, _dir) = db().await;
    let room = new_room();
    db.create_room(&room).await.unwrap();
    assert!(db.expire_room(room.id, now_ms() + 1).await.unwrap());
    assert_eq!(db.claim_guest_seat(room.id, &hash_secret("guest")).await.unwrap(), SeatClaim::Gone);
    let other = new_room();
    db.create_room(&other).await.unwrap();
    assert_eq!(db.claim_guest_seat(other.id, &hash_secret("a")).await.unwrap(), SeatClaim::Claimed);
    assert_eq!(db.claim_guest_seat(other.id, &hash_secret("b")).await.unwrap(), SeatClaim::Taken);
}
