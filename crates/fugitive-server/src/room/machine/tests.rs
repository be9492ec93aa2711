//! The room without a database: every write's result, failures included, is handed in.
use std::sync::Arc;
use std::time::Instant;

use fugitive_ai::Level;
use fugitive_core::{Action, Cards, Entry, ReplayError, RuleOptions, Seed, Setup};
use uuid::Uuid;

use super::*;
use crate::db::{SeatClaim, StoredAction, StoredGame, StoredRoom, now_ms};
use crate::mailbox::Mailbox;
use crate::model::options::Computer;
use crate::model::seat::hash_secret;
use crate::model::table;
use crate::protocol::Protocol;

/// The clocks, read now.
fn now() -> Now {
    Now { at: Instant::now(), wall_ms: now_ms() }
}

/// A room rebuilt from `stored`, its RNG seeded with sevens.
fn rebuild(id: Uuid, stored: StoredRoom, limits: RoomLimits, now: Now) -> Result<Machine, ReplayError> {
    Ok(Machine::new(Logged::rebuild(id, stored, limits, now)?, now, [7; 32]))
}

const HOST: &str = "host token";
const GUEST: &str = "guest token";

fn limits() -> RoomLimits {
    RoomLimits {
        max_sockets: 4,
        unload_after: Duration::from_secs(60),
        bot_pause: Duration::ZERO,
        deal_seed: None,
    }
}

/// A stored room, the host the Fugitive, both seats claimed, with `actions` in its log.
fn stored(turn_clock_secs: Option<u64>, computer: Computer, actions: Vec<StoredAction>) -> StoredRoom {
    let seqs = actions.iter().filter_map(|a| a.seat.zip(a.client_seq)).collect();
    StoredRoom {
        rules: RuleOptions::default(),
        turn_clock_secs,
        invite_hash: None,
        seats: [Some(hash_secret(HOST)), Some(hash_secret(GUEST))],
        seated_at: Some(now_ms()),
        rematch: [false, false],
        game: StoredGame {
            number: 1,
            setup: Setup { seed: Seed::from(7), rules: RuleOptions::default() },
            fugitive_seat: Seat::Host,
            started_at: now_ms(),
            finished_at: None,
            actions,
        },
        earlier_actions: 0,
        seqs,
        computer,
        table: table::Stored::default(),
    }
}

fn room(turn_clock_secs: Option<u64>, computer: Computer) -> Machine {
    rebuild(Uuid::new_v4(), stored(turn_clock_secs, computer, Vec::new()), limits(), now()).unwrap()
}

fn io() -> JoinIo {
    JoinIo { queue: Mailbox::new(64), protocol: Protocol::V1 }
}

/// Joins a socket; its id and its mailbox, emptied.
fn join_with(room: &mut Machine, token: Option<&str>) -> (u64, Arc<Mailbox>) {
    let queue = Mailbox::new(64);
    let io = JoinIo { queue: queue.clone(), protocol: Protocol::V1 };
    let input = Join { token: token.map(str::to_string), name: None, io, checked: false };
    match room.input(input, now()) {
        Step::Done(Ok(id)) => {
            while queue.try_recv().is_some() {}
            (id, queue)
        }
        other => panic!("{other:?}"),
    }
}

fn join(room: &mut Machine, token: Option<&str>) -> u64 {
    join_with(room, token).0
}

/// How many frames each mailbox holds, emptying them.
fn frames(queues: &[&Arc<Mailbox>]) -> Vec<usize> {
    queues
        .iter()
        .map(|queue| {
            let mut n = 0;
            while queue.try_recv().is_some() {
                n += 1;
            }
            n
        })
        .collect()
}

/// The Fugitive's first legal placement.
fn place(room: &Machine) -> Action {
    let legal = room.game().legal_actions(Role::Fugitive);
    Action::Place { hideout: legal.placements[0].hideout, sprints: Cards::EMPTY }
}

fn to_write<I: Input>(step: Step<I>) -> Write<I> {
    match step {
        Step::Write(write) => *write,
        other => panic!("expected a write, got {other:?}"),
    }
}

fn reply<I: Input<Answer = Reply>>(step: Step<I>) -> Reply {
    match step {
        Step::Done(reply) => reply,
        other => panic!("expected a reply, got {other:?}"),
    }
}

thread_local! {
    /// How many times this thread's rooms made a view's public candidates.
    pub(super) static CANDIDATES_MADE: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
}

