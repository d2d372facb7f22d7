//! Examples as token ids with a loss mask: what training consumes.

use super::{render, CorpusError, Example};
use crate::models::template::ChatTemplate;
use crate::models::train::bpe::{BpeError, Tokenizer};
use std::ops::Range;

/// One example as the model reads it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Encoded {
    /// The token ids of the rendered example.
    pub ids: Vec<u32>,
    /// For each token, whether it is assistant output (the loss is taken on
    /// these only).
    pub mask: Vec<bool>,
}

impl Encoded {
    /// How many tokens are trained on.
    pub fn trained_tokens(&self) -> usize {
        self.mask.iter().filter(|&&m| m).count()
    }
}

/// Renders `example` with `template` and tokenises it; a token is masked in
/// when its bytes lie inside a generation span.
pub fn encode(
    tokenizer: &Tokenizer,
    template: &ChatTemplate,
    example: &Example,
) -> Result<Encoded, CorpusError> {
    let (text, spans) = render(template, example)?;
    encode_text(tokenizer, &text, &spans)
}

/// Tokenises `text`; tokens whose bytes lie inside one of `spans` are
/// masked in. A token that straddles a span's edge is an error: the mask
/// would be ambiguous (the bundled tokenizer never does this on the corpus:
/// spans start after a newline and end with `<|im_end|>`).
pub fn encode_text(
    tokenizer: &Tokenizer,
    text: &str,
    spans: &[Range<usize>],
) -> Result<Encoded, CorpusError> {
    let encoding = tokenizer
        .encode(text, false)
        .map_err(|e| CorpusError::Tokenizer(BpeError::Tokenizers(e.to_string())))?;
    let mut mask = Vec::with_capacity(encoding.len());
    for &(start, end) in encoding.get_offsets() {
        let inside = spans.iter().any(|s| s.start <= start && end <= s.end);
        let overlaps = spans.iter().any(|s| start < s.end && s.start < end);
        if overlaps && !inside {
            return Err(CorpusError::TokenAcrossSpan { start, end });
        }
        mask.push(inside);
    }
    Ok(Encoded {
        ids: encoding.get_ids().to_vec(),
        mask,
    })
}
