//! Arguments streamed while a call is still being written. In JSON call
//! objects, once `{"name": "…", "arguments": {` has arrived (or the name
//! written outside the JSON, as Mistral v11, DeepSeek, Kimi and harmony
//! do), the arguments' text is passed on as it grows, without the
//! whitespace between tokens; formats that write each argument apart (the
//! XML families, pythonic, FunctionGemma) pass on the JSON of each value as
//! it completes. Either way the pieces concatenate to the final arguments.

use super::stream::{skip_ws, Emitter, Quoted};
use serde_json::Value;

/// What the start of a body says about its call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Prefix {
    /// The call's name, and the byte offset of its arguments' opening brace.
    Found(String, usize),
    /// Too little text yet to tell.
    More,
    /// Another shape (arguments before the name, arguments as a string, a
    /// list of calls): the call is passed on whole when it ends.
    Never,
}

/// Reads `{"name": "…", "arguments": {` (or `"parameters"`) at the start of
/// a body.
pub(crate) fn call_prefix(body: &str) -> Prefix {
    match read_prefix(body) {
        Ok(found) => found,
        Err(prefix) => prefix,
    }
}

fn read_prefix(body: &str) -> Result<Prefix, Prefix> {
    let mut r = Reader { s: body, i: 0 };
    r.ws();
    r.byte(b'{')?;
    r.ws();
    let mut key = r.string()?;
    // Command R7B numbers its calls first.
    if matches!(key.as_str(), "id" | "tool_call_id") {
        r.punct(b':')?;
        r.scalar()?;
        r.punct(b',')?;
        key = r.string()?;
    }
    if !matches!(key.as_str(), "name" | "tool_name") {
        return Err(Prefix::Never);
    }
    r.punct(b':')?;
    let name = r.string()?;
    r.punct(b',')?;
    if !matches!(r.string()?.as_str(), "arguments" | "parameters") {
        return Err(Prefix::Never);
    }
    r.punct(b':')?;
    r.byte(b'{')?;
    Ok(Prefix::Found(name, r.i - 1))
}

/// The id written before the name (`{"tool_call_id": "0", "tool_name": …`),
/// so that a streamed call is announced with it.
pub(crate) fn leading_id(body: &str) -> Option<String> {
    let mut r = Reader { s: body, i: 0 };
    r.ws();
    r.byte(b'{').ok()?;
    r.ws();
    if !matches!(r.string().ok()?.as_str(), "id" | "tool_call_id") {
        return None;
    }
    r.punct(b':').ok()?;
    let start = r.i;
    r.scalar().ok()?;
    match serde_json::from_str::<serde_json::Value>(&body[start..r.i]).ok()? {
        serde_json::Value::String(s) => Some(s),
        serde_json::Value::Number(n) => Some(n.to_string()),
        _ => None,
    }
}

/// Reads `{"name": {` at the start of a body, the tool's name as the key
/// (Apertus).
pub(crate) fn name_key_prefix(body: &str) -> Prefix {
    let mut r = Reader { s: body, i: 0 };
    let found = (|| {
        r.ws();
        r.byte(b'{')?;
        r.ws();
        let name = r.string()?;
        r.punct(b':')?;
        r.byte(b'{')?;
        Ok(Prefix::Found(name, r.i - 1))
    })();
    match found {
        Ok(p) | Err(p) => p,
    }
}

/// The calls of a JSON list, streamed one after another as they are
/// written: each item's arguments as they grow (its start read by a
/// prefix reader such as [`call_prefix`]), the item marked complete when
/// its object closes. The calls end when the whole list is read.
#[derive(Debug, Default)]
pub(crate) struct ListCalls {
    read: usize,
    depth: usize,
    strings: Quoted,
    /// The item being written: where its object starts, and how far its
    /// call is known.
    item: Option<(usize, Item)>,
}

#[derive(Debug)]
enum Item {
    Unknown,
    Never,
    /// The name, where its arguments start in the body, their text so far.
    Arguments(String, usize, Compactor),
}

