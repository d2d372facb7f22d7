//! DeepSeek V3 (`<｜tool▁call▁begin｜>function<｜tool▁sep｜>name` then a
//! ```` ```json ```` block) and V3.1 (`<｜tool▁call▁begin｜>name<｜tool▁sep｜>{…}`),
//! inside `<｜tool▁calls▁begin｜>…<｜tool▁calls▁end｜>`. One machine reads both.
//! Text after the section is dropped, as DeepSeek's servers do; a section that
//! never holds a call is given back as content.

use super::family::{grammar_fn, Family, Rule};
use super::partial_call::NamedArguments;
use super::stream::{content_past, Emitter, Find, Machine, Search, Tags, Text};
use super::think::ThinkMarkers;
use super::think::THINK;
use super::Format;

const SECTION: Tags = Tags::new("<｜tool▁calls▁begin｜>", "<｜tool▁calls▁end｜>");
const CALL: Tags = Tags::new("<｜tool▁call▁begin｜>", "<｜tool▁call▁end｜>");
/// Between a call's name and its arguments.
const SEP: &str = "<｜tool▁sep｜>";

enum State {
    Content,
    Section {
        /// The section's text while it has no call yet.
        pending: Option<String>,
    },
    Call {
        /// The arguments of the call, once its name is known.
        streamed: Option<NamedArguments>,
    },
    Done,
}

struct Deepseek {
    state: State,
    /// Where the search for the state's markers stands.
    search: Search,
}

