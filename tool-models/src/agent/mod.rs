//! The agent loop: generate, parse, dispatch, append, repeat.
//!
//! [`Agent::run`] renders the conversation with the toolbox's definitions,
//! lets the model write a turn, reads the calls with the model family's
//! streaming parser, runs them through the [`Toolbox`] (several calls of one
//! turn concurrently), appends the assistant and tool messages, and goes
//! again until the model answers without a call. A failing tool or an
//! unreadable call becomes a tool message starting with `Error: ` that the
//! model reads next round; only a failing model or `max_rounds` stop a run.
//!
//! ```
//! use tool_models::agent::{Agent, ChatModel, ModelDelta, Turn, TurnRequest};
//! use tool_models::parse::Format;
//! use tool_runtime::{Message, Tool, Toolbox};
//!
//! // A scripted "model": first a call, then an answer using its result.
//! struct Scripted(Vec<&'static str>);
//! impl ChatModel for Scripted {
//!     fn format(&self) -> Format { Format::Hermes }
//!     fn respond(
//!         &mut self,
//!         _: &TurnRequest<'_>,
//!         out: &mut dyn FnMut(ModelDelta<'_>),
//!     ) -> Result<Turn, Box<dyn std::error::Error + Send + Sync>> {
//!         let text = self.0.remove(0).to_string();
//!         out(ModelDelta::Text(&text));
//!         Ok(Turn { text, stats: Default::default() })
//!     }
//! }
//!
//! # fn toolbox() -> Toolbox { Toolbox::new() }
//! let model = Scripted(vec![
//!     r#"<tool_call>{"name": "nope", "arguments": {}}</tool_call>"#,
//!     "Sorry, I have no such tool.",
//! ]);
//! let run = Agent::new(model, toolbox()).run(vec![Message::user("Hi")]).unwrap();
//! assert_eq!(run.answer, "Sorry, I have no such tool.");
//! assert!(run.messages[2].text().starts_with("Error: unknown tool `nope`"));
//! assert_eq!(run.stats.rounds, 2);
//! ```

mod error;
mod event;
#[cfg(feature = "local")]
mod local;
mod stats;

pub use error::AgentError;
pub use event::AgentEvent;
#[cfg(feature = "local")]
pub use local::{LocalChat, LocalChatError};
pub use stats::{RunStats, TurnStats};

use std::time::Instant;

use serde_json::Value;
use tool_runtime::{DefinitionFormat, InvalidToolCall, Message, ToolCall, Toolbox};

use crate::parse::{Format, ParseOptions, StreamEvent};
use tool_runtime::ToolChoice;

/// What the model is asked for in one round.
#[derive(Debug, Clone, Copy)]
pub struct TurnRequest<'a> {
    /// The conversation so far.
    pub messages: &'a [Message],
    /// The tools offered, as transformers-style definitions.
    pub tools: &'a [Value],
    /// Whether and which tool the model must call this round.
    pub tool_choice: &'a ToolChoice,
}

/// One generated assistant turn.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Turn {
    /// The raw text, tool-call markup included.
    pub text: String,
    /// Token counts and timings.
    pub stats: TurnStats,
}

/// What a model writes while it answers.
#[derive(Debug, Clone, PartialEq)]
pub enum ModelDelta<'a> {
    /// Raw text in the model's [`format`](ChatModel::format), tool-call
    /// markup included: the agent parses it (a local model).
    Text(&'a str),
    /// Output the model has already parsed (a remote engine that returns
    /// structured calls): passed on as it is.
    Parsed(StreamEvent),
}

/// A model the agent can drive.
pub trait ChatModel {
    /// The format the model writes its tool calls in, for the
    /// [`ModelDelta::Text`] it produces.
    fn format(&self) -> Format;

