//! Pythonic call lists: `[get_weather(city='LA'), f()]`. Llama 3.2/4 write
//! them bare or between `<|python_start|>` and `<|python_end|>`; LFM2 only
//! between `<|tool_call_start|>` and `<|tool_call_end|>`, so a bare list
//! there is text. A call that cannot be read does not drop its readable
//! siblings. Arguments stream value by value.

use super::family::{grammar_fn, Family, Rule};
use super::json::Py;
use super::partial_call::Pairs;
use super::stream::{
    content_until, past_optional_closer, skip_ws, Balance, Emitter, Machine, Scan, Text,
};
use super::think::THINK;
use super::Format;
use serde_json::{Map, Value};

/// A pythonic format's markers.
struct Markers {
    start: &'static str,
    end: &'static str,
    /// Whether a bare `[f(…)]` in the text is a call list too.
    bare: bool,
}

const LLAMA_MARKERS: Markers = Markers {
    start: "<|python_start|>",
    end: "<|python_end|>",
    bare: true,
};

const LFM2_MARKERS: Markers = Markers {
    start: "<|tool_call_start|>",
    end: "<|tool_call_end|>",
    bare: false,
};

enum State {
    Content,
    /// After the start marker: whitespace before the list, skipped however
    /// the text is cut.
    Lead,
    /// At a `[`: is it a call list?
    Open,
    Body {
        balance: Balance,
        broken: Option<String>,
        streamed: Streamed,
    },
    After,
}

struct Pythonic {
    state: State,
    markers: Markers,
}

pub(crate) fn machine() -> Box<dyn Machine> {
    Box::new(Pythonic {
        state: State::Content,
        markers: LLAMA_MARKERS,
    })
}

/// LFM2 and LFM2.5: `<|tool_call_start|>[f(a=1)]<|tool_call_end|>`.
pub(crate) fn machine_lfm2() -> Box<dyn Machine> {
    Box::new(Pythonic {
        state: State::Content,
        markers: LFM2_MARKERS,
    })
}

fn body() -> State {
    State::Body {
        balance: Balance::default(),
        broken: None,
        streamed: Streamed::default(),
    }
}

/// The calls of a list being written, streamed value by value: a call
/// starts at its `(`, each argument goes out once a `,` or `)` follows it,
/// and the call's arguments are complete at its `)`. The calls end when
/// the list is read; streaming stops at anything it cannot read, which
/// the whole reading then reports.
#[derive(Default)]
struct Streamed {
    /// Bytes of the body read.
    at: usize,
    /// Bytes of the body seen when it last waited for more.
    seen: usize,
    opened: bool,
    stopped: bool,
    /// A call was read: the next one follows a comma.
    any_call: bool,
    /// The call being written and the keys it has sent.
    call: Option<(String, Vec<String>)>,
    pairs: Pairs,
}

/// What the step at the reading position found.
enum Step {
    /// It was read up to this byte.
    Read(usize),
    /// More text is needed.
    Wait,
    /// It cannot be read as calls.
    Stop,
}

/// A name at the reading position; without one, whether more text may
/// still bring it.
fn identifier(p: &mut Py<'_>) -> Result<String, Step> {
    if let Some(name) = p.ident().map(str::to_owned) {
        return Ok(name);
    }
    Err(if p.peek().is_none() {
        Step::Wait
    } else {
        Step::Stop
    })
}

impl Streamed {
    fn feed(&mut self, body: &str, em: &mut Emitter) {
        // Nothing completes without one of these bytes.
        let new = &body.as_bytes()[self.seen.min(body.len())..];
        if !new.iter().any(|b| b",()=[]".contains(b)) {
            self.seen = body.len();
            return;
        }
        while !self.stopped {
            match self.step(body, em) {
                Step::Read(at) => self.at = at,
                Step::Wait => break,
                Step::Stop => self.stopped = true,
            }
        }
        self.seen = body.len();
    }

    /// The whole list: what was streamed is completed; a list read in one
    /// piece is left whole to the reader.
    fn finish(&mut self, body: &str, em: &mut Emitter) {
        if self.any_call {
            self.feed(body, em);
        }
    }

