//! Work off the room actors that live games must not feel (issue 26): the analyses of finished
//! games (`analysis.rs`) and the puzzle miner (`puzzles.rs`).
//!
//! Each job runs on a thread of its own at the background priority, at most `workers` at once
//! (a fair semaphore: the others queue, first come first served, and each knows how many are
//! ahead of it). The default is one worker fewer than the machine's cores, so one core is
//! always left to the room actors: a woken actor never waits for a core a background job holds.
//!
//! **The priority** ([`Priority`]): `idle` puts the thread under Linux's `SCHED_IDLE`, so any
//! runnable thread of normal priority preempts it at once (nice 19 only weighs it 15 to 1024:
//! it still takes its slice); where the kernel refuses it (not Linux, or a sandbox that forbids
//! it) the thread falls back to nice 19. `nice` asks for nice 19 alone: on a machine that is
//! never idle, a `SCHED_IDLE` job barely moves. `normal` leaves the thread as the server is:
//! on a machine busy at normal priority, a nice-19 job's share (15 to 1,024 per busy thread)
//! may still be too small to finish.

use std::collections::BTreeSet;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use tokio::sync::{Semaphore, oneshot};

use crate::config::Priority;

/// The background workers of this node.
#[derive(Clone, Debug)]
pub struct Background {
    permits: Arc<Semaphore>,
    queue: Arc<Queue>,
    priority: Priority,
}

/// The tickets waiting for a worker, by number (taken in order).
#[derive(Debug, Default)]
struct Queue {
    next: AtomicU64,
    waiting: Mutex<BTreeSet<u64>>,
}

/// A place in the queue for a worker; dropping it leaves the queue.
#[derive(Debug)]
pub struct Ticket {
    place: Place,
    background: Background,
}

/// Where a [`Ticket`] stands in the queue, for whoever reports it.
#[derive(Clone, Debug)]
pub struct Place {
    number: u64,
    queue: Arc<Queue>,
}

impl Place {
    /// How many jobs are ahead of this one, while it waits for a worker; `None` once it has
    /// one (or left the queue).
    pub fn ahead(&self) -> Option<usize> {
        let waiting = self.queue.waiting.lock().expect("not poisoned");
        waiting.contains(&self.number).then(|| waiting.range(..self.number).count())
    }
}

impl Background {
    /// At most `workers` jobs at once (at least one), at `priority`.
    pub fn new(workers: usize, priority: Priority) -> Background {
        Background {
            permits: Arc::new(Semaphore::new(workers.max(1))),
            queue: Arc::new(Queue::default()),
            priority,
        }
    }

    /// The default number of workers: the machine's cores less one, at least one.
    pub fn default_workers() -> usize {
        std::thread::available_parallelism().map_or(1, |n| n.get().saturating_sub(1).max(1))
    }

    /// Takes a place in the queue.
    pub fn ticket(&self) -> Ticket {
        let number = self.queue.next.fetch_add(1, Ordering::Relaxed);
        self.queue.waiting.lock().expect("not poisoned").insert(number);
        Ticket { place: Place { number, queue: self.queue.clone() }, background: self.clone() }
    }

    /// Jobs waiting for a worker.
    pub fn waiting(&self) -> usize {
        self.queue.waiting.lock().expect("not poisoned").len()
    }

    /// Waits for a worker, then runs `work` on a thread of its own at the background priority
    /// and returns its result (`None` if the thread could not be started or panicked).
    pub async fn run<T: Send + 'static>(
        &self,
        name: &str,
        work: impl FnOnce() -> T + Send + 'static,
    ) -> Option<T> {
        self.ticket().run(name, work).await
    }
}

impl Ticket {
    /// Where it stands in the queue.
    pub fn place(&self) -> Place {
        self.place.clone()
    }

    /// Waits for a worker (the semaphore is fair: tickets are served in order), then runs
    /// `work` as [`Background::run`] does.
    pub async fn run<T: Send + 'static>(
        self,
        name: &str,
        work: impl FnOnce() -> T + Send + 'static,
    ) -> Option<T> {
        let _permit = self.background.permits.clone().acquire_owned().await.ok()?;
        self.leave();
        let (tx, rx) = oneshot::channel();
        let priority = self.background.priority;
        std::thread::Builder::new()
            .name(name.into())
            .spawn(move || {
                lower(priority);
                let _ = tx.send(work());
            })
            .ok()?;
        rx.await.ok()
    }

    fn leave(&self) {
        self.place.queue.waiting.lock().expect("not poisoned").remove(&self.place.number);
    }
}

