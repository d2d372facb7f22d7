//! Shared streaming machinery: the unconsumed text buffer, marker search that
//! holds back a cut-off marker, the balanced-bracket scanner that finds where
//! a JSON or Python value ends, and the emitter that numbers calls.
//!
//! Every format is a state machine over a [`Text`] buffer that only emits what
//! it is sure about. Searches resume where the previous one stopped, so a
//! stream of `n` bytes costs `O(n)` whatever the chunking.

use super::schema::Tools;
use super::StreamEvent;
use serde_json::Value;
use tool_runtime::{InvalidToolCall, ToolCall};

/// Text received but not yet consumed by a state machine.
#[derive(Debug, Default)]
pub(crate) struct Text {
    buf: String,
    pos: usize,
}

impl Text {
    pub(crate) fn push(&mut self, s: &str) {
        // Compact only when the dead prefix dominates: amortised O(1) per byte.
        if self.pos > 4096 && self.pos * 2 > self.buf.len() {
            self.buf.drain(..self.pos);
            self.pos = 0;
        }
        self.buf.push_str(s);
    }

    pub(crate) fn rest(&self) -> &str {
        &self.buf[self.pos..]
    }

    pub(crate) fn consume(&mut self, n: usize) {
        self.pos = (self.pos + n).min(self.buf.len());
    }

    /// Takes `n` bytes out as an owned string.
    pub(crate) fn take(&mut self, n: usize) -> String {
        let n = n.min(self.buf.len() - self.pos);
        let s = self.buf[self.pos..self.pos + n].to_owned();
        self.pos += n;
        s
    }

    pub(crate) fn take_all(&mut self) -> String {
        let n = self.buf.len() - self.pos;
        self.take(n)
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.pos >= self.buf.len()
    }
}

/// The markers around one part of the output (a section, a call, a
/// value), named together so that a format's opener and closer read as
/// the pair they are.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Tags {
    /// What opens the part.
    pub(crate) open: &'static str,
    /// What closes it.
    pub(crate) close: &'static str,
}

impl Tags {
    /// The part from `open` to `close`.
    pub(crate) const fn new(open: &'static str, close: &'static str) -> Tags {
        Tags { open, close }
    }
}

/// Result of looking for markers in a text that may still grow.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Find {
    /// Marker number `which` starts at byte `at`.
    At { at: usize, which: usize },
    /// No marker yet; bytes from `safe` on could be the start of one.
    Partial { safe: usize },
}

/// The earliest of `markers` in `hay[from..]`; ties go to the longer marker.
/// When none is found, `safe` is where a cut-off marker could begin (always a
/// char boundary), so text before it can be released.
///
/// One left-to-right pass that stops at the first hit: searching for each
/// marker separately would rescan the whole buffer for absent markers every
/// time, which is quadratic when hits are frequent.
pub(crate) fn find_any(hay: &str, from: usize, markers: &[&str]) -> Find {
    let mut first = [false; 256];
    for m in markers {
        if let Some(&b) = m.as_bytes().first() {
            first[b as usize] = true;
        }
    }
    let b = hay.as_bytes();
    let mut i = from;
    while i < b.len() {
        match b[i..].iter().position(|&c| first[c as usize]) {
            None => break,
            Some(p) => i += p,
        }
        let tail = &b[i..];
        let mut best: Option<usize> = None;
        for (k, m) in markers.iter().enumerate() {
            if tail.starts_with(m.as_bytes()) && best.is_none_or(|bk| m.len() > markers[bk].len()) {
                best = Some(k);
            }
        }
        let partial = markers
            .iter()
            .any(|m| m.len() > tail.len() && m.as_bytes().starts_with(tail));
        if let Some(which) = best {
            // A longer marker cut off here could still win (`[` vs `[TOOL_CALLS]`).
            if partial {
                return Find::Partial { safe: i };
            }
            return Find::At { at: i, which };
        }
        if partial {
            return Find::Partial { safe: i };
        }
        i += 1;
    }
    Find::Partial { safe: hay.len() }
}

