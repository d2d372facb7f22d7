//! Turning an OpenAI-compatible engine's streamed chunks (or its whole
//! response) into the agent's [`StreamEvent`]s, whatever the engine's quirks.
//!
//! Engines disagree on details the API leaves open, and this is where they
//! are reconciled:
//! - fragments of a call are grouped by `index`, but a new non-empty `id` at
//!   an index already in use opens a new call (Ollama sends index 0 for every
//!   parallel call), and a missing `index` means "the call after the last";
//! - `arguments` may be JSON text in fragments (vLLM), whole in one chunk
//!   (Ollama), or a JSON object instead of text (TGI, some llama.cpp
//!   builds); `""` means `{}`;
//! - `finish_reason` is not trusted (some engines say `stop` with calls):
//!   calls are whatever arrived;
//! - a usage-only chunk has `choices: []`; an error may arrive as a chunk
//!   `{"error": ...}` under HTTP 200; a stream may end without `[DONE]`.
//!
//! A call's fragments are joined as [`ToolCallChunk`]s, and read as a
//! [`ToolCallChunk::to_finished_call`] once closed: malformed arguments become
//! an [`InvalidToolCall`](tool_runtime::InvalidToolCall) for the model to
//! read, never an error of the stream.

use serde_json::Value;
use tool_runtime::ToolCallChunk;

use super::error::{Reading, RemoteError};
use crate::chat::Usage;
use crate::parse::StreamEvent;
use crate::wire::chat::{self, CallDelta, Delta, WireMessage};
use crate::wire::read_value;

/// How a turn ended, as the engine reported it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Completion {
    /// `stop`, `length`, `tool_calls`, … (the last one the engine sent).
    pub finish_reason: Option<String>,
    /// The token counts, if the engine sent them.
    pub usage: Option<Usage>,
    /// The model that answered, as the engine names it.
    pub model: Option<String>,
}

/// One call being assembled.
#[derive(Debug, Default)]
struct Slot {
    /// Its fragments so far, joined; `index` is the wire `index` they carry.
    call: ToolCallChunk,
    /// Whether `ToolCallStart` has gone out (then arguments stream as they come).
    started: bool,
    closed: bool,
}

/// Merges a streamed Chat Completions response into [`StreamEvent`]s.
///
/// ```
/// use tool_models::parse::StreamEvent;
/// use tool_models::remote::ChunkMerger;
///
/// let mut merger = ChunkMerger::new();
/// let mut events = Vec::new();
/// for data in [
///     r#"{"choices":[{"index":0,"delta":{"role":"assistant","content":"Checking."}}]}"#,
///     r#"{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"name":"get_weather","arguments":""}}]}}]}"#,
///     r#"{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{\"city\": \"Paris\"}"}}]}}]}"#,
///     r#"{"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}"#,
///     "[DONE]",
/// ] {
///     events.extend(merger.feed(data)?);
/// }
/// let (rest, completion) = merger.finish()?;
/// events.extend(rest);
/// assert_eq!(events[0], StreamEvent::Content("Checking.".into()));
/// let Some(StreamEvent::ToolCallEnd { call, .. }) = events.last() else { panic!() };
/// assert_eq!(call.arguments["city"], "Paris");
/// assert_eq!(completion.finish_reason.as_deref(), Some("tool_calls"));
/// # Ok::<(), tool_models::remote::RemoteError>(())
/// ```
#[derive(Debug, Default)]
pub struct ChunkMerger {
    slots: Vec<Slot>,
    completion: Completion,
    done: bool,
    chunks: usize,
}

impl ChunkMerger {
    /// A merger for one streamed response.
    pub fn new() -> ChunkMerger {
        ChunkMerger::default()
    }

    /// Reads one SSE `data:` payload: a JSON chunk, or `[DONE]`.
    ///
    /// # Errors
    /// [`RemoteError::Engine`] for an error chunk, [`RemoteError::Malformed`]
    /// for text that is not a chunk. The merger keeps what it had.
    pub fn feed(&mut self, data: &str) -> Result<Vec<StreamEvent>, RemoteError> {
        let data = data.trim();
        if data == "[DONE]" {
            self.done = true;
            return Ok(Vec::new());
        }
        if data.is_empty() {
            return Ok(Vec::new());
        }
        self.chunks += 1;
        self.read(data, false)
    }

