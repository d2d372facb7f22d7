//! FunctionGemma: `<start_function_call>call:name{key:<escape>text<escape>,
//! n:10}<end_function_call>`. Escaped values are typed by the tool's schema
//! when the tools are known (as the XML families' are); otherwise they are
//! strings unless they read as a JSON number or boolean. The comma between
//! entries is optional.

use super::jsonblock::{Block, End, Spec};
use super::schema::{typed_value, Tools};
use super::stream::{Emitter, Machine};
use serde_json::{Map, Value};

const ESC: &str = "<escape>";

fn scalar(raw: &str) -> Value {
    match serde_json::from_str::<Value>(raw.trim()) {
        Ok(v @ (Value::Number(_) | Value::Bool(_))) => v,
        _ => Value::String(raw.to_owned()),
    }
}

fn parse_args(tools: &Tools, name: &str, body: &str) -> Result<Map<String, Value>, String> {
    let mut args = Map::new();
    let mut s = body.trim();
    while !s.is_empty() {
        s = s.trim_start_matches(|c: char| c == ',' || c.is_whitespace());
        if s.is_empty() {
            break;
        }
        let colon = s
            .find(':')
            .ok_or_else(|| format!("expected `key:` in `{s}`"))?;
        let key = s[..colon].trim().to_owned();
        s = &s[colon + 1..];
        if let Some(after) = s.strip_prefix(ESC) {
            let close = after.find(ESC).ok_or("unterminated <escape> value")?;
            let raw = &after[..close];
            let v = match tools.property(name, &key) {
                Some(schema) => typed_value(raw, Some(schema)),
                None => scalar(raw),
            };
            args.insert(key, v);
            s = &after[close + ESC.len()..];
        } else {
            let e = s.find(',').unwrap_or(s.len());
            let raw = s[..e].trim();
            let v = serde_json::from_str(raw).unwrap_or_else(|_| Value::String(raw.to_owned()));
            args.insert(key, v);
            s = &s[e..];
        }
    }
    Ok(args)
}

fn handler(body: &str, _complete: bool, em: &mut Emitter) -> bool {
    let b = body.trim();
    let b = b.strip_prefix("call:").unwrap_or(b);
    let Some(open) = b.find('{') else {
        em.invalid(None, None, body, "expected `name{…}`");
        return true;
    };
    let name = b[..open].trim().to_owned();
    let inner = b[open + 1..].trim_end();
    let Some(inner) = inner.strip_suffix('}') else {
        em.invalid(None, Some(name), body, "the call was cut off");
        return true;
    };
    match parse_args(em.tools(), &name, inner) {
        Ok(args) if !name.is_empty() => em.call(None, name, Value::Object(args)),
        Ok(_) => em.invalid(None, None, body, "the call has no name"),
        Err(e) => em.invalid(None, Some(name), body, e),
    }
    true
}

pub(crate) fn machine() -> Box<dyn Machine> {
    Block::boxed(Spec {
        starts: &["<start_function_call>"],
        brackets: &[],
        end: End::Marker("<end_function_call>"),
        after: &[],
        handler,
    })
}
