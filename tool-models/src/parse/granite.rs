//! Granite 3 (`<|tool_call|>[…]`, also written `<tool_call>[…]`) and Granite
//! 20B function calling (`<function_call> {…}`, one marker per call).

use super::family::{Family, Rule};
use super::jsonblock::{Block, End, Spec};
use super::stream::Machine;
use super::think::THINK;
use super::Format;

const TOOL_CALL: &str = "<|tool_call|>";
const FUNCTION_CALL: &str = "<function_call>";

pub(crate) fn machine() -> Box<dyn Machine> {
    Block::boxed(
        Spec::new(&[TOOL_CALL, "<tool_call>"], End::Json)
            // Granite 3 never closes the tag, but tolerate it.
            .after(&["</tool_call>"]),
    )
}

pub(crate) fn machine_20b_fc() -> Box<dyn Machine> {
    Block::boxed(Spec::new(&[FUNCTION_CALL], End::Json))
}

/// Granite 3.
pub(crate) const GRANITE: Family = Family::new(Format::Granite, "granite", |_| machine())
    .detect(&[Rule::at(210, &[TOOL_CALL])])
    .think(THINK)
    .json_grammar(&[TOOL_CALL], None, true);

/// Granite 20B function calling.
pub(crate) const GRANITE_20B_FC: Family =
    Family::new(Format::Granite20bFc, "granite_20b_fc", |_| machine_20b_fc())
        .detect(&[Rule::at(280, &[FUNCTION_CALL])])
        .think(THINK)
        .json_grammar(&[FUNCTION_CALL], None, false);
