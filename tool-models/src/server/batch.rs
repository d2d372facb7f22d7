//! Continuous batching: the requests in flight decode together, a step
//! at a time.
//!
//! Each turn of the loop takes requests from the queue while they fit
//! (up to [`PREFILL_PER_STEP`] prompt tokens), runs their prompts together
//! (each continuing the cached conversation it continues), and then runs
//! one decode step for every request in flight at once (see
//! [`crate::generate::Sequence`]): each weight matrix is read once for all
//! of them. A request joins between two steps and leaves when it ends; each
//! keeps its own constraint, sampling, stop strings, `max_tokens` and
//! cancellation, and gets, greedy, the tokens it gets alone.
//!
//! A request reserves the KV cache it may grow to (prompt plus
//! `max_tokens`, at most the context) against the model's KV budget. One
//! whose prompt alone exceeds the budget is refused (400); one that could
//! grow past it is held to what fits (`finish_reason: "length"`); one that
//! does not fit beside the requests in flight waits for them, and the queue
//! behind it fills up to its 503.

use std::collections::VecDeque;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::Ordering;
use std::sync::mpsc::{Receiver, TryRecvError};
use std::time::Instant;

use super::error::ApiError;
use super::job::{options_for, prepare_turn, Forward, Job, Load, Reply};
use crate::agent::{LocalChat, LocalChatError, PreparedTurn};
use crate::generate::{Decoding, GenerateError, GenerateOptions, Sequence, TokenConstraint};
use crate::model::Tokenizer;

/// A request rendered and checked, waiting for room in the batch.
struct Ready {
    job: Job,
    turn: PreparedTurn,
    options: GenerateOptions,
    /// Positions its cache may grow to.
    positions: usize,
    start: Instant,
}

/// A request in the batch.
struct Active<'t> {
    forward: Forward,
    prompt: String,
    tokens: Vec<u32>,
    constraint: Option<Box<dyn TokenConstraint>>,
    sequence: Sequence,
    decoding: Decoding<'t>,
    /// The logits after the last token the sequence ran.
    logits: Vec<f32>,
}

/// Serves the queue until it closes, decoding up to `max_batch`
/// requests together.
pub(super) fn run(
    chat: &mut LocalChat,
    defaults: &GenerateOptions,
    queue: &Receiver<Job>,
    load: &Load,
    max_batch: usize,
) {
    let tokenizer = chat.model().shared_tokenizer();
    // The worker runs this loop only where the model batches, which is
    // where its cache has a size per position.
    let per_position = chat.model().kv_bytes_per_position().unwrap_or(0);
    let mut waiting: VecDeque<Ready> = VecDeque::new();
    let mut active: Vec<Active<'_>> = Vec::new();
    let mut open = true;
    while open || !waiting.is_empty() || !active.is_empty() {
        // A bug in one step must not take the server down: the requests
        // in flight fail, the caches are dropped, and the loop goes on.
        let outcome = catch_unwind(AssertUnwindSafe(|| {
            let (mut joining, mut tokens) = (Vec::new(), 0);
            while tokens < PREFILL_PER_STEP {
                if waiting.is_empty() && open {
                    let idle = active.is_empty() && joining.is_empty();
                    match next_job(queue, idle) {
                        Next::Job(job) => {
                            waiting.extend(intake(chat, defaults, per_position, *job, load))
                        }
                        Next::None => {}
                        Next::Closed => open = false,
                    }
                }
                let Some(ready) = waiting.pop_front() else {
                    break;
                };
                if !has_room(chat, per_position, &active, &joining, &ready, max_batch) {
                    waiting.push_front(ready);
                    break;
                }
                tokens += ready.turn.prompt_tokens();
                joining.push(ready);
            }
            if !joining.is_empty() {
                active.extend(admit(chat, &tokenizer, joining, load));
            }
            step(chat, &mut active, load);
        }));
        if outcome.is_err() {
            for a in active.drain(..) {
                a.forward
                    .fail(ApiError::internal("generation failed unexpectedly"));
                load.generating.fetch_sub(1, Ordering::Relaxed);
            }
            chat.model_mut().reset_cache();
        }
    }
}

/// Prompt tokens that may join the batch between two decode steps: a
/// burst of short requests joins at once, and the streams in flight pause
/// for about one long prompt at most.
const PREFILL_PER_STEP: usize = 1024;

