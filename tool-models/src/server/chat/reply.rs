//! The answer's wire form: the parser's events become chunk deltas, and
//! the non-streamed message is those same deltas merged, so that streamed
//! and non-streamed answers agree by construction.

use crate::chat::Usage;
use crate::parse::StreamEvent;
use crate::server::ids::{call_id, random_id, unix_time};
use crate::server::request::Finish;
use crate::wire::chat::{
    CallDelta, CalledFunction, Choice, Chunk, ChunkChoice, Completion, Delta, FunctionDelta,
    FunctionKind, WireCall, WireMessage,
};
use tool_runtime::Role;

/// `finish_reason`: Chat Completions does not say which stop string.
fn finish_reason(finish: &Finish) -> String {
    match finish {
        Finish::Stop | Finish::StopSequence(_) => "stop",
        Finish::Length => "length",
        Finish::ToolCalls => "tool_calls",
    }
    .to_owned()
}

/// One call of the answer, as sent so far.
#[derive(Debug, Clone)]
struct Call {
    /// The parser's index, to match its later events.
    parser_index: usize,
    call: WireCall,
}

/// Turns parser events into chunk deltas and remembers what was sent.
#[derive(Debug, Default)]
pub(crate) struct Assembler {
    content: Option<String>,
    reasoning: Option<String>,
    calls: Vec<Call>,
}

impl Assembler {
    /// The delta (`choices[0].delta`) for one event, if it adds anything.
    pub fn delta(&mut self, event: StreamEvent) -> Option<Delta> {
        match event {
            StreamEvent::Content(text) => self.content_delta(text),
            StreamEvent::Reasoning(text) if !text.is_empty() => {
                self.reasoning
                    .get_or_insert_with(String::new)
                    .push_str(&text);
                Some(Delta {
                    reasoning_content: Some(text),
                    ..Delta::default()
                })
            }
            StreamEvent::Reasoning(_) => None,
            StreamEvent::ToolCallStart { index, name, .. } => {
                let id = call_id();
                let at = self.calls.len();
                self.calls.push(Call {
                    parser_index: index,
                    call: WireCall {
                        id: id.clone(),
                        kind: FunctionKind::Function,
                        function: CalledFunction {
                            name: name.clone(),
                            arguments: String::new(),
                        },
                    },
                });
                Some(calls_delta(CallDelta {
                    index: Some(at),
                    id: Some(id),
                    kind: Some(FunctionKind::Function),
                    function: Some(FunctionDelta {
                        name: Some(name),
                        arguments: Some(String::new()),
                    }),
                }))
            }
            StreamEvent::ToolCallArguments { index, delta } => {
                let at = self.position(index)?;
                self.arguments(at, delta)
            }
            // The parser's pieces already add up to the call's arguments.
            StreamEvent::ToolCallEnd { .. } => None,
            // Nothing the model wrote is lost: an unreadable call reaches
            // the client as the text it was.
            StreamEvent::InvalidToolCall(invalid) => {
                self.content_delta(invalid.raw_arguments.unwrap_or_default())
            }
        }
    }

    fn content_delta(&mut self, text: String) -> Option<Delta> {
        if text.is_empty() {
            return None;
        }
        self.content.get_or_insert_with(String::new).push_str(&text);
        Some(Delta {
            content: Some(text),
            ..Delta::default()
        })
    }

    fn position(&self, parser_index: usize) -> Option<usize> {
        self.calls
            .iter()
            .rposition(|c| c.parser_index == parser_index)
    }

    fn arguments(&mut self, at: usize, delta: String) -> Option<Delta> {
        if delta.is_empty() {
            return None;
        }
        self.calls[at].call.function.arguments.push_str(&delta);
        Some(calls_delta(CallDelta {
            index: Some(at),
            function: Some(FunctionDelta {
                name: None,
                arguments: Some(delta),
            }),
            ..CallDelta::default()
        }))
    }

    /// The non-streamed message: every delta merged.
    pub fn message(&self) -> WireMessage {
        WireMessage {
            role: Role::Assistant,
            content: self.content.clone(),
            reasoning_content: self.reasoning.clone(),
            tool_calls: self.calls.iter().map(|c| c.call.clone()).collect(),
            tool_call_id: None,
            name: None,
        }
    }
}

