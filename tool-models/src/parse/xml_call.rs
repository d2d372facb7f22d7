//! A call whose arguments arrive one raw text value at a time, as the XML
//! families write them: each value typed by the tool's schema and streamed
//! as it closes (the first of a key written twice is kept, so what was
//! streamed stays true); the call is made at its closing tag, or reported
//! with what was read when the output ends first.
//!
//! Also what the XML families read alike: a value's text up to its closing
//! tag, and an unreadable call's text up to the call's end, kept for the
//! report.

use super::partial_call::Pairs;
use super::schema::Tools;
use super::stream::{find_any, Emitter, Find, Text};
use serde_json::{Map, Value};

/// The call being read, and what is known of its arguments.
pub(crate) struct XmlCall {
    /// The offered tools, whose schemas type the values.
    pub(crate) tools: Tools,
    /// The tool called (empty between calls).
    pub(crate) name: String,
    /// The call's closing tag, named when the output ends before it.
    closer: &'static str,
    args: Map<String, Value>,
    pairs: Pairs,
}

impl XmlCall {
    /// Calls to `tools` that end at `closer`.
    pub(crate) fn new(tools: &Tools, closer: &'static str) -> XmlCall {
        XmlCall {
            tools: tools.clone(),
            name: String::new(),
            closer,
            args: Map::new(),
            pairs: Pairs::default(),
        }
    }

    /// A call to `name` begins (its start event goes out now).
    pub(crate) fn start(&mut self, em: &mut Emitter, name: &str) {
        self.name = name.to_owned();
        self.args.clear();
        self.pairs.start(em, name);
    }

    /// Whether argument `key` was already read.
    pub(crate) fn has(&self, key: &str) -> bool {
        self.args.contains_key(key)
    }

    /// The raw text of argument `key`.
    pub(crate) fn set(&mut self, em: &mut Emitter, key: &str, raw: &str) {
        if self.has(key) {
            return;
        }
        let v = self.tools.typed(&self.name, key, raw);
        self.pairs.push(em, &self.name, key, &v);
        self.args.insert(key.to_owned(), v);
    }

    /// Reads `value`'s text up to the first of `ends`. The first is the
    /// value's closing tag, consumed with it; any other begins what
    /// follows (a model may leave a value open before the next argument)
    /// and stays. At the `end` of the output the value is all that is
    /// left, and the call is left open for the machine to report. `false`
    /// while more text is needed; `true` once the value is set.
    pub(crate) fn read_value(
        &mut self,
        value: &mut OpenValue,
        text: &mut Text,
        em: &mut Emitter,
        ends: &[&str],
        end: bool,
    ) -> bool {
        let rest = text.rest();
        let (n, closer) = match find_any(rest, value.scanned, ends) {
            Find::At { at, which: 0 } => (at, ends[0].len()),
            Find::At { at, .. } => (at, 0),
            Find::Partial { .. } if end => (rest.len(), 0),
            Find::Partial { safe } => {
                value.scanned = safe;
                return false;
            }
        };
        let raw = text.take(n);
        text.consume(closer);
        self.set(em, &value.key, &raw);
        true
    }

    /// The call closed: it is made.
    pub(crate) fn finish(&mut self, em: &mut Emitter) {
        let args = std::mem::take(&mut self.args);
        em.call(None, std::mem::take(&mut self.name), Value::Object(args));
    }

    /// The output ended before the call's closing tag: the call is
    /// reported, with the arguments read so far, but not made.
    pub(crate) fn cut_off(&mut self, em: &mut Emitter) {
        let name = std::mem::take(&mut self.name);
        let args = Value::Object(std::mem::take(&mut self.args));
        em.invalid(
            None,
            Some(name),
            &args.to_string(),
            format!("the call was cut off before `{}`", self.closer),
        );
    }

    /// The output ended right after `value` opened: it is empty, and the
    /// call is cut off.
    pub(crate) fn cut_off_in(&mut self, em: &mut Emitter, value: &OpenValue) {
        self.set(em, &value.key, "");
        self.cut_off(em);
    }

    /// The call cannot be read: its name, if it had one, for the report.
    pub(crate) fn abandon(&mut self) -> Option<String> {
        self.args.clear();
        Some(std::mem::take(&mut self.name)).filter(|n| !n.is_empty())
    }
}

/// A value whose closing tag is still to come: the key it belongs to, and
/// how far its text has been searched.
pub(crate) struct OpenValue {
    key: String,
    scanned: usize,
}

impl OpenValue {
    /// The value of argument `key` begins.
    pub(crate) fn new(key: &str) -> OpenValue {
        OpenValue {
            key: key.to_owned(),
            scanned: 0,
        }
    }
}

/// The text of a call that cannot be read, kept whole for its report
/// while it runs on to the call's end.
pub(crate) struct Skipped {
    raw: String,
    scanned: usize,
}

impl Skipped {
    /// Skipping begins with `raw`, the text already read of the call.
    pub(crate) fn new(raw: String) -> Skipped {
        Skipped { raw, scanned: 0 }
    }

    /// Reads on to the first of `ends`. The first ends the call and is
    /// consumed with it; any other begins what follows and stays. The
    /// call's whole text once its end is found; `None` while more is
    /// needed, and at the `end` of the output, where all that is left is
    /// taken for the machine to report (see [`Skipped::into_text`]).
    pub(crate) fn read(&mut self, text: &mut Text, ends: &[&str], end: bool) -> Option<String> {
        let rest = text.rest();
        match find_any(rest, self.scanned, ends) {
            Find::At { at, which } => {
                let mut raw = std::mem::take(&mut self.raw);
                raw.push_str(&rest[..at]);
                text.consume(at + if which == 0 { ends[0].len() } else { 0 });
                Some(raw)
            }
            Find::Partial { .. } if end => {
                self.raw.push_str(rest);
                text.consume(rest.len());
                None
            }
            Find::Partial { safe } => {
                self.scanned = safe;
                None
            }
        }
    }

    /// All the text read of the call, for a report when the output ended
    /// inside it.
    pub(crate) fn into_text(self) -> String {
        self.raw
    }
}
