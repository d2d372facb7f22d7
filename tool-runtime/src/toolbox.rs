//! A set of tools that dispatches a model's calls to the typed functions and
//! turns every outcome, failures included, into a tool message.

use crate::call::ToolCall;
use crate::context::{CancelToken, RunContext, ToolContext};
use crate::error::{ToolError, UnknownTool};
use crate::exec::{self, BoxFuture, CatchUnwind};
use crate::format::{self, DefinitionFormat};
use crate::json_kind;
use crate::message::Message;
use crate::tool::{Invocation, Tool, ToolResult};
use crate::trace;
use crate::validate::{validate_arguments, Policy};
use crate::ToolDefinition;
use serde_json::{Map, Value};
use std::collections::HashMap;
use std::future::Future;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::pin::Pin;
use std::sync::Arc;
use std::task::Poll;
use std::time::Duration;

/// Several tools sharing state through `&self`: what `#[tools]` on an impl
/// block implements.
pub trait ToolSet: Send + Sync + 'static {
    /// One tool per `#[tool]` method, each holding a handle to `self`.
    fn tools(self: Arc<Self>) -> Vec<Arc<dyn Tool>>;
}

/// A toolbox could not be built.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ToolboxError {
    /// Two tools have one name; the model could not tell them apart.
    #[error("two tools are named `{0}`; tool names must be unique")]
    DuplicateName(String),
    /// No tool has the name asked for.
    #[error(transparent)]
    UnknownTool(UnknownTool),
    /// A parameter cannot be grounded.
    #[error("cannot ground `{tool}`'s parameter `{parameter}`: {reason}; only free strings, free numbers and lists of them can be")]
    NotGroundable {
        /// The tool.
        tool: String,
        /// The parameter.
        parameter: String,
        /// Why not.
        reason: String,
    },
}

/// The tools a model may call, and how calls are checked and run.
#[derive(Clone, Default)]
pub struct Toolbox {
    pub(crate) tools: Vec<Arc<dyn Tool>>,
    by_name: HashMap<String, usize>,
    policy: Policy,
    timeout: Option<Duration>,
}

impl std::fmt::Debug for Toolbox {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Toolbox")
            .field("tools", &self.names().collect::<Vec<_>>())
            .field("policy", &self.policy)
            .field("timeout", &self.timeout)
            .finish()
    }
}

impl Toolbox {
    /// An empty toolbox: lenient, extra arguments rejected, no timeout.
    pub fn new() -> Toolbox {
        Toolbox::default()
    }

    /// Adds a tool. A `#[tool]` function is a function, not a tool: add it
    /// with [`merge`](Toolbox::merge)`(toolbox![f])`.
    pub fn with<T: Tool>(self, tool: T) -> Result<Toolbox, ToolboxError> {
        self.with_shared(Arc::new(tool))
    }

    /// Adds a shared tool.
    pub fn with_shared(mut self, tool: Arc<dyn Tool>) -> Result<Toolbox, ToolboxError> {
        self.add(tool)?;
        Ok(self)
    }

    /// Adds every tool of an impl block marked `#[tools]`.
    pub fn with_all<S: ToolSet>(self, set: S) -> Result<Toolbox, ToolboxError> {
        self.with_all_shared(Arc::new(set))
    }

    /// Adds every tool of a shared `#[tools]` value.
    pub fn with_all_shared<S: ToolSet>(mut self, set: Arc<S>) -> Result<Toolbox, ToolboxError> {
        for tool in set.tools() {
            self.add(tool)?;
        }
        Ok(self)
    }

    /// Adds every tool of `other`: the way to add `#[tool]` functions to a
    /// toolbox built elsewhere, named as `toolbox!` names them
    /// (`tools.merge(toolbox![convert_length])?`), or to join two toolboxes
    /// (an MCP server's and your own). `self`'s settings apply (leniency,
    /// extra arguments, timeout); `other`'s are dropped. A name both hold
    /// is [`ToolboxError::DuplicateName`].
    pub fn merge(mut self, other: Toolbox) -> Result<Toolbox, ToolboxError> {
        for tool in other.tools {
            self.add(tool)?;
        }
        Ok(self)
    }

    /// Adds a tool in place.
    pub fn add(&mut self, tool: Arc<dyn Tool>) -> Result<(), ToolboxError> {
        let name = tool.name().to_owned();
        if self.by_name.contains_key(&name) {
            return Err(ToolboxError::DuplicateName(name));
        }
        self.by_name.insert(name, self.tools.len());
        self.tools.push(tool);
        Ok(())
    }

