//! Approval before a call runs (a human in the loop, or a policy): the
//! agent shows each readable call to a hook, which runs it, denies it with
//! a reason, edits its arguments, or stops the run. A stopped run hands
//! back a [`Stopped`] that [`Agent::resume`](super::Agent::resume) takes
//! with one decision per waiting call, later, maybe in another process
//! (it is plain data).

use std::future::Future;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::pin::Pin;

use serde_json::Value;
use tool_runtime::exec::{panic_message, CatchUnwind};
use tool_runtime::{Message, ToolCall, ToolChoice};

use super::{AgentError, Stopped};

/// What to do with a call the model made.
#[derive(Debug, Clone, PartialEq)]
pub enum Approval {
    /// Run it as it is.
    Run,
    /// Do not run it; the model reads `Error: the call was denied: REASON`
    /// as the tool's answer.
    Deny(String),
    /// Run it with these arguments instead (checked against the tool's
    /// schema again, like the model's). The transcript shows the call as
    /// it ran.
    Edit(Value),
    /// Run none of this turn's calls and end the run: it returns
    /// [`AgentError::Stopped`], which [`Agent::resume`](super::Agent::resume)
    /// takes with the decisions.
    Stop,
}

/// Why a hook could not decide.
pub type HookError = Box<dyn std::error::Error + Send + Sync>;

/// Decides on calls before they run, blocking. Any
/// `FnMut(&ToolCall) -> Result<Approval, E>` is one.
pub trait Approve: Send {
    /// The decision on `call`; an error ends the run.
    fn approve(&mut self, call: &ToolCall) -> Result<Approval, HookError>;
}

impl<F, E> Approve for F
where
    F: FnMut(&ToolCall) -> Result<Approval, E> + Send,
    E: Into<HookError>,
{
    fn approve(&mut self, call: &ToolCall) -> Result<Approval, HookError> {
        self(call).map_err(Into::into)
    }
}

/// A decision to come.
pub type Pending = Pin<Box<dyn Future<Output = Result<Approval, HookError>> + Send>>;

/// Decides on calls before they run, asynchronously (asking a person
/// through a UI, say). Any `FnMut(ToolCall) -> impl Future<Output =
/// Result<Approval, E>>` is one.
pub trait ApproveAsync: Send {
    /// The decision on `call`, to come; an error ends the run.
    fn approve(&mut self, call: ToolCall) -> Pending;
}

impl<F, Fut, E> ApproveAsync for F
where
    F: FnMut(ToolCall) -> Fut + Send,
    Fut: Future<Output = Result<Approval, E>> + Send + 'static,
    E: Into<HookError>,
{
    fn approve(&mut self, call: ToolCall) -> Pending {
        let decision = self(call);
        Box::pin(async move { decision.await.map_err(Into::into) })
    }
}

/// The agent's hook, if it has one.
#[derive(Default)]
pub(super) enum Hook {
    /// Every call runs.
    #[default]
    None,
    Blocking(Box<dyn Approve>),
    Async(Box<dyn ApproveAsync>),
}

impl Hook {
    /// The decision on each of `calls`, in order; a hook that fails or
    /// panics is `Err` with what went wrong. A call to a tool `choice`
    /// leaves out (a model that ignored its `Allowed` list) is denied
    /// without asking the hook.
    pub(super) async fn decide(
        &mut self,
        calls: &[ToolCall],
        choice: &ToolChoice,
    ) -> Result<Vec<Approval>, String> {
        let mut decisions = Vec::with_capacity(calls.len());
        for call in calls {
            if let Some(refused) = refusal(choice, call) {
                decisions.push(refused);
                continue;
            }
            let decided = match self {
                Hook::None => Ok(Ok(Approval::Run)),
                Hook::Blocking(hook) => catch_unwind(AssertUnwindSafe(|| hook.approve(call)))
                    .map_err(|p| panic_message(p.as_ref())),
                Hook::Async(hook) => {
                    let pending = catch_unwind(AssertUnwindSafe(|| hook.approve(call.clone())))
                        .map_err(|p| panic_message(p.as_ref()))?;
                    CatchUnwind(pending).await
                }
            };
            match decided {
                Ok(Ok(decision)) => decisions.push(decision),
                Ok(Err(e)) => {
                    return Err(format!("the approval hook failed on `{}`: {e}", call.name))
                }
                Err(panic) => {
                    return Err(format!(
                        "the approval hook panicked on `{}`: {panic}",
                        call.name
                    ))
                }
            }
        }
        Ok(decisions)
    }
}

