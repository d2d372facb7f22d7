//! Mistral: `[TOOL_CALLS][{"name", "arguments", "id"?}, …]` (v0.3, Nemo) and
//! `[TOOL_CALLS]name[CALL_ID]id[ARGS]{…}` / `[TOOL_CALLS]name{…}` (v11+), one
//! marker per call. Text after a call is content.

use super::stream::{find_any, skip_ws, starts, Balance, Emitter, Find, Machine, Scan, Text};
use serde_json::Value;

const MARK: &str = "[TOOL_CALLS]";

enum State {
    Content,
    /// After the marker: deciding between a list and a named call.
    Head {
        scanned: usize,
    },
    /// A JSON list of calls.
    List {
        balance: Balance,
    },
    /// A named call's arguments object.
    Args {
        name: String,
        id: Option<String>,
        balance: Balance,
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

fn is_name_end(b: u8) -> bool {
    b == b'{' || b == b'[' || b.is_ascii_whitespace()
}

impl Machine for Mistral {
    fn advance(&mut self, text: &mut Text, em: &mut Emitter, end: bool) -> bool {
        let rest = text.rest();
        if rest.is_empty() {
            if end {
                if let State::Head { .. } = self.state {
                    em.invalid(None, None, "", "`[TOOL_CALLS]` with no call after it");
                }
                self.state = State::Content;
            }
            return false;
        }
        match &mut self.state {
            State::Content => match find_any(rest, 0, &[MARK]) {
                Find::At { at, .. } => {
                    em.content(&rest[..at]);
                    text.consume(at + MARK.len());
                    self.state = State::Head { scanned: 0 };
                    true
                }
                Find::Partial { safe } => {
                    let n = if end { rest.len() } else { safe };
                    em.content(&rest[..n]);
                    text.consume(n);
                    false
                }
            },
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
                    self.state = State::List {
                        balance: Balance::default(),
                    };
                    return true;
                }
                let from = *scanned;
                let name_end = body.as_bytes()[from.min(body.len())..]
                    .iter()
                    .position(|&b| is_name_end(b))
                    .map(|p| p + from.min(body.len()));
                let Some(name_end) = name_end else {
                    if end {
                        em.invalid(None, Some(body.to_owned()), "", "the call has no arguments");
                        text.consume(rest.len());
                        self.state = State::Content;
                        return true;
                    }
                    *scanned = body.len();
                    return false;
                };
                let name = body[..name_end].to_owned();
                let after = &body[name_end..];
                if after.starts_with('{') {
                    text.consume(ws + name_end);
                    self.state = State::Args {
                        name,
                        id: None,
                        balance: Balance::default(),
                    };
                    return true;
                }
                if after.starts_with('[') {
                    for tag in ["[ARGS]", "[CALL_ID]"] {
                        match starts(after, tag) {
                            Some(true) if tag == "[ARGS]" => {
                                text.consume(ws + name_end + tag.len());
                                self.state = State::Args {
                                    name,
                                    id: None,
                                    balance: Balance::default(),
                                };
                                return true;
                            }
                            Some(true) => {
                                let id_part = &after[tag.len()..];
                                match id_part.find("[ARGS]") {
                                    Some(p) => {
                                        let id = id_part[..p].trim().to_owned();
                                        text.consume(ws + name_end + tag.len() + p + 6);
                                        self.state = State::Args {
                                            name,
                                            id: Some(id),
                                            balance: Balance::default(),
                                        };
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
                        self.state = State::List {
                            balance: Balance::default(),
                        };
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
            State::List { balance } => match balance.scan(rest, b"\"") {
                Scan::Done(n) => {
                    em.json_calls(&rest[..n]);
                    text.consume(n);
                    self.state = State::Content;
                    true
                }
                Scan::More if !end => false,
                Scan::More => {
                    em.invalid(None, None, rest, "the tool call list was cut off");
                    text.consume(rest.len());
                    self.state = State::Content;
                    true
                }
                Scan::Broken(e) => {
                    let n = balance.scanned;
                    em.invalid(None, None, &rest[..n], e);
                    text.consume(n);
                    self.state = State::Content;
                    true
                }
            },
            State::Args { name, id, balance } => match balance.scan(rest, b"\"") {
                Scan::Done(n) => {
                    let raw = &rest[..n];
                    match super::json::parse(raw) {
                        Ok(v @ Value::Object(_)) => em.call(id.take(), std::mem::take(name), v),
                        Ok(_) => em.invalid(
                            id.take(),
                            Some(std::mem::take(name)),
                            raw,
                            "arguments must be an object",
                        ),
                        Err(e) => em.invalid(
                            id.take(),
                            Some(std::mem::take(name)),
                            raw,
                            format!("arguments are not JSON: {e}"),
                        ),
                    }
                    text.consume(n);
                    self.state = State::Content;
                    true
                }
                Scan::More if !end => false,
                Scan::More => {
                    em.invalid(
                        id.take(),
                        Some(std::mem::take(name)),
                        rest,
                        "the arguments were cut off",
                    );
                    text.consume(rest.len());
                    self.state = State::Content;
                    true
                }
                Scan::Broken(e) => {
                    let n = balance.scanned;
                    em.invalid(id.take(), Some(std::mem::take(name)), &rest[..n], e);
                    text.consume(n);
                    self.state = State::Content;
                    true
                }
            },
        }
    }
}
