//! The bundled model's tokenizer: byte-level BPE trained on the rendered
//! corpus, with the chat template's markers as single tokens.
//!
//! `models/tool-use-mini/tokenizer.json` is [`train_bundled_tokenizer`]'s
//! output, written by `cargo test --test corpus_tokenizer -- --ignored
//! write_bundled_tokenizer`; training is deterministic, so the file can be
//! made again from the code.

use super::{generate, render, CorpusError, Example, Split};
use crate::train::bpe::{train_bpe_with, BpeError, BpeOptions, SpecialToken, Tokenizer};
use tool_use::models::template::{ChatTemplate, RenderOptions};

/// The template's markers, in id order (0, 1, ...), and whether each is
/// special (dropped by `skip_special_tokens`). Tool-call markers are kept
/// in decoded text, as in Qwen2, so that parsers see them.
pub const SPECIAL_TOKENS: [(&str, bool); 9] = [
    ("<|endoftext|>", true),
    ("<|im_start|>", true),
    ("<|im_end|>", true),
    ("<tool_call>", false),
    ("</tool_call>", false),
    ("<tool_response>", false),
    ("</tool_response>", false),
    ("<tools>", false),
    ("</tools>", false),
];

/// How the bundled tokenizer splits text before BPE: Qwen2's pattern
/// (`tool_train::train::bpe::SPLIT_PATTERN`) with four changes.
///
/// - Words take no space or punctuation before them, so a word is the same
///   tokens in a sentence (` Chennai`) and in a JSON string (`"Chennai"`).
///   With Qwen2's pattern those were `Ġ`- and `"`-prefixed pieces with
///   nothing in common, and a small model cannot learn to respell a name it
///   has not seen: it could not copy values from the request into a call,
///   nor from a result into the answer. Spaces become tokens of their own
///   (25% more tokens); `_` counts as a letter, so `from_unit` may be one.
/// - A capitalised word is spelled one letter per token (the first 16
///   lower-case letters after the capital; fixed-length look-behinds, which
///   Python's `tokenizers` reads the same way). Names are what the model
///   copies most, and a name it has never written kept a token whose
///   embedding collapsed towards every other unwritten token's (tied
///   embeddings, assistant-only loss): the model found `Paris` in the
///   request but could only write "some city". Letters, like digits, are
///   written all the time, so copying is letter by letter. It costs 20%
///   more tokens per conversation.
/// - A minus sign before a digit belongs to the number (`-14.4` alone, in
///   `": -14.4` and in ` -14.4`); numbers are otherwise single digits.
/// - A run of punctuation may contain single spaces, so that JSON's `", "`
///   and `": "` can each become one token.
pub const CORPUS_SPLIT_PATTERN: &str = concat!(
    r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|",
    r"\p{Lu}|",
    r"(?<=\p{Lu}\p{Ll}{0})\p{Ll}|(?<=\p{Lu}\p{Ll}{1})\p{Ll}|",
    r"(?<=\p{Lu}\p{Ll}{2})\p{Ll}|(?<=\p{Lu}\p{Ll}{3})\p{Ll}|",
    r"(?<=\p{Lu}\p{Ll}{4})\p{Ll}|(?<=\p{Lu}\p{Ll}{5})\p{Ll}|",
    r"(?<=\p{Lu}\p{Ll}{6})\p{Ll}|(?<=\p{Lu}\p{Ll}{7})\p{Ll}|",
    r"(?<=\p{Lu}\p{Ll}{8})\p{Ll}|(?<=\p{Lu}\p{Ll}{9})\p{Ll}|",
    r"(?<=\p{Lu}\p{Ll}{10})\p{Ll}|(?<=\p{Lu}\p{Ll}{11})\p{Ll}|",
    r"(?<=\p{Lu}\p{Ll}{12})\p{Ll}|(?<=\p{Lu}\p{Ll}{13})\p{Ll}|",
    r"(?<=\p{Lu}\p{Ll}{14})\p{Ll}|(?<=\p{Lu}\p{Ll}{15})\p{Ll}|",
    r"[\p{L}_]+|-?\p{N}|",
    r" ?(?:[^\s\p{L}\p{N}-]|-(?!\p{N}))+(?: (?:[^\s\p{L}\p{N}-]|-(?!\p{N}))+)*[\r\n]*|",
    r"\s*[\r\n]+|\s+(?!\S)|\s+",
);