impl Drop for Ticket {
    fn drop(&mut self) {
        self.leave();
    }
}

/// Lowers the calling thread's priority (see the module documentation). A failure leaves the
/// priority as it was, which is harmless.
fn lower(priority: Priority) {
    if priority == Priority::Normal {
        return;
    }
    #[cfg(target_os = "linux")]
    {
        if priority == Priority::Idle {
            let param = libc::sched_param { sched_priority: 0 };
            // SAFETY: `param` lives across the call, which only reads it; on Linux pid 0 is the
            // calling thread.
            if unsafe { libc::sched_setscheduler(0, libc::SCHED_IDLE, &param) } == 0 {
                return;
            }
        }
        // SAFETY: setpriority only reads its arguments; on Linux `who` 0 with PRIO_PROCESS is
        // the calling thread.
        unsafe {
            libc::setpriority(libc::PRIO_PROCESS, 0, 19);
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = priority;
}

/// The calling thread's scheduling policy (Linux), for the tests.
#[cfg(all(test, target_os = "linux"))]
fn policy() -> i32 {
    // SAFETY: only reads the calling thread's policy.
    unsafe { libc::sched_getscheduler(0) }
}

/// The calling thread's nice value (Linux), for the tests.
#[cfg(all(test, target_os = "linux"))]
fn nice() -> i32 {
    // SAFETY: only reads the calling thread's priority.
    unsafe { libc::getpriority(libc::PRIO_PROCESS, 0) }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn jobs_queue_behind_the_workers_and_know_how_many_are_ahead() {
        let background = Background::new(1, Priority::Idle);
        let (release, hold) = std::sync::mpsc::channel::<()>();
        let first = tokio::spawn({
            let background = background.clone();
            async move { background.run("first", move || hold.recv().is_ok()).await }
        });
        while background.waiting() > 0 || background.permits.available_permits() > 0 {
            tokio::task::yield_now().await;
        }
        let second = background.ticket();
        let third = background.ticket();
        let place = third.place();
        assert_eq!((second.place().ahead(), place.ahead()), (Some(0), Some(1)));
        assert_eq!(background.waiting(), 2);
        drop(second);
        assert_eq!(place.ahead(), Some(0), "a ticket dropped leaves the queue");
        let policy = third.run("third", || {
            #[cfg(target_os = "linux")]
            return policy();
            #[cfg(not(target_os = "linux"))]
            0
        });
        tokio::pin!(policy);
        assert!(
            tokio::time::timeout(std::time::Duration::from_millis(50), &mut policy).await.is_err(),
            "the only worker is busy"
        );
        release.send(()).unwrap();
        assert_eq!(first.await.unwrap(), Some(true));
        let policy = policy.await.unwrap();
        // Lowering a thread's own priority needs no privilege: Linux grants it.
        #[cfg(target_os = "linux")]
        assert_eq!(policy, libc::SCHED_IDLE);
        assert_eq!(background.waiting(), 0);
        assert_eq!(place.ahead(), None, "served");
    }

    /// `nice` lowers a job's thread to nice 19 alone; `normal` leaves it as the server's.
    #[cfg(target_os = "linux")]
    #[tokio::test]
    async fn each_priority_is_the_jobs_threads() {
        async fn job(priority: Priority) -> Option<(i32, i32)> {
            Background::new(1, priority).run("job", || (policy(), nice())).await
        }
        assert_eq!(job(Priority::Nice).await, Some((libc::SCHED_OTHER, 19)));
        assert_eq!(job(Priority::Normal).await, Some((policy(), nice())), "as the server is");
    }

    #[test]
    fn the_default_leaves_a_core_to_the_rooms() {
        let cores = std::thread::available_parallelism().unwrap().get();
        assert_eq!(Background::default_workers(), cores.saturating_sub(1).max(1));
    }
}
