//! xLAM: a JSON list of calls, bare (`[{…}]`), after `[TOOL_CALLS]`, inside
//! `<tool_call>…</tool_call>` or in a ```` ```json ```` fence.

use super::jsonblock::{calls, Block, End, Spec};
use super::stream::Machine;

pub(crate) fn machine() -> Box<dyn Machine> {
    Block::boxed(Spec {
        starts: &["[TOOL_CALLS]", "<tool_call>", "```json"],
        // A bare list only counts when an object opens it, so prose with
        // brackets stays content.
        brackets: &[("[", b'{')],
        end: End::Json,
        after: &["</tool_call>", "```"],
        handler: calls,
    })
}
