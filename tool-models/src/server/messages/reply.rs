//! A Messages answer's wire form: the parser's events become content-block
//! events, and the whole `message` is those same events added up, so that
//! streamed and whole answers agree by construction.

use serde_json::json;

use crate::chat::Usage;
use crate::parse::StreamEvent;
use crate::server::ids::random_id;
use crate::server::request::Finish;
use crate::wire::messages::{
    BlockDelta, ContentBlock, DeltaUsage, MessageAccumulator, MessageDelta, MessageResponse,
    MessagesEvent, StopReason, Usage as MessagesUsage,
};

/// `stop_reason` and `stop_sequence`.
fn stop(finish: Finish) -> (StopReason, Option<String>) {
    match finish {
        Finish::Stop => (StopReason::EndTurn, None),
        Finish::StopSequence(s) => (StopReason::StopSequence, Some(s)),
        Finish::Length => (StopReason::MaxTokens, None),
        Finish::ToolCalls => (StopReason::ToolUse, None),
    }
}

/// The block being written; the API has one open at a time.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Open {
    Text(usize),
    Thinking(usize),
    /// A call's block, by the parser's index of the call.
    Call {
        block: usize,
        parser_index: usize,
    },
}

/// One call of the answer.
#[derive(Debug)]
struct Call {
    parser_index: usize,
    block: usize,
    /// Whether any of its input has gone out.
    sent: bool,
}

/// Turns parser events into Messages events, and adds up what it sent.
#[derive(Debug)]
pub(crate) struct Assembler {
    start: MessageResponse,
    open: Option<Open>,
    blocks: usize,
    calls: Vec<Call>,
    sent: MessageAccumulator,
}

impl Assembler {
    /// An answer from `model` to a prompt of `prompt_tokens` tokens (the
    /// cached share is known only at the end, in `message_delta`).
    pub fn new(model: &str, prompt_tokens: usize) -> Assembler {
        let usage = MessagesUsage {
            input_tokens: prompt_tokens as u64,
            ..MessagesUsage::default()
        };
        let start = MessageResponse::empty(random_id("msg_", 24), model, usage);
        let mut sent = MessageAccumulator::new();
        let opening = MessagesEvent::MessageStart {
            message: start.clone(),
        };
        // Cannot fail: `message_start` is always taken.
        let _ = sent.apply(&opening);
        Assembler {
            start,
            open: None,
            blocks: 0,
            calls: Vec::new(),
            sent,
        }
    }

    /// `message_start`.
    pub fn opening(&self) -> MessagesEvent {
        MessagesEvent::MessageStart {
            message: self.start.clone(),
        }
    }

    /// The events for one parsed piece of output.
    pub fn event(&mut self, event: StreamEvent) -> Vec<MessagesEvent> {
        let mut out = Vec::new();
        match event {
            StreamEvent::Content(text) => self.text(text, &mut out),
            StreamEvent::Reasoning(text) if !text.is_empty() => {
                let empty = ContentBlock::Thinking {
                    thinking: String::new(),
                    signature: String::new(),
                };
                let index = self.running(Open::Thinking, empty, &mut out);
                self.push(
                    index,
                    BlockDelta::ThinkingDelta { thinking: text },
                    &mut out,
                );
            }
            StreamEvent::Reasoning(_) => {}
            StreamEvent::ToolCallStart { index, name, .. } => {
                self.start_call(index, name, &mut out);
            }
            StreamEvent::ToolCallArguments { index, delta } => {
                if let Some(at) = self.position(index) {
                    self.arguments(at, delta, &mut out);
                }
            }
            StreamEvent::ToolCallEnd { index, call } => {
                let at = match self.position(index) {
                    Some(at) => at,
                    // A parser that announces a call only whole.
                    None => self.start_call(index, call.name.clone(), &mut out),
                };
                if !self.calls[at].sent {
                    // Input the parser never streamed: sent whole, so that
                    // the pieces always add up to it.
                    self.arguments(at, call.arguments.to_string(), &mut out);
                }
                if self.open
                    == Some(Open::Call {
                        block: self.calls[at].block,
                        parser_index: index,
                    })
                {
                    self.close(&mut out);
                }
            }
            // Nothing the model wrote is lost: a call that could not be
            // read ends its block, and reaches the client as the text it
            // was, as on /v1/chat/completions.
            StreamEvent::InvalidToolCall(invalid) => {
                if matches!(self.open, Some(Open::Call { .. })) {
                    self.close(&mut out);
                }
                self.text(invalid.raw_arguments.unwrap_or_default(), &mut out);
            }
        }
        out
    }

