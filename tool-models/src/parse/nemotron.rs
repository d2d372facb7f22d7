//! Nemotron Nano v2: `<TOOLCALL>[{"name", "arguments"}, …]</TOOLCALL>`, after
//! reasoning the prompt opens. (Nemotron 3 writes Qwen3-Coder XML instead.)

use super::family::{Family, Rule};
use super::jsonblock::{calls, Block, End, Spec};
use super::stream::Machine;
use super::think::THINK;
use super::Format;

const CALLS: &str = "<TOOLCALL>";
const CALLS_END: &str = "</TOOLCALL>";

pub(crate) fn machine() -> Box<dyn Machine> {
    Block::boxed(Spec {
        starts: &[CALLS],
        brackets: &[],
        end: End::Marker(CALLS_END),
        after: &[],
        handler: calls,
    })
}

/// Nemotron Nano v2.
pub(crate) const NEMOTRON_V2: Family = Family {
    format: Format::NemotronV2,
    id: "nemotron_v2",
    aliases: &[],
    detect: &[Rule {
        rank: 140,
        markers: &[CALLS],
    }],
    think: Some(THINK),
    citations: false,
    machine: |_| machine(),
    #[cfg(feature = "local")]
    syntax: grammar::syntax,
};

/// A list of call objects per block.
#[cfg(feature = "local")]
mod grammar {
    use super::{CALLS, CALLS_END};
    use crate::constrain::syntax::{Lark, Syntax};

    pub(super) fn syntax(_: &Lark) -> Option<Syntax> {
        Some(Syntax::json(&[CALLS], Some(CALLS_END), true))
    }
}
