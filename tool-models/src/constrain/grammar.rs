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
//! - gpt-oss harmony, Functionary v3.2 and the generic JSON answer are not
//!   text with blocks in it: each family writes its whole layout in its own
//!   file ([`Grammar::Layout`]).
//!
//! A family describes its grammar with a [`Grammar`] in its descriptor;
//! this module never knows which format it is writing for.
//!
//! A marker that is a plain string cannot follow a greedy `TEXT` lexeme (the
//! lexer would not stop `TEXT` before it), so the text before a textual marker
//! is one lazy lexeme ending with the marker, and the last text is a lexeme
//! that cannot contain it.

use super::lark::{json, lit, text_without, textual, Lark, ANY};
use super::narrow::forbid_in_strings;
use super::schema::ToolDef;
use super::syntax::{json_block, Calls, Syntax, WS};
use super::{ConstrainError, TokenEnv};
use tool_runtime::ToolChoice;

/// How a format writes its calls, as its family declares it: the grammar
/// builder reads this and never the format itself.
#[derive(Clone, Copy)]
pub(crate) enum Grammar {
    /// No grammar.
    None,
    /// Call objects (`{"name", "arguments"}`) between `open` and `close`,
    /// one to a block or a `list` of them.
    Json {
        open: &'static [&'static str],
        close: Option<&'static str>,
        list: bool,
    },
    /// Written by the family's own function, given the vocabulary (`None`
    /// where the vocabulary lacks what the format needs).
    Custom(fn(&Lark) -> Option<Syntax>),
    /// The output is not text with blocks of calls in it (harmony,
    /// Functionary v3.2, the generic JSON answer): the whole grammar is the
    /// family's own, written by this function.
    Layout(Layout),
}

/// Writes a whole output's grammar into `Lark` for these tools under this
/// choice; the `bool` says whether calls are allowed at all.
pub(crate) type Layout = fn(&mut Lark, &[ToolDef], &ToolChoice, bool) -> Result<(), ConstrainError>;

impl Grammar {
    /// Whether there is a grammar at all.
    pub(crate) const fn exists(&self) -> bool {
        !matches!(self, Grammar::None)
    }

    /// How the calls are written in blocks, in the vocabulary `lark` is
    /// written for (markers the vocabulary has as special tokens choose
    /// among the versions of a format); `None` for a whole-output layout
    /// and where the vocabulary cannot write the format.
    pub(crate) fn syntax(&self, lark: &Lark) -> Option<Syntax> {
        match *self {
            Grammar::None | Grammar::Layout(_) => None,
            Grammar::Json { open, close, list } => Some(Syntax::json(open, close, list)),
            Grammar::Custom(syntax) => syntax(lark),
        }
    }
}

/// The grammar for `tools` (already narrowed to the named tool for
/// `Named`) under `choice`; `None` where `grammar` cannot be written in
/// this vocabulary.
pub(crate) fn lark(
    env: &TokenEnv,
    grammar: &Grammar,
    tools: &[ToolDef],
    choice: &ToolChoice,
) -> Result<Option<String>, ConstrainError> {
    let mut l = Lark::new(env);
    let calls_allowed = !tools.is_empty() && !matches!(choice, ToolChoice::None);
    match grammar {
        Grammar::Layout(layout) => layout(&mut l, tools, choice, calls_allowed)?,
        _ => {
            let Some(syn) = grammar.syntax(&l) else {
                return Ok(None);
            };
            blocks(&mut l, &syn, tools, choice, calls_allowed)?;
        }
    }
    l.named("WS", WS);
    l.named("LWS", r"/[ \t\r\n]{1,8}/");
    Ok(Some(l.finish()))
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
    // Text never holds the closing marker either: a sampled stray
    // `</tool_call>` would reach the user as words (the parser keeps it).
    let closing: Vec<String> = syn.close.iter().map(|c| lit(c)).collect();
    let mut forbidden = syn.text_forbidden.clone();
    if !opening.is_empty() {
        forbidden.push(lit(&opening));
    }
    forbidden.extend(closing.iter().cloned());
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
            let head = if closing.is_empty() {
                ANY.to_owned()
            } else {
                format!("({})", text_without(&closing))
            };
            l.named("HEAD", &format!("{head} {}", lit(syn.open[0])));
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
