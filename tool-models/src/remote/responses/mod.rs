//! OpenAI's Responses API (`POST /v1/responses`) from the client's side:
//! the request body for a turn, and the answer, streamed or whole, read
//! into the same [`StreamEvent`]s a local model's parser produces.
//!
//! The client sends the whole conversation every turn with `store: false`:
//! it never relies on the server keeping anything. `stop` and `seed` are not
//! sent, as the API has neither (`extra` can carry them to engines that
//! take them).

use std::collections::HashSet;

use serde_json::{Map, Value};
use tool_runtime::ToolCallChunk;

use super::error::{Reading, RemoteError};
use super::options::{RequestOptions, ResponseFormat};
use super::stream::Completion;
use crate::chat::{TurnRequest, Usage};
use crate::parse::StreamEvent;
use crate::wire::responses::{
    CreateResponse, Item, Response, ResponseEvent, ResponseStatus, Sequenced, TextConfig,
    TextFormat,
};

/// The body of `POST /v1/responses` for the next turn of `request`.
///
/// Tools lose transformers' extra keys and grounding markers, as in
/// [`chat_request`](super::chat_request); `max_tokens` is sent as
/// `max_output_tokens` and `response_format` as `text.format`; `extra`
/// fields come last, so they win.
pub(super) fn responses_request(
    model: &str,
    request: &TurnRequest<'_>,
    options: &RequestOptions,
    stream: bool,
) -> Value {
    let tools = tool_runtime::ToolDefinition::strip_grounding(request.tools);
    let create = CreateResponse {
        parallel_tool_calls: options.parallel_tool_calls.filter(|_| !tools.is_empty()),
        text: options.response_format.as_ref().map(|format| TextConfig {
            format: Some(match format {
                ResponseFormat::Text => TextFormat::Text,
                ResponseFormat::JsonObject => TextFormat::JsonObject,
                ResponseFormat::JsonSchema {
                    name,
                    schema,
                    strict,
                } => TextFormat::JsonSchema {
                    name: name.clone(),
                    schema: schema.clone(),
                    description: None,
                    strict: Some(*strict),
                },
            }),
            verbosity: None,
        }),
        max_output_tokens: options.max_tokens.map(|n| n as u64),
        temperature: options.temperature,
        top_p: options.top_p,
        stream: stream.then_some(true),
        store: Some(false),
        ..CreateResponse::from_turn(model, request.messages, &tools, request.tool_choice)
    };
    let mut body = match serde_json::to_value(&create) {
        Ok(Value::Object(body)) => body,
        // A struct of strings, numbers and JSON values serialises to an object.
        _ => Map::new(),
    };
    for (key, value) in &options.extra {
        body.insert(key.clone(), value.clone());
    }
    Value::Object(body)
}

/// One call being assembled.
#[derive(Debug, Default)]
struct Slot {
    /// The item it is: its id, or `#output_index` for an item without one.
    item: Option<String>,
    call: ToolCallChunk,
    closed: bool,
}

