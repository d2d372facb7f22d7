//! DeepSeek V3 (`<｜tool▁call▁begin｜>function<｜tool▁sep｜>name` then a
//! ```` ```json ```` block) and V3.1 (`<｜tool▁call▁begin｜>name<｜tool▁sep｜>{…}`),
//! inside `<｜tool▁calls▁begin｜>…<｜tool▁calls▁end｜>`. One machine reads both.
//! Text after the section is dropped, as DeepSeek's servers do; a section that
//! never holds a call is given back as content.

use super::stream::{find_any, Emitter, Find, Machine, Text};
use serde_json::Value;

const CALLS_BEGIN: &str = "<｜tool▁calls▁begin｜>";
const CALLS_END: &str = "<｜tool▁calls▁end｜>";
const CALL_BEGIN: &str = "<｜tool▁call▁begin｜>";
const SEP: &str = "<｜tool▁sep｜>";
const CALL_END: &str = "<｜tool▁call▁end｜>";

enum State {
    Content,
    Section,
    Call,
    Done,
}

struct Deepseek {
    state: State,
    scanned: usize,
    /// The section's text while it has no call yet.
    pending: Option<String>,
}

pub(crate) fn machine() -> Box<dyn Machine> {
    Box::new(Deepseek {
        state: State::Content,
        scanned: 0,
        pending: None,
    })
}

fn strip_fence(s: &str) -> &str {
    let s = s.trim();
    let s = s
        .strip_prefix("```json")
        .or_else(|| s.strip_prefix("```"))
        .unwrap_or(s);
    s.strip_suffix("```").unwrap_or(s).trim()
}

fn emit_call(body: &str, em: &mut Emitter) {
    let Some((head, tail)) = body.split_once(SEP) else {
        em.invalid(None, None, body, "no `<｜tool▁sep｜>` in the call");
        return;
    };
    let (name, args) = if head.trim() == "function" {
        // V3: the name runs to the end of the line, then the fenced JSON.
        match tail.find(['\n', '`']) {
            Some(p) => (tail[..p].trim(), strip_fence(&tail[p..])),
            None => (tail.trim(), ""),
        }
    } else {
        (head.trim(), strip_fence(tail))
    };
    if name.is_empty() {
        em.invalid(None, None, args, "the call has no name");
        return;
    }
    if args.is_empty() {
        em.call(None, name.to_owned(), Value::Object(Default::default()));
        return;
    }
    match super::json::parse(args) {
        Ok(v @ Value::Object(_)) => em.call(None, name.to_owned(), v),
        Ok(_) => em.invalid(
            None,
            Some(name.to_owned()),
            args,
            "arguments must be an object",
        ),
        Err(e) => em.invalid(
            None,
            Some(name.to_owned()),
            args,
            format!("arguments are not JSON: {e}"),
        ),
    }
}

impl Deepseek {
    fn hold(&mut self, s: &str) {
        if let Some(p) = &mut self.pending {
            p.push_str(s);
        }
    }
}

impl Machine for Deepseek {
    fn advance(&mut self, text: &mut Text, em: &mut Emitter, end: bool) -> bool {
        let rest = text.rest();
        let markers: &[&str] = match self.state {
            State::Content => &[CALLS_BEGIN, CALL_BEGIN],
            State::Section => &[CALL_BEGIN, CALLS_END],
            State::Call => &[CALL_END, CALLS_END],
            State::Done => {
                text.consume(rest.len());
                return false;
            }
        };
        if rest.is_empty() && !end {
            return false;
        }
        let found = find_any(rest, self.scanned.min(rest.len()), markers);
        match (&self.state, found) {
            (State::Content, Find::At { at, which }) => {
                em.content(&rest[..at]);
                text.consume(at + markers[which].len());
                if which == 0 {
                    self.pending = Some(CALLS_BEGIN.to_owned());
                    self.state = State::Section;
                } else {
                    self.state = State::Call;
                }
            }
            (State::Content, Find::Partial { safe }) => {
                let n = if end { rest.len() } else { safe };
                em.content(&rest[..n]);
                text.consume(n);
                return false;
            }
            (State::Section, Find::At { at, which }) => {
                let s = rest[..at + markers[which].len()].to_owned();
                text.consume(s.len());
                if which == 0 {
                    self.pending = None;
                    self.state = State::Call;
                } else {
                    self.hold(&s);
                    self.state = State::Done;
                }
            }
            (State::Call, Find::At { at, which }) => {
                let body = rest[..at].to_owned();
                text.consume(at + markers[which].len());
                emit_call(&body, em);
                self.state = if which == 0 {
                    State::Section
                } else {
                    State::Done
                };
            }
            (State::Call, Find::Partial { .. }) if end => {
                let body = rest.to_owned();
                text.consume(body.len());
                if !body.trim().is_empty() {
                    emit_call(&body, em);
                }
                self.state = State::Done;
            }
            (State::Section, Find::Partial { .. }) if end => {
                let s = rest.to_owned();
                text.consume(s.len());
                self.hold(&s);
                if let Some(p) = self.pending.take() {
                    em.content(&p);
                }
                self.state = State::Done;
            }
            (_, Find::Partial { safe }) => {
                self.scanned = safe;
                return false;
            }
            (State::Done, _) => return false,
        }
        self.scanned = 0;
        true
    }
}
