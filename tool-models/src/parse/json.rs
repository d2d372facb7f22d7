//! JSON helpers: reading call objects, and Python literals (`{'a': True}`)
//! that some models write where JSON is expected.
//!
//! Both parsers have a nesting limit: serde_json stops at 128 levels, the
//! Python-literal parser at [`MAX_DEPTH`].

use serde_json::{Map, Number, Value};

/// Deepest nesting the Python-literal parser accepts.
pub const MAX_DEPTH: usize = 128;

/// Complete JSON text to a value (serde_json, which limits nesting).
pub(crate) fn parse(text: &str) -> Result<Value, String> {
    serde_json::from_str(text.trim()).map_err(|e| e.to_string())
}

/// `{name, arguments|parameters, id?}` (also Cohere's `tool_name` and
/// `tool_call_id`) to `(id, name, arguments)`. Arguments given as a JSON
/// string are decoded once; a string that is not JSON stays a string.
/// On error: the name if one was found, and why.
pub(crate) type CallParts = (Option<String>, String, Value);

pub(crate) fn call_from_value(v: Value) -> Result<CallParts, (Option<String>, String)> {
    let Value::Object(mut m) = v else {
        return Err((None, "a tool call must be a JSON object".into()));
    };
    // Some models nest the call as OpenAI does.
    if let Some(Value::Object(f)) = m.remove("function") {
        let id = m.remove("id");
        m = f;
        if let Some(id) = id {
            m.insert("id".into(), id);
        }
    }
    let name = match m.remove("name").or_else(|| m.remove("tool_name")) {
        Some(Value::String(s)) if !s.is_empty() => s,
        _ => return Err((None, "the tool call has no `name` string".into())),
    };
    let id = match m.remove("id").or_else(|| m.remove("tool_call_id")) {
        Some(Value::String(s)) => Some(s),
        Some(Value::Number(n)) => Some(n.to_string()),
        _ => None,
    };
    let args = m
        .remove("arguments")
        .or_else(|| m.remove("parameters"))
        .or_else(|| m.remove("args"));
    let args = match args {
        None => {
            return Err((
                Some(name),
                "the tool call has no `arguments` or `parameters`".into(),
            ))
        }
        Some(Value::Null) => Value::Object(Map::new()),
        Some(Value::String(s)) if s.trim().is_empty() => Value::Object(Map::new()),
        Some(Value::String(s)) => match serde_json::from_str::<Value>(&s) {
            Ok(v @ Value::Object(_)) => v,
            _ => Value::String(s),
        },
        Some(v) => v,
    };
    Ok((id, name, args))
}

/// A Python literal (`'str'`, `1.5`, `True`, `None`, lists, tuples, dicts)
/// as JSON. Non-finite numbers and bytes literals are errors.
pub(crate) fn python_literal(text: &str) -> Result<Value, String> {
    let mut p = Py {
        s: text.as_bytes(),
        text,
        i: 0,
    };
    let v = p.value(0)?;
    p.ws();
    if p.i != p.s.len() {
        return Err(format!("unexpected text at byte {}", p.i));
    }
    Ok(v)
}

/// Parser for Python literals and call lists (`[f(a=1), g()]`).
pub(crate) struct Py<'a> {
    pub(crate) s: &'a [u8],
    pub(crate) text: &'a str,
    pub(crate) i: usize,
}

