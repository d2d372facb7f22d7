//! Reading the JSON files of a model directory with errors that name them.

use super::files::ModelFiles;
use super::ModelError;
use serde_json::{Map, Value};
use std::path::{Path, PathBuf};

/// Reads and parses the JSON object `name`; a missing file is reported with
/// `what` it should hold.
pub(crate) fn read_json_object(
    files: &ModelFiles<'_>,
    name: &str,
    what: &str,
) -> Result<Map<String, Value>, ModelError> {
    parse_json_object(&files.text(name, what)?, files.path(name))
}

/// Parses `text`, the contents of `path`, whose top level must be an object.
pub(crate) fn parse_json_object(
    text: &str,
    path: PathBuf,
) -> Result<Map<String, Value>, ModelError> {
    match serde_json::from_str(text) {
        Ok(Value::Object(map)) => Ok(map),
        Ok(other) => Err(ModelError::invalid(
            path,
            format!(
                "expected a JSON object at the top level, found {}",
                kind(&other)
            ),
        )),
        Err(source) => Err(ModelError::Json { path, source }),
    }
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
