//! The agent loop: generate, parse, dispatch, append, repeat.
//!
//! [`Agent::run`] renders the conversation with the toolbox's definitions,
//! lets the model write a turn, reads the calls with the model family's
//! streaming parser, runs them through the
//! [`Toolbox`](tool_runtime::Toolbox) (several calls of one turn
//! concurrently), appends the assistant and tool messages, and goes
//! again until the model answers without a call. A failing tool or an
//! unreadable call becomes a tool message starting with `Error: ` that the
//! model reads next round; only a failing model or `max_rounds` stop a run.
//!
//! [`Agent::run`] blocks and needs no async runtime; [`Agent::run_async`]
//! awaits a model that implements [`AsyncChatModel`] (a remote engine) and
//! runs the calls on the caller's runtime. Both produce the same transcript
//! and the same [`AgentEvent`]s, whether the model hands over raw text
//! ([`ModelDelta::Text`], parsed here with its format's streaming parser)
//! or calls already parsed ([`ModelDelta::Parsed`]).
//!
//! ```
//! use tool_models::{agent::Agent, chat::{ChatModel, ModelDelta, Turn, TurnRequest}};
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

mod approval;
mod dispatch;
mod error;
mod event;
mod run;
mod trace;

pub use approval::{Approval, Approve, ApproveAsync, HookError, Pending};
pub use error::{AgentError, Stopped};
pub use event::AgentEvent;

use crate::chat::{AsyncChatModel, ChatModel, ModelDelta, RunStats, Turn, TurnError};
use crate::setters::setters;
use tool_runtime::{exec, Message, RunContext, SharedToolbox};

use approval::Hook;
use run::{Calls, Run, Step};
use tool_runtime::ToolChoice;

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
    toolbox: SharedToolbox,
    max_rounds: usize,
    tool_choice: ToolChoice,
    choose: Option<ChooseTools>,
    answer_on_repeat: bool,
    context: RunContext,
    hook: Hook,
}

/// What decides each round's tool choice ([`Agent::choose_tools`]).
type ChooseTools = Box<dyn FnMut(usize, &[Message]) -> ToolChoice + Send>;

impl<M: ChatModel> Agent<M> {
    /// An agent with at most 8 rounds and `ToolChoice::Auto`, that asks
    /// for an answer when the model repeats its last calls. Pass a
    /// [`SharedToolbox`] (and keep a clone) to change the tools during a
    /// run: each round shows the model the tools of that moment, and a
    /// turn's calls run against the tools there are when they run.
    pub fn new(model: M, toolbox: impl Into<SharedToolbox>) -> Agent<M> {
        Agent {
            model,
            toolbox: toolbox.into(),
            max_rounds: 8,
            tool_choice: ToolChoice::Auto,
            choose: None,
            answer_on_repeat: true,
            context: RunContext::new(),
            hook: Hook::None,
        }
    }

    setters! {
        /// Whether calls that repeat the last round's word for word are
        /// skipped, the next round asked to answer (`ToolChoice::None`) from
        /// the results already in the transcript (on by default): small models
        /// otherwise call the same tool until `max_rounds`. Asked once; calls
        /// after that run as usual.
        answer_on_repeat(on: bool) => answer_on_repeat;
        /// Whether the model must call a tool. `Required` and `Named` apply to
        /// the first round only (later rounds are `Auto`), or the model could
        /// never give its answer. `Allowed` limits every round's calls to
        /// its tools (all stay in the prompt, so its prefix cache holds); a
        /// call to another is answered as denied.
        tool_choice(choice: ToolChoice) => tool_choice;
        /// What every tool call of a run gets in its
        /// [`ToolContext`](tool_runtime::ToolContext): the data its tools
        /// read (the user a run acts for, a connection pool), the token that
        /// cancels the run, and a progress sink besides the run's
        /// [`AgentEvent::ToolProgress`] events. A cancelled run stops at
        /// once with [`AgentError::Cancelled`]: the model's turn ends (a
        /// local model at its next token, a remote request is dropped) and
        /// is not kept; running calls end, answered as cancelled.
        context(run: RunContext) => context;
    }

