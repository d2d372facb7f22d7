//! InternLM 2: `<|action_start|><|plugin|>{"name", "parameters"}<|action_end|>`.

use super::family::{Family, Rule};
use super::jsonblock::{calls, Block, End, Spec};
use super::stream::Machine;
use super::think::THINK;
use super::Format;

const ACTION: &str = "<|action_start|>";
// The grammar writes the two tokens apart; the parser reads them together.
#[cfg(feature = "local")]
const PLUGIN: &str = "<|plugin|>";
const ACTION_END: &str = "<|action_end|>";

pub(crate) fn machine() -> Box<dyn Machine> {
    Block::boxed(Spec {
        starts: &["<|action_start|><|plugin|>"],
        brackets: &[],
        end: End::Marker(ACTION_END),
        after: &[],
        handler: calls,
    })
}

/// InternLM 2.
pub(crate) const INTERNLM2: Family = Family {
    format: Format::Internlm2,
    id: "internlm2",
    aliases: &[],
    detect: &[Rule {
        rank: 290,
        markers: &[ACTION],
    }],
    think: Some(THINK),
    citations: false,
    machine: |_| machine(),
    #[cfg(feature = "local")]
    syntax: grammar::syntax,
};

/// One `{"name", "parameters"}` object per block.
#[cfg(feature = "local")]
mod grammar {
    use super::{ACTION, ACTION_END, PLUGIN};
    use crate::constrain::syntax::{named, Calls, Lark, Syntax};

    pub(super) fn syntax(_: &Lark) -> Option<Syntax> {
        let mut s = Syntax::json(&[ACTION, PLUGIN], Some(ACTION_END), false);
        s.calls = Calls::Json {
            keys: named("name", "parameters"),
            list: false,
            fence: false,
            separator: None,
        };
        Some(s)
    }
}
