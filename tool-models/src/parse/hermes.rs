//! Hermes 2/3, Qwen 2.5, Granite 4: `<tool_call>{"name", "arguments"}</tool_call>`,
//! any number per message, text around them is content.

use super::jsonblock::{calls, Block, End, Spec};
use super::stream::Machine;

pub(crate) fn machine() -> Box<dyn Machine> {
    Block::boxed(Spec {
        starts: &["<tool_call>"],
        brackets: &[],
        end: End::Marker("</tool_call>"),
        after: &[],
        handler: calls,
    })
}