/// The bundled tokenizer's vocabulary size: where BPE runs out of pairs
/// seen at least twice in the corpus.
pub const BUNDLED_VOCAB_SIZE: usize = 2261;
/// The seed of the corpus the bundled tokenizer is trained on.
pub const BUNDLED_SEED: u64 = 2026;
/// How many training examples the bundled tokenizer is trained on.
pub const BUNDLED_EXAMPLES: usize = 20_000;

/// Trains a tokenizer of `vocab_size` tokens on `examples` rendered with
/// `template`.
pub fn train_tokenizer(
    template: &ChatTemplate,
    examples: &[Example],
    vocab_size: usize,
) -> Result<Tokenizer, CorpusError> {
    train_tokenizer_split(template, examples, vocab_size, CORPUS_SPLIT_PATTERN)
}

/// [`train_tokenizer`] with another pre-tokenisation pattern (e.g. Qwen2's
/// `SPLIT_PATTERN`, for comparison).
pub fn train_tokenizer_split(
    template: &ChatTemplate,
    examples: &[Example],
    vocab_size: usize,
    split_pattern: &str,
) -> Result<Tokenizer, CorpusError> {
    let texts = examples
        .iter()
        .map(|e| render(template, e).map(|(text, _)| text))
        .collect::<Result<Vec<String>, CorpusError>>()?;
    let options = BpeOptions {
        vocab_size,
        special_tokens: SPECIAL_TOKENS
            .iter()
            .map(|&(content, special)| SpecialToken {
                content: content.to_owned(),
                special,
            })
            .collect(),
        min_frequency: 2,
        split_pattern: split_pattern.to_owned(),
    };
    Ok(train_bpe_with(texts.iter().map(String::as_str), &options)?)
}

/// The tokenizer in `models/tool-use-mini/tokenizer.json`, trained again.
pub fn train_bundled_tokenizer() -> Result<Tokenizer, CorpusError> {
    let template = super::bundled_template()?;
    let examples = generate(BUNDLED_SEED, BUNDLED_EXAMPLES, Split::Train);
    train_tokenizer(&template, &examples, BUNDLED_VOCAB_SIZE)
}

/// The system turn `tool-use chat` starts with: the demo toolbox in the
/// template, no system message of the user's.
pub fn demo_system_prompt(template: &ChatTemplate) -> Result<String, CorpusError> {
    let tools = tool_use::demo::definitions();
    Ok(template
        .render(&RenderOptions::new(&[]).tools(&tools))?
        .text)
}

/// How a tokenizer fares on a corpus.
#[derive(Clone, Debug, PartialEq)]
pub struct TokenizerStats {
    /// How many examples were measured.
    pub examples: usize,
    /// Mean tokens per rendered example.
    pub mean_tokens: f64,
    /// The longest rendered example, in tokens.
    pub max_tokens: usize,
    /// Mean tokens of assistant output (the trained-on part) per example.
    pub mean_assistant_tokens: f64,
    /// The demo toolbox's system turn, in tokens.
    pub demo_prompt_tokens: usize,
}

/// Measures `tokenizer` on `examples` rendered with `template`.
pub fn measure(
    tokenizer: &Tokenizer,
    template: &ChatTemplate,
    examples: &[Example],
) -> Result<TokenizerStats, CorpusError> {
    let count = |text: &str| -> Result<usize, CorpusError> {
        tokenizer
            .encode(text, false)
            .map(|e| e.len())
            .map_err(|e| CorpusError::Tokenizer(BpeError::Tokenizers(e.to_string())))
    };
    let mut total = 0usize;
    let mut assistant = 0usize;
    let mut max = 0usize;
    for example in examples {
        let (text, spans) = render(template, example)?;
        let n = count(&text)?;
        total += n;
        max = max.max(n);
        for span in spans {
            assistant += count(&text[span])?;
        }
    }
    let denominator = examples.len().max(1) as f64;
    Ok(TokenizerStats {
        examples: examples.len(),
        mean_tokens: total as f64 / denominator,
        max_tokens: max,
        mean_assistant_tokens: assistant as f64 / denominator,
        demo_prompt_tokens: count(&demo_system_prompt(template)?)?,
    })
}
