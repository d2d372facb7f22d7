//! How each format writes its calls, as the grammar needs it: the markers
//! around a block of calls, and one call to one tool in Lark.
//!
//! The layout inside a call follows the format's chat template (where
//! the template and the model's own habit differ, as in gpt-oss, the
//! model's), so a model is steered the way it was trained; the parser
//! reads every layout written here (the tests parse what a random model
//! writes under each grammar).

use super::lark::{json, lit, Lark};
use super::schema::{call_schema, ToolDef};
use super::values::{python_value, raw_value, RawEnd};
use super::ConstrainError;
use crate::parse::Format;
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
pub(crate) type CallFn = fn(&mut Lark, &ToolDef, &[&'static str]) -> Result<String, ConstrainError>;

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
    fn json(open: &'static [&'static str], close: Option<&'static str>, list: bool) -> Syntax {
        Syntax {
            open,
            bare: false,
            ws_after_open: true,
            close,
            calls: Calls::Json {
                keys: Keys::Named {
                    name: "name",
                    args: "arguments",
                    id: Id::None,
                },
                list,
                fence: false,
                separator: None,
            },
            text_forbidden: Vec::new(),
            value_forbidden: close.into_iter().collect(),
        }
    }

    fn per_tool(
        open: &'static [&'static str],
        close: Option<&'static str>,
        call: CallFn,
        several: bool,
    ) -> Syntax {
        Syntax {
            open,
            bare: false,
            ws_after_open: true,
            close,
            calls: per_tool_calls(call, several, None),
            text_forbidden: Vec::new(),
            value_forbidden: close.into_iter().collect(),
        }
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

/// How `format` writes its calls, in the vocabulary `lark` is written for
/// (markers the vocabulary has as special tokens choose among the
/// versions of a format). `None` for the formats whose output is not a
/// text with blocks of calls in it (harmony, Functionary v3.2: see
/// `grammar`).
pub(crate) fn syntax(format: Format, lark: &Lark) -> Option<Syntax> {
    let named = |name, args| Keys::Named {
        name,
        args,
        id: Id::None,
    };
    Some(match format {
        Format::Hermes => Syntax::json(&["<tool_call>"], Some("</tool_call>"), false),
        Format::NemotronV2 => Syntax::json(&["<TOOLCALL>"], Some("</TOOLCALL>"), true),
        Format::Granite => Syntax::json(&["<|tool_call|>"], None, true),
        Format::Phi4Mini => Syntax::json(&["functools"], None, true),
        Format::Granite20bFc => Syntax::json(&["<function_call>"], None, false),
        Format::Internlm2 => {
            let mut s = Syntax::json(
                &["<|action_start|>", "<|plugin|>"],
                Some("<|action_end|>"),
                false,
            );
            s.calls = Calls::Json {
                keys: named("name", "parameters"),
                list: false,
                fence: false,
                separator: None,
            };
            s
        }
        Format::Apertus => {
            let mut s = Syntax::json(&["<|tools_prefix|>"], Some("<|tools_suffix|>"), true);
            s.calls = Calls::Json {
                keys: Keys::NameIsKey,
                list: true,
                fence: false,
                separator: None,
            };
            s
        }
        Format::Cohere if lark.is_special("<|START_ACTION|>") => {
            let mut s = Syntax::json(&["<|START_ACTION|>"], Some("<|END_ACTION|>"), true);
            s.calls = Calls::Json {
                keys: Keys::Named {
                    name: "tool_name",
                    args: "parameters",
                    id: Id::Counter("tool_call_id"),
                },
                list: true,
                fence: false,
                separator: None,
            };
            s.value_forbidden.clear();
            s
        }
        Format::Cohere => {
            let mut s = Syntax::json(&["Action:"], None, true);
            s.calls = Calls::Json {
                keys: named("tool_name", "parameters"),
                list: true,
                fence: true,
                separator: None,
            };
            s.text_forbidden.push(lit("<|START_ACTION|>"));
            s
        }
        Format::Xlam => {
            let mut s = Syntax::json(&[], None, true);
            s.bare = true;
            // The parser reads a list that an object opens, and the other
            // markers it knows.
            s.text_forbidden = vec![
                r"/\[[ \t\r\n]*\{/".to_owned(),
                lit("[TOOL_CALLS]"),
                lit("<tool_call>"),
                lit("```json"),
            ];
            s
        }
        Format::Llama3Json => Syntax {
            open: &["<|python_tag|>"],
            bare: true,
            ws_after_open: false,
            close: None,
            calls: Calls::Json {
                keys: named("name", "parameters"),
                list: false,
                fence: false,
                separator: Some(";"),
            },
            // The parser takes any `{"` as the start of a call.
            text_forbidden: vec![lit("{\"")],
            value_forbidden: Vec::new(),
        },
        Format::Mistral if lark.is_special("[ARGS]") => {
            Syntax::per_tool(&["[TOOL_CALLS]"], None, mistral_v11, false)
        }
        Format::Mistral => {
            let mut s = Syntax::json(&["[TOOL_CALLS]"], None, true);
            s.calls = Calls::Json {
                keys: Keys::Named {
                    name: "name",
                    args: "arguments",
                    id: Id::Trailing("id"),
                },
                list: true,
                fence: false,
                separator: None,
            };
            s
        }
        Format::FunctionaryV31 => {
            let mut s = Syntax::per_tool(&["<function="], None, functionary_v31, false);
            s.ws_after_open = false;
            s.value_forbidden = vec!["</function>"];
            s.text_forbidden.push(lit("<|python_tag|>"));
            s
        }
        Format::KimiK2 => {
            let mut s = Syntax::per_tool(
                &["<|tool_calls_section_begin|>"],
                Some("<|tool_calls_section_end|>"),
                kimi,
                true,
            );
            s.value_forbidden = vec!["<|tool_call_end|>"];
            s
        }
        Format::DeepseekV3 | Format::DeepseekV31 => {
            let call = if format == Format::DeepseekV3 {
                deepseek_v3
            } else {
                deepseek_v31
            };
            let mut s = Syntax::per_tool(
                &["<｜tool▁calls▁begin｜>"],
                Some("<｜tool▁calls▁end｜>"),
                call,
                true,
            );
            s.value_forbidden = vec!["<｜tool▁call▁end｜>"];
            s
        }
        Format::FunctionGemma => {
            let mut s = Syntax::per_tool(
                &["<start_function_call>"],
                Some("<end_function_call>"),
                function_gemma,
                false,
            );
            s.ws_after_open = false;
            s.value_forbidden = vec!["<escape>", "<end_function_call>"];
            s
        }
        Format::Qwen3Xml => {
            let mut s = xml(
                &["<tool_call>"],
                "</tool_call>",
                qwen3_xml,
                &["</parameter>", "<parameter="],
            );
            // The parser also reads a call whose `<tool_call>` was left out.
            s.text_forbidden.push(lit("<function="));
            s
        }
        Format::SeedOss => xml(
            &["<seed:tool_call>"],
            "</seed:tool_call>",
            seed_oss,
            &["</parameter>", "<parameter="],
        ),
        Format::MinimaxM2 => {
            let mut s = xml(
                &["<minimax:tool_call>"],
                "</minimax:tool_call>",
                minimax,
                &["</parameter>", "<parameter name="],
            );
            // Several `<invoke>`s to a block.
            s.calls = per_tool_calls(minimax, true, None);
            s
        }
        Format::Glm45 => {
            let mut s = xml(
                &["<tool_call>"],
                "</tool_call>",
                glm,
                &["</arg_value>", "<arg_key>"],
            );
            s.ws_after_open = false;
            s
        }
        // Llama 4 has markers; Llama 3.2 writes the list bare. The parser
        // reads a bare list in both.
        Format::Pythonic if lark.is_special("<|python_start|>") => {
            pythonic(&["<|python_start|>"], Some("<|python_end|>"), true)
        }
        Format::Pythonic => {
            let mut s = pythonic(&[], None, true);
            s.bare = true;
            s
        }
        Format::Lfm2 => pythonic(&["<|tool_call_start|>"], Some("<|tool_call_end|>"), false),
        Format::Harmony | Format::FunctionaryV32 => return None,
    })
}

fn per_tool_calls(
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

fn xml(
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

fn pythonic(
    open: &'static [&'static str],
    close: Option<&'static str>,
    bare_lists: bool,
) -> Syntax {
    let mut s = Syntax::per_tool(open, close, pythonic_call, true);
    s.calls = per_tool_calls(pythonic_call, true, Some(("[", ", ", "]")));
    s.value_forbidden.clear();
    if bare_lists {
        // The parser reads `[name(` as the start of a list of calls.
        s.text_forbidden
            .push(r"/\[[ \t\r\n]*[A-Za-z_][A-Za-z0-9_.\-]*[ \t\r\n]*\(/".to_owned());
    }
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

// One call per family. `vf`: the texts no string may contain.

fn mistral_v11(l: &mut Lark, t: &ToolDef, vf: &[&'static str]) -> Result<String, ConstrainError> {
    // Mistral Small 3.2 and later write a call id before the arguments.
    let id = if l.is_special("[CALL_ID]") {
        format!("({} /[A-Za-z0-9]{{9}}/)?", l.mark("[CALL_ID]"))
    } else {
        String::new()
    };
    Ok(format!(
        "{} {id} {} {}",
        lit(&t.name),
        l.mark("[ARGS]"),
        args_json(t, vf)
    ))
}

fn functionary_v31(
    _: &mut Lark,
    t: &ToolDef,
    vf: &[&'static str],
) -> Result<String, ConstrainError> {
    Ok(format!(
        "{} {} \"</function>\"",
        lit(&format!("{}>", t.name)),
        args_json(t, vf)
    ))
}

fn kimi(l: &mut Lark, t: &ToolDef, vf: &[&'static str]) -> Result<String, ConstrainError> {
    Ok(format!(
        "{} {} /:[0-9]{{1,2}}/ {} {} {}",
        l.mark("<|tool_call_begin|>"),
        lit(&format!("functions.{}", t.name)),
        l.mark("<|tool_call_argument_begin|>"),
        args_json(t, vf),
        l.mark("<|tool_call_end|>")
    ))
}

fn deepseek_v3(l: &mut Lark, t: &ToolDef, vf: &[&'static str]) -> Result<String, ConstrainError> {
    Ok(format!(
        "{} \"function\" {} {} \"\\n```json\\n\" {} \"\\n```\" {}",
        l.mark("<｜tool▁call▁begin｜>"),
        l.mark("<｜tool▁sep｜>"),
        lit(&t.name),
        args_json(t, vf),
        l.mark("<｜tool▁call▁end｜>")
    ))
}

fn deepseek_v31(l: &mut Lark, t: &ToolDef, vf: &[&'static str]) -> Result<String, ConstrainError> {
    Ok(format!(
        "{} {} {} {} {}",
        l.mark("<｜tool▁call▁begin｜>"),
        lit(&t.name),
        l.mark("<｜tool▁sep｜>"),
        args_json(t, vf),
        l.mark("<｜tool▁call▁end｜>")
    ))
}

/// The parameters in schema order, required ones always and the others
/// optionally, each written by `arg(key, schema, defs)` and joined by
/// `sep`; a required key `key_ok` refuses is an error.
fn each_param(
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

fn xml_key_ok(k: &str) -> bool {
    !k.is_empty() && !k.contains(['<', '>', '"', '\n'])
}

fn raw_end<'a>(l: &Lark, close: &'a str, forbidden: &'a [&'a str]) -> RawEnd<'a> {
    RawEnd {
        close: l.mark(close),
        close_text: (!l.is_special(close)).then_some(close),
        forbidden,
    }
}

fn qwen3_xml(l: &mut Lark, t: &ToolDef, vf: &[&'static str]) -> Result<String, ConstrainError> {
    function_xml(l, t, vf, "qwen3_xml", "\n")
}

fn seed_oss(l: &mut Lark, t: &ToolDef, vf: &[&'static str]) -> Result<String, ConstrainError> {
    function_xml(l, t, vf, "seed_oss", "")
}

/// `<function=name>` with `<parameter=k>` values, each wrapped in `nl`
/// (Qwen3-Coder writes newlines around a value, Seed-OSS none).
fn function_xml(
    l: &mut Lark,
    t: &ToolDef,
    vf: &[&'static str],
    format: &str,
    nl: &str,
) -> Result<String, ConstrainError> {
    let end = raw_end(
        l,
        if nl.is_empty() {
            "</parameter>"
        } else {
            "\n</parameter>"
        },
        vf,
    );
    let args = each_param(l, t, format, xml_key_ok, "", |l, k, s, d| {
        format!(
            "{} {} \"\\n\"",
            lit(&format!("<parameter={k}>{nl}")),
            raw_value(l, s, d, &end)
        )
    })?;
    Ok(format!(
        "{}{args} \"</function>\"",
        lit(&format!("<function={}>\n", t.name))
    ))
}

fn minimax(l: &mut Lark, t: &ToolDef, vf: &[&'static str]) -> Result<String, ConstrainError> {
    let end = raw_end(l, "</parameter>", vf);
    let args = each_param(l, t, "minimax_m2", xml_key_ok, "", |l, k, s, d| {
        format!(
            "{} {} \"\\n\"?",
            lit(&format!("<parameter name=\"{k}\">")),
            raw_value(l, s, d, &end)
        )
    })?;
    Ok(format!(
        "{} \"\\n\"?{args} \"</invoke>\" \"\\n\"?",
        lit(&format!("<invoke name=\"{}\">", t.name))
    ))
}

fn glm(l: &mut Lark, t: &ToolDef, vf: &[&'static str]) -> Result<String, ConstrainError> {
    let end = raw_end(l, "</arg_value>", vf);
    let args = each_param(l, t, "glm45", xml_key_ok, "", |l, k, s, d| {
        format!(
            "{} {} {} \"\\n\"? {} {} \"\\n\"?",
            l.mark("<arg_key>"),
            lit(k),
            l.mark("</arg_key>"),
            l.mark("<arg_value>"),
            raw_value(l, s, d, &end)
        )
    })?;
    Ok(format!("{} \"\\n\"?{args}", lit(&t.name)))
}

fn function_gemma(
    l: &mut Lark,
    t: &ToolDef,
    vf: &[&'static str],
) -> Result<String, ConstrainError> {
    let end = raw_end(l, "<escape>", vf);
    let key_ok = |k: &str| !k.is_empty() && !k.contains([':', ',', '{', '}', '<']);
    let args = each_param(l, t, "functiongemma", key_ok, ",", |l, k, s, d| {
        format!(
            "{} {} {}",
            lit(&format!("{k}:")),
            l.mark("<escape>"),
            raw_value(l, s, d, &end)
        )
    })?;
    Ok(format!(
        "{} {args} \"}}\"",
        lit(&format!("call:{}{{", t.name))
    ))
}

fn pythonic_call(l: &mut Lark, t: &ToolDef, _: &[&'static str]) -> Result<String, ConstrainError> {
    let key_ok = |k: &str| {
        let b = k.as_bytes();
        !b.is_empty()
            && !b[0].is_ascii_digit()
            && b.iter()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, b'_' | b'.' | b'-'))
    };
    let args = each_param(l, t, "pythonic", key_ok, ", ", |_, k, s, d| {
        format!("{} {}", lit(&format!("{k}=")), python_value(s, d))
    })?;
    Ok(format!("{} {} \")\"", lit(&format!("{}(", t.name)), args))
}
