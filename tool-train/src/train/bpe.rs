//! Training a byte-level BPE tokenizer on a corpus.
//!
//! The tokenizer is built like Qwen2's: no normaliser (every string round
//! trips), a regex split that keeps digits single and glues a leading
//! punctuation mark to the word after it (`_current`), then GPT-2's byte
//! mapping, a BPE model learnt on the corpus, and the byte-level decoder.
//! Special tokens are single added tokens with the lowest ids, in the order
//! given, never split and never learnt from.
//!
//! Training is deterministic: the same texts give the same `tokenizer.json`.
//! (The trainer counts in hash maps but breaks ties between equally frequent
//! pairs by their ids, which depend only on the alphabet and earlier merges.)

use tokenizers::models::bpe::{BpeTrainer, BPE};
use tokenizers::pre_tokenizers::byte_level::ByteLevel;
use tokenizers::pre_tokenizers::sequence::Sequence;
use tokenizers::pre_tokenizers::split::{Split, SplitPattern};
use tokenizers::{
    AddedToken, DecoderWrapper, NormalizerWrapper, PostProcessorWrapper, PreTokenizerWrapper,
    SplitDelimiterBehavior, TokenizerBuilder, TokenizerImpl,
};

/// The trained tokenizer (the `tokenizers` crate's type, re-exported).
pub use tokenizers::Tokenizer;

/// Qwen2's pre-tokenisation pattern: contractions, words with one leading
/// non-letter, single digits, punctuation runs, newlines, spaces.
pub const SPLIT_PATTERN: &str = r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+";

/// A token that is never split: a chat template's marker.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SpecialToken {
    /// Its text, e.g. `<|im_end|>`.
    pub content: String,
    /// Whether decoding with `skip_special_tokens` drops it. Tool-call
    /// markers are not special in this sense (Qwen2's choice): a parser must
    /// still see them in decoded text.
    pub special: bool,
}

impl SpecialToken {
    /// A token dropped by `skip_special_tokens` (`<|im_end|>`).
    pub fn special(content: impl Into<String>) -> SpecialToken {
        SpecialToken {
            content: content.into(),
            special: true,
        }
    }

    /// A single token kept when decoding (`<tool_call>`).
    pub fn added(content: impl Into<String>) -> SpecialToken {
        SpecialToken {
            content: content.into(),
            special: false,
        }
    }
}

/// How to train.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BpeOptions {
    /// The size of the vocabulary, special tokens and the 256 bytes included.
    pub vocab_size: usize,
    /// Tokens that get the first ids, in order.
    pub special_tokens: Vec<SpecialToken>,
    /// Pairs seen fewer times than this are not merged.
    pub min_frequency: u64,
    /// The regex that splits text into pieces before BPE (no token spans
    /// two pieces); [`SPLIT_PATTERN`] unless there is a reason.
    pub split_pattern: String,
}

impl BpeOptions {
    /// `vocab_size` tokens, these special tokens (all `special`), merges of
    /// pairs seen at least twice.
    pub fn new(vocab_size: usize, special_tokens: &[&str]) -> BpeOptions {
        BpeOptions {
            vocab_size,
            special_tokens: special_tokens
                .iter()
                .map(|t| SpecialToken::special(*t))
                .collect(),
            min_frequency: 2,
            split_pattern: SPLIT_PATTERN.to_owned(),
        }
    }
}

/// Training failed.
#[derive(Debug, thiserror::Error)]
pub enum BpeError {
    /// The vocabulary cannot hold the bytes and the special tokens.
    #[error("vocab_size {vocab_size} is too small: the 256 bytes and {specials} special tokens need at least {needed}")]
    VocabTooSmall {
        /// The size asked for.
        vocab_size: usize,
        /// How many special tokens there are.
        specials: usize,
        /// The smallest size that works.
        needed: usize,
    },
    /// A special token is empty or given twice.
    #[error("special token {0:?} is empty or given twice; expected distinct non-empty tokens")]
    BadSpecialToken(String),
    /// The `tokenizers` library refused.
    #[error("the tokenizers library failed: {0}")]
    Tokenizers(String),
}

