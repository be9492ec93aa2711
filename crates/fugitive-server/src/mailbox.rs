//! One socket's outbound frames, between the room (and the socket's reader) and the socket's
//! writer task: a queue that keeps only what the client still needs.
//!
//! Two kinds of frame wait here. **Other** frames (`welcome`, `reply`, `chat`) are all written,
//! in order; only when more than `limit` of them wait has the client stopped reading for good,
//! and the sender closes the socket. **State** frames (protocol 1's `state`, protocol 2's
//! `snapshot` and `delta`) are never the reason a socket closes: a snapshot replaces every state
//! frame still waiting (it holds all they held), and when `limit` deltas wait the room sends a
//! snapshot instead of the next one. A reader that falls behind gets, when it reads again, the
//! frames it needs and a current snapshot — not a close.
//!
//! A `Mutex` around a `VecDeque` and a `Notify` for the single writer: no allocation while the
//! socket is idle (an empty `VecDeque` holds none). The room holds the writer's wake-up while it
//! carries out a socket's request ([`Mailbox::hold`]), so that the frames of the action and the
//! reply queued after them go out in one `write`.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use axum::extract::ws::Utf8Bytes;
use tokio::sync::Notify;

/// A socket's outbound queue, shared by the room, the socket's reader and its writer.
#[derive(Debug)]
pub struct Mailbox {
    queue: Mutex<Queue>,
    wake: Notify,
    limit: usize,
}

#[derive(Debug, Default)]
struct Queue {
    /// Each frame with its kind and when it was queued.
    frames: VecDeque<(Kind, Utf8Bytes, Instant)>,
    /// How many of `frames` are state frames.
    states: usize,
    /// Frames queued now do not wake the writer ([`Mailbox::hold`]).
    held: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    State,
    Other,
}

/// A frame taken off the queue, and how long it waited there.
#[derive(Clone, Debug)]
pub struct Taken {
    pub frame: Utf8Bytes,
    pub waited: Duration,
}

/// More than the limit of other frames wait: the client no longer reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Full;

/// As many deltas as the limit wait: send a snapshot instead.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Behind;

impl Mailbox {
    /// An empty mailbox that holds up to `limit` other frames and `limit` deltas.
    pub fn new(limit: usize) -> Arc<Mailbox> {
        Arc::new(Mailbox { queue: Mutex::default(), wake: Notify::new(), limit: limit.max(1) })
    }

    fn lock(&self) -> MutexGuard<'_, Queue> {
        // Nothing panics while holding the lock; a poisoned queue is still a queue.
        self.queue.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Queues a frame that must be written (`welcome`, `reply`, `chat`).
    ///
    /// # Errors
    /// [`Full`] when `limit` such frames already wait (the frame is not queued): the caller
    /// closes the socket, whose client has stopped reading.
    pub fn send(&self, frame: Utf8Bytes) -> Result<(), Full> {
        let mut queue = self.lock();
        if queue.frames.len() - queue.states >= self.limit {
            return Err(Full);
        }
        queue.frames.push_back((Kind::Other, frame, Instant::now()));
        self.wake_unless_held(queue);
        Ok(())
    }

    /// Queues a full snapshot of the client's view. It replaces every state frame still
    /// waiting, and takes the place of the first of them (so it still comes before the replies
    /// that followed it).
    pub fn snapshot(&self, frame: Utf8Bytes) {
        let mut queue = self.lock();
        let first = queue.frames.iter().position(|(kind, ..)| *kind == Kind::State);
        if let Some(first) = first {
            // It keeps the time of the frame it replaces: the client has waited since then.
            queue.frames[first].1 = frame;
            let mut kept = false;
            queue.frames.retain(|(kind, ..)| *kind == Kind::Other || !std::mem::replace(&mut kept, true));
        } else {
            queue.frames.push_back((Kind::State, frame, Instant::now()));
        }
        queue.states = 1;
        self.wake_unless_held(queue);
    }

    /// Queues a delta (a change to apply to the view the client holds).
    ///
    /// # Errors
    /// [`Behind`] when `limit` state frames already wait (the delta is not queued): the caller
    /// queues a [`Mailbox::snapshot`] instead.
    pub fn delta(&self, frame: Utf8Bytes) -> Result<(), Behind> {
        let mut queue = self.lock();
        if queue.states >= self.limit {
            return Err(Behind);
        }
        queue.frames.push_back((Kind::State, frame, Instant::now()));
        queue.states += 1;
        self.wake_unless_held(queue);
        Ok(())
    }

    fn wake_unless_held(&self, queue: MutexGuard<'_, Queue>) {
        let held = queue.held;
        drop(queue);
        if !held {
            self.wake.notify_one();
        }
    }

    /// Frames queued from now on wait for [`Mailbox::release`] to wake the writer (a writer
    /// that is writing already takes them as it goes): the room holds a socket's mailbox while
    /// it carries out the socket's request, so that the frames of the action and the reply
    /// queued after them cost one wake-up and one `write`, not two (issue 28).
    pub fn hold(&self) {
        self.lock().held = true;
    }

    /// Ends a [`Mailbox::hold`]: wakes the writer if a frame waits.
    pub fn release(&self) {
        let mut queue = self.lock();
        queue.held = false;
        let waiting = !queue.frames.is_empty();
        drop(queue);
        if waiting {
            self.wake.notify_one();
        }
    }

