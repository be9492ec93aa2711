//! The open-files limit (issues 9 and 23). Every connection costs the process a file
//! descriptor; past its limit `accept` fails with `Too many open files`, and a client waits in
//! the listen queue until it gives up, instead of getting the documented `503`. So:
//!
//! - At start-up the server raises its soft limit to the hard one and splits it ([`Budget`]): a
//!   reserve for itself (the database's connections, the listener, the files of the web client,
//!   the runtime), WebSockets (`--max-sockets` is lowered to fit), and plain HTTP connections,
//!   counted twice each (the connection and a file it may be sending).
//! - A connection over its cap is answered `503 too_many_connections` and closed at once
//!   ([`refuse`]); the one an upgrade over the socket cap arrived on closes after its `503`.
//! - One descriptor is kept spare ([`Spare`]): should `accept` still fail for want of
//!   descriptors (another process' files, a burst), the spare one is given back for a moment
//!   to take the newcomer, answer it and close it, so no accept fails silently.

use std::io::{Read, Write};
use std::net::{Shutdown, TcpStream};

/// Descriptors kept for the server itself, whatever the limit: the database's pool and its
/// listening connection, the SQLite files, the listener, the spare, the runtime's own.
const RESERVE: u64 = 64;

/// How the open-files limit is split between the server, its WebSockets and its plain HTTP
/// connections.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Budget {
    /// WebSockets at most: `--max-sockets`, lowered to fit.
    pub sockets: usize,
    /// Plain HTTP connections at most (an upgrading one among them, until it is a WebSocket).
    pub connections: usize,
}

impl Budget {
    /// The split of `limit` descriptors with `requested` WebSockets at most: an eighth (at
    /// least [`RESERVE`], at most half) for the server itself; of the rest, at most three
    /// quarters for WebSockets, and two descriptors for each HTTP connection in what remains.
    pub fn of(limit: u64, requested: usize) -> Budget {
        let reserve = (limit / 8).max(RESERVE).min(limit / 2);
        let clients = usize::try_from(limit - reserve).unwrap_or(usize::MAX);
        let sockets = requested.min(clients / 4 * 3).max(1);
        let connections = (clients.saturating_sub(sockets) / 2).max(1);
        Budget { sockets, connections }
    }

    /// No limit known: the sockets asked for, and as many HTTP connections as come.
    fn unlimited(requested: usize) -> Budget {
        Budget { sockets: requested, connections: tokio::sync::Semaphore::MAX_PERMITS }
    }
}

/// Raises the soft open-files limit to the hard one and splits it for `requested` WebSockets
/// at most; logs when `--max-sockets` had to be lowered.
pub fn budget(requested: usize) -> Budget {
    let limit = match rlimit::increase_nofile_limit(u64::MAX) {
        Ok(limit) => limit,
        Err(error) => {
            tracing::warn!(%error, "cannot read or raise the open-files limit");
            return Budget::unlimited(requested);
        }
    };
    let budget = Budget::of(limit, requested);
    if budget.sockets < requested {
        tracing::warn!(
            requested,
            max_sockets = budget.sockets,
            open_files = limit,
            "--max-sockets lowered below the open-files limit"
        );
    }
    budget
}

/// Whether an `accept` failed for want of file descriptors (the process' or the system's).
pub fn exhausted(error: &std::io::Error) -> bool {
    matches!(error.raw_os_error(), Some(libc::EMFILE | libc::ENFILE))
}

/// One descriptor held in reserve for [`refuse`]ing a connection when there is no other.
pub struct Spare(Option<std::fs::File>);

impl Spare {
    /// Takes the spare descriptor (`/dev/null`, opened for nothing).
    pub fn new() -> Spare {
        let mut spare = Spare(None);
        spare.restore();
        spare
    }

    /// Gives the spare descriptor back to the process; whether there was one.
    pub fn release(&mut self) -> bool {
        self.0.take().is_some()
    }

    /// Takes a spare descriptor again, if one is free.
    pub fn restore(&mut self) {
        if self.0.is_none() {
            self.0 = std::fs::File::open("/dev/null").ok();
        }
    }
}

impl Default for Spare {
    fn default() -> Spare {
        Spare::new()
    }
}

/// Sends `answer` (a whole HTTP response) on a connection the server will not serve and
/// closes it, never waiting: what the client has sent so far is read and dropped first, so
/// that the close is a FIN and not a reset (which could destroy the answer before the client
/// reads it), and the answer fits in the empty send buffer of a new connection.
pub fn refuse(stream: TcpStream, answer: &[u8]) {
    if stream.set_nonblocking(true).is_err() {
        return;
    }
    let mut stream = stream;
    let mut sink = [0u8; 4096];
    for _ in 0..16 {
        match stream.read(&mut sink) {
            Ok(read) if read > 0 => continue,
            _ => break,
        }
    }
    let _ = stream.write_all(answer);
    let _ = stream.shutdown(Shutdown::Write);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_limit_is_split_so_that_the_server_keeps_a_reserve_and_http_its_share() {
        // The machine: 256 files, 10,000 sockets asked for.
        assert_eq!(Budget::of(256, 10_000), Budget { sockets: 144, connections: 24 });
        assert_eq!(Budget::of(128, 100_000), Budget { sockets: 48, connections: 8 });
        // A usual hard limit: the sockets asked for, and room for HTTP.
        assert_eq!(Budget::of(1 << 20, 10_000), Budget { sockets: 10_000, connections: 453_752 });
        // Whatever the limit, the server keeps its reserve and no more than it has is handed out.
        for limit in [2, 16, 64, 100, 256, 1024, 4096, 20_000, 1 << 20] {
            for requested in [1, 100, 10_000] {
                let budget = Budget::of(limit, requested);
                assert!(budget.sockets <= requested);
                let used = (budget.sockets + 2 * budget.connections) as u64;
                assert!(
                    limit < 8 || used <= limit - (limit / 8).max(RESERVE).min(limit / 2),
                    "{limit} {budget:?}"
                );
            }
        }
    }

    #[test]
    fn the_spare_descriptor_is_given_back_and_taken_again() {
        let mut spare = Spare::new();
        assert!(spare.release());
        assert!(!spare.release(), "given back once");
        spare.restore();
        assert!(spare.release());
    }

    #[test]
    fn a_refused_connection_gets_the_answer_and_then_its_end() {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let mut client = TcpStream::connect(listener.local_addr().unwrap()).unwrap();
        client.write_all(b"GET / HTTP/1.1\r\n\r\n").unwrap();
        let (accepted, _) = listener.accept().unwrap();
        refuse(accepted, b"HTTP/1.1 503 Service Unavailable\r\ncontent-length: 0\r\n\r\n");
        let mut answer = String::new();
        client.read_to_string(&mut answer).unwrap();
        assert_eq!(answer, "HTTP/1.1 503 Service Unavailable\r\ncontent-length: 0\r\n\r\n");
    }
}
