//! Hermes 2/3, Qwen 2.5, Granite 4: `<tool_call>{"name", "arguments"}</tool_call>`,
//! any number per message, text around them is content.

use super::family::{Family, Rule};
use super::jsonblock::{Block, End, Spec};
use super::stream::Machine;
use super::think::THINK;
use super::Format;

/// Opens a call.
pub(crate) const CALL: &str = "<tool_call>";
/// Closes a call.
pub(crate) const CALL_END: &str = "</tool_call>";

pub(crate) fn machine() -> Box<dyn Machine> {
    Block::boxed(Spec::new(&[CALL], End::Marker(CALL_END)))
}

/// Hermes 2/3, Qwen 2.5, Granite 4.
pub(crate) const HERMES: Family = Family::new(Format::Hermes, "hermes", |_| machine())
    .aliases(&["granite4"])
    .detect(&[Rule::at(220, &[CALL])])
    .think(THINK)
    .json_grammar(&[CALL], Some(CALL_END), false);
