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

fn write_string(s: &str, out: &mut String) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
}

/// Parses JSON text (the `choices` list of a doc comment).
pub fn parse(text: &str) -> Result<Json, String> {
    let mut p = Parser {
        s: text.as_bytes(),
        i: 0,
        depth: 0,
    };
    let value = p.value()?;
    p.ws();
    if p.i != p.s.len() {
        return Err(format!(
            "unexpected text after the JSON value at byte {}",
            p.i
        ));
    }
    Ok(value)
}

struct Parser<'a> {
    s: &'a [u8],
    i: usize,
    depth: usize,
}

impl Parser<'_> {
    fn ws(&mut self) {
        while self.i < self.s.len() && matches!(self.s[self.i], b' ' | b'\t' | b'\n' | b'\r') {
            self.i += 1;
        }
    }

    fn peek(&self) -> Option<u8> {
        self.s.get(self.i).copied()
    }

    fn expect(&mut self, b: u8) -> Result<(), String> {
        self.ws();
        if self.peek() == Some(b) {
            self.i += 1;
            Ok(())
        } else {
            Err(format!("expected `{}` at byte {}", b as char, self.i))
        }
    }

    fn value(&mut self) -> Result<Json, String> {
        self.ws();
        self.depth += 1;
        if self.depth > 64 {
            return Err("JSON nested too deeply".into());
        }
        let v = match self.peek() {
            None => Err("unexpected end of JSON".into()),
            Some(b'n') => self.word("null", Json::Null),
            Some(b't') => self.word("true", Json::Bool(true)),
            Some(b'f') => self.word("false", Json::Bool(false)),
            Some(b'"') => self.string().map(Json::Str),
            Some(b'[') => {
                self.i += 1;
                let mut items = Vec::new();
                self.ws();
                if self.peek() == Some(b']') {
                    self.i += 1;
                } else {
                    loop {
                        items.push(self.value()?);
                        self.ws();
                        match self.peek() {
                            Some(b',') => self.i += 1,
                            Some(b']') => {
                                self.i += 1;
                                break;
                            }
                            _ => return Err(format!("expected `,` or `]` at byte {}", self.i)),
                        }
                    }
                }
                Ok(Json::Array(items))
            }
            Some(b'{') => {
                self.i += 1;
                let mut entries = Vec::new();
                self.ws();
                if self.peek() == Some(b'}') {
                    self.i += 1;
                } else {
                    loop {
                        self.ws();
                        if self.peek() != Some(b'"') {
                            return Err(format!("expected a string key at byte {}", self.i));
                        }
                        let key = self.string()?;
                        self.expect(b':')?;
                        entries.push((key, self.value()?));
                        self.ws();
                        match self.peek() {
                            Some(b',') => self.i += 1,
                            Some(b'}') => {
                                self.i += 1;
                                break;
                            }
                            _ => return Err(format!("expected `,` or `}}` at byte {}", self.i)),
                        }
                    }
                }
                Ok(Json::Object(entries))
            }
            Some(b'-' | b'0'..=b'9') => self.number(),
            Some(c) => Err(format!("unexpected `{}` at byte {}", c as char, self.i)),
        };
        self.depth -= 1;
        v
    }

    fn word(&mut self, word: &str, value: Json) -> Result<Json, String> {
        if self.s[self.i..].starts_with(word.as_bytes()) {
            self.i += word.len();
            Ok(value)
        } else {
            Err(format!("unexpected text at byte {}", self.i))
        }
    }

    fn number(&mut self) -> Result<Json, String> {
        let start = self.i;
        while self.i < self.s.len()
            && matches!(
                self.s[self.i],
                b'-' | b'+' | b'.' | b'e' | b'E' | b'0'..=b'9'
            )
        {
            self.i += 1;
        }
        let text = std::str::from_utf8(&self.s[start..self.i]).map_err(|e| e.to_string())?;
        if let Ok(i) = text.parse::<i128>() {
            return Ok(Json::Int(i));
        }
        text.parse::<f64>()
            .ok()
            .filter(|f| f.is_finite())
            .map(Json::Float)
            .ok_or_else(|| format!("invalid number `{text}`"))
    }

    fn string(&mut self) -> Result<String, String> {
        self.i += 1; // opening quote
        let mut out = String::new();
        loop {
            let rest = std::str::from_utf8(&self.s[self.i..]).map_err(|e| e.to_string())?;
            let mut chars = rest.chars();
            let c = chars.next().ok_or("unterminated string")?;
            self.i += c.len_utf8();
            match c {
                '"' => return Ok(out),
                '\\' => {
                    let e = chars.next().ok_or("unterminated string")?;
                    self.i += 1;
                    match e {
                        '"' => out.push('"'),
                        '\\' => out.push('\\'),
                        '/' => out.push('/'),
                        'b' => out.push('\u{8}'),
                        'f' => out.push('\u{c}'),
                        'n' => out.push('\n'),
                        'r' => out.push('\r'),
                        't' => out.push('\t'),
                        'u' => out.push(self.unicode_escape()?),
                        other => return Err(format!("invalid escape `\\{other}`")),
                    }
                }
                c => out.push(c),
            }
        }
    }

    fn hex4(&mut self) -> Result<u32, String> {
        let hex = self
            .s
            .get(self.i..self.i + 4)
            .ok_or("truncated \\u escape")?;
        let hex = std::str::from_utf8(hex).map_err(|e| e.to_string())?;
        let v = u32::from_str_radix(hex, 16).map_err(|_| format!("invalid \\u escape `{hex}`"))?;
        self.i += 4;
        Ok(v)
    }

    fn unicode_escape(&mut self) -> Result<char, String> {
        let hi = self.hex4()?;
        if (0xD800..0xDC00).contains(&hi) && self.s[self.i..].starts_with(b"\\u") {
            self.i += 2;
            let lo = self.hex4()?;
            let code = 0x10000 + ((hi - 0xD800) << 10) + (lo.wrapping_sub(0xDC00) & 0x3FF);
            return char::from_u32(code).ok_or_else(|| "invalid surrogate pair".into());
        }
        char::from_u32(hi).ok_or_else(|| format!("invalid code point {hi:#x}"))
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
        let len = s.chars().count() as f64;
        if schema
            .get("minLength")
            .and_then(as_f64)
            .is_some_and(|m| len < m)
            || schema
                .get("maxLength")
                .and_then(as_f64)
                .is_some_and(|m| len > m)
        {
            return Err(format!(
                "{s:?} has the wrong length for the parameter's type"
            ));
        }
    }
    if let Json::Array(items) = value {
        let n = items.len() as f64;
        if schema
            .get("minItems")
            .and_then(as_f64)
            .is_some_and(|m| n < m)
            || schema
                .get("maxItems")
                .and_then(as_f64)
                .is_some_and(|m| n > m)
        {
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
