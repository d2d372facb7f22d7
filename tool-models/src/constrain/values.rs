//! Argument values in the formats that do not write them as JSON: raw text
//! (the XML families, FunctionGemma's `<escape>`), typed back by the
//! parser from the schema (`parse::schema::typed_value`), and Python
//! literals (pythonic calls).
//!
//! Each schema becomes alternatives, one per type it allows: a parser
//! types a raw value by trying the schema's types in order, so whichever
//! alternative the model writes reads back as a value the schema accepts.
//! Numbers, objects and lists are JSON in every one of these formats, so
//! they are inline JSON schemas; strings and enums are text.

use super::lark::{json, lit, regex, Lark, ANY};
use super::narrow::admits_any;
use crate::schema_types::schema_types;
use serde_json::{Map, Value};

/// Where a raw value ends, and what it may not contain.
pub(crate) struct RawEnd<'a> {
    /// The Lark of what closes the value.
    pub(crate) close: String,
    /// The closing text, when it is text rather than a special token: the
    /// value and its closer are then one lexeme (a greedy text lexeme
    /// would not stop before a literal).
    pub(crate) close_text: Option<&'a str>,
    /// Texts the parser would read as the end of the value or of the call.
    pub(crate) forbidden: &'a [&'a str],
}

/// `schema` narrowed to one of its types, carrying the tool's `$defs`.
fn with_type(schema: &Value, ty: &str, defs: Option<&Value>) -> Value {
    let mut s = schema.clone();
    if let Some(obj) = s.as_object_mut() {
        obj.insert("type".into(), ty.into());
        obj.remove("nullable");
        if let Some(d) = defs {
            obj.insert("$defs".into(), d.clone());
        }
    }
    s
}

/// `schema` as it stands, carrying the tool's `$defs`.
fn with_defs(schema: &Value, defs: Option<&Value>) -> Value {
    let mut s = schema.clone();
    if let (Some(obj), Some(d)) = (s.as_object_mut(), defs) {
        obj.insert("$defs".into(), d.clone());
    }
    s
}

/// The choices a schema offers at its top: its own, or its `anyOf`/`oneOf`
/// branches (each merged with the keywords beside them).
fn branches(schema: &Value) -> Vec<Value> {
    for key in ["anyOf", "oneOf"] {
        if let Some(Value::Array(alts)) = schema.get(key) {
            let mut base: Map<String, Value> = schema.as_object().cloned().unwrap_or_default();
            base.remove(key);
            return alts
                .iter()
                .map(|alt| {
                    let mut b = base.clone();
                    if let Value::Object(a) = alt {
                        b.extend(a.clone());
                    }
                    Value::Object(b)
                })
                .flat_map(|b| branches(&b))
                .collect();
        }
    }
    vec![schema.clone()]
}

/// The values an `enum` or `const` allows.
fn fixed_values(schema: &Value) -> Option<Vec<Value>> {
    schema
        .get("enum")
        .and_then(Value::as_array)
        .cloned()
        .or_else(|| schema.get("const").map(|c| vec![c.clone()]))
}

/// A raw-text value of `schema` and its closer.
pub(crate) fn raw_value(
    l: &mut Lark,
    schema: &Value,
    defs: Option<&Value>,
    end: &RawEnd,
) -> String {
    let mut alts = Vec::new();
    for b in branches(schema) {
        raw_branch(l, &b, defs, end, &mut alts);
    }
    if alts.is_empty() {
        // Nothing writable (an enum of forbidden texts): the free text
        // the parser keeps as it is.
        alts.push(raw_string(l, &Value::Null, end));
    }
    format!("({})", alts.join(" | "))
}

fn raw_branch(
    l: &mut Lark,
    schema: &Value,
    defs: Option<&Value>,
    end: &RawEnd,
    alts: &mut Vec<String>,
) {
    let close = &end.close;
    if admits_any(schema) {
        alts.push(raw_string(l, &Value::Null, end));
        return;
    }
    if let Some(values) = fixed_values(schema) {
        for v in values {
            let spelled = match &v {
                Value::String(s) => s.clone(),
                other => other.to_string(),
            };
            if !end.forbidden.iter().any(|f| spelled.contains(f)) {
                alts.push(format!("{} {close}", lit(&spelled)));
            }
        }
        return;
    }
    let tys = schema_types(schema);
    if tys.is_empty() {
        // A `$ref` or a schema by keywords alone: the parser reads JSON
        // where the text is JSON.
        alts.push(format!(
            "{} {close}",
            json_value(with_defs(schema, defs), end)
        ));
        return;
    }
    for ty in tys {
        let alt = match ty.as_str() {
            "string" => raw_string(l, schema, end),
            "null" => format!("\"null\" {close}"),
            "boolean" => format!("(\"true\" | \"false\" | \"True\" | \"False\") {close}"),
            "integer" | "number" | "object" | "array" => {
                format!("{} {close}", json_value(with_type(schema, &ty, defs), end))
            }
            _ => continue,
        };
        alts.push(alt);
    }
}