impl ListCalls {
    /// `body` (the list from its `[`, extending what the last call saw).
    pub(crate) fn feed(&mut self, body: &str, prefix: fn(&str) -> Prefix, em: &mut Emitter) {
        let b = body.as_bytes();
        let mut i = self.read;
        while i < b.len() {
            let c = b[i];
            i += 1;
            if self.strings.step(c, b"\"") {
                continue;
            }
            match c {
                b'{' | b'[' => {
                    self.depth += 1;
                    if self.depth == 2 && c == b'{' {
                        self.item = Some((i - 1, Item::Unknown));
                    }
                }
                b'}' | b']' => {
                    if self.depth == 2 && c == b'}' {
                        if let Some((start, mut item)) = self.item.take() {
                            Self::stream(&body[..i], start, &mut item, prefix, em);
                            if matches!(item, Item::Arguments(..)) {
                                em.arguments_complete();
                            }
                        }
                    }
                    self.depth = self.depth.saturating_sub(1);
                }
                _ => {}
            }
        }
        self.read = i;
        if let Some((start, item)) = &mut self.item {
            Self::stream(body, *start, item, prefix, em);
        }
    }

    fn stream(
        body: &str,
        start: usize,
        item: &mut Item,
        prefix: fn(&str) -> Prefix,
        em: &mut Emitter,
    ) {
        if let Item::Unknown = item {
            *item = match prefix(&body[start..]) {
                Prefix::Found(name, at) => {
                    em.start_call(&name, leading_id(&body[start..]));
                    Item::Arguments(name, start + at, Compactor::default())
                }
                Prefix::More => return,
                Prefix::Never => Item::Never,
            };
        }
        if let Item::Arguments(name, at, compactor) = item {
            let delta = compactor.feed(&body[*at..]);
            em.call_arguments(name, delta);
        }
    }
}

/// The calls of a body that holds one call object or a list of them,
/// streamed as they are written.
#[derive(Debug)]
pub(crate) struct BodyCalls {
    state: Body,
    /// Reads the start of one call object.
    prefix: fn(&str) -> Prefix,
}

#[derive(Debug)]
enum Body {
    /// Not known yet.
    Unknown,
    /// Not a call object with its name first, nor a list of them: passed
    /// on whole.
    Whole,
    /// One call object: its name, where its arguments start in the body,
    /// and their compacted text so far.
    Arguments(String, usize, Compactor),
    /// A list of calls, each streamed as it is written.
    List(ListCalls),
}

impl BodyCalls {
    /// Call objects start as `prefix` reads them.
    pub(crate) fn new(prefix: fn(&str) -> Prefix) -> BodyCalls {
        BodyCalls {
            state: Body::Unknown,
            prefix,
        }
    }

    /// Ready for a new body.
    pub(crate) fn reset(&mut self) {
        self.state = Body::Unknown;
    }

    /// The whole body: what was streamed ends in the model's own spelling
    /// (`2e-3` stays `2e-3`); a body read in one piece is left to the
    /// handler.
    pub(crate) fn finish(&mut self, body: &str, em: &mut Emitter) {
        if matches!(self.state, Body::Arguments(..) | Body::List(_)) {
            self.feed(body, em);
        }
    }

    /// `body` (extending what the last call saw): passes on the arguments
    /// of its calls as they grow.
    pub(crate) fn feed(&mut self, body: &str, em: &mut Emitter) {
        if let Body::Unknown = self.state {
            let Some(ws) = skip_ws(body) else {
                return;
            };
            self.state = if body.as_bytes()[ws] == b'[' {
                Body::List(ListCalls::default())
            } else {
                match (self.prefix)(body) {
                    Prefix::Found(name, at) => {
                        em.start_call(&name, leading_id(body));
                        Body::Arguments(name, at, Compactor::default())
                    }
                    Prefix::More => return,
                    Prefix::Never => Body::Whole,
                }
            };
        }
        match &mut self.state {
            Body::Arguments(name, at, compactor) => {
                let delta = compactor.feed(&body[*at..]);
                em.call_arguments(name, delta);
            }
            Body::List(list) => list.feed(body, self.prefix, em),
            Body::Unknown | Body::Whole => {}
        }
    }
}

