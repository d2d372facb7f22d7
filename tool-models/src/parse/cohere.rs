//! Cohere Command R7B (`<|START_ACTION|>[{"tool_call_id", "tool_name",
//! "parameters"}]<|END_ACTION|>`, thinking in `<|START_THINKING|>…`) and
//! Command R+ (``Action: ```json [...] ``` ``). Response and turn tokens are
//! dropped, and so are citation tags (`<co>`, `</co: 0:[1]>`), whose text stays.

use super::family::{grammar_fn, Family, Rule};
use super::jsonblock::{Block, End, Spec};
use super::stream::{find_any, Find, Machine, Text};
use super::think::ThinkMarkers;
use super::Format;

const ACTION: &str = "<|START_ACTION|>";
const ACTION_END: &str = "<|END_ACTION|>";
const ACTION_WORD: &str = "Action:";

pub(crate) fn machine() -> Box<dyn Machine> {
    Block::boxed(Spec::new(&[ACTION, ACTION_WORD], End::Json).after(&[ACTION_END, "```"]))
}

const DROP: &[&str] = &[
    "<co>",
    "</co",
    "<|START_RESPONSE|>",
    "<|END_RESPONSE|>",
    "<|START_TEXT|>",
    "<|END_TEXT|>",
    "<|CHATBOT_TOKEN|>",
    "<|END_OF_TURN_TOKEN|>",
];

/// Removes citation tags and response tokens before anything else reads
/// the text, so reasoning and content both lose them.
#[derive(Debug, Default)]
pub(crate) struct Citations {
    /// Inside `</co…`, dropping up to `>`.
    in_close: bool,
}

impl Citations {
    pub(crate) fn step(&mut self, raw: &mut Text, out: &mut Text, end: bool) {
        loop {
            let rest = raw.rest();
            if rest.is_empty() {
                return;
            }
            if self.in_close {
                match rest.find('>') {
                    Some(p) => {
                        raw.consume(p + 1);
                        self.in_close = false;
                        continue;
                    }
                    None => {
                        if end {
                            raw.consume(rest.len());
                        }
                        return;
                    }
                }
            }
            match find_any(rest, 0, DROP) {
                Find::At { at, which } => {
                    out.push(&rest[..at]);
                    raw.consume(at + DROP[which].len());
                    self.in_close = DROP[which] == "</co";
                }
                Find::Partial { safe } => {
                    let n = if end { rest.len() } else { safe };
                    out.push(&rest[..n]);
                    raw.consume(n);
                    return;
                }
            }
        }
    }
}

/// Command R+ and R7B.
pub(crate) const COHERE: Family = Family::new(Format::Cohere, "cohere", |_| machine())
    .detect(&[
        Rule::at(180, &[ACTION]),
        Rule::at(190, &[ACTION_WORD, "```json"]),
    ])
    .think(ThinkMarkers {
        open: "<|START_THINKING|>",
        close: "<|END_THINKING|>",
        exits: &[ACTION, "<|START_RESPONSE|>", "<|START_TEXT|>"],
    })
    .citations()
    .grammar(grammar_fn!(grammar::syntax));

/// R7B (its action tokens special) writes a list with ids; R+ a fenced list.
#[cfg(feature = "local")]
mod grammar {
    use super::{ACTION, ACTION_END, ACTION_WORD};
    use crate::constrain::syntax::{lit, named, Calls, Id, Keys, Lark, Syntax};

    pub(super) fn syntax(lark: &Lark) -> Option<Syntax> {
        if lark.is_special(ACTION) {
            let mut s = Syntax::json(&[ACTION], Some(ACTION_END), true);
            s.calls = Calls::Json {
                keys: Keys::Named {
                    name: "tool_name",
                    args: "parameters",
                    id: Id::Counter("tool_call_id"),
                },
                list: true,
                fence: false,
                separator: None,
            };
            s.value_forbidden.clear();
            return Some(s);
        }
        let mut s = Syntax::json(&[ACTION_WORD], None, true);
        s.calls = Calls::Json {
            keys: named("tool_name", "parameters"),
            list: true,
            fence: true,
            separator: None,
        };
        s.text_forbidden.push(lit(ACTION));
        Some(s)
    }
}
