//! Nemotron Nano v2: `<TOOLCALL>[{"name", "arguments"}, …]</TOOLCALL>`, after
//! reasoning the prompt opens. (Nemotron 3 writes Qwen3-Coder XML instead.)

use super::jsonblock::{calls, Block, End, Spec};
use super::stream::Machine;

pub(crate) fn machine() -> Box<dyn Machine> {
    Block::boxed(Spec {
        starts: &["<TOOLCALL>"],
        brackets: &[],
        end: End::Marker("</TOOLCALL>"),
        after: &[],
        handler: calls,
    })
}