pub(crate) fn machine() -> Box<dyn Machine> {
    Box::new(Deepseek {
        state: State::Content,
        search: Search::default(),
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

/// The name and the text from where the arguments start: V3.1 writes
/// `name<sep>{…}`, V3 `function<sep>name` then a fenced block on the next
/// line. `None` while the name may still grow.
fn head(body: &str) -> Option<(&str, &str)> {
    let (head, tail) = body.split_once(SEP)?;
    if head.trim() == "function" {
        let p = tail.find(['\n', '`'])?;
        Some((tail[..p].trim(), &tail[p..]))
    } else {
        Some((head.trim(), tail))
    }
}

/// The arguments' object within `args` (after a ```` ```json ```` fence),
/// as far as it is written.
fn unfenced(args: &str) -> Option<&str> {
    let open = args.find('{')?;
    matches!(args[..open].trim(), "" | "```" | "```json").then(|| &args[open..])
}

fn emit_call(body: &str, em: &mut Emitter) {
    if !body.contains(SEP) {
        em.invalid(None, None, body, "no `<｜tool▁sep｜>` in the call");
        return;
    }
    // V3's name line may run to the end of the call.
    let (name, args) = head(body).unwrap_or_else(|| {
        let (_, tail) = body.split_once(SEP).unwrap_or_default();
        (tail.trim(), "")
    });
    let args = strip_fence(args);
    if name.is_empty() {
        em.invalid(None, None, args, "the call has no name");
        return;
    }
    em.json_arguments_call(None, name.to_owned(), args);
}

/// Streams the arguments of the call whose `body` is written so far;
/// `whole` when it is complete.
fn progress(streamed: &mut Option<NamedArguments>, body: &str, whole: bool, em: &mut Emitter) {
    let Some((name, args)) = head(body).filter(|(name, _)| !name.is_empty()) else {
        return;
    };
    let streamed = streamed.get_or_insert_with(|| NamedArguments::new(name, None));
    match unfenced(args) {
        Some(object) if whole => streamed.finish(object, em),
        Some(object) => streamed.feed(object, em),
        None => {}
    }
}

impl Machine for Deepseek {
    fn advance(&mut self, text: &mut Text, em: &mut Emitter, end: bool) -> bool {
        let rest = text.rest();
        let markers: &[&str] = match self.state {
            State::Content => {
                self.state = match content_past(text, em, &[SECTION.open, CALL.open], end) {
                    None => return false,
                    Some(0) => State::Section {
                        pending: Some(SECTION.open.to_owned()),
                    },
                    Some(_) => State::Call { streamed: None },
                };
                return true;
            }
            State::Section { .. } => &[CALL.open, SECTION.close],
            State::Call { .. } => &[CALL.close, SECTION.close],
            State::Done => {
                text.consume(rest.len());
                return false;
            }
        };
        let found = self.search.find(rest, markers);
        match (&mut self.state, found) {
            // What follows the section is dropped, and so is a closed
            // section that held no call.
            (State::Section { .. }, Find::At { at, which }) => {
                text.consume(at + markers[which].len());
                self.state = if which == 0 {
                    State::Call { streamed: None }
                } else {
                    State::Done
                };
            }
            (State::Call { streamed }, Find::At { at, which }) => {
                let body = rest[..at].to_owned();
                text.consume(at + markers[which].len());
                progress(streamed, &body, true, em);
                emit_call(&body, em);
                self.state = if which == 0 {
                    State::Section { pending: None }
                } else {
                    State::Done
                };
            }
            (State::Call { streamed }, Find::Partial { .. }) if end => {
                let body = rest.to_owned();
                text.consume(body.len());
                if !body.trim().is_empty() {
                    progress(streamed, &body, true, em);
                    emit_call(&body, em);
                }
                self.state = State::Done;
            }
            (State::Section { pending }, Find::Partial { .. }) if end => {
                if let Some(mut p) = pending.take() {
                    p.push_str(rest);
                    em.content(&p);
                }
                text.consume(rest.len());
                self.state = State::Done;
            }
            (State::Call { streamed }, Find::Partial { safe }) => {
                progress(streamed, &rest[..safe], false, em);
                return false;
            }
            // Content and Done are decided before any search.
            (_, Find::Partial { .. }) | (State::Content | State::Done, _) => return false,
        }
        true
    }

    // A section or call left open is decided with nothing more to read.
    fn finish(&mut self, text: &mut Text, em: &mut Emitter) {
        while self.advance(text, em, true) {}
    }
}

/// DeepSeek V3.
pub(crate) const DEEPSEEK_V3: Family =
    Family::new(Format::DeepseekV3, "deepseek_v3", |_| machine())
        .detect(&[Rule::at(20, &["tool▁calls▁begin", "```json"])])
        .think(THINK_DEEPSEEK)
        .grammar(grammar_fn!(grammar::syntax_v3));

/// DeepSeek V3.1.
pub(crate) const DEEPSEEK_V31: Family =
    Family::new(Format::DeepseekV31, "deepseek_v31", |_| machine())
        .detect(&[Rule::at(30, &["tool▁calls▁begin"])])
        .think(THINK_DEEPSEEK)
        .grammar(grammar_fn!(grammar::syntax_v31));

/// Reasoning ends where the calls begin.
const THINK_DEEPSEEK: ThinkMarkers = ThinkMarkers {
    exits: &[SECTION.open],
    ..THINK
};

/// A section of calls; V3 fences the arguments, V3.1 does not.
#[cfg(feature = "local")]
mod grammar {
    use super::{CALL, SECTION};
    use crate::constrain::syntax::{args_json, lit, CallFn, CallRule, Lark, Syntax, ToolDef};

    pub(super) fn syntax_v3(_: &Lark) -> Option<Syntax> {
        Some(section(deepseek_v3))
    }

    pub(super) fn syntax_v31(_: &Lark) -> Option<Syntax> {
        Some(section(deepseek_v31))
    }

    fn section(call: CallFn) -> Syntax {
        let mut s = Syntax::per_tool(&[SECTION.open], Some(SECTION.close), call, true);
        s.value_forbidden = vec![CALL.close];
        s
    }

    fn deepseek_v3(l: &mut Lark, t: &ToolDef, vf: &[&'static str]) -> CallRule {
        Ok(format!(
            "{} \"function\" {} {} \"\\n```json\\n\" {} \"\\n```\" {}",
            l.mark("<｜tool▁call▁begin｜>"),
            l.mark("<｜tool▁sep｜>"),
            lit(&t.name),
            args_json(t, vf),
            l.mark("<｜tool▁call▁end｜>")
        ))
    }

    fn deepseek_v31(l: &mut Lark, t: &ToolDef, vf: &[&'static str]) -> CallRule {
        Ok(format!(
            "{} {} {} {} {}",
            l.mark("<｜tool▁call▁begin｜>"),
            lit(&t.name),
            l.mark("<｜tool▁sep｜>"),
            args_json(t, vf),
            l.mark("<｜tool▁call▁end｜>")
        ))
    }
}
