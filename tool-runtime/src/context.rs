//! What a running call knows beyond its arguments: which call it is, whether
//! it has been cancelled, where its progress goes, and the data the caller
//! attached to the run ([`Extensions`]).
//!
//! A tool asks for it by taking a `&ToolContext` parameter, which the model
//! never sees:
//!
//! ```
//! use tool_runtime::{RunContext, ToolCall, ToolContext, Toolbox};
//! # use tool_runtime::{Invocation, Tool, ToolDefinition};
//! # use serde_json::{json, Map, Value};
//! # use std::sync::{Arc, OnceLock};
//! struct User(&'static str);
//!
//! // What `#[tool] fn whoami(context: &ToolContext) -> String` generates, by hand.
//! struct WhoAmI;
//! impl Tool for WhoAmI {
//!     fn name(&self) -> &str { "whoami" }
//!     fn definition(&self) -> &ToolDefinition {
//!         static D: OnceLock<ToolDefinition> = OnceLock::new();
//!         D.get_or_init(|| ToolDefinition::from_json(&json!({"type": "function", "function": {
//!             "name": "whoami", "parameters": {"type": "object", "properties": {}}}})).unwrap())
//!     }
//!     fn invoke(self: Arc<Self>, _: Map<String, Value>, context: ToolContext) -> Invocation {
//!         Invocation::Blocking(Box::new(move || {
//!             Ok(context.get::<User>().map_or("nobody", |u| u.0).into())
//!         }))
//!     }
//! }
//!
//! let toolbox = Toolbox::new().with(WhoAmI)?;
//! let run = RunContext::new().with(User("ada"));
//! let answer = toolbox.call_in_blocking(&ToolCall::new("call_1", "whoami", json!({})), &run);
//! assert_eq!(answer.text(), "ada");
//! # Ok::<(), tool_runtime::ToolboxError>(())
//! ```

use std::any::{Any, TypeId};
use std::collections::HashMap;
use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll, Waker};

/// A flag that says "stop", shared by whoever may cancel and whoever works.
/// A [`child`](CancelToken::child) is cancelled with its parent, and alone;
/// one made by [`or`](CancelToken::or) with either of its two.
#[derive(Clone, Default)]
pub struct CancelToken(Arc<CancelState>);

#[derive(Default)]
struct CancelState {
    cancelled: AtomicBool,
    /// Tasks waiting in [`CancelToken::cancelled`], woken on cancellation.
    waiting: Mutex<Vec<Waker>>,
    /// Cancelling any of these cancels this one.
    parents: Vec<CancelToken>,
}

impl CancelToken {
    /// A token nobody has cancelled yet.
    pub fn new() -> CancelToken {
        CancelToken::default()
    }

    /// A token cancelled when this one is, or on its own.
    pub fn child(&self) -> CancelToken {
        CancelToken(Arc::new(CancelState {
            parents: vec![self.clone()],
            ..CancelState::default()
        }))
    }

    /// A token cancelled when this one or `other` is, or on its own: work
    /// that two callers may each stop (a model's own options and the run
    /// asking it).
    pub fn or(&self, other: &CancelToken) -> CancelToken {
        CancelToken(Arc::new(CancelState {
            parents: vec![self.clone(), other.clone()],
            ..CancelState::default()
        }))
    }

    /// Cancels this token and its children, and wakes whoever waits on them.
    pub fn cancel(&self) {
        self.0.cancelled.store(true, Ordering::SeqCst);
        let waiting = std::mem::take(&mut *lock(&self.0.waiting));
        for waker in waiting {
            waker.wake();
        }
    }

    /// Whether this token or one of its ancestors was cancelled.
    pub fn is_cancelled(&self) -> bool {
        self.0.cancelled.load(Ordering::SeqCst)
            || self.0.parents.iter().any(CancelToken::is_cancelled)
    }

    /// Resolves once the token is cancelled (at once if it already is).
    pub fn cancelled(&self) -> Cancelled {
        Cancelled(self.clone())
    }