/// The last frame in `queue`, as JSON, emptying it.
fn last_frame(queue: &Mailbox) -> serde_json::Value {
    let last = std::iter::from_fn(|| queue.try_recv()).last().expect("a frame");
    serde_json::from_str(last.as_str()).unwrap()
}

#[test]
fn the_public_candidates_are_made_once_per_version_and_viewer() {
    let mut room = room(None, Computer::default());
    let (fugitive, f) = join_with(&mut room, Some(HOST));
    let (_, m) = join_with(&mut room, Some(GUEST));
    let (_, other_m) = join_with(&mut room, Some(GUEST));
    let (_, s) = join_with(&mut room, None);
    let (_, other_s) = join_with(&mut room, None);
    let made = || CANDIDATES_MADE.with(std::cell::Cell::get);
    let before = made();
    let write = to_write(room.request(fugitive, 1, SeatRequest::Action(place(&room)), now()));
    room.written(write, Ok(Stored::Done), None, now());
    assert_eq!(made() - before, 2, "once for her view, once for the spectators', whatever the sockets");
    let [fugitive_state, marshal_state, _, spectator_state, _] =
        [&f, &m, &other_m, &s, &other_s].map(|queue| last_frame(queue));
    assert!(fugitive_state.get("candidates").is_none(), "he knows his trail");
    for state in [&marshal_state, &spectator_state] {
        assert_eq!(state["candidates"]["positions"][0]["position"], 1, "{state}");
    }
    // Another socket joining the same version makes none.
    join(&mut room, None);
    assert_eq!(made() - before, 2);
}

#[test]
fn the_public_candidates_are_counted_again_only_for_new_evidence() {
    use rand::SeedableRng;
    let mut room = room(None, Computer::default());
    let (fugitive, f) = join_with(&mut room, Some(HOST));
    let (marshal, m) = join_with(&mut room, Some(GUEST));
    let (_, s) = join_with(&mut room, None);
    let mut rng = rand::rngs::StdRng::seed_from_u64(28);
    let made = || CANDIDATES_MADE.with(std::cell::Cell::get);
    let (mut actions, mut reused) = (0, 0);
    while let Some(role) = room.game().to_move() {
        let action = room.game().legal_actions(role).sample(&mut rng).expect("a move");
        let socket = if role == Role::Fugitive { fugitive } else { marshal };
        actions += 1;
        let before = made();
        let write = to_write(room.request(socket, actions, SeatRequest::Action(action), now()));
        assert_eq!(reply(room.written(write, Ok(Stored::Done), None, now())), Reply::ok(actions));
        let made = made() - before;
        assert!(made <= 2, "at most hers and the spectators'");
        if made < 2 && !room.game().is_over() {
            reused += 1;
        }
        for (queue, viewer) in [(&f, Viewer::Fugitive), (&m, Viewer::Marshal), (&s, Viewer::Spectator)] {
            let fresh = serde_json::to_value(room.game().view(viewer).candidates()).unwrap();
            let state = last_frame(queue);
            assert_eq!(state.get("candidates").unwrap_or(&serde_json::Value::Null), &fresh, "{viewer:?}");
        }
    }
    // Her draws, for one, change only her evidence: the spectators' candidates stay.
    assert!(reused > 0, "the candidates were counted again after each of {actions} actions");
}

#[test]
fn a_finished_game_keeps_no_spare_copy() {
    use rand::SeedableRng;
    let mut room = room(None, Computer::default());
    let fugitive = join(&mut room, Some(HOST));
    let marshal = join(&mut room, Some(GUEST));
    let mut rng = rand::rngs::StdRng::seed_from_u64(38);
    let mut seq = 0;
    while let Some(role) = room.game().to_move() {
        let action = room.game().legal_actions(role).sample(&mut rng).expect("a move");
        let socket = if role == Role::Fugitive { fugitive } else { marshal };
        seq += 1;
        let write = to_write(room.request(socket, seq, SeatRequest::Action(action), now()));
        assert_eq!(reply(room.written(write, Ok(Stored::Done), None, now())), Reply::ok(seq));
        // The next action is checked on a copy made into the game this one replaced.
        assert_eq!(room.spare.is_some(), !room.game().is_over(), "after action {seq}");
    }
    assert!(room.spare.is_none(), "the finished game of {seq} actions is held once");
}

