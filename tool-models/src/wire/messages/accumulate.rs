//! A streamed answer's events added up to the `message` they carry, the
//! way Anthropic's SDKs do it (`get_final_message()`), so that a streamed
//! answer can be compared with a whole one.

use std::collections::BTreeMap;

use serde_json::Value;
use tool_runtime::partial_json::parse_partial;

use super::{BlockDelta, ContentBlock, ErrorObject, MessageResponse, MessagesEvent};

/// An event that does not fit the stream so far.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AccumulateError {
    /// An event before `message_start`.
    #[error("`{0}` came before `message_start`")]
    BeforeStart(&'static str),
    /// An event about a block that was never started.
    #[error("`{event}` is about block {index}, but only {blocks} blocks have started")]
    NoBlock {
        /// The event's type.
        event: &'static str,
        /// The block it names.
        index: usize,
        /// How many had started.
        blocks: usize,
    },
    /// The stream carried an `error` event.
    #[error("the stream reported {}: {}", .0.kind, .0.message)]
    Stream(ErrorObject),
}

/// Adds up a stream's events.
///
/// ```
/// use tool_models::wire::messages::{MessageAccumulator, MessagesEvent};
///
/// let mut acc = MessageAccumulator::new();
/// for data in [
///     r#"{"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","model":"m","content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":9,"output_tokens":0}}}"#,
///     r#"{"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":"toolu_1","name":"f","input":{}}}"#,
///     r#"{"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"{\"a\": "}}"#,
///     r#"{"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"1}"}}"#,
///     r#"{"type":"content_block_stop","index":0}"#,
///     r#"{"type":"message_delta","delta":{"stop_reason":"tool_use","stop_sequence":null},"usage":{"output_tokens":5}}"#,
///     r#"{"type":"message_stop"}"#,
/// ] {
///     acc.apply(&serde_json::from_str::<MessagesEvent>(data)?)?;
/// }
/// let message = acc.finish().unwrap();
/// assert_eq!(serde_json::to_value(&message.content)?[0]["input"]["a"], 1);
/// assert_eq!(message.usage.output_tokens, 5);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, Default)]
pub struct MessageAccumulator {
    message: Option<MessageResponse>,
    /// Each `tool_use` block's input so far, as JSON text.
    json: BTreeMap<usize, String>,
}

impl MessageAccumulator {
    /// Nothing received yet.
    pub fn new() -> MessageAccumulator {
        MessageAccumulator::default()
    }

    /// Adds one event. `ping` and unknown events change nothing.
    ///
    /// # Errors
    /// An [`AccumulateError`] for an event out of order, or an `error`
    /// event; what was added before stays.
    pub fn apply(&mut self, event: &MessagesEvent) -> Result<(), AccumulateError> {
        let message = match (event, &mut self.message) {
            (MessagesEvent::MessageStart { message }, _) => {
                self.message = Some(message.clone());
                self.json.clear();
                return Ok(());
            }
            (MessagesEvent::Error { error }, _) => {
                return Err(AccumulateError::Stream(error.clone()))
            }
            (MessagesEvent::Ping | MessagesEvent::Unknown, _) => return Ok(()),
            (_, None) => return Err(AccumulateError::BeforeStart(event.name())),
            (_, Some(message)) => message,
        };
        let blocks = message.content.len();
        let missing = |index: usize| AccumulateError::NoBlock {
            event: event.name(),
            index,
            blocks,
        };
        match event {
            MessagesEvent::ContentBlockStart {
                index,
                content_block,
            } => {
                if *index != blocks {
                    return Err(missing(*index));
                }
                message.content.push(content_block.clone());
            }
            MessagesEvent::ContentBlockDelta { index, delta } => {
                let block = message
                    .content
                    .get_mut(*index)
                    .ok_or_else(|| missing(*index))?;
                match (block, delta) {
                    (ContentBlock::Text { text }, BlockDelta::TextDelta { text: more }) => {
                        text.push_str(more);
                    }
                    (
                        ContentBlock::Thinking { thinking, .. },
                        BlockDelta::ThinkingDelta { thinking: more },
                    ) => thinking.push_str(more),
                    (
                        ContentBlock::Thinking { signature, .. },
                        BlockDelta::SignatureDelta { signature: given },
                    ) => signature.clone_from(given),
                    (
                        ContentBlock::ToolUse { input, .. },
                        BlockDelta::InputJsonDelta { partial_json },
                    ) => {
                        let json = self.json.entry(*index).or_default();
                        json.push_str(partial_json);
                        // As the SDKs do: the input so far, completed.
                        if let Ok(Some(value @ Value::Object(_))) = parse_partial(json) {
                            *input = value;
                        }
                    }
                    // A delta of another kind than its block: skipped, as
                    // the SDKs skip it.
                    _ => {}
                }
            }
            MessagesEvent::ContentBlockStop { index } if *index >= blocks => {
                return Err(missing(*index));
            }
            MessagesEvent::MessageDelta { delta, usage } => {
                message.stop_reason.clone_from(&delta.stop_reason);
                message.stop_sequence.clone_from(&delta.stop_sequence);
                message.usage.output_tokens = usage.output_tokens;
                // Totals: they replace the start's counts where given.
                if let Some(n) = usage.input_tokens {
                    message.usage.input_tokens = n;
                }
                if let Some(n) = usage.cache_read_input_tokens {
                    message.usage.cache_read_input_tokens = Some(n);
                }
                if let Some(n) = usage.cache_creation_input_tokens {
                    message.usage.cache_creation_input_tokens = Some(n);
                }
            }
            _ => {}
        }
        Ok(())
    }

    /// The message so far; `None` before `message_start`.
    pub fn message(&self) -> Option<&MessageResponse> {
        self.message.as_ref()
    }

    /// The message the events add up to; `None` without `message_start`.
    pub fn finish(self) -> Option<MessageResponse> {
        self.message
    }
}
