//! The room's public face: the handle other tasks hold, the commands it sends to the actor, and
//! what they answer.

use std::sync::Arc;

use tokio::sync::{mpsc, oneshot};
use tokio::time::Instant;

use super::machine::{ClaimError, Claimed, JoinError, Kick, SeatRequest, Summary};
use crate::mailbox::Mailbox;
use crate::model::table::TableRequest;
use crate::protocol::{Protocol, Reply};

/// The room's actor has stopped (unloaded, expired or shutting down).
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[error("the room is no longer running")]
pub struct Gone;

/// News of the room from another node, or from the listener.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Heard {
    /// An action was appended to game `game` under `number`.
    Action { game: u64, number: u64 },
    /// Another row of the room changed (a claim, a rematch offer, a new game, a name, chat).
    Room,
    /// Another node's presence in the room changed.
    Presence,
    /// The listener lost its connection (news may be lost): read the room back.
    Resync,
    /// The room's lease ran out on another node: take it if something must happen here.
    Lease,
    /// Another node took this node for dead and deleted its presence: publish it again.
    Forgotten,
}

/// A seat's request answered by [`RoomHandle::request_replied`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Replied {
    pub reply: Reply,
    /// Where its frame is: queued on the socket by the room, or not.
    pub queued: Queued,
}

/// Whether the room queued a reply's frame on the socket.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Queued {
    Yes,
    /// The socket has too many frames unread: it stopped reading.
    Full,
    /// Not asked to, or the socket is no longer the room's: the caller queues it.
    No,
}

pub(super) enum Command {
    Heard(Heard),
    Join {
        token: Option<String>,
        name: Option<Option<String>>,
        queue: Arc<Mailbox>,
        protocol: Protocol,
        kick: oneshot::Sender<Kick>,
        reply: oneshot::Sender<Result<u64, JoinError>>,
    },
    Leave {
        socket: u64,
    },
    Resync {
        socket: u64,
        reply: oneshot::Sender<()>,
    },
    Request {
        socket: u64,
        seq: u64,
        request: SeatRequest,
        /// When the socket's reader sent it: the actor measures its queue's wait.
        sent: Instant,
        /// The actor queues the reply's frame on the socket itself ([`Replied`]).
        queue_reply: bool,
        reply: oneshot::Sender<Replied>,
    },
    Table {
        socket: u64,
        seq: u64,
        request: TableRequest,
        reply: oneshot::Sender<Reply>,
    },
    Claim {
        invite: String,
        reply: oneshot::Sender<Result<Claimed, ClaimError>>,
    },
    Summary {
        reply: oneshot::Sender<Summary>,
    },
    Expire,
}

/// A cheap, cloneable handle to a room's actor.
#[derive(Clone, Debug)]
pub struct RoomHandle {
    /// Distinguishes this actor from a later one of the same room (after an unload).
    pub generation: u64,
    pub(super) tx: mpsc::Sender<Command>,
}

impl RoomHandle {
    async fn call<T>(&self, command: impl FnOnce(oneshot::Sender<T>) -> Command) -> Result<T, Gone> {
        let (reply, answer) = oneshot::channel();
        self.tx.send(command(reply)).await.map_err(|_| Gone)?;
        answer.await.map_err(|_| Gone)
    }

    /// Joins a socket as the seat whose token this is, or as a spectator, speaking `protocol`.
    /// On success the room has queued `welcome` and the first `state` (`snapshot`), and returns
    /// the socket's id. A seated socket's `name`, when given, becomes its seat's name.
    ///
    /// # Errors
    /// [`Gone`] when the actor has stopped.
    pub async fn join(
        &self,
        token: Option<String>,
        name: Option<Option<String>>,
        queue: Arc<Mailbox>,
        protocol: Protocol,
        kick: oneshot::Sender<Kick>,
    ) -> Result<Result<u64, JoinError>, Gone> {
        self.call(|reply| Command::Join { token, name, queue, protocol, kick, reply }).await
    }

    /// Protocol 2's `resync`: queues a snapshot of the socket's view (in place of any state frame
    /// it has not read yet).
    ///
    /// # Errors
    /// [`Gone`] when the actor has stopped.
    pub async fn resync(&self, socket: u64) -> Result<(), Gone> {
        self.call(|reply| Command::Resync { socket, reply }).await
    }

    /// A seated socket's request about the table (name, chat); the reply to send back.
    ///
    /// # Errors
    /// [`Gone`] when the actor has stopped.
    pub async fn table(&self, socket: u64, seq: u64, request: TableRequest) -> Result<Reply, Gone> {
        self.call(|reply| Command::Table { socket, seq, request, reply }).await
    }

    /// Forgets a socket.
    pub async fn leave(&self, socket: u64) {
        let _ = self.tx.send(Command::Leave { socket }).await;
    }

    /// A seated socket's request; the reply to send back.
    ///
    /// # Errors
    /// [`Gone`] when the actor has stopped.
    pub async fn request(&self, socket: u64, seq: u64, request: SeatRequest) -> Result<Reply, Gone> {
        let sent = Instant::now();
        let replied = self
            .call(|reply| Command::Request { socket, seq, request, sent, queue_reply: false, reply })
            .await?;
        Ok(replied.reply)
    }

    /// A seated socket's request, whose reply the room queues on the socket itself, right behind
    /// the frames of the action: the socket's writer wakes once for both and writes them in one
    /// `write` (issue 28). The reply comes back too, for the caller's metrics.
    ///
    /// # Errors
    /// [`Gone`] when the actor has stopped.
    pub async fn request_replied(
        &self,
        socket: u64,
        seq: u64,
        request: SeatRequest,
    ) -> Result<Replied, Gone> {
        let sent = Instant::now();
        self.call(|reply| Command::Request { socket, seq, request, sent, queue_reply: true, reply }).await
    }

    /// Claims the guest seat with an invitation.
    ///
    /// # Errors
    /// [`Gone`] when the actor has stopped.
    pub async fn claim(&self, invite: String) -> Result<Result<Claimed, ClaimError>, Gone> {
        self.call(|reply| Command::Claim { invite, reply }).await
    }

    /// The public facts of the room.
    ///
    /// # Errors
    /// [`Gone`] when the actor has stopped.
    pub async fn summary(&self) -> Result<Summary, Gone> {
        self.call(|reply| Command::Summary { reply }).await
    }

    /// Tells the room what another node did; never waits (the listener must keep up): a room
    /// whose queue is full reads itself back instead.
    pub fn hear(&self, heard: Heard) {
        if let Err(mpsc::error::TrySendError::Full(_)) = self.tx.try_send(Command::Heard(heard)) {
            let tx = self.tx.clone();
            tokio::spawn(async move {
                let _ = tx.send(Command::Heard(Heard::Resync)).await;
            });
        }
    }

    /// Closes every socket with 4004 and stops the actor: the room was deleted.
    pub async fn expire(&self) {
        let _ = self.tx.send(Command::Expire).await;
    }
}