/// The arguments object of a call named before it, outside the JSON
/// (Mistral v11 `name[ARGS]{…}`, DeepSeek, Kimi, harmony), streamed as it
/// grows. The call is announced when its object opens; arguments that are
/// not an object are left to the parser's whole reading.
#[derive(Debug)]
pub(crate) struct NamedArguments {
    name: String,
    id: Option<String>,
    compactor: Compactor,
    never: bool,
    /// The arguments' object has opened: the call is being streamed.
    started: bool,
}

impl NamedArguments {
    /// A call to `name`, with the model's own `id` if it wrote one first.
    pub(crate) fn new(name: &str, id: Option<String>) -> NamedArguments {
        NamedArguments {
            name: name.to_owned(),
            id,
            compactor: Compactor::default(),
            never: false,
            started: false,
        }
    }

    /// The arguments' text from where they may start (whitespace first is
    /// skipped), extending what the last call saw.
    pub(crate) fn feed(&mut self, text: &str, em: &mut Emitter) {
        if self.never {
            return;
        }
        let Some(ws) = skip_ws(text) else {
            return;
        };
        if text.as_bytes()[ws] != b'{' {
            self.never = true;
            return;
        }
        if let Some(id) = self.id.take() {
            em.start_call(&self.name, Some(id));
        }
        self.started = true;
        let delta = self.compactor.feed(&text[ws..]);
        em.call_arguments(&self.name, delta);
    }

    /// The whole arguments: what was streamed ends in the model's own
    /// spelling (`2e-3` stays `2e-3`); arguments read in one piece are left
    /// to the call.
    pub(crate) fn finish(&mut self, text: &str, em: &mut Emitter) {
        if self.started {
            self.feed(text, em);
        }
    }
}

struct Reader<'a> {
    s: &'a str,
    i: usize,
}

impl Reader<'_> {
    fn ws(&mut self) {
        while self
            .s
            .as_bytes()
            .get(self.i)
            .is_some_and(u8::is_ascii_whitespace)
        {
            self.i += 1;
        }
    }

    /// `b` with whitespace around it.
    fn punct(&mut self, b: u8) -> Result<(), Prefix> {
        self.ws();
        self.byte(b)?;
        self.ws();
        Ok(())
    }

    fn byte(&mut self, b: u8) -> Result<(), Prefix> {
        match self.s.as_bytes().get(self.i) {
            None => Err(Prefix::More),
            Some(&c) if c == b => {
                self.i += 1;
                Ok(())
            }
            Some(_) => Err(Prefix::Never),
        }
    }

    /// A complete JSON string or number (an id).
    fn scalar(&mut self) -> Result<(), Prefix> {
        if self.s.as_bytes().get(self.i) == Some(&b'"') {
            return self.string().map(|_| ());
        }
        let b = self.s.as_bytes();
        let start = self.i;
        while b.get(self.i).is_some_and(|c| c.is_ascii_digit()) {
            self.i += 1;
        }
        match b.get(self.i) {
            None => Err(Prefix::More),
            Some(_) if self.i == start => Err(Prefix::Never),
            Some(_) => Ok(()),
        }
    }

    /// A complete JSON string, decoded.
    fn string(&mut self) -> Result<String, Prefix> {
        self.byte(b'"')?;
        let b = self.s.as_bytes();
        let start = self.i - 1;
        let mut j = self.i;
        let mut escape = false;
        while let Some(&c) = b.get(j) {
            j += 1;
            if escape {
                escape = false;
            } else if c == b'\\' {
                escape = true;
            } else if c == b'"' {
                let s = serde_json::from_str(&self.s[start..j]).map_err(|_| Prefix::Never)?;
                self.i = j;
                return Ok(s);
            }
        }
        Err(Prefix::More)
    }
}

