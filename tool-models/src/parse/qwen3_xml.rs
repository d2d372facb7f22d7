//! Qwen3-Coder XML (also Nemotron 3, StepFun 3.5, Qwen 3.5):
//! `<tool_call><function=name><parameter=key>value</parameter></function></tool_call>`,
//! the opening `<tool_call>` sometimes left out. Values are raw text, typed
//! by the tool's JSON schema.
//!
//! A value may itself contain `</parameter>` or `<parameter=…>` (code that
//! writes tool calls). `</parameter>` only ends a value when what follows is
//! another parameter this call can still take, `</function>`, or the end; an
//! unclosed value ends at `<parameter=k>` only for a schema key not yet seen.

use super::json::python_literal;
use super::stream::{find_any, optional_closer, skip_ws, starts, Emitter, Find, Machine, Text};
use super::ParseOptions;
use serde_json::{Map, Value};
use std::collections::HashMap;

const TOOL_CALL: &str = "<tool_call>";
const FUNCTION: &str = "<function=";
const PARAM: &str = "<parameter=";
const PARAM_END: &str = "</parameter>";
const FUNCTION_END: &str = "</function>";
const TOOL_CALL_END: &str = "</tool_call>";

enum State {
    Content,
    /// At `<tool_call>`: does a function follow?
    Wrapper,
    /// At `<function=`.
    Header,
    Params,
    Value {
        key: String,
        scanned: usize,
    },
    /// An unreadable block, skipped to its end.
    Skip {
        name: String,
        scanned: usize,
    },
    After,
}

struct Qwen3Xml {
    state: State,
    /// Tool name → its parameters' properties.
    schemas: HashMap<String, Map<String, Value>>,
    name: String,
    args: Map<String, Value>,
}

pub(crate) fn machine(options: &ParseOptions) -> Box<dyn Machine> {
    let mut schemas = HashMap::new();
    for t in &options.tools {
        let f = t.get("function").unwrap_or(t);
        if let Some(name) = f.get("name").and_then(Value::as_str) {
            let props = f
                .pointer("/parameters/properties")
                .and_then(Value::as_object)
                .cloned()
                .unwrap_or_default();
            schemas.insert(name.to_owned(), props);
        }
    }
    Box::new(Qwen3Xml {
        state: State::Content,
        schemas,
        name: String::new(),
        args: Map::new(),
    })
}

fn valid_name(name: &str) -> bool {
    !name.is_empty()
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.' | b':'))
}

/// The first non-null type a property schema allows.
fn schema_type(s: &Value) -> Option<&str> {
    match s.get("type") {
        Some(Value::String(t)) => return Some(t),
        Some(Value::Array(ts)) => {
            return ts.iter().filter_map(Value::as_str).find(|&t| t != "null");
        }
        _ => {}
    }
    for k in ["anyOf", "oneOf"] {
        if let Some(Value::Array(alts)) = s.get(k) {
            if let Some(t) = alts.iter().filter_map(schema_type).find(|&t| t != "null") {
                return Some(t);
            }
        }
    }
    None
}

fn structured(raw: &str) -> Option<Value> {
    let v = serde_json::from_str::<Value>(raw)
        .ok()
        .or_else(|| python_literal(raw).ok())?;
    match v {
        // A JSON string holding the value (double-encoded by the model).
        Value::String(inner) => serde_json::from_str::<Value>(&inner)
            .ok()
            .or_else(|| python_literal(&inner).ok())
            .filter(|v| v.is_object() || v.is_array()),
        v => Some(v),
    }
}

/// Types a raw value by its property schema; without one it stays text.
pub(crate) fn convert(raw: &str, schema: Option<&Value>) -> Value {
    let Some(t) = schema.and_then(schema_type) else {
        return Value::String(raw.to_owned());
    };
    let t = t.to_ascii_lowercase();
    if t != "string" && matches!(raw.trim(), "null" | "None") {
        return Value::Null;
    }
    let trimmed = raw.trim();
    let typed = match t.as_str() {
        "string" | "str" | "text" => None,
        "integer" | "int" => trimmed
            .parse::<i64>()
            .ok()
            .map(Value::from)
            .or_else(|| number(trimmed)),
        "number" | "float" | "double" => number(trimmed),
        "boolean" | "bool" => match trimmed.to_ascii_lowercase().as_str() {
            "true" => Some(Value::Bool(true)),
            "false" => Some(Value::Bool(false)),
            _ => None,
        },
        "object" | "array" | "dict" | "list" => structured(trimmed),
        _ => serde_json::from_str(trimmed).ok(),
    };
    typed.unwrap_or_else(|| Value::String(raw.to_owned()))
}

