//! Phi-4-mini and FireFunction v2: `functools[{"name", "arguments"}, …]`.

use super::family::{Family, Rule};
use super::jsonblock::{calls, Block, End, Spec};
use super::stream::Machine;
use super::think::THINK;
use super::Format;

const FUNCTOOLS: &str = "functools";

pub(crate) fn machine() -> Box<dyn Machine> {
    Block::boxed(Spec {
        // A bare word: it only opens a block when a JSON list follows.
        starts: &[FUNCTOOLS],
        brackets: &[],
        end: End::Json,
        after: &[],
        handler: calls,
    })
}

/// Phi-4-mini and FireFunction v2.
pub(crate) const PHI4_MINI: Family = Family {
    format: Format::Phi4Mini,
    id: "phi4_mini",
    aliases: &["firefunction_v2"],
    detect: &[Rule {
        rank: 270,
        markers: &["functools["],
    }],
    think: Some(THINK),
    citations: false,
    machine: |_| machine(),
    #[cfg(feature = "local")]
    syntax: grammar::syntax,
};

/// A list of call objects after the word.
#[cfg(feature = "local")]
mod grammar {
    use super::FUNCTOOLS;
    use crate::constrain::syntax::{Lark, Syntax};

    pub(super) fn syntax(_: &Lark) -> Option<Syntax> {
        Some(Syntax::json(&[FUNCTOOLS], None, true))
    }
}
