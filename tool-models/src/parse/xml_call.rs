//! A call whose arguments arrive one raw text value at a time, as the XML
//! families write them: each value typed by the tool's schema and streamed
//! as it closes (the first of a key written twice is kept, so what was
//! streamed stays true); the call is made at its closing tag, or reported
//! with what was read when the output ends first.

use super::partial_call::Pairs;
use super::schema::Tools;
use super::stream::Emitter;
use serde_json::{Map, Value};

pub(crate) struct XmlCall {
    pub(crate) tools: Tools,
    pub(crate) name: String,
    args: Map<String, Value>,
    pairs: Pairs,
}

impl XmlCall {
    pub(crate) fn new(tools: &Tools) -> XmlCall {
        XmlCall {
            tools: tools.clone(),
            name: String::new(),
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

    /// The call closed: it is made.
    pub(crate) fn finish(&mut self, em: &mut Emitter) {
        let args = std::mem::take(&mut self.args);
        em.call(None, std::mem::take(&mut self.name), Value::Object(args));
    }

    /// The output ended before `closer`: the call is reported, with the
    /// arguments read so far, but not made.
    pub(crate) fn cut_off(&mut self, em: &mut Emitter, closer: &str) {
        let name = std::mem::take(&mut self.name);
        let args = Value::Object(std::mem::take(&mut self.args));
        em.invalid(
            None,
            Some(name),
            &args.to_string(),
            format!("the call was cut off before `{closer}`"),
        );
    }

    /// The call cannot be read: its name, if it had one, for the report.
    pub(crate) fn abandon(&mut self) -> Option<String> {
        self.args.clear();
        Some(std::mem::take(&mut self.name)).filter(|n| !n.is_empty())
    }
}
