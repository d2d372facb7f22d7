//! Anthropic's Messages API from the client's side: the request body for
//! a turn, and the answer (streamed events or a whole `message`) read into
//! the same [`StreamEvent`]s a local model's parser produces.

use std::collections::BTreeMap;

use serde_json::Value;
use tool_runtime::ToolCallChunk;

use super::error::{Reading, RemoteError};
use super::options::RequestOptions;
use super::stream::Completion;
use crate::chat::{TurnRequest, Usage};
use crate::parse::StreamEvent;
use crate::wire::messages::{
    BlockDelta, ContentBlock, MessageResponse, MessagesEvent, MessagesRequest,
};

/// `max_tokens` when the options leave it out: the API requires one, and
/// this is enough for a turn of calls or a paragraph of answer.
pub const DEFAULT_MAX_TOKENS: u64 = 4096;

/// The body of `POST /v1/messages` for one turn.
///
/// The conversation is written as
/// [`MessagesRequest::from_conversation`] writes it (tool results in one
/// user turn, reasoning left out); tools lose their grounding markers and
/// any key the API does not define. `max_tokens` is
/// [`DEFAULT_MAX_TOKENS`] unless the options set it; `seed` is left out,
/// as the API has none; `stop` becomes `stop_sequences`;
/// `parallel_tool_calls: false` becomes `disable_parallel_tool_use`; the
/// options' `extra` fields are added last (`top_k`, `thinking`…).
///
/// # Errors
/// [`RemoteError::Unsupported`] for a `response_format`: the API has no
/// equivalent.
pub(super) fn messages_request(
    model: &str,
    request: &TurnRequest<'_>,
    options: &RequestOptions,
    stream: bool,
) -> Result<Value, RemoteError> {
    if options.response_format.is_some() {
        return Err(RemoteError::Unsupported(
            "Anthropic's Messages API has no `response_format`: describe the answer's shape \
             in the prompt, or offer a tool whose input is that shape"
                .into(),
        ));
    }
    let tools = tool_runtime::ToolDefinition::strip_grounding(request.tools);
    let mut wire = MessagesRequest::from_conversation(
        request.messages,
        &tools,
        request.tool_choice,
        options.parallel_tool_calls.unwrap_or(true),
        options.max_tokens.map_or(DEFAULT_MAX_TOKENS, |n| n as u64),
    );
    wire.model = Some(model.to_owned());
    wire.temperature = options.temperature;
    wire.top_p = options.top_p;
    // The API refuses an empty stop sequence.
    wire.stop_sequences = options
        .stop
        .iter()
        .filter(|s| !s.is_empty())
        .cloned()
        .collect();
    wire.stream = stream;
    let mut body = serde_json::to_value(&wire)
        .map_err(|e| RemoteError::Unsupported(format!("the request cannot be written: {e}")))?;
    if let Value::Object(fields) = &mut body {
        for (key, value) in &options.extra {
            fields.insert(key.clone(), value.clone());
        }
    }
    Ok(body)
}

/// One content block of the answer, by its wire index.
#[derive(Debug)]
enum Block {
    Text,
    Thinking,
    Call {
        /// Its position among the turn's calls.
        ordinal: usize,
        chunk: ToolCallChunk,
        /// The input given whole at the start, used when no piece follows.
        initial: Value,
        closed: bool,
    },
    /// A block the crate has no use for (a server tool's).
    Other,
}

/// Reads a Messages answer into [`StreamEvent`]s: streamed (each SSE
/// event's name and data) or whole. Calls stream as their `input_json_delta`
/// pieces arrive and end with the block; input that is not a JSON object
/// becomes an [`InvalidToolCall`](tool_runtime::InvalidToolCall), never an
/// error.
///
/// ```
/// use tool_models::parse::StreamEvent;
/// use tool_models::remote::MessagesReader;
///
/// let mut reader = MessagesReader::new();
/// let mut events = Vec::new();
/// for (event, data) in [
///     ("message_start", r#"{"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","model":"claude","content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":20,"cache_read_input_tokens":5,"output_tokens":1}}}"#),
///     ("content_block_start", r#"{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}"#),
///     ("content_block_delta", r#"{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Checking."}}"#),
///     ("content_block_stop", r#"{"type":"content_block_stop","index":0}"#),
///     ("content_block_start", r#"{"type":"content_block_start","index":1,"content_block":{"type":"tool_use","id":"toolu_1","name":"get_weather","input":{}}}"#),
///     ("content_block_delta", r#"{"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"{\"city\": \"Paris\"}"}}"#),
///     ("content_block_stop", r#"{"type":"content_block_stop","index":1}"#),
///     ("message_delta", r#"{"type":"message_delta","delta":{"stop_reason":"tool_use","stop_sequence":null},"usage":{"output_tokens":12}}"#),
///     ("message_stop", r#"{"type":"message_stop"}"#),
/// ] {
///     events.extend(reader.feed(event, data)?);
/// }
/// let (rest, completion) = reader.finish()?;
/// events.extend(rest);
/// assert_eq!(events[0], StreamEvent::Content("Checking.".into()));
/// let Some(StreamEvent::ToolCallEnd { call, .. }) = events.last() else { panic!() };
/// assert_eq!((call.id.as_str(), call.arguments["city"].as_str()), ("toolu_1", Some("Paris")));
/// assert_eq!(completion.finish_reason.as_deref(), Some("tool_use"));
/// let usage = completion.usage.unwrap();
/// assert_eq!((usage.prompt_tokens, usage.cached_tokens, usage.completion_tokens), (25, Some(5), 12));
/// # Ok::<(), tool_models::remote::RemoteError>(())
/// ```
#[derive(Debug, Default)]
pub struct MessagesReader {
    blocks: BTreeMap<usize, Block>,
    calls: usize,
    completion: Completion,
    /// The counts so far, once `message_start` gave them.
    usage: Option<crate::wire::messages::Usage>,
    stopped: bool,
    events: usize,
}

