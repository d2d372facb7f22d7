//! The parser's events for a tool call, as the API writers' tests feed
//! them: call `index` has the id `call_{index}`.

use serde_json::Value;
use tool_runtime::ToolCall;

use crate::parse::StreamEvent;

/// Call `index` of `name` begins.
pub(super) fn call_start(index: usize, name: &str) -> StreamEvent {
    StreamEvent::ToolCallStart {
        index,
        id: format!("call_{index}"),
        name: name.into(),
    }
}

/// A piece of call `index`'s arguments, as JSON text.
pub(super) fn call_piece(index: usize, delta: &str) -> StreamEvent {
    StreamEvent::ToolCallArguments {
        index,
        delta: delta.into(),
    }
}

/// Call `index` of `name`, whole.
pub(super) fn call_end(index: usize, name: &str, arguments: Value) -> StreamEvent {
    StreamEvent::ToolCallEnd {
        index,
        call: ToolCall::new(format!("call_{index}"), name, arguments),
    }
}