/// A search for markers in a text that grows, for a machine whose every
/// hit consumes the text up to it: the next search starts afresh after a
/// hit, and resumes where the last one stopped after a miss.
#[derive(Debug, Default)]
pub(crate) struct Search {
    scanned: usize,
}

impl Search {
    /// The earliest of `markers` in `rest`, as [`find_any`] finds it.
    pub(crate) fn find(&mut self, rest: &str, markers: &[&str]) -> Find {
        let found = find_any(rest, self.scanned.min(rest.len()), markers);
        self.scanned = match found {
            Find::At { .. } => 0,
            Find::Partial { safe } => safe,
        };
        found
    }
}

/// Free text up to the first of `markers`: emitted as content and
/// consumed. Returns which marker comes next, left at the front of `text`;
/// `None` when no marker is there yet, after emitting all that cannot be
/// the start of one (all of it at the `end`).
pub(crate) fn content_until(
    text: &mut Text,
    em: &mut Emitter,
    markers: &[&str],
    end: bool,
) -> Option<usize> {
    let rest = text.rest();
    let (n, found) = match find_any(rest, 0, markers) {
        Find::At { at, which } => (at, Some(which)),
        Find::Partial { .. } if end => (rest.len(), None),
        Find::Partial { safe } => (safe, None),
    };
    em.content(&rest[..n]);
    text.consume(n);
    found
}

/// Free text up to the first of `markers`, emitted as content, and the
/// marker consumed after it: which marker opened what follows; `None` as
/// for [`content_until`].
pub(crate) fn content_past(
    text: &mut Text,
    em: &mut Emitter,
    markers: &[&str],
    end: bool,
) -> Option<usize> {
    let which = content_until(text, em, markers, end)?;
    text.consume(markers[which].len());
    Some(which)
}

/// Arguments written as JSON text; blank text is no arguments.
pub(crate) fn json_arguments(raw: &str) -> Result<Value, String> {
    match raw.trim() {
        "" => Ok(Value::Object(Default::default())),
        raw => super::json::parse(raw),
    }
}

/// What the text continues with after its leading whitespace.
pub(crate) enum Next {
    /// More text is needed to tell.
    Wait,
    /// Nothing but whitespace, up to the end of the output.
    Blank,
    /// Tag `which` of those asked for, after `ws` bytes of whitespace.
    Tag { ws: usize, which: usize },
    /// Something else, after `ws` bytes of whitespace.
    Other { ws: usize },
}

/// Which of `tags`, tried in order, `rest` continues with after
/// whitespace; a tag the text so far could still become is waited for,
/// unless at the `end`.
pub(crate) fn next_tag(rest: &str, tags: &[&str], end: bool) -> Next {
    let Some(ws) = skip_ws(rest) else {
        return if end { Next::Blank } else { Next::Wait };
    };
    for (which, tag) in tags.iter().enumerate() {
        match starts(&rest[ws..], tag) {
            Some(true) => return Next::Tag { ws, which },
            None if !end => return Next::Wait,
            _ => {}
        }
    }
    Next::Other { ws }
}

/// Where a byte-by-byte scan stands with respect to quoted strings.
#[derive(Debug, Default, Clone, Copy)]
pub(crate) struct Quoted {
    quote: Option<u8>,
    escape: bool,
}

impl Quoted {
    /// Takes byte `c`, strings opening with one of `quotes`: whether it
    /// belongs to a string, its quotes included.
    pub(crate) fn step(&mut self, c: u8, quotes: &[u8]) -> bool {
        match self.quote {
            Some(q) => {
                if self.escape {
                    self.escape = false;
                } else if c == b'\\' {
                    self.escape = true;
                } else if c == q {
                    self.quote = None;
                }
                true
            }
            None if quotes.contains(&c) => {
                self.quote = Some(c);
                true
            }
            None => false,
        }
    }
}