    /// Takes the tool called `name` out, if there is one; the others keep
    /// their order.
    pub fn remove(&mut self, name: &str) -> Option<Arc<dyn Tool>> {
        let index = self.by_name.remove(name)?;
        let tool = self.tools.remove(index);
        for later in self.by_name.values_mut().filter(|i| **i > index) {
            *later -= 1;
        }
        Some(tool)
    }

    /// Builds from tools whose names were checked at compile time (`toolbox!`).
    #[doc(hidden)]
    pub fn __from_unique(tools: Vec<Arc<dyn Tool>>) -> Toolbox {
        let mut toolbox = Toolbox::new();
        for tool in tools {
            // Unique by construction; a duplicate would only be skipped.
            let _ = toolbox.add(tool);
        }
        toolbox
    }

    /// Repair common argument mistakes (default: on).
    pub fn lenient(mut self, on: bool) -> Toolbox {
        self.policy.lenient = on;
        self
    }

    /// Accept and drop arguments a tool does not take (default: rejected).
    pub fn allow_extra_arguments(mut self, on: bool) -> Toolbox {
        self.policy.allow_extra = on;
        self
    }

    /// Give up on a call after `limit` and tell the model so. Blocking tools
    /// then run on a thread of their own, which finishes in the background.
    pub fn timeout(mut self, limit: Option<Duration>) -> Toolbox {
        self.timeout = limit;
        self
    }

