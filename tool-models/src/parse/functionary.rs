//! Functionary v3.1 (`<function=name>{…}</function>`, and `<|python_tag|>`
//! code for its `python` tool) and v3.2 (`>>>recipient\n…` segments, where
//! `all` is text for the user and any other recipient a call with JSON
//! arguments). A v3.2 prompt ends with `>>>`, so the output starts at a
//! recipient; one written again is accepted.
//!
//! Arguments stream as they are written.

use super::family::{grammar_fn, Family, Rule};
use super::partial_call::Compactor;
use super::schema::Tools;
use super::stream::{
    content_until, find_any, past_optional_closer, skip_ws, starts, valid_name, Balance, Emitter,
    Find, Machine, Scan, Tags, Text,
};
use super::Format;
use serde_json::{json, Value};

const FUNCTION: Tags = Tags::new("<function=", "</function>");
const PYTHON_TAG: &str = "<|python_tag|>";
const RECIPIENT: &str = ">>>";
const ALL: &str = "all";
/// The longest recipient line (`>>>name`) read as one.
const MAX_RECIPIENT_LINE: usize = 128;

#[derive(Clone, Copy, PartialEq, Eq)]
enum Version {
    V31,
    V32,
}

enum State {
    /// v3.2: at the start of a segment, the recipient not yet read.
    Recipient,
    Content,
    /// v3.1: after `<function=`.
    Header,
    /// A call's JSON arguments.
    Args {
        name: String,
        balance: Balance,
        compactor: Compactor,
    },
    /// Raw code for the `python` tool, up to the end (v3.2: the next segment).
    Code {
        scanned: usize,
    },
    /// Arguments that are not JSON, up to the next call or segment.
    Junk {
        name: String,
        scanned: usize,
    },
    /// v3.1: after a call's arguments.
    After,
}

struct Functionary {
    version: Version,
    state: State,
    tools: Tools,
}

pub(crate) fn machine_v31() -> Box<dyn Machine> {
    Box::new(Functionary {
        version: Version::V31,
        state: State::Content,
        tools: Tools::default(),
    })
}

pub(crate) fn machine_v32(tools: &Tools) -> Box<dyn Machine> {
    Box::new(Functionary {
        version: Version::V32,
        state: State::Recipient,
        tools: tools.clone(),
    })
}

/// The markers that end content.
fn markers(version: Version) -> &'static [&'static str] {
    match version {
        Version::V31 => &[FUNCTION.open, PYTHON_TAG],
        Version::V32 => &[RECIPIENT],
    }
}

impl Functionary {
    fn args(name: String) -> State {
        State::Args {
            name,
            balance: Balance::default(),
            compactor: Compactor::default(),
        }
    }

    /// The call to `name` cannot be read: it is reported with `raw`, and
    /// what follows is text again.
    fn reject(&mut self, em: &mut Emitter, name: String, raw: &str, error: impl Into<String>) {
        em.invalid(None, Some(name), raw, error);
        self.state = State::Content;
    }

