//! Rebuilding a `tokenizers` tokenizer from GGUF metadata, as llama.cpp and
//! transformers' GGUF loader read it.
//!
//! - `tokenizer.ggml.model = "gpt2"`: byte-level BPE from
//!   `tokenizer.ggml.tokens` and `tokenizer.ggml.merges`, with the
//!   pre-tokenizer regex that `tokenizer.ggml.pre` names.
//! - `"llama"`: SentencePiece BPE with byte fallback; the merges are derived
//!   from the vocabulary and `tokenizer.ggml.scores` (a merge's rank is the
//!   score of the token it makes), as transformers does.
//!
//! Control tokens (`token_type` 3) become special added tokens and
//! user-defined ones (4) plain added tokens, so that a rendered prompt's
//! markers encode to single tokens.

use super::ModelError;
use candle_core::quantized::gguf_file::Value;
use std::collections::HashMap;
use std::path::Path;
use tokenizers::decoders::byte_fallback::ByteFallback;
use tokenizers::decoders::fuse::Fuse;
use tokenizers::decoders::sequence::Sequence as DecoderSequence;
use tokenizers::decoders::strip::Strip;
use tokenizers::models::bpe::{Vocab, BPE};
use tokenizers::normalizers::{Prepend, Replace, Sequence as NormalizerSequence, NFC};
use tokenizers::pre_tokenizers::byte_level::ByteLevel;
use tokenizers::pre_tokenizers::digits::Digits;
use tokenizers::pre_tokenizers::sequence::Sequence as PreSequence;
use tokenizers::pre_tokenizers::split::{Split, SplitPattern};
use tokenizers::{
    AddedToken, DecoderWrapper, NormalizerWrapper, PreTokenizerWrapper, SplitDelimiterBehavior,
};

/// `tokenizer.ggml.pre` values this loader knows, and their regexes
/// (`None`: GPT-2's, built into the byte-level pre-tokenizer).
const PRE_TOKENIZERS: &[(&str, Option<&str>)] = &[
    ("default", None),
    ("gpt2", None),
    // llama.cpp's name for GPT-2's own split.
    ("gpt-2", None),
    ("smollm", None),
    (
        "llama-bpe",
        Some(
            r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+",
        ),
    ),
    (
        "llama3",
        Some(
            r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+",
        ),
    ),
    (
        "qwen2",
        Some(
            r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+",
        ),
    ),
    (
        "deepseek-r1-qwen",
        Some(
            r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+",
        ),
    ),
];

const CONTROL: i64 = 3;
const USER_DEFINED: i64 = 4;
const UNKNOWN: i64 = 2;

/// Builds the tokenizer the metadata of the GGUF file `path` describes.
pub(crate) fn tokenizer_from_gguf(
    meta: &HashMap<String, Value>,
    path: &Path,
) -> Result<tokenizers::Tokenizer, ModelError> {
    let invalid = |reason: String| ModelError::invalid(path, reason);
    let model = string(meta, "tokenizer.ggml.model", path)?;
    let tokens = strings(meta, "tokenizer.ggml.tokens", path)?;
    let types = match meta.get("tokenizer.ggml.token_type") {
        Some(v) => integers(v, "tokenizer.ggml.token_type", path)?,
        None => vec![1; tokens.len()],
    };
    if types.len() != tokens.len() {
        return Err(invalid(format!(
            "tokenizer.ggml.token_type has {} entries but tokenizer.ggml.tokens has {}",
            types.len(),
            tokens.len()
        )));
    }
    let vocab: HashMap<String, u32> = tokens
        .iter()
        .enumerate()
        .map(|(id, t)| (t.clone(), id as u32))
        .collect();
    let mut tokenizer = match model.as_str() {
        "gpt2" => byte_level_bpe(meta, vocab, path)?,
        "llama" => sentencepiece_bpe(meta, &tokens, vocab, path)?,
        other => {
            return Err(invalid(format!(
                "unsupported tokenizer.ggml.model {other:?}; supported: \"gpt2\" (byte-level BPE), \"llama\" (SentencePiece BPE)"
            )))
        }
    };
    let added: Vec<AddedToken> = tokens
        .iter()
        .zip(&types)
        .filter(|(_, &ty)| ty == CONTROL || ty == USER_DEFINED || ty == UNKNOWN)
        .map(|(t, &ty)| AddedToken::from(t.clone(), ty != USER_DEFINED).normalized(false))
        .collect();
    tokenizer
        .add_special_tokens(added)
        .map_err(|e| invalid(format!("cannot add the control tokens: {e}")))?;
    Ok(tokenizer)
}

