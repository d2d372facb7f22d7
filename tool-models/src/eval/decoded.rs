//! What BFCL's decoder makes of an answer: the calls as `{name: {args}}`,
//! or why there are none, read from a parsed answer or an engine's calls.

use serde::Serialize;
use serde_json::{Map, Value};
use tool_runtime::ToolCall;

use crate::parse::ParsedResponse;

/// What BFCL's decoder makes of an answer: the calls, each
/// `{name: arguments}`, or why there are none.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Decoded {
    /// The calls, in the order written; each item is `{name: {args}}`.
    Calls(Vec<Value>),
    /// The answer holds no readable call: text, or a call whose arguments
    /// are not JSON.
    Failed(String),
}

impl Decoded {
    /// The decoded form of a parsed answer, as BFCL's tool-API decoder
    /// reads the same answer: no call means text; arguments that are not
    /// JSON fail the decoding. A call the parser refused only for naming a
    /// tool that was not offered still counts as a call, as it does for
    /// BFCL.
    pub fn from_parsed(parsed: &ParsedResponse) -> Decoded {
        let mut calls = match Decoded::from_calls(&parsed.tool_calls) {
            Decoded::Calls(calls) => calls,
            failed => return failed,
        };
        for bad in &parsed.invalid_tool_calls {
            let readable = bad.name.as_ref().and_then(|name| {
                let args: Value = serde_json::from_str(bad.raw_arguments.as_deref()?).ok()?;
                Some(call(name, args))
            });
            match readable {
                Some(c) => calls.push(c),
                None => return Decoded::Failed(format!("unreadable call: {}", bad.error)),
            }
        }
        if calls.is_empty() {
            return Decoded::Failed(match &parsed.content {
                Some(text) => format!("no call, only text: {}", snippet(text)),
                None => "no call and no text".to_owned(),
            });
        }
        Decoded::Calls(calls)
    }

    /// The decoded form of calls an engine returned.
    pub fn from_calls(calls: &[ToolCall]) -> Decoded {
        let mut decoded = Vec::with_capacity(calls.len());
        for c in calls {
            // A tool API hands arguments over as a JSON string; ours kept
            // it a string only where it was not JSON, which BFCL cannot decode.
            if let Value::String(raw) = &c.arguments {
                return Decoded::Failed(format!(
                    "the arguments of `{}` are not JSON: {}",
                    c.name,
                    snippet(raw)
                ));
            }
            decoded.push(call(&c.name, c.arguments.clone()));
        }
        Decoded::Calls(decoded)
    }

    /// The calls, if decoding succeeded.
    pub fn calls(&self) -> Option<&[Value]> {
        match self {
            Decoded::Calls(calls) => Some(calls),
            Decoded::Failed(_) => None,
        }
    }
}

fn call(name: &str, arguments: Value) -> Value {
    let mut item = Map::new();
    item.insert(name.to_owned(), arguments);
    Value::Object(item)
}

fn snippet(text: &str) -> String {
    let text = text.trim();
    match text.char_indices().nth(120) {
        Some((cut, _)) => format!("{}…", &text[..cut]),
        None => text.to_owned(),
    }
}
