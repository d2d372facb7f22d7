//! The Lark grammar of a whole tool-using output, per format and choice.
//!
//! One grammar covers the output from its first token to end of sequence —
//! text, the call marker, the call's JSON, the closing marker, more text —
//! rather than a free-text phase that hands over to a JSON matcher when the
//! marker shows up. One matcher is simpler to get right: the marker may be one
//! special token or several text tokens (then it is a lexeme the Earley
//! lexer recognises across token boundaries), and the grammar alone decides
//! what may come after a call. The cost is a mask over free text too, which
//! keeps special tokens and the marker's spelling out of it (the parser would
//! otherwise read text that spells `<tool_call>` as a call).
//!
//! Shapes (`OPEN`/`CLOSE` are the markers; `BODY` the JSON of one call, or of
//! a list of calls):
//! - hermes, nemotron_v2 (a list): `TEXT (OPEN WS? BODY WS? CLOSE TEXT)*`;
//! - mistral, granite, phi4_mini (lists), granite_20b_fc: `TEXT (OPEN WS? BODY TEXT)*`;
//! - llama3_json: `TEXT | PYTAG? BODY (";" WS? BODY)*`, where `TEXT` holds no
//!   `{"` (the parser takes any `{"` as the start of a call).
//!
//! A marker that is a plain string cannot follow a greedy `TEXT` lexeme (the
//! lexer would not stop `TEXT` before it), so the text before a textual marker
//! is one lazy lexeme ending with the marker, and the last text is a lexeme
//! that cannot contain it.

use super::narrow::bound_any_at_root;
use super::schema::{layout, ToolDef};
use super::TokenEnv;
use crate::parse::Format;
use serde_json::{json, Map, Value};
use tool_runtime::ToolChoice;

/// Whitespace allowed around a call's JSON and between calls.
const WS: &str = r"/[ \t\r\n]{1,2}/";
/// Any text (the lexer never matches special tokens with a regex).
const ANY: &str = r"/(?s:.*)/";

/// What a format writes around calls.
pub(crate) struct Shape {
    /// The call marker.
    open: &'static str,
    /// Whether the open marker is required before a call.
    open_required: bool,
    /// The end marker, if any.
    pub(crate) close: Option<&'static str>,
    /// The key holding the arguments.
    pub(crate) args_key: &'static str,
    /// Whether one marker opens a JSON list of calls.
    list: bool,
    /// Text between bare calls (llama3 `;`).
    separator: Option<&'static str>,
    /// Text that free text may not contain, besides the markers.
    forbidden: &'static [&'static str],
}

/// The shape of `format`'s calls, if it has a grammar here.
pub(crate) fn shape(format: Format) -> Option<Shape> {
    match format {
        Format::Hermes => Some(Shape {
            open: "<tool_call>",
            open_required: true,
            close: Some("</tool_call>"),
            args_key: "arguments",
            list: false,
            separator: None,
            forbidden: &[],
        }),
        Format::Mistral => Some(Shape {
            open: "[TOOL_CALLS]",
            open_required: true,
            close: None,
            args_key: "arguments",
            list: true,
            separator: None,
            forbidden: &[],
        }),
        Format::NemotronV2 => Some(Shape {
            open: "<TOOLCALL>",
            open_required: true,
            close: Some("</TOOLCALL>"),
            args_key: "arguments",
            list: true,
            separator: None,
            forbidden: &[],
        }),
        Format::Granite => Some(Shape {
            open: "<|tool_call|>",
            open_required: true,
            close: None,
            args_key: "arguments",
            list: true,
            separator: None,
            forbidden: &[],
        }),
        Format::Phi4Mini => Some(Shape {
            open: "functools",
            open_required: true,
            close: None,
            args_key: "arguments",
            list: true,
            separator: None,
            forbidden: &[],
        }),
        Format::Granite20bFc => Some(Shape {
            open: "<function_call>",
            open_required: true,
            close: None,
            args_key: "arguments",
            list: false,
            separator: None,
            forbidden: &[],
        }),
        Format::Llama3Json => Some(Shape {
            open: "<|python_tag|>",
            open_required: false,
            close: None,
            args_key: "parameters",
            list: false,
            separator: Some(";"),
            forbidden: &["{\""],
        }),
        _ => None,
    }
}

