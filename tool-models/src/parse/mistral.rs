//! Mistral: `[TOOL_CALLS][{"name", "arguments", "id"?}, …]` (v0.3, Nemo) and
//! `[TOOL_CALLS]name[CALL_ID]id[ARGS]{…}` / `[TOOL_CALLS]name{…}` (v11+), one
//! marker per call; a name with nothing after it is a call without
//! arguments. Text after a call is content.

use super::family::{grammar_fn, Family, Rule};
use super::partial_call::{call_prefix, BodyCalls, NamedArguments};
use super::stream::{
    content_past, find_any, skip_ws, starts, valid_name, Balance, Emitter, Find, Machine, Scan,
    Text,
};
use super::think::ThinkMarkers;
use super::Format;
use serde_json::{Map, Value};

const MARK: &str = "[TOOL_CALLS]";

enum State {
    Content,
    /// After the marker: deciding between a list and a named call.
    Head {
        scanned: usize,
    },
    /// A JSON list of calls, streamed call by call.
    List {
        balance: Balance,
        calls: BodyCalls,
    },
    /// A named call's arguments object, streamed as it grows.
    Args {
        name: String,
        id: Option<String>,
        balance: Balance,
        streamed: NamedArguments,
    },
    /// Unreadable text up to the next marker.
    Junk {
        scanned: usize,
    },
}

struct Mistral {
    state: State,
}

pub(crate) fn machine() -> Box<dyn Machine> {
    Box::new(Mistral {
        state: State::Content,
    })
}

/// `[TOOL_CALLS]name` with no arguments after it: a call with `{}`, as
/// vLLM reads it, when `name` can be a tool's name.
fn no_arguments(em: &mut Emitter, name: &str) {
    let name = name.trim();
    if valid_name(name) {
        em.call(None, name.to_owned(), Value::Object(Map::new()));
    } else {
        em.invalid(None, Some(name.to_owned()), "", "the call has no arguments");
    }
}

fn list() -> State {
    State::List {
        balance: Balance::default(),
        calls: BodyCalls::new(call_prefix),
    }
}

fn args(name: String, id: Option<String>) -> State {
    State::Args {
        streamed: NamedArguments::new(&name, id.clone()),
        name,
        id,
        balance: Balance::default(),
    }
}

fn is_name_end(b: u8) -> bool {
    b == b'{' || b == b'[' || b.is_ascii_whitespace()
}

impl Machine for Mistral {
    fn ended(&mut self, em: &mut Emitter) {
        match std::mem::replace(&mut self.state, State::Content) {
            State::Head { .. } => {
                em.invalid(None, None, "", "`[TOOL_CALLS]` with no call after it")
            }
            // `name[ARGS]` and nothing more: a call without arguments.
            State::Args { name, id, .. } => em.call(id, name, Value::Object(Map::new())),
            _ => {}
        }
    }

