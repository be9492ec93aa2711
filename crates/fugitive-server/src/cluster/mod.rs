//! Several identical nodes on one PostgreSQL database (issue 11). PostgreSQL is the whole
//! distributed engine: no consensus of our own, no node-to-node protocol.
//!
//! - **The log is the truth.** Any node accepts an action for any room: it validates it against
//!   its copy and appends it under the unique key (room, game, number). When another node
//!   appended first, the write conflicts; the room reads the log back and decides again
//!   (`room/mod.rs`). A client's `seq` is stored with its action, so a retry on another node is
//!   answered, not applied twice.
//! - **Every node hears every append.** The writer `NOTIFY`s [`db::CHANNEL`](crate::db::CHANNEL)
//!   in the transaction that stores an action (so the notice goes out exactly when it is
//!   committed); other changes (claims, rematch offers, names, chat, presence) are notified
//!   after they commit. Each node `LISTEN`s and hands the news to the rooms it has loaded, which
//!   read the new actions from the log. A node whose listening connection broke reconnects and
//!   reads back every room it has loaded: notices sent meanwhile are lost. A room whose read
//!   fails tries again until it succeeds (`room/mod.rs`), or what it heard would be lost too.
//! - **One owner for what must happen once.** A room's turn clock and computer opponent run on
//!   the node holding the room's lease: a row in `leases` with an expiry in PostgreSQL's clock,
//!   renewed every third of the lease time by its holder. A node that dies, is cut off or
//!   freezes stops renewing; once the lease has run out, another node takes it and carries on
//!   from the log. A node believes it holds a lease only until the lease time after it *sent*
//!   its last successful renewal, so it stops before the lease runs out in the database; and a
//!   clock or move that slipped through anyway is an append like any other, which loses on the
//!   unique key. Expiry runs under the lease `expiry`.
//!
//! Rows with an expiry rather than session advisory locks: a lock lives as long as its
//! connection, and a frozen node (SIGSTOP) keeps its connection, and so its locks, open for as
//! long as the operating system keeps the TCP session: minutes, not seconds. A lease row runs
//! out on time whatever the holder's connection does, and its holder can tell from its own
//! clock when to stop.

pub mod lease;
pub mod listen;
