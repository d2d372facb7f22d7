//! Choosing the parser from the model's chat template: each family's
//! template writes its own call markers, so their presence in the template
//! source names the format. Checked from the most to the least specific
//! marker (Qwen3-Coder templates also contain `<tool_call>`).

use super::{Format, ParseError, ReasoningStart};

/// `(marker, format)`, all markers must appear.
const RULES: &[(&[&str], Option<Format>)] = &[
    (&["<|channel|>"], Some(Format::Harmony)),
    (&["<|tool_calls_section_begin|>"], Some(Format::KimiK2)),
    (&["tool▁calls▁begin", "```json"], Some(Format::DeepseekV3)),
    (&["tool▁calls▁begin"], Some(Format::DeepseekV31)),
    (&["<start_function_call>"], Some(Format::FunctionGemma)),
    (&["<minimax:tool_call>"], Some(Format::MinimaxM2)),
    // Formats of their own that also mention `<tool_call>`: MiniMax-M3's
    // namespaced tags and Apriel's `<tool_calls>[…]`.
    (&["]<]minimax[>["], None),
    (&["<tool_calls>["], None),
    // Both also write `<function=`.
    (&["<seed:tool_call>"], Some(Format::SeedOss)),
    (
        &["<function=", "start_tag => `<function`"],
        Some(Format::FunctionaryV31),
    ),
    (&[">>>all", ">>>${recipient}"], Some(Format::FunctionaryV32)),
    (&["<function="], Some(Format::Qwen3Xml)),
    // Ling-3 writes GLM's tags with its own turn markers and is not checked.
    (&["<arg_key>", "<role>ASSISTANT</role>"], None),
    (
        &["<tool_call>", "<arg_key>", "<arg_value>"],
        Some(Format::Glm45),
    ),
    (&["<TOOLCALL>"], Some(Format::NemotronV2)),
    (&["<|tools_prefix|>"], Some(Format::Apertus)),
    (&["<|tool_call_start|>"], Some(Format::Lfm2)),
    // LFM2.5 templates describe calls in words only.
    (&["List of tools: ["], Some(Format::Lfm2)),
    (&["<|START_ACTION|>"], Some(Format::Cohere)),
    (&["Action:", "```json"], Some(Format::Cohere)),
    (&["[TOOL_CALLS]"], Some(Format::Mistral)),
    (&["<|tool_call|>"], Some(Format::Granite)),
    (&["<tool_call>"], Some(Format::Hermes)),
    (&["<|python_start|>"], Some(Format::Pythonic)),
    (&["[func_name1("], Some(Format::Pythonic)),
    (&["<|python_tag|>"], Some(Format::Llama3Json)),
    (
        &["\"parameters\": dictionary of argument"],
        Some(Format::Llama3Json),
    ),
    (&["functools["], Some(Format::Phi4Mini)),
    (&["<function_call>"], Some(Format::Granite20bFc)),
    (&["<|action_start|>"], Some(Format::Internlm2)),
];

/// The tool-call format a chat template's source implies.
pub fn detect_format(template_source: &str) -> Result<Format, ParseError> {
    RULES
        .iter()
        .find(|(markers, _)| markers.iter().all(|m| template_source.contains(m)))
        .and_then(|&(_, f)| f)
        .ok_or(ParseError::Undetected)
}

/// Where output starts, from the prompt that precedes it: inside a
/// reasoning block when the prompt ends by opening one.
pub fn detect_reasoning_start(prompt: &str) -> ReasoningStart {
    let p = prompt.trim_end();
    if ["<think>", "<|START_THINKING|>", "[THINK]", "<seed:think>"]
        .iter()
        .any(|m| p.ends_with(m))
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