    /// Runs `future` until it finishes (`Some`) or the token is cancelled
    /// (`None`, the future dropped). Cancellation wins a tie: what the
    /// future returns once cancelled is discarded.
    pub async fn run_until_cancelled<F: Future>(&self, future: F) -> Option<F::Output> {
        let mut future = std::pin::pin!(future);
        let mut cancelled = self.cancelled();
        std::future::poll_fn(|cx| {
            if Pin::new(&mut cancelled).poll(cx).is_ready() {
                return Poll::Ready(None);
            }
            future.as_mut().poll(cx).map(Some)
        })
        .await
    }

    /// Registers `waker` with this token and every ancestor: any of them
    /// being cancelled wakes it.
    fn wait(&self, waker: &Waker) {
        {
            let mut waiting = lock(&self.0.waiting);
            if !waiting.iter().any(|w| w.will_wake(waker)) {
                waiting.push(waker.clone());
            }
        }
        for parent in &self.0.parents {
            parent.wait(waker);
        }
    }
}

/// Two tokens are equal when they are one token (clones of each other).
impl PartialEq for CancelToken {
    fn eq(&self, other: &CancelToken) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}

impl fmt::Debug for CancelToken {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("CancelToken")
            .field("cancelled", &self.is_cancelled())
            .finish()
    }
}

/// A poisoned lock only means a waker list whose owner panicked; the list
/// itself is still whole.
fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// The future of [`CancelToken::cancelled`].
#[derive(Debug)]
#[must_use = "futures do nothing unless awaited"]
pub struct Cancelled(CancelToken);

impl Future for Cancelled {
    type Output = ();
    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        if self.0.is_cancelled() {
            return Poll::Ready(());
        }
        self.0.wait(cx.waker());
        // A cancel between the check and the registration found no waker.
        if self.0.is_cancelled() {
            Poll::Ready(())
        } else {
            Poll::Pending
        }
    }
}

/// Typed data the caller attaches to a run, for its tools to read with
/// [`ToolContext::get`]: the user a request acts for, a database pool, an
/// HTTP request's headers. One value per type; cloning is cheap.
#[derive(Clone, Default)]
pub struct Extensions(Arc<HashMap<TypeId, Arc<dyn Any + Send + Sync>>>);

impl Extensions {
    /// No data.
    pub fn new() -> Extensions {
        Extensions::default()
    }

    /// Adds `value`, replacing the value of its type there was.
    pub fn insert<T: Send + Sync + 'static>(&mut self, value: T) {
        Arc::make_mut(&mut self.0).insert(TypeId::of::<T>(), Arc::new(value));
    }

    /// The value of type `T`, if one was added.
    pub fn get<T: Send + Sync + 'static>(&self) -> Option<&T> {
        self.0.get(&TypeId::of::<T>())?.downcast_ref()
    }

    /// How many values there are.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// True when there are none.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

impl fmt::Debug for Extensions {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Extensions({} values)", self.len())
    }
}

/// How far a running call has got, as its tool reported it.
#[derive(Clone, Debug, PartialEq)]
pub struct ToolProgress {
    /// The call's id.
    pub call_id: String,
    /// The tool's name.
    pub tool: String,
    /// Work done so far; it grows with each report.
    pub done: f64,
    /// The whole work, when the tool knows it.
    pub total: Option<f64>,
    /// What the tool is doing, in its words.
    pub message: Option<String>,
}

/// Where progress reports go: the agent's event stream, an MCP client's
/// `notifications/progress`, a terminal. Called on the tool's thread.
pub type ProgressSink = Arc<dyn Fn(ToolProgress) + Send + Sync>;

/// What a run gives every call it makes: the data its tools may read, the
/// token that cancels them all, and where their progress goes. The default
/// has no data, is never cancelled and drops progress.
#[derive(Clone, Default)]
pub struct RunContext {
    extensions: Extensions,
    cancel: CancelToken,
    progress: Option<ProgressSink>,
}

impl RunContext {
    /// No data, not cancelled, progress dropped.
    pub fn new() -> RunContext {
        RunContext::default()
    }

