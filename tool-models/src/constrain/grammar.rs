//! The Lark grammar of a whole tool-using output, per format and choice.
//!
//! One grammar covers the output from its first token to end of sequence —
//! text, the call marker, the calls, the closing marker, more text —
//! rather than a free-text phase that hands over to a JSON matcher when the
//! marker shows up. One matcher is simpler to get right: the marker may be one
//! special token or several text tokens (then it is a lexeme the Earley
//! lexer recognises across token boundaries), and the grammar alone decides
//! what may come after a call. The cost is a mask over free text too, which
//! keeps special tokens and the marker's spelling out of it (the parser would
//! otherwise read text that spells `<tool_call>` as a call).
//!
//! Layouts (`OPEN`/`CLOSE` are a block's markers, `CALLS` what
//! [`syntax`](super::syntax) writes inside one):
//! - `auto`: `TEXT (OPEN CALLS CLOSE TEXT)*`; a format that may write calls
//!   without a marker (llama3 JSON, xLAM, Llama 3.2 pythonic) is either
//!   text or calls, as its parser decides from the first characters;
//! - `required`: one block holding the calls, or blocks one after another
//!   where a block holds one call; `named`: one block with one call;
//!   `none`: `TEXT`.
//! - gpt-oss harmony and Functionary v3.2 write messages to recipients
//!   rather than text with blocks in it, and have layouts of their own.
//!
//! A marker that is a plain string cannot follow a greedy `TEXT` lexeme (the
//! lexer would not stop `TEXT` before it), so the text before a textual marker
//! is one lazy lexeme ending with the marker, and the last text is a lexeme
//! that cannot contain it.

use super::lark::{json, lit, text_without, Lark, ANY};
use super::narrow::forbid_in_strings;
use super::schema::ToolDef;
use super::syntax::{args_json, json_block, named, syntax, Calls, Syntax, WS};
use super::{ConstrainError, TokenEnv};
use crate::parse::family::Grammar;
use crate::parse::Format;
use tool_runtime::ToolChoice;

/// The grammar for `tools` (already narrowed to the named tool for
/// `Named`) under `choice`.
pub(crate) fn lark(
    env: &TokenEnv,
    format: Format,
    tools: &[ToolDef],
    choice: &ToolChoice,
) -> Result<String, ConstrainError> {
    let mut l = Lark::new(env);
    let calls_allowed = !tools.is_empty() && !matches!(choice, ToolChoice::None);
    match format.family().grammar {
        Grammar::Layout(layout) => layout(&mut l, tools, choice, calls_allowed)?,
        _ => {
            let syn = syntax(format, &l)
                .ok_or_else(|| ConstrainError::UnsupportedFormat(format.id().into()))?;
            blocks(&mut l, &syn, tools, choice, calls_allowed)?;
        }
    }
    l.named("WS", WS);
    l.named("LWS", r"/[ \t\r\n]{1,8}/");
    Ok(l.finish())
}

/// The texts of `forbidden` that are text in this vocabulary: a special
/// token never appears inside a string.
fn textual<'a>(l: &Lark, forbidden: &[&'a str]) -> Vec<&'a str> {
    forbidden
        .iter()
        .copied()
        .filter(|f| !l.is_special(f))
        .collect()
}

