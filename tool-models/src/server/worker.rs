//! The generation thread: one model on the CPU serves the requests of a
//! bounded queue in arrival order, decoding up to `max_batch` of them
//! together on the project's decoder (see [`super::batch`]) and one at a
//! time on candle's models.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc::{sync_channel, SyncSender, TrySendError};
use std::sync::Arc;

use tokio::sync::mpsc::UnboundedSender;

use super::error::ApiError;
use super::request::{Finish, Request};
use crate::agent::{ChatModel, LocalChat, TurnRequest, Usage};
use crate::generate::{CancelFlag, GenerateOptions, Generation, StopReason};
use crate::parse::{ParseOptions, StreamEvent, StreamParser};
use tool_runtime::ToolDefinition;

/// A request waiting for the model.
pub(crate) struct Job {
    pub request: Request,
    /// Raised when the client goes away: a queued job is skipped, a running
    /// one stops at its next token.
    pub cancel: CancelFlag,
    pub replies: UnboundedSender<Reply>,
}

/// What the worker tells the request's handler, in this order: `Started`
/// or `Failed`, then events, then `Done` or `Failed`.
#[derive(Debug)]
pub(crate) enum Reply {
    /// The prompt was rendered and fits: generation begins.
    Started {
        /// Its tokens (Anthropic's `message_start` reports them).
        prompt_tokens: usize,
    },
    /// Parsed output.
    Event(StreamEvent),
    Done {
        finish: Finish,
        usage: Usage,
    },
    Failed(ApiError),
}

/// The handle the HTTP side submits jobs through.
#[derive(Debug, Clone)]
pub(crate) struct Worker {
    jobs: SyncSender<Job>,
    max_queue: usize,
    load: Arc<Load>,
}

/// What the worker is doing, for `/health`.
#[derive(Debug, Default)]
pub(super) struct Load {
    /// Requests waiting for the model.
    pub queued: AtomicUsize,
    /// Requests generating.
    pub generating: AtomicUsize,
}

impl Worker {
    /// Starts the thread that owns the model, which decodes up to
    /// `max_batch` requests together where the model allows it.
    pub fn spawn(
        chat: LocalChat,
        defaults: GenerateOptions,
        max_queue: usize,
        max_batch: usize,
    ) -> std::io::Result<Worker> {
        let (jobs, queue) = sync_channel::<Job>(max_queue);
        let load = Arc::new(Load::default());
        let seen = Arc::clone(&load);
        std::thread::Builder::new()
            .name("tool-use-model".into())
            .spawn(move || {
                let mut chat = chat;
                if max_batch > 1 && chat.model().kv_bytes_per_position().is_some() {
                    return super::batch::run(&mut chat, &defaults, &queue, &seen, max_batch);
                }
                for job in queue {
                    seen.queued.fetch_sub(1, Ordering::Relaxed);
                    if job.cancel.is_cancelled() {
                        continue;
                    }
                    seen.generating.store(1, Ordering::Relaxed);
                    // A bug in one request must not take the server down.
                    let outcome =
                        catch_unwind(AssertUnwindSafe(|| serve(&mut chat, &defaults, &job)))
                            .unwrap_or_else(|_| {
                                Err(ApiError::internal("generation failed unexpectedly"))
                            });
                    seen.generating.store(0, Ordering::Relaxed);
                    if let Err(e) = outcome {
                        let _ = job.replies.send(Reply::Failed(e));
                    }
                }
            })?;
        Ok(Worker {
            jobs,
            max_queue,
            load,
        })
    }

    /// Queues a job, or refuses it at once when the queue is full.
    pub fn submit(&self, job: Job) -> Result<(), ApiError> {
        self.load.queued.fetch_add(1, Ordering::Relaxed);
        self.jobs.try_send(job).map_err(|e| {
            self.load.queued.fetch_sub(1, Ordering::Relaxed);
            match e {
                TrySendError::Full(_) => ApiError::busy(self.max_queue),
                TrySendError::Disconnected(_) => ApiError::internal("the model thread has stopped"),
            }
        })
    }

