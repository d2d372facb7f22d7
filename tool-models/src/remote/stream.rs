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

use serde_json::{Map, Value};
use tool_runtime::ToolCallChunk;

use super::error::{snippet, RemoteError};
use crate::agent::Usage;
use crate::parse::StreamEvent;

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
        let chunk: Value = serde_json::from_str(data).map_err(|e| RemoteError::Malformed {
            what: "Chat Completions stream chunk",
            found: snippet(data),
            reason: e.to_string(),
        })?;
        self.chunks += 1;
        self.read(&chunk, "Chat Completions stream chunk", "delta")
    }

    /// Reads a whole (non-streamed) response body: the same as one chunk
    /// whose `delta` is the `message`.
    ///
    /// # Errors
    /// As [`feed`](Self::feed).
    pub fn feed_response(&mut self, body: &str) -> Result<Vec<StreamEvent>, RemoteError> {
        let response: Value = serde_json::from_str(body).map_err(|e| RemoteError::Malformed {
            what: "Chat Completions response",
            found: snippet(body),
            reason: e.to_string(),
        })?;
        let mut events = self.read(&response, "Chat Completions response", "message")?;
        self.done = true;
        self.close_all(&mut events);
        Ok(events)
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

    fn read(
        &mut self,
        chunk: &Value,
        what: &'static str,
        delta_key: &str,
    ) -> Result<Vec<StreamEvent>, RemoteError> {
        let malformed = |reason: &str| RemoteError::Malformed {
            what,
            found: snippet(&chunk.to_string()),
            reason: reason.to_owned(),
        };
        let Some(object) = chunk.as_object() else {
            return Err(malformed("expected a JSON object"));
        };
        if let Some(error) = object.get("error").filter(|e| !e.is_null()) {
            return Err(RemoteError::Engine(error_message(error)));
        }
        if let Some(model) = object.get("model").and_then(Value::as_str) {
            self.completion.model = Some(model.to_owned());
        }
        if let Some(usage) = object.get("usage").and_then(Usage::from_json) {
            self.completion.usage = Some(usage);
        }
        let mut events = Vec::new();
        let choices = match object.get("choices") {
            Some(Value::Array(choices)) => choices.as_slice(),
            None | Some(Value::Null) => &[],
            Some(_) => return Err(malformed("expected `choices` to be an array")),
        };
        let Some(choice) = choices.iter().find(|c| is_first(c)) else {
            return Ok(events);
        };
        if let Some(reason) = choice.get("finish_reason").and_then(Value::as_str) {
            self.completion.finish_reason = Some(reason.to_owned());
        }
        let Some(delta) = choice.get(delta_key).filter(|d| !d.is_null()) else {
            return Ok(events);
        };
        let Some(delta) = delta.as_object() else {
            return Err(malformed(&format!(
                "expected `{delta_key}` to be an object"
            )));
        };
        for key in ["reasoning_content", "reasoning"] {
            if let Some(text) = delta.get(key).and_then(Value::as_str) {
                if !text.is_empty() {
                    events.push(StreamEvent::Reasoning(text.to_owned()));
                }
            }
        }
        if let Some(text) = delta.get("content").and_then(Value::as_str) {
            if !text.is_empty() {
                events.push(StreamEvent::Content(text.to_owned()));
            }
        }
        match delta.get("tool_calls") {
            Some(Value::Array(calls)) => {
                for fragment in calls {
                    self.fragment(fragment, &mut events);
                }
            }
            None | Some(Value::Null) => {}
            Some(_) => return Err(malformed("expected `tool_calls` to be an array")),
        }
        Ok(events)
    }

    /// Adds one `tool_calls[]` fragment.
    fn fragment(&mut self, fragment: &Value, events: &mut Vec<StreamEvent>) {
        let empty = Map::new();
        let fragment = fragment.as_object().unwrap_or(&empty);
        let function = fragment
            .get("function")
            .and_then(Value::as_object)
            .unwrap_or(fragment);
        let wire_index = fragment
            .get("index")
            .and_then(Value::as_u64)
            .map(|i| i as usize);
        let id = fragment
            .get("id")
            .and_then(Value::as_str)
            .filter(|id| !id.is_empty());
        let ordinal = self.slot_for(wire_index, id, events);
        let name = function.get("name").and_then(Value::as_str).unwrap_or("");
        let delta = match function.get("arguments") {
            Some(Value::String(text)) => text.clone(),
            Some(Value::Null) | None => String::new(),
            Some(other) => other.to_string(),
        };
        // Names arrive whole in practice; pieces concatenate, as in LangChain.
        let joined = self.slots[ordinal].call.merge(ToolCallChunk {
            index: wire_index,
            id: id.map(str::to_owned),
            name: Some(name.to_owned()),
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