    /// The next frame to write, if one waits.
    pub fn try_recv(&self) -> Option<Utf8Bytes> {
        self.try_take().map(|taken| taken.frame)
    }

    /// The next frame to write and how long it waited, if one waits.
    pub fn try_take(&self) -> Option<Taken> {
        let mut queue = self.lock();
        let (kind, frame, queued) = queue.frames.pop_front()?;
        if kind == Kind::State {
            queue.states -= 1;
        }
        drop(queue);
        Some(Taken { frame, waited: queued.elapsed() })
    }

    /// Waits for the next frame to write (and says how long it waited). For the socket's one
    /// writer task; cancel-safe.
    pub async fn recv(&self) -> Taken {
        loop {
            if let Some(taken) = self.try_take() {
                return taken;
            }
            self.wake.notified().await;
        }
    }

    /// How many frames wait (for tests and metrics).
    pub fn len(&self) -> usize {
        self.lock().frames.len()
    }

    /// Whether no frame waits.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn drain(mailbox: &Mailbox) -> Vec<String> {
        std::iter::from_fn(|| mailbox.try_recv()).map(|f| f.as_str().to_owned()).collect()
    }

    #[test]
    fn a_snapshot_replaces_the_waiting_states_in_place_and_keeps_the_rest() {
        let mailbox = Mailbox::new(4);
        mailbox.snapshot("s1".into());
        mailbox.send("reply1".into()).unwrap();
        mailbox.delta("d2".into()).unwrap();
        mailbox.send("chat".into()).unwrap();
        mailbox.delta("d3".into()).unwrap();
        mailbox.snapshot("s4".into());
        assert_eq!(drain(&mailbox), ["s4", "reply1", "chat"]);
        mailbox.snapshot("s5".into());
        mailbox.delta("d6".into()).unwrap();
        assert_eq!(drain(&mailbox), ["s5", "d6"]);
    }

    #[test]
    fn deltas_past_the_limit_ask_for_a_snapshot_and_other_frames_past_it_are_refused() {
        let mailbox = Mailbox::new(2);
        mailbox.delta("d1".into()).unwrap();
        mailbox.delta("d2".into()).unwrap();
        assert_eq!(mailbox.delta("d3".into()), Err(Behind));
        mailbox.snapshot("s3".into());
        mailbox.delta("d4".into()).unwrap();
        // States never count against the other frames' limit, nor the other way round.
        mailbox.send("r1".into()).unwrap();
        mailbox.send("r2".into()).unwrap();
        assert_eq!(mailbox.send("r3".into()), Err(Full));
        assert_eq!(drain(&mailbox), ["s3", "d4", "r1", "r2"]);
    }

    #[test]
    fn a_frame_taken_says_how_long_it_waited_and_a_snapshot_keeps_the_place_it_took() {
        let mailbox = Mailbox::new(4);
        mailbox.delta("d1".into()).unwrap();
        std::thread::sleep(Duration::from_millis(20));
        mailbox.snapshot("s2".into());
        mailbox.send("reply".into()).unwrap();
        let snapshot = mailbox.try_take().unwrap();
        assert_eq!(snapshot.frame.as_str(), "s2");
        // The client has waited since the delta it replaced was queued.
        assert!(snapshot.waited >= Duration::from_millis(20), "{:?}", snapshot.waited);
        let reply = mailbox.try_take().unwrap();
        assert!(reply.waited < snapshot.waited, "{:?} {:?}", reply.waited, snapshot.waited);
        assert!(mailbox.try_take().is_none());
    }

    /// A socket's writer waiting for its next frame.
    fn spawn_writer(mailbox: &Arc<Mailbox>) -> tokio::task::JoinHandle<Utf8Bytes> {
        let mailbox = mailbox.clone();
        tokio::spawn(async move { mailbox.recv().await.frame })
    }

    #[tokio::test]
    async fn a_held_mailbox_wakes_its_writer_once_released_for_everything_queued_meanwhile() {
        let mailbox = Mailbox::new(4);
        let writer = spawn_writer(&mailbox);
        tokio::task::yield_now().await;
        mailbox.hold();
        mailbox.delta("d1".into()).unwrap();
        mailbox.send("reply".into()).unwrap();
        for _ in 0..8 {
            tokio::task::yield_now().await;
        }
        assert!(!writer.is_finished(), "the writer was woken while the mailbox was held");
        mailbox.release();
        assert_eq!(writer.await.unwrap().as_str(), "d1");
        assert_eq!(drain(&mailbox), ["reply"], "the reply waits behind the delta, for the same write");
        // Released, it wakes the writer at once again.
        let writer = spawn_writer(&mailbox);
        tokio::task::yield_now().await;
        mailbox.send("chat".into()).unwrap();
        assert_eq!(writer.await.unwrap().as_str(), "chat");
    }

    #[tokio::test]
    async fn the_writer_wakes_for_a_frame_queued_while_it_waits() {
        let mailbox = Mailbox::new(2);
        let writer = spawn_writer(&mailbox);
        tokio::task::yield_now().await;
        mailbox.send("hello".into()).unwrap();
        assert_eq!(writer.await.unwrap().as_str(), "hello");
    }
}