#[test]
fn an_action_is_told_to_nobody_before_it_is_stored() {
    let mut room = room(None, Computer::default());
    let (fugitive, f) = join_with(&mut room, Some(HOST));
    let (_, m) = join_with(&mut room, Some(GUEST));
    let (_, s) = join_with(&mut room, None);
    frames(&[&f, &m, &s]);
    let action = place(&room);
    let write = to_write(room.request(fugitive, 1, SeatRequest::Action(action), now()));
    assert!(matches!(write.op, WriteOp::Append { game: 1, number: 0, .. }), "{:?}", write.op);
    assert_eq!(frames(&[&f, &m, &s]), [0, 0, 0], "nothing is sent before the write");
    assert_eq!(room.version(), 0);
    let step = room.written(write, Ok(Stored::Done), None, now());
    assert_eq!(reply(step), Reply::ok(1));
    assert_eq!(room.version(), 1);
    assert_eq!(frames(&[&f, &m, &s]), [1, 1, 1], "everyone is told once it is stored");
}

#[test]
fn a_failed_commit_answers_unavailable_and_changes_nothing() {
    let mut room = room(None, Computer::default());
    let (fugitive, f) = join_with(&mut room, Some(HOST));
    let action = place(&room);
    let write = to_write(room.request(fugitive, 1, SeatRequest::Action(action), now()));
    let failed = DbError::Batch(Arc::new(DbError::Corrupt("injected".into())));
    let answer = reply(room.written(write, Err(failed), None, now()));
    assert_eq!(answer.code(), Some(code::UNAVAILABLE));
    assert_eq!(answer.error.as_ref().unwrap().retry_after_ms, None);
    assert_eq!(room.version(), 0, "the game did not change");
    assert!(room.game().actions().is_empty());
    assert_eq!(frames(&[&f]), [0], "nobody was told anything");
    // The write may have been committed all the same: the room is read back first.
    assert!(room.is_stale());
    let Step::Sync(input) = room.request(fugitive, 1, SeatRequest::Action(action), now()) else {
        panic!("a stale room reads the log first");
    };
    // The log does not have it: the retry with the same seq is carried out.
    let fresh =
        Logged::rebuild(room.id(), stored(None, Computer::default(), Vec::new()), limits(), now()).unwrap();
    room.reload(fresh, None, now());
    let write = to_write(room.input(input, now()));
    assert_eq!(reply(room.written(write, Ok(Stored::Done), None, now())), Reply::ok(1));
    assert_eq!(room.version(), 1);
}

#[test]
fn an_overloaded_commit_queue_answers_with_a_retry_hint_and_changes_nothing() {
    let mut room = room(None, Computer::default());
    let fugitive = join(&mut room, Some(HOST));
    let action = place(&room);
    let write = to_write(room.request(fugitive, 1, SeatRequest::Action(action), now()));
    let answer = reply(room.written(write, Err(DbError::Overloaded), None, now()));
    assert!(answer.error.unwrap().retry_after_ms.is_some());
    assert!(!room.is_stale(), "nothing was written: nothing to read back");
    assert_eq!(room.version(), 0);
}

#[test]
fn a_conflict_reads_the_log_and_answers_from_it() {
    // Node B's copy; node A stored the Fugitive's seq 1 first (he reconnected to B and
    // sent it again).
    let mut room = room(None, Computer::default());
    let fugitive = join(&mut room, Some(HOST));
    let action = place(&room);
    let write = to_write(room.request(fugitive, 1, SeatRequest::Action(action), now()));
    let Step::Sync(input) = room.written(write, Err(DbError::Conflict), None, now()) else {
        panic!("a conflict reads the log");
    };
    let theirs = StoredAction {
        role: Role::Fugitive,
        action: action.into(),
        seat: Some(Seat::Host),
        client_seq: Some(1),
        at: now_ms(),
    };
    let log = stored(None, Computer::default(), vec![theirs]);
    let fresh = Logged::rebuild(room.id(), log, limits(), now()).unwrap();
    room.reload(fresh, None, now());
    assert_eq!(room.version(), 1);
    // The seq is in the log: answered ok, not applied twice.
    assert_eq!(reply(room.input(input, now())), Reply::ok(1));
    assert_eq!(room.game().actions().len(), 1);
}

