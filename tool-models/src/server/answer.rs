//! An answer on its way to the client, whichever API carries it: streamed
//! as server-sent events by an API's [`Writer`], or collected whole.

use std::collections::VecDeque;
use std::convert::Infallible;

use axum::response::sse::{Event, Sse};

use super::error::ApiError;
use super::intake::{dropped, Accepted};
use super::job::Reply;
use super::request::Finish;
use crate::chat::Usage;
use crate::parse::StreamEvent;

/// How one API writes a streamed answer: each step gives the events to send.
pub(crate) trait Writer: Send + 'static {
    /// What goes before any output (a role chunk, a `message_start`).
    fn opening(&mut self) -> Vec<Event>;
    /// One parsed piece of output.
    fn event(&mut self, event: StreamEvent) -> Vec<Event>;
    /// The end of the answer.
    fn closing(&mut self, finish: Finish, usage: Usage) -> Vec<Event>;
    /// Too late for a status code: the error as the stream's last events.
    fn failure(&mut self, error: ApiError) -> Vec<Event>;
}

/// The stream's state between events.
struct Stream<W> {
    accepted: Accepted,
    writer: W,
    pending: VecDeque<Event>,
    done: bool,
}

/// Streams the answer of `accepted` as `writer` words it. Dropping the
/// stream (the client left) cancels the generation.
pub(crate) fn stream<W: Writer>(
    accepted: Accepted,
    mut writer: W,
) -> Sse<impl futures_util::Stream<Item = Result<Event, Infallible>>> {
    let state = Stream {
        pending: writer.opening().into(),
        accepted,
        writer,
        done: false,
    };
    Sse::new(futures_util::stream::unfold(state, |mut s| async move {
        loop {
            if let Some(event) = s.pending.pop_front() {
                return Some((Ok(event), s));
            }
            if s.done {
                return None;
            }
            let events = match s.accepted.replies.recv().await {
                Some(Reply::Event(event)) => s.writer.event(event),
                Some(Reply::Done { finish, usage }) => {
                    s.done = true;
                    s.writer.closing(finish, usage)
                }
                Some(Reply::Started { .. }) => Vec::new(),
                Some(Reply::Failed(e)) => {
                    s.done = true;
                    s.writer.failure(e)
                }
                None => {
                    s.done = true;
                    s.writer.failure(dropped())
                }
            };
            s.pending.extend(events);
        }
    }))
}

/// Waits for the whole answer, passing each piece to `on_event`; how it
/// ended.
pub(crate) async fn collect(
    mut accepted: Accepted,
    mut on_event: impl FnMut(StreamEvent),
) -> Result<(Finish, Usage), ApiError> {
    loop {
        match accepted.replies.recv().await {
            Some(Reply::Event(event)) => on_event(event),
            Some(Reply::Done { finish, usage }) => return Ok((finish, usage)),
            Some(Reply::Failed(e)) => return Err(e),
            Some(Reply::Started { .. }) => {}
            None => return Err(dropped()),
        }
    }
}
