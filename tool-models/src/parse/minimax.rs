//! MiniMax-M2: `<minimax:tool_call>` holding one `<invoke name="f">` per
//! call, each with `<parameter name="k">v</parameter>` arguments. Values are
//! raw text typed by the tool's schema, kept byte for byte (the template
//! writes no newlines inside them) and streamed as each one closes. The
//! name may be quoted with `"`, `'` or not at all, and a value left open
//! ends at the next `<parameter name=`, as vLLM reads them.

use super::family::{grammar_fn, Family, Rule};
use super::schema::Tools;
use super::stream::{
    content_past, find_any, next_tag, valid_name, Emitter, Find, Machine, Next, Tags, Text,
};
use super::think::THINK;
use super::xml_call::{OpenValue, Skipped, XmlCall};
use super::Format;

const BLOCK: Tags = Tags::new("<minimax:tool_call>", "</minimax:tool_call>");
/// A call, its name in the opening tag's attributes.
const INVOKE: Tags = Tags::new("<invoke", "</invoke>");
/// A value, its key in the opening tag's attributes.
const PARAM: Tags = Tags::new("<parameter", "</parameter>");
/// Where a value ends: its closing tag, or, left open, the next parameter
/// as the template writes it.
const VALUE_ENDS: &[&str] = &[PARAM.close, "<parameter name="];

enum State {
    Content,
    /// Inside the block, between calls.
    Block,
    /// After `<invoke`: up to `>`.
    Invoke {
        scanned: usize,
    },
    /// Inside a call, between arguments.
    Params,
    /// After `<parameter`: up to `>`.
    Param {
        scanned: usize,
    },
    Value(OpenValue),
    /// Unreadable text, skipped to the end of the call (`</invoke>`) or of
    /// the block.
    Skip(Skipped),
}

struct Minimax {
    state: State,
    call: XmlCall,
}

pub(crate) fn machine(tools: &Tools) -> Box<dyn Machine> {
    Box::new(Minimax {
        state: State::Content,
        call: XmlCall::new(tools, INVOKE.close),
    })
}

/// The value of `name=` in a tag's attributes: `name="x"`, `name='x'` or
/// `name=x`.
fn name_attribute(attrs: &str) -> Option<&str> {
    let v = attrs.trim().strip_prefix("name")?.trim_start();
    let v = v.strip_prefix('=')?.trim();
    let v = match v.as_bytes().first() {
        Some(&q @ (b'"' | b'\'')) => v[1..].strip_suffix(q as char)?,
        _ => v,
    };
    Some(v.trim())
}

impl Minimax {
    fn report_skipped(&mut self, raw: &str, em: &mut Emitter) {
        em.invalid(
            None,
            self.call.abandon(),
            raw,
            "not a MiniMax tool call (`<invoke name=\"f\"><parameter name=\"k\">v</parameter></invoke>`)",
        );
    }
}

impl Machine for Minimax {
    fn ended(&mut self, em: &mut Emitter) {
        match std::mem::replace(&mut self.state, State::Content) {
            State::Params | State::Param { .. } => self.call.cut_off(em),
            State::Value(value) => self.call.cut_off_in(em, &value),
            State::Skip(skipped) => self.report_skipped(&skipped.into_text(), em),
            _ => {}
        }
    }

