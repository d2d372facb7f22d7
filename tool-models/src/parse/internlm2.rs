//! InternLM 2: `<|action_start|><|plugin|>{"name", "parameters"}<|action_end|>`.

use super::jsonblock::{calls, Block, End, Spec};
use super::stream::Machine;

pub(crate) fn machine() -> Box<dyn Machine> {
    Block::boxed(Spec {
        starts: &["<|action_start|><|plugin|>"],
        brackets: &[],
        end: End::Marker("<|action_end|>"),
        after: &[],
        handler: calls,
    })
}