#[test]
fn actions_read_from_the_log_apply_like_our_own() {
    let mut mine = room(None, Computer::default());
    let mut theirs =
        rebuild(mine.id(), stored(None, Computer::default(), Vec::new()), limits(), now()).unwrap();
    let fugitive = join(&mut mine, Some(HOST));
    let (_, watcher) = join_with(&mut theirs, None);
    let action = place(&mine);
    let write = to_write(mine.request(fugitive, 1, SeatRequest::Action(action), now()));
    let WriteOp::Append { record, .. } = write.op.clone() else { panic!() };
    mine.written(write, Ok(Stored::Done), None, now());
    // The other node hears of it and reads it from the log.
    let next = theirs.catch_up(1, 0, &[record]).expect("it follows on");
    theirs.caught_up(&[record], next, None, now());
    assert_eq!(theirs.version(), mine.version());
    assert_eq!(theirs.game().actions(), mine.game().actions());
    assert_eq!(frames(&[&watcher]), [1], "its watcher is told");
    // Its seq is known there too: a retry on that node is answered, not applied.
    let fugitive_there = join(&mut theirs, Some(HOST));
    assert_eq!(reply(theirs.request(fugitive_there, 1, SeatRequest::Action(action), now())), Reply::ok(1));
    // Actions that do not follow on from this copy are refused: the room is read back whole.
    assert!(theirs.catch_up(1, 5, &[record]).is_none());
}

#[test]
fn the_clock_rings_only_on_the_owner_and_a_failed_write_tries_again() {
    let mut room = room(Some(1), Computer::default());
    room.set_shared(true);
    room.set_owner(false, now());
    assert!(room.needs_owner());
    assert_eq!(room.alarm(), None, "not the owner: no alarm");
    let later = Now { at: Instant::now() + Duration::from_secs(2), wall_ms: now_ms() + 2000 };
    assert!(matches!(room.input(TimeOut, later), Step::Done(())));
    room.set_owner(true, now());
    assert!(room.alarm().is_some());
    let write = to_write(room.input(TimeOut, later));
    assert!(matches!(write.op, WriteOp::Append { record: StoredAction { action: Entry::TimeOut, .. }, .. }));
    let failed = DbError::Batch(Arc::new(DbError::Corrupt("injected".into())));
    assert!(matches!(room.written(write, Err(failed), None, later), Step::Done(())));
    assert_eq!(room.version(), 0);
    assert_eq!(room.alarm(), Some(later.at + Duration::from_secs(1)), "the clock tries again in a second");
}

#[test]
fn the_computer_thinks_only_on_the_owner() {
    // The computer is the guest, the Marshal; the host places first, then it is its turn.
    let computer = Computer { bot: Some(Level::Easy), ..Computer::default() };
    let mut room = room(None, computer);
    room.set_shared(true);
    room.set_owner(false, now());
    let fugitive = join(&mut room, Some(HOST));
    room.take_effects();
    for seq in 1..=2 {
        let action = if seq == 1 { place(&room) } else { Action::EndTurn };
        let write = to_write(room.request(fugitive, seq, SeatRequest::Action(action), now()));
        room.written(write, Ok(Stored::Done), None, now());
    }
    assert_eq!(room.game().to_move(), Some(Role::Marshal));
    assert!(room.needs_owner());
    let thinks = |effects: Vec<Effect>| effects.iter().any(|e| matches!(e, Effect::Think { .. }));
    assert!(!thinks(room.take_effects()), "not the owner: it does not think");
    room.set_owner(true, now());
    assert!(thinks(room.take_effects()), "the owner's computer thinks");
    // An answer that reaches a node which lost the lease meanwhile is dropped.
    let version = room.version();
    room.set_owner(false, now());
    let request = Some(SeatRequest::Action(Action::Pass));
    assert!(matches!(room.input(Bot::Thought { version, request }, now()), Step::Done(())));
}