fn lib(e: impl std::fmt::Display) -> BpeError {
    BpeError::Tokenizers(e.to_string())
}

/// Trains a byte-level BPE tokenizer with `vocab_size` tokens on `texts`;
/// `special_tokens` become single tokens with the first ids (all marked
/// special; see [`train_bpe_with`] to keep some in decoded text).
pub fn train_bpe<'a>(
    texts: impl Iterator<Item = &'a str> + Send,
    vocab_size: usize,
    special_tokens: &[&str],
) -> Result<Tokenizer, BpeError> {
    train_bpe_with(texts, &BpeOptions::new(vocab_size, special_tokens))
}

/// Trains a byte-level BPE tokenizer on `texts` as `options` say.
pub fn train_bpe_with<'a>(
    texts: impl Iterator<Item = &'a str> + Send,
    options: &BpeOptions,
) -> Result<Tokenizer, BpeError> {
    let specials = &options.special_tokens;
    let needed = 256 + specials.len();
    if options.vocab_size < needed {
        return Err(BpeError::VocabTooSmall {
            vocab_size: options.vocab_size,
            specials: specials.len(),
            needed,
        });
    }
    for (i, t) in specials.iter().enumerate() {
        if t.content.is_empty() || specials[..i].iter().any(|o| o.content == t.content) {
            return Err(BpeError::BadSpecialToken(t.content.clone()));
        }
    }
    let added: Vec<AddedToken> = specials
        .iter()
        .map(|t| AddedToken::from(t.content.clone(), t.special).normalized(false))
        .collect();

    let mut tokenizer: TokenizerImpl<
        BPE,
        NormalizerWrapper,
        PreTokenizerWrapper,
        PostProcessorWrapper,
        DecoderWrapper,
    > = TokenizerBuilder::new()
        .with_model(BPE::default())
        .with_normalizer(None)
        .with_pre_tokenizer(Some(pre_tokenizer(&options.split_pattern)?))
        .with_post_processor(Some(PostProcessorWrapper::ByteLevel(ByteLevel::new(
            false, false, false,
        ))))
        .with_decoder(Some(DecoderWrapper::ByteLevel(ByteLevel::default())))
        .build()
        .map_err(lib)?;
    // Added before training so that the texts are split around them and
    // their pieces are never learnt; the trainer gives them the same ids.
    tokenizer.add_tokens(added.clone()).map_err(lib)?;

    let mut trainer = BpeTrainer::builder()
        .vocab_size(options.vocab_size)
        .min_frequency(options.min_frequency)
        .show_progress(false)
        .special_tokens(added)
        .initial_alphabet(ByteLevel::alphabet().into_iter().collect())
        .build();
    tokenizer.train(&mut trainer, texts).map_err(lib)?;

    // Reload from its own JSON: the tokenizer then is exactly what a
    // `tokenizer.json` written from it loads as.
    let json = tokenizer.to_string(false).map_err(lib)?;
    json.parse::<Tokenizer>().map_err(lib)
}

fn pre_tokenizer(pattern: &str) -> Result<PreTokenizerWrapper, BpeError> {
    let split = Split::new(
        SplitPattern::Regex(pattern.to_owned()),
        SplitDelimiterBehavior::Isolated,
        false,
    )
    .map_err(lib)?;
    Ok(PreTokenizerWrapper::Sequence(Sequence::new(vec![
        PreTokenizerWrapper::Split(split),
        PreTokenizerWrapper::ByteLevel(ByteLevel::new(false, false, false)),
    ])))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn too_small_and_duplicate_specials_are_refused() {
        let err = train_bpe(["a"].into_iter(), 100, &["<s>"]).unwrap_err();
        assert_eq!(
            err.to_string(),
            "vocab_size 100 is too small: the 256 bytes and 1 special tokens need at least 257"
        );
        let err = train_bpe(["a"].into_iter(), 300, &["<s>", "<s>"]).unwrap_err();
        assert!(matches!(err, BpeError::BadSpecialToken(t) if t == "<s>"));
    }
}
