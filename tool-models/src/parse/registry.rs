//! The registry: every model family's descriptor (see `family.rs`), in one
//! list. Adding a family is its own file plus one line here; the list is
//! apart from the descriptor type so that the families, which use the type,
//! and the registry, which uses the families, do not import each other.

use super::family::Family;
use super::Format;

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
    &super::generic::GENERIC,
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