#[test]
fn with_several_nodes_a_token_or_a_refusal_is_checked_against_the_database_first() {
    let mut log = stored(None, Computer::default(), Vec::new());
    log.seats[1] = None;
    let mut room = rebuild(Uuid::new_v4(), log, limits(), now()).unwrap();
    room.set_shared(true);
    // The guest seat was claimed on another node; this copy has not heard of it yet.
    let input = Join { token: Some(GUEST.into()), name: None, io: io(), checked: false };
    let Step::Sync(input) = room.input(input, now()) else { panic!("read back first") };
    let fresh =
        Logged::rebuild(room.id(), stored(None, Computer::default(), Vec::new()), limits(), now()).unwrap();
    room.reload(fresh, None, now());
    assert!(matches!(room.input(input, now()), Step::Done(Ok(_))));
    // A token the database does not know either is refused, once.
    let input = Join { token: Some("nobody's".into()), name: None, io: io(), checked: false };
    let Step::Sync(input) = room.input(input, now()) else { panic!("read back first") };
    assert!(matches!(room.input(input, now()), Step::Done(Err(JoinError::BadToken))));
    // An action this copy refuses is refused only after the log was read.
    room.log.stale = false;
    let fugitive = join(&mut room, Some(HOST));
    let guess = SeatRequest::Action(Action::EndTurn);
    let Step::Sync(input) = room.request(fugitive, 1, guess, now()) else { panic!("read back first") };
    room.log.stale = false;
    let answer = reply(room.input(input, now()));
    assert!(!answer.ok, "{answer:?}");
}

#[test]
fn a_failed_claim_is_unavailable_and_changes_nothing() {
    let mut log = stored(None, Computer::default(), Vec::new());
    log.seats[1] = None;
    log.invite_hash = Some(hash_secret("invite"));
    let mut room = rebuild(Uuid::new_v4(), log, limits(), now()).unwrap();
    let write = to_write(room.input(Claim { invite: "invite".into() }, now()));
    let failed = DbError::Batch(Arc::new(DbError::Corrupt("injected".into())));
    let step = room.written(write, Err(failed), None, now());
    assert!(matches!(step, Step::Done(Err(ClaimError::Unavailable))), "{step:?}");
    assert!(!room.summary().seats.marshal, "the seat is still free");
    // Another node claimed it first: taken, and the room is read back.
    room.log.stale = false;
    let write = to_write(room.input(Claim { invite: "invite".into() }, now()));
    let step = room.written(write, Ok(Stored::Claimed(SeatClaim::Taken)), None, now());
    assert!(matches!(step, Step::Done(Err(ClaimError::Taken))), "{step:?}");
    assert!(room.is_stale());
}

// The turn clock, idleness and the leases, on time handed in: no clock is read, nothing waits.

/// A fixed reading of both clocks, and the same `ms` later.
fn at(start: Now, ms: u64) -> Now {
    Now { at: start.at + Duration::from_millis(ms), wall_ms: start.wall_ms + ms as i64 }
}

/// A room with a turn clock of `secs` whose first turn began at `started` (both seats claimed
/// then), rebuilt at `now`.
fn clocked(secs: u64, started: i64, now: Now) -> Machine {
    let mut log = stored(Some(secs), Computer::default(), Vec::new());
    log.game.started_at = started;
    log.seated_at = Some(started);
    rebuild(Uuid::new_v4(), log, limits(), now).unwrap()
}

#[test]
fn the_clock_runs_from_when_the_turn_began_by_the_wall_clock() {
    let start = now();
    // Rebuilt 400 ms into a turn of 1 s (after a restart, or on another node).
    let room = clocked(1, start.wall_ms - 400, start);
    assert_eq!(room.alarm(), Some(start.at + Duration::from_millis(600)));
    // A turn older than the clock rings at once.
    let late = clocked(1, start.wall_ms - 5_000, start);
    assert_eq!(late.alarm(), Some(start.at));
}

#[test]
fn the_clock_rings_at_its_deadline_and_not_before() {
    let start = now();
    let mut room = clocked(2, start.wall_ms, start);
    assert!(matches!(room.input(TimeOut, at(start, 1_999)), Step::Done(())));
    assert_eq!(room.alarm(), Some(start.at + Duration::from_secs(2)), "an early tick changes nothing");
    let write = to_write(room.input(TimeOut, at(start, 2_000)));
    let WriteOp::Append { record, .. } = &write.op else { panic!("{:?}", write.op) };
    assert_eq!(
        (record.role, record.action, record.at),
        (Role::Fugitive, Entry::TimeOut, start.wall_ms + 2_000)
    );
    assert!(matches!(room.written(write, Ok(Stored::Done), None, at(start, 2_001)), Step::Done(_)));
    assert!(room.game().is_over(), "the Fugitive lost on time");
    assert_eq!(room.alarm(), None, "no clock once the game is over");
}

