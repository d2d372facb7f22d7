//! The little async machinery the toolbox needs without depending on a
//! runtime: `block_on`, joining futures, catching panics while polling,
//! deadlines, and running a blocking closure on a thread as a future.
//! Everything here works under tokio, async-std or a plain executor.

use std::any::Any;
use std::future::Future;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::pin::Pin;
use std::sync::{Arc, Condvar, Mutex};
use std::task::{Context, Poll, Wake, Waker};
use std::thread::{self, Thread};
use std::time::{Duration, Instant};

/// A boxed, sendable future.
pub type BoxFuture<T> = Pin<Box<dyn Future<Output = T> + Send + 'static>>;

struct ThreadWaker(Thread);

impl Wake for ThreadWaker {
    fn wake(self: Arc<Self>) {
        self.0.unpark();
    }
    fn wake_by_ref(self: &Arc<Self>) {
        self.0.unpark();
    }
}

/// Runs a future to completion on the current thread.
pub fn block_on<F: Future>(future: F) -> F::Output {
    let mut future = std::pin::pin!(future);
    let waker = Waker::from(Arc::new(ThreadWaker(thread::current())));
    let mut cx = Context::from_waker(&waker);
    loop {
        if let Poll::Ready(out) = future.as_mut().poll(&mut cx) {
            return out;
        }
        thread::park();
    }
}

/// The message of a caught panic.
pub fn panic_message(payload: &(dyn Any + Send)) -> String {
    payload
        .downcast_ref::<&str>()
        .map(|s| (*s).to_owned())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "a panic with a non-text payload".to_owned())
}

/// Polls `inner`, turning a panic during a poll into `Err(message)`.
pub struct CatchUnwind<F>(pub F);

impl<F: Future + Unpin> Future for CatchUnwind<F> {
    type Output = Result<F::Output, String>;
    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let inner = &mut self.0;
        match catch_unwind(AssertUnwindSafe(|| Pin::new(inner).poll(cx))) {
            Ok(Poll::Ready(v)) => Poll::Ready(Ok(v)),
            Ok(Poll::Pending) => Poll::Pending,
            Err(payload) => Poll::Ready(Err(panic_message(payload.as_ref()))),
        }
    }
}

/// Polls every future until all are done; outputs in input order.
pub fn join_all<T>(futures: Vec<BoxFuture<T>>) -> impl Future<Output = Vec<T>> {
    JoinAll {
        slots: futures.into_iter().map(Slot::Running).collect(),
    }
}

enum Slot<T> {
    Running(BoxFuture<T>),
    Done(Option<T>),
}

struct JoinAll<T> {
    slots: Vec<Slot<T>>,
}

impl<T> Unpin for JoinAll<T> {}

impl<T> Future for JoinAll<T> {
    type Output = Vec<T>;
    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Vec<T>> {
        let mut pending = false;
        for slot in self.slots.iter_mut() {
            if let Slot::Running(f) = slot {
                match f.as_mut().poll(cx) {
                    Poll::Ready(v) => *slot = Slot::Done(Some(v)),
                    Poll::Pending => pending = true,
                }
            }
        }
        if pending {
            return Poll::Pending;
        }
        let out = self
            .slots
            .iter_mut()
            .filter_map(|s| match s {
                Slot::Done(v) => v.take(),
                Slot::Running(_) => None,
            })
            .collect();
        Poll::Ready(out)
    }
}

/// Shared between a worker thread and the future waiting for it.
struct Shared<T> {
    state: Mutex<(Option<T>, Option<Waker>)>,
    done: Condvar,
}

fn shared<T>() -> Arc<Shared<T>> {
    Arc::new(Shared {
        state: Mutex::new((None, None)),
        done: Condvar::new(),
    })
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    // A panic while holding these locks cannot leave them inconsistent.
    m.lock().unwrap_or_else(|e| e.into_inner())
}

impl<T> Shared<T> {
    fn complete(&self, value: T) {
        let waker = {
            let mut s = lock(&self.state);
            s.0 = Some(value);
            s.1.take()
        };
        self.done.notify_all();
        if let Some(w) = waker {
            w.wake();
        }
    }

    fn poll_take(&self, cx: &mut Context<'_>) -> Poll<T> {
        let mut s = lock(&self.state);
        match s.0.take() {
            Some(v) => Poll::Ready(v),
            None => {
                s.1 = Some(cx.waker().clone());
                Poll::Pending
            }
        }
    }
}

/// Runs a blocking closure on its own thread; the future resolves with its
/// result, or with the panic message if it panicked.
pub fn on_thread<T: Send + 'static>(
    f: impl FnOnce() -> T + Send + 'static,
) -> impl Future<Output = Result<T, String>> + Send {
    let slot = shared();
    let worker = slot.clone();
    let spawned = thread::Builder::new()
        .name("tool-call".into())
        .spawn(move || {
            let result = catch_unwind(AssertUnwindSafe(f)).map_err(|p| panic_message(p.as_ref()));
            worker.complete(result);
        });
    let spawn_error = spawned
        .err()
        .map(|e| format!("could not start a thread: {e}"));
    std::future::poll_fn(move |cx| match &spawn_error {
        Some(e) => Poll::Ready(Err(e.clone())),
        None => slot.poll_take(cx),
    })
}

/// Resolves after `duration`, woken by a timer thread (no runtime needed).
pub fn sleep(duration: Duration) -> impl Future<Output = ()> + Send {
    let deadline = Instant::now() + duration;
    let slot = shared::<()>();
    let mut started = false;
    std::future::poll_fn(move |cx| {
        if Instant::now() >= deadline {
            return Poll::Ready(());
        }
        if !started {
            started = true;
            let timer = slot.clone();
            let spawned = thread::Builder::new()
                .name("tool-timeout".into())
                .spawn(move || {
                    let now = Instant::now();
                    if deadline > now {
                        thread::sleep(deadline - now);
                    }
                    timer.complete(());
                });
            if spawned.is_err() {
                return Poll::Ready(()); // no timer: give up waiting rather than hang
            }
        }
        slot.poll_take(cx)
    })
}

/// `future`'s output, or `None` if `limit` passes first.
pub async fn timeout<F: Future + Unpin>(limit: Duration, mut future: F) -> Option<F::Output> {
    let mut timer = std::pin::pin!(sleep(limit));
    std::future::poll_fn(move |cx| {
        if let Poll::Ready(v) = Pin::new(&mut future).poll(cx) {
            return Poll::Ready(Some(v));
        }
        timer.as_mut().poll(cx).map(|()| None)
    })
    .await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn joins_in_order_and_times_out() {
        let futures: Vec<BoxFuture<u32>> = vec![
            Box::pin(async {
                sleep(Duration::from_millis(30)).await;
                1
            }),
            Box::pin(async { 2 }),
        ];
        assert_eq!(block_on(join_all(futures)), vec![1, 2]);
        let slow = Box::pin(sleep(Duration::from_secs(5)));
        let start = Instant::now();
        assert_eq!(block_on(timeout(Duration::from_millis(20), slow)), None);
        assert!(start.elapsed() < Duration::from_secs(2));
    }

    #[test]
    fn threads_report_panics() {
        let out = block_on(on_thread(|| -> u8 { panic!("boom") }));
        assert_eq!(out, Err("boom".to_string()));
        assert_eq!(block_on(on_thread(|| 7)), Ok(7));
    }

    #[test]
    fn catch_unwind_while_polling() {
        let fut: BoxFuture<u8> = Box::pin(async { panic!("inside {}", 1) });
        assert_eq!(block_on(CatchUnwind(fut)), Err("inside 1".to_string()));
    }
}