    /// Reads a whole (non-streamed) response body: the same as one chunk
    /// whose `delta` is the `message`.
    ///
    /// # Errors
    /// As [`feed`](Self::feed).
    pub fn feed_response(&mut self, body: &str) -> Result<Vec<StreamEvent>, RemoteError> {
        let mut events = self.read(body, true)?;
        self.done = true;
        self.close_all(&mut events);
        Ok(events)
    }

    /// Whether `[DONE]` has arrived.
    pub fn done(&self) -> bool {
        self.done
    }

    /// Ends the stream: closes the calls still open.
    ///
    /// # Errors
    /// [`RemoteError::Truncated`] when the stream ended with neither a
    /// `finish_reason` nor `[DONE]` (a dropped connection).
    pub fn finish(mut self) -> Result<(Vec<StreamEvent>, Completion), RemoteError> {
        if !self.done && self.completion.finish_reason.is_none() {
            let open = self.slots.iter().filter(|s| !s.closed).count();
            return Err(RemoteError::Truncated {
                received: format!(
                    "no finish_reason and no [DONE]; {} chunks had arrived, {} calls begun, {open} still open",
                    self.chunks,
                    self.slots.len()
                ),
            });
        }
        let mut events = Vec::new();
        self.close_all(&mut events);
        Ok((events, self.completion))
    }

    fn close_all(&mut self, events: &mut Vec<StreamEvent>) {
        for ordinal in 0..self.slots.len() {
            self.close(ordinal, events);
        }
    }

    /// Announces call `ordinal`, and any earlier call not yet announced, so
    /// that calls start in order.
    fn start_through(&mut self, ordinal: usize, events: &mut Vec<StreamEvent>) {
        for (i, slot) in self.slots[..=ordinal].iter_mut().enumerate() {
            if !slot.started {
                start(i, slot, events);
            }
        }
    }

    /// Reads a chunk, or a whole response.
    fn read(&mut self, text: &str, whole: bool) -> Result<Vec<StreamEvent>, RemoteError> {
        let what = if whole {
            "Chat Completions response"
        } else {
            "Chat Completions stream chunk"
        };
        let reading = Reading::new(what, text);
        let value = reading.json()?;
        // An error may arrive in place of a chunk, under HTTP 200.
        if let Some(error) = value.get("error").filter(|e| !e.is_null()) {
            return Err(RemoteError::Engine(error_message(error)));
        }
        if !value.is_object() {
            return Err(reading.malformed("expected a JSON object"));
        }
        let (model, usage, finish, delta) = if whole {
            let c: chat::Completion =
                read_value(value).map_err(|e| reading.malformed(e.message))?;
            let choice = c.choices.into_iter().find(|c| c.index == 0);
            let (finish, delta) = match choice {
                Some(choice) => (choice.finish_reason, message_delta(choice.message)),
                None => (None, Delta::default()),
            };
            (c.model, c.usage, finish, delta)
        } else {
            let c: chat::Chunk = read_value(value).map_err(|e| reading.malformed(e.message))?;
            let choice = c.choices.into_iter().find(|c| c.index == 0);
            let (finish, delta) = match choice {
                Some(choice) => (choice.finish_reason, choice.delta),
                None => (None, Delta::default()),
            };
            (c.model, c.usage, finish, delta)
        };
        if !model.is_empty() {
            self.completion.model = Some(model);
        }
        if let Some(usage) = usage {
            self.completion.usage = Some(usage.into());
        }
        if let Some(reason) = finish {
            self.completion.finish_reason = Some(reason);
        }
        let mut events = Vec::new();
        if let Some(text) = delta.reasoning_content.filter(|t| !t.is_empty()) {
            events.push(StreamEvent::Reasoning(text));
        }
        if let Some(text) = delta.content.filter(|t| !t.is_empty()) {
            events.push(StreamEvent::Content(text));
        }
        for fragment in delta.tool_calls {
            self.fragment(fragment, &mut events);
        }
        Ok(events)
    }

