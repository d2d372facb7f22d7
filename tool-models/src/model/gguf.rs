//! Loading a quantized `.gguf` file: weights, tokenizer and chat template
//! all come from the one file.

use super::dense::{Dense, Storage};
use super::gguf_tokenizer::{as_u64, tokenizer_from_gguf};
use super::network::Network;
use super::{CacheType, LoadOptions, Model, ModelError, Tokenizer};
use crate::gguf::{read_file, Failure, GgufFile, GgufMetadata, GgufValue};
use crate::template::ModelTemplates;
use candle_core::quantized::gguf_file::Value;
use std::collections::HashMap;
use std::path::Path;
use std::sync::Arc;

/// Texts of tokens that end a chat turn in some model family, whatever the
/// metadata's end-of-sequence id (as llama.cpp's vocabulary loader lists
/// them).
const END_OF_TURN_MARKERS: &[&str] = &["<end_of_turn>", "<|eot_id|>", "<|im_end|>", "<|end|>"];

/// `tokenizer.ggml.token_type` of a control token.
const CONTROL_TOKEN: u64 = 3;

/// `general.architecture` values this loader runs.
pub const SUPPORTED_GGUF_ARCHITECTURES: &[&str] = &[
    "llama",
    "qwen2",
    "qwen3",
    "gemma3",
    "smollm3",
    "granite",
    "phi3",
    "lfm2",
    "granitehybrid",
];

