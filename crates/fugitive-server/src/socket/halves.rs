//! A socket's reader and writer run as two futures of one task (a task each cost about a
//! kilobyte per socket), raced by [`race`], which polls only the half that was woken.
//!
//! `tokio::select!` polls every branch whenever the task wakes, and a socket's task wakes for
//! every frame queued on it (four or five sockets per action): each such wake also polled the
//! reader (its `select!`, the stream's lock, a read that found nothing) for nothing, and each
//! of the reader's wakes polled the writer. Here each half is polled with a waker of its own,
//! which marks it woken before it wakes the task (issue 28, the server's CPU per action).

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::task::{Context, Poll, Wake, Waker};

use futures_util::task::AtomicWaker;

/// One half's waker: it marks the half woken, then wakes the task.
#[derive(Debug, Default)]
struct Half {
    woken: AtomicBool,
    task: AtomicWaker,
}

impl Wake for Half {
    fn wake(self: Arc<Self>) {
        self.wake_by_ref();
    }

    fn wake_by_ref(self: &Arc<Self>) {
        self.woken.store(true, Ordering::Release);
        self.task.wake();
    }
}

impl Half {
    /// Polls `future` if this half was woken since its last poll (or never polled).
    fn poll<F: Future>(self: &Arc<Self>, future: Pin<&mut F>, cx: &Context<'_>) -> Poll<F::Output> {
        // Registered before the flag is read: a wake in between wakes the task again.
        self.task.register(cx.waker());
        if !self.woken.swap(false, Ordering::AcqRel) {
            return Poll::Pending;
        }
        let waker = Waker::from(Arc::clone(self));
        future.poll(&mut Context::from_waker(&waker))
    }
}

/// Which half ended first, with its output.
#[derive(Debug, PartialEq, Eq)]
pub enum First<R, W> {
    Reader(R),
    Writer(W),
}

/// Polls `reader` and `writer` until one of them ends, each only when a waker it was given was
/// woken (both on the first poll); the other is left as it is, to be polled on by the caller.
pub fn race<'a, R: Future, W: Future>(
    mut reader: Pin<&'a mut R>,
    mut writer: Pin<&'a mut W>,
) -> impl Future<Output = First<R::Output, W::Output>> + 'a {
    let woken = || Arc::new(Half { woken: AtomicBool::new(true), task: AtomicWaker::new() });
    let (read, write) = (woken(), woken());
    std::future::poll_fn(move |cx| {
        if let Poll::Ready(end) = read.poll(reader.as_mut(), cx) {
            return Poll::Ready(First::Reader(end));
        }
        write.poll(writer.as_mut(), cx).map(First::Writer)
    })
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::AtomicUsize;

    use tokio::sync::Notify;

    use super::*;

    /// A future that counts its polls and ends once `notify` was notified `ends_after` times.
    async fn counted(polls: &AtomicUsize, notify: &Notify, ends_after: usize) -> usize {
        let mut seen = 0;
        loop {
            let notified = notify.notified();
            polls.fetch_add(1, Ordering::Relaxed);
            notified.await;
            seen += 1;
            if seen == ends_after {
                return seen;
            }
        }
    }

    #[tokio::test]
    async fn only_the_half_that_was_woken_is_polled_and_the_first_to_end_wins() {
        let (reader_polls, writer_polls) = (AtomicUsize::new(0), AtomicUsize::new(0));
        let (reader_news, writer_news) = (Notify::new(), Notify::new());
        let reader = counted(&reader_polls, &reader_news, 2);
        let writer = counted(&writer_polls, &writer_news, 100);
        tokio::pin!(reader, writer);
        let race = race(reader.as_mut(), writer.as_mut());
        tokio::pin!(race);
        let mut cx = Context::from_waker(Waker::noop());
        assert_eq!(race.as_mut().poll(&mut cx), Poll::Pending);
        let both = |r: &AtomicUsize, w: &AtomicUsize| (r.load(Ordering::Relaxed), w.load(Ordering::Relaxed));
        assert_eq!(both(&reader_polls, &writer_polls), (1, 1), "both are polled first");
        for frame in 0..5 {
            writer_news.notify_one();
            assert_eq!(race.as_mut().poll(&mut cx), Poll::Pending);
            assert_eq!(
                both(&reader_polls, &writer_polls),
                (1, 2 + frame),
                "the writer's wakes poll the writer"
            );
        }
        // Polled with nothing woken: neither half is.
        assert_eq!(race.as_mut().poll(&mut cx), Poll::Pending);
        assert_eq!(both(&reader_polls, &writer_polls), (1, 6));
        reader_news.notify_one();
        assert_eq!(race.as_mut().poll(&mut cx), Poll::Pending);
        assert_eq!(both(&reader_polls, &writer_polls), (2, 6), "the reader's wake polls the reader");
        reader_news.notify_one();
        assert_eq!(race.as_mut().poll(&mut cx), Poll::Ready(First::Reader(2)));
    }

    #[tokio::test]
    async fn a_half_woken_wakes_the_task() {
        let notify = Arc::new(Notify::new());
        let polls = AtomicUsize::new(0);
        let never = std::future::pending::<()>();
        let writer = {
            let notify = Arc::clone(&notify);
            async move { counted(&polls, &notify, 1).await }
        };
        tokio::pin!(never, writer);
        let waiting = tokio::spawn(async move {
            tokio::task::yield_now().await;
            notify.notify_one();
        });
        // Ends only if the writer's wake reached this task.
        assert_eq!(race(never, writer).await, First::Writer(1));
        waiting.await.unwrap();
    }
}
