//! Driving a model through a multi-turn case, as BFCL's
//! `inference_multi_turn_FC` drives a tool API ([`super::multi_turn`] says
//! how), then judging the conversation ([`super::multi_turn_check`]).

use std::time::Instant;

use serde_json::Value;
use tool_runtime::{CancelToken, InvalidToolCall, Message, ToolCall, ToolChoice};

use super::ask::ask_knowing;
use super::multi_turn::{MultiTurn, Step, TurnLog, MORE_FUNCTIONS_PROMPT, STEP_LIMIT};
use super::multi_turn_check;
use super::options::{CaseProgress, RunOptions};
use super::tool_classes::{Side, ToolClasses, Written};
use super::{Case, CaseResult};
use crate::chat::{ChatModel, TurnError, TurnRequest};

/// A conversation as far as it went.
struct Conversation {
    messages: Vec<Message>,
    turns: Vec<TurnLog>,
    prompt: Option<String>,
    prompt_tokens: usize,
    generated_tokens: usize,
}

/// Asks `model` through every turn of the case, then judges the run.
pub(super) fn evaluate(
    case: &Case,
    multi_turn: &MultiTurn,
    model: &mut dyn ChatModel,
    options: &RunOptions,
    classes: &mut Option<ToolClasses>,
) -> CaseResult {
    let started = Instant::now();
    let cancel = CancelToken::new();
    let watchdog = options.watch(&cancel);
    let mut conversation = Conversation {
        messages: Vec::new(),
        turns: Vec::new(),
        prompt: None,
        prompt_tokens: 0,
        generated_tokens: 0,
    };
    let outcome = ready(classes, options).and_then(|classes| {
        converse(
            case,
            multi_turn,
            model,
            classes,
            options,
            &cancel,
            &mut conversation,
        )?;
        let turns: Vec<Vec<Vec<String>>> = conversation.turns.iter().map(TurnLog::calls).collect();
        multi_turn_check::check(&case.id, multi_turn, &turns, classes)
    });
    drop(watchdog);
    let mut result = CaseResult::blank(case, started.elapsed().as_secs_f64());
    result.prompt = conversation.prompt;
    result.prompt_tokens = conversation.prompt_tokens;
    result.generated_tokens = conversation.generated_tokens;
    result.raw = (conversation.turns.last())
        .map(|t| t.last.clone())
        .unwrap_or_default();
    match outcome {
        Ok(verdict) => result.judged(verdict),
        Err(e) => result.failed(options.past_limit(&cancel).unwrap_or(e)),
    }
    result.messages = conversation.messages;
    result.turns = conversation.turns;
    result
}

/// The worker's classes, started (again, if the last one died).
fn ready<'a>(
    classes: &'a mut Option<ToolClasses>,
    options: &RunOptions,
) -> Result<&'a mut ToolClasses, String> {
    let alive = classes.take().and_then(|mut c| c.alive().then_some(c));
    let current = match alive {
        Some(current) => current,
        None => ToolClasses::start(options.case_timeout)?,
    };
    Ok(classes.insert(current))
}

/// Drives the model through the turns, recording into `so_far`.
fn converse(
    case: &Case,
    multi_turn: &MultiTurn,
    model: &mut dyn ChatModel,
    classes: &mut ToolClasses,
    options: &RunOptions,
    cancel: &CancelToken,
    so_far: &mut Conversation,
) -> Result<(), String> {
    classes.begin(&case.id, multi_turn)?;
    let mut tools = options.shown(&case.tools).into_owned();
    // The parser knows every function of the classes, held-out ones too:
    // BFCL runs a call to one before it is offered, in its place.
    let mut known = tools.clone();
    known.extend(
        multi_turn
            .held_out
            .values()
            .flat_map(|(_, t)| t.iter().cloned()),
    );
    let choice = ToolChoice::Auto;
    let turns = multi_turn.turns.len();
    for (index, messages) in multi_turn.turns.iter().enumerate() {
        match multi_turn.held_out.get(&index) {
            Some((_, more)) => {
                tools.extend(options.shown(more).iter().cloned());
                so_far.messages.push(Message::user(MORE_FUNCTIONS_PROMPT));
            }
            None => so_far.messages.extend(messages.iter().cloned()),
        }
        let mut log = TurnLog::default();
        let mut force_quit = false;
        loop {
            if let Some(report) = &options.progress {
                report(&CaseProgress {
                    id: &case.id,
                    turn: index,
                    turns,
                    step: log.steps.len(),
                });
            }
            let request = TurnRequest::new(&so_far.messages, &tools, &choice).cancelled_by(cancel);
            if so_far.prompt.is_none() {
                so_far.prompt = model.prompt(&request);
            }
            let answer =
                ask_knowing(model, &request, &known).map_err(|e: TurnError| e.to_string())?;
            if cancel.is_cancelled() {
                return Err("cancelled".into());
            }
            so_far.prompt_tokens += answer.stats.prompt_tokens;
            so_far.generated_tokens += answer.stats.generated_tokens;
            let parsed = answer.parsed;
            if parsed.tool_calls.is_empty() && parsed.invalid_tool_calls.is_empty() {
                log.last = parsed.content.unwrap_or_default();
                so_far.messages.push(Message::assistant(log.last.clone()));
                break;
            }
            let (made, unreadable) = as_bfcl_reads(parsed.tool_calls, &parsed.invalid_tool_calls);
            let written = match unreadable {
                Some(why) => Written::Undecodable(why),
                None => classes.write(&made)?,
            };
            let calls = match written {
                Written::Calls(calls) => calls,
                Written::Undecodable(why) => {
                    log.last = answer.raw.clone();
                    log.undecodable = Some(why);
                    so_far.messages.push(Message::assistant(answer.raw));
                    break;
                }
            };
            let results = classes.run(Side::Conversation, &calls)?;
            let mut answers = Vec::with_capacity(made.len());
            for (call, result) in made.iter().zip(&results) {
                answers.push(Message::tool(call.id.clone(), call.name.clone(), result));
            }
            so_far
                .messages
                .push(Message::assistant_calls(parsed.content, made));
            so_far.messages.append(&mut answers);
            log.steps.push(Step {
                raw: answer.raw,
                calls,
                results,
            });
            if log.steps.len() > STEP_LIMIT {
                force_quit = true;
                break;
            }
        }
        so_far.turns.push(log);
        if force_quit {
            break;
        }
    }
    Ok(())
}

/// The calls as BFCL's decoder reads them: a call to a function no class
/// has (our parsers set it aside) is still a call, run by name as BFCL
/// runs it, after the others (its NameError changes no state); one whose
/// arguments are not a JSON object fails the step.
fn as_bfcl_reads(
    mut made: Vec<ToolCall>,
    set_aside: &[InvalidToolCall],
) -> (Vec<ToolCall>, Option<String>) {
    for invalid in set_aside {
        let arguments = invalid.raw_arguments.as_deref().map(|raw| {
            serde_json::from_str::<Value>(if raw.trim().is_empty() { "{}" } else { raw })
        });
        match (&invalid.name, arguments) {
            (Some(name), Some(Ok(arguments @ Value::Object(_)))) => {
                let id = invalid
                    .id
                    .clone()
                    .unwrap_or_else(|| format!("call_{}", made.len()));
                made.push(ToolCall::new(id, name.clone(), arguments));
            }
            (Some(name), _) => {
                let why = format!("a call to `{name}` could not be read: {}", invalid.error);
                return (made, Some(why));
            }
            (None, _) => {
                return (
                    made,
                    Some(format!("a call could not be read: {}", invalid.error)),
                )
            }
        }
    }
    (made, None)
}