impl Py<'_> {
    pub(crate) fn ws(&mut self) {
        while self.i < self.s.len() && self.s[self.i].is_ascii_whitespace() {
            self.i += 1;
        }
    }

    pub(crate) fn peek(&self) -> Option<u8> {
        self.s.get(self.i).copied()
    }

    pub(crate) fn eat(&mut self, c: u8) -> bool {
        self.ws();
        if self.peek() == Some(c) {
            self.i += 1;
            true
        } else {
            false
        }
    }

    pub(crate) fn ident(&mut self) -> Option<&str> {
        self.ws();
        let start = self.i;
        while self.i < self.s.len()
            && (self.s[self.i].is_ascii_alphanumeric()
                || matches!(self.s[self.i], b'_' | b'.' | b'-')
                || self.s[self.i] >= 0x80)
        {
            self.i += 1;
        }
        (self.i > start).then(|| &self.text[start..self.i])
    }

    pub(crate) fn value(&mut self, depth: usize) -> Result<Value, String> {
        if depth > MAX_DEPTH {
            return Err(format!("nested deeper than {MAX_DEPTH} levels"));
        }
        self.ws();
        match self.peek() {
            None => Err("unexpected end".into()),
            Some(b'\'' | b'"') => self.string().map(Value::String),
            Some(b'[') => self.seq(b']', depth),
            Some(b'(') => self.seq(b')', depth),
            Some(b'{') => self.dict(depth),
            Some(b'-' | b'+' | b'.' | b'0'..=b'9') => self.number(),
            Some(_) => {
                let start = self.i;
                match self.ident() {
                    Some("True" | "true") => Ok(Value::Bool(true)),
                    Some("False" | "false") => Ok(Value::Bool(false)),
                    Some("None" | "null") => Ok(Value::Null),
                    _ => Err(format!("unexpected text at byte {start}")),
                }
            }
        }
    }

    fn seq(&mut self, close: u8, depth: usize) -> Result<Value, String> {
        self.i += 1;
        let mut items = Vec::new();
        loop {
            if self.eat(close) {
                return Ok(Value::Array(items));
            }
            items.push(self.value(depth + 1)?);
            if self.eat(b',') {
                continue;
            }
            if self.eat(close) {
                return Ok(Value::Array(items));
            }
            return Err(format!(
                "expected `,` or `{}` at byte {}",
                close as char, self.i
            ));
        }
    }

    fn dict(&mut self, depth: usize) -> Result<Value, String> {
        self.i += 1;
        let mut map = Map::new();
        loop {
            if self.eat(b'}') {
                return Ok(Value::Object(map));
            }
            let key = self.value(depth + 1)?;
            if map.is_empty() && matches!(self.peek_after_ws(), Some(b',' | b'}')) {
                // A set, `{'a', 'b'}`: JSON has none, a list is closest.
                return self.set_rest(key, depth);
            }
            let key = match key {
                Value::String(s) => s,
                other => other.to_string(),
            };
            if !self.eat(b':') {
                return Err(format!("expected `:` at byte {}", self.i));
            }
            let v = self.value(depth + 1)?;
            map.insert(key, v);
            if self.eat(b',') {
                continue;
            }
            if self.eat(b'}') {
                return Ok(Value::Object(map));
            }
            return Err(format!("expected `,` or `}}` at byte {}", self.i));
        }
    }

    fn peek_after_ws(&mut self) -> Option<u8> {
        self.ws();
        self.peek()
    }

    /// The rest of a set whose first item is read.
    fn set_rest(&mut self, first: Value, depth: usize) -> Result<Value, String> {
        let mut items = vec![first];
        loop {
            if self.eat(b'}') {
                return Ok(Value::Array(items));
            }
            if !self.eat(b',') {
                return Err(format!("expected `,` or `}}` at byte {}", self.i));
            }
            if self.eat(b'}') {
                return Ok(Value::Array(items));
            }
            items.push(self.value(depth + 1)?);
        }
    }

    fn number(&mut self) -> Result<Value, String> {
        let start = self.i;
        while self.i < self.s.len()
            && matches!(
                self.s[self.i],
                b'-' | b'+' | b'.' | b'e' | b'E' | b'_' | b'0'..=b'9'
            )
        {
            self.i += 1;
        }
        let t: String = self.text[start..self.i]
            .chars()
            .filter(|&c| c != '_' && c != '+')
            .collect();
        if let Ok(n) = t.parse::<i64>() {
            return Ok(Value::Number(n.into()));
        }
        match t.parse::<f64>() {
            Ok(f) if f.is_finite() => Number::from_f64(f)
                .map(Value::Number)
                .ok_or_else(|| format!("invalid number `{t}`")),
            _ => Err(format!("invalid or non-finite number `{t}`")),
        }
    }

    pub(crate) fn string(&mut self) -> Result<String, String> {
        let q = self.s[self.i];
        self.i += 1;
        let mut out = String::new();
        loop {
            let run = self.s[self.i..]
                .iter()
                .position(|&b| b == q || b == b'\\')
                .ok_or("unterminated string")?;
            out.push_str(&self.text[self.i..self.i + run]);
            self.i += run;
            if self.s[self.i] == q {
                self.i += 1;
                return Ok(out);
            }
            let e = *self.s.get(self.i + 1).ok_or("unterminated string")?;
            self.i += 2;
            match e {
                b'n' => out.push('\n'),
                b't' => out.push('\t'),
                b'r' => out.push('\r'),
                b'0' => out.push('\0'),
                b'\\' => out.push('\\'),
                b'\'' => out.push('\''),
                b'"' => out.push('"'),
                b'u' => {
                    let hex = self.text.get(self.i..self.i + 4).ok_or("bad \\u escape")?;
                    let code = u32::from_str_radix(hex, 16).map_err(|_| "bad \\u escape")?;
                    out.push(char::from_u32(code).unwrap_or('\u{FFFD}'));
                    self.i += 4;
                }
                b'\n' => {}
                _ => {
                    // Python keeps unknown escapes verbatim.
                    out.push('\\');
                    self.i -= 1;
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn python_literals() {
        assert_eq!(
            python_literal("{'a': [1, 2.5, True, None], \"b\": 'x\\'y'}").unwrap(),
            json!({"a": [1, 2.5, true, null], "b": "x'y"})
        );
        // Sets become lists.
        assert_eq!(python_literal("{'b', 'a',}").unwrap(), json!(["b", "a"]));
        assert_eq!(python_literal("{1}").unwrap(), json!([1]));
        assert!(python_literal("{1, 2: 3}").is_err());
        assert!(python_literal("1e999").is_err());
        assert!(python_literal(&"[".repeat(100_000)).is_err());
    }

    #[test]
    fn call_objects() {
        let (id, name, args) =
            call_from_value(json!({"name": "f", "arguments": "{\"a\": 1}", "id": "x"})).unwrap();
        assert_eq!(
            (id.as_deref(), name.as_str(), args),
            (Some("x"), "f", json!({"a": 1}))
        );
        assert!(call_from_value(json!({"name": "f"})).is_err());
        assert!(call_from_value(json!({"parameters": {}})).is_err());
    }
}
