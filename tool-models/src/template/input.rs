//! Turning render inputs into template variables, normalised as transformers
//! does before it calls the template.

use super::dict::PyDict;
use super::error::TemplateError;
use super::python::py_none;
use minijinja::value::ValueKind;
use minijinja::Value;
use serde_json::{Map, Value as Json};
use std::sync::{Arc, Mutex};

/// transformers appends this to the final message to find where it ends in
/// the rendered text (`continue_final_message`).
pub(crate) const CONTINUE_TAG: &str = "CONTINUE_FINAL_MESSAGE_TAG ";

/// The names a message's reasoning comes under, the standard one first;
/// transformers fills `reasoning_content` and `thinking` (gpt-oss reads it)
/// from the first that is set.
const REASONING_FIELDS: [&str; 3] = ["reasoning_content", "thinking", "reasoning"];

/// Builds the template context from a JSON object of variables.
///
/// `messages` get their reasoning under both names templates read (see
/// [`REASONING_FIELDS`]); a `null` stays `None`, as in Python; `tools` and
/// `documents` are `None` when absent, as `render_jinja_template` passes them;
/// `add_generation_prompt` defaults to false. With `continue_final`, the
/// final message's text gets [`CONTINUE_TAG`] appended; the text it had is
/// returned so the caller can cut the render there.
pub(crate) fn context(
    kwargs: &Map<String, Json>,
    continue_final: bool,
    tools_cache: &ToolsCache,
) -> Result<(Value, Option<String>), TemplateError> {
    let mut vars: Vec<(String, Value)> = Vec::with_capacity(kwargs.len() + 3);
    let mut final_text = None;
    for (key, value) in kwargs {
        let value = match key.as_str() {
            "messages" => {
                let (messages, text) = messages(value, continue_final)?;
                final_text = text;
                messages
            }
            "tools" | "documents" if value.is_null() => py_none(),
            "tools" => tools_cache.get(value),
            "documents" => {
                check_documents(value)?;
                json_to_value(value)
            }
            // An option of apply_chat_template, never a template variable.
            "continue_final_message" => continue,
            _ => json_to_value(value),
        };
        vars.push((key.clone(), value));
    }
    for (key, default) in [
        ("tools", py_none()),
        ("documents", py_none()),
        ("add_generation_prompt", Value::from(false)),
    ] {
        if !kwargs.contains_key(key) {
            vars.push((key.to_owned(), default));
        }
    }
    if continue_final && final_text.is_none() {
        return Err(TemplateError::Input(
            "continue_final_message is set but there are no messages to continue".into(),
        ));
    }
    Ok((Value::from_pairs(vars), final_text))
}

/// The last tool list a template converted. An agent renders the same tools
/// with a growing conversation turn after turn; kept, they are converted
/// once and their `tojson` text made once (input dicts remember it).
#[derive(Debug, Default)]
pub(crate) struct ToolsCache(Mutex<Option<Value>>);

impl ToolsCache {
    /// The template value of `tools`, converted or kept from last time.
    pub(crate) fn get(&self, tools: &Json) -> Value {
        let Ok(mut slot) = self.0.lock() else {
            return convert(tools, false);
        };
        if let Some(value) = &*slot {
            if converts_to(tools, value) {
                return value.clone();
            }
        }
        let value = convert(tools, true);
        *slot = Some(value.clone());
        value
    }
}

/// Whether `json` converts to `value`: the same values, numbers of the same
/// kind (`1` is not `1.0`: they print differently), keys in the same order
/// (the order is printed too). Compared without converting or cloning.
fn converts_to(json: &Json, value: &Value) -> bool {
    match json {
        Json::Null => value.is_none(),
        Json::Bool(b) => value.kind() == ValueKind::Bool && value.is_true() == *b,
        Json::Number(n) => {
            if value.kind() != ValueKind::Number {
                return false;
            }
            if let Some(i) = n.as_i64() {
                value.is_integer() && i64::try_from(value.clone()).ok() == Some(i)
            } else if let Some(u) = n.as_u64() {
                value.is_integer() && u64::try_from(value.clone()).ok() == Some(u)
            } else {
                !value.is_integer()
                    && f64::try_from(value.clone()).ok().map(f64::to_bits)
                        == n.as_f64().map(f64::to_bits)
            }
        }
        Json::String(s) => value.kind() == ValueKind::String && value.as_str() == Some(s),
        Json::Array(items) => value.downcast_object_ref::<Vec<Value>>().is_some_and(|vs| {
            vs.len() == items.len() && items.iter().zip(vs).all(|(j, v)| converts_to(j, v))
        }),
        Json::Object(map) => value.downcast_object_ref::<PyDict>().is_some_and(|d| {
            d.entries().len() == map.len()
                && map
                    .iter()
                    .zip(d.entries())
                    .all(|((jk, jv), (k, v))| jk.as_str() == &**k && converts_to(jv, v))
        }),
    }
}

