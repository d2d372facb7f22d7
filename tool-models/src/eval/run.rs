//! Asking a model each case and judging its answer: one model in the
//! calling thread, or several (one per concurrent request) on threads of
//! their own. Each thread keeps its own process of BFCL's tool classes
//! for multi-turn cases ([`super::conversation`]).

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc;
use std::time::Instant;

use tool_runtime::{CancelToken, ToolChoice};

use super::ask::ask;
use super::checker::check;
use super::conversation;
use super::decoded::Decoded;
use super::options::RunOptions;
use super::tool_classes::ToolClasses;
use super::{Case, CaseResult};
use crate::chat::{ChatModel, TurnRequest};

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
        Some(turns) => conversation::evaluate(case, turns, model, options, classes),
        None => evaluate_single(case, model, options),
    }
}

/// A single-turn case: one request, its calls judged by the AST checker.
fn evaluate_single(case: &Case, model: &mut dyn ChatModel, options: &RunOptions) -> CaseResult {
    let tools = options.shown(&case.tools);
    let choice = ToolChoice::Auto;
    let cancel = CancelToken::new();
    let request = TurnRequest::new(&case.messages, &tools, &choice).cancelled_by(&cancel);
    let prompt = model.prompt(&request);
    let started = Instant::now();
    let watchdog = options.watch(&cancel);
    let answer = ask(model, &request);
    drop(watchdog);
    let mut result = CaseResult::blank(case, started.elapsed().as_secs_f64());
    result.prompt = prompt;
    // Whatever a cancelled turn wrote is not the model's answer.
    match (answer, options.past_limit(&cancel)) {
        (_, Some(why)) => result.failed(why),
        (Err(e), None) => result.failed(e.to_string()),
        (Ok(answer), None) => {
            let decoded = Decoded::from_parsed(&answer.parsed);
            result.judged(check(case, &decoded));
            match decoded {
                Decoded::Calls(calls) => result.decoded = Some(calls),
                Decoded::Failed(why) => result.decode_error = Some(why),
            }
            result.raw = answer.raw;
            result.calls = answer.parsed.tool_calls;
            result.prompt_tokens = answer.stats.prompt_tokens;
            result.generated_tokens = answer.stats.generated_tokens;
        }
    }
    result
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