/// Where a bracketed value ends, found incrementally: strings (with the
/// quote characters given) and escapes are skipped, brackets must match.
/// The bracket stack lives on the heap and is capped, so deep nesting is an
/// error rather than a stack overflow.
#[derive(Debug, Default)]
pub(crate) struct Balance {
    stack: Vec<u8>,
    strings: Quoted,
    /// Bytes of the body already scanned.
    pub(crate) scanned: usize,
    started: bool,
}

/// Deepest bracket nesting a body may have.
pub(crate) const MAX_NESTING: usize = 512;

#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Scan {
    /// The value ends just before this byte offset.
    Done(usize),
    /// More text is needed.
    More,
    /// The brackets can never match (or nest too deep).
    Broken(String),
}

impl Balance {
    /// Continues scanning `body` (which only ever grows between calls).
    /// `quotes`: the string delimiters (`"` for JSON, `"` and `'` for Python).
    pub(crate) fn scan(&mut self, body: &str, quotes: &[u8]) -> Scan {
        let b = body.as_bytes();
        let mut i = self.scanned;
        while i < b.len() {
            let c = b[i];
            i += 1;
            if self.strings.step(c, quotes) {
                continue;
            }
            match c {
                b'{' | b'[' | b'(' => {
                    if self.stack.len() >= MAX_NESTING {
                        self.scanned = i;
                        return Scan::Broken(format!("nested deeper than {MAX_NESTING} levels"));
                    }
                    self.stack.push(c);
                    self.started = true;
                }
                b'}' | b']' | b')' => {
                    let open = match c {
                        b'}' => b'{',
                        b']' => b'[',
                        _ => b'(',
                    };
                    if self.stack.pop() != Some(open) {
                        self.scanned = i;
                        return Scan::Broken(format!(
                            "unmatched `{}` at byte {}",
                            c as char,
                            i - 1
                        ));
                    }
                    if self.stack.is_empty() && self.started {
                        self.scanned = i;
                        return Scan::Done(i);
                    }
                }
                _ => {}
            }
        }
        self.scanned = i;
        Scan::More
    }
}

/// Numbers calls and turns results into events.
#[derive(Debug, Default)]
pub(crate) struct Emitter {
    pub(crate) events: Vec<StreamEvent>,
    next_index: usize,
    /// Calls whose arguments were streamed, started and not yet ended, in
    /// order: a list of calls streams each one as it is written and ends
    /// them all when the list is read. Only the last may still grow.
    open: Vec<OpenCall>,
    /// The offered tools: a call to any other is invalid.
    tools: Tools,
}

#[derive(Debug)]
struct OpenCall {
    index: usize,
    id: String,
    name: String,
    sent: String,
    /// Its arguments are complete: the next streamed piece is a new call's.
    complete: bool,
}

impl Emitter {
    pub(crate) fn new(tools: Tools) -> Emitter {
        Emitter {
            tools,
            ..Emitter::default()
        }
    }

    /// The offered tools.
    pub(crate) fn tools(&self) -> &Tools {
        &self.tools
    }

    pub(crate) fn content(&mut self, s: &str) {
        self.text(s, false);
    }

    pub(crate) fn reasoning(&mut self, s: &str) {
        self.text(s, true);
    }

    /// Content or reasoning, joined to the last event when that is of the
    /// same kind: consecutive pieces make one event.
    fn text(&mut self, s: &str, reasoning: bool) {
        if s.is_empty() {
            return;
        }
        match (self.events.last_mut(), reasoning) {
            (Some(StreamEvent::Content(c)), false) | (Some(StreamEvent::Reasoning(c)), true) => {
                c.push_str(s)
            }
            (_, false) => self.events.push(StreamEvent::Content(s.to_owned())),
            (_, true) => self.events.push(StreamEvent::Reasoning(s.to_owned())),
        }
    }

