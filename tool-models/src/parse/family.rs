//! One descriptor per model family: everything the crate knows about a
//! format (its ids, how a chat template reveals it, its reasoning markers,
//! its stream parser and, with constrained decoding, its grammar) in one
//! value declared in the family's own file. Adding a family is that file
//! and one line of [`FAMILIES`].

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

/// Every family, in the stable order of `Format::all` and `Format::ids`.
pub(crate) const FAMILIES: &[&Family] = &[
    &super::hermes::HERMES,
    &super::llama3::LLAMA3_JSON,
    &super::mistral::MISTRAL,
    &super::pythonic::PYTHONIC,
    &super::cohere::COHERE,
    &super::phi4_mini::PHI4_MINI,
    &super::granite::GRANITE,
    &super::granite::GRANITE_20B_FC,
    &super::internlm2::INTERNLM2,
    &super::xlam::XLAM,
    &super::qwen3_xml::QWEN3_XML,
    &super::deepseek::DEEPSEEK_V3,
    &super::deepseek::DEEPSEEK_V31,
    &super::kimi::KIMI_K2,
    &super::functiongemma::FUNCTION_GEMMA,
    &super::harmony::HARMONY,
    &super::minimax::MINIMAX_M2,
    &super::nemotron::NEMOTRON_V2,
    &super::functionary::FUNCTIONARY_V31,
    &super::functionary::FUNCTIONARY_V32,
    &super::glm::GLM45,
    &super::qwen3_xml::SEED_OSS,
    &super::apertus::APERTUS,
    &super::pythonic::LFM2,
];

impl Format {
    /// This format's descriptor.
    pub(crate) fn family(self) -> &'static Family {
        FAMILIES
            .iter()
            .find(|f| f.format == self)
            .expect("every format has a family in FAMILIES")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_format_has_one_family_and_ranks_are_unique() {
        for f in FAMILIES {
            assert_eq!(
                FAMILIES.iter().filter(|g| g.format == f.format).count(),
                1,
                "{}",
                f.id
            );
        }
        let mut ranks: Vec<u16> = FAMILIES
            .iter()
            .flat_map(|f| f.detect.iter().map(|r| r.rank))
            .chain(super::super::detect::NOT_CHECKED.iter().map(|r| r.rank))
            .collect();
        let n = ranks.len();
        ranks.sort_unstable();
        ranks.dedup();
        assert_eq!(ranks.len(), n, "two detection rules share a rank");
    }
}