fn byte_level_bpe(
    meta: &HashMap<String, Value>,
    vocab: HashMap<String, u32>,
    path: &Path,
) -> Result<tokenizers::Tokenizer, ModelError> {
    let invalid = |reason: String| ModelError::invalid(path, reason);
    let merges = strings(meta, "tokenizer.ggml.merges", path)?
        .into_iter()
        .map(|m| match m.split_once(' ') {
            Some((a, b)) => Ok((a.to_owned(), b.to_owned())),
            None => Err(invalid(format!(
                "expected each of tokenizer.ggml.merges to be two tokens separated by a space, found {m:?}"
            ))),
        })
        .collect::<Result<Vec<_>, _>>()?;
    let pre = match meta.get("tokenizer.ggml.pre") {
        Some(_) => string(meta, "tokenizer.ggml.pre", path)?,
        None => "default".to_owned(),
    };
    let Some(&(_, regex)) = PRE_TOKENIZERS.iter().find(|(name, _)| *name == pre) else {
        let known: Vec<&str> = PRE_TOKENIZERS.iter().map(|(n, _)| *n).collect();
        return Err(invalid(format!(
            "unsupported tokenizer.ggml.pre {pre:?}; supported: {}",
            known.join(", ")
        )));
    };
    let bpe = BPE::builder()
        .vocab_and_merges(vocab.into_iter().collect::<Vocab>(), merges)
        .ignore_merges(pre.starts_with("llama"))
        .build()
        .map_err(|e| invalid(format!("cannot build the BPE tokenizer: {e}")))?;
    let mut tokenizer = tokenizers::Tokenizer::new(bpe);
    let pre_tokenizer: PreTokenizerWrapper = match (pre.as_str(), regex) {
        ("smollm", _) => PreSequence::new(vec![
            Digits::new(true).into(),
            ByteLevel::new(false, true, true).into(),
        ])
        .into(),
        (_, None) => ByteLevel::new(false, true, true).into(),
        (_, Some(regex)) => {
            let split = Split::new(
                SplitPattern::Regex(regex.to_owned()),
                SplitDelimiterBehavior::Isolated,
                false,
            )
            .map_err(|e| invalid(format!("cannot compile the {pre} pre-tokenizer: {e}")))?;
            PreSequence::new(vec![
                split.into(),
                ByteLevel::new(false, true, false).into(),
            ])
            .into()
        }
    };
    tokenizer.with_pre_tokenizer(Some(pre_tokenizer));
    if pre.contains("qwen2") {
        tokenizer
            .with_normalizer(Some(NFC))
            .map_err(|e| invalid(format!("cannot set the normalizer: {e}")))?;
    }
    tokenizer.with_decoder(Some(ByteLevel::default()));
    Ok(tokenizer)
}

