//! The record of a conversation being written, which the scenarios and the
//! made-up-tool conversations share: its messages, what each assistant
//! message is expected to do, and the ids its calls are numbered with.

use super::{Case, Example, Expectation, Scenario, Split};
use serde_json::Value;
use tool_use::{Message, ToolCall};

/// A conversation's messages so far, with an [`Expectation`] for each
/// assistant message.
pub(crate) struct Transcript {
    /// The messages, in order.
    pub(crate) messages: Vec<Message>,
    /// One entry per assistant message, in order.
    pub(crate) expectations: Vec<Expectation>,
    /// The number of the next call's id (`call_1`, `call_2`, …).
    next_id: usize,
}

impl Transcript {
    /// A conversation with no messages yet.
    pub(crate) fn new() -> Transcript {
        Transcript {
            messages: Vec::new(),
            expectations: Vec::new(),
            next_id: 1,
        }
    }

    /// The assistant calls `calls` (a tool's name and its arguments), each
    /// with the next id; the calls, for their results to follow.
    pub(crate) fn call<N: Into<String>>(
        &mut self,
        calls: impl IntoIterator<Item = (N, Value)>,
    ) -> Vec<ToolCall> {
        let calls: Vec<ToolCall> = calls
            .into_iter()
            .map(|(name, args)| {
                let id = format!("call_{}", self.next_id);
                self.next_id += 1;
                ToolCall::new(id, name, args)
            })
            .collect();
        self.expectations.push(Expectation {
            index: self.messages.len(),
            calls: calls.clone(),
            must_contain: Vec::new(),
        });
        self.messages
            .push(Message::assistant_calls(None, calls.clone()));
        calls
    }

    /// The assistant answers in words; `must_contain` are the facts it gives.
    pub(crate) fn answer(&mut self, text: String, must_contain: Vec<String>) {
        self.expectations.push(Expectation {
            index: self.messages.len(),
            calls: Vec::new(),
            must_contain,
        });
        self.messages.push(Message::assistant(text));
    }

    /// The finished conversation, offering `tools` (their definitions).
    pub(crate) fn into_example(
        self,
        tools: Vec<Value>,
        scenario: Scenario,
        split: Split,
        case: Option<Case>,
    ) -> Example {
        Example {
            messages: self.messages,
            tools,
            scenario,
            expectations: self.expectations,
            split,
            case,
        }
    }
}
