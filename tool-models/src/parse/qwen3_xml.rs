//! Qwen3-Coder XML (also Nemotron 3, StepFun 3.5, Qwen 3.5, and Seed-OSS
//! inside `<seed:tool_call>`):
//! `<tool_call><function=name><parameter=key>value</parameter></function></tool_call>`,
//! the opening `<tool_call>` sometimes left out. Values are raw text, typed
//! by the tool's JSON schema.
//!
//! A value may itself contain `</parameter>` or `<parameter=…>` (code that
//! writes tool calls). `</parameter>` only ends a value when what follows is
//! another parameter this call can still take, `</function>`, or the end; an
//! unclosed value ends at `<parameter=k>` only for a schema key not yet seen.

use super::family::{grammar_fn, Family, Rule};
use super::schema::Tools;
use super::stream::{
    content_until, find_any, past_optional_closer, skip_ws, starts, valid_name, Emitter, Find,
    Machine, Tags, Text,
};
use super::think::ThinkMarkers;
use super::think::THINK;
use super::xml_call::XmlCall;
use super::Format;

const FUNCTION: Tags = Tags::new("<function=", "</function>");
const PARAM: Tags = Tags::new("<parameter=", "</parameter>");

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

/// The tags around a call and how values sit between their tags.
#[derive(Clone, Copy)]
struct Wrapper {
    open: &'static str,
    close: &'static str,
    /// Qwen3-Coder's template writes a newline on each side of a value;
    /// Seed-OSS's writes the value alone, so its newlines are its own.
    newlines: bool,
    /// Whether `<function=` opens a call without the wrapper (Qwen3-Coder
    /// models often leave `<tool_call>` out; Seed-OSS's never do).
    bare: bool,
}

const QWEN3: Wrapper = Wrapper {
    open: "<tool_call>",
    close: "</tool_call>",
    newlines: true,
    bare: true,
};

const SEED_OSS_WRAPPER: Wrapper = Wrapper {
    open: "<seed:tool_call>",
    close: "</seed:tool_call>",
    newlines: false,
    bare: false,
};

struct Qwen3Xml {
    wrapper: Wrapper,
    state: State,
    call: XmlCall,
}

pub(crate) fn machine(tools: &Tools) -> Box<dyn Machine> {
    Box::new(Qwen3Xml::new(QWEN3, tools))
}