    /// Shows each readable call to `hook` before it runs: run it, deny it
    /// (the model reads the reason), edit its arguments, or stop the run
    /// ([`AgentError::Stopped`], which [`Agent::resume`] takes with the
    /// decisions). All of a turn's calls are decided before any runs. A
    /// hook that fails or panics ends the run with
    /// [`AgentError::Approval`], nothing lost.
    pub fn approve(mut self, hook: impl Approve + 'static) -> Agent<M> {
        self.hook = Hook::Blocking(Box::new(hook));
        self
    }

    /// [`Agent::approve`] with a hook that decides asynchronously (awaited
    /// by [`Agent::run_async`], blocked on by [`Agent::run`]).
    pub fn approve_async(mut self, hook: impl ApproveAsync + 'static) -> Agent<M> {
        self.hook = Hook::Async(Box::new(hook));
        self
    }

    /// Decides each round's tool choice, in place of
    /// [`tool_choice`](Agent::tool_choice): `choose(round, transcript)`,
    /// rounds counted from 1. The tools it allows or names must be in the
    /// toolbox (or the run ends with [`AgentError::ToolChoice`]); a call to
    /// a tool it does not allow is answered as denied.
    ///
    /// ```
    /// # use tool_models::agent::Agent;
    /// # use tool_runtime::{Role, ToolChoice, Toolbox};
    /// # fn demo<M: tool_models::chat::ChatModel>(agent: Agent<M>) -> Agent<M> {
    /// // Search first; once results are in, only the tools that act on them.
    /// agent.choose_tools(|round, transcript| {
    ///     let searched = transcript.iter().any(|m| m.role == Role::Tool);
    ///     if round == 1 || !searched {
    ///         ToolChoice::Named("search".into())
    ///     } else {
    ///         ToolChoice::Allowed { tools: vec!["summarize".into(), "save".into()], required: false }
    ///     }
    /// })
    /// # }
    /// ```
    pub fn choose_tools(
        mut self,
        choose: impl FnMut(usize, &[Message]) -> ToolChoice + Send + 'static,
    ) -> Agent<M> {
        self.choose = Some(Box::new(choose));
        self
    }

    /// The tool choice, to change between runs.
    pub fn set_tool_choice(&mut self, choice: ToolChoice) {
        self.tool_choice = choice;
    }

    /// The run context, to change between runs (a new user, a new token).
    pub fn context_mut(&mut self) -> &mut RunContext {
        &mut self.context
    }