    /// Adds a value the tools can read with [`ToolContext::get`].
    pub fn with<T: Send + Sync + 'static>(mut self, value: T) -> RunContext {
        self.extensions.insert(value);
        self
    }

    /// Sets all the data at once, replacing what was added.
    pub fn with_extensions(mut self, extensions: Extensions) -> RunContext {
        self.extensions = extensions;
        self
    }

    /// Cancels the run's calls when `token` is cancelled.
    pub fn with_cancel(mut self, token: CancelToken) -> RunContext {
        self.cancel = token;
        self
    }

    /// Sends the calls' progress to `sink` as well as to the sink already
    /// set, if any (which hears each report first): how an agent or a
    /// server listens without taking the caller's sink away.
    pub fn and_progress(self, sink: impl Fn(ToolProgress) + Send + Sync + 'static) -> RunContext {
        match self.progress.clone() {
            None => self.with_progress(sink),
            Some(first) => self.with_progress(move |report: ToolProgress| {
                first(report.clone());
                sink(report);
            }),
        }
    }

    /// Sends the calls' progress to `sink`, replacing any sink set before.
    pub fn with_progress(
        mut self,
        sink: impl Fn(ToolProgress) + Send + Sync + 'static,
    ) -> RunContext {
        self.progress = Some(Arc::new(sink));
        self
    }

    /// The data the tools can read.
    pub fn extensions(&self) -> &Extensions {
        &self.extensions
    }

    /// The token that cancels the run's calls.
    pub fn cancel_token(&self) -> &CancelToken {
        &self.cancel
    }

    /// The context of one call of this run: its own token, a child of the
    /// run's, so that a timeout cancels the call alone.
    pub fn context_for(&self, call_id: &str, tool: &str) -> ToolContext {
        ToolContext {
            call_id: call_id.to_owned(),
            tool: tool.to_owned(),
            cancel: self.cancel.child(),
            progress: self.progress.clone(),
            extensions: self.extensions.clone(),
        }
    }
}

impl fmt::Debug for RunContext {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RunContext")
            .field("extensions", &self.extensions)
            .field("cancel", &self.cancel)
            .field("progress", &self.progress.is_some())
            .finish()
    }
}

/// What one running call knows beyond its arguments. A `#[tool]` function
/// receives it by taking a `&ToolContext` parameter (anywhere in its
/// parameter list; it is not part of the schema). Cloning is cheap, and a
/// clone sees the same cancellation.
#[derive(Clone)]
pub struct ToolContext {
    call_id: String,
    tool: String,
    cancel: CancelToken,
    progress: Option<ProgressSink>,
    extensions: Extensions,
}

impl ToolContext {
    /// The context of a call made outside any run: no data, never
    /// cancelled unless through [`cancel_token`](ToolContext::cancel_token),
    /// progress dropped. For calling a tool by hand, and for tests.
    pub fn new(call_id: &str, tool: &str) -> ToolContext {
        RunContext::new().context_for(call_id, tool)
    }

    /// The id of the call, as the model (or the API) gave it.
    pub fn call_id(&self) -> &str {
        &self.call_id
    }

    /// The name of the tool called.
    pub fn tool_name(&self) -> &str {
        &self.tool
    }

    /// Whether the call was cancelled: its time ran out, the run was
    /// cancelled or dropped, or the client cancelled the request. A tool
    /// that can stop early checks it between steps; whatever it returns
    /// after cancellation is discarded.
    pub fn is_cancelled(&self) -> bool {
        self.cancel.is_cancelled()
    }

    /// Resolves when the call is cancelled: for an `async` tool to race its
    /// work against.
    pub fn cancelled(&self) -> Cancelled {
        self.cancel.cancelled()
    }

    /// The call's cancellation token, to hand to work the tool starts.
    pub fn cancel_token(&self) -> &CancelToken {
        &self.cancel
    }

    /// Reports progress: `done` of `total` (when known), with a message.
    /// Goes to whoever listens to the run; dropped when nobody does.
    pub fn progress(&self, done: f64, total: Option<f64>, message: Option<&str>) {
        if let Some(sink) = &self.progress {
            sink(ToolProgress {
                call_id: self.call_id.clone(),
                tool: self.tool.clone(),
                done,
                total,
                message: message.map(str::to_owned),
            });
        }
    }