fn sentencepiece_bpe(
    meta: &HashMap<String, Value>,
    tokens: &[String],
    vocab: HashMap<String, u32>,
    path: &Path,
) -> Result<tokenizers::Tokenizer, ModelError> {
    let invalid = |reason: String| ModelError::invalid(path, reason);
    let scores =
        match meta.get("tokenizer.ggml.scores") {
            Some(Value::Array(items)) => items
                .iter()
                .map(|v| match v {
                    Value::F32(f) => Ok(*f),
                    Value::F64(f) => Ok(*f as f32),
                    other => Err(invalid(format!(
                        "expected tokenizer.ggml.scores to hold floats, found {other:?}"
                    ))),
                })
                .collect::<Result<Vec<f32>, _>>()?,
            _ => return Err(invalid(
                "missing tokenizer.ggml.scores, which a \"llama\" (SentencePiece) tokenizer needs"
                    .into(),
            )),
        };
    if scores.len() != tokens.len() {
        return Err(invalid(format!(
            "tokenizer.ggml.scores has {} entries but tokenizer.ggml.tokens has {}",
            scores.len(),
            tokens.len()
        )));
    }
    let merges = sentencepiece_merges(tokens, &scores, &vocab);
    let mut builder = BPE::builder()
        .vocab_and_merges(vocab.into_iter().collect::<Vocab>(), merges)
        .byte_fallback(true)
        .fuse_unk(true);
    if let Some(unk) = meta
        .get("tokenizer.ggml.unknown_token_id")
        .and_then(as_u64)
        .and_then(|id| tokens.get(id as usize))
    {
        builder = builder.unk_token(unk.clone());
    }
    let bpe = builder
        .build()
        .map_err(|e| invalid(format!("cannot build the SentencePiece tokenizer: {e}")))?;
    let add_space_prefix = !matches!(
        meta.get("tokenizer.ggml.add_space_prefix"),
        Some(Value::Bool(false))
    );
    let mut tokenizer = tokenizers::Tokenizer::new(bpe);
    let replace = |from: &str, to: &str| {
        Replace::new(from, to).map_err(|e| invalid(format!("cannot build a replacement: {e}")))
    };
    let mut normalizers: Vec<NormalizerWrapper> = Vec::new();
    if add_space_prefix {
        normalizers.push(Prepend::new("▁".into()).into());
    }
    normalizers.push(replace(" ", "▁")?.into());
    tokenizer
        .with_normalizer(Some(NormalizerSequence::new(normalizers)))
        .map_err(|e| invalid(format!("cannot set the normalizer: {e}")))?;
    let mut decoders: Vec<DecoderWrapper> = vec![
        replace("▁", " ")?.into(),
        ByteFallback::default().into(),
        Fuse::default().into(),
    ];
    if add_space_prefix {
        decoders.push(Strip::new(' ', 1, 0).into());
    }
    tokenizer.with_decoder(Some(DecoderSequence::new(decoders)));
    Ok(tokenizer)
}

/// Merges for a SentencePiece BPE vocabulary: every split of a token into
/// two tokens, ranked by the score of the token they make (higher first).
fn sentencepiece_merges(
    tokens: &[String],
    scores: &[f32],
    vocab: &HashMap<String, u32>,
) -> Vec<(String, String)> {
    let score = |t: &str| {
        vocab
            .get(t)
            .map_or(f32::NEG_INFINITY, |&id| scores[id as usize])
    };
    let mut merges: Vec<(f32, f32, f32, &str, &str)> = Vec::new();
    for (token, &merged) in tokens.iter().zip(scores) {
        for (at, _) in token.char_indices().skip(1) {
            let (left, right) = token.split_at(at);
            if vocab.contains_key(left) && vocab.contains_key(right) {
                merges.push((merged, score(left), score(right), left, right));
            }
        }
    }
    merges.sort_by(|a, b| {
        b.0.total_cmp(&a.0)
            .then(b.1.total_cmp(&a.1))
            .then(b.2.total_cmp(&a.2))
    });
    merges
        .into_iter()
        .map(|(_, _, _, l, r)| (l.to_owned(), r.to_owned()))
        .collect()
}

fn string(meta: &HashMap<String, Value>, key: &str, path: &Path) -> Result<String, ModelError> {
    match meta.get(key) {
        Some(Value::String(s)) => Ok(s.clone()),
        Some(other) => Err(ModelError::invalid(
            path,
            format!("expected {key} to be a string, found {other:?}"),
        )),
        None => Err(ModelError::invalid(path, format!("missing metadata {key}"))),
    }
}

fn strings(
    meta: &HashMap<String, Value>,
    key: &str,
    path: &Path,
) -> Result<Vec<String>, ModelError> {
    match meta.get(key) {
        Some(Value::Array(items)) => items
            .iter()
            .map(|v| match v {
                Value::String(s) => Ok(s.clone()),
                other => Err(ModelError::invalid(
                    path,
                    format!("expected {key} to hold strings, found {other:?}"),
                )),
            })
            .collect(),
        Some(other) => Err(ModelError::invalid(
            path,
            format!(
                "expected {key} to be an array of strings, found {:?}",
                other.value_type()
            ),
        )),
        None => Err(ModelError::invalid(path, format!("missing metadata {key}"))),
    }
}

fn integers(value: &Value, key: &str, path: &Path) -> Result<Vec<i64>, ModelError> {
    match value {
        Value::Array(items) => items
            .iter()
            .map(|v| {
                as_i64(v).ok_or_else(|| {
                    ModelError::invalid(
                        path,
                        format!("expected {key} to hold integers, found {v:?}"),
                    )
                })
            })
            .collect(),
        other => Err(ModelError::invalid(
            path,
            format!(
                "expected {key} to be an array, found {:?}",
                other.value_type()
            ),
        )),
    }
}

