//! One agent run's bookkeeping, shared by the blocking and the async loop:
//! what a round gathers from the model, and what the transcript becomes.

use std::time::Instant;

use serde_json::Value;
use tool_runtime::{InvalidToolCall, Message, SharedToolbox, ToolCall, ToolChoice, ToolDefinition};

use super::{AgentError, AgentEvent, AgentRun, Stopped};
use crate::chat::{ModelDelta, RunStats, Turn, TurnError, TurnRequest};
use crate::parse::{Format, ParseOptions, StreamEvent, StreamParser};

/// A call as parsed, readable or not, in the order the model wrote it.
pub(super) enum Parsed {
    Call(ToolCall),
    Invalid(InvalidToolCall),
}

/// What a round ended in.
pub(super) enum Step {
    /// The model answered: the run is over.
    Answered(AgentRun),
    /// The model called tools: run them, then go on.
    Calls(Calls),
}

/// A turn with calls, waiting for their results.
pub(super) struct Calls {
    content: Option<String>,
    reasoning: Option<String>,
    parsed: Vec<Parsed>,
}

impl Calls {
    /// The readable calls, to run.
    pub(super) fn runnable(&self) -> Vec<ToolCall> {
        self.parsed
            .iter()
            .filter_map(|p| match p {
                Parsed::Call(c) => Some(c.clone()),
                Parsed::Invalid(_) => None,
            })
            .collect()
    }
}

impl Calls {
    /// Puts the readable calls back, edited (by an approval hook).
    pub(super) fn set_runnable(&mut self, edited: Vec<ToolCall>) {
        let readable = self.parsed.iter_mut().filter_map(|p| match p {
            Parsed::Call(c) => Some(c),
            Parsed::Invalid(_) => None,
        });
        for (call, edited) in readable.zip(edited) {
            *call = edited;
        }
    }
}

/// The run so far.
pub(super) struct Run {
    started: Instant,
    /// The toolbox version `tools` are of.
    version: u64,
    tools: Vec<ToolDefinition>,
    format: Format,
    options: ParseOptions,
    stats: RunStats,
    messages: Vec<Message>,
    /// The last round's calls, as (name, arguments): what a repeat is
    /// compared with, and what `max_rounds` names.
    previous: Vec<(String, Value)>,
    /// The model repeated its last calls word for word: their results are
    /// in the transcript already, so the next round must answer.
    answer_now: bool,
}

/// What a round that must answer is asked: no calls.
static NO_CALLS: ToolChoice = ToolChoice::None;

/// What one round has gathered from the model.
pub(super) struct Round {
    parser: StreamParser,
    content: Option<String>,
    reasoning: Option<String>,
    parsed: Vec<Parsed>,
}

impl Run {
    /// A run of `toolbox`'s tools, their definitions checked.
    pub(super) fn new(
        toolbox: &SharedToolbox,
        format: Format,
        messages: Vec<Message>,
    ) -> Result<Run, AgentError> {
        let mut run = Run {
            started: Instant::now(),
            version: 0,
            tools: Vec::new(),
            options: ParseOptions::default(),
            format,
            stats: RunStats::default(),
            messages,
            previous: Vec::new(),
            answer_now: false,
        };
        run.take_tools(toolbox)?;
        Ok(run)
    }

    /// Takes the toolbox's tools, if they changed since the run last did.
    pub(super) fn refresh(&mut self, toolbox: &SharedToolbox) -> Result<(), AgentError> {
        if toolbox.version() == self.version {
            return Ok(());
        }
        self.take_tools(toolbox)
    }

    fn take_tools(&mut self, toolbox: &SharedToolbox) -> Result<(), AgentError> {
        let (version, toolbox) = toolbox.versioned();
        let json = toolbox.tool_definitions().map(ToolDefinition::as_json);
        let tools = match ToolDefinition::list_from_json(json) {
            Ok(tools) => tools,
            Err(error) => {
                let messages = std::mem::take(&mut self.messages);
                return Err(AgentError::Definitions { error, messages });
            }
        };
        self.version = version;
        self.options.tools = tools.clone();
        self.tools = tools;
        Ok(())
    }

    /// Checks a round's tool choice against the tools.
    pub(super) fn check(&mut self, choice: &ToolChoice) -> Result<(), AgentError> {
        choice
            .check(&self.tools)
            .map_err(|error| AgentError::ToolChoice {
                error,
                messages: std::mem::take(&mut self.messages),
            })
    }

    /// The transcript so far.
    pub(super) fn messages(&self) -> &[Message] {
        &self.messages
    }

    /// A new round, parsing raw text in the model's format.
    pub(super) fn round(&self) -> Round {
        Round {
            parser: self.format.stream(&self.options),
            content: None,
            reasoning: None,
            parsed: Vec::new(),
        }
    }

    /// What the model is asked this round: after calls repeated word for
    /// word, an answer (the results are in the transcript).
    pub(super) fn request<'a>(&'a self, choice: &'a ToolChoice) -> TurnRequest<'a> {
        TurnRequest::new(
            &self.messages,
            &self.tools,
            if self.answer_now { &NO_CALLS } else { choice },
        )
    }

    /// Whether `calls` are the last round's, word for word: a model (a small
    /// one, typically) going round in circles. They are not run again;
    /// the next round is asked for an answer instead. Asked once: a model
    /// that calls even then goes on as before.
    pub(super) fn repeats(&mut self, calls: &Calls) -> bool {
        let these: Vec<(String, Value)> = calls
            .parsed
            .iter()
            .filter_map(|p| match p {
                Parsed::Call(c) => Some((c.name.clone(), c.arguments.clone())),
                Parsed::Invalid(_) => None,
            })
            .collect();
        let repeated = !self.answer_now
            && !these.is_empty()
            && these.len() == calls.parsed.len()
            && these == self.previous;
        self.answer_now = repeated;
        repeated
    }

