//! Examples as token ids with a loss mask: what training consumes.

use super::rng::Rng;
use super::weights::{byte_weights, token_weights, LossWeights};
use super::{render, CorpusError, Example};
use crate::train::bpe::{BpeError, Tokenizer};
use std::ops::Range;
use tool_use::template::ChatTemplate;

/// One example as the model reads it.
#[derive(Clone, Debug, PartialEq)]
pub struct Encoded {
    /// The token ids of the rendered example.
    pub ids: Vec<u32>,
    /// For each token, whether the loss is taken on it: the assistant's
    /// output, plus any prompt tokens [`Encoded::train_on_prompt`] picked.
    pub mask: Vec<bool>,
    /// For each token, how much it weighs in the loss when counted
    /// ([`encode_weighted`]; all 1 otherwise).
    pub weights: Vec<f32>,
}

impl Encoded {
    /// How many tokens are trained on.
    pub fn trained_tokens(&self) -> usize {
        self.mask.iter().filter(|&&m| m).count()
    }

    /// Also trains on about `fraction` of the prompt's tokens, drawn from
    /// `seed` and the example's `index` (the same ones every time). Without
    /// it, a token the assistant never writes (a city only ever seen in a
    /// request) is never a target, and its tied embedding drifts to the one
    /// shared by all such tokens, which leaves nothing to copy.
    pub fn train_on_prompt(&mut self, fraction: f64, seed: u64, index: u64) {
        if fraction <= 0.0 {
            return;
        }
        let mut rng = Rng::for_example(seed ^ 0x7072_6f6d_7074, index);
        for trained in &mut self.mask {
            if rng.chance(fraction) {
                *trained = true;
            }
        }
    }
}

/// Renders `example` with `template` and tokenises it; a token is masked in
/// when its bytes lie inside a generation span.
pub fn encode(
    tokenizer: &Tokenizer,
    template: &ChatTemplate,
    example: &Example,
) -> Result<Encoded, CorpusError> {
    encode_weighted(tokenizer, template, example, &LossWeights::UNIFORM)
}

/// As [`encode`], with each token weighted by [`LossWeights`]: the values
/// of its calls, and the tool results its answers repeat, weigh more.
pub fn encode_weighted(
    tokenizer: &Tokenizer,
    template: &ChatTemplate,
    example: &Example,
    weights: &LossWeights,
) -> Result<Encoded, CorpusError> {
    let (text, spans) = render(template, example)?;
    let (mut encoded, offsets) = tokenize(tokenizer, &text, &spans)?;
    if !weights.is_uniform() {
        let facts: Vec<&str> = example
            .expectations
            .iter()
            .flat_map(|e| e.must_contain.iter().map(String::as_str))
            .collect();
        let bytes = byte_weights(&text, &spans, &facts, weights);
        encoded.weights = token_weights(&bytes, &offsets);
    }
    Ok(encoded)
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
    Ok(tokenize(tokenizer, text, spans)?.0)
}

/// [`encode_text`], and each token's byte range.
fn tokenize(
    tokenizer: &Tokenizer,
    text: &str,
    spans: &[Range<usize>],
) -> Result<(Encoded, Vec<(usize, usize)>), CorpusError> {
    let encoding = tokenizer
        .encode(text, false)
        .map_err(|e| CorpusError::Tokenizer(BpeError::Tokenizers(e.to_string())))?;
    let mut mask = Vec::with_capacity(encoding.len());
    let offsets = encoding.get_offsets();
    for &(start, end) in offsets {
        let inside = spans.iter().any(|s| s.start <= start && end <= s.end);
        let overlaps = spans.iter().any(|s| start < s.end && s.start < end);
        if overlaps && !inside {
            return Err(CorpusError::TokenAcrossSpan { start, end });
        }
        mask.push(inside);
    }
    let encoded = Encoded {
        ids: encoding.get_ids().to_vec(),
        weights: vec![1.0; mask.len()],
        mask,
    };
    Ok((encoded, offsets.to_vec()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn encoded() -> Encoded {
        // 1,000 prompt tokens, then 10 assistant tokens.
        let mut mask = vec![false; 1000];
        mask.extend([true; 10]);
        Encoded {
            ids: vec![5; 1010],
            weights: vec![1.0; 1010],
            mask,
        }
    }

    fn trained_on_prompt(fraction: f64, seed: u64, index: u64) -> Vec<bool> {
        let mut e = encoded();
        e.train_on_prompt(fraction, seed, index);
        assert!(
            e.mask[1000..].iter().all(|&m| m),
            "assistant tokens still count"
        );
        e.mask
    }

    #[test]
    fn prompt_tokens_are_trained_on_at_the_given_rate_the_same_way_each_time() {
        let mask = trained_on_prompt(0.1, 1, 7);
        let counted = mask[..1000].iter().filter(|&&m| m).count();
        assert!((60..=140).contains(&counted), "{counted} of 1000");
        assert_eq!(mask, trained_on_prompt(0.1, 1, 7));
        assert_ne!(
            mask,
            trained_on_prompt(0.1, 1, 8),
            "another example, other tokens"
        );
        assert_eq!(trained_on_prompt(0.0, 1, 7), encoded().mask);
        assert!(trained_on_prompt(1.0, 1, 7).iter().all(|&m| m));
    }
}