/// Reads a Responses API answer, streamed (each SSE event's name and data)
/// or whole, into [`StreamEvent`]s.
///
/// ```
/// use tool_models::parse::StreamEvent;
/// use tool_models::remote::ResponsesReader;
///
/// let mut reader = ResponsesReader::new();
/// let mut events = Vec::new();
/// for (event, data) in [
///     ("response.output_item.added", r#"{"sequence_number":2,"output_index":0,"item":{"type":"function_call","id":"fc_1","call_id":"call_1","name":"get_weather","arguments":"","status":"in_progress"}}"#),
///     ("response.function_call_arguments.delta", r#"{"sequence_number":3,"item_id":"fc_1","output_index":0,"delta":"{\"city\": \"Paris\"}"}"#),
///     ("response.output_item.done", r#"{"sequence_number":4,"output_index":0,"item":{"type":"function_call","id":"fc_1","call_id":"call_1","name":"get_weather","arguments":"{\"city\": \"Paris\"}","status":"completed"}}"#),
///     ("response.completed", r#"{"sequence_number":5,"response":{"id":"resp_1","status":"completed","model":"m","output":[],"usage":{"input_tokens":20,"output_tokens":9,"total_tokens":29,"input_tokens_details":{"cached_tokens":16}}}}"#),
/// ] {
///     events.extend(reader.feed(event, data)?);
/// }
/// let (rest, completion) = reader.finish()?;
/// events.extend(rest);
/// assert!(matches!(&events[0], StreamEvent::ToolCallStart { id, name, .. } if id == "call_1" && name == "get_weather"));
/// let Some(StreamEvent::ToolCallEnd { call, .. }) = events.last() else { panic!() };
/// assert_eq!(call.arguments["city"], "Paris");
/// assert_eq!(completion.finish_reason.as_deref(), Some("tool_calls"));
/// assert_eq!(completion.usage.unwrap().cached_tokens, Some(16));
/// # Ok::<(), tool_models::remote::RemoteError>(())
/// ```
#[derive(Debug, Default)]
pub struct ResponsesReader {
    slots: Vec<Slot>,
    /// Output items whose text came in deltas (their `done` form repeats it).
    streamed: HashSet<String>,
    /// Whether any output item arrived as an event.
    seen_items: bool,
    completion: Completion,
    done: bool,
    events: usize,
}

impl ResponsesReader {
    /// Whether the answer's last event (`response.completed`,
    /// `response.incomplete` or `response.failed`) has arrived.
    pub fn done(&self) -> bool {
        self.done
    }

    /// A reader for one response.
    pub fn new() -> ResponsesReader {
        ResponsesReader::default()
    }

    /// Reads one SSE event: its `event:` name and its `data:` payload (whose
    /// `type` says the same; the name serves when it is missing). Events
    /// this reader has no use for are skipped.
    ///
    /// # Errors
    /// [`RemoteError::Engine`] for an `error` event or `response.failed`,
    /// [`RemoteError::Malformed`] for data that is not such an event.
    pub fn feed(&mut self, event: &str, data: &str) -> Result<Vec<StreamEvent>, RemoteError> {
        let data = data.trim();
        if data.is_empty() || data == "[DONE]" {
            return Ok(Vec::new());
        }
        let reading = Reading::new("Responses stream event", data);
        let mut value = reading.json()?;
        if let Some(object) = value.as_object_mut() {
            if !object.contains_key("type") && !event.is_empty() {
                object.insert("type".into(), Value::from(event));
            }
        }
        let event: Sequenced = reading.typed(value)?;
        self.events += 1;
        let mut out = Vec::new();
        self.read(event.event, &mut out)?;
        Ok(out)
    }

    /// Reads a whole (non-streamed) response body: its output items in
    /// order, as the stream would have given them.
    ///
    /// # Errors
    /// [`RemoteError::Engine`] for an error body or a failed response,
    /// [`RemoteError::Malformed`] for a body that is not a response.
    pub fn feed_response(&mut self, body: &str) -> Result<Vec<StreamEvent>, RemoteError> {
        let reading = Reading::new("Responses response", body);
        let value = reading.json()?;
        let error = value.get("error").filter(|e| !e.is_null());
        if let Some(error) = error.filter(|_| value.get("output").is_none()) {
            return Err(RemoteError::Engine(super::stream::error_message(error)));
        }
        let response: Response = reading.typed(value)?;
        if response.status == Some(ResponseStatus::Failed) {
            return Err(failed(&response));
        }
        let mut out = Vec::new();
        self.end(response, &mut out);
        Ok(out)
    }

    /// Ends the answer: closes the calls still open.
    ///
    /// # Errors
    /// [`RemoteError::Truncated`] when the stream stopped before
    /// `response.completed`, `response.incomplete` or `response.failed`.
    pub fn finish(mut self) -> Result<(Vec<StreamEvent>, Completion), RemoteError> {
        if !self.done {
            let open = self.slots.iter().filter(|s| !s.closed).count();
            return Err(RemoteError::Truncated {
                received: format!(
                    "{} Responses events had arrived but no response.completed, {} calls begun, {open} still open",
                    self.events,
                    self.slots.len()
                ),
            });
        }
        let mut out = Vec::new();
        for at in 0..self.slots.len() {
            self.close(at, &mut out);
        }
        Ok((out, self.completion))
    }

