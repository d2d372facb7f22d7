//! Hermes 2/3, Qwen 2.5, Granite 4: `<tool_call>{"name", "arguments"}</tool_call>`,
//! any number per message, text around them is content.

use super::family::{Family, Rule};
use super::jsonblock::{calls, Block, End, Spec};
use super::stream::Machine;
use super::think::THINK;
use super::Format;

/// Opens a call.
pub(crate) const CALL: &str = "<tool_call>";
/// Closes a call.
pub(crate) const CALL_END: &str = "</tool_call>";

pub(crate) fn machine() -> Box<dyn Machine> {
    Block::boxed(Spec {
        starts: &[CALL],
        brackets: &[],
        end: End::Marker(CALL_END),
        after: &[],
        handler: calls,
    })
}

/// Hermes 2/3, Qwen 2.5, Granite 4.
pub(crate) const HERMES: Family = Family {
    format: Format::Hermes,
    id: "hermes",
    aliases: &["granite4"],
    detect: &[Rule {
        rank: 220,
        markers: &[CALL],
    }],
    think: Some(THINK),
    citations: false,
    machine: |_| machine(),
    #[cfg(feature = "local")]
    syntax: grammar::syntax,
};

/// One call object per block.
#[cfg(feature = "local")]
mod grammar {
    use super::{CALL, CALL_END};
    use crate::constrain::syntax::{Lark, Syntax};

    pub(super) fn syntax(_: &Lark) -> Option<Syntax> {
        Some(Syntax::json(&[CALL], Some(CALL_END), false))
    }
}