/// `start` for a format whose output is text with blocks of calls in it.
fn blocks(
    l: &mut Lark,
    syn: &Syntax,
    tools: &[ToolDef],
    choice: &ToolChoice,
    calls_allowed: bool,
) -> Result<(), ConstrainError> {
    let opening: String = syn.open.concat();
    let mut forbidden = syn.text_forbidden.clone();
    if !opening.is_empty() {
        forbidden.push(lit(&opening));
    }
    l.named("TEXT", &text_without(&forbidden));
    if !calls_allowed {
        l.named("start", "TEXT");
        return Ok(());
    }
    let single = matches!(choice, ToolChoice::Named(_));
    let block = block(l, syn, tools, single)?;
    let first_special = syn.open.first().is_some_and(|o| l.is_special(o));
    let marks: Vec<String> = syn.open.iter().map(|o| l.mark(o)).collect();
    let open = marks.join(" ");
    let rest_of_open = marks.get(1..).unwrap_or_default().join(" ");
    // A bare format may still open with a special marker (llama3's
    // `<|python_tag|>`); a textual one is left out there.
    let bare_open = if first_special {
        format!("{open}? ")
    } else {
        String::new()
    };
    let start = match choice {
        ToolChoice::Auto if syn.bare => format!("TEXT | {bare_open}{block}"),
        ToolChoice::Auto if first_special => {
            l.named("call", &format!("{open} {block}"));
            "TEXT (call TEXT)*".to_owned()
        }
        ToolChoice::Auto => {
            // The text before a textual marker ends at its first occurrence.
            l.named("call", &format!("head {rest_of_open} {block}"));
            l.named("head[lazy]", "HEAD");
            l.named("HEAD", &format!("{ANY} {}", lit(syn.open[0])));
            "call* TEXT".to_owned()
        }
        _ if syn.bare => format!("{bare_open}{block}"),
        ToolChoice::Required if syn.one_block() => format!("WS? {open} {block}"),
        ToolChoice::Required => {
            l.named("call", &format!("{open} {block}"));
            "WS? call (WS? call)* WS?".to_owned()
        }
        _ => format!("WS? {open} {block} WS?"),
    };
    l.named("start", &start);
    Ok(())
}

/// What follows a block's opening marker: its calls and closing marker.
fn block(
    l: &mut Lark,
    syn: &Syntax,
    tools: &[ToolDef],
    single: bool,
) -> Result<String, ConstrainError> {
    let vf = textual(l, &syn.value_forbidden);
    let calls = match &syn.calls {
        Calls::Json {
            keys,
            list,
            fence,
            separator,
        } => {
            let mut tools = tools.to_vec();
            for t in &mut tools {
                for f in &vf {
                    forbid_in_strings(&mut t.params, f);
                }
            }
            let body = json(json_block(&tools, *keys), vf.first().copied());
            let body = l.rule(false, &body);
            let calls = match separator {
                Some(sep) if !single => format!("{body} ({} WS? {body})*", lit(sep)),
                _ => body,
            };
            // A list's brackets and commas are written here, so that it
            // may be laid out over lines (Command R7B indents its list).
            let calls = match list {
                true if single => format!("\"[\" LWS? {calls} LWS? \"]\""),
                true => format!("\"[\" LWS? {calls} (\",\" LWS? {calls})* LWS? \"]\""),
                false => calls,
            };
            if *fence {
                format!("\"```json\\n\" {calls} \"\\n```\"")
            } else {
                calls
            }
        }
        Calls::PerTool {
            call,
            several,
            brackets,
        } => {
            let mut alts = Vec::with_capacity(tools.len());
            for t in tools {
                let body = call(l, t, &vf)?;
                alts.push(l.rule(false, &body));
            }
            let one = l.rule(false, &alts.join(" | "));
            match brackets {
                Some((open, sep, close)) if *several && !single => {
                    format!("{} {one} ({} {one})* {}", lit(open), lit(sep), lit(close))
                }
                Some((open, _, close)) => format!("{} {one} {}", lit(open), lit(close)),
                None if *several && !single => format!("{one} (WS? {one})*"),
                None => one,
            }
        }
    };
    let before = if syn.ws_after_open { "WS? " } else { "" };
    Ok(match syn.close {
        Some(c) => format!("{before}{calls} WS? {}", l.mark(c)),
        None => format!("{before}{calls}"),
    })
}

/// The generic JSON answer: the whole output is `{"tool_call": {...}}` or
/// `{"response": "..."}`, as llama.cpp constrains it without parallel
/// calls.
pub(crate) fn generic(
    l: &mut Lark,
    tools: &[ToolDef],
    choice: &ToolChoice,
    calls_allowed: bool,
) -> Result<(), ConstrainError> {
    let response = json(
        serde_json::json!({
            "type": "object",
            "properties": {"response": {"type": "string"}},
            "required": ["response"],
            "additionalProperties": false,
        }),
        None,
    );
    if !calls_allowed {
        l.named("start", &response);
        return Ok(());
    }
    let call = json(json_block(tools, named("name", "arguments")), None);
    let object = format!("{} {call} {}", lit("{\"tool_call\": "), lit("}"));
    let start = match choice {
        ToolChoice::Auto => format!("{object} | {response}"),
        _ => object,
    };
    l.named("start", &start);
    Ok(())
}