    fn read(
        &mut self,
        event: ResponseEvent,
        out: &mut Vec<StreamEvent>,
    ) -> Result<(), RemoteError> {
        match event {
            ResponseEvent::Created { response } | ResponseEvent::InProgress { response } => {
                if !response.model.is_empty() {
                    self.completion.model = Some(response.model);
                }
            }
            ResponseEvent::OutputItemAdded { output_index, item } => {
                self.seen_items = true;
                if let Item::FunctionCall(call) = item {
                    let key = key(call.id.as_deref(), output_index);
                    let at = self.slot(key, &call.name, &call.call_id, out);
                    self.arguments(at, call.arguments, out);
                }
            }
            ResponseEvent::OutputTextDelta {
                item_id,
                output_index,
                delta,
                ..
            } => self.text(&item_id, output_index, StreamEvent::Content(delta), out),
            ResponseEvent::ReasoningTextDelta {
                item_id,
                output_index,
                delta,
                ..
            }
            | ResponseEvent::ReasoningSummaryTextDelta {
                item_id,
                output_index,
                delta,
                ..
            } => self.text(&item_id, output_index, StreamEvent::Reasoning(delta), out),
            ResponseEvent::FunctionCallArgumentsDelta {
                item_id,
                output_index,
                delta,
            } => {
                let at = self.slot(key(Some(&item_id), output_index), "", "", out);
                self.arguments(at, delta, out);
            }
            ResponseEvent::FunctionCallArgumentsDone {
                item_id,
                output_index,
                arguments,
            } => {
                let at = self.slot(key(Some(&item_id), output_index), "", "", out);
                self.whole_arguments(at, arguments, out);
            }
            ResponseEvent::OutputItemDone { output_index, item } => {
                self.seen_items = true;
                self.item_done(output_index, item, out);
            }
            ResponseEvent::Completed { response } | ResponseEvent::Incomplete { response } => {
                self.end(response, out)
            }
            ResponseEvent::Failed { response } => return Err(failed(&response)),
            ResponseEvent::Error { code, message, .. } => {
                return Err(RemoteError::Engine(match code {
                    Some(code) => format!("{message} ({code})"),
                    None => message,
                }))
            }
            ResponseEvent::ContentPartAdded { .. }
            | ResponseEvent::ContentPartDone { .. }
            | ResponseEvent::OutputTextDone { .. }
            | ResponseEvent::ReasoningTextDone { .. }
            | ResponseEvent::Other => {}
        }
        Ok(())
    }

    /// Streamed text of an item (then its whole form adds nothing).
    fn text(
        &mut self,
        item_id: &str,
        output_index: usize,
        text: StreamEvent,
        out: &mut Vec<StreamEvent>,
    ) {
        self.streamed.insert(key(Some(item_id), output_index));
        push_text(out, text);
    }

    /// A call's whole arguments, which repeat its pieces when there were
    /// any: passed on only when none came.
    fn whole_arguments(&mut self, at: usize, arguments: String, out: &mut Vec<StreamEvent>) {
        let pieces = self.slots[at].call.arguments_delta.as_deref();
        if pieces.unwrap_or("").is_empty() {
            self.arguments(at, arguments, out);
        }
    }

    /// An output item, whole: text not already streamed, a call closed.
    fn item_done(&mut self, output_index: usize, item: Item, out: &mut Vec<StreamEvent>) {
        let streamed = |id: Option<&str>| self.streamed.contains(&key(id, output_index));
        match item {
            Item::Message(message) if !streamed(message.id.as_deref()) => {
                push_text(out, StreamEvent::Content(message.content.text()));
            }
            Item::Reasoning(reasoning) if !streamed(reasoning.id.as_deref()) => {
                push_text(out, StreamEvent::Reasoning(reasoning.text()));
            }
            Item::FunctionCall(call) => {
                let key = key(call.id.as_deref(), output_index);
                let at = self.slot(key, &call.name, &call.call_id, out);
                self.whole_arguments(at, call.arguments, out);
                self.close(at, out);
            }
            _ => {}
        }
    }

