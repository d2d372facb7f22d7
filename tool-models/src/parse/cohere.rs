//! Cohere Command R7B (`<|START_ACTION|>[{"tool_call_id", "tool_name",
//! "parameters"}]<|END_ACTION|>`, thinking in `<|START_THINKING|>…`) and
//! Command R+ (``Action: ```json [...] ``` ``). Response and turn tokens are
//! dropped, and so are citation tags (`<co>`, `</co: 0:[1]>`), whose text stays.

use super::jsonblock::{calls, Block, End, Spec};
use super::stream::{find_any, Find, Machine, Text};

pub(crate) fn machine() -> Box<dyn Machine> {
    Block::boxed(Spec {
        starts: &["<|START_ACTION|>", "Action:"],
        brackets: &[],
        end: End::Json,
        after: &["<|END_ACTION|>", "```"],
        handler: calls,
    })
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
