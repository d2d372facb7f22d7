//! Asking a model each case and judging its answer: one model in the
//! calling thread, or several (one per concurrent request) on threads of
//! their own. Each thread keeps its own process of BFCL's tool classes
//! for multi-turn cases.

use std::borrow::Cow;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{mpsc, Arc};
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};
use serde_json::Value;
use tool_runtime::{CancelToken, Message, ToolCall, ToolChoice, ToolDefinition};

use super::checker::{check, Verdict};
use super::decoded::Decoded;
use super::multi_turn::{self, TurnLog};
use super::tool_classes::ToolClasses;
use super::{Case, Category};
use crate::chat::{ChatModel, ModelDelta, TurnError, TurnRequest, TurnStats};
use crate::parse::{Collector, ParseOptions, ParsedResponse};

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
    fn stopped(&self) -> bool {
        self.stop
            .as_ref()
            .is_some_and(|s| s.load(Ordering::Relaxed))
    }
}

/// One case's outcome: what the model was asked and wrote, and the verdict.
/// A report's cases read back (`--resume`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CaseResult {
    /// BFCL's id.
    pub id: String,
    /// Its category.
    pub category: Category,
    /// The conversation the model was given.
    pub messages: Vec<Message>,
    /// The rendered prompt, where the engine renders it here (local models,
    /// raw completions); a tool API renders its own.
    pub prompt: Option<String>,
    /// What the model wrote: raw text with its tool-call markup, or the
    /// text beside the calls a tool API returned.
    pub raw: String,
    /// The calls read from it.
    pub calls: Vec<ToolCall>,
    /// The calls as BFCL's decoder reads them (`[{name: {args}}]`), when readable.
    pub decoded: Option<Vec<Value>>,
    /// Why no call could be read, when none could.
    pub decode_error: Option<String>,
    /// Whether the answer is right.
    pub valid: bool,
    /// BFCL's error type when it is not (`inference_error` when the
    /// engine failed).
    pub error_type: Option<String>,
    /// What was wrong.
    pub errors: Vec<String>,
    /// The engine's error, when asking failed (the case counts as wrong).
    pub engine_error: Option<String>,
    /// Seconds from asking to the answer.
    pub seconds: f64,
    /// Tokens in the prompt (as the engine counts them).
    pub prompt_tokens: usize,
    /// Tokens generated.
    pub generated_tokens: usize,
    /// A multi-turn case's turns: each step's calls and results, and what
    /// the turn ended with (empty for single-turn cases).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub turns: Vec<TurnLog>,
}

impl CaseResult {
    /// A result for `case` with nothing asked yet: wrong, no output.
    pub(super) fn blank(case: &Case, seconds: f64) -> CaseResult {
        CaseResult {
            id: case.id.clone(),
            category: case.category,
            messages: case.messages.clone(),
            prompt: None,
            raw: String::new(),
            calls: Vec::new(),
            decoded: None,
            decode_error: None,
            valid: false,
            error_type: None,
            errors: Vec::new(),
            engine_error: None,
            seconds,
            prompt_tokens: 0,
            generated_tokens: 0,
            turns: Vec::new(),
        }
    }
}

/// A model's answer to one request, parsed.
#[derive(Debug, Clone)]
pub struct Answer {
    /// The raw text (a tool API's text beside its calls).
    pub raw: String,
    /// Content and calls, as the agent would read them.
    pub parsed: ParsedResponse,
    /// Token counts and timings.
    pub stats: TurnStats,
}

/// Asks `model` for one turn and reads its calls as the agent does: raw
/// text through the model's parser, calls an engine parsed as they are.
///
/// # Errors
/// The model's error.
pub fn ask(model: &mut dyn ChatModel, request: &TurnRequest<'_>) -> Result<Answer, TurnError> {
    ask_knowing(model, request, request.tools)
}

/// [`ask`], the parser knowing `known` (a call to a tool it does not know
/// is set aside as invalid).
pub(super) fn ask_knowing(
    model: &mut dyn ChatModel,
    request: &TurnRequest<'_>,
    known: &[ToolDefinition],
) -> Result<Answer, TurnError> {
    let options = ParseOptions {
        tools: known.to_vec(),
        ..ParseOptions::default()
    };
    let mut parser = model.format().stream(&options);
    let mut collector = Collector::default();
    let turn = model.respond(request, &mut |delta| match delta {
        ModelDelta::Text(text) => collector.extend(parser.feed(text)),
        ModelDelta::Parsed(event) => collector.push(event),
    })?;
    collector.extend(parser.finish());
    Ok(Answer {
        raw: turn.text,
        parsed: collector.finish(),
        stats: turn.stats,
    })
}

/// Asks `model` one case and judges the answer. A multi-turn case starts
/// a process of BFCL's tool classes for itself ([`run`] and [`run_jobs`]
/// keep one per thread).
pub fn evaluate(case: &Case, model: &mut dyn ChatModel, options: &RunOptions) -> CaseResult {
    evaluate_in(case, model, options, &mut None)
}

