//! How each [`Input`] is carried out: its checks, the write it asks for, what follows once the
//! write is stored, and its answer when the database cannot be read.

use std::time::Duration;

use fugitive_core::{ActionError, Entry, Game, Seed, Setup};
use rand::Rng;

use super::command::{
    Appended, Bot, Claim, ClaimError, Claimed, Claiming, Input, Join, JoinError, Named, Request, SeatInput,
    SeatRequest, SeatThen, Step, Stored, Table, TableThen, TimeOut, Write, WriteOp,
};
use super::seats::{Memo, Recall};
use super::{Machine, overloaded, unavailable};
use crate::db::{DbError, Rematched, SeatClaim, StoredAction};
use crate::model::options::deal;
use crate::model::seat::{Seat, hash_secret, new_secret_from};
use crate::model::table::{ChatLine, TableRequest};
use crate::protocol::{Notepad, Reply, code};

/// A seat's request, from a socket ([`Request`]) or from the computer ([`Bot`]): the two are
/// carried out alike and differ in how they end.
pub(super) trait SeatCommand: Input<Then = (SeatInput, SeatThen)> {
    /// The request as this input.
    fn seat(input: SeatInput) -> Self;
    /// The answer to a repeated `seq`: the reply given before.
    fn repeat(reply: Reply) -> Self::Answer;
    /// Ends the request with `reply`, remembered as `memo` says.
    fn finish(machine: &mut Machine, input: SeatInput, reply: Reply, memo: Memo) -> Self::Answer;
}

impl SeatCommand for Request {
    fn seat(input: SeatInput) -> Request {
        Request(input)
    }

    fn repeat(reply: Reply) -> Reply {
        reply
    }

    fn finish(machine: &mut Machine, input: SeatInput, reply: Reply, memo: Memo) -> Reply {
        machine.remember(input.seat, input.seq, &reply, memo);
        reply
    }
}

impl Input for Request {
    type Answer = Reply;
    type Then = (SeatInput, SeatThen);

    fn run(self, machine: &mut Machine) -> Step<Request> {
        machine.seat(self.0)
    }

    fn written(
        write: Write<Request>,
        result: Result<Stored, DbError>,
        notepad: Option<Notepad>,
        machine: &mut Machine,
    ) -> Step<Request> {
        machine.seat_written(write.then, result, notepad)
    }

    fn give_up(self, machine: &mut Machine) -> Reply {
        Request::finish(machine, self.0, unavailable(self.0.seq), Memo::Forget)
    }

    fn next_game((_, then): &(SeatInput, SeatThen)) -> Option<&Game> {
        then.next_game()
    }
}

impl SeatCommand for Bot {
    fn seat(input: SeatInput) -> Bot {
        Bot::Seat(input)
    }

    fn repeat(_: Reply) {}

    fn finish(machine: &mut Machine, input: SeatInput, reply: Reply, memo: Memo) {
        machine.remember(input.seat, input.seq, &reply, memo);
        let request = Some(input.request);
        if reply.code() == Some(code::UNAVAILABLE) {
            machine.bot_retry(machine.log.version, request);
        } else if !reply.ok && !machine.log.game.is_over() {
            // Refused: the same view would give the same request; wait for news.
            tracing::warn!(room = %machine.log.id, ?request, ?reply, "the computer opponent's move did not go through");
        }
    }
}

impl Input for Bot {
    type Answer = ();
    type Then = (SeatInput, SeatThen);

    fn run(self, machine: &mut Machine) -> Step<Bot> {
        let (version, request) = match self {
            Bot::Seat(input) => return machine.seat(input),
            Bot::Thought { version, request } => (version, request),
        };
        machine.thinking = None;
        if !machine.owner || machine.log.computer.bot.is_none() {
            return Step::Done(());
        }
        if version != machine.log.version {
            // Overtaken (a resignation, a clock, another node): think again.
            machine.wake_bot();
            return Step::Done(());
        }
        let Some(request) = request else {
            tracing::warn!(room = %machine.log.id, "the computer opponent found nothing to do");
            return Step::Done(());
        };
        let seq = machine.seqs[Seat::Guest.index()].last + 1;
        machine.seat(SeatInput { seat: Seat::Guest, seq, request, checked: false })
    }

