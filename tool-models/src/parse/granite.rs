//! Granite 3 (`<|tool_call|>[…]`, also written `<tool_call>[…]`) and Granite
//! 20B function calling (`<function_call> {…}`, one marker per call).

use super::jsonblock::{calls, Block, End, Spec};
use super::stream::Machine;

pub(crate) fn machine() -> Box<dyn Machine> {
    Block::boxed(Spec {
        starts: &["<|tool_call|>", "<tool_call>"],
        brackets: &[],
        end: End::Json,
        // Granite 3 never closes the tag, but tolerate it.
        after: &["</tool_call>"],
        handler: calls,
    })
}

pub(crate) fn machine_20b_fc() -> Box<dyn Machine> {
    Block::boxed(Spec {
        starts: &["<function_call>"],
        brackets: &[],
        end: End::Json,
        after: &[],
        handler: calls,
    })
}