fn number(s: &str) -> Option<Value> {
    match serde_json::from_str::<Value>(s) {
        Ok(v @ Value::Number(_)) => Some(v),
        _ => None,
    }
}

/// Strips the one newline the format puts on each side of a value.
fn unwrap_value(v: &str) -> &str {
    let v = v
        .strip_prefix("\r\n")
        .or_else(|| v.strip_prefix('\n'))
        .unwrap_or(v);
    v.strip_suffix("\r\n")
        .or_else(|| v.strip_suffix('\n'))
        .unwrap_or(v)
}

enum Lookahead {
    Ends,
    Continues,
    Undecided,
}

impl Qwen3Xml {
    /// Can a parameter named `key` start now?
    fn can_take(&self, key: &str) -> bool {
        if self.args.contains_key(key) {
            return false;
        }
        match self.schemas.get(&self.name) {
            Some(props) if !props.is_empty() => props.contains_key(key),
            _ => true,
        }
    }

    /// After a `</parameter>`: does the value end there?
    fn closes(&self, after: &str, end: bool) -> Lookahead {
        let Some(ws) = skip_ws(after) else {
            return if end {
                Lookahead::Ends
            } else {
                Lookahead::Undecided
            };
        };
        let t = &after[ws..];
        match starts(t, FUNCTION_END) {
            Some(true) => return Lookahead::Ends,
            None if !end => return Lookahead::Undecided,
            _ => {}
        }
        match starts(t, PARAM) {
            Some(true) => match t[PARAM.len()..].find('>') {
                Some(p) => {
                    if self.can_take(&t[PARAM.len()..PARAM.len() + p]) {
                        Lookahead::Ends
                    } else {
                        Lookahead::Continues
                    }
                }
                None if !end && !t.contains('\n') => Lookahead::Undecided,
                None => Lookahead::Continues,
            },
            None if !end => Lookahead::Undecided,
            _ => Lookahead::Continues,
        }
    }

    fn finish_call(&mut self, em: &mut Emitter) {
        let name = std::mem::take(&mut self.name);
        let args = std::mem::take(&mut self.args);
        em.call(None, name, Value::Object(args));
    }

    fn set_value(&mut self, key: String, raw: &str) {
        let schema = self.schemas.get(&self.name).and_then(|p| p.get(&key));
        let v = convert(unwrap_value(raw), schema);
        self.args.insert(key, v);
    }

    fn advance_value(&mut self, text: &mut Text, em: &mut Emitter, end: bool) -> bool {
        let State::Value { key, scanned } = &self.state else {
            return false;
        };
        let (key_name, start_from) = (key.clone(), *scanned);
        let rest = text.rest();
        let mut from = start_from;
        loop {
            match find_any(rest, from, &[PARAM_END, PARAM]) {
                Find::At { at, which: 0 } => {
                    match self.closes(&rest[at + PARAM_END.len()..], end) {
                        Lookahead::Ends => {
                            let raw = rest[..at].to_owned();
                            text.consume(at + PARAM_END.len());
                            self.set_value(key_name, &raw);
                            self.state = State::Params;
                            return true;
                        }
                        Lookahead::Continues => from = at + 1,
                        Lookahead::Undecided => {
                            self.state = State::Value {
                                key: key_name,
                                scanned: at,
                            };
                            return false;
                        }
                    }
                }
                Find::At { at, .. } => {
                    let t = &rest[at + PARAM.len()..];
                    match t.find('>') {
                        Some(p) if self.can_take(&t[..p]) => {
                            let raw = rest[..at].to_owned();
                            text.consume(at);
                            self.set_value(key_name, &raw);
                            self.state = State::Params;
                            return true;
                        }
                        None if !end && !t.contains('\n') => {
                            self.state = State::Value {
                                key: key_name,
                                scanned: at,
                            };
                            return false;
                        }
                        _ => from = at + 1,
                    }
                }
                Find::Partial { safe } => {
                    if end {
                        let raw = rest.to_owned();
                        text.consume(raw.len());
                        self.set_value(key_name, raw.trim_end());
                        self.finish_call(em);
                        self.state = State::Content;
                        return true;
                    }
                    self.state = State::Value {
                        key: key_name,
                        scanned: safe,
                    };
                    return false;
                }
            }
        }
    }
}