#[derive(Debug, Default)]
pub(crate) struct Compactor {
    /// Bytes of the text already read.
    read: usize,
    depth: usize,
    strings: Quoted,
    done: bool,
}

impl Compactor {
    /// The compact text `text` adds since the last call; `text` starts
    /// with the value and extends what the last call saw.
    pub(crate) fn feed(&mut self, text: &str) -> String {
        let mut out = String::new();
        let b = text.as_bytes();
        let mut copy_from = self.read;
        let mut i = self.read;
        while i < b.len() && !self.done {
            let c = b[i];
            if !self.strings.step(c, b"\"") {
                match c {
                    b'{' | b'[' => self.depth += 1,
                    b'}' | b']' => {
                        self.depth = self.depth.saturating_sub(1);
                        if self.depth == 0 {
                            self.done = true;
                        }
                    }
                    c if c.is_ascii_whitespace() => {
                        out.push_str(&text[copy_from..i]);
                        copy_from = i + 1;
                    }
                    _ => {}
                }
            }
            i += 1;
        }
        // Only ASCII bytes end a copied run, so `i` is a char boundary.
        out.push_str(&text[copy_from..i]);
        self.read = i;
        out
    }
}

/// Arguments streamed value by value: `{"k":v` for the first, `,"k":v`
/// for each next; the call's end closes the object. Callers keep the first
/// value of a key written twice, so what was sent stays true.
#[derive(Debug, Default)]
pub(crate) struct Pairs {
    any: bool,
}

impl Pairs {
    /// Announces the call (its start event) before any argument.
    pub(crate) fn start(&mut self, em: &mut Emitter, name: &str) {
        *self = Pairs::default();
        em.call_arguments(name, String::new());
    }

