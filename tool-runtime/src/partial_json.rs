//! Parses JSON that may be cut off, as far as it goes: what a streaming model
//! has sent of a tool call's arguments so far.
//!
//! `{"location": "Par` reads as `{"location": "Par"}`. A key whose value has
//! not started is dropped, a half-written literal (`tr`) is dropped, an
//! unfinished number keeps the digits it has. Linear time, no recursion limit
//! problems: nesting deeper than [`MAX_DEPTH`] is an error.

use serde_json::{Map, Value};

/// Deepest nesting accepted.
pub const MAX_DEPTH: usize = 256;

/// The value the text starts, completed as far as the text allows.
/// `Ok(None)` when the text is empty or holds no value yet.
/// Errors on text that can never become JSON (`{"a" 1`, `]`).
pub fn parse_partial(text: &str) -> Result<Option<Value>, String> {
    let mut p = Partial {
        s: text.as_bytes(),
        text,
        i: 0,
    };
    p.ws();
    let v = p.value(0)?;
    p.ws();
    if p.i < p.s.len() {
        return Err(format!(
            "unexpected text after the JSON value at byte {}",
            p.i
        ));
    }
    Ok(v)
}

struct Partial<'a> {
    s: &'a [u8],
    text: &'a str,
    i: usize,
}

