//! Phi-4-mini and FireFunction v2: `functools[{"name", "arguments"}, …]`.

use super::jsonblock::{calls, Block, End, Spec};
use super::stream::Machine;

pub(crate) fn machine() -> Box<dyn Machine> {
    Block::boxed(Spec {
        // A bare word: it only opens a block when a JSON list follows.
        starts: &["functools"],
        brackets: &[],
        end: End::Json,
        after: &[],
        handler: calls,
    })
}
