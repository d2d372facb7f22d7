//! The machine most JSON formats share: content until a start marker, then a
//! body that ends at an end marker or where its JSON value closes, read as
//! one call object or a list of them. Each family file only states its
//! markers.

use super::partial_call::{call_prefix, BodyCalls};
use super::stream::{
    content_until, find_any, next_tag, skip_ws, starts, Balance, Emitter, Find, Machine, Next,
    Scan, Text,
};

/// How a block's body ends.
#[derive(Debug, Clone, Copy)]
pub(crate) enum End {
    /// At this marker (or the end of the output).
    Marker(&'static str),
    /// Where the JSON value that follows the start marker closes. A
    /// ```` ```json ```` fence around it is allowed.
    Json,
}

/// Turns a complete body into events; `false` means "not a call after
/// all": the marker and body are content. A body that starts as one call
/// object, name first, has its arguments streamed while it grows; the
/// handler's call then ends that call.
pub(crate) type Handler = fn(body: &str, complete: bool, em: &mut Emitter) -> bool;

/// A JSON-block format.
#[derive(Clone, Copy)]
pub(crate) struct Spec {
    /// Markers that open a block and are not part of the body.
    pub(crate) starts: &'static [&'static str],
    /// Brackets that open a block and are part of it, each with the byte
    /// that must follow it (after whitespace) for it to count.
    pub(crate) brackets: &'static [(&'static str, u8)],
    pub(crate) end: End,
    /// Text skipped after a block when present (closing tags, fences, `;`).
    pub(crate) after: &'static [&'static str],
    pub(crate) handler: Handler,
}

impl Spec {
    /// Blocks opened by one of `starts` and ended by `end`, read by
    /// [`calls`]: no opening brackets, nothing skipped after a block.
    pub(crate) const fn new(starts: &'static [&'static str], end: End) -> Spec {
        Spec {
            starts,
            brackets: &[],
            end,
            after: &[],
            handler: calls,
        }
    }

    /// Brackets that open a block and are part of it.
    pub(crate) const fn brackets(self, brackets: &'static [(&'static str, u8)]) -> Spec {
        Spec { brackets, ..self }
    }

    /// Text skipped after a block when present.
    pub(crate) const fn after(self, after: &'static [&'static str]) -> Spec {
        Spec { after, ..self }
    }

    /// How a block's body is read, instead of [`calls`].
    pub(crate) const fn handler(self, handler: Handler) -> Spec {
        Spec { handler, ..self }
    }
}

/// The default handler: the body is a call object or a list of them.
pub(crate) fn calls(body: &str, complete: bool, em: &mut Emitter) -> bool {
    let t = body.trim();
    if t.is_empty() && complete {
        return true;
    }
    if !complete && super::json::parse(t).is_err() {
        em.invalid(None, None, body, "the tool call was cut off");
        return true;
    }
    em.json_calls(t);
    true
}

enum State {
    Content,
    /// In a body; `marker` is the text that opened it, `body_from` how many
    /// bytes of `text` the marker takes when it is not part of the body.
    Body {
        marker: usize,
        bracket: bool,
        balance: Balance,
        /// For `End::Json`: the opening fence and whitespace are passed.
        opened: Option<usize>,
    },
    After,
}

pub(crate) struct Block {
    spec: Spec,
    state: State,
    markers: Vec<&'static str>,
    scanned: usize,
    /// The body's calls, streamed as they are written.
    streaming: Box<dyn BodyStream>,
}

/// Streams a block's calls while its body grows; the handler then ends
/// them.
pub(crate) trait BodyStream: Send {
    /// The body so far, extending what the last call saw.
    fn feed(&mut self, body: &str, em: &mut Emitter);
    /// The whole body: what was streamed ends in the model's own spelling
    /// (`2e-3` stays `2e-3`); a body read in one piece is left to the
    /// handler.
    fn finish(&mut self, body: &str, em: &mut Emitter);
    /// A new body begins.
    fn reset(&mut self);
    /// Reads the body in place of the block's handler when this stream
    /// claims it (the generic answer's `response`, streamed as text: the
    /// rest of the text, not all of it again); `None` leaves it to the
    /// handler.
    fn handle(&mut self, _body: &str, _complete: bool, _em: &mut Emitter) -> Option<bool> {
        None
    }
}

impl BodyStream for BodyCalls {
    fn feed(&mut self, body: &str, em: &mut Emitter) {
        BodyCalls::feed(self, body, em);
    }

    fn finish(&mut self, body: &str, em: &mut Emitter) {
        BodyCalls::finish(self, body, em);
    }

    fn reset(&mut self) {
        BodyCalls::reset(self);
    }
}

