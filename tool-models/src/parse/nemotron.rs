//! Nemotron Nano v2: `<TOOLCALL>[{"name", "arguments"}, …]</TOOLCALL>`, after
//! reasoning the prompt opens. (Nemotron 3 writes Qwen3-Coder XML instead.)

use super::family::{Family, Rule};
use super::jsonblock::{Block, End, Spec};
use super::stream::Machine;
use super::think::THINK;
use super::Format;

const CALLS: &str = "<TOOLCALL>";
const CALLS_END: &str = "</TOOLCALL>";

pub(crate) fn machine() -> Box<dyn Machine> {
    Block::boxed(Spec::new(&[CALLS], End::Marker(CALLS_END)))
}

/// Nemotron Nano v2.
pub(crate) const NEMOTRON_V2: Family =
    Family::new(Format::NemotronV2, "nemotron_v2", |_| machine())
        .detect(&[Rule::at(140, &[CALLS])])
        .think(THINK)
        .json_grammar(&[CALLS], Some(CALLS_END), true);