    fn advance(&mut self, text: &mut Text, em: &mut Emitter, end: bool) -> bool {
        let rest = text.rest();
        match &mut self.state {
            State::Content => {
                if content_past(text, em, &[BLOCK.open], end).is_none() {
                    return false;
                }
                self.state = State::Block;
                true
            }
            State::Block => match next_tag(rest, &[INVOKE.open, BLOCK.close], end) {
                Next::Wait => false,
                Next::Blank => {
                    text.consume(rest.len());
                    true
                }
                Next::Tag { ws, which } => {
                    if which == 0 {
                        text.consume(ws + INVOKE.open.len());
                        self.state = State::Invoke { scanned: 0 };
                    } else {
                        text.consume(ws + BLOCK.close.len());
                        self.state = State::Content;
                    }
                    true
                }
                Next::Other { ws } => {
                    self.call.abandon();
                    self.state = State::Skip(Skipped::new(text.take(ws)));
                    true
                }
            },
            State::Invoke { scanned } => match find_any(rest, *scanned, &[">"]) {
                Find::At { at, .. } => {
                    match name_attribute(&rest[..at]).filter(|n| valid_name(n)) {
                        Some(name) => {
                            self.call.start(em, name);
                            text.consume(at + 1);
                            self.state = State::Params;
                            true
                        }
                        None => {
                            self.call.abandon();
                            let raw = format!("{}{}", INVOKE.open, text.take(at + 1));
                            self.state = State::Skip(Skipped::new(raw));
                            true
                        }
                    }
                }
                Find::Partial { safe } => {
                    if end {
                        self.call.abandon();
                        let raw = format!("{}{}", INVOKE.open, text.take_all());
                        self.state = State::Skip(Skipped::new(raw));
                        return true;
                    }
                    *scanned = safe;
                    false
                }
            },
            State::Params => match next_tag(rest, &[PARAM.open, INVOKE.close, BLOCK.close], end) {
                Next::Wait => false,
                Next::Blank => {
                    text.consume(rest.len());
                    true
                }
                Next::Tag { ws, which: 0 } => {
                    text.consume(ws + PARAM.open.len());
                    self.state = State::Param { scanned: 0 };
                    true
                }
                Next::Tag { ws, which } => {
                    // `</minimax:tool_call>` closes an unclosed call too, and
                    // stays for the block to read.
                    text.consume(ws + if which == 1 { INVOKE.close.len() } else { 0 });
                    self.call.finish(em);
                    self.state = State::Block;
                    true
                }
                Next::Other { ws } => {
                    self.state = State::Skip(Skipped::new(text.take(ws)));
                    true
                }
            },
            State::Param { scanned } => match find_any(rest, *scanned, &[">"]) {
                Find::At { at, .. } => match name_attribute(&rest[..at]) {
                    Some(key) if !key.is_empty() => {
                        let value = OpenValue::new(key);
                        text.consume(at + 1);
                        self.state = State::Value(value);
                        true
                    }
                    _ => {
                        let raw = format!("{}{}", PARAM.open, text.take(at + 1));
                        self.state = State::Skip(Skipped::new(raw));
                        true
                    }
                },
                Find::Partial { safe } => {
                    if end {
                        text.consume(rest.len());
                        self.state = State::Params;
                        return true;
                    }
                    *scanned = safe;
                    false
                }
            },
            State::Value(value) => {
                if !self.call.read_value(value, text, em, VALUE_ENDS, end) {
                    return false;
                }
                self.state = State::Params;
                true
            }
            State::Skip(skipped) => {
                let Some(raw) = skipped.read(text, &[INVOKE.close, BLOCK.close], end) else {
                    return false;
                };
                self.report_skipped(&raw, em);
                self.state = State::Block;
                true
            }
        }
    }
}

/// MiniMax-M2.
pub(crate) const MINIMAX_M2: Family = Family::new(Format::MinimaxM2, "minimax_m2", machine)
    .aliases(&["minimax"])
    .detect(&[Rule::at(50, &[BLOCK.open])])
    .think(THINK)
    .grammar(grammar_fn!(grammar::syntax));

/// `<invoke>` calls with `<parameter name="k">` values.
#[cfg(feature = "local")]
mod grammar {
    use super::{BLOCK, PARAM, VALUE_ENDS};
    use crate::constrain::syntax::{
        each_param, lit, per_tool_calls, raw_end, raw_value, xml, xml_key_ok, CallRule, Lark,
        Syntax, ToolDef,
    };

    pub(super) fn syntax(_: &Lark) -> Option<Syntax> {
        let mut s = xml(&[BLOCK.open], BLOCK.close, minimax, VALUE_ENDS);
        // Several `<invoke>`s to a block.
        s.calls = per_tool_calls(minimax, true, None);
        Some(s)
    }

    fn minimax(l: &mut Lark, t: &ToolDef, vf: &[&'static str]) -> CallRule {
        let end = raw_end(l, PARAM.close, vf);
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
}