fn check_documents(documents: &Json) -> Result<(), TemplateError> {
    match documents {
        Json::Array(docs) if docs.iter().all(Json::is_object) => Ok(()),
        other => Err(TemplateError::Input(format!(
            "documents must be a list of objects with 'title' and 'text' keys, found {}",
            short(other)
        ))),
    }
}

fn messages(
    messages: &Json,
    continue_final: bool,
) -> Result<(Value, Option<String>), TemplateError> {
    let Json::Array(list) = messages else {
        return Err(TemplateError::Input(format!(
            "messages must be a list of message objects, found {}",
            short(messages)
        )));
    };
    let mut out = Vec::with_capacity(list.len());
    let mut final_text = None;
    for (i, message) in list.iter().enumerate() {
        let Json::Object(fields) = message else {
            return Err(TemplateError::Input(format!(
                "message {i} must be an object with a role, found {}",
                short(message)
            )));
        };
        let is_final = continue_final && i + 1 == list.len();
        let mut pairs: Vec<(Arc<str>, Value)> = Vec::with_capacity(fields.len() + 2);
        // transformers: `{"thinking": r, **message, "reasoning_content": r}`.
        let reasoning = REASONING_FIELDS
            .iter()
            .find_map(|k| fields.get(*k).filter(|v| !v.is_null()))
            .map(json_to_value);
        if let Some(r) = &reasoning {
            pairs.push((Arc::from("thinking"), r.clone()));
        }
        for (key, value) in fields {
            if reasoning.is_some() && key == "thinking" {
                pairs[0].1 = json_to_value(value);
                continue;
            }
            if let (Some(r), "reasoning_content") = (&reasoning, key.as_str()) {
                pairs.push((shared_key(key), r.clone()));
                continue;
            }
            if is_final && key == "content" {
                let (tagged, text) = tag_final_content(value)?;
                final_text = Some(text);
                pairs.push((shared_key(key), json_to_value(&tagged)));
            } else {
                pairs.push((shared_key(key), json_to_value(value)));
            }
        }
        if let Some(r) = reasoning {
            if !fields.contains_key("reasoning_content") {
                pairs.push((Arc::from("reasoning_content"), r));
            }
        }
        if is_final && final_text.is_none() {
            return Err(TemplateError::Input(
                "continue_final_message is set but the final message has no \"content\" to continue"
                    .into(),
            ));
        }
        out.push(PyDict::from_entries(pairs, false));
    }
    Ok((Value::from(out), final_text))
}

/// Appends the tag to string content, or to the last text part of a list.
fn tag_final_content(content: &Json) -> Result<(Json, String), TemplateError> {
    match content {
        Json::String(s) => Ok((Json::String(format!("{s}{CONTINUE_TAG}")), s.clone())),
        Json::Array(parts) => {
            let mut parts = parts.clone();
            for part in parts.iter_mut().rev() {
                if let Some(Json::String(text)) = part.get_mut("text") {
                    let original = text.clone();
                    text.push_str(CONTINUE_TAG);
                    return Ok((Json::Array(parts), original));
                }
            }
            Err(TemplateError::Input(
                "continue_final_message is set but the final message has no text part to continue"
                    .into(),
            ))
        }
        other => Err(TemplateError::Input(format!(
            "continue_final_message needs the final message's content to be text, found {}",
            short(other)
        ))),
    }
}

/// Cuts a render where the final message ends, as transformers does.
pub(crate) fn cut_at_final(rendered: &str, final_text: &str) -> Result<usize, TemplateError> {
    let tag = CONTINUE_TAG.trim();
    let Some(at) = rendered
        .rfind(tag)
        .filter(|_| rendered.contains(final_text.trim()))
    else {
        return Err(TemplateError::Input(
            "continue_final_message is set but the final message does not appear in the chat \
             after applying the chat template; this can happen if the template drops the final \
             message (e.g. an assistant message at the end without add_generation_prompt)"
                .into(),
        ));
    };
    if rendered[at..].starts_with(CONTINUE_TAG) {
        Ok(at)
    } else {
        // The template trimmed trailing space off the message: trim ours too.
        Ok(rendered[..at].trim_end().len())
    }
}

