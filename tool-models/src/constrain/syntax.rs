//! How each format writes its calls, as the grammar needs it: the markers
//! around a block of calls, and one call to one tool in Lark.
//!
//! The layout inside a call follows the format's chat template (where
//! the template and the model's own habit differ, as in gpt-oss, the
//! model's), so a model is steered the way it was trained; the parser
//! reads every layout written here (the tests parse what a random model
//! writes under each grammar).

pub(crate) use super::lark::{json, lit, text_without, textual, Lark, ANY};
use super::schema::call_schema;
pub(crate) use super::schema::ToolDef;
use super::values::RawEnd;
pub(crate) use super::values::{python_value, raw_value};
pub(crate) use super::ConstrainError;
use serde_json::{json, Map, Value};

/// Whitespace allowed around calls and between them.
pub(crate) const WS: &str = r"/[ \t\r\n]{1,2}/";

/// What a format writes around and inside a block of calls.
pub(crate) struct Syntax {
    /// Markers that open a block, in order (InternLM2 writes two).
    pub(crate) open: &'static [&'static str],
    /// Whether a block may be written without `open` (then the whole
    /// output is either text or calls, as the parser decides from its
    /// first characters).
    pub(crate) bare: bool,
    /// Whitespace may follow the open marker.
    pub(crate) ws_after_open: bool,
    /// The marker that closes a block.
    pub(crate) close: Option<&'static str>,
    /// How calls are written inside a block.
    pub(crate) calls: Calls,
    /// Lark lexemes free text may not contain besides the markers: where
    /// the parser would start reading a call.
    pub(crate) text_forbidden: Vec<String>,
    /// Texts no string inside a call may contain: where the parser, which
    /// searches for them, would end the call or the value.
    pub(crate) value_forbidden: Vec<&'static str>,
}