    /// More of the arguments of a call still being written (compact JSON
    /// text); the first piece starts the call.
    pub(crate) fn call_arguments(&mut self, name: &str, delta: String) {
        if !self.tools.offers(name) {
            // Reported whole, as invalid, when the call ends.
            return;
        }
        self.start_call(name, None);
        let Some(open) = self.open.last_mut() else {
            return;
        };
        if delta.is_empty() {
            return;
        }
        open.sent.push_str(&delta);
        self.events.push(StreamEvent::ToolCallArguments {
            index: open.index,
            delta,
        });
    }

    /// Starts a streamed call unless one is still growing; `id` is the
    /// model's own when it wrote one before the arguments.
    pub(crate) fn start_call(&mut self, name: &str, id: Option<String>) {
        if !self.tools.offers(name) {
            return;
        }
        if self.open.last().is_none_or(|o| o.complete) {
            let (index, id) = self.announce(name, id);
            self.open.push(OpenCall {
                index,
                id,
                name: name.to_owned(),
                sent: String::new(),
                complete: false,
            });
        }
    }

    /// Numbers a new call and sends its start; without the model's own id
    /// it gets `call_<index>`.
    fn announce(&mut self, name: &str, id: Option<String>) -> (usize, String) {
        let index = self.next_index;
        self.next_index += 1;
        let id = id.unwrap_or_else(|| format!("call_{index}"));
        self.events.push(StreamEvent::ToolCallStart {
            index,
            id: id.clone(),
            name: name.to_owned(),
        });
        (index, id)
    }

    /// The call being streamed has all its arguments; it ends when its
    /// block is read, and the next streamed piece starts another call.
    pub(crate) fn arguments_complete(&mut self) {
        if let Some(open) = self.open.last_mut() {
            open.complete = true;
        }
    }

    /// A call whose arguments are the JSON text `raw` (blank: none), or
    /// what is wrong with them.
    pub(crate) fn json_arguments_call(&mut self, id: Option<String>, name: String, raw: &str) {
        let parsed = json_arguments(raw);
        self.parsed_call(id, name, raw, parsed);
    }

    /// A call with arguments parsed from `raw`, when they are an object.
    pub(crate) fn parsed_call(
        &mut self,
        id: Option<String>,
        name: String,
        raw: &str,
        parsed: Result<Value, String>,
    ) {
        match parsed {
            Ok(v @ Value::Object(_)) => self.call(id, name, v),
            Ok(_) => self.invalid(id, Some(name), raw, "arguments must be an object"),
            Err(e) => self.invalid(id, Some(name), raw, format!("arguments are not JSON: {e}")),
        }
    }

    /// A complete call. Without a native id it gets `call_<index>`. When
    /// its arguments were being streamed, it ends that call: what was sent
    /// is completed to the final arguments where it is their prefix (a
    /// different spelling of the same JSON already said everything).
    pub(crate) fn call(&mut self, id: Option<String>, name: String, arguments: Value) {
        let full = arguments.to_string();
        if !self.tools.offers(&name) {
            // Worded as the toolbox words it, with a suggestion.
            let error =
                tool_runtime::ToolError::unknown_tool(&name, self.tools.names()).to_string();
            self.invalid(id, Some(name), &full, error);
            return;
        }
        let first = (!self.open.is_empty()).then(|| self.open.remove(0));
        let (index, id) = match first {
            Some(open) if open.name == name => {
                if let Some(rest) = full.strip_prefix(open.sent.as_str()) {
                    if !rest.is_empty() {
                        self.events.push(StreamEvent::ToolCallArguments {
                            index: open.index,
                            delta: rest.to_owned(),
                        });
                    }
                }
                // An id written after the arguments is known only now.
                (open.index, id.unwrap_or(open.id))
            }
            _ => {
                let (index, id) = self.announce(&name, id);
                self.events
                    .push(StreamEvent::ToolCallArguments { index, delta: full });
                (index, id)
            }
        };
        self.events.push(StreamEvent::ToolCallEnd {
            index,
            call: ToolCall {
                id,
                name,
                arguments,
            },
        });
    }