/// Inline JSON whose strings hold none of the texts that would end the value.
fn json_value(mut schema: Value, end: &RawEnd) -> String {
    for f in end.forbidden {
        super::narrow::forbid_in_strings(&mut schema, f);
    }
    json(schema, end.forbidden.first().copied())
}

/// A raw string of `schema` (its length bounds and pattern), then the
/// closer: a lexeme of its own (`&` only joins lexemes).
fn raw_string(l: &mut Lark, schema: &Value, end: &RawEnd) -> String {
    let min = schema.get("minLength").and_then(Value::as_u64);
    let max = schema.get("maxLength").and_then(Value::as_u64);
    let mut parts = vec![match (min, max) {
        (None, None) => ANY.to_owned(),
        (min, max) => format!(
            "/(?s:.{{{},{}}})/",
            min.unwrap_or(0),
            max.map(|m| m.to_string()).unwrap_or_default()
        ),
    }];
    if !end.forbidden.is_empty() {
        let f: Vec<String> = end.forbidden.iter().map(|f| lit(f)).collect();
        parts.push(format!("~({ANY} ({}) {ANY})", f.join(" | ")));
    }
    if let Some(p) = schema.get("pattern").and_then(Value::as_str) {
        parts.push(pattern(p));
    }
    let value = parts.join(" & ");
    match end.close_text {
        Some(c) => l.rule(true, &format!("({value}) {}", lit(c))),
        None => format!("{} {}", l.rule(true, &value), end.close),
    }
}

/// A JSON Schema pattern (a search, unless anchored) as a whole-text regex.
fn pattern(p: &str) -> String {
    let start = p.strip_prefix('^');
    let inner = start.unwrap_or(p);
    let end = inner.strip_suffix('$').filter(|s| !s.ends_with('\\'));
    let core = end.unwrap_or(inner);
    regex(&format!(
        "(?s:{}(?:{core}){})",
        if start.is_some() { "" } else { ".*" },
        if end.is_some() { "" } else { ".*" }
    ))
}

/// A Python literal of `schema`: JSON for numbers, strings (Python reads
/// a JSON string), lists and dicts; `True`/`False`/`None` at the top level.
pub(crate) fn python_value(schema: &Value, defs: Option<&Value>) -> String {
    let mut alts = Vec::new();
    for b in branches(schema) {
        if admits_any(&b) {
            alts.push(json(with_defs(&b, defs), None));
            continue;
        }
        if let Some(values) = fixed_values(&b) {
            for v in &values {
                alts.push(lit(&python_literal(v)));
                // Python's own quotes, as templates print a string.
                if let Value::String(s) = v {
                    if !s.contains(['\'', '\\', '\n', '\r']) {
                        alts.push(lit(&format!("'{s}'")));
                    }
                }
            }
            continue;
        }
        let tys = schema_types(&b);
        if tys.is_empty() {
            alts.push(json(with_defs(&b, defs), None));
        }
        for ty in tys {
            alts.push(match ty.as_str() {
                "null" => "\"None\"".into(),
                "boolean" => "(\"True\" | \"False\")".into(),
                "string"
                    if !["minLength", "maxLength", "pattern", "format"]
                        .iter()
                        .any(|k| b.get(*k).is_some()) =>
                {
                    // JSON's quotes or Python's; bounded strings keep to
                    // JSON's, where the compiler checks the bounds.
                    format!("({} | {PY_STRING})", json(with_type(&b, &ty, defs), None))
                }
                _ => json(with_type(&b, &ty, defs), None),
            });
        }
    }
    format!("({})", alts.join(" | "))
}

/// A single-quoted Python string with the escapes the parser reads.
const PY_STRING: &str = r#"/'(?:[^'\\\r\n]|\\[\\'"nrt])*'/"#;

/// A JSON value as Python writes it.
fn python_literal(v: &Value) -> String {
    match v {
        Value::Null => "None".into(),
        Value::Bool(true) => "True".into(),
        Value::Bool(false) => "False".into(),
        other => other.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn python_spelling() {
        let g = python_value(&json!({"type": ["boolean", "null"]}), None);
        assert_eq!(g, "((\"True\" | \"False\") | \"None\")");
        let g = python_value(&json!({"enum": [true, "x"]}), None);
        assert_eq!(g, "(\"True\" | \"\\\"x\\\"\" | \"'x'\")");
    }

    #[test]
    fn patterns_search_unless_anchored() {
        assert_eq!(pattern("^[a-z]+$"), "/(?s:(?:[a-z]+))/");
        assert_eq!(pattern("ab"), "/(?s:.*(?:ab).*)/");
    }
}