impl Block {
    /// A block of JSON call objects, name first.
    pub(crate) fn boxed(spec: Spec) -> Box<dyn Machine> {
        Self::boxed_streaming(spec, BodyCalls::new(call_prefix))
    }

    /// A block whose calls stream as `streaming` reads them.
    pub(crate) fn boxed_streaming(
        spec: Spec,
        streaming: impl BodyStream + 'static,
    ) -> Box<dyn Machine> {
        let mut markers: Vec<&'static str> = spec.starts.to_vec();
        markers.extend(spec.brackets.iter().map(|b| b.0));
        Box::new(Block {
            spec,
            state: State::Content,
            markers,
            scanned: 0,
            streaming: Box::new(streaming),
        })
    }

    /// The body read by the stream where it claims it, else by the
    /// handler; `false`: not a call after all.
    fn read_body(&mut self, body: &str, complete: bool, em: &mut Emitter) -> bool {
        match self.streaming.handle(body, complete, em) {
            Some(ok) => ok,
            None => (self.spec.handler)(body, complete, em),
        }
    }

    fn reject(&mut self, text: &mut Text, em: &mut Emitter, marker_len: usize) {
        let m = text.take(marker_len);
        em.content(&m);
        self.state = State::Content;
        self.scanned = 0;
    }
}

impl Machine for Block {
    /// Advances; `false` when more text is needed.
    fn advance(&mut self, text: &mut Text, em: &mut Emitter, end: bool) -> bool {
        match &mut self.state {
            State::Content => {
                let Some(which) = content_until(text, em, &self.markers, end) else {
                    return false;
                };
                self.state = State::Body {
                    marker: self.markers[which].len(),
                    bracket: which >= self.spec.starts.len(),
                    balance: Balance::default(),
                    opened: None,
                };
                self.scanned = 0;
                self.streaming.reset();
                true
            }
            State::Body {
                marker,
                bracket,
                balance,
                opened,
            } => {
                let marker = *marker;
                let bracket = *bracket;
                let rest = text.rest();
                match self.spec.end {
                    End::Marker(close) => {
                        let body_start = marker;
                        let from = self.scanned.max(body_start);
                        match find_any(rest, from, &[close]) {
                            Find::At { at, .. } => {
                                let body = rest[body_start..at].to_owned();
                                self.streaming.finish(&body, em);
                                let ok = self.read_body(&body, true, em);
                                if !ok {
                                    self.reject(text, em, marker);
                                    return true;
                                }
                                text.consume(at + close.len());
                                self.state = State::After;
                                true
                            }
                            Find::Partial { safe } => {
                                if end {
                                    let body = rest[body_start..].to_owned();
                                    if !self.read_body(&body, false, em) {
                                        self.reject(text, em, marker);
                                        return true;
                                    }
                                    text.consume(rest.len());
                                    self.state = State::Content;
                                    return true;
                                }
                                self.scanned = safe;
                                self.streaming
                                    .feed(&rest[body_start..safe.max(body_start)], em);
                                false
                            }
                        }
                    }
                    End::Json => {
                        let open = match opened {
                            Some(o) => *o,
                            None => {
                                // Find the opening bracket: after the marker,
                                // whitespace and an optional fence.
                                let after = &rest[marker..];
                                let Some(ws) = skip_ws(after) else {
                                    if end {
                                        self.reject(text, em, marker);
                                        return true;
                                    }
                                    return false;
                                };
                                let mut p = marker + ws;
                                if bracket {
                                    let need = self
                                        .spec
                                        .brackets
                                        .iter()
                                        .find(|b| b.0.len() == marker && rest.starts_with(b.0))
                                        .map(|b| b.1);
                                    if let Some(need) = need {
                                        if rest.as_bytes()[p] != need {
                                            self.reject(text, em, marker);
                                            return true;
                                        }
                                    }
                                    p = 0;
                                } else {
                                    for fence in ["```json", "```"] {
                                        match starts(&rest[p..], fence) {
                                            Some(true) => {
                                                p += fence.len();
                                                let Some(ws) = skip_ws(&rest[p..]) else {
                                                    if end {
                                                        self.reject(text, em, marker);
                                                        return true;
                                                    }
                                                    return false;
                                                };
                                                p += ws;
                                                break;
                                            }
                                            Some(false) => {}
                                            None if !end => return false,
                                            None => {}
                                        }
                                    }
                                    if !matches!(rest.as_bytes().get(p), Some(b'{' | b'[')) {
                                        self.reject(text, em, marker);
                                        return true;
                                    }
                                }
                                *opened = Some(p);
                                p
                            }
                        };
                        match balance.scan(&rest[open..], b"\"") {
                            Scan::Done(n) => {
                                let body = rest[open..open + n].to_owned();
                                self.streaming.finish(&body, em);
                                if !self.read_body(&body, true, em) {
                                    em.content(&text.take(open + n));
                                    self.state = State::Content;
                                    return true;
                                }
                                text.consume(open + n);
                                self.state = State::After;
                                true
                            }
                            Scan::More if !end => {
                                self.streaming.feed(&rest[open..], em);
                                false
                            }
                            Scan::More => {
                                let body = rest[open..].to_owned();
                                if !self.read_body(&body, false, em) {
                                    em.content(&text.take_all());
                                } else {
                                    text.consume(rest.len());
                                }
                                self.state = State::Content;
                                true
                            }
                            Scan::Broken(e) => {
                                let n = open + balance.scanned;
                                let body = rest[open..n].to_owned();
                                if bracket {
                                    em.content(&text.take(n));
                                } else {
                                    em.invalid(None, None, &body, e);
                                    text.consume(n);
                                }
                                self.state = State::Content;
                                true
                            }
                        }
                    }
                }
            }
            State::After => {
                let rest = text.rest();
                match next_tag(rest, self.spec.after, end) {
                    Next::Wait => return false,
                    Next::Tag { ws, which } => text.consume(ws + self.spec.after[which].len()),
                    // Whitespace stays content.
                    Next::Blank | Next::Other { .. } => self.state = State::Content,
                }
                true
            }
        }
    }