    fn written(
        write: Write<Bot>,
        result: Result<Stored, DbError>,
        notepad: Option<Notepad>,
        machine: &mut Machine,
    ) -> Step<Bot> {
        machine.seat_written(write.then, result, notepad)
    }

    /// The computer asks again in a second.
    fn give_up(self, machine: &mut Machine) {
        match self {
            Bot::Thought { version, request } => machine.bot_retry(version, request),
            Bot::Seat(input) => Bot::finish(machine, input, unavailable(input.seq), Memo::Forget),
        }
    }

    fn next_game((_, then): &(SeatInput, SeatThen)) -> Option<&Game> {
        then.next_game()
    }
}

impl SeatThen {
    fn next_game(&self) -> Option<&Game> {
        match self {
            SeatThen::Append(Appended { next, .. }) | SeatThen::Rematch { next, .. } => Some(next),
        }
    }
}

impl Input for TimeOut {
    type Answer = ();
    type Then = Appended;

    fn run(self, machine: &mut Machine) -> Step<TimeOut> {
        let now = machine.now;
        if !machine.owner || machine.log.clock.is_none_or(|clock| clock.deadline > now.at) {
            // Not ours, or the clock was restarted or stopped meanwhile.
            return Step::Done(());
        }
        let Some(role) = machine.log.game.to_move() else {
            machine.log.clock = None;
            return Step::Done(());
        };
        let record =
            StoredAction { role, action: Entry::TimeOut, seat: None, client_seq: None, at: now.wall_ms };
        match machine.append(record) {
            Ok((op, then)) => Step::Write(Box::new(Write { op, input: TimeOut, then })),
            Err(_) => Step::Done(()),
        }
    }

    fn written(
        write: Write<TimeOut>,
        result: Result<Stored, DbError>,
        notepad: Option<Notepad>,
        machine: &mut Machine,
    ) -> Step<TimeOut> {
        match result {
            Ok(_) => {
                machine.appended(write.then, notepad);
                Step::Done(())
            }
            Err(error) => {
                machine.append_failed(&error);
                TimeOut.give_up(machine);
                Step::Done(())
            }
        }
    }

    /// The database is down: the clock tries again shortly rather than lose the time-out.
    fn give_up(self, machine: &mut Machine) {
        let retry = machine.now.at + Duration::from_secs(1);
        if let Some(clock) = machine.log.clock.as_mut() {
            clock.deadline = retry;
        }
    }

    fn next_game(then: &Appended) -> Option<&Game> {
        Some(&then.next)
    }
}

impl Input for Table {
    type Answer = Reply;
    type Then = TableThen;
    const READS_THE_LOG: bool = false;

    fn run(self, machine: &mut Machine) -> Step<Table> {
        let Table { seat, seq, ref request } = self;
        let (op, then) = match request.clone() {
            TableRequest::Name(name) => {
                if machine.log.names[seat.index()] == name {
                    machine.broadcast();
                    return Step::Done(Reply::ok(seq));
                }
                (WriteOp::Name { seat, name: name.clone() }, TableThen::Name(name))
            }
            TableRequest::Chat(body) => {
                if !machine.chat_buckets[seat.index()].take(machine.now.at) {
                    let message = "too many chat messages: 5 at once, then one every 5 seconds";
                    return Step::Done(Reply::error(Some(seq), code::CHAT_TOO_FAST, message));
                }
                let line =
                    ChatLine { number: machine.log.chat_last + 1, seat, body, at: machine.now.wall_ms };
                (WriteOp::Chat(line.clone()), TableThen::Chat(line))
            }
            TableRequest::ChatSpectators(allow) => {
                (WriteOp::ChatPublic { seat, allow }, TableThen::ChatPublic(allow))
            }
        };
        Step::Write(Box::new(Write { op, input: self, then }))
    }

