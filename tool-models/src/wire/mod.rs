//! The HTTP APIs that carry tool calls, as typed serde values: one
//! definition of each, used in both directions, by [`server`](crate::server)
//! to read requests and write answers and by [`remote`](crate::remote) to
//! write requests and read answers.
//!
//! - [`chat`]: OpenAI Chat Completions (`POST /v1/chat/completions`).
//! - [`messages`]: Anthropic Messages (`POST /v1/messages`).
//! - [`responses`]: OpenAI Responses (`POST /v1/responses`).
//!
//! Fields a reader does not know are ignored, as the APIs themselves ignore
//! them; `null` counts as absent. [`read`] reads a body and names the field
//! at fault when it cannot (`messages[2].content[0].type` for an unknown
//! type; inside a value tagged by its `type`, the message says what was
//! wrong but the path stops at the value, because serde buffers it).

pub mod chat;

pub mod responses;

use serde::de::DeserializeOwned;
use serde::{Deserialize, Deserializer};
use tool_runtime::json_kind;

pub mod messages;

/// A request body, or one of its fields, that is not what the API takes.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct FieldError {
    /// The field at fault, as a path (`tools[0].input_schema`); empty for
    /// the body as a whole.
    pub path: String,
    /// What was expected and what was found, starting with the path.
    pub message: String,
}

impl FieldError {
    /// A problem with the field at `path`; the message is prefixed with it.
    pub fn new(path: impl Into<String>, problem: impl std::fmt::Display) -> FieldError {
        let path = path.into();
        let problem = problem.to_string();
        // Some errors name their field already (`tool_choice: unknown tool…`).
        let message = if path.is_empty() || problem.starts_with(&format!("{path}: ")) {
            problem
        } else {
            format!("{path}: {problem}")
        };
        FieldError { path, message }
    }

    /// A problem found inside the field at `path`: its own path goes after.
    pub fn within(self, path: &str) -> FieldError {
        let inner = self.message.strip_prefix(&format!("{}: ", self.path));
        let joined = match (path.is_empty(), self.path.is_empty()) {
            (true, _) => self.path.clone(),
            (false, true) => path.to_owned(),
            (false, false) if self.path.starts_with('[') => format!("{path}{}", self.path),
            (false, false) => format!("{path}.{}", self.path),
        };
        FieldError::new(joined, inner.unwrap_or(&self.message))
    }
}

/// Reads a request body as `T`.
///
/// # Errors
/// A [`FieldError`] naming the field at fault, or the body itself when it
/// is not JSON or not an object.
///
/// ```
/// use serde::Deserialize;
/// use tool_models::wire::read;
///
/// #[derive(Debug, Deserialize)]
/// struct Body { max_tokens: u32 }
///
/// let e = read::<Body>(br#"{"max_tokens": "many"}"#).unwrap_err();
/// assert_eq!(e.path, "max_tokens");
/// assert_eq!(e.message, "max_tokens: invalid type: string \"many\", expected a non-negative integer");
/// ```
pub fn read<T: DeserializeOwned>(body: &[u8]) -> Result<T, FieldError> {
    let value: serde_json::Value = serde_json::from_slice(body)
        .map_err(|e| FieldError::new("", format!("the request body is not valid JSON: {e}")))?;
    if !value.is_object() {
        return Err(FieldError::new(
            "",
            format!(
                "the request body must be a JSON object, found {}",
                json_kind(&value)
            ),
        ));
    }
    read_value(value)
}

/// Reads an already parsed JSON value as `T`, naming the field at fault.
///
/// # Errors
/// As [`read`].
pub fn read_value<T: DeserializeOwned>(value: serde_json::Value) -> Result<T, FieldError> {
    serde_path_to_error::deserialize(value).map_err(|e| {
        let path = e.path().to_string();
        // serde_path_to_error writes `.` for the root.
        let path = if path == "." { String::new() } else { path };
        let problem = in_json_terms(&e.into_inner().to_string());
        // serde reports a missing field at its parent: name the field.
        let missing = problem
            .strip_prefix("missing field `")
            .and_then(|rest| rest.strip_suffix('`'));
        match missing {
            Some(field) => {
                let path = if path.is_empty() {
                    field.to_owned()
                } else {
                    format!("{path}.{field}")
                };
                FieldError::new(path, "this field is required")
            }
            None => FieldError::new(path, problem),
        }
    })
}