    pub(crate) fn invalid(
        &mut self,
        id: Option<String>,
        name: Option<String>,
        raw: &str,
        error: impl Into<String>,
    ) {
        // A call whose arguments were streamed and that turned out
        // unreadable ends here; its events say so by having no end. That is
        // the first one waiting if it has this name; without a name, the
        // whole block could not be read, and none of its calls ends.
        match &name {
            Some(n) => {
                if self.open.first().is_some_and(|o| &o.name == n) {
                    self.open.remove(0);
                }
            }
            None => self.open.clear(),
        }
        self.push_invalid(id, name, raw, error);
    }

    /// An unreadable item of a list of calls: it was never streamed, so
    /// the calls streamed around it still end.
    pub(crate) fn invalid_item(&mut self, raw: &str, error: impl Into<String>) {
        self.push_invalid(None, None, raw, error);
    }

    fn push_invalid(
        &mut self,
        id: Option<String>,
        name: Option<String>,
        raw: &str,
        error: impl Into<String>,
    ) {
        self.events
            .push(StreamEvent::InvalidToolCall(InvalidToolCall {
                id,
                name,
                raw_arguments: Some(raw.to_owned()),
                error: error.into(),
            }));
    }

    /// A call parsed from a JSON object (see [`super::json::call_from_value`]).
    pub(crate) fn json_call(&mut self, v: Value, raw: &str) {
        match super::json::call_from_value(v) {
            Ok((id, name, args)) => self.call(id, name, args),
            Err((name, e)) => self.invalid(None, name, raw, e),
        }
    }

    /// Calls from JSON text: one object or a list of them.
    pub(crate) fn json_calls(&mut self, text: &str) {
        match super::json::parse(text) {
            Ok(v) => self.value_calls(v, text),
            Err(e) => self.invalid(None, None, text, format!("tool call is not JSON: {e}")),
        }
    }

    /// Calls from JSON already parsed from `text`: one object or a list.
    pub(crate) fn value_calls(&mut self, v: Value, text: &str) {
        match v {
            Value::Array(items) => {
                if items.is_empty() {
                    return;
                }
                for item in items {
                    let raw = item.to_string();
                    match super::json::call_from_value(item) {
                        Ok((id, name, args)) => self.call(id, name, args),
                        // A nameless item was never streamed: the calls
                        // streamed around it still end.
                        Err((None, e)) => self.invalid_item(&raw, e),
                        Err((name, e)) => self.invalid(None, name, &raw, e),
                    }
                }
            }
            v => self.json_call(v, text),
        }
    }
}

/// One format's state machine over the content part of the output.
pub(crate) trait Machine: Send {
    /// Decides one step from the start of `text`, which is not empty
    /// (unless a machine's own `finish` says otherwise); `false` when more
    /// text is needed (or, at the `end`, when nothing is left to decide).
    fn advance(&mut self, text: &mut Text, em: &mut Emitter, end: bool) -> bool;

    /// New text has been appended to `text`; consume what can be decided.
    fn step(&mut self, text: &mut Text, em: &mut Emitter) {
        while !text.rest().is_empty() && self.advance(text, em, false) {}
    }

    /// Every byte of the output is read and it has ended: report what is
    /// left open (a call cut off). `advance` is not called with nothing to
    /// read for this.
    fn ended(&mut self, _em: &mut Emitter) {}

    /// The output ended: decide everything left.
    fn finish(&mut self, text: &mut Text, em: &mut Emitter) {
        while !text.rest().is_empty() && self.advance(text, em, true) {}
        if text.rest().is_empty() {
            self.ended(em);
        }
    }
}

/// Skips ASCII whitespace at the start of `s`; `None` if `s` is all whitespace
/// (more text is needed to decide).
pub(crate) fn skip_ws(s: &str) -> Option<usize> {
    s.bytes().position(|b| !b.is_ascii_whitespace())
}