    /// The most model turns a run may take (at least 1).
    pub fn max_rounds(mut self, rounds: usize) -> Agent<M> {
        self.max_rounds = rounds.max(1);
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

    /// The toolbox: add or remove tools through it, between runs or
    /// during one (the next round sees the change).
    pub fn toolbox(&self) -> &SharedToolbox {
        &self.toolbox
    }

    /// Runs the conversation `messages` to an answer.
    pub fn run(&mut self, messages: Vec<Message>) -> Result<AgentRun, AgentError> {
        self.run_with(messages, &mut |_| {})
    }

    /// [`Agent::run`], reporting each step to `on_event` as it happens.
    pub fn run_with(
        &mut self,
        messages: Vec<Message>,
        on_event: &mut dyn FnMut(AgentEvent),
    ) -> Result<AgentRun, AgentError> {
        let model = self.model.model_name();
        let span = trace::invoke_agent(model.as_deref());
        let result = span.in_scope(|| self.rounds(model.as_deref(), messages, on_event));
        if let Err(e) = &result {
            trace::run_failed(&span, e);
        }
        result
    }

    /// The rounds of [`Agent::run_with`].
    fn rounds(
        &mut self,
        model: Option<&str>,
        messages: Vec<Message>,
        on_event: &mut dyn FnMut(AgentEvent),
    ) -> Result<AgentRun, AgentError> {
        let mut run = Run::new(&self.toolbox, self.model.format(), messages)?;
        for round in 1..=self.max_rounds {
            let choice = self.begin_round(&mut run, round, on_event)?;
            let mut state = run.round();
            let chat = trace::chat(model);
            let turn = chat.in_scope(|| {
                let request = run
                    .request(&choice)
                    .cancelled_by(self.context.cancel_token());
                self.model
                    .respond(&request, &mut |delta| state.take(delta, on_event))
            });
            match self.end_turn(&mut run, round, state, turn, &chat, on_event)? {
                Step::Answered(done) => return Ok(done),
                Step::Calls(calls) if self.answer_on_repeat && run.repeats(&calls) => {}
                Step::Calls(calls) => {
                    let turn = self.dispatch(&mut run, calls, &choice, on_event);
                    exec::block_on(turn)?;
                }
            }
        }
        Err(run.max_rounds(self.max_rounds))
    }

    /// Goes on with a run that stopped for approval: `decisions` say what
    /// to do with each waiting call, in order; the calls run (or are
    /// denied), and the run continues from its transcript with the
    /// agent's settings (its round count and stats start again). A
    /// decision to stop stops it again; the wrong number of decisions is
    /// [`AgentError::Decisions`], nothing run.
    pub fn resume(
        &mut self,
        stopped: Stopped,
        decisions: Vec<Approval>,
    ) -> Result<AgentRun, AgentError> {
        self.resume_with(stopped, decisions, &mut |_| {})
    }

    /// [`Agent::resume`], reporting each step to `on_event`.
    pub fn resume_with(
        &mut self,
        stopped: Stopped,
        decisions: Vec<Approval>,
        on_event: &mut dyn FnMut(AgentEvent),
    ) -> Result<AgentRun, AgentError> {
        let messages = exec::block_on(self.answer_stopped(stopped, decisions, on_event))?;
        self.run_with(messages, on_event)
    }
}

impl<M: AsyncChatModel> Agent<M> {
    /// [`Agent::run`] for async code: the model is awaited, never blocked
    /// on, and a turn's calls run concurrently on the caller's runtime.
    pub async fn run_async(&mut self, messages: Vec<Message>) -> Result<AgentRun, AgentError> {
        self.run_async_with(messages, &mut |_| {}).await
    }

    /// [`Agent::run_async`], reporting each step to `on_event`.
    pub async fn run_async_with(
        &mut self,
        messages: Vec<Message>,
        on_event: &mut (dyn FnMut(AgentEvent) + Send),
    ) -> Result<AgentRun, AgentError> {
        let model = AsyncChatModel::model_name(&self.model);
        let span = trace::invoke_agent(model.as_deref());
        let rounds = self.rounds_async(model.as_deref(), messages, on_event);
        let result = trace::instrument(rounds, &span).await;
        if let Err(e) = &result {
            trace::run_failed(&span, e);
        }
        result
    }

    /// The rounds of [`Agent::run_async_with`].
    async fn rounds_async(
        &mut self,
        model: Option<&str>,
        messages: Vec<Message>,
        on_event: &mut (dyn FnMut(AgentEvent) + Send),
    ) -> Result<AgentRun, AgentError> {
        let format = AsyncChatModel::format(&self.model);
        let mut run = Run::new(&self.toolbox, format, messages)?;
        for round in 1..=self.max_rounds {
            let choice = self.begin_round(&mut run, round, on_event)?;
            let mut state = run.round();
            let chat = trace::chat(model);
            let turn = {
                let request = run
                    .request(&choice)
                    .cancelled_by(self.context.cancel_token());
                let mut take = |delta: ModelDelta<'_>| state.take(delta, &mut *on_event);
                trace::instrument(self.model.respond_async(&request, &mut take), &chat).await
            };
            match self.end_turn(&mut run, round, state, turn, &chat, on_event)? {
                Step::Answered(done) => return Ok(done),
                Step::Calls(calls) if self.answer_on_repeat && run.repeats(&calls) => {}
                Step::Calls(calls) => self.dispatch(&mut run, calls, &choice, on_event).await?,
            }
        }
        Err(run.max_rounds(self.max_rounds))
    }