    fn written(
        write: Write<Table>,
        result: Result<Stored, DbError>,
        _: Option<Notepad>,
        machine: &mut Machine,
    ) -> Step<Table> {
        let Table { seat, seq, .. } = write.input;
        if let Err(error) = result {
            let what = match write.then {
                TableThen::Name(_) => "a name",
                TableThen::Chat(_) => "a chat message",
                TableThen::ChatPublic(_) => "a chat setting",
            };
            tracing::error!(room = %machine.log.id, %error, "could not store {what}");
            return Step::Done(unavailable(seq));
        }
        match write.then {
            TableThen::Name(name) => {
                machine.log.names[seat.index()] = name;
                machine.broadcast();
            }
            TableThen::Chat(line) => machine.add_chat(vec![line]),
            TableThen::ChatPublic(allow) => {
                let mut public = machine.log.chat_public;
                public[seat.index()] = allow;
                machine.set_chat_public(public);
            }
        }
        Step::Done(Reply::ok(seq))
    }

    fn give_up(self, _: &mut Machine) -> Reply {
        unavailable(self.seq)
    }
}

impl Input for Join {
    type Answer = Result<u64, JoinError>;
    type Then = Named;
    const READS_THE_LOG: bool = false;

    fn run(self, machine: &mut Machine) -> Step<Join> {
        let seat = match &self.token {
            None => None,
            Some(token) => match machine.seat_of_token(token) {
                Some(seat) => Some(seat),
                // This copy may not have heard of a claim on another node yet.
                None if machine.shared && !self.checked => {
                    machine.log.stale = true;
                    return Step::Sync(Join { checked: true, ..self });
                }
                None => return Step::Done(Err(JoinError::BadToken)),
            },
        };
        // Only spectators are counted: they must never lock a player out of his seat.
        let spectators = machine.sockets.values().filter(|s| s.seat.is_none()).count();
        if seat.is_none() && spectators >= machine.log.limits.max_sockets {
            return Step::Done(Err(JoinError::Full));
        }
        match (seat, self.name.clone()) {
            (Some(seat), Some(name)) if machine.log.names[seat.index()] != name => {
                Step::Write(Box::new(Write {
                    op: WriteOp::Name { seat, name: name.clone() },
                    input: self,
                    then: Named { seat, name },
                }))
            }
            _ => Step::Done(Ok(machine.joined(seat, self.io))),
        }
    }

    /// A name that cannot be stored is dropped: the player still joins.
    fn written(
        write: Write<Join>,
        result: Result<Stored, DbError>,
        _: Option<Notepad>,
        machine: &mut Machine,
    ) -> Step<Join> {
        match result {
            Ok(_) => machine.log.names[write.then.seat.index()] = write.then.name,
            Err(error) => tracing::error!(room = %machine.log.id, %error, "could not store a name"),
        }
        Step::Done(write.input.give_up(machine))
    }

    /// The join goes on without its name; a token not known here, where the database could
    /// not be asked, is refused.
    fn give_up(self, machine: &mut Machine) -> Result<u64, JoinError> {
        let seat = match &self.token {
            None => None,
            Some(token) => Some(machine.seat_of_token(token).ok_or(JoinError::BadToken)?),
        };
        Ok(machine.joined(seat, self.io))
    }
}

impl Input for Claim {
    type Answer = Result<Claimed, ClaimError>;
    type Then = Claiming;

    fn run(self, machine: &mut Machine) -> Step<Claim> {
        if machine.log.tokens[Seat::Guest.index()].is_some() {
            return Step::Done(Err(ClaimError::Taken));
        }
        if machine.log.invite_hash.as_deref() != Some(&hash_secret(&self.invite)) {
            return Step::Done(Err(ClaimError::BadInvite));
        }
        let token = new_secret_from(&mut machine.rng);
        let hash = hash_secret(&token);
        Step::Write(Box::new(Write {
            op: WriteOp::Claim { token_hash: hash.clone() },
            input: self,
            then: Claiming { token, hash },
        }))
    }