/// After a call: whitespace and an optional closing `marker` are consumed
/// (only the marker's absence leaves the whitespace for what follows), and
/// the machine's `state` becomes `next`. `false`, with nothing done, while
/// more text is needed to tell (never at the `end`).
pub(crate) fn past_optional_closer<S>(
    text: &mut Text,
    marker: &str,
    end: bool,
    state: &mut S,
    next: S,
) -> bool {
    let rest = text.rest();
    let n = match skip_ws(rest) {
        None if end => 0,
        None => return false,
        Some(ws) => match starts(&rest[ws..], marker) {
            Some(true) => ws + marker.len(),
            None if !end => return false,
            _ => 0,
        },
    };
    text.consume(n);
    *state = next;
    true
}

/// Whether `name` can be a tool's name (letters, digits, `_-.:`), for
/// formats where the name is bare text.
pub(crate) fn valid_name(name: &str) -> bool {
    !name.is_empty()
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.' | b':'))
}

/// `s` starts with `word`, does not (`Some(false)`), or is too short to tell.
pub(crate) fn starts(s: &str, word: &str) -> Option<bool> {
    if s.len() >= word.len() {
        Some(s.starts_with(word))
    } else if word.starts_with(s) {
        None
    } else {
        Some(false)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_streamed_call_ends_completed_to_its_final_arguments() {
        let mut em = Emitter::default();
        em.call_arguments("f", "{\"a\":".into());
        em.call(None, "f".into(), serde_json::json!({"a": 1, "b": "x"}));
        let mut sent = String::new();
        for e in &em.events {
            if let StreamEvent::ToolCallArguments { index, delta } = e {
                assert_eq!(*index, 0);
                sent.push_str(delta);
            }
        }
        assert_eq!(sent, r#"{"a":1,"b":"x"}"#);
        assert!(matches!(
            em.events.first(),
            Some(StreamEvent::ToolCallStart { index: 0, .. })
        ));
        assert!(matches!(
            em.events.last(),
            Some(StreamEvent::ToolCallEnd { index: 0, .. })
        ));
    }

    #[test]
    fn a_call_to_a_tool_not_offered_is_invalid_and_never_started() {
        let tools = Tools::new(&crate::parse::ParseOptions {
            tools: tool_runtime::ToolDefinition::list_from_json(&[
                serde_json::json!({"type": "function", "function": {"name": "get_time"}}),
            ])
            .unwrap(),
            ..Default::default()
        });
        let mut em = Emitter::new(tools);
        em.call_arguments("book_table", "{\"a\":".into());
        em.call(None, "book_table".into(), serde_json::json!({"a": 1}));
        em.call(None, "get_time".into(), serde_json::json!({}));
        assert!(matches!(
            &em.events[0],
            StreamEvent::InvalidToolCall(c) if c.name.as_deref() == Some("book_table")
                && c.raw_arguments.as_deref() == Some("{\"a\":1}")
                && c.error == "unknown tool `book_table`. Available tools: get_time"
        ));
        assert!(matches!(
            &em.events[1],
            StreamEvent::ToolCallStart { index: 0, name, .. } if name == "get_time"
        ));
        assert_eq!(em.events.len(), 4);
    }

    #[test]
    fn finds_and_holds_back() {
        assert_eq!(
            find_any("ab<tool", 0, &["<tool_call>"]),
            Find::Partial { safe: 2 }
        );
        assert_eq!(
            find_any("ab<tool_call>x", 0, &["<tool_call>"]),
            Find::At { at: 2, which: 0 }
        );
        assert_eq!(find_any("abc", 0, &["<x>"]), Find::Partial { safe: 3 });
    }

    #[test]
    fn balance_finds_the_end() {
        let mut b = Balance::default();
        assert_eq!(b.scan(r#"{"a": "}"#, b"\""), Scan::More);
        assert_eq!(b.scan(r#"{"a": "}"} x"#, b"\""), Scan::Done(10));
        let mut b = Balance::default();
        assert!(matches!(b.scan("[(]", b"\"'"), Scan::Broken(_)));
        let mut b = Balance::default();
        assert!(matches!(
            b.scan(&"[".repeat(10_000), b"\""),
            Scan::Broken(_)
        ));
    }
}