impl MessagesReader {
    /// Whether `message_stop` has arrived.
    pub fn stopped(&self) -> bool {
        self.stopped
    }

    /// A reader for one answer.
    pub fn new() -> MessagesReader {
        MessagesReader::default()
    }

    /// Reads one server-sent event: its `event:` name and its `data:`.
    ///
    /// # Errors
    /// [`RemoteError::Engine`] for an `error` event,
    /// [`RemoteError::Malformed`] for data that is not a Messages event or
    /// that names a block never started. The reader keeps what it had.
    pub fn feed(&mut self, event: &str, data: &str) -> Result<Vec<StreamEvent>, RemoteError> {
        let data = data.trim();
        if data.is_empty() {
            return Ok(Vec::new());
        }
        let reading = Reading::new("Messages stream event", data);
        let value: Value = reading.json().map_err(|e| {
            if event == "error" {
                RemoteError::Engine(data.to_owned())
            } else {
                e
            }
        })?;
        let parsed: MessagesEvent = reading.typed(value)?;
        if let MessagesEvent::Error { error } = &parsed {
            return Err(RemoteError::Engine(format!(
                "{}: {}",
                error.kind, error.message
            )));
        }
        self.events += 1;
        self.read(parsed)
            .map_err(|reason| reading.malformed(reason))
    }

    /// Reads a whole (non-streamed) answer: a `message` object, or an error
    /// body.
    ///
    /// # Errors
    /// [`RemoteError::Engine`] for an error body, [`RemoteError::Malformed`]
    /// for anything else that is not a `message`.
    pub fn feed_response(&mut self, body: &str) -> Result<Vec<StreamEvent>, RemoteError> {
        let reading = Reading::new("Messages response", body);
        let value = reading.json()?;
        if let Some(error) = value.get("error").filter(|_| value["type"] == "error") {
            return Err(RemoteError::Engine(super::stream::error_message(error)));
        }
        let message: MessageResponse = reading.typed(value)?;
        self.completion.model = Some(message.model.clone());
        self.completion.finish_reason = message.stop_reason.as_ref().map(|r| r.as_str().to_owned());
        self.usage = Some(message.usage);
        self.stopped = true;
        let mut events = Vec::new();
        for (index, block) in message.content.into_iter().enumerate() {
            // A whole block is its start with everything in it.
            events.extend(self.start(index, block));
            events.extend(self.stop(index));
        }
        Ok(events)
    }

    /// Ends the answer: closes the calls still open, and says how it ended.
    ///
    /// # Errors
    /// [`RemoteError::Truncated`] when the stream ended before
    /// `message_delta` or `message_stop` (a dropped connection).
    pub fn finish(mut self) -> Result<(Vec<StreamEvent>, Completion), RemoteError> {
        if !self.stopped && self.completion.finish_reason.is_none() {
            let open = self
                .blocks
                .values()
                .filter(|b| matches!(b, Block::Call { closed: false, .. }))
                .count();
            return Err(RemoteError::Truncated {
                received: format!(
                    "no message_delta and no message_stop; {} events had arrived, {} calls begun, \
                     {open} still open",
                    self.events, self.calls
                ),
            });
        }
        let indices: Vec<usize> = self.blocks.keys().copied().collect();
        let events = indices.into_iter().flat_map(|i| self.stop(i)).collect();
        let mut completion = self.completion;
        completion.usage = self.usage.map(|u| {
            let cached = u.cache_read_input_tokens.unwrap_or(0);
            Usage {
                prompt_tokens: (u.input_tokens
                    + cached
                    + u.cache_creation_input_tokens.unwrap_or(0))
                    as usize,
                completion_tokens: u.output_tokens as usize,
                cached_tokens: u.cache_read_input_tokens.map(|n| n as usize),
            }
        });
        Ok((events, completion))
    }

