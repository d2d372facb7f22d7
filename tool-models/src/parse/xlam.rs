//! xLAM: a JSON list of calls, bare (`[{…}]`), after `[TOOL_CALLS]`, inside
//! `<tool_call>…</tool_call>` or in a ```` ```json ```` fence.

use super::family::{grammar_fn, Family};
use super::jsonblock::{Block, End, Spec};
use super::stream::Machine;
use super::think::THINK;
use super::Format;

pub(crate) fn machine() -> Box<dyn Machine> {
    Block::boxed(
        Spec::new(&["[TOOL_CALLS]", "<tool_call>", "```json"], End::Json)
            // A bare list only counts when an object opens it, so prose with
            // brackets stays content.
            .brackets(&[("[", b'{')])
            .after(&["</tool_call>", "```"]),
    )
}

/// xLAM.
pub(crate) const XLAM: Family = Family::new(Format::Xlam, "xlam", |_| machine())
    .think(THINK)
    .grammar(grammar_fn!(grammar::syntax));

/// A bare list of call objects.
#[cfg(feature = "local")]
mod grammar {
    use crate::constrain::syntax::{lit, Lark, Syntax};

    pub(super) fn syntax(_: &Lark) -> Option<Syntax> {
        let mut s = Syntax::json(&[], None, true);
        s.bare = true;
        // The parser reads a list that an object opens, and the other
        // markers it knows.
        s.text_forbidden = vec![
            r"/\[[ \t\r\n]*\{/".to_owned(),
            lit("[TOOL_CALLS]"),
            lit("<tool_call>"),
            lit("```json"),
        ];
        Some(s)
    }
}
