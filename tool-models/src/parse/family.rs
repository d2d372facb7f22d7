//! One descriptor per model family: everything the crate knows about a
//! format (its ids, how a chat template reveals it, its reasoning markers,
//! its stream parser and, with constrained decoding, its grammar) in one
//! value declared in the family's own file. Adding a family is that file
//! and one line of the registry (`registry.rs`).

use super::schema::Tools;
use super::stream::Machine;
use super::think::ThinkMarkers;
use super::Format;
#[cfg(feature = "local")]
use crate::constrain::syntax::{Lark, Syntax};

/// What the crate knows about one format.
pub(crate) struct Family {
    /// The public name of the format.
    pub(crate) format: Format,
    /// The id `Format::from_id` accepts and `Format::id` returns.
    pub(crate) id: &'static str,
    /// Other names `Format::from_id` accepts (models sharing the parser).
    pub(crate) aliases: &'static [&'static str],
    /// How a chat template's source names this format.
    pub(crate) detect: &'static [Rule],
    /// The reasoning block, for the families that write one.
    pub(crate) think: Option<ThinkMarkers>,
    /// Whether Command R's citation markup is dropped before parsing.
    pub(crate) citations: bool,
    /// The stream parser.
    pub(crate) machine: fn(&Tools) -> Box<dyn Machine>,
    /// How the format writes its calls for the grammar; `None` for the
    /// formats whose output is not text with blocks of calls in it.
    #[cfg(feature = "local")]
    pub(crate) syntax: fn(&Lark) -> Option<Syntax>,
}

/// A template names a format when every one of `markers` is in it. Rules
/// are tried by `rank`, lowest first, across all families: a more specific
/// marker must win over one it contains (Qwen3-Coder templates also
/// contain Hermes' `<tool_call>`).
pub(crate) struct Rule {
    /// The rule's place in the order all rules are tried in.
    pub(crate) rank: u16,
    /// The texts that must all appear.
    pub(crate) markers: &'static [&'static str],
}
