//! A small JSON value for building schemas inside the macro, which has no serde.
//!
//! Objects keep insertion order: key order is part of the schema contract.
//! `Extern` stands for a type whose schema only exists at run time (schemars).

use proc_macro2::TokenStream;
use quote::quote;

#[derive(Clone)]
pub enum Json {
    Null,
    Bool(bool),
    Int(i128),
    Float(f64),
    Str(String),
    Array(Vec<Json>),
    Object(Vec<(String, Json)>),
    /// The schemars schema of `ty`, with `extra` keys appended after its own.
    Extern {
        ty: Box<syn::Type>,
        extra: Vec<(String, Json)>,
    },
}

impl std::fmt::Debug for Json {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Json::Extern { ty, extra } => {
                write!(f, "Extern({}, {extra:?})", quote!(#ty))
            }
            other => f.write_str(&other.to_json_string()),
        }
    }
}

impl PartialEq for Json {
    fn eq(&self, other: &Self) -> bool {
        match (self, other) {
            (Json::Null, Json::Null) => true,
            (Json::Bool(a), Json::Bool(b)) => a == b,
            (Json::Int(a), Json::Int(b)) => a == b,
            (Json::Float(a), Json::Float(b)) => a == b,
            (Json::Int(a), Json::Float(b)) | (Json::Float(b), Json::Int(a)) => *a as f64 == *b,
            (Json::Str(a), Json::Str(b)) => a == b,
            (Json::Array(a), Json::Array(b)) => a == b,
            (Json::Object(a), Json::Object(b)) => a == b,
            _ => false,
        }
    }
}

impl Json {
    pub fn object<const N: usize>(entries: [(&str, Json); N]) -> Json {
        Json::Object(
            entries
                .into_iter()
                .map(|(k, v)| (k.to_owned(), v))
                .collect(),
        )
    }

    pub fn str(s: impl Into<String>) -> Json {
        Json::Str(s.into())
    }

    /// Appends `key` to an object schema (or to an extern schema's extras).
    pub fn push(&mut self, key: &str, value: Json) {
        match self {
            Json::Object(entries) => entries.push((key.to_owned(), value)),
            Json::Extern { extra, .. } => extra.push((key.to_owned(), value)),
            _ => unreachable!("schemas are objects"),
        }
    }

    pub fn get(&self, key: &str) -> Option<&Json> {
        match self {
            Json::Object(entries) => entries.iter().find(|(k, _)| k == key).map(|(_, v)| v),
            _ => None,
        }
    }

    /// True when the value contains no run-time (schemars) part.
    pub fn is_static(&self) -> bool {
        match self {
            Json::Extern { .. } => false,
            Json::Array(items) => items.iter().all(Json::is_static),
            Json::Object(entries) => entries.iter().all(|(_, v)| v.is_static()),
            _ => true,
        }
    }

    /// Compact JSON text, as `serde_json::to_string` writes it.
    pub fn to_json_string(&self) -> String {
        let mut out = String::new();
        self.write(&mut out);
        out
    }