/// Seed-OSS: the same calls inside `<seed:tool_call>…</seed:tool_call>`.
pub(crate) fn machine_seed_oss(tools: &Tools) -> Box<dyn Machine> {
    Box::new(Qwen3Xml::new(SEED_OSS_WRAPPER, tools))
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
    fn new(wrapper: Wrapper, tools: &Tools) -> Qwen3Xml {
        Qwen3Xml {
            wrapper,
            state: State::Content,
            call: XmlCall::new(tools, FUNCTION.close),
        }
    }

    /// Can a parameter named `key` start now?
    fn can_take(&self, key: &str) -> bool {
        if self.call.has(key) {
            return false;
        }
        match self.call.tools.properties(&self.call.name) {
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
        match starts(t, FUNCTION.close) {
            Some(true) => return Lookahead::Ends,
            None if !end => return Lookahead::Undecided,
            _ => {}
        }
        match starts(t, PARAM.open) {
            Some(true) => match t[PARAM.open.len()..].find('>') {
                Some(p) => {
                    if self.can_take(&t[PARAM.open.len()..PARAM.open.len() + p]) {
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

    fn set_value(&mut self, em: &mut Emitter, key: String, raw: &str) {
        let raw = if self.wrapper.newlines {
            unwrap_value(raw)
        } else {
            raw
        };
        self.call.set(em, &key, raw);
    }

    fn advance_value(&mut self, text: &mut Text, em: &mut Emitter, end: bool) -> bool {
        let State::Value { key, scanned } = &self.state else {
            return false;
        };
        let (key_name, start_from) = (key.clone(), *scanned);
        let rest = text.rest();
        let mut from = start_from;
        loop {
            match find_any(rest, from, &[PARAM.close, PARAM.open]) {
                Find::At { at, which: 0 } => {
                    match self.closes(&rest[at + PARAM.close.len()..], end) {
                        Lookahead::Ends => {
                            let raw = rest[..at].to_owned();
                            text.consume(at + PARAM.close.len());
                            self.set_value(em, key_name, &raw);
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
                    let t = &rest[at + PARAM.open.len()..];
                    match t.find('>') {
                        Some(p) if self.can_take(&t[..p]) => {
                            let raw = rest[..at].to_owned();
                            text.consume(at);
                            self.set_value(em, key_name, &raw);
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
                        self.set_value(em, key_name, raw.trim_end());
                        self.call.cut_off(em);
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
    fn ended(&mut self, em: &mut Emitter) {
        match std::mem::replace(&mut self.state, State::Content) {
            State::Params | State::Value { .. } => self.call.cut_off(em),
            State::Skip { name, .. } => em.invalid(None, None, &name, "invalid function name"),
            _ => {}
        }
    }

    fn advance(&mut self, text: &mut Text, em: &mut Emitter, end: bool) -> bool {
        let rest = text.rest();
        match &mut self.state {
            State::Content => {
                let markers =
                    &[self.wrapper.open, FUNCTION.open][..if self.wrapper.bare { 2 } else { 1 }];
                self.state = match content_until(text, em, markers, end) {
                    None => return false,
                    Some(0) => State::Wrapper,
                    Some(_) => State::Header,
                };
                true
            }
            State::Wrapper => {
                let open = self.wrapper.open;
                let after = &rest[open.len()..];
                let decided = match skip_ws(after) {
                    Some(ws) => starts(&after[ws..], FUNCTION.open).map(|f| (f, ws)),
                    None => None,
                };
                match decided {
                    Some((true, ws)) => {
                        text.consume(open.len() + ws);
                        self.state = State::Header;
                    }
                    None if !end => return false,
                    _ => {
                        // `<tool_call>` with no function: narrative text.
                        em.content(open);
                        text.consume(open.len());
                        self.state = State::Content;
                    }
                }
                true
            }
            State::Header => {
                let after = &rest[FUNCTION.open.len()..];
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
                    text.consume(FUNCTION.open.len() + p + 1);
                    self.call.start(em, &name);
                    self.state = State::Params;
                } else {
                    text.consume(FUNCTION.open.len() + p);
                    self.state = State::Skip { name, scanned: 0 };
                }
                true
            }
            State::Skip { name, scanned } => {
                let close = self.wrapper.close;
                match find_any(rest, *scanned, &[close, FUNCTION.close]) {
                    Find::At { at, which } => {
                        let n = at
                            + if which == 0 {
                                close.len()
                            } else {
                                FUNCTION.close.len()
                            };
                        em.invalid(
                            None,
                            None,
                            &format!("{}{name}{}", FUNCTION.open, &rest[..n]),
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
                if let Some(true) = starts(t, FUNCTION.close) {
                    text.consume(ws + FUNCTION.close.len());
                    self.call.finish(em);
                    self.state = State::After;
                    return true;
                }
                if let Some(true) = starts(t, PARAM.open) {
                    let Some(p) = t[PARAM.open.len()..].find('>') else {
                        if end {
                            text.consume(rest.len());
                            return true;
                        }
                        return false;
                    };
                    let key = t[PARAM.open.len()..PARAM.open.len() + p].trim().to_owned();
                    text.consume(ws + PARAM.open.len() + p + 1);
                    self.state = State::Value { key, scanned: 0 };
                    return true;
                }
                let undecided =
                    starts(t, FUNCTION.close).is_none() || starts(t, PARAM.open).is_none();
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
            State::After => past_optional_closer(
                text,
                self.wrapper.close,
                end,
                &mut self.state,
                State::Content,
            ),
        }
    }

    // A value held back at a `</parameter>` is decided by one more look.
    fn finish(&mut self, text: &mut Text, em: &mut Emitter) {
        while !text.rest().is_empty() && self.advance(text, em, true) {}
        if !text.rest().is_empty() {
            self.advance(text, em, true);
        }
        if text.rest().is_empty() {
            self.ended(em);
        }
    }
}

/// Qwen3-Coder XML.
pub(crate) const QWEN3_XML: Family = Family::new(Format::Qwen3Xml, "qwen3_xml", machine)
    .aliases(&["qwen3_coder"])
    .detect(&[Rule::at(110, &[FUNCTION.open])])
    .think(ThinkMarkers {
        exits: &[QWEN3.open, FUNCTION.open],
        ..THINK
    })
    .grammar(grammar_fn!(grammar::syntax));

/// Seed-OSS.
pub(crate) const SEED_OSS: Family = Family::new(Format::SeedOss, "seed_oss", machine_seed_oss)
    .detect(&[Rule::at(80, &[SEED_OSS_WRAPPER.open])])
    .think(ThinkMarkers {
        open: "<seed:think>",
        close: "</seed:think>",
        exits: &[SEED_OSS_WRAPPER.open],
    })
    .grammar(grammar_fn!(grammar::syntax_seed_oss));

/// `<function=name>` calls with `<parameter=k>` values, in the family's wrapper.
#[cfg(feature = "local")]
mod grammar {
    use super::{FUNCTION, PARAM, QWEN3, SEED_OSS_WRAPPER};
    use crate::constrain::syntax::{
        each_param, lit, raw_end, raw_value, xml, xml_key_ok, CallRule, Lark, Syntax, ToolDef,
    };

    pub(super) fn syntax(_: &Lark) -> Option<Syntax> {
        let mut s = xml(
            &[QWEN3.open],
            QWEN3.close,
            qwen3_xml,
            &[PARAM.close, PARAM.open],
        );
        // The parser also reads a call whose `<tool_call>` was left out.
        s.text_forbidden.push(lit(FUNCTION.open));
        Some(s)
    }

    pub(super) fn syntax_seed_oss(_: &Lark) -> Option<Syntax> {
        Some(xml(
            &[SEED_OSS_WRAPPER.open],
            SEED_OSS_WRAPPER.close,
            seed_oss,
            &[PARAM.close, PARAM.open],
        ))
    }

    fn qwen3_xml(l: &mut Lark, t: &ToolDef, vf: &[&'static str]) -> CallRule {
        function_xml(l, t, vf, "qwen3_xml", "\n")
    }

    fn seed_oss(l: &mut Lark, t: &ToolDef, vf: &[&'static str]) -> CallRule {
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
    ) -> CallRule {
        let end = raw_end(
            l,
            if nl.is_empty() {
                PARAM.close
            } else {
                "\n</parameter>"
            },
            vf,
        );
        let args = each_param(l, t, format, xml_key_ok, "", |l, k, s, d| {
            format!(
                "{} {} \"\\n\"",
                lit(&format!("{}{k}>{nl}", PARAM.open)),
                raw_value(l, s, d, &end)
            )
        })?;
        Ok(format!(
            "{}{args} \"</function>\"",
            lit(&format!("{}{}>\n", FUNCTION.open, t.name))
        ))
    }
}
