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
    // Python's json writes non-finite floats as bare `Infinity`, `-Infinity`
    // and `NaN` (transformers saves Mamba's default time-step limit so),
    // which JSON has not: read as the strings "Infinity", "-Infinity" and
    // "NaN", for the readers to accept or refuse by name.
    let parsed = serde_json::from_str(text).or_else(|e| {
        let lenient = non_finite_as_strings(text);
        if lenient == text {
            Err(e)
        } else {
            serde_json::from_str(&lenient).map_err(|_| e)
        }
    });
    match parsed {
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

/// `text` with each bare `Infinity`, `-Infinity` and `NaN` outside strings
/// quoted.
fn non_finite_as_strings(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let (mut in_string, mut escaped) = (false, false);
    let mut rest = text;
    while let Some(c) = rest.chars().next() {
        if in_string {
            in_string = escaped || c != '"';
            escaped = !escaped && c == '\\';
        } else if c == '"' {
            in_string = true;
        } else if let Some(word) = ["-Infinity", "Infinity", "NaN"]
            .into_iter()
            .find(|w| rest.starts_with(w))
        {
            out.push('"');
            out.push_str(word);
            out.push('"');
            rest = &rest[word.len()..];
            continue;
        }
        out.push(c);
        rest = &rest[c.len_utf8()..];
    }
    out
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pythons_non_finite_floats_read_as_strings_and_strings_stay_as_written() {
        let text = r#"{"time_step_limit": [0.0, Infinity], "low": -Infinity, "x": NaN, "s": "Infinity \" NaN"}"#;
        let map = parse_json_object(text, PathBuf::from("config.json")).unwrap();
        assert_eq!(map["time_step_limit"], serde_json::json!([0.0, "Infinity"]));
        assert_eq!(map["low"], "-Infinity");
        assert_eq!(map["x"], "NaN");
        assert_eq!(map["s"], "Infinity \" NaN");
        let err = parse_json_object("{\"a\": Infinit}", PathBuf::from("config.json")).unwrap_err();
        assert!(err.to_string().contains("config.json"), "{err}");
    }
}