    /// [`Agent::resume`] for async code.
    pub async fn resume_async_with(
        &mut self,
        stopped: Stopped,
        decisions: Vec<Approval>,
        on_event: &mut (dyn FnMut(AgentEvent) + Send),
    ) -> Result<AgentRun, AgentError> {
        let messages = self.answer_stopped(stopped, decisions, on_event).await?;
        self.run_async_with(messages, on_event).await
    }
}

impl<M> Agent<M> {
    /// Decides on a turn's calls, runs the approved ones and appends the
    /// turn and every answer; or stops the run for approval.
    async fn dispatch<F: FnMut(AgentEvent) + ?Sized>(
        &mut self,
        run: &mut Run,
        mut calls: Calls,
        choice: &ToolChoice,
        on_event: &mut F,
    ) -> Result<(), AgentError> {
        let mut runnable = calls.runnable();
        let decisions = match self.hook.decide(&runnable, choice).await {
            Ok(decisions) => decisions,
            Err(message) => {
                let stopped = Box::new(run.stop(calls));
                return Err(AgentError::Approval { message, stopped });
            }
        };
        let Some(settled) = approval::settle(&mut runnable, decisions) else {
            return Err(AgentError::Stopped(Box::new(run.stop(calls))));
        };
        calls.set_runnable(runnable);
        let toolbox = self.toolbox.snapshot();
        let results = dispatch::call_all(&toolbox, &settled.run, &self.context, on_event).await;
        run.dispatched(calls, approval::merge(settled.answers, results), &mut |e| {
            on_event(e)
        });
        Ok(())
    }

    /// Runs a stop's calls as `decisions` say; the conversation to go on from.
    async fn answer_stopped<F: FnMut(AgentEvent) + ?Sized>(
        &self,
        stopped: Stopped,
        decisions: Vec<Approval>,
        on_event: &mut F,
    ) -> Result<Vec<Message>, AgentError> {
        let (stopped, settled) = stopped.settle(decisions)?;
        let toolbox = self.toolbox.snapshot();
        let results = dispatch::call_all(&toolbox, &settled.run, &self.context, on_event).await;
        let answers = approval::merge(settled.answers, results);
        for message in &answers {
            on_event(AgentEvent::ToolResult {
                message: message.clone(),
            });
        }
        Ok(stopped.into_conversation(answers))
    }

    /// Ends round `round` of `run` with the model's `turn`, unless the run
    /// was cancelled meanwhile: what a cancelled turn wrote is dropped,
    /// whole or not.
    fn end_turn<F: FnMut(AgentEvent) + ?Sized>(
        &self,
        run: &mut Run,
        round: usize,
        state: run::Round,
        turn: Result<Turn, TurnError>,
        chat: &trace::Span,
        on_event: &mut F,
    ) -> Result<Step, AgentError> {
        trace::turn(chat, &turn);
        if self.context.cancel_token().is_cancelled() {
            return Err(run.cancelled(round));
        }
        let step = run.end_turn(round, state, turn, &mut |e| on_event(e))?;
        trace::finished(chat, &step);
        Ok(step)
    }

    /// Starts round `round` of `run`, unless the run was cancelled: takes
    /// the toolbox's changes, reports the round and gives its tool choice
    /// (checked against the tools).
    fn begin_round<F: FnMut(AgentEvent) + ?Sized>(
        &mut self,
        run: &mut Run,
        round: usize,
        on_event: &mut F,
    ) -> Result<ToolChoice, AgentError> {
        if self.context.cancel_token().is_cancelled() {
            return Err(run.cancelled(round));
        }
        run.refresh(&self.toolbox)?;
        let choice = match &mut self.choose {
            Some(choose) => choose(round, run.messages()),
            None => round_choice(&self.tool_choice, round),
        };
        run.check(&choice)?;
        on_event(AgentEvent::RoundStart { round });
        Ok(choice)
    }
}

/// `Required` and `Named` bind the first round only, or the model could
/// never give its answer; `Allowed` keeps its list, but requires a call
/// in the first round only.
fn round_choice(choice: &ToolChoice, round: usize) -> ToolChoice {
    match (choice, round) {
        (ToolChoice::Required | ToolChoice::Named(_), r) if r > 1 => ToolChoice::Auto,
        (ToolChoice::Allowed { tools, .. }, r) if r > 1 => ToolChoice::Allowed {
            tools: tools.clone(),
            required: false,
        },
        (choice, _) => choice.clone(),
    }
}
