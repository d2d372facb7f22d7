//! Reading the JSON files of a model directory with errors that name them.

use super::ModelError;
use serde_json::{Map, Value};
use std::path::Path;

/// Reads and parses `path`; a missing file is reported with `what` it should hold.
pub(crate) fn read_json(path: &Path, what: &str) -> Result<Value, ModelError> {
    let text = read_text(path, what)?;
    serde_json::from_str(&text).map_err(|source| ModelError::Json {
        path: path.to_owned(),
        source,
    })
}

/// Like [`read_json`], but the top level must be an object.
pub(crate) fn read_json_object(path: &Path, what: &str) -> Result<Map<String, Value>, ModelError> {
    match read_json(path, what)? {
        Value::Object(map) => Ok(map),
        other => Err(ModelError::invalid(
            path,
            format!(
                "expected a JSON object at the top level, found {}",
                kind(&other)
            ),
        )),
    }
}

/// Reads `path` as text; a missing file is reported with `what` it should hold.
pub(crate) fn read_text(path: &Path, what: &str) -> Result<String, ModelError> {
    if !path.exists() {
        return Err(ModelError::MissingFile {
            path: path.to_owned(),
            what: what.to_owned(),
        });
    }
    std::fs::read_to_string(path).map_err(|e| ModelError::io(path, e))
}

/// The JSON type of `value`, for messages.
pub(crate) fn kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// Token ids given as one integer, a list of integers, or null.
pub(crate) fn token_ids(
    value: Option<&Value>,
    key: &str,
    path: &Path,
) -> Result<Vec<u32>, ModelError> {
    let one = |v: &Value| {
        v.as_u64()
            .and_then(|id| u32::try_from(id).ok())
            .ok_or_else(|| {
                ModelError::invalid(
                    path,
                    format!(
                        "expected \"{key}\" to be a token id or a list of token ids, found {v}"
                    ),
                )
            })
    };
    match value {
        None | Some(Value::Null) => Ok(Vec::new()),
        Some(Value::Array(items)) => items.iter().map(one).collect(),
        Some(v) => Ok(vec![one(v)?]),
    }
}
