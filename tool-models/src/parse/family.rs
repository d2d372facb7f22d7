//! One descriptor per model family: everything the crate knows about a
//! format (its ids, how a chat template reveals it, its reasoning markers,
//! its stream parser and, with constrained decoding, its grammar) in one
//! value declared in the family's own file. Adding a family is that file
//! and one line of the registry (`registry.rs`).

use super::schema::Tools;
use super::stream::Machine;
use super::think::ThinkMarkers;
use super::Format;

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
    /// How the format writes its calls for the grammar.
    #[cfg_attr(not(feature = "local"), allow(dead_code))]
    pub(crate) grammar: Grammar,
}

/// The grammar a family declares in every build: the kit's
/// [`Grammar`](crate::constrain::grammar::Grammar) where constrained
/// decoding is built, nothing otherwise.
#[cfg(feature = "local")]
pub(crate) type Grammar = crate::constrain::grammar::Grammar;
#[cfg(not(feature = "local"))]
pub(crate) type Grammar = ();

/// A family's own grammar function, or nothing where constrained decoding
/// is not built: the descriptor names its grammar the same way in every
/// build, and the path is only resolved where the function exists.
/// `grammar_fn!(f)` names a syntax function (`Grammar::Custom`),
/// `grammar_fn!(layout f)` a whole-output one (`Grammar::Layout`).
#[cfg(feature = "local")]
macro_rules! grammar_fn {
    (layout $f:expr) => {
        $crate::constrain::grammar::Grammar::Layout($f)
    };
    ($f:expr) => {
        $crate::constrain::grammar::Grammar::Custom($f)
    };
}
#[cfg(not(feature = "local"))]
macro_rules! grammar_fn {
    ($($f:tt)*) => {
        ()
    };
}
pub(crate) use grammar_fn;

/// Call objects between markers, as a grammar (nothing without
/// constrained decoding).
#[cfg(feature = "local")]
const fn json(open: &'static [&'static str], close: Option<&'static str>, list: bool) -> Grammar {
    Grammar::Json { open, close, list }
}
#[cfg(not(feature = "local"))]
const fn json(_: &'static [&'static str], _: Option<&'static str>, _: bool) -> Grammar {}

impl Family {
    /// A family with its id and parser, and nothing else yet: no aliases,
    /// no detection rule, no reasoning block, no citations, no grammar.
    pub(crate) const fn new(
        format: Format,
        id: &'static str,
        machine: fn(&Tools) -> Box<dyn Machine>,
    ) -> Family {
        Family {
            format,
            id,
            aliases: &[],
            detect: &[],
            think: None,
            citations: false,
            machine,
            #[cfg(feature = "local")]
            grammar: Grammar::None,
            #[cfg(not(feature = "local"))]
            grammar: (),
        }
    }

    /// Other ids for the same format.
    pub(crate) const fn aliases(self, aliases: &'static [&'static str]) -> Family {
        Family { aliases, ..self }
    }

    /// How a chat template names the format.
    pub(crate) const fn detect(self, detect: &'static [Rule]) -> Family {
        Family { detect, ..self }
    }

    /// The reasoning block the format writes before its answer.
    pub(crate) const fn think(self, think: ThinkMarkers) -> Family {
        Family {
            think: Some(think),
            ..self
        }
    }

    /// Command R's citation markup is dropped before parsing.
    pub(crate) const fn citations(self) -> Family {
        Family {
            citations: true,
            ..self
        }
    }

    /// The grammar for constrained decoding (a function is named with
    /// `grammar_fn!`).
    pub(crate) const fn grammar(self, grammar: Grammar) -> Family {
        Family { grammar, ..self }
    }

    /// Call objects between markers, one to a block or a list of them.
    // Without `local` a grammar is `()`.
    #[cfg_attr(not(feature = "local"), allow(clippy::unit_arg))]
    pub(crate) const fn json_grammar(
        self,
        open: &'static [&'static str],
        close: Option<&'static str>,
        list: bool,
    ) -> Family {
        self.grammar(json(open, close, list))
    }
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

impl Rule {
    /// The rule of rank `rank` that needs all of `markers`.
    pub(crate) const fn at(rank: u16, markers: &'static [&'static str]) -> Rule {
        Rule { rank, markers }
    }
}