    /// Writes the assistant's next turn, passing its output to `out` as it
    /// is generated: raw text, parsed events, or both.
    fn respond(
        &mut self,
        request: &TurnRequest<'_>,
        out: &mut dyn FnMut(ModelDelta<'_>),
    ) -> Result<Turn, Box<dyn std::error::Error + Send + Sync>>;
}

/// The outcome of a run that ended with an answer.
#[derive(Debug, Clone, PartialEq)]
pub struct AgentRun {
    /// The whole transcript: the input messages, then every assistant and
    /// tool message of the run.
    pub messages: Vec<Message>,
    /// The final answer's text.
    pub answer: String,
    /// Token counts and timings.
    pub stats: RunStats,
}

/// Runs a model and a toolbox until the model answers.
pub struct Agent<M> {
    model: M,
    toolbox: Toolbox,
    max_rounds: usize,
    tool_choice: ToolChoice,
}

/// A call as parsed, readable or not, in the order the model wrote it.
enum Parsed {
    Call(ToolCall),
    Invalid(InvalidToolCall),
}

impl<M: ChatModel> Agent<M> {
    /// An agent with at most 8 rounds and `ToolChoice::Auto`.
    pub fn new(model: M, toolbox: Toolbox) -> Agent<M> {
        Agent {
            model,
            toolbox,
            max_rounds: 8,
            tool_choice: ToolChoice::Auto,
        }
    }

    /// The most model turns a run may take (at least 1).
    pub fn max_rounds(mut self, rounds: usize) -> Agent<M> {
        self.max_rounds = rounds.max(1);
        self
    }

    /// Whether the model must call a tool. `Required` and `Named` apply to
    /// the first round only (later rounds are `Auto`), or the model could
    /// never give its answer.
    pub fn tool_choice(mut self, choice: ToolChoice) -> Agent<M> {
        self.tool_choice = choice;
        self
    }

    /// The model.
    pub fn model(&self) -> &M {
        &self.model
    }

    /// The model, to change its settings between runs.
    pub fn model_mut(&mut self) -> &mut M {
        &mut self.model
    }

    /// The toolbox.
    pub fn toolbox(&self) -> &Toolbox {
        &self.toolbox
    }

    /// Runs the conversation `messages` to an answer.
    pub fn run(&mut self, messages: Vec<Message>) -> Result<AgentRun, AgentError> {
        self.run_with(messages, &mut |_| {})
    }

