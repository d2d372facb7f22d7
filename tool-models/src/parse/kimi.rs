//! Kimi K2: `<|tool_calls_section_begin|><|tool_call_begin|>functions.name:0
//! <|tool_call_argument_begin|>{…}<|tool_call_end|>…<|tool_calls_section_end|>`.
//! The id is the model's own (`functions.name:0`); a bare counter (`0`) is
//! named from the offered tools when that is unambiguous. Text between the
//! section markers outside calls, and after the section, is not content.

use super::family::{grammar_fn, Family, Rule};
use super::partial_call::NamedArguments;
use super::schema::Tools;
use super::stream::{content_past, json_arguments, Emitter, Find, Machine, Search, Tags, Text};
use super::think::ThinkMarkers;
use super::think::THINK;
use super::Format;
use serde_json::Value;

const SECTION: Tags = Tags::new("<|tool_calls_section_begin|>", "<|tool_calls_section_end|>");
const CALL: Tags = Tags::new("<|tool_call_begin|>", "<|tool_call_end|>");
/// Between a call's id and its arguments.
const ARG_BEGIN: &str = "<|tool_call_argument_begin|>";

enum State {
    Content,
    Section,
    Id,
    Args {
        id: String,
        /// The arguments streamed so far, when the id names the tool.
        streamed: Option<NamedArguments>,
    },
    /// After the section: dropped, as Kimi's own server does.
    Done,
}

struct Kimi {
    state: State,
    in_section: bool,
    /// Where the search for the state's markers stands.
    search: Search,
}

pub(crate) fn machine() -> Box<dyn Machine> {
    Box::new(Kimi {
        state: State::Content,
        in_section: false,
        search: Search::default(),
    })
}

/// The tool a `functions.name:0` id names (`name:0` too).
fn named(id: &str) -> Option<String> {
    let (head, n) = id.rsplit_once(':')?;
    let name = head.strip_prefix("functions.").unwrap_or(head);
    (!n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()) && !name.is_empty())
        .then(|| name.to_owned())
}

/// The tool a bare counter id means: the only tool, or the only one whose
/// parameters cover the arguments' keys.
fn infer(tools: &Tools, args: Option<&Value>) -> Option<String> {
    let names = tools.names();
    if let [only] = names[..] {
        return Some(only.to_owned());
    }
    let args = args?.as_object()?;
    let mut fits = names.into_iter().filter(|name| {
        tools
            .properties(name)
            .is_some_and(|props| args.keys().all(|k| props.contains_key(k)))
    });
    let first = fits.next()?;
    fits.next().is_none().then(|| first.to_owned())
}

impl Kimi {
    fn emit(&self, id: String, raw: &str, em: &mut Emitter) {
        let raw_t = raw.trim();
        let parsed = json_arguments(raw);
        let name = match named(&id) {
            Some(name) => Some(name),
            None if !id.is_empty() && id.bytes().all(|b| b.is_ascii_digit()) => {
                match infer(em.tools(), parsed.as_ref().ok()) {
                    Some(n) => Some(n),
                    None => {
                        em.invalid(
                            Some(id),
                            None,
                            raw_t,
                            "cannot tell which tool the bare call id names",
                        );
                        return;
                    }
                }
            }
            None => None,
        };
        let Some(name) = name else {
            em.invalid(
                Some(id.clone()),
                None,
                raw_t,
                format!("invalid call id `{id}`"),
            );
            return;
        };
        em.parsed_call(Some(id), name, raw_t, parsed);
    }

    fn after_call(&self) -> State {
        if self.in_section {
            State::Section
        } else {
            State::Content
        }
    }
}

impl Machine for Kimi {
    fn ended(&mut self, em: &mut Emitter) {
        if let State::Args { id, .. } = &mut self.state {
            let id = std::mem::take(id);
            self.emit(id, "", em);
            self.state = State::Content;
        }
    }

