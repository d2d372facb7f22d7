//! Writing files so that a crash never leaves a half-written one: JSON and safetensors.

use std::collections::HashMap;
use std::io::Write;
use std::path::{Path, PathBuf};

use candle_core::{DType, Device, Tensor};
use serde_json::{Map, Value};

use super::error::{io_err, TensorContext, TrainError};

/// Writes `bytes` to `path` through a temporary sibling and a rename, so that readers see
/// either the old file or the complete new one.
pub(crate) fn write_atomic(path: &Path, bytes: &[u8]) -> Result<(), TrainError> {
    let tmp = tmp_sibling(path);
    {
        let mut file = std::fs::File::create(&tmp).map_err(io_err("create", &tmp))?;
        file.write_all(bytes).map_err(io_err("write", &tmp))?;
        file.sync_all().map_err(io_err("sync", &tmp))?;
    }
    std::fs::rename(&tmp, path).map_err(io_err("rename into place", path))
}

/// Writes pretty JSON (with a final newline) atomically.
pub(crate) fn write_json(path: &Path, value: &Value) -> Result<(), TrainError> {
    let mut text = serde_json::to_string_pretty(value).map_err(|source| TrainError::Json {
        path: path.to_path_buf(),
        source,
    })?;
    text.push('\n');
    write_atomic(path, text.as_bytes())
}

/// Reads and parses a JSON file.
pub(crate) fn read_json(path: &Path) -> Result<Value, TrainError> {
    let text = std::fs::read_to_string(path).map_err(io_err("read", path))?;
    serde_json::from_str(&text).map_err(|source| TrainError::Json {
        path: path.to_path_buf(),
        source,
    })
}

fn tmp_sibling(path: &Path) -> PathBuf {
    let mut name = path
        .file_name()
        .map(|n| n.to_os_string())
        .unwrap_or_default();
    name.push(".tmp");
    path.with_file_name(name)
}

/// How tensors are stored in a safetensors file; they are always trained and
/// computed in f32.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Precision {
    /// 4 bytes a value: exactly the trained parameters.
    #[default]
    F32,
    /// 2 bytes a value (IEEE half precision, rounded to nearest): half the
    /// size, for the shipped model; loaders widen it back to f32.
    F16,
}

impl std::str::FromStr for Precision {
    type Err = String;

    /// `f32` or `f16`.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "f32" => Ok(Precision::F32),
            "f16" => Ok(Precision::F16),
            other => Err(format!("expected f32 or f16, found {other:?}")),
        }
    }
}

/// Writes tensors as a safetensors file in `precision`, atomically, tensors in name order.
///
/// Written by hand rather than through the `safetensors` crate so that the header can carry
/// `{"format": "pt"}`, which transformers checks before loading a file.
pub(crate) fn write_safetensors(
    path: &Path,
    tensors: &[(String, Tensor)],
    precision: Precision,
) -> Result<(), TrainError> {
    let mut sorted: Vec<&(String, Tensor)> = tensors.iter().collect();
    sorted.sort_by(|a, b| a.0.cmp(&b.0));
    let mut header = Map::new();
    let mut meta = Map::new();
    meta.insert("format".into(), Value::from("pt"));
    header.insert("__metadata__".into(), Value::Object(meta));
    let mut data: Vec<u8> = Vec::new();
    for (name, tensor) in sorted {
        let values = tensor
            .to_dtype(DType::F32)
            .and_then(|t| t.flatten_all())
            .and_then(|t| t.to_vec1::<f32>())
            .ctx(&format!(
                "reading tensor {name} to save it in {}",
                path.display()
            ))?;
        let start = data.len();
        let dtype = match precision {
            Precision::F32 => {
                data.reserve(values.len() * 4);
                for v in values {
                    data.extend_from_slice(&v.to_le_bytes());
                }
                "F32"
            }
            Precision::F16 => {
                data.reserve(values.len() * 2);
                for v in values {
                    data.extend_from_slice(&half::f16::from_f32(v).to_le_bytes());
                }
                "F16"
            }
        };
        let mut entry = Map::new();
        entry.insert("dtype".into(), Value::from(dtype));
        entry.insert("shape".into(), Value::from(tensor.dims().to_vec()));
        entry.insert("data_offsets".into(), Value::from(vec![start, data.len()]));
        header.insert(name.clone(), Value::Object(entry));
    }
    let mut header = Value::Object(header).to_string().into_bytes();
    // The data section must start 8-byte aligned; the format pads the header with spaces.
    while !header.len().is_multiple_of(8) {
        header.push(b' ');
    }
    let mut bytes = Vec::with_capacity(8 + header.len() + data.len());
    bytes.extend_from_slice(&(header.len() as u64).to_le_bytes());
    bytes.extend_from_slice(&header);
    bytes.extend_from_slice(&data);
    write_atomic(path, &bytes)
}

/// Reads every tensor of a safetensors file onto the CPU.
pub(crate) fn read_safetensors(path: &Path) -> Result<HashMap<String, Tensor>, TrainError> {
    candle_core::safetensors::load(path, &Device::Cpu).map_err(|e| TrainError::Checkpoint {
        path: path.to_path_buf(),
        message: format!("expected a readable safetensors file: {e}"),
    })
}