/// Any integer metadata value as an `i64`.
pub(crate) fn as_i64(v: &Value) -> Option<i64> {
    Some(match *v {
        Value::U8(x) => x.into(),
        Value::I8(x) => x.into(),
        Value::U16(x) => x.into(),
        Value::I16(x) => x.into(),
        Value::U32(x) => x.into(),
        Value::I32(x) => x.into(),
        Value::U64(x) => i64::try_from(x).ok()?,
        Value::I64(x) => x,
        _ => return None,
    })
}

/// Any non-negative integer metadata value as a `u64`.
pub(crate) fn as_u64(v: &Value) -> Option<u64> {
    as_i64(v).and_then(|x| u64::try_from(x).ok())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn strings(items: &[String]) -> Value {
        Value::Array(items.iter().cloned().map(Value::String).collect())
    }

    /// A SentencePiece vocabulary: control tokens, the 256 byte tokens, and
    /// pieces whose scores rank the merges that make them.
    fn spm_meta() -> HashMap<String, Value> {
        let mut tokens: Vec<String> = vec!["<unk>".into(), "<s>".into(), "</s>".into()];
        let mut types = vec![2, 3, 3];
        let mut scores = vec![0.0f32; 3];
        for b in 0..=255u8 {
            tokens.push(format!("<0x{b:02X}>"));
            types.push(6);
            scores.push(0.0);
        }
        for c in ["▁", "H", "e", "l", "o", "w", "r", "d"] {
            tokens.push(c.into());
            types.push(1);
            scores.push(-100.0);
        }
        let merged = [
            "He", "ll", "llo", "Hello", "▁Hello", "or", "ld", "▁w", "▁wor", "▁world",
        ];
        for (rank, piece) in merged.iter().enumerate() {
            tokens.push((*piece).into());
            types.push(1);
            scores.push(-(rank as f32) - 1.0);
        }
        HashMap::from([
            ("tokenizer.ggml.model".into(), Value::String("llama".into())),
            ("tokenizer.ggml.tokens".into(), strings(&tokens)),
            (
                "tokenizer.ggml.scores".into(),
                Value::Array(scores.into_iter().map(Value::F32).collect()),
            ),
            (
                "tokenizer.ggml.token_type".into(),
                Value::Array(types.into_iter().map(Value::I32).collect()),
            ),
            ("tokenizer.ggml.unknown_token_id".into(), Value::U32(0)),
        ])
    }

    fn pieces(t: &tokenizers::Tokenizer, text: &str) -> Vec<String> {
        t.encode(text, false)
            .unwrap()
            .get_ids()
            .iter()
            .map(|&id| t.id_to_token(id).unwrap())
            .collect()
    }

    #[test]
    fn sentencepiece_vocabularies_merge_by_score_and_fall_back_to_bytes() {
        let t = tokenizer_from_gguf(&spm_meta(), Path::new("spm.gguf")).unwrap();
        assert_eq!(pieces(&t, "Hello world"), ["▁Hello", "▁world"]);
        assert_eq!(pieces(&t, "Hé"), ["▁", "H", "<0xC3>", "<0xA9>"]);
        assert_eq!(pieces(&t, "<s>Hello"), ["<s>", "▁Hello"]);
        let ids = t.encode("Hello world", false).unwrap();
        assert_eq!(t.decode(ids.get_ids(), false).unwrap(), "Hello world");
        let ids = t.encode("Hé", false).unwrap();
        assert_eq!(t.decode(ids.get_ids(), false).unwrap(), "Hé");
    }

    #[test]
    fn unknown_tokenizer_models_and_pre_tokenizers_are_named() {
        let mut meta = spm_meta();
        meta.insert("tokenizer.ggml.model".into(), Value::String("bert".into()));
        let err = tokenizer_from_gguf(&meta, Path::new("x.gguf"))
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("x.gguf") && err.contains("\"bert\"") && err.contains("gpt2"),
            "{err}"
        );

        let mut meta = spm_meta();
        meta.insert("tokenizer.ggml.model".into(), Value::String("gpt2".into()));
        meta.insert("tokenizer.ggml.merges".into(), strings(&[]));
        meta.insert("tokenizer.ggml.pre".into(), Value::String("falcon".into()));
        let err = tokenizer_from_gguf(&meta, Path::new("x.gguf"))
            .unwrap_err()
            .to_string();
        assert!(err.contains("falcon") && err.contains("qwen2"), "{err}");
    }
}
