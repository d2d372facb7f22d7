//! How cases are run: the options, the progress a multi-turn case
//! reports, and the watchdog that enforces a case's time limit.

use std::borrow::Cow;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{mpsc, Arc};
use std::time::Duration;

use tool_runtime::{CancelToken, ToolDefinition};

/// Where a multi-turn case is, reported before each request to the model.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CaseProgress<'a> {
    /// The case's id.
    pub id: &'a str,
    /// The user turn, from 0.
    pub turn: usize,
    /// How many turns the case has.
    pub turns: usize,
    /// The step within the turn, from 0 (each step with calls adds one).
    pub step: usize,
}

/// What hears of multi-turn progress ([`RunOptions::progress`]).
pub type OnProgress = Arc<dyn Fn(&CaseProgress<'_>) + Send + Sync>;

/// How cases are run.
#[derive(Clone, Default)]
pub struct RunOptions {
    /// Mark every free string and number parameter grounded (see
    /// [`tool_runtime::grounding`]): a local model may then only copy runs of
    /// the user's words there, or numbers the conversation writes. Remote
    /// engines ignore it.
    pub grounded: bool,
    /// Set to stop: no case starts after it is set; the cases already
    /// answered are kept.
    pub stop: Option<Arc<AtomicBool>>,
    /// The longest a case may take: past it the model's turn is cancelled
    /// (a local model stops at its next token, a remote request is
    /// dropped) and the case counts as an engine error. A multi-turn case
    /// gets it whole, all turns together.
    pub case_timeout: Option<Duration>,
    /// Hears where each multi-turn case is (from the thread running it).
    pub progress: Option<OnProgress>,
}

impl std::fmt::Debug for RunOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RunOptions")
            .field("grounded", &self.grounded)
            .field("stop", &self.stop)
            .field("case_timeout", &self.case_timeout)
            .field("progress", &self.progress.as_ref().map(|_| "…"))
            .finish()
    }
}

impl RunOptions {
    pub(super) fn stopped(&self) -> bool {
        self.stop
            .as_ref()
            .is_some_and(|s| s.load(Ordering::Relaxed))
    }

    /// The tools as the model is shown them: every free string and number
    /// grounded when [`grounded`](Self::grounded) asks for it.
    pub(super) fn shown<'a>(&self, tools: &'a [ToolDefinition]) -> Cow<'a, [ToolDefinition]> {
        if !self.grounded {
            return Cow::Borrowed(tools);
        }
        Cow::Owned(
            tools
                .iter()
                .map(|t| t.free_strings_grounded().free_numbers_grounded())
                .collect(),
        )
    }

    /// Starts the case's time limit, which cancels `cancel` when it passes
    /// (nothing when the run sets none); dropping the watchdog ends it.
    pub(super) fn watch(&self, cancel: &CancelToken) -> Option<Watchdog> {
        self.case_timeout
            .map(|limit| Watchdog::start(limit, cancel.clone()))
    }

    /// Why the case failed, when its time limit cancelled `cancel`.
    pub(super) fn past_limit(&self, cancel: &CancelToken) -> Option<String> {
        let limit = self.case_timeout.filter(|_| cancel.is_cancelled())?;
        Some(format!(
            "the case ran past its time limit of {} s",
            limit.as_secs_f64()
        ))
    }
}

/// Cancels a case's turn when its time limit passes, unless dropped first.
pub(super) struct Watchdog {
    /// Dropped when the case ends, which wakes the thread at once.
    _done: mpsc::Sender<()>,
}

impl Watchdog {
    fn start(limit: Duration, cancel: CancelToken) -> Watchdog {
        let (done, ended) = mpsc::channel::<()>();
        std::thread::spawn(move || {
            if let Err(mpsc::RecvTimeoutError::Timeout) = ended.recv_timeout(limit) {
                cancel.cancel();
            }
        });
        Watchdog { _done: done }
    }
}