    fn step(&mut self, body: &str, em: &mut Emitter) -> Step {
        let mut p = Py {
            s: body.as_bytes(),
            text: body,
            i: self.at,
        };
        p.ws();
        if p.peek().is_none() {
            return Step::Wait;
        }
        if !self.opened {
            self.opened = true;
            return if p.eat(b'[') {
                Step::Read(p.i)
            } else {
                Step::Stop
            };
        }
        let Some((name, keys)) = &mut self.call else {
            // A call's name and `(`, after the `,` that ends the last one.
            if self.any_call {
                if !p.eat(b',') {
                    return Step::Stop;
                }
                p.ws();
            }
            let name = match identifier(&mut p) {
                Ok(name) => name,
                Err(step) => return step,
            };
            p.ws();
            return match p.peek() {
                None => Step::Wait,
                Some(b'(') => {
                    self.pairs.start(em, &name);
                    self.any_call = true;
                    self.call = Some((name, Vec::new()));
                    Step::Read(p.i + 1)
                }
                Some(_) => Step::Stop,
            };
        };
        if p.eat(b')') {
            em.arguments_complete();
            self.call = None;
            return Step::Read(p.i);
        }
        let key = match identifier(&mut p) {
            Ok(key) => key,
            Err(step) => return step,
        };
        p.ws();
        match p.peek() {
            None => return Step::Wait,
            Some(b'=') => p.i += 1,
            Some(_) => return Step::Stop,
        }
        let Ok(value) = p.value(1) else {
            return Step::Wait;
        };
        p.ws();
        match p.peek() {
            None => return Step::Wait,
            Some(b',') => p.i += 1,
            Some(b')') => {}
            Some(_) => return Step::Stop,
        }
        if !keys.contains(&key) {
            self.pairs.push(em, name, &key, &value);
            keys.push(key);
        }
        Step::Read(p.i)
    }
}

/// `[` ws* ident ws* `(`: `Some(true)`; cannot be: `Some(false)`; undecided: `None`.
fn opens_calls(s: &str) -> Option<bool> {
    let b = s.as_bytes();
    let mut i = 1;
    while i < b.len() && b[i].is_ascii_whitespace() {
        i += 1;
    }
    let id_start = i;
    while i < b.len() && (b[i].is_ascii_alphanumeric() || matches!(b[i], b'_' | b'.' | b'-')) {
        i += 1;
    }
    if i == b.len() {
        return None;
    }
    if i == id_start || b[id_start].is_ascii_digit() {
        return Some(false);
    }
    while i < b.len() && b[i].is_ascii_whitespace() {
        i += 1;
    }
    if i == b.len() {
        return None;
    }
    Some(b[i] == b'(')
}

/// Reads `[call, call…]`, reporting each call; `text` may be cut off.
fn read_calls(text: &str, em: &mut Emitter) {
    let mut p = Py {
        s: text.as_bytes(),
        text,
        i: 0,
    };
    if !p.eat(b'[') {
        em.invalid(None, None, text, "expected `[`");
        return;
    }
    loop {
        p.ws();
        if p.eat(b']') || p.i >= p.s.len() {
            return;
        }
        let start = p.i;
        match read_call(&mut p) {
            Ok((name, args)) => em.call(None, name, args),
            Err((name, e)) => {
                // Resynchronise after the call's closing parenthesis.
                let mut b = Balance::default();
                match b.scan(&text[start..], b"\"'") {
                    Scan::Done(n) => {
                        em.invalid(None, name, &text[start..start + n], e);
                        p.i = start + n;
                    }
                    _ => {
                        em.invalid(None, name, &text[start..], e);
                        return;
                    }
                }
            }
        }
        if p.eat(b',') {
            continue;
        }
        if p.eat(b']') {
            return;
        }
        if p.i < p.s.len() {
            em.invalid(
                None,
                None,
                &text[p.i..],
                "expected `,` or `]` between calls",
            );
        }
        return;
    }
}

type CallErr = (Option<String>, String);

fn read_call(p: &mut Py<'_>) -> Result<(String, Value), CallErr> {
    let name = p
        .ident()
        .ok_or((None, "expected a function name".to_owned()))?
        .to_owned();
    let err = |e: String| (Some(name.clone()), e);
    if !p.eat(b'(') {
        return Err(err("expected `(`".into()));
    }
    let mut args = Map::new();
    loop {
        if p.eat(b')') {
            return Ok((name, Value::Object(args)));
        }
        let key = p
            .ident()
            .ok_or_else(|| err("expected a keyword argument".into()))?
            .to_owned();
        if !p.eat(b'=') {
            return Err(err(format!("expected `=` after `{key}`")));
        }
        let v = p.value(1).map_err(err)?;
        // The first of a key written twice, as streaming sent it.
        args.entry(key).or_insert(v);
        if p.eat(b',') {
            continue;
        }
        if p.eat(b')') {
            return Ok((name, Value::Object(args)));
        }
        return Err(err("expected `,` or `)`".into()));
    }
}