/// What the queue gave.
enum Next {
    Job(Box<Job>),
    /// Nothing now.
    None,
    /// The server is shutting down.
    Closed,
}

/// The next job: waits for one when `idle` (nothing in flight), else
/// takes one only if it is there.
fn next_job(queue: &Receiver<Job>, idle: bool) -> Next {
    if idle {
        return queue
            .recv()
            .map_or(Next::Closed, |job| Next::Job(Box::new(job)));
    }
    match queue.try_recv() {
        Ok(job) => Next::Job(Box::new(job)),
        Err(TryRecvError::Empty) => Next::None,
        Err(TryRecvError::Disconnected) => Next::Closed,
    }
}

/// Reads a job off the queue into a request ready to join the batch;
/// `None` where it was cancelled or failed (its reply sent).
fn intake(
    chat: &mut LocalChat,
    defaults: &GenerateOptions,
    per_position: usize,
    job: Job,
    load: &Load,
) -> Option<Ready> {
    let start = Instant::now();
    let started = match prepare(chat, defaults, per_position, &job) {
        Ok((turn, options, positions)) if !job.cancel.is_cancelled() => {
            let prompt_tokens = turn.prompt_tokens();
            let ready = Ready {
                job,
                turn,
                options,
                positions,
                start,
            };
            let told = ready.job.replies.send(Reply::Started { prompt_tokens });
            told.is_ok().then_some(ready)
        }
        Ok(_) => None,
        Err(e) => {
            let _ = job.replies.send(Reply::Failed(e));
            None
        }
    };
    if started.is_none() {
        load.queued.fetch_sub(1, Ordering::Relaxed);
    }
    started
}

/// Renders the job's request, checks its options, and sizes its cache
/// against the KV budget: the turn, its options, and the positions its
/// cache may grow to.
fn prepare(
    chat: &mut LocalChat,
    defaults: &GenerateOptions,
    per_position: usize,
    job: &Job,
) -> Result<(PreparedTurn, GenerateOptions, usize), ApiError> {
    let turn = prepare_turn(chat, job)?;
    let mut options = options_for(&job.request, defaults, &job.cancel);
    options.check().map_err(ApiError::invalid)?;
    let model = chat.model();
    let (prompt, context) = (turn.prompt_tokens(), model.context_length());
    let budget = model.kv_budget();
    let mut positions = prompt + options.max_new_tokens.min(context - prompt);
    // A budget of 0 keeps no sequence for later; those in flight take
    // what they need.
    if budget > 0 {
        let fits = budget / per_position.max(1);
        if prompt >= fits {
            return Err(ApiError::param(
                "messages",
                format!(
                    "the prompt's {prompt} tokens need {} bytes of KV cache with room for one more, \
                     more than the server's KV budget of {budget} bytes (--kv-budget); \
                     shorten the conversation",
                    (prompt + 1) * per_position,
                ),
            ));
        }
        if positions > fits {
            positions = fits;
            options.max_new_tokens = fits - prompt;
        }
    }
    Ok((turn, options, positions))
}