    fn finish(&mut self, text: &mut Text, em: &mut Emitter) {
        while self.advance(text, em, true) {}
        if !text.is_empty() {
            em.content(&text.take_all());
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::parse::{Format, ParseOptions, StreamEvent};

    /// Each call of a list streams while it is written: its arguments are
    /// whole before the next call starts, and every call ends when the
    /// list is read.
    #[test]
    fn lists_stream_call_by_call() {
        let list =
            r#"[{"name": "a", "arguments": {"x": 1}}, {"name": "b", "arguments": {"y": "z"}}]"#;
        let cases = [
            (Format::Granite, format!("<|tool_call|>{list}")),
            (Format::Phi4Mini, format!("functools{list}")),
            (Format::NemotronV2, format!("<TOOLCALL>{list}</TOOLCALL>")),
            (Format::Xlam, list.to_owned()),
            (Format::Mistral, format!("[TOOL_CALLS]{list}")),
            (
                Format::Cohere,
                r#"<|START_ACTION|>[{"tool_call_id": "0", "tool_name": "a", "parameters": {"x": 1}}, {"tool_call_id": "1", "tool_name": "b", "parameters": {"y": "z"}}]<|END_ACTION|>"#.to_owned(),
            ),
            (
                Format::Apertus,
                r#"<|tools_prefix|>[{"a": {"x": 1}}, {"b": {"y": "z"}}]<|tools_suffix|>"#
                    .to_owned(),
            ),
        ];
        for (format, text) in cases {
            let mut p = format.stream(&ParseOptions::default());
            // (event, bytes fed when it came)
            let mut events = Vec::new();
            for (i, c) in text.char_indices() {
                for e in p.feed(&c.to_string()) {
                    events.push((e, i + 1));
                }
            }
            for e in p.finish() {
                events.push((e, text.len()));
            }
            let second_start = events
                .iter()
                .find(|(e, _)| matches!(e, StreamEvent::ToolCallStart { index: 1, .. }))
                .map(|(_, at)| *at)
                .unwrap_or_else(|| panic!("{format}: no second call in {events:?}"));
            let first_args: String = events
                .iter()
                .filter(|(_, at)| *at <= second_start)
                .filter_map(|(e, _)| match e {
                    StreamEvent::ToolCallArguments { index: 0, delta } => Some(delta.as_str()),
                    _ => None,
                })
                .collect();
            assert_eq!(first_args, r#"{"x":1}"#, "{format}");
            assert!(second_start < text.len() - 10, "{format}: streamed late");
            let ends: Vec<String> = events
                .iter()
                .filter_map(|(e, _)| match e {
                    StreamEvent::ToolCallEnd { call, .. } => Some(call.id.clone()),
                    _ => None,
                })
                .collect();
            assert_eq!(ends.len(), 2, "{format}: {events:?}");
            if format == Format::Cohere {
                // Announced with the model's own ids.
                assert_eq!(ends, ["0", "1"]);
                assert!(events.iter().any(|(e, _)| matches!(
                    e,
                    StreamEvent::ToolCallStart { index: 0, id, .. } if id == "0"
                )));
            }
        }
    }
}