impl Machine for Pythonic {
    fn advance(&mut self, text: &mut Text, em: &mut Emitter, end: bool) -> bool {
        let rest = text.rest();
        match &mut self.state {
            State::Content => {
                let markers = &[self.markers.start, "["][..if self.markers.bare { 2 } else { 1 }];
                match content_until(text, em, markers, end) {
                    None => return false,
                    Some(0) => {
                        text.consume(self.markers.start.len());
                        self.state = State::Lead;
                    }
                    Some(_) => self.state = State::Open,
                }
                true
            }
            State::Lead => match skip_ws(rest) {
                Some(ws) => {
                    text.consume(ws);
                    self.state = body();
                    true
                }
                None => {
                    text.consume(rest.len());
                    if end {
                        self.state = body();
                    }
                    end
                }
            },
            State::Open => match opens_calls(rest) {
                Some(true) => {
                    self.state = body();
                    true
                }
                None if !end => false,
                _ => {
                    em.content("[");
                    text.consume(1);
                    self.state = State::Content;
                    true
                }
            },
            State::Body {
                balance,
                broken,
                streamed,
            } => match broken
                .clone()
                .map(Scan::Broken)
                .unwrap_or_else(|| balance.scan(rest, b"\"'"))
            {
                Scan::Done(n) => {
                    streamed.finish(&rest[..n], em);
                    read_calls(&rest[..n], em);
                    text.consume(n);
                    self.state = State::After;
                    true
                }
                Scan::More if !end => {
                    streamed.feed(rest, em);
                    false
                }
                Scan::More => {
                    streamed.finish(rest, em);
                    read_calls(rest, em);
                    text.consume(rest.len());
                    self.state = State::Content;
                    true
                }
                Scan::Broken(e) => {
                    // Brackets that can never match: the rest of the output
                    // is this broken call, reported once.
                    if !end {
                        *broken = Some(e);
                        return false;
                    }
                    em.invalid(None, None, rest, e);
                    text.consume(rest.len());
                    self.state = State::Content;
                    true
                }
            },
            State::After => {
                past_optional_closer(text, self.markers.end, end, &mut self.state, State::Content)
            }
        }
    }
}

/// Llama 3.2/4 pythonic.
pub(crate) const PYTHONIC: Family = Family::new(Format::Pythonic, "pythonic", |_| machine())
    .aliases(&["llama4_pythonic"])
    .detect(&[
        Rule::at(230, &[LLAMA_MARKERS.start]),
        Rule::at(240, &["[func_name1("]),
    ])
    .think(THINK)
    .grammar(grammar_fn!(grammar::syntax));

/// LFM2/LFM2.5 (LFM2.5 templates describe calls in words only).
pub(crate) const LFM2: Family = Family::new(Format::Lfm2, "lfm2", |_| machine_lfm2())
    .detect(&[
        Rule::at(160, &[LFM2_MARKERS.start]),
        Rule::at(170, &["List of tools: ["]),
    ])
    .think(THINK)
    .grammar(grammar_fn!(grammar::syntax_lfm2));

/// A list of `name(k=v)` calls.
#[cfg(feature = "local")]
mod grammar {
    use super::{LFM2_MARKERS, LLAMA_MARKERS};
    use crate::constrain::syntax::{
        each_param, lit, per_tool_calls, python_value, CallRule, Lark, Syntax, ToolDef,
    };

    // Llama 4 has markers; Llama 3.2 writes the list bare. The parser
    // reads a bare list in both.
    pub(super) fn syntax(lark: &Lark) -> Option<Syntax> {
        if lark.is_special(LLAMA_MARKERS.start) {
            return Some(pythonic(
                &[LLAMA_MARKERS.start],
                Some(LLAMA_MARKERS.end),
                true,
            ));
        }
        let mut s = pythonic(&[], None, true);
        s.bare = true;
        Some(s)
    }

    pub(super) fn syntax_lfm2(_: &Lark) -> Option<Syntax> {
        Some(pythonic(
            &[LFM2_MARKERS.start],
            Some(LFM2_MARKERS.end),
            false,
        ))
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

    fn pythonic_call(l: &mut Lark, t: &ToolDef, _: &[&'static str]) -> CallRule {
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
}