    fn write(&self, out: &mut String) {
        match self {
            Json::Null => out.push_str("null"),
            Json::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
            Json::Int(i) => out.push_str(&i.to_string()),
            Json::Float(f) => out.push_str(&format_float(*f)),
            Json::Str(s) => write_string(s, out),
            Json::Array(items) => {
                out.push('[');
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    item.write(out);
                }
                out.push(']');
            }
            Json::Object(entries) => {
                out.push('{');
                for (i, (k, v)) in entries.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    write_string(k, out);
                    out.push(':');
                    v.write(out);
                }
                out.push('}');
            }
            Json::Extern { .. } => unreachable!("only static schemas are written as text"),
        }
    }

    /// An expression of type `serde_json::Value` that builds this value at run time.
    /// Static parts are parsed from text; extern parts call schemars once.
    pub fn to_tokens(&self, krate: &TokenStream) -> TokenStream {
        let private = quote!(#krate::__private);
        if self.is_static() {
            let text = self.to_json_string();
            return quote!(#private::parse_schema(#text));
        }
        match self {
            Json::Array(items) => {
                let items = items.iter().map(|v| v.to_tokens(krate));
                quote!(#private::array([#(#items),*]))
            }
            Json::Object(entries) => {
                let keys = entries.iter().map(|(k, _)| k);
                let values = entries.iter().map(|(_, v)| v.to_tokens(krate));
                quote!(#private::object([#((#keys, #values)),*]))
            }
            Json::Extern { ty, extra } => {
                let keys = extra.iter().map(|(k, _)| k);
                let values = extra.iter().map(|(_, v)| v.to_tokens(krate));
                quote!(#private::extend(#private::inline_schema::<#ty>(), [#((#keys, #values)),*]))
            }
            _ => unreachable!("scalars are static"),
        }
    }

    /// A short description of the value's JSON type, for error messages.
    pub fn kind(&self) -> &'static str {
        match self {
            Json::Null => "null",
            Json::Bool(_) => "a boolean",
            Json::Int(_) => "an integer",
            Json::Float(_) => "a number",
            Json::Str(_) => "a string",
            Json::Array(_) => "an array",
            Json::Object(_) | Json::Extern { .. } => "an object",
        }
    }
}

fn format_float(f: f64) -> String {
    // `{:?}` always keeps a fractional part or exponent (`1.0`, `1e20`), as serde_json does.
    format!("{f:?}")
}

/// `s` as a JSON string, escaped as `serde_json` escapes it.
fn write_string(s: &str, out: &mut String) {
    // Displaying a JSON value cannot fail.
    out.push_str(&serde_json::Value::from(s).to_string());
}

/// Parses JSON text (the `choices` list of a doc comment, one line).
pub fn parse(text: &str) -> Result<Json, String> {
    match serde_json::from_str(text) {
        Ok(value) => Ok(from_value(value)),
        Err(e) if e.is_eof() => Err("unexpected end of JSON".into()),
        Err(e) if e.to_string().starts_with("recursion limit exceeded") => {
            Err("JSON nested too deeply".into())
        }
        Err(e) => {
            // serde_json counts columns from 1; a doc line is one line.
            let at = e.column().saturating_sub(1);
            match text.get(at..).and_then(|rest| rest.chars().next()) {
                Some(c) if e.line() == 1 => Err(format!("unexpected `{c}` at byte {at}")),
                _ => Err(e.to_string()),
            }
        }
    }
}

fn from_value(value: serde_json::Value) -> Json {
    use serde_json::Value;
    match value {
        Value::Null => Json::Null,
        Value::Bool(b) => Json::Bool(b),
        Value::Number(n) => match (n.as_i64(), n.as_u64()) {
            (Some(i), _) => Json::Int(i.into()),
            (_, Some(u)) => Json::Int(u.into()),
            _ => Json::Float(n.as_f64().unwrap_or_default()),
        },
        Value::String(s) => Json::Str(s),
        Value::Array(items) => Json::Array(items.into_iter().map(from_value).collect()),
        Value::Object(map) => {
            Json::Object(map.into_iter().map(|(k, v)| (k, from_value(v))).collect())
        }
    }
}

/// Checks that `value` fits `schema` as far as the macro can tell (extern
/// schemas are only known at run time and accept anything here).
pub fn check(value: &Json, schema: &Json) -> Result<(), String> {
    let Json::Object(_) = schema else {
        return Ok(());
    };
    if matches!(value, Json::Null) {
        return if schema.get("nullable") == Some(&Json::Bool(true)) {
            Ok(())
        } else {
            Err("expected a value, found null (the parameter is not optional)".into())
        };
    }
    let Some(Json::Str(ty)) = schema.get("type") else {
        return Ok(()); // `{}`: any value
    };
    let fits = match (ty.as_str(), value) {
        ("string", Json::Str(_))
        | ("boolean", Json::Bool(_))
        | ("integer", Json::Int(_))
        | ("number", Json::Int(_) | Json::Float(_))
        | ("array", Json::Array(_))
        | ("object", Json::Object(_)) => true,
        ("integer", Json::Float(f)) => f.fract() == 0.0,
        _ => false,
    };
    if !fits {
        let expected = match ty.as_str() {
            "integer" => "an integer",
            "number" => "a number",
            "boolean" => "a boolean",
            "array" => "an array",
            "object" => "an object",
            _ => "a string",
        };
        return Err(format!("expected {expected}, found {}", value.kind()));
    }
    let number = match value {
        Json::Int(i) => Some(*i as f64),
        Json::Float(f) => Some(*f),
        _ => None,
    };
    if let Some(n) = number {
        if let Some(min) = schema.get("minimum").and_then(as_f64) {
            if n < min {
                return Err(format!("{n} is below the type's minimum, {min}"));
            }
        }
        if let Some(max) = schema.get("maximum").and_then(as_f64) {
            if n > max {
                return Err(format!("{n} is above the type's maximum, {max}"));
            }
        }
    }
    if let Json::Str(s) = value {
        if outside(schema, "minLength", "maxLength", s.chars().count() as f64) {
            return Err(format!(
                "{s:?} has the wrong length for the parameter's type"
            ));
        }
    }
    if let Json::Array(items) = value {
        if outside(schema, "minItems", "maxItems", items.len() as f64) {
            return Err(format!(
                "an array of {} items, which is the wrong length",
                items.len()
            ));
        }
        let prefix = match schema.get("prefixItems") {
            Some(Json::Array(p)) => p.as_slice(),
            _ => &[],
        };
        if !prefix.is_empty() && prefix.len() != items.len() {
            return Err(format!(
                "an array of {} items, but the tuple has {}",
                items.len(),
                prefix.len()
            ));
        }
        for (i, item) in items.iter().enumerate() {
            let item_schema = prefix.get(i).or_else(|| schema.get("items"));
            if let Some(s) = item_schema {
                check(item, s).map_err(|e| format!("item {i}: {e}"))?;
            }
        }
    }
    if let (Json::Object(entries), Some(values)) = (value, schema.get("additionalProperties")) {
        for (k, v) in entries {
            check(v, values).map_err(|e| format!("key {k:?}: {e}"))?;
        }
    }
    Ok(())
}

/// Whether `n` is below the schema's `min` keyword or above its `max`.
fn outside(schema: &Json, min: &str, max: &str, n: f64) -> bool {
    let bound = |key| schema.get(key).and_then(as_f64);
    bound(min).is_some_and(|m| n < m) || bound(max).is_some_and(|m| n > m)
}

fn as_f64(v: &Json) -> Option<f64> {
    match v {
        Json::Int(i) => Some(*i as f64),
        Json::Float(f) => Some(*f),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_compact_text() {
        let text = r#"{"a":[1,-2,1.5,1e20,true,null],"b":"q\"\\\n\u0001é"}"#;
        assert_eq!(parse(text).unwrap().to_json_string(), text);
    }

    #[test]
    fn parses_escapes_and_surrogates() {
        assert_eq!(parse(r#""\ud83d\ude00\u00e9""#).unwrap(), Json::str("😀é"));
    }

    #[test]
    fn rejects_bad_json() {
        for bad in ["[1,", "[1 2]", "{\"a\" 1}", "'x'", "[1]x", "\"abc", "1e999"] {
            assert!(parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn deep_nesting_is_an_error_not_a_crash() {
        let deep = "[".repeat(10_000);
        assert!(parse(&deep).unwrap_err().contains("deeply"));
    }

    #[test]
    fn check_follows_types_and_ranges() {
        let u8_schema = parse(r#"{"type":"integer","minimum":0,"maximum":255}"#).unwrap();
        assert!(check(&Json::Int(255), &u8_schema).is_ok());
        assert!(check(&Json::Int(256), &u8_schema)
            .unwrap_err()
            .contains("maximum"));
        assert!(check(&Json::str("x"), &u8_schema)
            .unwrap_err()
            .contains("string"));
        let opt = parse(r#"{"type":"number","nullable":true}"#).unwrap();
        assert!(check(&Json::Null, &opt).is_ok());
        assert!(check(&Json::Int(1), &opt).is_ok());
        let pair =
            parse(r#"{"type":"array","prefixItems":[{"type":"integer"},{"type":"string"}]}"#)
                .unwrap();
        assert!(check(&parse(r#"[1,"a"]"#).unwrap(), &pair).is_ok());
        assert!(check(&parse(r#"["a",1]"#).unwrap(), &pair).is_err());
        assert!(check(&Json::Int(3), &Json::Object(vec![])).is_ok());
    }
}