    /// Adds one `tool_calls[]` fragment.
    fn fragment(&mut self, fragment: CallDelta, events: &mut Vec<StreamEvent>) {
        let id = fragment.id.filter(|id| !id.is_empty());
        let ordinal = self.slot_for(fragment.index, id.as_deref(), events);
        let function = fragment.function.unwrap_or_default();
        let name = function.name.unwrap_or_default();
        let delta = function.arguments.unwrap_or_default();
        // Names arrive whole in practice; pieces concatenate, as in LangChain.
        let joined = self.slots[ordinal].call.merge(ToolCallChunk {
            index: fragment.index,
            id,
            name: Some(name.clone()),
            arguments_delta: Some(delta.clone()),
        });
        debug_assert!(joined.is_ok(), "slot_for opens a new call for a new id");
        if !name.is_empty() || !delta.is_empty() {
            self.start_through(ordinal, events);
        }
        if !delta.is_empty() {
            events.push(StreamEvent::ToolCallArguments {
                index: ordinal,
                delta,
            });
        }
    }

    /// The call a fragment belongs to, opening one when needed.
    fn slot_for(
        &mut self,
        wire_index: Option<usize>,
        id: Option<&str>,
        events: &mut Vec<StreamEvent>,
    ) -> usize {
        let existing = match wire_index {
            Some(i) => self
                .slots
                .iter()
                .rposition(|s| s.call.index == Some(i) && !s.closed),
            // No index: the call after the last, unless this continues it.
            None => match (self.slots.len().checked_sub(1), id) {
                (Some(last), None) if !self.slots[last].closed => Some(last),
                _ => None,
            },
        };
        if let Some(ordinal) = existing {
            let slot = &self.slots[ordinal];
            let new_call = matches!((id, &slot.call.id), (Some(id), Some(had)) if had != id);
            if !new_call {
                return ordinal;
            }
            self.close(ordinal, events);
        }
        self.slots.push(Slot {
            call: ToolCallChunk {
                index: wire_index,
                ..ToolCallChunk::default()
            },
            ..Slot::default()
        });
        self.slots.len() - 1
    }

    /// Ends call `ordinal`: its final event, once.
    fn close(&mut self, ordinal: usize, events: &mut Vec<StreamEvent>) {
        if self.slots[ordinal].closed {
            return;
        }
        self.start_through(ordinal, events);
        let slot = &mut self.slots[ordinal];
        slot.closed = true;
        events.push(match slot.call.to_finished_call() {
            Ok(call) => StreamEvent::ToolCallEnd {
                index: ordinal,
                call,
            },
            Err(invalid) => StreamEvent::InvalidToolCall(invalid),
        });
    }
}

/// A whole message read as one delta: its calls numbered in order.
fn message_delta(message: WireMessage) -> Delta {
    Delta {
        role: None,
        content: message.content,
        reasoning_content: message.reasoning_content,
        tool_calls: message
            .tool_calls
            .into_iter()
            .enumerate()
            .map(|(i, call)| CallDelta {
                index: Some(i),
                id: Some(call.id),
                kind: Some(call.kind),
                function: Some(chat::FunctionDelta {
                    name: Some(call.function.name),
                    arguments: Some(call.function.arguments),
                }),
            })
            .collect(),
    }
}

fn start(ordinal: usize, slot: &mut Slot, events: &mut Vec<StreamEvent>) {
    slot.started = true;
    let id = slot
        .call
        .id
        .get_or_insert_with(|| format!("call_{ordinal}"))
        .clone();
    events.push(StreamEvent::ToolCallStart {
        index: ordinal,
        id,
        name: slot.call.name.clone().unwrap_or_default(),
    });
}

/// Whether `choice` is the first (index 0, or no index): the turn; `n` > 1
/// is never asked for.
fn is_first(choice: &Value) -> bool {
    choice.get("index").and_then(Value::as_u64).unwrap_or(0) == 0
}

/// The first choice of a `choices` array.
pub(super) fn first_choice(choices: &Value) -> Option<&Value> {
    choices.as_array()?.iter().find(|c| is_first(c))
}

/// The engine's own words: `error.message`, or the error as text.
pub(super) fn error_message(error: &Value) -> String {
    match error {
        Value::String(s) => s.clone(),
        Value::Object(o) => match o.get("message").and_then(Value::as_str) {
            Some(m) => m.to_owned(),
            None => error.to_string(),
        },
        other => other.to_string(),
    }
}