impl Machine for Qwen3Xml {
    fn advance(&mut self, text: &mut Text, em: &mut Emitter, end: bool) -> bool {
        let rest = text.rest();
        if rest.is_empty() {
            if end {
                match std::mem::replace(&mut self.state, State::Content) {
                    State::Params | State::Value { .. } => self.finish_call(em),
                    State::Skip { name, .. } => {
                        em.invalid(None, None, &name, "invalid function name")
                    }
                    _ => {}
                }
            }
            return false;
        }
        match &mut self.state {
            State::Content => match find_any(rest, 0, &[TOOL_CALL, FUNCTION]) {
                Find::At { at, which } => {
                    em.content(&rest[..at]);
                    text.consume(at);
                    self.state = if which == 0 {
                        State::Wrapper
                    } else {
                        State::Header
                    };
                    true
                }
                Find::Partial { safe } => {
                    let n = if end { rest.len() } else { safe };
                    em.content(&rest[..n]);
                    text.consume(n);
                    false
                }
            },
            State::Wrapper => {
                let after = &rest[TOOL_CALL.len()..];
                let decided = match skip_ws(after) {
                    Some(ws) => starts(&after[ws..], FUNCTION).map(|f| (f, ws)),
                    None => None,
                };
                match decided {
                    Some((true, ws)) => {
                        text.consume(TOOL_CALL.len() + ws);
                        self.state = State::Header;
                    }
                    None if !end => return false,
                    _ => {
                        // `<tool_call>` with no function: narrative text.
                        em.content(TOOL_CALL);
                        text.consume(TOOL_CALL.len());
                        self.state = State::Content;
                    }
                }
                true
            }
            State::Header => {
                let after = &rest[FUNCTION.len()..];
                let Some(p) = after.find(['>', '\n']) else {
                    if end {
                        em.invalid(None, None, after, "unterminated function name");
                        text.consume(rest.len());
                        self.state = State::Content;
                        return true;
                    }
                    return false;
                };
                let name = after[..p].trim().to_owned();
                if after.as_bytes()[p] == b'>' && valid_name(&name) {
                    text.consume(FUNCTION.len() + p + 1);
                    self.name = name;
                    self.args = Map::new();
                    self.state = State::Params;
                } else {
                    text.consume(FUNCTION.len() + p);
                    self.state = State::Skip { name, scanned: 0 };
                }
                true
            }
            State::Skip { name, scanned } => {
                match find_any(rest, *scanned, &[TOOL_CALL_END, FUNCTION_END]) {
                    Find::At { at, which } => {
                        let n = at
                            + if which == 0 {
                                TOOL_CALL_END.len()
                            } else {
                                FUNCTION_END.len()
                            };
                        em.invalid(
                            None,
                            None,
                            &format!("{FUNCTION}{name}{}", &rest[..n]),
                            format!("invalid function name `{name}`"),
                        );
                        text.consume(n);
                        self.state = if which == 0 {
                            State::Content
                        } else {
                            State::After
                        };
                        true
                    }
                    Find::Partial { safe } => {
                        *scanned = safe;
                        if end {
                            em.invalid(None, None, rest, format!("invalid function name `{name}`"));
                            text.consume(rest.len());
                            self.state = State::Content;
                            return true;
                        }
                        false
                    }
                }
            }
            State::Params => {
                let Some(ws) = skip_ws(rest) else {
                    if end {
                        text.consume(rest.len());
                    }
                    return end;
                };
                let t = &rest[ws..];
                if let Some(true) = starts(t, FUNCTION_END) {
                    text.consume(ws + FUNCTION_END.len());
                    self.finish_call(em);
                    self.state = State::After;
                    return true;
                }
                if let Some(true) = starts(t, PARAM) {
                    let Some(p) = t[PARAM.len()..].find('>') else {
                        if end {
                            text.consume(rest.len());
                            return true;
                        }
                        return false;
                    };
                    let key = t[PARAM.len()..PARAM.len() + p].trim().to_owned();
                    text.consume(ws + PARAM.len() + p + 1);
                    self.state = State::Value { key, scanned: 0 };
                    return true;
                }
                let undecided = starts(t, FUNCTION_END).is_none() || starts(t, PARAM).is_none();
                if undecided && !end {
                    return false;
                }
                // Stray text between parameters: skip to the next tag.
                let skip = t
                    .char_indices()
                    .skip(1)
                    .find(|&(_, c)| c == '<')
                    .map_or(t.len(), |(p, _)| p);
                text.consume(ws + skip);
                true
            }
            State::Value { .. } => self.advance_value(text, em, end),
            State::After => match optional_closer(rest, TOOL_CALL_END, end) {
                Some(n) => {
                    text.consume(n);
                    self.state = State::Content;
                    true
                }
                None => false,
            },
        }
    }

    fn finish(&mut self, text: &mut Text, em: &mut Emitter) {
        while self.advance(text, em, true) {}
        self.advance(text, em, true);
    }
}
