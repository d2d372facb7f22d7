//! Continuous batching: the requests in flight decode together, a step
//! at a time.
//!
//! Each turn of the loop takes requests from the queue while they fit,
//! then runs one pass (see [`crate::generate::Sequence`]): the next token
//! of every request decoding, and beside them the next chunk of the
//! prompts that have joined (up to [`PREFILL_PER_STEP`] prompt tokens, in
//! the order they came), each continuing the cached conversation it
//! continues. Each weight matrix is read once for all of them, and the
//! answers being decoded wait for one chunk of a long prompt, not all of
//! it. A request leaves when it ends; each keeps its own constraint,
//! sampling, stop strings, `max_tokens` and cancellation, and gets,
//! greedy, the tokens it gets alone.
//!
//! A request reserves the KV cache it may grow to (prompt plus
//! `max_tokens`, at most the context) against the session's KV budget. One
//! whose prompt alone exceeds the budget is refused (400); one that could
//! grow past it is held to what fits (`finish_reason: "length"`); one that
//! does not fit beside the requests in flight waits for them, and the queue
//! behind it fills up to its 503.

use std::collections::VecDeque;
use std::ops::Range;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::Ordering;
use std::sync::mpsc::{Receiver, TryRecvError};
use std::time::Instant;

use super::error::ApiError;
use super::job::{options_for, prepare_turn, Forward, Job, Load, Reply};
use crate::generate::{Decoding, GenerateError, GenerateOptions, Sequence, TokenConstraint};
use crate::local::{LocalChat, LocalChatError, PreparedTurn};
use crate::model::{Model, Tokenizer};
use tool_runtime::CancelToken;

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
    stage: Stage<'t>,
}

/// Where a request in the batch is.
enum Stage<'t> {
    /// Its prompt runs, a chunk a pass.
    Prompt {
        options: GenerateOptions,
        /// Prompt tokens the cache held when it joined.
        reused: usize,
        start: Instant,
    },
    /// Its answer is decoded, a token a pass.
    Answer {
        decoding: Box<Decoding<'t>>,
        /// The logits after the last token the sequence ran.
        logits: Vec<f32>,
    },
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
    // The worker runs this loop only where the model runs sequences
    // together, whose caches have a size per position.
    let per_position = chat.model().kv_bytes_per_position().unwrap_or(0);
    let mut waiting: VecDeque<Ready> = VecDeque::new();
    let mut active: Vec<Active<'_>> = Vec::new();
    let mut open = true;
    while open || !waiting.is_empty() || !active.is_empty() {
        // A bug in one step must not take the server down: the requests
        // in flight fail, the caches are dropped, and the loop goes on.
        let outcome = catch_unwind(AssertUnwindSafe(|| {
            let mut joining = Vec::new();
            loop {
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
                joining.push(ready);
            }
            active.extend(admit(chat, joining, load));
            step(chat, &tokenizer, &mut active, load);
        }));
        if outcome.is_err() {
            for a in active.drain(..) {
                a.forward
                    .fail(ApiError::internal("generation failed unexpectedly"));
                load.generating.fetch_sub(1, Ordering::Relaxed);
            }
            chat.session_mut().reset_cache();
        }
    }
}

/// Prompt tokens a pass runs beside the requests decoding (at least one
/// chunk): a burst of short prompts runs at once, and the answers being
/// decoded wait for a pass over at most this many.
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
    let (prompt, context) = (turn.prompt_tokens(), chat.model().context_length());
    let budget = chat.session().kv_budget();
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
    let budget = chat.session().kv_budget();
    let reserved: usize = active.iter().map(|a| a.sequence.reserved()).sum::<usize>()
        + joining
            .iter()
            .map(|r| r.positions * per_position)
            .sum::<usize>();
    active.len() + joining.len() < max_batch
        && (budget == 0 || reserved + ready.positions * per_position <= budget)
}

/// Makes the requests joining part of the batch, each with the cached
/// sequence its prompt continues; their prompts run in the passes to come
/// (a prompt the cache holds whole goes straight to its answer there).
fn admit<'t>(chat: &mut LocalChat, joining: Vec<Ready>, load: &Load) -> Vec<Active<'t>> {
    let mut joined = Vec::with_capacity(joining.len());
    for ready in joining {
        load.queued.fetch_sub(1, Ordering::Relaxed);
        if ready.job.cancel.is_cancelled() {
            continue;
        }
        let taken = match chat
            .session_mut()
            .take_sequence(ready.turn.tokens(), ready.positions)
        {
            Some(result) => result.map_err(generate_error),
            None => Err(ApiError::internal(
                "this model decodes one request at a time (internal error)",
            )),
        };
        let (sequence, reused) = match taken {
            Ok(taken) => taken,
            Err(e) => {
                let _ = ready.job.replies.send(Reply::Failed(e));
                continue;
            }
        };
        let forward = Forward::new(chat, &ready.job);
        let (prompt, tokens, constraint) = ready.turn.into_parts();
        load.generating.fetch_add(1, Ordering::Relaxed);
        joined.push(Active {
            forward,
            prompt,
            tokens,
            constraint,
            sequence,
            stage: Stage::Prompt {
                options: ready.options,
                reused,
                start: ready.start,
            },
        });
    }
    joined
}

impl<'t> Active<'t> {
    /// Its prompt has run, leaving `logits`: its answer begins.
    fn answer(&mut self, model: &Model, tokenizer: &'t Tokenizer, logits: Vec<f32>) {
        let Stage::Prompt {
            options,
            reused,
            start,
        } = &self.stage
        else {
            return;
        };
        self.sequence.ran_prompt(&self.tokens, *reused, &logits);
        let decoding = Decoding::new(
            model,
            tokenizer.incremental(),
            options,
            self.tokens.len(),
            *reused,
            *start,
        );
        self.stage = Stage::Answer {
            decoding: Box::new(decoding),
            logits,
        };
    }
}