    fn written(
        write: Write<Claim>,
        result: Result<Stored, DbError>,
        _: Option<Notepad>,
        machine: &mut Machine,
    ) -> Step<Claim> {
        let Claiming { token, hash } = write.then;
        Step::Done(match result {
            Ok(Stored::Claimed(SeatClaim::Claimed)) => {
                machine.log.tokens[Seat::Guest.index()] = Some(hash);
                machine.log.invite_hash = None;
                machine.restart_clock(None);
                machine.broadcast();
                Ok(Claimed { role: machine.role_of(Seat::Guest), token })
            }
            Ok(Stored::Claimed(SeatClaim::Gone)) => Err(ClaimError::Gone),
            Ok(_) => {
                // Claimed first (perhaps through another node): read back.
                machine.log.stale = true;
                Err(ClaimError::Taken)
            }
            Err(error) => {
                tracing::error!(room = %machine.log.id, %error, "could not claim a seat");
                machine.log.stale = true;
                Err(ClaimError::Unavailable)
            }
        })
    }

    fn give_up(self, _: &mut Machine) -> Result<Claimed, ClaimError> {
        Err(ClaimError::Unavailable)
    }
}

impl Machine {
    /// Carries out a seat's request: an action to append, or a rematch offer.
    fn seat<C: SeatCommand>(&mut self, input: SeatInput) -> Step<C> {
        let SeatInput { seat, seq, request, .. } = input;
        if let Recall::Repeat(reply) = self.seqs[seat.index()].recall(seq) {
            return Step::Done(C::repeat(reply));
        }
        match request {
            SeatRequest::Action(action) => {
                let record = StoredAction {
                    role: self.role_of(seat),
                    action: action.into(),
                    seat: Some(seat),
                    client_seq: Some(seq),
                    at: self.now.wall_ms,
                };
                match self.append(record) {
                    Ok((op, appended)) => Step::Write(Box::new(Write {
                        op,
                        input: C::seat(input),
                        then: (input, SeatThen::Append(appended)),
                    })),
                    Err(error) => self.refuse(input, Reply::refused(Some(seq), &error)),
                }
            }
            SeatRequest::Rematch => self.rematch(input),
        }
    }

    /// Validates an action against a copy of the game, made into the game the last action
    /// replaced ([`Machine`]'s `spare`): the write that appends it.
    fn append(&mut self, record: StoredAction) -> Result<(WriteOp, Appended), ActionError> {
        let mut next = match self.spare.take() {
            Some(mut spare) => {
                spare.clone_from(&self.log.game);
                spare
            }
            None => self.log.game.clone(),
        };
        if let Err(error) = next.apply_entry(record.role, record.action) {
            self.spare = Some(next);
            return Err(error);
        }
        let op = WriteOp::Append {
            game: self.log.game_number,
            number: self.log.game.actions().len(),
            record,
            finished: next.outcome(),
        };
        Ok((op, Appended { record, next }))
    }

    /// An appended action is stored: it is the game now.
    fn appended(&mut self, Appended { record, next }: Appended, notepad: Option<Notepad>) {
        let passed = (next.to_move() != self.log.game.to_move()).then_some(record.at);
        self.apply(&record, next, notepad, passed);
        // Told by the node that wrote the action, once.
        self.push_notices(passed.is_some());
    }

    /// An action could not be stored; whether the commit queue was full (nothing written,
    /// nothing to read back).
    fn append_failed(&mut self, error: &DbError) -> bool {
        let overload = matches!(error, DbError::Overloaded);
        if overload {
            tracing::debug!(room = %self.log.id, "the commit queue is full");
        } else {
            tracing::error!(room = %self.log.id, %error, "could not store an action");
            self.log.stale = true;
        }
        overload
    }