    /// The events that end the answer.
    pub fn closing(&mut self, finish: Finish, usage: Usage) -> Vec<MessagesEvent> {
        let mut out = Vec::new();
        self.close(&mut out);
        let (stop_reason, stop_sequence) = stop(finish);
        let cached = usage.cached_tokens.unwrap_or(0);
        self.emit(
            MessagesEvent::MessageDelta {
                delta: MessageDelta {
                    stop_reason: Some(stop_reason),
                    stop_sequence,
                },
                usage: DeltaUsage {
                    output_tokens: usage.completion_tokens as u64,
                    input_tokens: Some(usage.prompt_tokens.saturating_sub(cached) as u64),
                    cache_read_input_tokens: usage.cached_tokens.map(|n| n as u64),
                    cache_creation_input_tokens: None,
                },
            },
            &mut out,
        );
        self.emit(MessagesEvent::MessageStop, &mut out);
        out
    }

    /// The whole `message`: every event sent so far, added up.
    pub fn message(self) -> MessageResponse {
        self.sent.finish().unwrap_or(self.start)
    }

    fn emit(&mut self, event: MessagesEvent, out: &mut Vec<MessagesEvent>) {
        let added = self.sent.apply(&event);
        debug_assert!(added.is_ok(), "{added:?} for {event:?}");
        out.push(event);
    }

    fn text(&mut self, text: String, out: &mut Vec<MessagesEvent>) {
        if text.is_empty() {
            return;
        }
        let empty = ContentBlock::Text {
            text: String::new(),
        };
        let index = self.running(Open::Text, empty, out);
        self.push(index, BlockDelta::TextDelta { text }, out);
    }

    /// The index of the open block of `kind` (text or thinking), or of a
    /// new one begun as `empty`: pieces of one kind in a row share a block.
    fn running(
        &mut self,
        kind: fn(usize) -> Open,
        empty: ContentBlock,
        out: &mut Vec<MessagesEvent>,
    ) -> usize {
        match self.open {
            Some(Open::Text(index) | Open::Thinking(index)) if self.open == Some(kind(index)) => {
                index
            }
            _ => {
                let index = self.begin(empty, out);
                self.open = Some(kind(index));
                index
            }
        }
    }

    /// Opens a call's block; its position among the calls.
    fn start_call(
        &mut self,
        parser_index: usize,
        name: String,
        out: &mut Vec<MessagesEvent>,
    ) -> usize {
        let block = self.begin(
            ContentBlock::ToolUse {
                id: random_id("toolu_", 24),
                name,
                input: json!({}),
            },
            out,
        );
        self.open = Some(Open::Call {
            block,
            parser_index,
        });
        self.calls.push(Call {
            parser_index,
            block,
            sent: false,
        });
        self.calls.len() - 1
    }

    fn arguments(&mut self, at: usize, delta: String, out: &mut Vec<MessagesEvent>) {
        if delta.is_empty() {
            return;
        }
        self.calls[at].sent = true;
        let block = self.calls[at].block;
        self.push(
            block,
            BlockDelta::InputJsonDelta {
                partial_json: delta,
            },
            out,
        );
    }

    fn position(&self, parser_index: usize) -> Option<usize> {
        self.calls
            .iter()
            .rposition(|c| c.parser_index == parser_index)
    }

    /// Closes the open block and starts `block`; its index.
    fn begin(&mut self, block: ContentBlock, out: &mut Vec<MessagesEvent>) -> usize {
        self.close(out);
        let index = self.blocks;
        self.blocks += 1;
        self.emit(
            MessagesEvent::ContentBlockStart {
                index,
                content_block: block,
            },
            out,
        );
        index
    }

    fn push(&mut self, index: usize, delta: BlockDelta, out: &mut Vec<MessagesEvent>) {
        self.emit(MessagesEvent::ContentBlockDelta { index, delta }, out);
    }