    /// v3.2: reads `[>>>]recipient\n` at the start of `rest`. `None` while
    /// undecided.
    fn recipient(&mut self, text: &mut Text, em: &mut Emitter, end: bool) -> Option<()> {
        let rest = text.rest();
        let skip = match starts(rest, RECIPIENT) {
            Some(true) => RECIPIENT.len(),
            Some(false) => 0,
            None if end => 0,
            None => return None,
        };
        let line = &rest[skip..];
        // A recipient line is short: its end is looked for that far only,
        // or a long text of `>>>`s would be scanned to its end at each one.
        let near = &line.as_bytes()[..line.len().min(MAX_RECIPIENT_LINE)];
        let Some(nl) = near.iter().position(|&b| b == b'\n') else {
            // A long line is text, and so is one with a space inside
            // (spaces around the name are allowed).
            if !end && line.len() < MAX_RECIPIENT_LINE && !line.trim().contains(char::is_whitespace)
            {
                return None;
            }
            em.content(&rest[..skip.min(rest.len())]);
            text.consume(skip);
            self.state = State::Content;
            return Some(());
        };
        let name = line[..nl].trim();
        if name == ALL {
            text.consume(skip + nl + 1);
            self.state = State::Content;
            return Some(());
        }
        let body = &line[nl + 1..];
        // A recipient is a call when it names an offered tool or JSON
        // follows it (a call to a tool not offered is then reported).
        let is_call = valid_name(name)
            && (self.tools.offers(name) && !self.tools.is_empty()
                || match skip_ws(body) {
                    Some(ws) => body.as_bytes()[ws] == b'{',
                    None if end => false,
                    None => return None,
                });
        if is_call {
            let name = name.to_owned();
            text.consume(skip + nl + 1);
            self.state = match skip_ws(text.rest()) {
                Some(ws) if text.rest().as_bytes()[ws] != b'{' && name == "python" => {
                    State::Code { scanned: 0 }
                }
                _ => Self::args(name),
            };
        } else {
            // Not a recipient after all: the text is the user's.
            em.content(&rest[..skip]);
            text.consume(skip);
            self.state = State::Content;
        }
        Some(())
    }
}

impl Machine for Functionary {
    fn ended(&mut self, em: &mut Emitter) {
        match std::mem::replace(&mut self.state, State::Content) {
            State::Args { name, .. } => {
                em.invalid(None, Some(name), "", "the call has no arguments")
            }
            State::Header => em.invalid(None, None, "", "unterminated function name"),
            _ => {}
        }
    }

    fn advance(&mut self, text: &mut Text, em: &mut Emitter, end: bool) -> bool {
        let rest = text.rest();
        match &mut self.state {
            State::Recipient => self.recipient(text, em, end).is_some(),
            State::Content => {
                let Some(which) = content_until(text, em, markers(self.version), end) else {
                    return false;
                };
                match (self.version, which) {
                    (Version::V31, 0) => {
                        text.consume(FUNCTION.open.len());
                        self.state = State::Header;
                    }
                    (Version::V31, _) => {
                        text.consume(PYTHON_TAG.len());
                        self.state = State::Code { scanned: 0 };
                    }
                    (Version::V32, _) => self.state = State::Recipient,
                }
                true
            }
            State::Header => match rest.find(['>', '\n']) {
                Some(p) if rest.as_bytes()[p] == b'>' && valid_name(rest[..p].trim()) => {
                    let name = rest[..p].trim().to_owned();
                    text.consume(p + 1);
                    self.state = Self::args(name);
                    true
                }
                None if !end && rest.len() < 256 => false,
                _ => {
                    // Not a call header: it was text.
                    em.content(FUNCTION.open);
                    self.state = State::Content;
                    true
                }
            },
            State::Args {
                name,
                balance,
                compactor,
            } => {
                let Some(ws) = skip_ws(rest) else {
                    if end {
                        let name = std::mem::take(name);
                        self.reject(em, name, rest, "the call has no arguments");
                        text.consume(rest.len());
                        return true;
                    }
                    return false;
                };
                if rest.as_bytes()[ws] != b'{' {
                    text.consume(ws);
                    let name = std::mem::take(name);
                    self.state = State::Junk { name, scanned: 0 };
                    return true;
                }
                let body = &rest[ws..];
                match balance.scan(body, b"\"") {
                    Scan::Done(n) => {
                        let name = std::mem::take(name);
                        let raw = &body[..n];
                        // The call completes what was streamed so far.
                        em.json_arguments_call(None, name, raw);
                        text.consume(ws + n);
                        self.state = match self.version {
                            Version::V31 => State::After,
                            Version::V32 => State::Content,
                        };
                        true
                    }
                    Scan::More if !end => {
                        let delta = compactor.feed(body);
                        em.call_arguments(name, delta);
                        false
                    }
                    Scan::More => {
                        let name = std::mem::take(name);
                        self.reject(em, name, body, "the arguments were cut off");
                        text.consume(rest.len());
                        true
                    }
                    Scan::Broken(e) => {
                        let n = ws + balance.scanned;
                        let name = std::mem::take(name);
                        self.reject(em, name, &rest[ws..n], e);
                        text.consume(n);
                        true
                    }
                }
            }
            State::Junk { name, scanned } => {
                // Unreadable arguments run to the next call or segment.
                let stop = match find_any(rest, *scanned, markers(self.version)) {
                    Find::At { at, .. } => at,
                    Find::Partial { .. } if end => rest.len(),
                    Find::Partial { safe } => {
                        *scanned = safe;
                        return false;
                    }
                };
                let name = std::mem::take(name);
                self.reject(em, name, &rest[..stop], "arguments must be a JSON object");
                text.consume(stop);
                true
            }
            State::Code { scanned } => {
                // v3.1's code runs to the end of the output; v3.2's to the
                // next segment.
                let stop = match self.version {
                    Version::V31 => None,
                    Version::V32 => match find_any(rest, *scanned, &[RECIPIENT]) {
                        Find::At { at, .. } => Some(at),
                        Find::Partial { safe } => {
                            *scanned = safe;
                            None
                        }
                    },
                };
                let Some(n) = stop.or(end.then_some(rest.len())) else {
                    return false;
                };
                let code = rest[..n].trim();
                let args = match serde_json::from_str::<Value>(code) {
                    Ok(v @ Value::Object(_)) => v,
                    _ => json!({ "code": code }),
                };
                em.call(None, "python".to_owned(), args);
                text.consume(n);
                self.state = State::Content;
                true
            }
            State::After => {
                past_optional_closer(text, FUNCTION.close, end, &mut self.state, State::Content)
            }
        }
    }
}

