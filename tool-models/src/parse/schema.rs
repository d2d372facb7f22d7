//! The offered tools as parsers need them: which names may be called, and
//! each parameter's schema, so that formats writing values as raw text
//! (the XML families) can type them.
//!
//! Typing follows what the chat templates do when they render a call (raw
//! text for strings, JSON for everything else) and what vLLM's
//! `coerce_to_schema_type` accepts back: `null` only where the schema
//! allows it, then the schema's other types in its own order, and the raw
//! text when nothing fits. A value is never turned into a type the schema
//! does not name.

use super::json::python_literal;
use super::ParseOptions;
use crate::schema_types::schema_types;
use serde_json::{Map, Value};
use std::collections::HashMap;
use std::sync::Arc;

/// The offered tools, by name. Empty when the caller gave none: then every
/// name is accepted and values stay text.
#[derive(Debug, Clone, Default)]
pub(crate) struct Tools {
    by_name: Arc<HashMap<String, Map<String, Value>>>,
}

impl Tools {
    pub(crate) fn new(options: &ParseOptions) -> Tools {
        let mut by_name = HashMap::new();
        for t in &options.tools {
            let props = t
                .parameters()
                .and_then(|p| p.get("properties"))
                .and_then(Value::as_object)
                .cloned()
                .unwrap_or_default();
            by_name.insert(t.name().to_owned(), props);
        }
        Tools {
            by_name: Arc::new(by_name),
        }
    }

    /// Whether a call to `name` is a call to an offered tool (always, when
    /// none were given).
    pub(crate) fn offers(&self, name: &str) -> bool {
        self.by_name.is_empty() || self.by_name.contains_key(name)
    }

    /// Whether no tools were given.
    pub(crate) fn is_empty(&self) -> bool {
        self.by_name.is_empty()
    }

    /// The offered names, sorted, for error messages.
    pub(crate) fn names(&self) -> Vec<&str> {
        let mut names: Vec<&str> = self.by_name.keys().map(String::as_str).collect();
        names.sort_unstable();
        names
    }

    /// The properties of `tool`'s parameters (empty when it has none or is
    /// unknown).
    pub(crate) fn properties(&self, tool: &str) -> Option<&Map<String, Value>> {
        self.by_name.get(tool)
    }

    /// The schema of `tool`'s parameter `key`, when known.
    pub(crate) fn property(&self, tool: &str, key: &str) -> Option<&Value> {
        self.by_name.get(tool).and_then(|p| p.get(key))
    }

    /// A raw text value of `tool`'s parameter `key`, typed by its schema.
    pub(crate) fn typed(&self, tool: &str, key: &str, raw: &str) -> Value {
        typed_value(raw, self.property(tool, key))
    }
}

/// Types `raw` by a parameter's schema; without a schema, or where no
/// type the schema names fits, the text stays a string.
pub(crate) fn typed_value(raw: &str, schema: Option<&Value>) -> Value {
    let Some(schema) = schema else {
        return Value::String(raw.to_owned());
    };
    let allowed = schema_types(schema);
    let t = raw.trim();
    if allowed.is_empty() {
        // A schema that names no type allows any: JSON where it reads as JSON.
        return serde_json::from_str(t).unwrap_or_else(|_| Value::String(raw.to_owned()));
    }
    if allowed.iter().any(|a| a == "null") && matches!(t, "null" | "None") {
        return Value::Null;
    }
    allowed
        .iter()
        .find_map(|ty| match ty.as_str() {
            "integer" | "int" => integer(t),
            "number" | "float" | "double" => number(t),
            "boolean" | "bool" => boolean(t),
            "object" | "dict" => structured(t).filter(Value::is_object),
            "array" | "list" => structured(t).filter(Value::is_array),
            _ => None,
        })
        .unwrap_or_else(|| Value::String(raw.to_owned()))
}

fn integer(t: &str) -> Option<Value> {
    match t.parse::<i64>() {
        Ok(n) => Some(n.into()),
        // `5.0` for an integer: a number all the same, as JSON Schema sees it.
        Err(_) => number(t).filter(|v| v.as_f64().is_some_and(|f| f.fract() == 0.0)),
    }
}

fn number(t: &str) -> Option<Value> {
    match serde_json::from_str::<Value>(t) {
        Ok(v @ Value::Number(_)) => Some(v),
        _ => None,
    }
}

fn boolean(t: &str) -> Option<Value> {
    match t.to_ascii_lowercase().as_str() {
        "true" => Some(Value::Bool(true)),
        "false" => Some(Value::Bool(false)),
        _ => None,
    }
}

/// A JSON or Python literal (templates that print values with `|string`
/// write `{'a': True}`); a JSON string holding one is unwrapped once.
fn structured(t: &str) -> Option<Value> {
    let v = serde_json::from_str::<Value>(t)
        .ok()
        .or_else(|| python_literal(t).ok())?;
    match v {
        Value::String(inner) => serde_json::from_str::<Value>(&inner)
            .ok()
            .or_else(|| python_literal(&inner).ok())
            .filter(|v| v.is_object() || v.is_array()),
        v => Some(v),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn ty(raw: &str, schema: Value) -> Value {
        typed_value(raw, Some(&schema))
    }

    #[test]
    fn null_only_where_the_schema_allows_it() {
        assert_eq!(
            ty(
                "null",
                json!({"anyOf": [{"type": "string"}, {"type": "null"}]})
            ),
            Value::Null
        );
        assert_eq!(ty("None", json!({"type": ["string", "null"]})), Value::Null);
        assert_eq!(
            ty("null", json!({"type": "string", "nullable": true})),
            Value::Null
        );
        assert_eq!(ty("null", json!({"type": "string"})), json!("null"));
        assert_eq!(ty("null", json!({"type": "integer"})), json!("null"));
    }

    #[test]
    fn unions_try_their_types_in_order() {
        let s = json!({"anyOf": [{"type": "integer"}, {"type": "object"}, {"type": "string"}]});
        assert_eq!(ty(" 2 ", s.clone()), json!(2));
        assert_eq!(ty(r#"{"a": 1}"#, s.clone()), json!({"a": 1}));
        assert_eq!(ty("[1]", s.clone()), json!("[1]"));
        assert_eq!(ty("two", s), json!("two"));
        // An object only where the schema allows one.
        assert_eq!(
            ty(r#"{"a": 1}"#, json!({"type": "string"})),
            json!(r#"{"a": 1}"#)
        );
        assert_eq!(
            ty("{'a': True}", json!({"type": "object"})),
            json!({"a": true})
        );
    }

    #[test]
    fn numbers_and_booleans_only_where_the_schema_says_so() {
        assert_eq!(ty("42", json!({"type": "string"})), json!("42"));
        assert_eq!(ty("true", json!({"type": "string"})), json!("true"));
        assert_eq!(ty("5.0", json!({"type": "integer"})), json!(5.0));
        assert_eq!(ty("5.5", json!({"type": "integer"})), json!("5.5"));
        assert_eq!(ty("True", json!({"type": "boolean"})), json!(true));
        assert_eq!(ty("yes", json!({"type": "boolean"})), json!("yes"));
        assert_eq!(ty("1e3", json!({"type": "number"})), json!(1000.0));
        assert_eq!(ty("2", json!({"enum": [1, 2, 3]})), json!(2));
        assert_eq!(ty(" keep ", json!({"enum": ["a"]})), json!(" keep "));
        assert_eq!(typed_value("7", None), json!("7"));
        assert_eq!(ty("7", json!({"description": "any"})), json!(7));
    }
}