    /// The tools' names, in the order they were added.
    pub fn names(&self) -> impl Iterator<Item = &str> + '_ {
        self.tools.iter().map(|t| t.name())
    }

    /// The tool called `name`.
    pub fn get(&self, name: &str) -> Option<&Arc<dyn Tool>> {
        self.by_name.get(name).map(|&i| &self.tools[i])
    }

    /// Where the tool called `name` is.
    pub(crate) fn index_of(&self, name: &str) -> Option<usize> {
        self.by_name.get(name).copied()
    }

    /// How many tools there are.
    pub fn len(&self) -> usize {
        self.tools.len()
    }

    /// True when there are none.
    pub fn is_empty(&self) -> bool {
        self.tools.is_empty()
    }

    /// The tools' definitions, in order.
    pub fn tool_definitions(&self) -> impl Iterator<Item = &ToolDefinition> + '_ {
        self.tools.iter().map(|t| t.definition())
    }

    /// The definitions in `format`, ready for the API's `tools` field or a
    /// chat template's `tools` variable.
    pub fn definitions(&self, format: DefinitionFormat) -> Vec<Value> {
        let defs: Vec<ToolDefinition> = self.tool_definitions().cloned().collect();
        format::convert_definitions(&defs, format)
    }

    /// Runs one call and returns its result text or the error.
    pub async fn invoke(&self, call: &ToolCall) -> ToolResult {
        self.invoke_in(call, &RunContext::default()).await
    }

    /// [`Toolbox::invoke`] as part of `run`: the tool's context carries the
    /// run's data, cancellation and progress sink.
    pub async fn invoke_in(&self, call: &ToolCall, run: &RunContext) -> ToolResult {
        self.start(call, run, false).await
    }

    /// [`Toolbox::invoke_in`] for a server's request handler: a blocking
    /// tool runs on a thread of its own even without a time limit, so the
    /// async runtime that awaits it goes on serving (other requests, a
    /// cancellation) meanwhile.
    pub async fn invoke_detached(&self, call: &ToolCall, run: &RunContext) -> ToolResult {
        self.start(call, run, true).await
    }

    /// Runs one call; the tool message answering it (errors included).
    pub async fn call(&self, call: &ToolCall) -> Message {
        self.call_in(call, &RunContext::default()).await
    }

    /// [`Toolbox::call`] as part of `run` (see [`Toolbox::invoke_in`]).
    pub async fn call_in(&self, call: &ToolCall, run: &RunContext) -> Message {
        answer(call, self.invoke_in(call, run).await)
    }

    /// [`Toolbox::call`] without an async runtime.
    pub fn call_blocking(&self, call: &ToolCall) -> Message {
        exec::block_on(self.call(call))
    }

    /// [`Toolbox::call_in`] without an async runtime.
    pub fn call_in_blocking(&self, call: &ToolCall, run: &RunContext) -> Message {
        exec::block_on(self.call_in(call, run))
    }

    /// Runs several calls concurrently (blocking tools each on a thread);
    /// the tool messages come back in call order.
    pub async fn call_all(&self, calls: &[ToolCall]) -> Vec<Message> {
        self.call_all_in(calls, &RunContext::default()).await
    }

    /// [`Toolbox::call_all`] as part of `run`: each call gets its own
    /// context, with a cancellation of its own under the run's.
    pub async fn call_all_in(&self, calls: &[ToolCall], run: &RunContext) -> Vec<Message> {
        let offload = calls.len() > 1;
        let futures = calls.iter().map(|c| self.start(c, run, offload)).collect();
        let results = exec::join_all(futures).await;
        calls
            .iter()
            .zip(results)
            .map(|(c, r)| answer(c, r))
            .collect()
    }

    /// [`Toolbox::call_all`] without an async runtime.
    pub fn call_all_blocking(&self, calls: &[ToolCall]) -> Vec<Message> {
        exec::block_on(self.call_all(calls))
    }

    /// Checks the call and starts it; the future owns everything it needs.
    fn start(&self, call: &ToolCall, run: &RunContext, offload: bool) -> BoxFuture<ToolResult> {
        trace::execute_tool(&call.name, &call.id, || self.checked(call, run, offload))
    }

    /// [`Toolbox::start`] inside the call's span, if traced.
    fn checked(&self, call: &ToolCall, run: &RunContext, offload: bool) -> BoxFuture<ToolResult> {
        match self.prepare(call) {
            Ok(_) if run.cancel_token().is_cancelled() => {
                let cancelled = ToolError::Cancelled {
                    tool: call.name.clone(),
                };
                Box::pin(std::future::ready(Err(cancelled)))
            }
            Ok((tool, args)) => {
                let context = run.context_for(&call.id, &call.name);
                self.run(tool, args, context, offload)
            }
            Err(e) => Box::pin(std::future::ready(Err(e))),
        }
    }

    /// The tool and its checked arguments.
    fn prepare(&self, call: &ToolCall) -> Result<Prepared, ToolError> {
        let tool = self
            .get(&call.name)
            .ok_or_else(|| self.unknown(&call.name))?;
        let mut args = match &call.arguments {
            Value::Object(m) => m.clone(),
            Value::Null if self.policy.lenient => Map::new(),
            Value::String(s) if self.policy.lenient => match serde_json::from_str(s) {
                Ok(Value::Object(m)) => m,
                _ => return Err(not_object(&call.name, &call.arguments)),
            },
            other => return Err(not_object(&call.name, other)),
        };
        validate_arguments(tool.validation_schema(), &mut args, self.policy).map_err(|issues| {
            ToolError::InvalidArguments {
                tool: call.name.clone(),
                issues,
            }
        })?;
        Ok((tool.clone(), args))
    }

    /// Runs a checked call. Its token is cancelled when the time limit
    /// passes, and when the returned future is dropped unfinished; a call
    /// whose run is cancelled ends at once with [`ToolError::Cancelled`]
    /// (a blocking tool's thread finishes in the background, its result
    /// discarded).
    fn run(
        &self,
        tool: Arc<dyn Tool>,
        args: Map<String, Value>,
        context: ToolContext,
        offload: bool,
    ) -> BoxFuture<ToolResult> {
        let name = tool.name().to_owned();
        let panicked = {
            let name = name.clone();
            move |message: String| ToolError::Panicked {
                tool: name,
                message,
            }
        };
        let cancel = context.cancel_token().clone();
        let invocation = match catch_unwind(AssertUnwindSafe(|| tool.invoke(args, context))) {
            Ok(i) => i,
            Err(p) => {
                return Box::pin(std::future::ready(Err(panicked(exec::panic_message(
                    p.as_ref(),
                )))))
            }
        };
        let limit = self.timeout;
        let work: BoxFuture<ToolResult> = match invocation {
            // Run here and now; what it returns after a cancellation is
            // discarded below, like any call's.
            Invocation::Blocking(f) if limit.is_none() && !offload => {
                let result = catch_unwind(AssertUnwindSafe(f))
                    .unwrap_or_else(|p| Err(panicked(exec::panic_message(p.as_ref()))));
                Box::pin(std::future::ready(result))
            }
            Invocation::Blocking(f) => {
                let thread = exec::on_thread(f);
                Box::pin(async move { thread.await.unwrap_or_else(|m| Err(panicked(m))) })
            }
            Invocation::Future(fut) => {
                Box::pin(async move { CatchUnwind(fut).await.unwrap_or_else(|m| Err(panicked(m))) })
            }
        };
        Box::pin(async move {
            let guard = CancelOnDrop(Some(cancel.clone()));
            let result = match until_stopped(work, &cancel, limit).await {
                Ok(result) => result,
                Err(stop) => Err(match stop {
                    Stop::Cancelled => ToolError::Cancelled { tool: name },
                    Stop::TimedOut(limit) => ToolError::Timeout { tool: name, limit },
                }),
            };
            guard.disarm();
            result
        })
    }

    fn unknown(&self, name: &str) -> ToolError {
        ToolError::unknown_tool(name, self.names())
    }
}

