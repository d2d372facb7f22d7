//! Phi-4-mini and FireFunction v2: `functools[{"name", "arguments"}, …]`.

use super::family::{Family, Rule};
use super::jsonblock::{Block, End, Spec};
use super::stream::Machine;
use super::think::THINK;
use super::Format;

const FUNCTOOLS: &str = "functools";

pub(crate) fn machine() -> Box<dyn Machine> {
    // A bare word: it only opens a block when a JSON list follows.
    Block::boxed(Spec::new(&[FUNCTOOLS], End::Json))
}

/// Phi-4-mini and FireFunction v2.
pub(crate) const PHI4_MINI: Family = Family::new(Format::Phi4Mini, "phi4_mini", |_| machine())
    .aliases(&["firefunction_v2"])
    .detect(&[Rule::at(270, &["functools["])])
    .think(THINK)
    .json_grammar(&[FUNCTOOLS], None, true);
