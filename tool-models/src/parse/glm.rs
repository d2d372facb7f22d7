//! GLM-4.5/4.6/4.7: `<tool_call>name<arg_key>k</arg_key><arg_value>v</arg_value>…</tool_call>`,
//! one block per call. GLM-4.5/4.6 put a newline after the name and after
//! each tag, GLM-4.7 none; any whitespace between tags is accepted. Values
//! are raw text typed by the tool's schema, streamed as each one closes.

use super::family::{grammar_fn, Family, Rule};
use super::schema::Tools;
use super::stream::{
    content_past, find_any, next_tag, valid_name, Emitter, Find, Machine, Next, Tags, Text,
};
use super::think::THINK;
use super::xml_call::{OpenValue, Skipped, XmlCall};
use super::Format;

const CALL: Tags = Tags::new("<tool_call>", "</tool_call>");
const KEY: Tags = Tags::new("<arg_key>", "</arg_key>");
const VALUE: Tags = Tags::new("<arg_value>", "</arg_value>");

enum State {
    Content,
    /// After `<tool_call>`: the name runs to the first tag.
    Name {
        scanned: usize,
    },
    /// Between arguments.
    Args,
    Key {
        scanned: usize,
    },
    /// After a key, before its `<arg_value>`.
    BeforeValue {
        key: String,
    },
    Value(OpenValue),
    /// An unreadable call, skipped to its end.
    Skip(Skipped),
}

struct Glm {
    state: State,
    call: XmlCall,
}

pub(crate) fn machine(tools: &Tools) -> Box<dyn Machine> {
    Box::new(Glm {
        state: State::Content,
        call: XmlCall::new(tools, CALL.close),
    })
}

impl Machine for Glm {
    fn ended(&mut self, em: &mut Emitter) {
        match std::mem::replace(&mut self.state, State::Content) {
            State::Args | State::Key { .. } | State::BeforeValue { .. } => self.call.cut_off(em),
            State::Value(value) => self.call.cut_off_in(em, &value),
            State::Name { .. } => em.invalid(None, None, "", "the call has no name"),
            State::Skip(skipped) => em.invalid(
                None,
                self.call.abandon(),
                &skipped.into_text(),
                "not a GLM tool call",
            ),
            State::Content => {}
        }
    }

    fn advance(&mut self, text: &mut Text, em: &mut Emitter, end: bool) -> bool {
        let rest = text.rest();
        match &mut self.state {
            State::Content => {
                if content_past(text, em, &[CALL.open], end).is_none() {
                    return false;
                }
                self.state = State::Name { scanned: 0 };
                true
            }
            State::Name { scanned } => {
                let at = match find_any(rest, *scanned, &["<"]) {
                    Find::At { at, .. } => at,
                    Find::Partial { .. } if end => rest.len(),
                    Find::Partial { safe } => {
                        *scanned = safe;
                        return false;
                    }
                };
                let name = rest[..at].trim();
                if !valid_name(name) {
                    let raw = text.take(at);
                    self.call.abandon();
                    self.state = State::Skip(Skipped::new(raw));
                    return true;
                }
                self.call.start(em, name);
                text.consume(at);
                self.state = State::Args;
                true
            }
            State::Args => match next_tag(rest, &[KEY.open, CALL.close], end) {
                Next::Wait => false,
                Next::Blank => {
                    text.consume(rest.len());
                    true
                }
                Next::Tag { ws, which: 0 } => {
                    text.consume(ws + KEY.open.len());
                    self.state = State::Key { scanned: 0 };
                    true
                }
                Next::Tag { ws, .. } => {
                    text.consume(ws + CALL.close.len());
                    self.call.finish(em);
                    self.state = State::Content;
                    true
                }
                Next::Other { ws } => {
                    self.state = State::Skip(Skipped::new(text.take(ws)));
                    true
                }
            },
            State::Key { scanned } => match find_any(rest, *scanned, &[KEY.close]) {
                Find::At { at, .. } => {
                    let key = rest[..at].to_owned();
                    text.consume(at + KEY.close.len());
                    self.state = State::BeforeValue { key };
                    true
                }
                Find::Partial { safe } => {
                    *scanned = safe;
                    if end {
                        text.consume(rest.len());
                        self.state = State::Args;
                        return true;
                    }
                    false
                }
            },
            State::BeforeValue { key } => match next_tag(rest, &[VALUE.open], end) {
                Next::Wait => false,
                Next::Blank => {
                    text.consume(rest.len());
                    true
                }
                Next::Tag { ws, .. } => {
                    // Whitespace around a key is layout, not part of it.
                    let value = OpenValue::new(key.trim());
                    text.consume(ws + VALUE.open.len());
                    self.state = State::Value(value);
                    true
                }
                Next::Other { .. } => {
                    let raw = format!("{}{key}{}", KEY.open, KEY.close);
                    self.state = State::Skip(Skipped::new(raw));
                    true
                }
            },
            State::Value(value) => {
                if !self.call.read_value(value, text, em, &[VALUE.close], end) {
                    return false;
                }
                self.state = State::Args;
                true
            }
            State::Skip(skipped) => {
                let Some(raw) = skipped.read(text, &[CALL.close], end) else {
                    return false;
                };
                self.state = State::Content;
                let name = self.call.abandon();
                if name.is_none() && raw.trim_start().starts_with('{') {
                    // A JSON call object, as Hermes writes one.
                    em.json_calls(raw.trim());
                } else {
                    em.invalid(
                        None,
                        name,
                        &raw,
                        "not a GLM tool call (`name<arg_key>k</arg_key><arg_value>v</arg_value>`)",
                    );
                }
                true
            }
        }
    }
}

/// GLM-4.5/4.6/4.7.
pub(crate) const GLM45: Family = Family::new(Format::Glm45, "glm45", machine)
    .aliases(&["glm47", "glm4_moe"])
    .detect(&[Rule::at(130, &[CALL.open, KEY.open, VALUE.open])])
    .think(THINK)
    .grammar(grammar_fn!(grammar::syntax));

/// The name, then `<arg_key>`/`<arg_value>` pairs.
#[cfg(feature = "local")]
mod grammar {
    use super::{CALL, KEY, VALUE};
    use crate::constrain::syntax::{
        each_param, lit, raw_end, raw_value, xml, xml_key_ok, CallRule, Lark, Syntax, ToolDef,
    };

    pub(super) fn syntax(_: &Lark) -> Option<Syntax> {
        let mut s = xml(&[CALL.open], CALL.close, glm, &[VALUE.close, KEY.open]);
        s.ws_after_open = false;
        Some(s)
    }

    fn glm(l: &mut Lark, t: &ToolDef, vf: &[&'static str]) -> CallRule {
        let end = raw_end(l, VALUE.close, vf);
        let args = each_param(l, t, "glm45", xml_key_ok, "", |l, k, s, d| {
            format!(
                "{} {} {} \"\\n\"? {} {} \"\\n\"?",
                l.mark(KEY.open),
                lit(k),
                l.mark(KEY.close),
                l.mark(VALUE.open),
                raw_value(l, s, d, &end)
            )
        })?;
        Ok(format!("{} \"\\n\"?{args}", lit(&t.name)))
    }
}
