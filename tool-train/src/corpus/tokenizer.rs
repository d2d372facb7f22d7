//! The bundled model's tokenizer: byte-level BPE trained on the rendered
//! corpus, with the chat template's markers as single tokens.
//!
//! `models/tool-use-mini/tokenizer.json` is [`train_bundled_tokenizer`]'s
//! output, written by `cargo test --test corpus_tokenizer -- --ignored
//! write_bundled_tokenizer`; training is deterministic, so the file can be
//! made again from the code.

use super::{generate, render, CorpusError, Example, Split};
use crate::train::bpe::{train_bpe_with, BpeError, BpeOptions, SpecialToken, Tokenizer};
use serde_json::Value;
use std::collections::{BTreeSet, HashMap};
use tool_use::model::tiny::QWEN_MARKERS;
use tool_use::template::{ChatTemplate, RenderOptions};

/// The template's markers, in id order (0, 1, ...), and whether each is
/// special (dropped by `skip_special_tokens`): Qwen 2.5's, whose tool-call
/// markers are kept in decoded text so that parsers see them, then the
/// tool list's.
pub const SPECIAL_TOKENS: [(&str, bool); 9] = {
    let [a, b, c, d, e, f, g] = QWEN_MARKERS;
    [a, b, c, d, e, f, g, ("<tools>", false), ("</tools>", false)]
};

// The parts of the split patterns before and after the rule for lower-case
// words, as macros so that `concat!` can join them into constants.
macro_rules! capitals_pattern {
    () => {
        concat!(
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
        )
    };
}
macro_rules! numbers_and_punctuation_pattern {
    () => {
        concat!(
            r"-?\p{N}|",
            r" ?(?:[^\s\p{L}\p{N}-]|-(?!\p{N}))+(?: (?:[^\s\p{L}\p{N}-]|-(?!\p{N}))+)*[\r\n]*|",
            r"\s*[\r\n]+|\s+(?!\S)|\s+",
        )
    };
}

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
    capitals_pattern!(),
    r"[\p{L}_]+|",
    numbers_and_punctuation_pattern!()
);

/// [`CORPUS_SPLIT_PATTERN`] with lower-case words spelled too: a word of
/// `whole` (lower-case letters and `_`, as [`lower_case_words`] finds them)
/// stays one piece where it stands alone, and every other letter is a
/// token of its own.
///
/// Free text the model copies (a search query, an event title) is mostly
/// lower-case, and BPE cut it into pieces the assistant never writes
/// (`retro` `spective`), which it could not copy as it copies names. The
/// template's and the tools' words, and the messages' most frequent ones,
/// stay whole, so a conversation grows by about 1%.
pub fn spelling_pattern(whole: &[String]) -> String {
    let mut words: Vec<&str> = whole
        .iter()
        .map(String::as_str)
        .filter(|w| !w.is_empty() && w.chars().all(is_lower_case_word_char))
        .collect();
    // Longest first, so that the engine's first choice is also the right one.
    words.sort_by(|a, b| b.len().cmp(&a.len()).then(a.cmp(b)));
    words.dedup();
    let whole_rule = if words.is_empty() {
        String::new()
    } else {
        format!(r"(?<![\p{{L}}_])(?:{})(?![\p{{L}}_])|", words.join("|"))
    };
    format!(
        "{}{whole_rule}[\\p{{L}}_]|{}",
        capitals_pattern!(),
        numbers_and_punctuation_pattern!()
    )
}

fn is_lower_case_word_char(c: char) -> bool {
    c == '_' || c.is_lowercase()
}

/// The lower-case words of `text`: runs of letters and `_` that hold no
/// letter other than a lower-case one (`get_weather`, `km`, not `Paris`
/// or `iPhone`).
pub fn lower_case_words(text: &str) -> impl Iterator<Item = &str> {
    text.split(|c: char| !(c.is_alphabetic() || c == '_'))
        .filter(|w| !w.is_empty() && w.chars().all(is_lower_case_word_char))
}

/// How many of the messages' most frequent lower-case words the bundled
/// tokenizer keeps whole (measured on 400 conversations: spelling all but
/// the 300 most frequent adds 7% to the messages' tokens, all but 100 23%).
pub const WHOLE_MESSAGE_WORDS: usize = 300;

/// The words [`spelling_pattern`] keeps whole for a corpus: every
/// lower-case word of the template's own text and of the tools offered in
/// `examples` and in the demo toolbox (the model reads them, it does not
/// copy them), and the `top` most frequent lower-case words of the
/// messages (ties in alphabetical order), in that order.
pub fn whole_words(
    template: &ChatTemplate,
    examples: &[Example],
    top: usize,
) -> Result<Vec<String>, CorpusError> {
    let mut tools: Vec<Value> = tool_use::demo::definitions();
    for tool in examples.iter().flat_map(|e| &e.tools) {
        if !tools.contains(tool) {
            tools.push(tool.clone());
        }
    }
    let prompt = template
        .render(&RenderOptions::new(&[]).tools(&tools))?
        .text;
    let mut whole = BTreeSet::new();
    let mut words: Vec<String> = Vec::new();
    for word in lower_case_words(&prompt) {
        if whole.insert(word.to_owned()) {
            words.push(word.to_owned());
        }
    }
    let mut counts: HashMap<&str, usize> = HashMap::new();
    for message in examples.iter().flat_map(|e| &e.messages) {
        for word in lower_case_words(message.content.as_deref().unwrap_or("")) {
            *counts.entry(word).or_default() += 1;
        }
    }
    let mut frequent: Vec<(&str, usize)> = counts.into_iter().collect();
    frequent.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
    for (word, _) in frequent.into_iter().take(top) {
        if whole.insert(word.to_owned()) {
            words.push(word.to_owned());
        }
    }
    Ok(words)
}

/// The bundled tokenizer's vocabulary size: where BPE runs out of pairs
/// seen at least twice in the corpus (with lower-case words spelled, only
/// the words kept whole and punctuation are left to merge).
pub const BUNDLED_VOCAB_SIZE: usize = 1239;
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
    let whole = whole_words(&template, &examples, WHOLE_MESSAGE_WORDS)?;
    train_tokenizer_split(
        &template,
        &examples,
        BUNDLED_VOCAB_SIZE,
        &spelling_pattern(&whole),
    )
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
