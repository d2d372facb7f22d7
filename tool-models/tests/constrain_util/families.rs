//! Every format in a vocabulary of its own, for the constraint tests and
//! the constrain bench.

use super::{tokenizer_with, Bias};
use tokenizers::Tokenizer;
use tool_models::constrain::TokenEnv;
use tool_models::parse::Format;

/// A format in a vocabulary: its markers as special tokens, or as added
/// plain-text tokens (as Qwen2.5 has `<tool_call>`), which the random
/// model favours so that calls open and values close.
pub struct Case {
    pub format: Format,
    pub specials: &'static [&'static str],
    pub texts: &'static [&'static str],
    /// End-of-sequence tokens besides `<|im_end|>`.
    pub eos: &'static [&'static str],
}

const fn case(
    format: Format,
    specials: &'static [&'static str],
    texts: &'static [&'static str],
) -> Case {
    Case {
        format,
        specials,
        texts,
        eos: &[],
    }
}

/// GLM 4.5's markers: special tokens in its own vocabulary, text in others.
const GLM_TAGS: &[&str] = &[
    "<tool_call>",
    "</tool_call>",
    "<arg_key>",
    "</arg_key>",
    "<arg_value>",
    "</arg_value>",
];

pub const CASES: &[Case] = &[
    case(Format::Hermes, &["<tool_call>", "</tool_call>"], &[]),
    case(Format::Llama3Json, &["<|python_tag|>"], &["{\""]),
    case(Format::Mistral, &["[TOOL_CALLS]"], &[]),
    // With `[ARGS]` in the vocabulary: v11's `name[ARGS]{…}`.
    case(Format::Mistral, &["[TOOL_CALLS]", "[ARGS]"], &[]),
    case(Format::Pythonic, &[], &["[", "(", ")]", "=", ", "]),
    case(
        Format::Pythonic,
        &["<|python_start|>", "<|python_end|>"],
        &["(", ")]", "="],
    ),
    case(Format::Cohere, &["<|START_ACTION|>", "<|END_ACTION|>"], &[]),
    case(Format::Cohere, &[], &["Action:", "```json\n", "\n```"]),
    case(Format::Phi4Mini, &[], &["functools"]),
    case(Format::Granite, &["<|tool_call|>"], &[]),
    case(Format::Granite20bFc, &[], &["<function_call>"]),
    case(
        Format::Internlm2,
        &["<|action_start|>", "<|plugin|>", "<|action_end|>"],
        &[],
    ),
    case(Format::Xlam, &[], &["[{\""]),
    case(
        Format::Qwen3Xml,
        &["<tool_call>", "</tool_call>"],
        &[
            "<function=",
            "</function>",
            "<parameter=",
            "\n</parameter>\n",
            ">\n",
        ],
    ),
    case(
        Format::DeepseekV3,
        &[
            "<｜tool▁calls▁begin｜>",
            "<｜tool▁calls▁end｜>",
            "<｜tool▁call▁begin｜>",
            "<｜tool▁sep｜>",
            "<｜tool▁call▁end｜>",
        ],
        &["function", "\n```json\n", "\n```"],
    ),
    case(
        Format::DeepseekV31,
        &[
            "<｜tool▁calls▁begin｜>",
            "<｜tool▁calls▁end｜>",
            "<｜tool▁call▁begin｜>",
            "<｜tool▁sep｜>",
            "<｜tool▁call▁end｜>",
        ],
        &[],
    ),
    case(
        Format::KimiK2,
        &[
            "<|tool_calls_section_begin|>",
            "<|tool_calls_section_end|>",
            "<|tool_call_begin|>",
            "<|tool_call_argument_begin|>",
            "<|tool_call_end|>",
        ],
        &["functions.", ":0"],
    ),
    case(
        Format::FunctionGemma,
        &["<start_function_call>", "<end_function_call>", "<escape>"],
        &["call:", ":"],
    ),
    // The same with textual markers: values may not spell them.
    case(
        Format::FunctionGemma,
        &[],
        &[
            "<start_function_call>",
            "<end_function_call>",
            "<escape>",
            "call:",
        ],
    ),
    Case {
        format: Format::Harmony,
        specials: &[
            "<|channel|>",
            "<|message|>",
            "<|end|>",
            "<|start|>",
            "<|call|>",
            "<|return|>",
            "<|constrain|>",
        ],
        texts: &["analysis", "final", "commentary to=functions.", "json"],
        eos: &["<|return|>", "<|call|>"],
    },
    case(
        Format::MinimaxM2,
        &["<minimax:tool_call>", "</minimax:tool_call>"],
        &[
            "<invoke name=\"",
            "</invoke>",
            "<parameter name=\"",
            "</parameter>",
        ],
    ),
    case(Format::NemotronV2, &["<TOOLCALL>", "</TOOLCALL>"], &[]),
    case(
        Format::FunctionaryV31,
        &[],
        &["<function=", "</function>", ">{\""],
    ),
    case(Format::FunctionaryV32, &[], &[">>>", "all\n"]),
    case(Format::Glm45, GLM_TAGS, &[]),
    // GLM with textual tags: values may not spell them.
    case(Format::Glm45, &[], GLM_TAGS),
    case(
        Format::SeedOss,
        &["<seed:tool_call>", "</seed:tool_call>"],
        &["<function=", "</function>", "<parameter=", "</parameter>"],
    ),
    case(
        Format::Apertus,
        &["<|tools_prefix|>", "<|tools_suffix|>"],
        &[],
    ),
    case(
        Format::Lfm2,
        &["<|tool_call_start|>", "<|tool_call_end|>"],
        &["(", ")]", "="],
    ),
    case(Format::Generic, &[], &["{\"tool_call\": ", "}"]),
];

fn is_closer(s: &str) -> bool {
    s.contains("</") || s.contains("end") || s.contains(")]") || s == "\n```" || s == "<escape>"
}

pub fn vocab(c: &Case) -> (Tokenizer, TokenEnv, Bias) {
    let mut added: Vec<(&str, bool)> = vec![("<|im_end|>", true)];
    added.extend(c.specials.iter().map(|s| (*s, true)));
    added.extend(c.texts.iter().map(|s| (*s, false)));
    let tok = tokenizer_with(3000, &added, 7);
    let id = |s: &str| tok.token_to_id(s).unwrap();
    let mut eos = vec![id("<|im_end|>")];
    eos.extend(c.eos.iter().map(|s| id(s)));
    let env = TokenEnv::new(&tok, &eos).unwrap();
    let mut tokens: Vec<(String, f32)> = c
        .specials
        .iter()
        .chain(c.texts)
        // Markers that close something more than the others, so that
        // every output ends.
        .map(|s| (s.to_string(), if is_closer(s) { 6.0 } else { 4.0 }))
        .collect();
    tokens.push(("<|im_end|>".into(), 7.0));
    let bias = Bias {
        tokens,
        ..Bias::default()
    };
    (tok, env, bias)
}