/// The kind of a JSON value and a prefix of it, for error messages.
fn short(value: &Json) -> String {
    let kind = match value {
        Json::Null => "null",
        Json::Bool(_) => "a boolean",
        Json::Number(_) => "a number",
        Json::String(_) => "a string",
        Json::Array(_) => "a list",
        Json::Object(_) => "an object",
    };
    let text = value.to_string();
    let cut: String = text.chars().take(60).collect();
    let ellipsis = if cut.len() < text.len() { "…" } else { "" };
    format!("{kind} ({cut}{ellipsis})")
}

/// The keys every tool and message has, allocated once.
const COMMON_KEYS: [&str; 14] = [
    "type",
    "function",
    "name",
    "description",
    "parameters",
    "properties",
    "required",
    "items",
    "enum",
    "role",
    "content",
    "tool_calls",
    "arguments",
    "id",
];

/// A dict key: shared when it is a common one.
fn shared_key(k: &str) -> Arc<str> {
    static SHARED: std::sync::LazyLock<Vec<Arc<str>>> =
        std::sync::LazyLock::new(|| COMMON_KEYS.iter().map(|&k| Arc::from(k)).collect());
    match COMMON_KEYS.iter().position(|&c| c == k) {
        Some(i) => Arc::clone(&SHARED[i]),
        None => Arc::from(k),
    }
}

/// Converts JSON into a template value, keeping key order.
pub(crate) fn json_to_value(json: &Json) -> Value {
    convert(json, false)
}

/// [`json_to_value`], with dicts that remember their `tojson` text when
/// `kept` (they outlive the render).
fn convert(json: &Json, kept: bool) -> Value {
    match json {
        Json::Null => Value::from(()),
        Json::Bool(b) => Value::from(*b),
        Json::Number(n) => {
            if let Some(i) = n.as_i64() {
                Value::from(i)
            } else if let Some(u) = n.as_u64() {
                Value::from(u)
            } else {
                Value::from(n.as_f64().unwrap_or(f64::NAN))
            }
        }
        Json::String(s) => Value::from(s.as_str()),
        Json::Array(items) => {
            Value::from(items.iter().map(|v| convert(v, kept)).collect::<Vec<_>>())
        }
        Json::Object(map) => PyDict::from_entries(
            map.iter()
                .map(|(k, v)| (shared_key(k), convert(v, kept)))
                .collect(),
            kept,
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn json() -> impl Strategy<Value = Json> {
        let leaf = prop_oneof![
            Just(Json::Null),
            any::<bool>().prop_map(Json::from),
            any::<i64>().prop_map(Json::from),
            any::<u64>().prop_map(Json::from),
            (-1e6f64..1e6).prop_map(Json::from),
            (0i64..3).prop_map(|i| Json::from(i as f64)),
            "[a-c]{0,3}".prop_map(Json::from),
        ];
        leaf.prop_recursive(4, 32, 4, |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..4).prop_map(Json::Array),
                prop::collection::vec(("[a-c]{1,2}", inner), 0..4)
                    .prop_map(|kv| Json::Object(kv.into_iter().collect())),
            ]
        })
    }

    /// Equal, with keys in the same order and numbers of the same kind.
    fn same(a: &Json, b: &Json) -> bool {
        match (a, b) {
            (Json::Object(a), Json::Object(b)) => {
                a.len() == b.len()
                    && a.iter()
                        .zip(b)
                        .all(|((ka, va), (kb, vb))| ka == kb && same(va, vb))
            }
            (Json::Array(a), Json::Array(b)) => {
                a.len() == b.len() && a.iter().zip(b).all(|(x, y)| same(x, y))
            }
            _ => a == b,
        }
    }

    #[test]
    fn what_prints_differently_is_not_the_same_input() {
        let kept = convert(&serde_json::json!({"a": 1, "b": [1.0, null]}), true);
        assert!(converts_to(
            &serde_json::json!({"a": 1, "b": [1.0, null]}),
            &kept
        ));
        for other in [
            serde_json::json!({"a": 1.0, "b": [1.0, null]}),
            serde_json::json!({"b": [1.0, null], "a": 1}),
            serde_json::json!({"a": 1, "b": [1, null]}),
            serde_json::json!({"a": 1, "b": [1.0, false]}),
            serde_json::json!({"a": "1", "b": [1.0, null]}),
            serde_json::json!({"a": 1, "b": [1.0]}),
        ] {
            assert!(!converts_to(&other, &kept), "{other}");
        }
    }

    proptest! {
        /// The cache keeps a conversion exactly when the new input is the
        /// same as the one converted.
        #[test]
        fn kept_tools_are_reused_only_for_the_same_input(a in json(), b in json()) {
            let kept = convert(&a, true);
            prop_assert!(converts_to(&a, &kept));
            prop_assert_eq!(converts_to(&b, &kept), same(&a, &b));
        }
    }
}
