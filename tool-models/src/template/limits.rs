//! Bounds on what an untrusted template may cost, and the per-render state
//! that enforces them.
//!
//! Templates come from downloaded models. minijinja's fuel bounds the number
//! of instructions and its recursion limit the call depth, but a handful of
//! instructions can double a string thirty times. So every hook the template
//! calls back into (the formatter, `range` iteration, `namespace`, filters,
//! methods) also checks the wall clock and the size of the strings held in
//! namespaces, the only values that can grow across loop iterations.

use super::clock::{Clock, DateTime};
use minijinja::{Error, ErrorKind, Value};
use std::cell::RefCell;
use std::time::{Duration, Instant};

/// What one render may cost.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Limits {
    /// minijinja instructions (fuel); `None` for no bound.
    pub fuel: Option<u64>,
    /// Nesting of macro calls, includes and recursive loops (at most 500).
    pub recursion: usize,
    /// Bytes of rendered output.
    pub max_output_bytes: usize,
    /// Bytes of text held in all `namespace()` objects together.
    pub max_namespace_bytes: usize,
    /// Number of `namespace()` objects one render may create.
    pub max_namespaces: usize,
    /// Wall-clock time for one render; `None` for no bound.
    pub timeout: Option<Duration>,
}

impl Default for Limits {
    /// Generous for every real chat template (a long conversation costs well
    /// under 1% of each), small enough that an adversarial one fails in
    /// about a second.
    fn default() -> Limits {
        Limits {
            fuel: Some(20_000_000),
            recursion: 200,
            max_output_bytes: 32 << 20,
            max_namespace_bytes: 32 << 20,
            max_namespaces: 4096,
            timeout: Some(Duration::from_secs(5)),
        }
    }
}

/// What the template's callbacks share during one render on this thread.
pub(crate) struct RenderState {
    pub(crate) clock: Clock,
    limits: Limits,
    deadline: Option<Instant>,
    namespaces: Vec<Value>,
    /// The message of `raise_exception`, kept apart so it is not mistaken
    /// for an engine error.
    pub(crate) raised: Option<String>,
    /// Which limit was exceeded, when one was.
    pub(crate) exceeded: Option<String>,
}

thread_local! {
    static CURRENT: RefCell<Option<RenderState>> = const { RefCell::new(None) };
}

/// Runs `render` with a fresh [`RenderState`] installed for this thread and
/// returns what it produced together with the state it left.
pub(crate) fn with_render_state<R>(
    clock: Clock,
    limits: &Limits,
    render: impl FnOnce() -> R,
) -> (R, RenderState) {
    let fresh = || RenderState {
        clock,
        deadline: limits.timeout.map(|t| Instant::now() + t),
        limits: limits.clone(),
        namespaces: Vec::new(),
        raised: None,
        exceeded: None,
    };
    // Restores the outer state on unwind too, so a panicking callback cannot
    // leave this render's state installed.
    struct Restore(Option<Option<RenderState>>);
    impl Drop for Restore {
        fn drop(&mut self) {
            if let Some(previous) = self.0.take() {
                CURRENT.with(|c| *c.borrow_mut() = previous);
            }
        }
    }
    let mut restore = Restore(Some(CURRENT.with(|c| c.replace(Some(fresh())))));
    let out = render();
    let previous = restore.0.take().unwrap_or(None);
    let state = CURRENT.with(|c| c.replace(previous));
    (out, state.unwrap_or_else(fresh))
}

fn with_state<R>(f: impl FnOnce(&mut RenderState) -> R) -> Option<R> {
    CURRENT.with(|c| c.borrow_mut().as_mut().map(f))
}

/// Records a limit as exceeded and returns the error that stops the render.
fn exceeded(state: &mut RenderState, what: String) -> Error {
    let err = Error::new(ErrorKind::InvalidOperation, what.clone());
    state.exceeded.get_or_insert(what);
    err
}

/// Checks the deadline and the namespaces' size; called from every hook.
pub(crate) fn check() -> Result<(), Error> {
    with_state(|state| {
        if let Some(deadline) = state.deadline {
            if Instant::now() > deadline {
                let t = state.limits.timeout.unwrap_or_default();
                return Err(exceeded(state, format!("render took longer than {t:?}")));
            }
        }
        if state.namespaces.is_empty() {
            return Ok(());
        }
        let mut total = 0usize;
        for ns in &state.namespaces {
            let Ok(keys) = ns.try_iter() else { continue };
            for key in keys {
                let value = ns.get_item(&key).unwrap_or_default();
                total = total.saturating_add(value.as_str().map_or(0, str::len));
            }
        }
        if total > state.limits.max_namespace_bytes {
            let max = state.limits.max_namespace_bytes;
            return Err(exceeded(
                state,
                format!("namespaces hold {total} bytes of text, more than the limit of {max}"),
            ));
        }
        Ok(())
    })
    .unwrap_or(Ok(()))
}

/// Tracks a namespace so that [`check`] can see how much text it holds.
pub(crate) fn register_namespace(ns: &Value) -> Result<(), Error> {
    with_state(|state| {
        if state.namespaces.len() >= state.limits.max_namespaces {
            let max = state.limits.max_namespaces;
            return Err(exceeded(
                state,
                format!("more than {max} namespaces created"),
            ));
        }
        state.namespaces.push(ns.clone());
        Ok(())
    })
    .unwrap_or(Ok(()))
}

/// Records the message of `raise_exception`.
pub(crate) fn record_raise(message: &str) {
    with_state(|state| {
        state.raised.get_or_insert_with(|| message.to_owned());
    });
}

/// The time on this render's clock.
pub(crate) fn now() -> DateTime {
    with_state(|state| state.clock.now()).unwrap_or_else(|| Clock::System.now())
}

/// Records that the output grew past its limit.
pub(crate) fn output_exceeded(len: usize, max: usize) -> Error {
    with_state(|state| {
        exceeded(
            state,
            format!("rendered output reached {len} bytes, more than the limit of {max}"),
        )
    })
    .unwrap_or_else(|| Error::new(ErrorKind::WriteFailure, "output limit exceeded"))
}

/// An output that stops the render once it holds more than `max` bytes.
pub(crate) struct LimitedOutput {
    pub(crate) buf: Vec<u8>,
    pub(crate) max: usize,
}

impl std::io::Write for LimitedOutput {
    fn write(&mut self, data: &[u8]) -> std::io::Result<usize> {
        if self.buf.len() + data.len() > self.max {
            let err = output_exceeded(self.buf.len() + data.len(), self.max);
            return Err(std::io::Error::other(err.to_string()));
        }
        self.buf.extend_from_slice(data);
        Ok(data.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}