fn not_object(tool: &str, found: &Value) -> ToolError {
    let found = match found {
        Value::String(_) => "a string that is not a JSON object".to_owned(),
        other => json_kind(other).to_owned(),
    };
    ToolError::ArgumentsNotObject {
        tool: tool.to_owned(),
        found,
    }
}

/// Why a call ended without its result.
enum Stop {
    /// Its token (or its run's) was cancelled.
    Cancelled,
    /// It ran past the toolbox's limit.
    TimedOut(Duration),
}

/// Runs `work` until it finishes, its token is cancelled or `limit`
/// passes. A stopped call's token is cancelled and its future polled once
/// more before it is dropped, so that a tool waiting on
/// [`ToolContext::cancelled`] runs its clean-up up to its next `.await`;
/// what it returns then is discarded.
async fn until_stopped(
    mut work: BoxFuture<ToolResult>,
    cancel: &CancelToken,
    limit: Option<Duration>,
) -> Result<ToolResult, Stop> {
    let mut cancelled = cancel.cancelled();
    let mut deadline = limit.map(|limit| (Box::pin(exec::sleep(limit)), limit));
    let stop = std::future::poll_fn(|cx| {
        if Pin::new(&mut cancelled).poll(cx).is_ready() {
            return Poll::Ready(Err(Stop::Cancelled));
        }
        if let Poll::Ready(result) = work.as_mut().poll(cx) {
            return Poll::Ready(Ok(result));
        }
        if let Some((timer, limit)) = &mut deadline {
            if timer.as_mut().poll(cx).is_ready() {
                return Poll::Ready(Err(Stop::TimedOut(*limit)));
            }
        }
        Poll::Pending
    })
    .await;
    if stop.is_err() {
        cancel.cancel();
        std::future::poll_fn(|cx| Poll::Ready(work.as_mut().poll(cx).is_ready())).await;
    }
    stop
}

/// Cancels a call's token when its future is dropped before it finishes:
/// the agent run that awaited it was dropped, or a client went away.
struct CancelOnDrop(Option<CancelToken>);

impl CancelOnDrop {
    fn disarm(mut self) {
        self.0 = None;
    }
}

impl Drop for CancelOnDrop {
    fn drop(&mut self) {
        if let Some(token) = self.0.take() {
            token.cancel();
        }
    }
}

/// A tool with arguments that passed validation.
type Prepared = (Arc<dyn Tool>, Map<String, Value>);

/// The tool message for a call's outcome; errors start with `Error: `.
fn answer(call: &ToolCall, result: ToolResult) -> Message {
    let content = match result {
        Ok(output) => output.text,
        Err(e) => format!("Error: {e}"),
    };
    Message::tool(call.id.clone(), call.name.clone(), content)
}

/// Fails compilation when `toolbox![...]` lists two tools with one name.
#[doc(hidden)]
pub const fn __assert_unique(names: &[&str]) {
    let mut i = 0;
    while i < names.len() {
        let mut j = i + 1;
        while j < names.len() {
            if str_eq(names[i], names[j]) {
                panic!("toolbox![...] lists two tools with the same name");
            }
            j += 1;
        }
        i += 1;
    }
}

const fn str_eq(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    if a.len() != b.len() {
        return false;
    }
    let mut i = 0;
    while i < a.len() {
        if a[i] != b[i] {
            return false;
        }
        i += 1;
    }
    true
}

/// A [`Toolbox`] of `#[tool]` functions, named by path:
/// `toolbox![get_current_temperature, weather::get_current_wind_speed]`.
/// Two tools with one name fail to compile.
///
/// (Not `tools!`: that name belongs to the `#[tools]` attribute, and Rust
/// keeps attribute and function-like macros in one namespace.)
#[macro_export]
macro_rules! toolbox {
    ($($tool:path),* $(,)?) => {{
        const _: () = $crate::toolbox::__assert_unique(&[$(<$tool>::NAME),*]);
        $crate::Toolbox::__from_unique(::std::vec![
            $(::std::sync::Arc::new(<$tool>::__NEW) as ::std::sync::Arc<dyn $crate::Tool>),*
        ])
    }};
}