#[test]
fn r17_no_clock_runs_against_a_seat_nobody_claimed() {
    let start = now();
    let mut log = stored(Some(1), Computer::default(), Vec::new());
    log.seats[1] = None;
    log.seated_at = None;
    log.invite_hash = Some(hash_secret("invite"));
    let mut room = rebuild(Uuid::new_v4(), log, limits(), start).unwrap();
    assert_eq!(room.alarm(), None);
    assert!(!room.needs_owner(), "nothing must happen once");
    // Long after a turn's time, a stray tick loses nobody the game.
    assert!(matches!(room.input(TimeOut, at(start, 60_000)), Step::Done(())));
    assert!(!room.game().is_over());
    // The claim starts the clock, from the claim.
    let claimed = at(start, 61_000);
    let write = to_write(room.input(Claim { invite: "invite".into() }, claimed));
    let step = room.written(write, Ok(Stored::Claimed(SeatClaim::Claimed)), None, claimed);
    assert!(matches!(step, Step::Done(Ok(_))), "{step:?}");
    assert_eq!(room.alarm(), Some(claimed.at + Duration::from_secs(1)));
}

#[test]
fn a_room_is_idle_from_when_its_last_socket_left_and_never_while_its_clock_runs() {
    let start = now();
    let mut room = room(None, Computer::default());
    let socket = join(&mut room, Some(HOST));
    assert_eq!(room.idle_since(), None, "a socket is open");
    room.leave(socket, at(start, 5_000));
    assert_eq!(room.idle_since(), Some(start.at + Duration::from_secs(5)));
    // A running clock keeps a room loaded, socket or not.
    let clocked = clocked(60, start.wall_ms, start);
    assert_eq!(clocked.idle_since(), None);
}

#[test]
fn an_expired_room_closes_every_socket_with_4004() {
    let mut room = room(None, Computer::default());
    let sockets = [join(&mut room, Some(HOST)), join(&mut room, None)];
    room.take_effects();
    room.expire();
    let kicked: Vec<(u64, u16)> = room
        .take_effects()
        .into_iter()
        .filter_map(|effect| match effect {
            Effect::Kick { socket, why } => Some((socket, why.code)),
            _ => None,
        })
        .collect();
    assert_eq!(kicked, sockets.map(|socket| (socket, 4004)));
}

#[test]
fn a_node_without_the_lease_rings_no_clock_until_it_takes_it() {
    let start = now();
    let mut room = clocked(1, start.wall_ms, start);
    room.set_shared(true);
    room.set_owner(false, start);
    assert!(room.needs_owner(), "the clock runs: some node must run it");
    assert_eq!(room.alarm(), None);
    assert!(matches!(room.input(TimeOut, at(start, 5_000)), Step::Done(())));
    room.set_owner(true, at(start, 5_000));
    assert_eq!(room.alarm(), Some(start.at + Duration::from_secs(1)), "the deadline was kept");
    assert!(matches!(room.input(TimeOut, at(start, 5_000)), Step::Write(_)));
}

#[test]
fn a_retried_seq_is_answered_from_memory_and_survives_a_read_back() {
    let mut room = room(None, Computer::default());
    let fugitive = join(&mut room, Some(HOST));
    let action = place(&room);
    let write = to_write(room.request(fugitive, 1, SeatRequest::Action(action), now()));
    assert_eq!(reply(room.written(write, Ok(Stored::Done), None, now())), Reply::ok(1));
    // A refused request is remembered too, with its reply.
    let refused = reply(room.request(fugitive, 2, SeatRequest::Action(action), now()));
    assert!(!refused.ok);
    // The retries are answered without a write.
    assert_eq!(reply(room.request(fugitive, 1, SeatRequest::Action(action), now())), Reply::ok(1));
    assert_eq!(reply(room.request(fugitive, 2, SeatRequest::Action(action), now())), refused);
    // Read back from the log, the room keeps what it remembered.
    let record = StoredAction {
        role: Role::Fugitive,
        action: action.into(),
        seat: Some(Seat::Host),
        client_seq: Some(1),
        at: now_ms(),
    };
    let fresh = Logged::rebuild(room.id(), stored(None, Computer::default(), vec![record]), limits(), now());
    room.reload(fresh.unwrap(), None, now());
    assert_eq!(reply(room.request(fugitive, 2, SeatRequest::Action(action), now())), refused);
    assert_eq!(reply(room.request(fugitive, 1, SeatRequest::Action(action), now())), Reply::ok(1));
}