/// What a request in the batch runs in a pass.
enum Run {
    /// These tokens of its prompt.
    Chunk(Range<usize>),
    /// The token it sampled.
    Token(u32),
}

/// One pass: every request decoding samples its next token from its
/// logits (those that stop leave), then those tokens run together with
/// the next chunk of the prompts that fit beside them; a prompt that is
/// done starts its answer.
fn step<'t>(
    chat: &mut LocalChat,
    tokenizer: &'t Tokenizer,
    active: &mut Vec<Active<'t>>,
    load: &Load,
) {
    let mut runs: Vec<(usize, Run)> = Vec::with_capacity(active.len());
    let mut prompt_tokens = 0;
    let mut i = 0;
    while i < active.len() {
        let a = &mut active[i];
        let run = match &mut a.stage {
            Stage::Prompt { options, .. } => {
                if options
                    .cancel
                    .as_ref()
                    .is_some_and(CancelToken::is_cancelled)
                {
                    // The client left: what of the prompt ran is kept for
                    // a request that continues it.
                    finish(chat, active.remove(i), load, Some(left()));
                    continue;
                }
                let Some(chunk) = chat.session().next_chunk(&a.sequence, &a.tokens) else {
                    // The cache holds the prompt whole, with the logits
                    // after it: the answer begins, in this pass.
                    match a.sequence.held_logits().map(<[f32]>::to_vec) {
                        Some(logits) => a.answer(chat.model(), tokenizer, logits),
                        None => {
                            let error =
                                ApiError::internal("no logits after the prompt (internal error)");
                            finish(chat, active.remove(i), load, Some(error));
                        }
                    }
                    continue;
                };
                if prompt_tokens > 0 && prompt_tokens + chunk.len() > PREFILL_PER_STEP {
                    // Its turn comes in a later pass.
                    i += 1;
                    continue;
                }
                prompt_tokens += chunk.len();
                Run::Chunk(chunk)
            }
            Stage::Answer { decoding, logits } => {
                // The sampler works on a copy: the logits stay those of
                // the sequence, to keep with it for a prompt that
                // continues it.
                let mut logits = logits.clone();
                let constraint = a
                    .constraint
                    .as_mut()
                    .map(|c| &mut **c as &mut dyn TokenConstraint);
                let forward = &mut a.forward;
                match decoding.next(&mut logits, constraint, &mut |t| forward.text(t)) {
                    Ok(Some(token)) => Run::Token(token),
                    Ok(None) => {
                        finish(chat, active.remove(i), load, None);
                        continue;
                    }
                    Err(e) => {
                        finish(chat, active.remove(i), load, Some(generate_error(e)));
                        continue;
                    }
                }
            }
        };
        runs.push((i, run));
        i += 1;
    }
    if runs.is_empty() {
        return;
    }
    let ran = {
        let (mut sequences, mut tokens) = (Vec::new(), Vec::new());
        let mut runs = runs.iter().peekable();
        for (i, a) in active.iter_mut().enumerate() {
            let Some((_, run)) = runs.next_if(|(at, _)| *at == i) else {
                continue;
            };
            tokens.push(match run {
                Run::Chunk(range) => &a.tokens[range.clone()],
                Run::Token(token) => std::slice::from_ref(token),
            });
            sequences.push(&mut a.sequence);
        }
        chat.session_mut().run_together(&mut sequences, &tokens)
    };
    let logits = match ran {
        Ok(logits) => logits,
        Err(e) => {
            let error = generate_error(e);
            for (i, _) in runs.iter().rev() {
                finish(chat, active.remove(*i), load, Some(error.clone()));
            }
            return;
        }
    };
    for ((i, run), logits) in runs.into_iter().zip(logits) {
        let a = &mut active[i];
        match (&mut a.stage, run) {
            (Stage::Answer { logits: held, .. }, _) => *held = logits,
            // Else more of the prompt runs in the next pass.
            (Stage::Prompt { .. }, Run::Chunk(chunk)) if chunk.end == a.tokens.len() => {
                a.answer(chat.model(), tokenizer, logits);
            }
            (Stage::Prompt { .. }, _) => {}
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
        stage,
        ..
    } = a;
    let (decoding, logits) = match (stage, error) {
        (Stage::Answer { decoding, logits }, None) => (decoding, logits),
        (_, error) => {
            chat.session_mut().return_sequence(sequence, None);
            forward.fail(error.unwrap_or_else(|| {
                ApiError::internal("a request left before its answer (internal error)")
            }));
            return;
        }
    };
    let generation = match decoding.finish(&mut |t| forward.text(t)) {
        Ok(generation) => generation,
        Err(e) => {
            chat.session_mut().return_sequence(sequence, None);
            forward.fail(generate_error(e));
            return;
        }
    };
    chat.session_mut().return_sequence(sequence, Some(logits));
    // Remembering the turn only helps a prompt that continues it.
    let _ = chat.remember(prompt, tokens, &generation.tokens);
    forward.done(generation);
}

/// What a request whose client left is finished with (no one reads it).
fn left() -> ApiError {
    ApiError::internal("the client left before the answer")
}

/// A generation error as the API reports it.
fn generate_error(e: GenerateError) -> ApiError {
    ApiError::from(LocalChatError::Generate(e))
}