    fn advance(&mut self, text: &mut Text, em: &mut Emitter, end: bool) -> bool {
        let rest = text.rest();
        let markers: &[&str] = match self.state {
            State::Content => {
                let Some(which) = content_past(text, em, &[SECTION.open, CALL.open], end) else {
                    return false;
                };
                self.in_section = which == 0;
                self.state = if self.in_section {
                    State::Section
                } else {
                    State::Id
                };
                return true;
            }
            State::Section => &[CALL.open, SECTION.close],
            State::Id => &[ARG_BEGIN, CALL.close, SECTION.close],
            State::Args { .. } => &[CALL.close, CALL.open, SECTION.close],
            State::Done => {
                text.consume(rest.len());
                return false;
            }
        };
        let found = self.search.find(rest, markers);
        match (&mut self.state, found) {
            (State::Section, Find::At { at, which }) => {
                text.consume(at + markers[which].len());
                self.state = if which == 0 { State::Id } else { State::Done };
            }
            (State::Id, Find::At { at, which }) => {
                let id = rest[..at].trim().to_owned();
                text.consume(at + markers[which].len());
                match which {
                    0 => {
                        // `functions.name:0` names the tool: its arguments
                        // stream as written.
                        let streamed =
                            named(&id).map(|name| NamedArguments::new(&name, Some(id.clone())));
                        self.state = State::Args { id, streamed };
                    }
                    _ => {
                        em.invalid(Some(id), None, "", "the call has no arguments");
                        self.state = if which == 2 {
                            State::Done
                        } else {
                            self.after_call()
                        };
                    }
                }
            }
            (State::Args { id, streamed }, Find::At { at, which }) => {
                let id = std::mem::take(id);
                let raw = rest[..at].to_owned();
                if let Some(streamed) = streamed {
                    streamed.finish(&raw, em);
                }
                // A following call's marker stays for the next state.
                let skip = if which == 1 { 0 } else { markers[which].len() };
                text.consume(at + skip);
                self.emit(id, &raw, em);
                self.state = match which {
                    2 => State::Done,
                    1 => State::Content,
                    _ => self.after_call(),
                };
            }
            (State::Args { id, .. }, Find::Partial { .. }) if end => {
                let id = std::mem::take(id);
                let raw = rest.to_owned();
                text.consume(rest.len());
                self.emit(id, &raw, em);
                self.state = State::Content;
            }
            (State::Section | State::Id, Find::Partial { .. }) if end => {
                if let State::Id = self.state {
                    em.invalid(
                        Some(rest.trim().to_owned()),
                        None,
                        "",
                        "the call was cut off",
                    );
                }
                text.consume(rest.len());
                self.state = State::Content;
            }
            (State::Args { streamed, .. }, Find::Partial { safe }) => {
                if let Some(streamed) = streamed {
                    streamed.feed(&rest[..safe], em);
                }
                return false;
            }
            // Content and Done are decided before any search.
            (_, Find::Partial { .. }) | (State::Content | State::Done, _) => return false,
        }
        true
    }
}

#[cfg(test)]
mod streaming {
    use crate::parse::{Format, ParseOptions, StreamEvent};

    #[test]
    fn arguments_stream_when_the_id_names_the_tool() {
        let text = "<|tool_calls_section_begin|><|tool_call_begin|>functions.get_weather:0<|tool_call_argument_begin|>{\"city\": \"Paris\", \"days\": 2e0}<|tool_call_end|><|tool_calls_section_end|>";
        let mut p = Format::KimiK2.stream(&ParseOptions::default());
        let mut before_end = String::new();
        let mut start_id = None;
        let end_at = text.find("<|tool_call_end|>").unwrap();
        for (i, c) in text.char_indices() {
            for e in p.feed(&c.to_string()) {
                match e {
                    StreamEvent::ToolCallStart { id, .. } => start_id = Some(id),
                    StreamEvent::ToolCallArguments { delta, .. } if i < end_at => {
                        before_end.push_str(&delta)
                    }
                    _ => {}
                }
            }
        }
        p.finish();
        assert_eq!(start_id.as_deref(), Some("functions.get_weather:0"));
        // The model's spelling, up to what was held back at the cut.
        assert!(
            before_end.starts_with("{\"city\":\"Paris\",\"days\":2"),
            "{before_end}"
        );
    }
}

/// Kimi K2.
pub(crate) const KIMI_K2: Family = Family::new(Format::KimiK2, "kimi_k2", |_| machine())
    .detect(&[Rule::at(10, &[SECTION.open])])
    .think(ThinkMarkers {
        exits: &[SECTION.open, CALL.open],
        ..THINK
    })
    .grammar(grammar_fn!(grammar::syntax));

/// A section of calls, each with its own markers.
#[cfg(feature = "local")]
mod grammar {
    use super::{CALL, SECTION};
    use crate::constrain::syntax::{args_json, lit, CallRule, Lark, Syntax, ToolDef};

    pub(super) fn syntax(_: &Lark) -> Option<Syntax> {
        let mut s = Syntax::per_tool(&[SECTION.open], Some(SECTION.close), kimi, true);
        s.value_forbidden = vec![CALL.close];
        Some(s)
    }

    fn kimi(l: &mut Lark, t: &ToolDef, vf: &[&'static str]) -> CallRule {
        Ok(format!(
            "{} {} /:[0-9]{{1,2}}/ {} {} {}",
            l.mark("<|tool_call_begin|>"),
            lit(&format!("functions.{}", t.name)),
            l.mark("<|tool_call_argument_begin|>"),
            args_json(t, vf),
            l.mark("<|tool_call_end|>")
        ))
    }
}
