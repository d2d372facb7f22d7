//! What the readers' tests share: feeding a recorded stream, and the
//! events of a streamed and a whole answer put in one form.

use super::api::AnswerReader;
use super::error::RemoteError;
use super::stream::Completion;
use crate::parse::StreamEvent;

/// Feeds `(event, data)` pairs to `reader`, then finishes it: every event
/// it gave, and how the answer ended.
pub(super) fn read_events<E: AsRef<str>, D: AsRef<str>>(
    mut reader: Box<dyn AnswerReader>,
    events: impl IntoIterator<Item = (E, D)>,
) -> Result<(Vec<StreamEvent>, Completion), RemoteError> {
    let mut out = Vec::new();
    for (event, data) in events {
        out.extend(reader.feed(event.as_ref(), data.as_ref())?);
    }
    let (rest, completion) = reader.finish()?;
    out.extend(rest);
    Ok((out, completion))
}

/// Consecutive pieces of the same text or arguments joined: a stream cuts
/// them where it likes.
pub(super) fn joined(events: Vec<StreamEvent>) -> Vec<StreamEvent> {
    let mut out: Vec<StreamEvent> = Vec::new();
    for e in events {
        match (out.last_mut(), e) {
            (Some(StreamEvent::Content(a)), StreamEvent::Content(b))
            | (Some(StreamEvent::Reasoning(a)), StreamEvent::Reasoning(b)) => a.push_str(&b),
            (
                Some(StreamEvent::ToolCallArguments { index: i, delta: a }),
                StreamEvent::ToolCallArguments { index: j, delta: b },
            ) if *i == j => a.push_str(&b),
            (_, e) => out.push(e),
        }
    }
    out
}