    /// The final response: its items, when none came as events, and how
    /// the turn ended.
    fn end(&mut self, response: Response, out: &mut Vec<StreamEvent>) {
        if !self.seen_items {
            for (i, item) in response.output.iter().enumerate() {
                self.item_done(i, item.clone(), out);
            }
            self.seen_items = !response.output.is_empty();
        }
        if !response.model.is_empty() {
            self.completion.model = Some(response.model.clone());
        }
        if let Some(usage) = &response.usage {
            self.completion.usage = Some(Usage {
                prompt_tokens: usage.input_tokens as usize,
                completion_tokens: usage.output_tokens as usize,
                cached_tokens: Some(usage.input_tokens_details.cached_tokens as usize),
            });
        }
        let reason = match (response.status, &response.incomplete_details) {
            (Some(ResponseStatus::Incomplete), Some(d)) if d.reason != "max_output_tokens" => {
                d.reason.clone()
            }
            (Some(ResponseStatus::Incomplete), _) => "length".into(),
            _ if !self.slots.is_empty() => "tool_calls".into(),
            _ => "stop".into(),
        };
        self.completion.finish_reason = Some(reason);
        self.done = true;
    }

    /// The call item `key`, opened (and announced) when new.
    fn slot(
        &mut self,
        key: String,
        name: &str,
        call_id: &str,
        out: &mut Vec<StreamEvent>,
    ) -> usize {
        if let Some(at) = self
            .slots
            .iter()
            .position(|s| s.item.as_deref() == Some(key.as_str()))
        {
            let call = &mut self.slots[at].call;
            if call.name.as_deref().unwrap_or("").is_empty() && !name.is_empty() {
                call.name = Some(name.to_owned());
            }
            return at;
        }
        let at = self.slots.len();
        let id = if call_id.is_empty() {
            format!("call_{at}")
        } else {
            call_id.to_owned()
        };
        out.push(StreamEvent::ToolCallStart {
            index: at,
            id: id.clone(),
            name: name.to_owned(),
        });
        self.slots.push(Slot {
            item: Some(key),
            call: ToolCallChunk {
                index: Some(at),
                id: Some(id),
                name: Some(name.to_owned()),
                arguments_delta: None,
            },
            closed: false,
        });
        at
    }

    fn arguments(&mut self, at: usize, delta: String, out: &mut Vec<StreamEvent>) {
        let slot = &mut self.slots[at];
        if delta.is_empty() || slot.closed {
            return;
        }
        slot.call
            .arguments_delta
            .get_or_insert_with(String::new)
            .push_str(&delta);
        out.push(StreamEvent::ToolCallArguments { index: at, delta });
    }

    /// Ends call `at`, once: the call, or why it cannot be read.
    fn close(&mut self, at: usize, out: &mut Vec<StreamEvent>) {
        let slot = &mut self.slots[at];
        if slot.closed {
            return;
        }
        slot.closed = true;
        out.push(match slot.call.to_finished_call() {
            Ok(call) => StreamEvent::ToolCallEnd { index: at, call },
            Err(invalid) => StreamEvent::InvalidToolCall(invalid),
        });
    }
}

/// What an item is known by: its id, which every event about it carries
/// (llama-server sends no `output_index`), else its place in the output.
fn key(id: Option<&str>, output_index: usize) -> String {
    match id {
        Some(id) if !id.is_empty() => id.to_owned(),
        _ => format!("#{output_index}"),
    }
}

/// Text events carry something.
fn push_text(out: &mut Vec<StreamEvent>, event: StreamEvent) {
    match &event {
        StreamEvent::Content(t) | StreamEvent::Reasoning(t) if t.is_empty() => {}
        _ => out.push(event),
    }
}

/// A failed response's own words.
fn failed(response: &Response) -> RemoteError {
    RemoteError::Engine(match &response.error {
        Some(e) => match &e.code {
            Some(code) => format!("{} ({code})", e.message),
            None => e.message.clone(),
        },
        None => format!("the response {} failed", response.id),
    })
}

#[cfg(test)]
mod tests;