    fn advance(&mut self, text: &mut Text, em: &mut Emitter, end: bool) -> bool {
        let rest = text.rest();
        match &mut self.state {
            State::Content => {
                if content_past(text, em, &[MARK], end).is_none() {
                    return false;
                }
                self.state = State::Head { scanned: 0 };
                true
            }
            State::Head { scanned } => {
                let Some(ws) = skip_ws(rest) else {
                    if end {
                        text.consume(rest.len());
                        em.invalid(None, None, "", "`[TOOL_CALLS]` with no call after it");
                        self.state = State::Content;
                        return true;
                    }
                    return false;
                };
                let body = &rest[ws..];
                if body.starts_with('[') {
                    text.consume(ws);
                    self.state = list();
                    return true;
                }
                let from = *scanned;
                let name_end = body.as_bytes()[from.min(body.len())..]
                    .iter()
                    .position(|&b| is_name_end(b))
                    .map(|p| p + from.min(body.len()));
                let Some(name_end) = name_end else {
                    if end {
                        no_arguments(em, body);
                        text.consume(rest.len());
                        self.state = State::Content;
                        return true;
                    }
                    *scanned = body.len();
                    return false;
                };
                let name = body[..name_end].to_owned();
                let after = &body[name_end..];
                // `[TOOL_CALLS]name` then the next call or the end: no arguments.
                let next = match skip_ws(after) {
                    Some(ws2) => starts(&after[ws2..], MARK),
                    None if end => Some(true),
                    None => None,
                };
                match next {
                    Some(true) => {
                        no_arguments(em, &name);
                        text.consume(ws + name_end);
                        self.state = State::Content;
                        return true;
                    }
                    None if !end => return false,
                    _ => {}
                }
                if after.starts_with('{') {
                    text.consume(ws + name_end);
                    self.state = args(name, None);
                    return true;
                }
                if after.starts_with('[') {
                    for tag in ["[ARGS]", "[CALL_ID]"] {
                        match starts(after, tag) {
                            Some(true) if tag == "[ARGS]" => {
                                text.consume(ws + name_end + tag.len());
                                self.state = args(name, None);
                                return true;
                            }
                            Some(true) => {
                                let id_part = &after[tag.len()..];
                                match id_part.find("[ARGS]") {
                                    Some(p) => {
                                        let id = id_part[..p].trim().to_owned();
                                        text.consume(ws + name_end + tag.len() + p + 6);
                                        self.state = args(name, Some(id));
                                        return true;
                                    }
                                    None if end => {
                                        em.invalid(
                                            None,
                                            Some(name),
                                            id_part,
                                            "no `[ARGS]` after `[CALL_ID]`",
                                        );
                                        text.consume(rest.len());
                                        self.state = State::Content;
                                        return true;
                                    }
                                    None => return false,
                                }
                            }
                            None if !end => return false,
                            _ => {}
                        }
                    }
                }
                // Junk before a list (`[TOOL_CALLS] junk [{…}]`): skip to the list.
                if let Some(ws2) = skip_ws(after) {
                    if after[ws2..].starts_with('[') && !after[ws2..].starts_with("[ARGS]") {
                        text.consume(ws + name_end + ws2);
                        self.state = list();
                        return true;
                    }
                } else if !end {
                    return false;
                }
                self.state = State::Junk { scanned: 0 };
                true
            }
            State::Junk { scanned } => match find_any(rest, *scanned, &[MARK]) {
                Find::At { at, .. } => {
                    em.invalid(None, None, &rest[..at], "not a Mistral tool call");
                    text.consume(at);
                    self.state = State::Content;
                    true
                }
                Find::Partial { safe } => {
                    if end {
                        em.invalid(None, None, rest, "not a Mistral tool call");
                        text.consume(rest.len());
                        self.state = State::Content;
                        return true;
                    }
                    *scanned = safe;
                    false
                }
            },
            // A list read, whole or not, is followed by content.
            State::List { balance, calls } => {
                let n = match balance.scan(rest, b"\"") {
                    Scan::More if !end => {
                        calls.feed(rest, em);
                        return false;
                    }
                    Scan::Done(n) => {
                        calls.finish(&rest[..n], em);
                        em.json_calls(&rest[..n]);
                        n
                    }
                    Scan::More => {
                        em.invalid(None, None, rest, "the tool call list was cut off");
                        rest.len()
                    }
                    Scan::Broken(e) => {
                        em.invalid(None, None, &rest[..balance.scanned], e);
                        balance.scanned
                    }
                };
                text.consume(n);
                self.state = State::Content;
                true
            }
            State::Args { name, id, .. }
                if skip_ws(rest).is_some_and(|ws| starts(&rest[ws..], MARK) == Some(true)) =>
            {
                em.call(id.take(), std::mem::take(name), Value::Object(Map::new()));
                self.state = State::Content;
                true
            }
            // So are a call's arguments.
            State::Args {
                name,
                id,
                balance,
                streamed,
            } => {
                let n = match balance.scan(rest, b"\"") {
                    Scan::More if !end => {
                        streamed.feed(rest, em);
                        return false;
                    }
                    Scan::Done(n) => {
                        let raw = &rest[..n];
                        streamed.finish(raw, em);
                        em.json_arguments_call(id.take(), std::mem::take(name), raw);
                        n
                    }
                    Scan::More if rest.trim().is_empty() => {
                        em.call(id.take(), std::mem::take(name), Value::Object(Map::new()));
                        rest.len()
                    }
                    Scan::More => {
                        let error = "the arguments were cut off";
                        em.invalid(id.take(), Some(std::mem::take(name)), rest, error);
                        rest.len()
                    }
                    Scan::Broken(e) => {
                        let raw = &rest[..balance.scanned];
                        em.invalid(id.take(), Some(std::mem::take(name)), raw, e);
                        balance.scanned
                    }
                };
                text.consume(n);
                self.state = State::Content;
                true
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::parse::{Format, ParseOptions};
    use serde_json::json;

    fn calls(text: &str) -> Vec<(String, serde_json::Value)> {
        let r = Format::Mistral.parse(text, &ParseOptions::default());
        assert!(
            r.invalid_tool_calls.is_empty(),
            "{:?}",
            r.invalid_tool_calls
        );
        r.tool_calls
            .into_iter()
            .map(|c| (c.name, c.arguments))
            .collect()
    }

    #[test]
    fn a_name_without_arguments_is_a_call_with_none() {
        // vLLM tests/parser/mistral/test_tool_calls.py::test_extract_tool_calls_v11_without_args_skipped
        assert_eq!(
            calls("[TOOL_CALLS]toolname_no_args"),
            [("toolname_no_args".to_owned(), json!({}))]
        );
        assert_eq!(
            calls("[TOOL_CALLS]get_time \n"),
            [("get_time".to_owned(), json!({}))]
        );
        assert_eq!(
            calls("[TOOL_CALLS]get_time[ARGS]"),
            [("get_time".to_owned(), json!({}))]
        );
        assert_eq!(
            calls("[TOOL_CALLS]a[TOOL_CALLS]b[ARGS]{\"x\": 1}[TOOL_CALLS]c[ARGS][TOOL_CALLS]d"),
            [
                ("a".to_owned(), json!({})),
                ("b".to_owned(), json!({"x": 1})),
                ("c".to_owned(), json!({})),
                ("d".to_owned(), json!({})),
            ]
        );
        // Cut anywhere, the same.
        let text = "[TOOL_CALLS]a[TOOL_CALLS]b[ARGS]{\"x\": 1}[TOOL_CALLS]c";
        let whole = Format::Mistral.parse(text, &ParseOptions::default());
        for i in 1..text.len() {
            let mut p = Format::Mistral.stream(&ParseOptions::default());
            let mut c = crate::parse::Collector::default();
            c.extend(p.feed(&text[..i]));
            c.extend(p.feed(&text[i..]));
            c.extend(p.finish());
            assert_eq!(c.finish(), whole, "cut at {i}");
        }
        // A name that cannot be one is still reported.
        let r = Format::Mistral.parse("[TOOL_CALLS]not a name", &ParseOptions::default());
        assert!(r.tool_calls.is_empty());
        assert_eq!(r.invalid_tool_calls.len(), 1);
    }
}

/// Mistral.
pub(crate) const MISTRAL: Family = Family::new(Format::Mistral, "mistral", |_| machine())
    .detect(&[Rule::at(200, &[MARK])])
    .think(ThinkMarkers {
        open: "[THINK]",
        close: "[/THINK]",
        exits: &[],
    })
    .grammar(grammar_fn!(grammar::syntax));

/// v11 and later (`[ARGS]` special) name each call; earlier versions write a JSON list.
#[cfg(feature = "local")]
mod grammar {
    use super::MARK;
    use crate::constrain::syntax::{
        args_json, lit, CallRule, Calls, Id, Keys, Lark, Syntax, ToolDef,
    };

    pub(super) fn syntax(lark: &Lark) -> Option<Syntax> {
        if lark.is_special("[ARGS]") {
            return Some(Syntax::per_tool(&[MARK], None, mistral_v11, false));
        }
        let mut s = Syntax::json(&[MARK], None, true);
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
        Some(s)
    }

    fn mistral_v11(l: &mut Lark, t: &ToolDef, vf: &[&'static str]) -> CallRule {
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
}