pub(crate) fn load_gguf(path: &Path, options: &LoadOptions) -> Result<Model, ModelError> {
    let GgufFile { metadata, tensors } = read_file(path).map_err(|failure| match failure {
        Failure::Io(e) => ModelError::io(path, e),
        Failure::Invalid(reason) => {
            ModelError::invalid(path, format!("not a valid GGUF file: {reason}"))
        }
    })?;
    // From the metadata already read, not the file again.
    let found = ModelTemplates::from_gguf_metadata(&metadata, path);
    let meta = &candle_metadata(metadata);
    let arch = match meta.get("general.architecture") {
        Some(Value::String(s)) => s.clone(),
        _ => {
            return Err(ModelError::invalid(
                path,
                "missing metadata general.architecture (a string such as \"llama\")",
            ))
        }
    };
    if !SUPPORTED_GGUF_ARCHITECTURES.contains(&arch.as_str()) {
        return Err(ModelError::UnsupportedArchitecture {
            path: path.to_owned(),
            found: arch,
            supported: SUPPORTED_GGUF_ARCHITECTURES.to_vec(),
        });
    }
    let declared_context = meta
        .get(&format!("{arch}.context_length"))
        .and_then(as_u64)
        .ok_or_else(|| {
            ModelError::invalid(path, format!("missing metadata {arch}.context_length"))
        })? as usize;
    let Some(embedding) = tensors.get("token_embd.weight") else {
        return Err(ModelError::invalid(
            path,
            "missing tensor token_embd.weight",
        ));
    };
    let vocab_size = embedding.dims.first().copied().unwrap_or(0);
    let parameter_count = tensors
        .values()
        .map(|t| t.dims.iter().product::<usize>() as u64)
        .sum();

    let tokenizer = Tokenizer::new(tokenizer_from_gguf(meta, path)?);
    if tokenizer.vocab_size() > vocab_size {
        return Err(ModelError::inconsistent(
            path,
            format!(
                "the tokenizer has {} tokens but token_embd.weight has only {vocab_size} rows",
                tokenizer.vocab_size()
            ),
        ));
    }
    let id = |key: &str| meta.get(key).and_then(as_u64).map(|id| id as u32);
    let mut eos_ids: Vec<u32> = Vec::new();
    for key in ["tokenizer.ggml.eos_token_id", "tokenizer.ggml.eot_token_id"] {
        if let Some(eos) = id(key) {
            if !eos_ids.contains(&eos) {
                eos_ids.push(eos);
            }
        }
    }
    if eos_ids.is_empty() {
        return Err(ModelError::invalid(
            path,
            "missing metadata tokenizer.ggml.eos_token_id: generation could never stop",
        ));
    }
    // A chat turn may end with a marker the metadata does not name
    // (Gemma's `<end_of_turn>`): as llama.cpp does, a control token of that
    // text ends generation too.
    let token_types = match meta.get("tokenizer.ggml.token_type") {
        Some(Value::Array(types)) => types.as_slice(),
        _ => &[],
    };
    for marker in END_OF_TURN_MARKERS {
        let control = |id: u32| {
            token_types
                .get(id as usize)
                .and_then(as_u64)
                .is_some_and(|t| t == CONTROL_TOKEN)
        };
        if let Some(id) = tokenizer.token_to_id(marker).filter(|&id| control(id)) {
            if !eos_ids.contains(&id) {
                eos_ids.push(id);
            }
        }
    }
    if let Some(&bad) = eos_ids.iter().find(|&&e| e as usize >= vocab_size) {
        return Err(ModelError::inconsistent(
            path,
            format!("end-of-sequence token id {bad} is outside the vocabulary of {vocab_size}"),
        ));
    }
    let bos_id = id("tokenizer.ggml.bos_token_id");
    // Whether plain text starts with BOS: the file's flag, else llama.cpp's
    // default for the tokenizer's kind (SentencePiece yes, byte-level BPE no).
    let add_bos = match meta.get("tokenizer.ggml.add_bos_token") {
        Some(Value::Bool(b)) => *b,
        Some(other) => {
            return Err(ModelError::invalid(
                path,
                format!(
                "expected metadata tokenizer.ggml.add_bos_token to be a boolean, found {other:?}"
            ),
            ))
        }
        None => matches!(meta.get("tokenizer.ggml.model"), Some(Value::String(m)) if m == "llama"),
    };
    if add_bos && bos_id.is_none() {
        return Err(ModelError::invalid(
            path,
            "metadata tokenizer.ggml.add_bos_token asks for a BOS token, but tokenizer.ggml.bos_token_id is missing",
        ));
    }
    let tokenizer = tokenizer.with_plain_text_bos(bos_id.filter(|_| add_bos));
    let templates = super::found_templates(found, path)?;

    // Every architecture a GGUF file may name runs on the decoder; a file
    // it cannot run is refused there, naming the key or tensor.
    let model = Dense::from_gguf(
        &tensors,
        meta,
        path,
        &arch,
        declared_context,
        vocab_size,
        Storage::new(parameter_count, options.dequantize),
    )?
    .ok_or_else(|| ModelError::UnsupportedArchitecture {
        path: path.to_owned(),
        found: arch.clone(),
        supported: SUPPORTED_GGUF_ARCHITECTURES.to_vec(),
    })?;
    let network = Network::Dense(Arc::new(model));
    let context_length = declared_context;
    Model::assemble(super::Parts {
        path: path.to_owned(),
        architecture: format!("gguf:{arch}"),
        tokenizer: Arc::new(tokenizer),
        templates,
        eos_ids,
        bos_id,
        context_length,
        vocab_size,
        parameter_count: Some(parameter_count),
        network,
        cache_type: CacheType::F32,
    })
}

/// The file's metadata as candle's values, which the tokenizer and the
/// decoder's loader read: integers at their widest, floats as f64 (both
/// exact). Taken, not copied: a vocabulary is most of it.
pub(crate) fn candle_metadata(metadata: GgufMetadata) -> HashMap<String, Value> {
    fn value(v: GgufValue) -> Value {
        match v {
            GgufValue::Uint(u) => Value::U64(u),
            GgufValue::Int(i) => Value::I64(i),
            GgufValue::Float(f) => Value::F64(f),
            GgufValue::Bool(b) => Value::Bool(b),
            GgufValue::String(s) => Value::String(s),
            GgufValue::Array(items) => Value::Array(items.into_iter().map(value).collect()),
        }
    }
    metadata
        .entries
        .into_iter()
        .map(|(key, v)| (key, value(v)))
        .collect()
}