    fn close(&mut self, out: &mut Vec<MessagesEvent>) {
        let index = match self.open.take() {
            None => return,
            Some(Open::Text(index) | Open::Thinking(index) | Open::Call { block: index, .. }) => {
                index
            }
        };
        self.emit(MessagesEvent::ContentBlockStop { index }, out);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::server::test_events::{call_end, call_piece, call_start};
    use tool_runtime::InvalidToolCall;

    fn run(events: Vec<StreamEvent>, finish: Finish) -> (Vec<MessagesEvent>, MessageResponse) {
        let mut a = Assembler::new("tool-use-mini", 40);
        let mut sent = vec![a.opening()];
        for event in events {
            sent.extend(a.event(event));
        }
        sent.extend(a.closing(
            finish,
            Usage {
                prompt_tokens: 40,
                completion_tokens: 7,
                cached_tokens: Some(30),
            },
        ));
        (sent, a.message())
    }

    fn names(events: &[MessagesEvent]) -> Vec<String> {
        events
            .iter()
            .map(|e| match e {
                MessagesEvent::ContentBlockStart { index, .. } => format!("start {index}"),
                MessagesEvent::ContentBlockDelta { index, .. } => format!("delta {index}"),
                MessagesEvent::ContentBlockStop { index } => format!("stop {index}"),
                other => other.name().to_owned(),
            })
            .collect()
    }

    #[test]
    fn blocks_open_and_close_in_anthropics_order() {
        let (events, message) = run(
            vec![
                StreamEvent::Reasoning("Paris.".into()),
                StreamEvent::Content("Checking".into()),
                StreamEvent::Content(" now.".into()),
                call_start(0, "f"),
                call_piece(0, "{\"a\":"),
                call_piece(0, " 1}"),
                call_end(0, "f", serde_json::json!({"a": 1})),
                // A call the parser announces only whole.
                call_end(1, "f", serde_json::json!({"b": [2]})),
            ],
            Finish::ToolCalls,
        );
        assert_eq!(
            names(&events),
            [
                "message_start",
                "start 0",
                "delta 0",
                "stop 0",
                "start 1",
                "delta 1",
                "delta 1",
                "stop 1",
                "start 2",
                "delta 2",
                "delta 2",
                "stop 2",
                "start 3",
                "delta 3",
                "stop 3",
                "message_delta",
                "message_stop"
            ]
        );
        let content = serde_json::to_value(&message.content).unwrap();
        assert_eq!(content[0]["thinking"], "Paris.");
        assert_eq!(content[1]["text"], "Checking now.");
        assert_eq!(content[2]["input"], serde_json::json!({"a": 1}));
        assert_eq!(content[3]["input"], serde_json::json!({"b": [2]}));
        for block in [&content[2], &content[3]] {
            let id = block["id"].as_str().unwrap();
            assert!(id.starts_with("toolu_") && id.len() == 30, "{id}");
        }
        assert_ne!(content[2]["id"], content[3]["id"]);
        assert_eq!(message.stop_reason, Some(StopReason::ToolUse));
        assert_eq!(message.usage.input_tokens, 10, "the uncached share");
        assert_eq!(message.usage.cache_read_input_tokens, Some(30));
        assert_eq!(message.usage.output_tokens, 7);
        assert!(message.id.starts_with("msg_"));
        // message_start counts the whole prompt; message_delta splits it.
        let MessagesEvent::MessageStart { message: start } = &events[0] else {
            panic!("{events:?}")
        };
        assert_eq!(start.usage.input_tokens, 40);
        assert!(start.content.is_empty() && start.stop_reason.is_none());
    }

    #[test]
    fn the_whole_message_is_the_stream_added_up() {
        let (events, message) = run(
            vec![
                StreamEvent::Content("Hi".into()),
                call_start(0, "f"),
                call_piece(0, "{\"a\": tru"),
                StreamEvent::InvalidToolCall(InvalidToolCall {
                    id: None,
                    name: Some("f".into()),
                    raw_arguments: Some("{\"a\": tru".into()),
                    error: "not JSON".into(),
                }),
                StreamEvent::Content("".into()),
            ],
            Finish::StopSequence("END".into()),
        );
        let mut acc = MessageAccumulator::new();
        for event in &events {
            acc.apply(event).unwrap();
        }
        assert_eq!(acc.finish().unwrap(), message);
        assert_eq!(message.stop_reason, Some(StopReason::StopSequence));
        assert_eq!(message.stop_sequence.as_deref(), Some("END"));
        let content = serde_json::to_value(&message.content).unwrap();
        assert_eq!(
            content[2],
            serde_json::json!({"type": "text", "text": "{\"a\": tru"})
        );
        assert_eq!(content.as_array().unwrap().len(), 3);
    }
}