/// [`evaluate`] with the thread's tool classes, started when first needed.
fn evaluate_in(
    case: &Case,
    model: &mut dyn ChatModel,
    options: &RunOptions,
    classes: &mut Option<ToolClasses>,
) -> CaseResult {
    match &case.multi_turn {
        Some(turns) => multi_turn::evaluate(case, turns, model, options, classes),
        None => evaluate_single(case, model, options),
    }
}

/// A single-turn case: one request, its calls judged by the AST checker.
fn evaluate_single(case: &Case, model: &mut dyn ChatModel, options: &RunOptions) -> CaseResult {
    let tools: Cow<'_, [ToolDefinition]> = if options.grounded {
        Cow::Owned(
            case.tools
                .iter()
                .map(|t| t.free_strings_grounded().free_numbers_grounded())
                .collect(),
        )
    } else {
        Cow::Borrowed(&case.tools)
    };
    let choice = ToolChoice::Auto;
    let cancel = CancelToken::new();
    let request = TurnRequest::new(&case.messages, &tools, &choice).cancelled_by(&cancel);
    let prompt = model.prompt(&request);
    let started = Instant::now();
    let watchdog = options
        .case_timeout
        .map(|limit| Watchdog::start(limit, cancel.clone()));
    let answer = ask(model, &request);
    drop(watchdog);
    let seconds = started.elapsed().as_secs_f64();
    // Whatever a cancelled turn wrote is not the model's answer.
    let answer = match (answer, options.case_timeout) {
        (_, Some(limit)) if cancel.is_cancelled() => Err(TurnError::from(format!(
            "the case ran past its time limit of {} s",
            limit.as_secs_f64()
        ))),
        (answer, _) => answer,
    };
    let mut result = CaseResult::blank(case, seconds);
    result.prompt = prompt;
    match answer {
        Ok(answer) => {
            let decoded = Decoded::from_parsed(&answer.parsed);
            let Verdict {
                valid,
                error_type,
                errors,
            } = check(case, &decoded);
            result.valid = valid;
            result.error_type = error_type;
            result.errors = errors;
            match decoded {
                Decoded::Calls(calls) => result.decoded = Some(calls),
                Decoded::Failed(why) => result.decode_error = Some(why),
            }
            result.raw = answer.raw;
            result.calls = answer.parsed.tool_calls;
            result.prompt_tokens = answer.stats.prompt_tokens;
            result.generated_tokens = answer.stats.generated_tokens;
        }
        Err(e) => {
            // Counted wrong whatever the category: a failed engine has
            // shown nothing, not the absence of a call.
            result.error_type = Some("inference_error".into());
            result.errors = vec![e.to_string()];
            result.engine_error = Some(e.to_string());
        }
    }
    result
}

/// Cancels a case's turn when its time limit passes, unless dropped first.
pub(super) struct Watchdog {
    /// Dropped when the case ends, which wakes the thread at once.
    _done: mpsc::Sender<()>,
}

impl Watchdog {
    pub(super) fn start(limit: Duration, cancel: CancelToken) -> Watchdog {
        let (done, ended) = mpsc::channel::<()>();
        std::thread::spawn(move || {
            if let Err(mpsc::RecvTimeoutError::Timeout) = ended.recv_timeout(limit) {
                cancel.cancel();
            }
        });
        Watchdog { _done: done }
    }
}

/// Runs `cases` on `model`, one after another, reporting each result to
/// `on_result` as it comes; the results in the cases' order (fewer when
/// stopped).
pub fn run(
    cases: &[Case],
    model: &mut dyn ChatModel,
    options: &RunOptions,
    on_result: &mut dyn FnMut(&CaseResult),
) -> Vec<CaseResult> {
    let mut results = Vec::with_capacity(cases.len());
    let mut classes = None;
    for case in cases {
        if options.stopped() {
            break;
        }
        let result = evaluate_in(case, model, options, &mut classes);
        on_result(&result);
        results.push(result);
    }
    results
}

/// Runs `cases` on several models at once, one thread each (one model per
/// concurrent request to an engine); `on_result` hears of each result as
/// it comes, in the calling thread. The results in the cases' order.
pub fn run_jobs<M: ChatModel + Send>(
    cases: &[Case],
    models: &mut [M],
    options: &RunOptions,
    on_result: &mut dyn FnMut(&CaseResult),
) -> Vec<CaseResult> {
    if let [model] = models {
        return run(cases, model, options, on_result);
    }
    let next = AtomicUsize::new(0);
    let mut slots: Vec<Option<CaseResult>> = vec![None; cases.len()];
    std::thread::scope(|scope| {
        let (send, receive) = mpsc::channel();
        for model in models.iter_mut() {
            let send = send.clone();
            let next = &next;
            scope.spawn(move || {
                let mut classes = None;
                loop {
                    if options.stopped() {
                        break;
                    }
                    let index = next.fetch_add(1, Ordering::Relaxed);
                    let Some(case) = cases.get(index) else {
                        break;
                    };
                    let result = evaluate_in(case, model, options, &mut classes);
                    if send.send((index, result)).is_err() {
                        break;
                    }
                }
            });
        }
        drop(send);
        for (index, result) in receive {
            on_result(&result);
            slots[index] = Some(result);
        }
    });
    slots.into_iter().flatten().collect()
}