    /// [`Agent::run`], reporting each step to `on_event` as it happens.
    pub fn run_with(
        &mut self,
        mut messages: Vec<Message>,
        on_event: &mut dyn FnMut(AgentEvent),
    ) -> Result<AgentRun, AgentError> {
        let started = Instant::now();
        let tools = self.toolbox.definitions(DefinitionFormat::Transformers);
        let format = self.model.format();
        let options = ParseOptions {
            tools: tools.clone(),
            ..ParseOptions::default()
        };
        let mut stats = RunStats::default();
        let mut last_calls = String::new();
        for round in 1..=self.max_rounds {
            on_event(AgentEvent::RoundStart { round });
            let choice = match (&self.tool_choice, round) {
                (ToolChoice::Required | ToolChoice::Named(_), r) if r > 1 => ToolChoice::Auto,
                (choice, _) => choice.clone(),
            };
            let request = TurnRequest {
                messages: &messages,
                tools: &tools,
                tool_choice: &choice,
            };
            let mut parser = format.stream(&options);
            let mut content: Option<String> = None;
            let mut reasoning: Option<String> = None;
            let mut parsed = Vec::new();
            let mut take = |events: Vec<StreamEvent>, on_event: &mut dyn FnMut(AgentEvent)| {
                for event in events {
                    match event {
                        StreamEvent::Content(s) => {
                            content.get_or_insert_with(String::new).push_str(&s);
                            on_event(AgentEvent::TextDelta(s));
                        }
                        StreamEvent::Reasoning(s) => {
                            reasoning.get_or_insert_with(String::new).push_str(&s);
                            on_event(AgentEvent::ReasoningDelta(s));
                        }
                        StreamEvent::ToolCallStart { index, id, name } => {
                            on_event(AgentEvent::ToolCallStart { index, id, name });
                        }
                        StreamEvent::ToolCallArguments { index, delta } => {
                            on_event(AgentEvent::ToolCallArguments { index, delta });
                        }
                        StreamEvent::ToolCallEnd { call, .. } => {
                            on_event(AgentEvent::ToolCall(call.clone()));
                            parsed.push(Parsed::Call(call));
                        }
                        StreamEvent::InvalidToolCall(call) => parsed.push(Parsed::Invalid(call)),
                    }
                }
            };
            let turn = self.model.respond(&request, &mut |delta| match delta {
                ModelDelta::Text(text) => take(parser.feed(text), on_event),
                ModelDelta::Parsed(event) => take(vec![event], on_event),
            });
            let turn = match turn {
                Ok(turn) => turn,
                Err(e) => {
                    return Err(AgentError::Model {
                        round,
                        message: e.to_string(),
                        messages,
                    })
                }
            };
            take(parser.finish(), on_event);
            stats.add(turn.stats);
            on_event(AgentEvent::TurnEnd { stats: turn.stats });

            if parsed.is_empty() {
                let answer = content.clone().unwrap_or_default();
                let mut message = Message::assistant(answer.clone());
                message.reasoning = reasoning;
                messages.push(message);
                on_event(AgentEvent::Answer(answer.clone()));
                stats.wall_s = started.elapsed().as_secs_f64();
                return Ok(AgentRun {
                    messages,
                    answer,
                    stats,
                });
            }

            let (calls, answers) = self.dispatch(parsed, on_event);
            last_calls = calls
                .iter()
                .map(|c| c.name.as_str())
                .collect::<Vec<_>>()
                .join(", ");
            let mut message = Message::assistant_calls(content, calls);
            message.reasoning = reasoning;
            messages.push(message);
            messages.extend(answers);
        }
        Err(AgentError::MaxRounds {
            rounds: self.max_rounds,
            last_calls,
            messages,
        })
    }

    /// Runs the readable calls concurrently and answers the unreadable ones
    /// with their error; returns the calls for the assistant message and the
    /// tool messages, both in the model's order.
    fn dispatch(
        &self,
        parsed: Vec<Parsed>,
        on_event: &mut dyn FnMut(AgentEvent),
    ) -> (Vec<ToolCall>, Vec<Message>) {
        let runnable: Vec<ToolCall> = parsed
            .iter()
            .filter_map(|p| match p {
                Parsed::Call(c) => Some(c.clone()),
                Parsed::Invalid(_) => None,
            })
            .collect();
        let mut results = self.toolbox.call_all_blocking(&runnable).into_iter();
        let mut calls = Vec::with_capacity(parsed.len());
        let mut answers = Vec::with_capacity(parsed.len());
        for (index, p) in parsed.into_iter().enumerate() {
            match p {
                Parsed::Call(call) => {
                    let Some(message) = results.next() else {
                        break;
                    };
                    on_event(AgentEvent::ToolResult {
                        message: message.clone(),
                    });
                    calls.push(call);
                    answers.push(message);
                }
                Parsed::Invalid(bad) => {
                    let call = unreadable_call(&bad, index);
                    let message = Message::tool(
                        call.id.clone(),
                        call.name.clone(),
                        format!("Error: {}", bad.error),
                    );
                    on_event(AgentEvent::InvalidToolCall {
                        message: message.clone(),
                    });
                    calls.push(call);
                    answers.push(message);
                }
            }
        }
        (calls, answers)
    }
}

/// The transcript's record of a call that could not be read: what the model
/// wrote, kept as a string, so the next round shows it its own mistake.
fn unreadable_call(bad: &InvalidToolCall, index: usize) -> ToolCall {
    ToolCall::new(
        bad.id.clone().unwrap_or_else(|| format!("call_{index}")),
        bad.name.clone().unwrap_or_else(|| "unknown".to_owned()),
        Value::String(bad.raw_arguments.clone().unwrap_or_default()),
    )
}