    /// Ends a round: the answer that ends the run, or the calls to run.
    pub(super) fn end_turn(
        &mut self,
        round: usize,
        mut state: Round,
        turn: Result<Turn, TurnError>,
        on_event: &mut (dyn FnMut(AgentEvent) + '_),
    ) -> Result<Step, AgentError> {
        let turn = match turn {
            Ok(turn) => turn,
            Err(e) => {
                return Err(AgentError::Model {
                    round,
                    message: e.to_string(),
                    messages: std::mem::take(&mut self.messages),
                })
            }
        };
        let rest = state.parser.finish();
        state.events(rest, on_event);
        self.stats.add(turn.stats);
        on_event(AgentEvent::TurnEnd { stats: turn.stats });
        if !state.parsed.is_empty() {
            return Ok(Step::Calls(Calls {
                content: state.content,
                reasoning: state.reasoning,
                parsed: state.parsed,
            }));
        }
        let answer = state.content.unwrap_or_default();
        let mut message = Message::assistant(answer.clone());
        message.reasoning = state.reasoning;
        self.messages.push(message);
        on_event(AgentEvent::Answer(answer.clone()));
        let mut stats = std::mem::take(&mut self.stats);
        stats.wall_s = self.started.elapsed().as_secs_f64();
        Ok(Step::Answered(AgentRun {
            messages: std::mem::take(&mut self.messages),
            answer,
            stats,
        }))
    }

    /// Appends the assistant's calls and their answers: `results` for the
    /// readable calls, in order; an error for each unreadable one.
    pub(super) fn dispatched(
        &mut self,
        calls: Calls,
        results: Vec<Message>,
        on_event: &mut (dyn FnMut(AgentEvent) + '_),
    ) {
        let mut results = results.into_iter();
        let mut made = Vec::with_capacity(calls.parsed.len());
        let mut answers = Vec::with_capacity(calls.parsed.len());
        for (index, p) in calls.parsed.into_iter().enumerate() {
            match p {
                Parsed::Call(call) => {
                    let Some(message) = results.next() else {
                        break;
                    };
                    on_event(AgentEvent::ToolResult {
                        message: message.clone(),
                    });
                    made.push(call);
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
                    made.push(call);
                    answers.push(message);
                }
            }
        }
        self.previous = made
            .iter()
            .map(|c| (c.name.clone(), c.arguments.clone()))
            .collect();
        let mut message = Message::assistant_calls(calls.content, made);
        message.reasoning = calls.reasoning;
        self.messages.push(message);
        self.messages.extend(answers);
    }

    /// Stops before `calls` run: the transcript so far, the turn, the
    /// readable calls waiting and the answers to the unreadable ones.
    pub(super) fn stop(&mut self, calls: Calls) -> Stopped {
        let mut made = Vec::with_capacity(calls.parsed.len());
        let mut pending = Vec::new();
        let mut answered = Vec::with_capacity(calls.parsed.len());
        for (index, p) in calls.parsed.into_iter().enumerate() {
            match p {
                Parsed::Call(call) => {
                    pending.push(call.clone());
                    made.push(call);
                    answered.push(None);
                }
                Parsed::Invalid(bad) => {
                    let call = unreadable_call(&bad, index);
                    let error = format!("Error: {}", bad.error);
                    answered.push(Some(Message::tool(
                        call.id.clone(),
                        call.name.clone(),
                        error,
                    )));
                    made.push(call);
                }
            }
        }
        let mut turn = Message::assistant_calls(calls.content, made);
        turn.reasoning = calls.reasoning;
        Stopped {
            messages: std::mem::take(&mut self.messages),
            turn,
            pending,
            answered,
        }
    }

    /// The error of a run whose token was cancelled before `round`.
    pub(super) fn cancelled(&mut self, round: usize) -> AgentError {
        AgentError::Cancelled {
            round,
            messages: std::mem::take(&mut self.messages),
        }
    }

    /// The error of a run that used all its rounds.
    pub(super) fn max_rounds(self, rounds: usize) -> AgentError {
        AgentError::MaxRounds {
            rounds,
            last_calls: self
                .previous
                .iter()
                .map(|(name, _)| name.as_str())
                .collect::<Vec<_>>()
                .join(", "),
            messages: self.messages,
        }
    }
}

impl Round {
    /// Takes what the model wrote: raw text through the parser, parsed
    /// events as they are.
    pub(super) fn take(
        &mut self,
        delta: ModelDelta<'_>,
        on_event: &mut (dyn FnMut(AgentEvent) + '_),
    ) {
        let events = match delta {
            ModelDelta::Text(text) => self.parser.feed(text),
            ModelDelta::Parsed(event) => vec![event],
        };
        self.events(events, on_event);
    }

    fn events(&mut self, events: Vec<StreamEvent>, on_event: &mut (dyn FnMut(AgentEvent) + '_)) {
        for event in events {
            match &event {
                StreamEvent::Content(s) => {
                    self.content.get_or_insert_with(String::new).push_str(s);
                }
                StreamEvent::Reasoning(s) => {
                    self.reasoning.get_or_insert_with(String::new).push_str(s);
                }
                StreamEvent::ToolCallStart { .. } | StreamEvent::ToolCallArguments { .. } => {}
                StreamEvent::ToolCallEnd { call, .. } => {
                    self.parsed.push(Parsed::Call(call.clone()));
                }
                StreamEvent::InvalidToolCall(call) => {
                    // Reported once its answer exists, in `dispatched`.
                    self.parsed.push(Parsed::Invalid(call.clone()));
                    continue;
                }
            }
            on_event(AgentEvent::Stream(event));
        }
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