/// The denial of `call` when `choice` allows a list of tools without it.
fn refusal(choice: &ToolChoice, call: &ToolCall) -> Option<Approval> {
    match choice {
        ToolChoice::Allowed { tools, .. } if !choice.allows(&call.name) => {
            Some(Approval::Deny(format!(
                "`{}` is not among the tools allowed now ({})",
                call.name,
                tools.join(", ")
            )))
        }
        _ => None,
    }
}

/// What a turn's decisions come to.
pub(super) struct Settled {
    /// The calls to run, edited as decided.
    pub run: Vec<ToolCall>,
    /// Each decided call's answer when it does not run (a denial), in
    /// order; `None` where the call runs.
    pub answers: Vec<Option<Message>>,
}

/// Applies `decisions` to `calls` (edits in place); `None` when one says
/// stop.
pub(super) fn settle(calls: &mut [ToolCall], decisions: Vec<Approval>) -> Option<Settled> {
    if decisions.contains(&Approval::Stop) {
        return None;
    }
    let mut settled = Settled {
        run: Vec::new(),
        answers: Vec::with_capacity(calls.len()),
    };
    for (call, decision) in calls.iter_mut().zip(decisions) {
        match decision {
            Approval::Run | Approval::Stop => {}
            Approval::Edit(arguments) => call.arguments = arguments,
            Approval::Deny(reason) => {
                let answer = format!("Error: the call was denied: {reason}");
                settled.answers.push(Some(Message::tool(
                    call.id.clone(),
                    call.name.clone(),
                    answer,
                )));
                continue;
            }
        }
        settled.run.push(call.clone());
        settled.answers.push(None);
    }
    Some(settled)
}

/// The answers in call order: each denial where it stands, the results of
/// the calls that ran in between.
pub(super) fn merge(answers: Vec<Option<Message>>, results: Vec<Message>) -> Vec<Message> {
    let mut results = results.into_iter();
    answers
        .into_iter()
        .filter_map(|answer| answer.or_else(|| results.next()))
        .collect()
}

impl Stopped {
    /// Checks `decisions` against the waiting calls and applies them.
    pub(super) fn settle(
        mut self,
        decisions: Vec<Approval>,
    ) -> Result<(Stopped, Settled), AgentError> {
        if decisions.len() != self.pending.len() {
            return Err(AgentError::Decisions {
                expected: self.pending.len(),
                found: decisions.len(),
                stopped: Box::new(self),
            });
        }
        match settle(&mut self.pending, decisions) {
            None => Err(AgentError::Stopped(Box::new(self))),
            Some(settled) => Ok((self, settled)),
        }
    }

    /// The conversation with the turn and every answer, in call order:
    /// what the run goes on from.
    pub(super) fn into_conversation(self, answers: Vec<Message>) -> Vec<Message> {
        let Stopped {
            mut messages,
            mut turn,
            pending,
            answered,
        } = self;
        let mut pending = pending.into_iter();
        let mut answers = answers.into_iter();
        let mut ordered = Vec::with_capacity(answered.len());
        for (call, known) in turn.tool_calls.iter_mut().zip(answered) {
            match known {
                Some(answer) => ordered.push(answer),
                None => {
                    if let Some(edited) = pending.next() {
                        *call = edited;
                    }
                    ordered.extend(answers.next());
                }
            }
        }
        messages.push(turn);
        messages.extend(ordered);
        messages
    }
}