    fn rematch<C: SeatCommand>(&mut self, input: SeatInput) -> Step<C> {
        let SeatInput { seat, seq, .. } = input;
        if !self.log.game.is_over() || !self.both_seated() {
            let message = "a rematch is offered once the game is over, by one of its two players";
            return self.refuse(input, Reply::error(Some(seq), code::NO_REMATCH, message));
        }
        if self.log.series.winner().is_some() {
            let message = "the series is over: create a new room for another one";
            return self.refuse(input, Reply::error(Some(seq), code::NO_REMATCH, message));
        }
        if self.log.rematch[seat.index()] && !self.log.rematch[seat.other().index()] {
            // Offered already; the offer stands.
            self.broadcast();
            return Step::Done(C::finish(self, input, Reply::ok(seq), Memo::Refused));
        }
        let number = self.log.game_number + 1;
        let seed = match self.log.limits.deal_seed {
            Some(base) => deal(base, number),
            None => Seed(self.rng.random()),
        };
        let setup = Setup { seed, rules: self.log.rules };
        let fugitive_seat = self.log.fugitive_seat.other();
        let op = WriteOp::Rematch { seat, game: self.log.game_number, setup, fugitive_seat };
        let then = SeatThen::Rematch { fugitive_seat, next: Game::new(setup) };
        Step::Write(Box::new(Write { op, input: C::seat(input), then: (input, then) }))
    }

    /// Refuses a seat's request; with several nodes, only once the room was read back from the
    /// log: this copy may be behind it (another node's action not heard yet), and the refusal
    /// is decided on the log's state.
    fn refuse<C: SeatCommand>(&mut self, input: SeatInput, reply: Reply) -> Step<C> {
        if self.shared && !input.checked {
            self.log.stale = true;
            return Step::Sync(C::seat(SeatInput { checked: true, ..input }));
        }
        Step::Done(C::finish(self, input, reply, Memo::Refused))
    }

    /// A seat's write is stored, or failed.
    fn seat_written<C: SeatCommand>(
        &mut self,
        (input, then): (SeatInput, SeatThen),
        result: Result<Stored, DbError>,
        notepad: Option<Notepad>,
    ) -> Step<C> {
        let seq = input.seq;
        let (reply, memo) = match (then, result) {
            (SeatThen::Append(appended), Ok(_)) => {
                self.appended(appended, notepad);
                (Reply::ok(seq), Memo::Accepted)
            }
            (SeatThen::Append(_), Err(error)) => {
                let reply = if self.append_failed(&error) {
                    overloaded(seq, &mut self.rng)
                } else {
                    unavailable(seq)
                };
                (reply, Memo::Forget)
            }
            (SeatThen::Rematch { fugitive_seat, next }, result) => match result {
                Ok(Stored::Rematch(Rematched::Offered)) => {
                    self.log.rematch[input.seat.index()] = true;
                    self.broadcast();
                    (Reply::ok(seq), Memo::Refused)
                }
                Ok(Stored::Rematch(Rematched::Started { ours: true })) => {
                    self.new_game(fugitive_seat, next, notepad);
                    (Reply::ok(seq), Memo::Refused)
                }
                Ok(_) => {
                    // Another node dealt the next game first: it is read back.
                    self.log.stale = true;
                    (Reply::ok(seq), Memo::Refused)
                }
                Err(error) => {
                    tracing::error!(room = %self.log.id, %error, "could not store a rematch offer");
                    self.log.stale = true;
                    (unavailable(seq), Memo::Forget)
                }
            },
        };
        Step::Done(C::finish(self, input, reply, memo))
    }

    /// The seat whose token this is.
    fn seat_of_token(&self, token: &str) -> Option<Seat> {
        let hash = hash_secret(token);
        Seat::ALL.into_iter().find(|s| self.log.tokens[s.index()].as_deref() == Some(&hash))
    }
}