/// Functionary v3.1.
pub(crate) const FUNCTIONARY_V31: Family =
    Family::new(Format::FunctionaryV31, "functionary_v31", |_| machine_v31())
        .aliases(&["functionary_v3_1"])
        .detect(&[Rule::at(90, &[FUNCTION.open, "start_tag => `<function`"])])
        .grammar(grammar_fn!(grammar::syntax));

/// Functionary v3.2 (segments, not blocks: a layout of its own).
pub(crate) const FUNCTIONARY_V32: Family =
    Family::new(Format::FunctionaryV32, "functionary_v32", machine_v32)
        .aliases(&["functionary_v3_2"])
        .detect(&[Rule::at(100, &[">>>all", ">>>${recipient}"])])
        .grammar(grammar_fn!(layout grammar::functionary_v32));

/// v3.1: `<function=name>{…}</function>`, one call to a block; v3.2:
/// segments to recipients, a layout of its own.
#[cfg(feature = "local")]
mod grammar {
    use super::{FUNCTION, PYTHON_TAG};
    use crate::constrain::syntax::{
        args_json, lit, text_without, CallRule, ConstrainError, Lark, Syntax, ToolDef, ANY,
    };
    use tool_runtime::ToolChoice;

    pub(super) fn syntax(_: &Lark) -> Option<Syntax> {
        let mut s = Syntax::per_tool(&[FUNCTION.open], None, functionary_v31, false);
        s.ws_after_open = false;
        s.value_forbidden = vec![FUNCTION.close];
        s.text_forbidden.push(lit(PYTHON_TAG));
        Some(s)
    }

    fn functionary_v31(_: &mut Lark, t: &ToolDef, vf: &[&'static str]) -> CallRule {
        Ok(format!(
            "{} {} \"</function>\"",
            lit(&format!("{}>", t.name)),
            args_json(t, vf)
        ))
    }

    /// Functionary v3.2: `recipient\n…` segments separated by `>>>`; the
    /// prompt ends with `>>>`, so the output starts at a recipient. `all` is
    /// text for the user; any other recipient is a call.
    pub(super) fn functionary_v32(
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
}
