//! Granite 3 (`<|tool_call|>[…]`, also written `<tool_call>[…]`) and Granite
//! 20B function calling (`<function_call> {…}`, one marker per call).

use super::family::{Family, Rule};
use super::jsonblock::{calls, Block, End, Spec};
use super::stream::Machine;
use super::think::THINK;
use super::Format;

const TOOL_CALL: &str = "<|tool_call|>";
const FUNCTION_CALL: &str = "<function_call>";

pub(crate) fn machine() -> Box<dyn Machine> {
    Block::boxed(Spec {
        starts: &[TOOL_CALL, "<tool_call>"],
        brackets: &[],
        end: End::Json,
        // Granite 3 never closes the tag, but tolerate it.
        after: &["</tool_call>"],
        handler: calls,
    })
}

pub(crate) fn machine_20b_fc() -> Box<dyn Machine> {
    Block::boxed(Spec {
        starts: &[FUNCTION_CALL],
        brackets: &[],
        end: End::Json,
        after: &[],
        handler: calls,
    })
}

/// Granite 3.
pub(crate) const GRANITE: Family = Family {
    format: Format::Granite,
    id: "granite",
    aliases: &[],
    detect: &[Rule {
        rank: 210,
        markers: &[TOOL_CALL],
    }],
    think: Some(THINK),
    citations: false,
    machine: |_| machine(),
    #[cfg(feature = "local")]
    syntax: grammar::syntax,
};

/// Granite 20B function calling.
pub(crate) const GRANITE_20B_FC: Family = Family {
    format: Format::Granite20bFc,
    id: "granite_20b_fc",
    aliases: &[],
    detect: &[Rule {
        rank: 280,
        markers: &[FUNCTION_CALL],
    }],
    think: Some(THINK),
    citations: false,
    machine: |_| machine_20b_fc(),
    #[cfg(feature = "local")]
    syntax: grammar::syntax_20b_fc,
};

/// Granite 3 writes a list, Granite 20B one object per marker.
#[cfg(feature = "local")]
mod grammar {
    use super::{FUNCTION_CALL, TOOL_CALL};
    use crate::constrain::syntax::{Lark, Syntax};

    pub(super) fn syntax(_: &Lark) -> Option<Syntax> {
        Some(Syntax::json(&[TOOL_CALL], None, true))
    }

    pub(super) fn syntax_20b_fc(_: &Lark) -> Option<Syntax> {
        Some(Syntax::json(&[FUNCTION_CALL], None, false))
    }
}