    /// Requests waiting, and requests generating.
    pub fn load(&self) -> (usize, usize) {
        (
            self.load.queued.load(Ordering::Relaxed),
            self.load.generating.load(Ordering::Relaxed),
        )
    }
}

/// Runs one request, sending its replies as they come.
fn serve(chat: &mut LocalChat, defaults: &GenerateOptions, job: &Job) -> Result<(), ApiError> {
    let r = &job.request;
    let turn = TurnRequest {
        messages: &r.messages,
        tools: &r.tools,
        tool_choice: &r.tool_choice,
    };
    let prepared = chat.prepare(&turn, r.answer_schema.as_ref())?;
    let started = Reply::Started {
        prompt_tokens: prepared.prompt_tokens(),
    };
    if job.replies.send(started).is_err() {
        return Ok(());
    }
    let options = options_for(r, defaults, &job.cancel);
    let mut out = Forward::new(chat, job);
    let generation = chat.generate(prepared, &options, &mut |text| out.text(text))?;
    out.done(generation);
    Ok(())
}

/// The generation options of request `r`: its own, else the server's.
pub(super) fn options_for(
    r: &Request,
    defaults: &GenerateOptions,
    cancel: &CancelFlag,
) -> GenerateOptions {
    GenerateOptions {
        max_new_tokens: r.max_tokens.unwrap_or(defaults.max_new_tokens),
        temperature: r.temperature.unwrap_or(defaults.temperature),
        top_p: r.top_p.unwrap_or(defaults.top_p),
        seed: r.seed.or(defaults.seed),
        stop_strings: if r.stop.is_empty() {
            defaults.stop_strings.clone()
        } else {
            r.stop.clone()
        },
        ignore_eos: r.ignore_eos.unwrap_or(defaults.ignore_eos),
        cancel: Some(cancel.clone()),
        ..defaults.clone()
    }
}

/// Parses a request's text as it comes and passes the events on; with
/// `parallel_tool_calls: false`, ends the answer after its first call.
pub(super) struct Forward {
    replies: UnboundedSender<Reply>,
    cancel: CancelFlag,
    parser: StreamParser,
    one_call: bool,
    calls: usize,
}

impl Forward {
    pub(super) fn new(chat: &LocalChat, job: &Job) -> Forward {
        let r = &job.request;
        Forward {
            replies: job.replies.clone(),
            cancel: job.cancel.clone(),
            parser: chat.format().stream(&ParseOptions {
                tools: r.tools.iter().map(ToolDefinition::to_json).collect(),
                ..ParseOptions::default()
            }),
            one_call: !r.parallel_tool_calls,
            calls: 0,
        }
    }

    /// Text the model wrote.
    pub(super) fn text(&mut self, text: &str) {
        for event in self.parser.feed(text) {
            self.send(event);
        }
    }

    /// Ends the answer: the rest of the parse, then `Done`.
    pub(super) fn done(mut self, generation: Generation) {
        for event in self.parser.finish() {
            self.send(event);
        }
        let finish = if self.calls > 0 {
            Finish::ToolCalls
        } else {
            match generation.stop_reason {
                StopReason::MaxTokens | StopReason::ContextFull => Finish::Length,
                StopReason::StopString(s) => Finish::StopSequence(s),
                _ => Finish::Stop,
            }
        };
        let usage = generation.stats.usage();
        let _ = self.replies.send(Reply::Done { finish, usage });
    }

    /// Ends the answer with an error.
    pub(super) fn fail(self, error: ApiError) {
        let _ = self.replies.send(Reply::Failed(error));
    }

    fn send(&mut self, event: StreamEvent) {
        if self.one_call && self.calls > 0 {
            return;
        }
        if matches!(event, StreamEvent::ToolCallEnd { .. }) {
            self.calls += 1;
            if self.one_call {
                self.cancel.cancel();
            }
        }
        if self.replies.send(Reply::Event(event)).is_err() {
            // The client is gone.
            self.cancel.cancel();
        }
    }
}
