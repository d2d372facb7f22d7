//! Choosing the parser from the model's chat template: each family's
//! template writes its own call markers, so their presence in the template
//! source names the format. Checked from the most to the least specific
//! marker (Qwen3-Coder templates also contain `<tool_call>`).

use super::family::Rule;
use super::registry::FAMILIES;
use super::{Format, ParseError, ReasoningStart};

/// Templates of formats this crate does not read, which also contain
/// markers of one it does: they name no format. Ranked among the
/// families' rules (see each family's `detect`), ten apart so a rule can
/// be put between two others.
pub(crate) const NOT_CHECKED: &[Rule] = &[
    // Formats of their own that also mention `<tool_call>`: MiniMax-M3's
    // namespaced tags and Apriel's `<tool_calls>[…]`.
    Rule {
        rank: 60,
        markers: &["]<]minimax[>["],
    },
    Rule {
        rank: 70,
        markers: &["<tool_calls>["],
    },
    // Ling-3 writes GLM's tags with its own turn markers and is not checked.
    Rule {
        rank: 120,
        markers: &["<arg_key>", "<role>ASSISTANT</role>"],
    },
];

/// The tool-call format a chat template's source implies.
pub fn detect_format(template_source: &str) -> Result<Format, ParseError> {
    let rules = FAMILIES
        .iter()
        .flat_map(|f| f.detect.iter().map(|r| (r, Some(f.format))))
        .chain(NOT_CHECKED.iter().map(|r| (r, None)));
    rules
        .filter(|(r, _)| r.markers.iter().all(|m| template_source.contains(m)))
        .min_by_key(|(r, _)| r.rank)
        .and_then(|(_, f)| f)
        .ok_or(ParseError::Undetected)
}

#[cfg(feature = "local")]
impl crate::model::Model {
    /// The tool-call format the model's chat template implies (its
    /// `tool_use` template where it has several), if it names one.
    pub fn tool_format(&self) -> Option<Format> {
        let source = self.templates()?.select(None, true).ok()?;
        detect_format(source).ok()
    }
}

/// Where output starts, from the prompt that precedes it: inside a
/// reasoning block when the prompt ends by opening one.
pub fn detect_reasoning_start(prompt: &str) -> ReasoningStart {
    let p = prompt.trim_end();
    if FAMILIES
        .iter()
        .filter_map(|f| f.think)
        .any(|t| p.ends_with(t.open))
    {
        ReasoningStart::Open
    } else {
        ReasoningStart::Closed
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn detects_from_markers() {
        assert_eq!(detect_format("{{ '<tool_call>' }}"), Ok(Format::Hermes));
        assert_eq!(
            detect_format("<tool_call>\n<function=x>"),
            Ok(Format::Qwen3Xml)
        );
        assert_eq!(detect_format("plain"), Err(ParseError::Undetected));
        assert_eq!(
            detect_reasoning_start("<|im_start|>assistant\n<think>\n"),
            ReasoningStart::Open
        );
    }
}