/// gpt-oss harmony: reasoning messages, then a final answer or a call.
/// The prompt has opened the first message (`<|start|>assistant`).
pub(crate) fn harmony(
    l: &mut Lark,
    tools: &[ToolDef],
    choice: &ToolChoice,
    calls_allowed: bool,
) -> Result<(), ConstrainError> {
    const MARKERS: &[&str] = &[
        "<|channel|>",
        "<|message|>",
        "<|end|>",
        "<|start|>",
        "<|call|>",
        "<|return|>",
        "<|constrain|>",
    ];
    let forbidden: Vec<String> = MARKERS.iter().map(|m| lit(m)).collect();
    l.named("TEXT", &text_without(&forbidden));
    let (channel, message) = (l.mark("<|channel|>"), l.mark("<|message|>"));
    l.named(
        "analysis",
        &format!(
            "{channel} \"analysis\" {message} TEXT {} {} \"assistant\"",
            l.mark("<|end|>"),
            l.mark("<|start|>")
        ),
    );
    l.named("final", &format!("{channel} \"final\" {message} TEXT"));
    if !calls_allowed {
        l.named("start", "analysis* final");
        return Ok(());
    }
    let vf = textual(l, MARKERS);
    let constrain = l.mark("<|constrain|>");
    let mut alts = Vec::new();
    // The recipient after the channel, as gpt-oss writes it, or in the
    // role, as its chat template renders past calls.
    // LLM-jp writes a space after each special token.
    let content_type = format!("(\" \" {constrain}? \" \"? \"json\")?");
    for t in tools {
        let to = format!("to=functions.{}", t.name);
        let body = format!(
            "({channel} {} {content_type} | {} {channel} \"commentary\" {content_type}) {message} {}",
            lit(&format!("commentary {to}")),
            lit(&format!(" {to}")),
            args_json(t, &vf)
        );
        alts.push(l.rule(false, &body));
    }
    l.named("call", &alts.join(" | "));
    // A model stops at `<|call|>`; a template renders each call of a turn
    // as a message of its own.
    let calls = if matches!(choice, ToolChoice::Named(_)) {
        "call".to_owned()
    } else {
        format!(
            "call ({} {} \"assistant\" call)*",
            l.mark("<|end|>"),
            l.mark("<|start|>")
        )
    };
    l.named("calls", &calls);
    l.named(
        "start",
        match choice {
            ToolChoice::Auto => "analysis* (final | calls)",
            _ => "analysis* calls",
        },
    );
    Ok(())
}

/// Functionary v3.2: `recipient\n…` segments separated by `>>>`; the
/// prompt ends with `>>>`, so the output starts at a recipient. `all` is
/// text for the user; any other recipient is a call.
pub(crate) fn functionary_v32(
    l: &mut Lark,
    tools: &[ToolDef],
    choice: &ToolChoice,
    calls_allowed: bool,
) -> Result<(), ConstrainError> {
    l.named("TEXT", &text_without(&[lit(">>>")]));
    if !calls_allowed {
        l.named("start", "\"all\\n\" TEXT");
        return Ok(());
    }
    let mut alts = Vec::new();
    for t in tools {
        let body = format!("{} {}", lit(&format!("{}\n", t.name)), args_json(t, &[]));
        alts.push(l.rule(false, &body));
    }
    l.named("call", &alts.join(" | "));
    let calls = if matches!(choice, ToolChoice::Named(_)) {
        "call"
    } else {
        "call (\">>>\" call)*"
    };
    l.named("calls", calls);
    if matches!(choice, ToolChoice::Auto) {
        l.named("head[lazy]", "HEAD");
        l.named("HEAD", &format!("{ANY} \">>>\""));
        l.named("start", "\"all\\n\" TEXT | \"all\\n\" head calls | calls");
    } else {
        l.named("start", "calls");
    }
    Ok(())
}
