//! InternLM 2: `<|action_start|><|plugin|>{"name", "parameters"}<|action_end|>`.

use super::family::{grammar_fn, Family, Rule};
use super::jsonblock::{Block, End, Spec};
use super::stream::Machine;
use super::think::THINK;
use super::Format;

const ACTION: &str = "<|action_start|>";
// The grammar writes the two tokens apart; the parser reads them together.
#[cfg(feature = "local")]
const PLUGIN: &str = "<|plugin|>";
const ACTION_END: &str = "<|action_end|>";

pub(crate) fn machine() -> Box<dyn Machine> {
    Block::boxed(Spec::new(
        &["<|action_start|><|plugin|>"],
        End::Marker(ACTION_END),
    ))
}

/// InternLM 2.
pub(crate) const INTERNLM2: Family = Family::new(Format::Internlm2, "internlm2", |_| machine())
    .detect(&[Rule::at(290, &[ACTION])])
    .think(THINK)
    .grammar(grammar_fn!(grammar::syntax));

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