/// A marker in the grammar: one special token, or text.
fn marker(env: &TokenEnv, text: &str) -> (String, bool) {
    match env.special_token(text) {
        Some(id) => (format!("<[{id}]>"), true),
        None => (lark_string(text), false),
    }
}

fn lark_string(s: &str) -> String {
    // Lark strings use JSON's syntax.
    Value::String(s.to_owned()).to_string()
}

/// The grammar for `tools` (already narrowed to the named tool for
/// `Named`) under `choice`.
pub(crate) fn lark(
    env: &TokenEnv,
    shape: &Shape,
    tools: &[ToolDef],
    choice: &ToolChoice,
) -> String {
    let (open, open_special) = marker(env, shape.open);
    let close = shape.close.map(|c| marker(env, c).0);
    let mut forbidden: Vec<&str> = shape.forbidden.to_vec();
    forbidden.push(shape.open);
    let text = free_text(&forbidden);
    let body = body(tools, shape, matches!(choice, ToolChoice::Named(_)));
    // llama3's marker is optional: without a special token for it, calls
    // are bare JSON.
    let open = match (shape.open_required, open_special) {
        (true, _) => open,
        (false, true) => format!("{open}?"),
        (false, false) => String::new(),
    };
    let call_tail = match &close {
        Some(c) => format!("body WS? {c}"),
        None => "body".to_owned(),
    };
    let calls = match shape.separator {
        Some(sep) => format!("body ({} WS? body)*", lark_string(sep)),
        None => call_tail.clone(),
    };
    let mut g = String::new();
    match choice {
        _ if tools.is_empty() => g.push_str("start: TEXT\n"),
        ToolChoice::None => g.push_str("start: TEXT\n"),
        ToolChoice::Auto if !shape.open_required => {
            g.push_str(&format!("start: TEXT | {open} {calls}\n"));
        }
        ToolChoice::Auto if open_special => {
            g.push_str(&format!(
                "start: TEXT (call TEXT)*\ncall: {open} WS? {call_tail}\n"
            ));
        }
        ToolChoice::Auto => {
            // The text before a textual marker ends at its first occurrence.
            g.push_str(&format!(
                "start: call* TEXT\ncall: head WS? {call_tail}\nhead[lazy]: HEAD\nHEAD: {ANY} {open}\n"
            ));
        }
        ToolChoice::Required if shape.list || !shape.open_required => {
            g.push_str(&format!("start: {open} WS? {calls}\n"));
        }
        ToolChoice::Required => {
            g.push_str(&format!(
                "start: WS? call (WS? call)* WS?\ncall: {open} WS? {call_tail}\n"
            ));
        }
        ToolChoice::Named(_) if !shape.open_required => {
            g.push_str(&format!("start: {open} body\n"));
        }
        ToolChoice::Named(_) => g.push_str(&format!("start: WS? {open} WS? {call_tail} WS?\n")),
    }
    g.push_str(&format!("TEXT: {text}\nWS: {WS}\nbody: %json {body}\n"));
    g
}

/// A terminal for text that contains none of `forbidden`.
fn free_text(forbidden: &[&str]) -> String {
    let mut t = ANY.to_owned();
    for f in forbidden {
        t.push_str(&format!(" & ~({ANY} {} {ANY})", lark_string(f)));
    }
    t
}

/// The JSON schema of one call (or of a list of calls).
fn body(tools: &[ToolDef], shape: &Shape, single: bool) -> Value {
    let mut defs = Map::new();
    let call = super::schema::call_schema(tools, shape.args_key, &mut defs);
    let mut schema = if shape.list {
        let mut list = json!({"type": "array", "items": call, "minItems": 1});
        if single {
            list["maxItems"] = 1.into();
        }
        list
    } else {
        call
    };
    if let Some(obj) = schema.as_object_mut() {
        if !defs.is_empty() {
            obj.insert("$defs".into(), Value::Object(defs));
        }
    }
    bound_any_at_root(&mut schema, shape.close);
    if let Some(obj) = schema.as_object_mut() {
        obj.insert("x-guidance".into(), layout());
    }
    schema
}
