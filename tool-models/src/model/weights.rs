//! Safetensors weights: one `model.safetensors`, or shards listed by
//! `model.safetensors.index.json`, read into tensors on the CPU (f32, or f16
//! and bf16 as stored).

use super::error::candle_message;
use super::files::ModelFiles;
use super::json::read_json_object;
use super::ModelError;
use candle_core::{DType, Device, Tensor};
use serde_json::Value;
use std::collections::{BTreeMap, HashMap};
use std::path::PathBuf;

pub(crate) const SINGLE_FILE: &str = "model.safetensors";
pub(crate) const INDEX_FILE: &str = "model.safetensors.index.json";

/// The tensors of a model, by name, and the file(s) they came from.
pub(crate) struct Weights {
    pub tensors: HashMap<String, Tensor>,
    /// `model.safetensors` or the index file: the name used in messages.
    pub path: PathBuf,
}

impl Weights {
    /// Reads the weights of a model directory.
    pub(crate) fn load(files: &ModelFiles<'_>) -> Result<Weights, ModelError> {
        if files.has(SINGLE_FILE) {
            return Ok(Weights {
                tensors: load_file(files, SINGLE_FILE)?,
                path: files.path(SINGLE_FILE),
            });
        }
        if files.has(INDEX_FILE) {
            return load_sharded(files);
        }
        Err(ModelError::MissingFile {
            path: files.path(SINGLE_FILE),
            what: format!(
                "expected the weights in {SINGLE_FILE} or shards listed by {INDEX_FILE} (pytorch_model.bin is not supported)"
            ),
        })
    }

    /// Checks that `name` exists with `shape`: candle's Llama panics on a
    /// missing or misshapen layer tensor instead of returning an error.
    pub(crate) fn require(&self, name: &str, shape: &[usize]) -> Result<(), ModelError> {
        match self.tensors.get(name) {
            None => Err(ModelError::invalid(
                &self.path,
                format!("missing tensor {name} (expected shape {shape:?})"),
            )),
            Some(t) if t.dims() != shape => Err(ModelError::inconsistent(
                &self.path,
                format!(
                    "tensor {name} has shape {:?}, but config.json implies {shape:?}",
                    t.dims()
                ),
            )),
            Some(_) => Ok(()),
        }
    }

    /// Makes `lm_head.weight` the embedding matrix (tied embeddings).
    pub(crate) fn tie_lm_head(&mut self) -> Result<(), ModelError> {
        let embed = self.tensors.get("model.embed_tokens.weight").cloned();
        match embed {
            Some(embed) => {
                self.tensors.insert("lm_head.weight".into(), embed);
                Ok(())
            }
            None => Err(ModelError::invalid(
                &self.path,
                "missing tensor model.embed_tokens.weight",
            )),
        }
    }

    /// Total number of parameters.
    pub(crate) fn parameter_count(&self, tied: bool) -> u64 {
        let total: usize = self.tensors.values().map(Tensor::elem_count).sum();
        let dup = if tied {
            self.tensors
                .get("lm_head.weight")
                .map_or(0, Tensor::elem_count)
        } else {
            0
        };
        (total - dup) as u64
    }
}

/// Reads one safetensors file, converting f64 tensors to f32. Half-precision
/// tensors stay as they are: the Llama-family decoder computes from them
/// directly, and candle's `VarBuilder` widens them for the other models.
fn load_file(files: &ModelFiles<'_>, name: &str) -> Result<HashMap<String, Tensor>, ModelError> {
    let path = &files.path(name);
    let bytes = files.bytes(name, "a safetensors file")?;
    let raw = candle_core::safetensors::load_buffer(&bytes, &Device::Cpu).map_err(|e| {
        ModelError::invalid(
            path,
            format!(
                "not a valid safetensors file ({} bytes; truncated or corrupt?): {}",
                bytes.len(),
                candle_message(&e)
            ),
        )
    })?;
    drop(bytes);
    raw.into_iter()
        .map(|(name, t)| {
            let t = match t.dtype() {
                DType::F64 => t.to_dtype(DType::F32).map_err(|e| {
                    ModelError::invalid(
                        path,
                        format!(
                            "cannot convert tensor {name} to f32: {}",
                            candle_message(&e)
                        ),
                    )
                })?,
                _ => t,
            };
            Ok((name, t))
        })
        .collect()
}

fn load_sharded(files: &ModelFiles<'_>) -> Result<Weights, ModelError> {
    let index = &files.path(INDEX_FILE);
    let json = read_json_object(files, INDEX_FILE, "the shard index")?;
    let Some(Value::Object(map)) = json.get("weight_map") else {
        return Err(ModelError::invalid(
            index,
            "expected a \"weight_map\" object mapping tensor names to shard files",
        ));
    };
    let mut shards: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for (tensor, file) in map {
        let Some(file) = file.as_str() else {
            return Err(ModelError::invalid(
                index,
                format!("expected the shard of {tensor} to be a file name, found {file}"),
            ));
        };
        if file.contains('/') || file.contains('\\') || file == ".." {
            return Err(ModelError::invalid(
                index,
                format!(
                    "shard file name {file:?} must be a plain file name in the model directory"
                ),
            ));
        }
        shards
            .entry(file.to_owned())
            .or_default()
            .push(tensor.clone());
    }
    if shards.is_empty() {
        return Err(ModelError::invalid(
            index,
            "\"weight_map\" lists no tensors",
        ));
    }
    // Every shard is checked before any is read, so a missing one fails fast.
    for file in shards.keys() {
        if !files.has(file) {
            return Err(ModelError::MissingFile {
                path: files.path(file),
                what: format!("a shard listed in {}", index.display()),
            });
        }
    }
    let mut tensors = HashMap::new();
    for (file, names) in &shards {
        let shard = files.path(file);
        let mut loaded = load_file(files, file)?;
        for name in names {
            match loaded.remove(name) {
                Some(t) => {
                    tensors.insert(name.clone(), t);
                }
                None => {
                    return Err(ModelError::inconsistent(
                        &shard,
                        format!(
                            "{} says this shard holds tensor {name}, but it does not",
                            index.display()
                        ),
                    ))
                }
            }
        }
    }
    Ok(Weights {
        tensors,
        path: index.to_owned(),
    })
}