    /// Streams a completed argument.
    pub(crate) fn push(&mut self, em: &mut Emitter, name: &str, key: &str, value: &Value) {
        let mut delta = String::from(if self.any { "," } else { "{" });
        self.any = true;
        delta.push_str(&Value::from(key).to_string());
        delta.push(':');
        delta.push_str(&value.to_string());
        em.call_arguments(name, delta);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse::{Format, ParseOptions, StreamEvent};

    /// Calls named outside their JSON stream it as written; formats that
    /// write values apart send each as soon as it is complete.
    #[test]
    fn arguments_go_out_before_the_call_ends() {
        let json = "{\"city\": \"Paris\", \"days\": 2}";
        let cases = [
            (
                Format::Mistral,
                format!("[TOOL_CALLS]get_weather[ARGS]{json}"),
                "2}",
                "{\"city\":\"Paris\",\"days\":",
            ),
            (
                Format::Mistral,
                format!("[TOOL_CALLS]get_weather[CALL_ID]a1b2c3d4e[ARGS]{json}"),
                "2}",
                "{\"city\":\"Paris\",\"days\":",
            ),
            (
                Format::DeepseekV31,
                format!("<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>get_weather<｜tool▁sep｜>{json}<｜tool▁call▁end｜><｜tool▁calls▁end｜>"),
                "2}",
                "{\"city\":\"Paris\",\"days\":",
            ),
            (
                Format::DeepseekV3,
                format!("<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>get_weather\n```json\n{json}\n```<｜tool▁call▁end｜><｜tool▁calls▁end｜>"),
                "2}",
                "{\"city\":\"Paris\",\"days\":",
            ),
            (
                Format::Harmony,
                format!("<|channel|>commentary to=functions.get_weather <|constrain|>json<|message|>{json}<|call|>"),
                "2}",
                "{\"city\":\"Paris\",\"days\":",
            ),
            (
                Format::Pythonic,
                "[get_weather(city='Paris', days=2)]".to_owned(),
                "2)",
                "{\"city\":\"Paris\"",
            ),
            (
                Format::Lfm2,
                "<|tool_call_start|>[get_weather(city=\"Paris\", days=2)]<|tool_call_end|>"
                    .to_owned(),
                "2)",
                "{\"city\":\"Paris\"",
            ),
            (
                Format::FunctionGemma,
                "<start_function_call>call:get_weather{city:<escape>Paris<escape>,days:2}<end_function_call>"
                    .to_owned(),
                "2}",
                "{\"city\":\"Paris\"",
            ),
        ];
        for (format, text, cut, early) in cases {
            let cut = text.find(cut).unwrap();
            let mut p = format.stream(&ParseOptions::default());
            let mut before = String::new();
            let mut all = String::new();
            let mut ended = Vec::new();
            let mut starts = Vec::new();
            for (i, c) in text.char_indices() {
                for e in p.feed(&c.to_string()) {
                    match e {
                        StreamEvent::ToolCallStart { id, name, .. } => starts.push((id, name)),
                        StreamEvent::ToolCallArguments { delta, .. } => {
                            if i < cut {
                                before.push_str(&delta);
                            }
                            all.push_str(&delta);
                        }
                        StreamEvent::ToolCallEnd { call, .. } => ended.push(call),
                        _ => {}
                    }
                }
            }
            for e in p.finish() {
                match e {
                    StreamEvent::ToolCallArguments { delta, .. } => all.push_str(&delta),
                    StreamEvent::ToolCallEnd { call, .. } => ended.push(call),
                    _ => {}
                }
            }
            assert_eq!(before, early, "{format}: sent before the last value");
            assert_eq!(ended.len(), 1, "{format}");
            assert_eq!(starts.len(), 1, "{format}");
            assert_eq!(starts[0].1, "get_weather", "{format}");
            assert_eq!(starts[0].0, ended[0].id, "{format}: announced with its id");
            if text.contains("[CALL_ID]") {
                assert_eq!(ended[0].id, "a1b2c3d4e");
            }
            let streamed: Value = serde_json::from_str(&all).unwrap();
            assert_eq!(streamed, ended[0].arguments, "{format}");
            assert_eq!(streamed, serde_json::json!({"city": "Paris", "days": 2}));
        }
    }

    #[test]
    fn finds_the_arguments_once_the_name_is_complete() {
        let full = r#" { "name" : "get_weather", "arguments": {"city": "Paris"}}"#;
        let at = full.find("{\"city").unwrap();
        for cut in 0..full.len() {
            let got = call_prefix(&full[..cut]);
            if cut > at {
                assert_eq!(got, Prefix::Found("get_weather".to_owned(), at), "{cut}");
            } else {
                assert_eq!(got, Prefix::More, "{cut}: {:?}", &full[..cut]);
            }
        }
        assert_eq!(
            call_prefix(r#"{"name": "f", "parameters": {"#),
            Prefix::Found("f".into(), 28)
        );
        assert_eq!(
            call_prefix(r#"{"arguments": {}, "name": "f"}"#),
            Prefix::Never
        );
        assert_eq!(
            call_prefix(r#"{"name": "f", "arguments": "{\"a\": 1}"}"#),
            Prefix::Never
        );
        assert_eq!(
            call_prefix(r#"[{"name": "f", "arguments": {}}]"#),
            Prefix::Never
        );
        assert_eq!(call_prefix(r#"{"name": "f", "id": "x", "#), Prefix::Never);
    }

    #[test]
    fn compacts_in_any_chunking() {
        let text = "{ \"a b\" : [1, 2.5 ,\n \"x\\\" y\"], \"é\": { } }  trailing";
        let whole = Compactor::default().feed(text);
        assert_eq!(whole, r#"{"a b":[1,2.5,"x\" y"],"é":{}}"#);
        for step in 1..8 {
            let mut c = Compactor::default();
            let mut out = String::new();
            let mut end = 0;
            while end < text.len() {
                end = (end + step).min(text.len());
                while !text.is_char_boundary(end) {
                    end += 1;
                }
                out.push_str(&c.feed(&text[..end]));
            }
            assert_eq!(out, whole, "step {step}");
        }
    }
}
