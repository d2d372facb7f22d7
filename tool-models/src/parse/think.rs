//! Splitting reasoning from the rest: `<think>…</think>` (or a family's own
//! markers) is reasoning, and so is the text before an unmatched close marker
//! when generation started inside an open block.

use super::stream::{find_any, Emitter, Find, Text};

/// Where the model's output starts, relative to a reasoning block.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ReasoningStart {
    /// Outside: only text between the open and close markers is reasoning.
    #[default]
    Closed,
    /// Inside: the prompt already opened the block (e.g. it ends with
    /// `<think>`), so everything before the close marker is reasoning.
    Open,
    /// Unknown: text is held back until an open marker (→ `Closed`) or an
    /// unmatched close marker (→ `Open`) decides, or the output ends (all
    /// content). Right in both cases, at the cost of streaming content late.
    Auto,
}

/// The markers of a family's reasoning block.
#[derive(Debug, Clone, Copy)]
pub(crate) struct ThinkMarkers {
    pub(crate) open: &'static str,
    pub(crate) close: &'static str,
    /// Markers that end reasoning without a close marker (a tool call that
    /// the model starts straight from its thoughts); they stay in the text.
    pub(crate) exits: &'static [&'static str],
}

pub(crate) const THINK: ThinkMarkers = ThinkMarkers {
    open: "<think>",
    close: "</think>",
    exits: &[],
};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    Content,
    Reasoning,
    Undecided,
}

/// Routes raw text: reasoning to the emitter, the rest to the format's buffer.
#[derive(Debug)]
pub(crate) struct ThinkSplitter {
    markers: ThinkMarkers,
    state: State,
    /// Bytes of the held text already searched in `Undecided`.
    scanned: usize,
}

impl ThinkSplitter {
    pub(crate) fn new(markers: ThinkMarkers, start: ReasoningStart) -> Self {
        let state = match start {
            ReasoningStart::Closed => State::Content,
            ReasoningStart::Open => State::Reasoning,
            ReasoningStart::Auto => State::Undecided,
        };
        ThinkSplitter {
            markers,
            state,
            scanned: 0,
        }
    }

    /// Moves what can be decided from `raw` to `content` or reasoning.
    pub(crate) fn step(&mut self, raw: &mut Text, content: &mut Text, em: &mut Emitter, end: bool) {
        loop {
            let rest = raw.rest();
            if rest.is_empty() {
                return;
            }
            match self.state {
                State::Content | State::Reasoning => {
                    let reasoning = matches!(self.state, State::Reasoning);
                    // Content ends at the opening marker; reasoning at the
                    // closing one, or at an exit marker, which is kept.
                    let (ends, next) = if reasoning {
                        let ends = [&[self.markers.close], self.markers.exits].concat();
                        (ends, State::Content)
                    } else {
                        (vec![self.markers.open], State::Reasoning)
                    };
                    let (n, marker) = match find_any(rest, 0, &ends) {
                        Find::At { at, which: 0 } => (at, Some(ends[0].len())),
                        Find::At { at, .. } => (at, Some(0)),
                        Find::Partial { safe } => (if end { rest.len() } else { safe }, None),
                    };
                    if reasoning {
                        em.reasoning(&rest[..n]);
                    } else {
                        content.push(&rest[..n]);
                    }
                    // Without its end, the text so far is all that is decided.
                    let Some(marker) = marker else {
                        raw.consume(n);
                        return;
                    };
                    raw.consume(n + marker);
                    self.state = next;
                }
                State::Undecided => {
                    let from = self.scanned.min(rest.len());
                    match find_any(rest, from, &[self.markers.open, self.markers.close]) {
                        Find::At { which: 0, .. } => self.state = State::Content,
                        Find::At { which: _, .. } => self.state = State::Reasoning,
                        Find::Partial { safe } => {
                            if end {
                                self.state = State::Content;
                            } else {
                                self.scanned = safe;
                                return;
                            }
                        }
                    }
                }
            }
        }
    }
}