    fn read(&mut self, event: MessagesEvent) -> Result<Vec<StreamEvent>, String> {
        match event {
            MessagesEvent::MessageStart { message } => {
                self.completion.model = Some(message.model);
                self.usage = Some(message.usage);
                Ok(Vec::new())
            }
            MessagesEvent::ContentBlockStart {
                index,
                content_block,
            } => Ok(self.start(index, content_block)),
            MessagesEvent::ContentBlockDelta { index, delta } => self.delta(index, delta),
            MessagesEvent::ContentBlockStop { index } => {
                if !self.blocks.contains_key(&index) {
                    return Err(format!("block {index} stops but never started"));
                }
                Ok(self.stop(index))
            }
            MessagesEvent::MessageDelta { delta, usage } => {
                if let Some(reason) = delta.stop_reason {
                    self.completion.finish_reason = Some(reason.as_str().to_owned());
                }
                // Totals: they replace the start's counts where given.
                let counts = self.usage.get_or_insert_with(Default::default);
                counts.output_tokens = usage.output_tokens;
                if let Some(n) = usage.input_tokens {
                    counts.input_tokens = n;
                }
                if let Some(n) = usage.cache_read_input_tokens {
                    counts.cache_read_input_tokens = Some(n);
                }
                if let Some(n) = usage.cache_creation_input_tokens {
                    counts.cache_creation_input_tokens = Some(n);
                }
                Ok(Vec::new())
            }
            MessagesEvent::MessageStop => {
                self.stopped = true;
                Ok(Vec::new())
            }
            // `feed` turns an error event into the error it reports.
            MessagesEvent::Error { .. } | MessagesEvent::Ping | MessagesEvent::Unknown => {
                Ok(Vec::new())
            }
        }
    }

    fn start(&mut self, index: usize, block: ContentBlock) -> Vec<StreamEvent> {
        let mut events = Vec::new();
        let state = match block {
            ContentBlock::Text { text } => {
                if !text.is_empty() {
                    events.push(StreamEvent::Content(text));
                }
                Block::Text
            }
            ContentBlock::Thinking { thinking, .. } => {
                if !thinking.is_empty() {
                    events.push(StreamEvent::Reasoning(thinking));
                }
                Block::Thinking
            }
            ContentBlock::ToolUse { id, name, input } => {
                let ordinal = self.calls;
                self.calls += 1;
                events.push(StreamEvent::ToolCallStart {
                    index: ordinal,
                    id: id.clone(),
                    name: name.clone(),
                });
                Block::Call {
                    ordinal,
                    chunk: ToolCallChunk {
                        index: Some(ordinal),
                        id: Some(id),
                        name: Some(name),
                        arguments_delta: None,
                    },
                    initial: input,
                    closed: false,
                }
            }
            _ => Block::Other,
        };
        self.blocks.insert(index, state);
        events
    }

    fn delta(&mut self, index: usize, delta: BlockDelta) -> Result<Vec<StreamEvent>, String> {
        let Some(block) = self.blocks.get_mut(&index) else {
            return Err(format!("a delta for block {index}, which never started"));
        };
        Ok(match (block, delta) {
            (Block::Text, BlockDelta::TextDelta { text }) if !text.is_empty() => {
                vec![StreamEvent::Content(text)]
            }
            (Block::Thinking, BlockDelta::ThinkingDelta { thinking }) if !thinking.is_empty() => {
                vec![StreamEvent::Reasoning(thinking)]
            }
            (
                Block::Call {
                    ordinal,
                    chunk,
                    closed: false,
                    ..
                },
                BlockDelta::InputJsonDelta { partial_json },
            ) if !partial_json.is_empty() => {
                chunk
                    .arguments_delta
                    .get_or_insert_with(String::new)
                    .push_str(&partial_json);
                vec![StreamEvent::ToolCallArguments {
                    index: *ordinal,
                    delta: partial_json,
                }]
            }
            // Signatures, citations, and deltas of a kind their block
            // does not take carry nothing the agent uses.
            _ => Vec::new(),
        })
    }

    /// Ends block `index`: a call's final event, once.
    fn stop(&mut self, index: usize) -> Vec<StreamEvent> {
        let Some(Block::Call {
            ordinal,
            chunk,
            initial,
            closed,
        }) = self.blocks.get_mut(&index)
        else {
            return Vec::new();
        };
        if *closed {
            return Vec::new();
        }
        *closed = true;
        let mut events = Vec::new();
        // Input given whole at the start (a whole answer, or a server that
        // sends no pieces) is the call's only piece.
        if chunk.arguments_delta.is_none() && initial.as_object().is_some_and(|o| !o.is_empty()) {
            let whole = initial.to_string();
            chunk.arguments_delta = Some(whole.clone());
            events.push(StreamEvent::ToolCallArguments {
                index: *ordinal,
                delta: whole,
            });
        }
        events.push(match chunk.to_finished_call() {
            Ok(call) => StreamEvent::ToolCallEnd {
                index: *ordinal,
                call,
            },
            Err(invalid) => StreamEvent::InvalidToolCall(invalid),
        });
        events
    }
}

#[cfg(test)]
mod tests;
