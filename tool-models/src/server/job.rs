//! A request waiting for the model, what its handler is told, and the
//! pieces both of the worker's loops (one request at a time, or a batch)
//! serve it with: its generation options, and its text parsed into the
//! replies.

use std::sync::atomic::AtomicUsize;

use tokio::sync::mpsc::UnboundedSender;

use super::error::ApiError;
use super::request::{Finish, Request};
use crate::chat::{ChatModel, TurnRequest, Usage};
use crate::generate::{GenerateOptions, Generation, StopReason};
use crate::local::{LocalChat, PreparedTurn};
use crate::parse::{ParseOptions, StreamEvent, StreamParser};
use tool_runtime::CancelToken;

/// A request waiting for the model.
pub(crate) struct Job {
    pub request: Request,
    /// Raised when the client goes away: a queued job is skipped, a running
    /// one stops at its next token.
    pub cancel: CancelToken,
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

/// What the worker is doing, for `/health`.
#[derive(Debug, Default)]
pub(super) struct Load {
    /// Requests waiting for the model.
    pub queued: AtomicUsize,
    /// Requests generating.
    pub generating: AtomicUsize,
}

/// The job's request rendered with the model's template, tokenised and
/// checked against the context, its constraint built.
pub(super) fn prepare_turn(chat: &mut LocalChat, job: &Job) -> Result<PreparedTurn, ApiError> {
    let r = &job.request;
    let turn = TurnRequest::new(&r.messages, &r.tools, &r.tool_choice);
    Ok(chat.prepare(&turn, r.answer_schema.as_ref())?)
}

/// The generation options of request `r`: its own, else the server's.
pub(super) fn options_for(
    r: &Request,
    defaults: &GenerateOptions,
    cancel: &CancelToken,
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
    cancel: CancelToken,
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
                tools: r.tools.clone(),
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