impl Partial<'_> {
    fn ws(&mut self) {
        while self.i < self.s.len() && self.s[self.i].is_ascii_whitespace() {
            self.i += 1;
        }
    }

    fn at_end(&self) -> bool {
        self.i >= self.s.len()
    }

    /// `None`: the text ended before the value became anything.
    fn value(&mut self, depth: usize) -> Result<Option<Value>, String> {
        if depth > MAX_DEPTH {
            return Err(format!("JSON nested deeper than {MAX_DEPTH} levels"));
        }
        self.ws();
        let Some(&c) = self.s.get(self.i) else {
            return Ok(None);
        };
        match c {
            b'{' => self.object(depth).map(Some),
            b'[' => self.array(depth).map(Some),
            b'"' => Ok(Some(Value::String(self.string()?.0))),
            b't' => self.literal("true", Value::Bool(true)),
            b'f' => self.literal("false", Value::Bool(false)),
            b'n' => self.literal("null", Value::Null),
            b'-' | b'0'..=b'9' => self.number(),
            _ => Err(format!("unexpected `{}` at byte {}", c as char, self.i)),
        }
    }

    fn literal(&mut self, word: &str, value: Value) -> Result<Option<Value>, String> {
        let rest = &self.s[self.i..];
        if rest.starts_with(word.as_bytes()) {
            self.i += word.len();
            Ok(Some(value))
        } else if word.as_bytes().starts_with(rest) {
            self.i = self.s.len();
            Ok(None)
        } else {
            Err(format!("unexpected text at byte {}", self.i))
        }
    }

    fn number(&mut self) -> Result<Option<Value>, String> {
        let start = self.i;
        while self.i < self.s.len()
            && matches!(
                self.s[self.i],
                b'-' | b'+' | b'.' | b'e' | b'E' | b'0'..=b'9'
            )
        {
            self.i += 1;
        }
        let mut text = &self.text[start..self.i];
        if self.at_end() {
            // Cut off mid-number: keep what is complete (`1.` → 1, `2e` → 2).
            text = text.trim_end_matches(['.', 'e', 'E', '+', '-']);
            if text.is_empty() {
                return Ok(None);
            }
        }
        let n: Value =
            serde_json::from_str(text).map_err(|_| format!("invalid number `{text}`"))?;
        match n {
            Value::Number(_) => Ok(Some(n)),
            _ => Err(format!("invalid number `{text}`")),
        }
    }

    /// A string and whether it was closed.
    fn string(&mut self) -> Result<(String, bool), String> {
        self.i += 1;
        let mut out = String::new();
        loop {
            // Copy plain runs at once; stop at a quote or backslash.
            let run = self.s[self.i..]
                .iter()
                .position(|&b| b == b'"' || b == b'\\')
                .unwrap_or(self.s.len() - self.i);
            out.push_str(&self.text[self.i..self.i + run]);
            self.i += run;
            match self.s.get(self.i) {
                None => return Ok((out, false)),
                Some(b'"') => {
                    self.i += 1;
                    return Ok((out, true));
                }
                Some(_) => {
                    let Some(&e) = self.s.get(self.i + 1) else {
                        self.i = self.s.len();
                        return Ok((out, false));
                    };
                    self.i += 2;
                    match e {
                        b'"' => out.push('"'),
                        b'\\' => out.push('\\'),
                        b'/' => out.push('/'),
                        b'b' => out.push('\u{8}'),
                        b'f' => out.push('\u{c}'),
                        b'n' => out.push('\n'),
                        b'r' => out.push('\r'),
                        b't' => out.push('\t'),
                        b'u' => match self.unicode()? {
                            Some(c) => out.push(c),
                            None => return Ok((out, false)),
                        },
                        other => return Err(format!("invalid escape `\\{}`", other as char)),
                    }
                }
            }
        }
    }

    /// After `\u`: the character, or `None` when the text ends inside the escape.
    fn unicode(&mut self) -> Result<Option<char>, String> {
        let Some(hi) = self.hex4()? else {
            return Ok(None);
        };
        if (0xD800..0xDC00).contains(&hi) {
            if self.s.len() - self.i < 2 {
                self.i = self.s.len();
                return Ok(None);
            }
            if &self.s[self.i..self.i + 2] == b"\\u" {
                self.i += 2;
                let Some(lo) = self.hex4()? else {
                    return Ok(None);
                };
                let code = 0x10000 + ((hi - 0xD800) << 10) + (lo.wrapping_sub(0xDC00) & 0x3FF);
                return Ok(Some(char::from_u32(code).unwrap_or('\u{FFFD}')));
            }
        }
        Ok(Some(char::from_u32(hi).unwrap_or('\u{FFFD}')))
    }

    fn hex4(&mut self) -> Result<Option<u32>, String> {
        let avail = (self.s.len() - self.i).min(4);
        let hex = &self.text[self.i..self.i + avail];
        if !hex.bytes().all(|b| b.is_ascii_hexdigit()) {
            return Err(format!("invalid \\u escape `{hex}`"));
        }
        self.i += avail;
        if avail < 4 {
            return Ok(None);
        }
        Ok(u32::from_str_radix(hex, 16).ok())
    }

    fn array(&mut self, depth: usize) -> Result<Value, String> {
        let mut items = Vec::new();
        self.items(b']', |p| {
            let item = p.value(depth + 1)?;
            let whole = item.is_some();
            items.extend(item);
            Ok(whole)
        })?;
        Ok(Value::Array(items))
    }

    fn object(&mut self, depth: usize) -> Result<Value, String> {
        let mut map = Map::new();
        self.items(b'}', |p| {
            let Some((key, value)) = p.member(depth)? else {
                return Ok(false);
            };
            map.insert(key, value);
            Ok(true)
        })?;
        Ok(Value::Object(map))
    }

    /// The items of the array or object opening here, up to `close`:
    /// `item` reads one, and says whether the text went on past it.
    fn items(
        &mut self,
        close: u8,
        mut item: impl FnMut(&mut Self) -> Result<bool, String>,
    ) -> Result<(), String> {
        self.i += 1;
        loop {
            self.ws();
            if self.ends(close) || !item(self)? || self.after_item(close)? {
                return Ok(());
            }
        }
    }

    /// An object's `"key": value`; `None` when the text ends before the
    /// value starts.
    fn member(&mut self, depth: usize) -> Result<Option<(String, Value)>, String> {
        if self.s[self.i] != b'"' {
            return Err(format!(
                "expected a key, found `{}` at byte {}",
                self.s[self.i] as char, self.i
            ));
        }
        let (key, closed) = self.string()?;
        self.ws();
        if !closed || self.at_end() {
            return Ok(None);
        }
        if self.s[self.i] != b':' {
            return Err(format!("expected `:` after key {key:?} at byte {}", self.i));
        }
        self.i += 1;
        Ok(self.value(depth + 1)?.map(|value| (key, value)))
    }

    /// Whether the array or object closed by `close` ends here: the text
    /// ran out (a cut-off container is complete as far as it goes), or
    /// `close` is next, and consumed.
    fn ends(&mut self, close: u8) -> bool {
        match self.s.get(self.i) {
            None => true,
            Some(&c) if c == close => {
                self.i += 1;
                true
            }
            Some(_) => false,
        }
    }

    /// After an item of the container closed by `close`: whether the
    /// container ends here (see [`Partial::ends`]), or a `,` (consumed)
    /// leads to another item.
    fn after_item(&mut self, close: u8) -> Result<bool, String> {
        self.ws();
        if self.ends(close) {
            return Ok(true);
        }
        if self.s[self.i] != b',' {
            return Err(format!(
                "expected `,` or `{}`, found `{}` at byte {}",
                close as char, self.s[self.i] as char, self.i
            ));
        }
        self.i += 1;
        Ok(false)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn p(s: &str) -> Option<Value> {
        parse_partial(s).unwrap()
    }

    #[test]
    fn completes_cut_off_json() {
        assert_eq!(p(""), None);
        assert_eq!(p("{"), Some(json!({})));
        assert_eq!(p(r#"{"location": "Par"#), Some(json!({"location": "Par"})));
        assert_eq!(p(r#"{"location""#), Some(json!({})));
        assert_eq!(p(r#"{"location": "#), Some(json!({})));
        assert_eq!(
            p(r#"{"a": [1, 2, {"b": tr"#),
            Some(json!({"a": [1, 2, {}]}))
        );
        assert_eq!(p(r#"{"a": 1."#), Some(json!({"a": 1})));
        assert_eq!(p(r#"{"a": -"#), Some(json!({})));
        assert_eq!(p(r#"{"a": "x\"#), Some(json!({"a": "x"})));
        assert_eq!(p(r#"{"a": "\u00"#), Some(json!({"a": ""})));
        assert_eq!(p(r#"{"a": "\u00e9\ud83d"#), Some(json!({"a": "é"})));
    }

    #[test]
    fn complete_json_parses_exactly() {
        let text = r#"{"a": [1, -2.5e3, true, false, null, "\ud83d\ude00\n"], "b": {}}"#;
        assert_eq!(p(text), Some(serde_json::from_str::<Value>(text).unwrap()));
    }

    #[test]
    fn impossible_json_is_an_error() {
        for bad in [
            r#"{"a" 1}"#,
            "]",
            "{1: 2}",
            r#"{"a": 1} x"#,
            "[1 2]",
            r#""\q""#,
        ] {
            assert!(parse_partial(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn deep_nesting_is_an_error_not_a_stack_overflow() {
        let deep = "[".repeat(100_000);
        assert!(parse_partial(&deep).is_err());
    }

    #[test]
    fn every_prefix_of_valid_json_parses() {
        let text = r#"{"name": "get_weather", "args": {"city": "Zürich", "days": [1, 2.5], "ok": true, "n": null}}"#;
        let full: Value = serde_json::from_str(text).unwrap();
        for (i, _) in text.char_indices() {
            assert!(
                parse_partial(&text[..i]).is_ok(),
                "prefix {i}: {}",
                &text[..i]
            );
        }
        assert_eq!(p(text), Some(full));
    }
}