/// How the calls inside one block are written.
pub(crate) enum Calls {
    /// JSON: one call object per block, or a list of them.
    Json {
        /// Keys of a call object: the name's, the arguments', and an id's
        /// (Command R7B numbers its calls).
        keys: Keys,
        list: bool,
        /// In a ```` ```json ```` fence (Command R+).
        fence: bool,
        /// Calls separated by this text after one optional marker (llama3 `;`).
        separator: Option<&'static str>,
    },
    /// One Lark rule per tool, `call(lark, name, tool)`; several calls to a
    /// block when `several`.
    PerTool {
        call: CallFn,
        several: bool,
        /// A list around the calls: its opening, separator and closing
        /// (pythonic); otherwise calls follow each other.
        brackets: Option<(&'static str, &'static str, &'static str)>,
    },
}

/// Writes one call to `tool` in Lark.
pub(crate) type CallFn = fn(&mut Lark, &ToolDef, &[&'static str]) -> CallRule;

/// One call's grammar rule, or why it cannot be written.
pub(crate) type CallRule = Result<String, ConstrainError>;

/// The id a JSON call object carries.
#[derive(Clone, Copy)]
pub(crate) enum Id {
    None,
    /// A counter first (Command R7B's `"tool_call_id": "0"`).
    Counter(&'static str),
    /// Optionally, after the arguments, nine letters and digits (Mistral's
    /// `"id"`).
    Trailing(&'static str),
}

/// The keys of a JSON call object.
#[derive(Clone, Copy)]
pub(crate) enum Keys {
    /// `{name: "f", args: {…}}`, and an id.
    Named {
        name: &'static str,
        args: &'static str,
        id: Id,
    },
    /// `{"f": {…}}` (Apertus).
    NameIsKey,
}

impl Syntax {
    /// Calls written as `calls` between `open` and `close`, which no value
    /// may contain.
    fn new(open: &'static [&'static str], close: Option<&'static str>, calls: Calls) -> Syntax {
        Syntax {
            open,
            bare: false,
            ws_after_open: true,
            close,
            calls,
            text_forbidden: Vec::new(),
            value_forbidden: close.into_iter().collect(),
        }
    }

    /// `{"name", "arguments"}` objects, one to a block or a `list`.
    pub(crate) fn json(
        open: &'static [&'static str],
        close: Option<&'static str>,
        list: bool,
    ) -> Syntax {
        let keys = named("name", "arguments");
        let calls = Calls::Json {
            keys,
            list,
            fence: false,
            separator: None,
        };
        Syntax::new(open, close, calls)
    }

    /// One rule per tool, written by `call`.
    pub(crate) fn per_tool(
        open: &'static [&'static str],
        close: Option<&'static str>,
        call: CallFn,
        several: bool,
    ) -> Syntax {
        Syntax::new(open, close, per_tool_calls(call, several, None))
    }

    /// Whether one block holds every call of a turn.
    pub(crate) fn one_block(&self) -> bool {
        match &self.calls {
            Calls::Json {
                list, separator, ..
            } => *list || separator.is_some(),
            Calls::PerTool { several, .. } => *several,
        }
    }
}

/// Keys `name` and `args`, no id.
pub(crate) fn named(name: &'static str, args: &'static str) -> Keys {
    Keys::Named {
        name,
        args,
        id: Id::None,
    }
}

pub(crate) fn per_tool_calls(
    call: CallFn,
    several: bool,
    brackets: Option<(&'static str, &'static str, &'static str)>,
) -> Calls {
    Calls::PerTool {
        call,
        several,
        brackets,
    }
}

pub(crate) fn xml(
    open: &'static [&'static str],
    close: &'static str,
    call: CallFn,
    value_forbidden: &[&'static str],
) -> Syntax {
    let mut s = Syntax::per_tool(open, Some(close), call, false);
    s.value_forbidden = value_forbidden.to_vec();
    s.value_forbidden.push(close);
    s
}

/// A tool's parameters as inline JSON, strings kept free of `forbidden`.
pub(crate) fn args_json(tool: &ToolDef, forbidden: &[&str]) -> String {
    let mut params = tool.params.clone();
    for f in forbidden {
        super::narrow::forbid_in_strings(&mut params, f);
    }
    json(params, forbidden.first().copied())
}

/// The JSON schema of one call in a block.
pub(crate) fn json_block(tools: &[ToolDef], keys: Keys) -> Value {
    let mut defs = Map::new();
    let call = match keys {
        Keys::Named { name, args, id } => {
            let mut c = call_schema(tools, args, &mut defs);
            rename_name_key(&mut c, name);
            add_id(&mut c, id);
            c
        }
        Keys::NameIsKey => name_is_key(tools, &mut defs),
    };
    let mut schema = call;
    if let Some(obj) = schema.as_object_mut() {
        if !defs.is_empty() {
            obj.insert("$defs".into(), Value::Object(defs));
        }
    }
    schema
}

/// Each branch of a call schema, for in-place edits.
fn each_branch(call: &mut Value, f: &mut dyn FnMut(&mut Map<String, Value>)) {
    if let Some(Value::Array(branches)) = call.get_mut("anyOf") {
        for b in branches {
            if let Some(o) = b.as_object_mut() {
                f(o);
            }
        }
    } else if let Some(o) = call.as_object_mut() {
        f(o);
    }
}

fn rename_name_key(call: &mut Value, key: &str) {
    if key == "name" {
        return;
    }
    each_branch(call, &mut |o| {
        let Some(Value::Object(props)) = o.get_mut("properties") else {
            return;
        };
        let old = std::mem::take(props);
        for (k, v) in old {
            props.insert(if k == "name" { key.to_owned() } else { k }, v);
        }
        if let Some(Value::Array(req)) = o.get_mut("required") {
            for r in req {
                if r == "name" {
                    *r = key.into();
                }
            }
        }
    });
}

fn add_id(call: &mut Value, id: Id) {
    let (key, first) = match id {
        Id::None => return,
        Id::Counter(key) => (key, true),
        Id::Trailing(key) => (key, false),
    };
    each_branch(call, &mut |o| {
        let Some(Value::Object(props)) = o.get_mut("properties") else {
            return;
        };
        if first {
            let old = std::mem::take(props);
            props.insert(
                key.to_owned(),
                json!({"type": "string", "pattern": "^[0-9]{1,3}$"}),
            );
            props.extend(old);
            if let Some(Value::Array(req)) = o.get_mut("required") {
                req.insert(0, key.into());
            }
        } else {
            props.insert(
                key.to_owned(),
                json!({"type": "string", "pattern": "^[A-Za-z0-9]{9}$"}),
            );
        }
    });
}

/// `{"<name>": {…}}` for each tool.
fn name_is_key(tools: &[ToolDef], defs: &mut Map<String, Value>) -> Value {
    let mut c = call_schema(tools, "arguments", defs);
    each_branch(&mut c, &mut |o| {
        let Some(Value::Object(props)) = o.get("properties") else {
            return;
        };
        let name = props
            .get("name")
            .and_then(|n| n.get("const"))
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned();
        let args = props.get("arguments").cloned().unwrap_or(Value::Bool(true));
        o.insert("properties".into(), json!({ name.clone(): args }));
        o.insert("required".into(), json!([name]));
    });
    c
}

/// The parameters in schema order, required ones always and the others
/// optionally, each written by `arg(key, schema, defs)` and joined by
/// `sep`; a required key `key_ok` refuses is an error.
pub(crate) fn each_param(
    l: &mut Lark,
    t: &ToolDef,
    format: &str,
    key_ok: fn(&str) -> bool,
    sep: &str,
    mut arg: impl FnMut(&mut Lark, &str, &Value, Option<&Value>) -> String,
) -> Result<String, ConstrainError> {
    let props = t.params.get("properties").and_then(Value::as_object);
    let required: Vec<&str> = t
        .params
        .get("required")
        .and_then(Value::as_array)
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let defs = t
        .params
        .get("$defs")
        .or_else(|| t.params.get("definitions"));
    let mut keys: Vec<(&str, &Value)> = props
        .map(|p| p.iter().map(|(k, v)| (k.as_str(), v)).collect())
        .unwrap_or_default();
    for r in &required {
        if !keys.iter().any(|(k, _)| k == r) {
            keys.push((r, &Value::Bool(true)));
        }
    }
    // (rule, required) per argument that can be written.
    let mut args: Vec<(String, bool)> = Vec::new();
    for (key, schema) in keys {
        let req = required.contains(&key);
        if !key_ok(key) {
            if req {
                return Err(ConstrainError::Schema {
                    what: format!("tool `{}`'s parameters", t.name),
                    reason: format!("the key `{key}` cannot be written in the {format} format"),
                });
            }
            continue;
        }
        let body = arg(l, key, schema, defs);
        args.push((l.rule(false, &body), req));
    }
    if sep.is_empty() {
        let parts: Vec<String> = args
            .iter()
            .map(|(r, req)| if *req { r.clone() } else { format!("{r}?") })
            .collect();
        return Ok(format!("({})", parts.join(" ")));
    }
    // The first argument written has no separator before it: one
    // alternative per argument that can come first (up to the first
    // required one).
    let sep = lit(sep);
    let mut alts = Vec::new();
    for (k, (first, req)) in args.iter().enumerate() {
        let mut alt = first.clone();
        for (r, req_j) in &args[k + 1..] {
            alt.push_str(&if *req_j {
                format!(" {sep} {r}")
            } else {
                format!(" ({sep} {r})?")
            });
        }
        alts.push(alt);
        if *req {
            break;
        }
    }
    let all = format!("({})", alts.join(" | "));
    Ok(if args.iter().any(|(_, req)| *req) {
        all
    } else {
        format!("{all}?")
    })
}

pub(crate) fn xml_key_ok(k: &str) -> bool {
    !k.is_empty() && !k.contains(['<', '>', '"', '\n'])
}

pub(crate) fn raw_end<'a>(l: &Lark, close: &'a str, forbidden: &'a [&'a str]) -> RawEnd<'a> {
    RawEnd {
        close: l.mark(close),
        close_text: (!l.is_special(close)).then_some(close),
        forbidden,
    }
}