/// serde's message in JSON's words: `a number`, not `f64`; `an object`,
/// not `map`.
fn in_json_terms(message: &str) -> String {
    let mut out = message.to_owned();
    for (rust, json) in [
        ("expected f64", "expected a number"),
        ("expected f32", "expected a number"),
        ("expected u64", "expected a non-negative integer"),
        ("expected usize", "expected a non-negative integer"),
        ("expected u32", "expected a non-negative integer"),
        ("expected i64", "expected an integer"),
        ("expected a sequence", "expected a list"),
        ("expected a map", "expected an object"),
        ("invalid type: map", "invalid type: object"),
        ("invalid type: sequence", "invalid type: list"),
        ("invalid type: unit value", "invalid type: null"),
    ] {
        out = out.replace(rust, json);
    }
    // `expected struct Request`: every struct is an object on the wire.
    if let Some(at) = out.find("expected struct ") {
        out.replace_range(at.., "expected an object");
    }
    out
}

/// A field the APIs take as a string or a list (content, input).
pub(crate) enum TextOrList<T> {
    Text(String),
    List(Vec<T>),
}

/// Reads a string-or-list field through a visitor rather than an untagged
/// enum, so that a bad item's error keeps its path (`input[2].call_id`)
/// instead of becoming "matched no variant".
pub(crate) fn text_or_list<'de, D, T>(
    deserializer: D,
    expecting: &'static str,
) -> Result<TextOrList<T>, D::Error>
where
    D: Deserializer<'de>,
    T: Deserialize<'de>,
{
    struct Reader<T>(&'static str, std::marker::PhantomData<T>);

    impl<'de, T: Deserialize<'de>> serde::de::Visitor<'de> for Reader<T> {
        type Value = TextOrList<T>;

        fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str(self.0)
        }

        fn visit_str<E: serde::de::Error>(self, text: &str) -> Result<Self::Value, E> {
            Ok(TextOrList::Text(text.to_owned()))
        }

        fn visit_seq<A: serde::de::SeqAccess<'de>>(
            self,
            mut seq: A,
        ) -> Result<Self::Value, A::Error> {
            let mut items = Vec::new();
            while let Some(item) = seq.next_element()? {
                items.push(item);
            }
            Ok(TextOrList::List(items))
        }
    }

    deserializer.deserialize_any(Reader(expecting, std::marker::PhantomData))
}

/// For `#[serde(deserialize_with)]`: `null` reads as the default, as the
/// APIs treat it.
pub(crate) fn null_as_default<'de, D, T>(deserializer: D) -> Result<T, D::Error>
where
    D: Deserializer<'de>,
    T: Default + Deserialize<'de>,
{
    Ok(Option::<T>::deserialize(deserializer)?.unwrap_or_default())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Deserialize;

    #[derive(Debug, Deserialize)]
    #[allow(dead_code)]
    struct Body {
        messages: Vec<Part>,
    }

    #[derive(Debug, Deserialize)]
    #[serde(tag = "type", rename_all = "snake_case")]
    #[allow(dead_code)]
    enum Part {
        Text { text: String },
    }

    #[test]
    fn names_the_field_at_fault() {
        let e = read::<Body>(
            br#"{"messages": [{"type": "text", "text": "a"}, {"type": "text", "text": 3}]}"#,
        )
        .unwrap_err();
        // Internally tagged enums buffer their content, so the path stops
        // at the tagged value; the message still says what was wrong.
        assert_eq!(e.path, "messages[1]");
        assert!(e.message.contains("expected a string"), "{}", e.message);
        let e = read::<Body>(br#"{"messages": [{"type": "image"}]}"#).unwrap_err();
        assert_eq!(e.path, "messages[0].type");
        assert!(
            e.message.contains("unknown variant `image`"),
            "{}",
            e.message
        );
        let e = read::<Body>(b"{}").unwrap_err();
        assert_eq!(e.path, "messages");
        assert_eq!(e.message, "messages: this field is required");
        assert!(read::<Body>(b"[1]")
            .unwrap_err()
            .message
            .contains("found an array"));
        assert!(read::<Body>(b"{")
            .unwrap_err()
            .message
            .contains("not valid JSON"));
    }

    #[test]
    fn nests_paths() {
        let e = FieldError::new("[0].text", "expected a string").within("messages");
        assert_eq!(e.path, "messages[0].text");
        assert_eq!(e.message, "messages[0].text: expected a string");
        let e = FieldError::new("type", "unknown").within("tools[1]");
        assert_eq!(e.message, "tools[1].type: unknown");
    }
}