fn calls_delta(call: CallDelta) -> Delta {
    Delta {
        tool_calls: vec![call],
        ..Delta::default()
    }
}

/// Fields every completion object and chunk carries.
#[derive(Debug, Clone)]
pub(crate) struct Envelope {
    pub id: String,
    pub created: u64,
    pub model: String,
}

impl Envelope {
    pub fn new(model: &str) -> Envelope {
        Envelope {
            id: random_id("chatcmpl-", 24),
            created: unix_time(),
            model: model.to_owned(),
        }
    }

    fn chunk_of(&self, choices: Vec<ChunkChoice>, usage: Option<Usage>) -> Chunk {
        Chunk {
            id: self.id.clone(),
            object: "chat.completion.chunk".into(),
            created: self.created,
            model: self.model.clone(),
            choices,
            usage: usage.map(Into::into),
        }
    }

    /// A `chat.completion.chunk` with one choice.
    pub fn chunk(&self, delta: Delta, finish: Option<Finish>) -> Chunk {
        let choice = ChunkChoice {
            index: 0,
            delta,
            logprobs: None,
            finish_reason: finish.as_ref().map(finish_reason),
        };
        self.chunk_of(vec![choice], None)
    }

    /// The usage-only chunk that ends a stream when the client asks for it.
    pub fn usage_chunk(&self, usage: Usage) -> Chunk {
        self.chunk_of(Vec::new(), Some(usage))
    }

    /// The whole `chat.completion`.
    pub fn completion(&self, message: WireMessage, finish: Finish, usage: Usage) -> Completion {
        Completion {
            id: self.id.clone(),
            object: "chat.completion".into(),
            created: self.created,
            model: self.model.clone(),
            choices: vec![Choice {
                index: 0,
                message,
                logprobs: None,
                finish_reason: Some(finish_reason(&finish)),
            }],
            usage: Some(usage.into()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::server::test_events::{call_end, call_piece, call_start};
    use serde_json::{json, Value};
    use tool_runtime::InvalidToolCall;

    #[test]
    fn streamed_arguments_are_passed_on_piece_by_piece() {
        let mut a = Assembler::default();
        let mut sent = String::new();
        for event in [
            call_start(0, "f"),
            call_piece(0, "{\"a\":1,"),
            call_piece(0, "\"b\":\"x\"}"),
            call_end(0, "f", json!({"a": 1, "b": "x"})),
        ] {
            if let Some(d) = a.delta(event) {
                let d = serde_json::to_value(d).unwrap();
                if let Some(args) = d["tool_calls"][0]["function"]["arguments"].as_str() {
                    sent.push_str(args);
                }
            }
        }
        assert_eq!(sent, r#"{"a":1,"b":"x"}"#);
        let m = serde_json::to_value(a.message()).unwrap();
        assert_eq!(m["tool_calls"][0]["function"]["arguments"], sent);
        assert_eq!(m["content"], Value::Null);
        let id = m["tool_calls"][0]["id"].as_str().unwrap();
        assert_eq!(id.len(), 9);
        assert!(id.chars().all(|c| c.is_ascii_alphanumeric()));
    }

    #[test]
    fn calls_are_numbered_as_sent_and_invalid_ones_become_text() {
        let mut a = Assembler::default();
        a.delta(StreamEvent::Content("Checking. ".into()));
        a.delta(StreamEvent::InvalidToolCall(InvalidToolCall {
            id: None,
            name: None,
            raw_arguments: Some("{oops".into()),
            error: "not JSON".into(),
        }));
        let d = serde_json::to_value(a.delta(call_start(1, "g")).unwrap()).unwrap();
        assert_eq!(d["tool_calls"][0]["index"], 0);
        a.delta(call_piece(1, "{}"));
        a.delta(call_end(1, "f", json!({})));
        let m = serde_json::to_value(a.message()).unwrap();
        assert_eq!(m["content"], "Checking. {oops");
        assert_eq!(m["tool_calls"][0]["function"]["name"], "g");
        assert_eq!(m["tool_calls"][0]["function"]["arguments"], "{}");
    }
}