/// Whether `ready` may join the batch now, after `joining`: a place in
/// it, and its cache's room beside those in flight. With none in flight,
/// always.
fn has_room(
    chat: &LocalChat,
    per_position: usize,
    active: &[Active<'_>],
    joining: &[Ready],
    ready: &Ready,
    max_batch: usize,
) -> bool {
    if active.is_empty() && joining.is_empty() {
        return true;
    }
    let budget = chat.model().kv_budget();
    let reserved: usize = active.iter().map(|a| a.sequence.reserved()).sum::<usize>()
        + joining
            .iter()
            .map(|r| r.positions * per_position)
            .sum::<usize>();
    active.len() + joining.len() < max_batch
        && (budget == 0 || reserved + ready.positions * per_position <= budget)
}

/// Runs the prompts of requests joining together and makes them part of
/// the batch; those that fail get their reply here.
fn admit<'t>(
    chat: &mut LocalChat,
    tokenizer: &'t Tokenizer,
    joining: Vec<Ready>,
    load: &Load,
) -> Vec<Active<'t>> {
    let mut seated = Vec::with_capacity(joining.len());
    for ready in joining {
        load.queued.fetch_sub(1, Ordering::Relaxed);
        if ready.job.cancel.is_cancelled() {
            continue;
        }
        let taken = match chat
            .model_mut()
            .take_sequence(ready.turn.tokens(), ready.positions)
        {
            Some(result) => result.map_err(generate_error),
            None => Err(ApiError::internal(
                "this model decodes one request at a time (internal error)",
            )),
        };
        match taken {
            Ok((sequence, reused)) => seated.push((ready, sequence, reused)),
            Err(e) => {
                let _ = ready.job.replies.send(Reply::Failed(e));
            }
        }
    }
    let model = chat.model_mut();
    let (mut sequences, prompts): (Vec<&mut Sequence>, Vec<&[u32]>) = seated
        .iter_mut()
        .map(|(r, s, _)| (s, r.turn.tokens()))
        .unzip();
    let ran = model.prefill_together(&mut sequences, &prompts);
    let all_logits = match ran {
        Ok(logits) => logits,
        Err(e) => {
            let error = generate_error(e);
            for (ready, sequence, _) in seated {
                model.return_sequence(sequence, None);
                let _ = ready.job.replies.send(Reply::Failed(error.clone()));
            }
            return Vec::new();
        }
    };
    let mut joined = Vec::with_capacity(seated.len());
    for ((ready, sequence, reused), logits) in seated.into_iter().zip(all_logits) {
        let (prompt, tokens, constraint) = ready.turn.into_parts();
        let decoding = Decoding::new(
            chat.model(),
            tokenizer.incremental(),
            &ready.options,
            tokens.len(),
            reused,
            ready.start,
        );
        load.generating.fetch_add(1, Ordering::Relaxed);
        joined.push(Active {
            forward: Forward::new(chat, &ready.job),
            prompt,
            tokens,
            constraint,
            sequence,
            decoding,
            logits,
        });
    }
    joined
}

/// One token for every request in flight: each samples from its logits,
/// those that go on run their tokens together, those that stopped leave.
fn step(chat: &mut LocalChat, active: &mut Vec<Active<'_>>, load: &Load) {
    let mut next = Vec::with_capacity(active.len());
    let mut i = 0;
    while i < active.len() {
        let a = &mut active[i];
        // The sampler works on a copy: the logits stay those of the
        // sequence, to keep with it for a prompt that continues it.
        let mut logits = a.logits.clone();
        let constraint = a
            .constraint
            .as_mut()
            .map(|c| &mut **c as &mut dyn TokenConstraint);
        let forward = &mut a.forward;
        match a
            .decoding
            .next(&mut logits, constraint, &mut |t| forward.text(t))
        {
            Ok(Some(token)) => {
                next.push(token);
                i += 1;
            }
            Ok(None) => finish(chat, active.swap_remove(i), load, None),
            Err(e) => finish(chat, active.swap_remove(i), load, Some(generate_error(e))),
        }
    }
    if active.is_empty() {
        return;
    }
    let mut sequences: Vec<&mut Sequence> = active.iter_mut().map(|a| &mut a.sequence).collect();
    match chat.model_mut().decode_together(&mut sequences, &next) {
        Ok(logits) => {
            for (a, logits) in active.iter_mut().zip(logits) {
                a.logits = logits;
            }
        }
        Err(e) => {
            let error = generate_error(e);
            for a in active.drain(..) {
                finish(chat, a, load, Some(error.clone()));
            }
        }
    }
}

/// A request leaves the batch: its answer ends (or fails with `error`),
/// its turn is remembered and its sequence kept for a prompt that
/// continues it.
fn finish(chat: &mut LocalChat, a: Active<'_>, load: &Load, error: Option<ApiError>) {
    load.generating.fetch_sub(1, Ordering::Relaxed);
    let Active {
        mut forward,
        prompt,
        tokens,
        sequence,
        decoding,
        logits,
        ..
    } = a;
    if let Some(e) = error {
        chat.model_mut().return_sequence(sequence, None);
        forward.fail(e);
        return;
    }
    let generation = match decoding.finish(&mut |t| forward.text(t)) {
        Ok(generation) => generation,
        Err(e) => {
            chat.model_mut().return_sequence(sequence, None);
            forward.fail(generate_error(e));
            return;
        }
    };
    chat.model_mut().return_sequence(sequence, Some(logits));
    // Remembering the turn only helps a prompt that continues it.
    let _ = chat.remember(prompt, tokens, &generation.tokens);
    forward.done(generation);
}

/// A generation error as the API reports it.
fn generate_error(e: GenerateError) -> ApiError {
    ApiError::from(LocalChatError::Generate(e))
}