    /// The value of type `T` the caller attached to the run, if any.
    pub fn get<T: Send + Sync + 'static>(&self) -> Option<&T> {
        self.extensions.get()
    }

    /// All the data the caller attached to the run.
    pub fn extensions(&self) -> &Extensions {
        &self.extensions
    }
}

impl fmt::Debug for ToolContext {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ToolContext")
            .field("call_id", &self.call_id)
            .field("tool", &self.tool)
            .field("cancelled", &self.is_cancelled())
            .field("extensions", &self.extensions)
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::exec::block_on;
    use std::time::Duration;

    #[test]
    fn a_child_is_cancelled_with_its_parent_and_alone() {
        let run = CancelToken::new();
        let (a, b) = (run.child(), run.child());
        a.cancel();
        assert!(a.is_cancelled() && !b.is_cancelled() && !run.is_cancelled());
        run.cancel();
        assert!(b.is_cancelled());
    }

    #[test]
    fn cancelled_wakes_a_waiting_task_from_another_thread() {
        let token = CancelToken::new().child();
        let parent_side = token.0.parents[0].clone();
        let canceller = std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(20));
            parent_side.cancel();
        });
        block_on(token.cancelled());
        assert!(token.is_cancelled());
        canceller.join().unwrap();
    }

    #[test]
    fn either_of_two_cancels_their_or_and_wakes_its_waiter() {
        for which in 0..2 {
            let (a, b) = (CancelToken::new(), CancelToken::new());
            let both = a.or(&b);
            assert!(!both.is_cancelled());
            let side = [a.clone(), b.clone()][which].clone();
            let canceller = std::thread::spawn(move || {
                std::thread::sleep(Duration::from_millis(20));
                side.cancel();
            });
            block_on(both.cancelled());
            assert!(both.is_cancelled());
            assert_eq!(a.is_cancelled(), which == 0);
            assert_eq!(b.is_cancelled(), which == 1);
            canceller.join().unwrap();
        }
        let (a, b) = (CancelToken::new(), CancelToken::new());
        let both = a.or(&b);
        both.cancel();
        assert!(
            !a.is_cancelled() && !b.is_cancelled(),
            "alone, it cancels only itself"
        );
    }

    #[test]
    fn run_until_cancelled_drops_the_work() {
        let token = CancelToken::new();
        token.cancel();
        let out = block_on(token.run_until_cancelled(std::future::pending::<()>()));
        assert_eq!(out, None);
        let fresh = CancelToken::new();
        assert_eq!(block_on(fresh.run_until_cancelled(async { 7 })), Some(7));
    }

    #[test]
    fn extensions_hold_one_value_per_type() {
        let mut e = Extensions::new();
        e.insert(3u8);
        e.insert(String::from("ada"));
        e.insert(4u8);
        assert_eq!(e.get::<u8>(), Some(&4));
        assert_eq!(e.get::<String>().map(String::as_str), Some("ada"));
        assert_eq!(e.get::<u16>(), None);
        assert_eq!(e.len(), 2);
    }

    #[test]
    fn progress_reaches_the_sink_with_the_call() {
        let seen = Arc::new(Mutex::new(Vec::new()));
        let sink = seen.clone();
        let run = RunContext::new().with_progress(move |p| sink.lock().unwrap().push(p));
        let context = run.context_for("call_7", "countdown");
        context.progress(1.0, Some(3.0), Some("one"));
        context.progress(2.0, None, None);
        let seen = seen.lock().unwrap();
        assert_eq!(seen.len(), 2);
        assert_eq!(
            seen[0],
            ToolProgress {
                call_id: "call_7".into(),
                tool: "countdown".into(),
                done: 1.0,
                total: Some(3.0),
                message: Some("one".into()),
            }
        );
        assert_eq!((seen[1].done, seen[1].total), (2.0, None));
    }
}
