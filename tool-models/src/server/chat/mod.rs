//! `POST /v1/chat/completions`: OpenAI's Chat Completions API.

mod reply;
mod request;

use std::sync::Arc;

use axum::extract::State;
use axum::response::sse::Event;
use axum::response::{IntoResponse, Response};
use axum::Json;

use super::answer::{collect, stream, Writer};
use super::error::ApiError;
use super::intake::{check_model, submit, CheckedBody, Shared};
use super::request::Finish;
use crate::chat::Usage;
use crate::parse::StreamEvent;
use crate::wire::chat::Delta;
use reply::{Assembler, Envelope};
use request::ChatRequest;

pub(crate) async fn handle(
    State(shared): State<Arc<Shared>>,
    CheckedBody(body): CheckedBody,
) -> Result<Response, ApiError> {
    let chat = ChatRequest::from_json(&body)?;
    check_model(&shared, chat.model.as_deref())?;
    let accepted = submit(&shared, chat.request).await?;
    let envelope = Envelope::new(&shared.model);
    if chat.stream {
        let writer = ChatWriter {
            assembler: Assembler::default(),
            envelope,
            include_usage: chat.include_usage,
        };
        return Ok(stream(accepted, writer).into_response());
    }
    let mut assembler = Assembler::default();
    let (finish, usage) = collect(accepted, |event| {
        assembler.delta(event);
    })
    .await?;
    Ok(Json(envelope.completion(assembler.message(), finish, usage)).into_response())
}

/// Chat Completions chunks: `data:` lines, then `data: [DONE]`.
struct ChatWriter {
    assembler: Assembler,
    envelope: Envelope,
    include_usage: bool,
}

fn data(value: impl serde::Serialize) -> Event {
    // Serialising these types cannot fail: their maps have string keys.
    Event::default().data(serde_json::to_string(&value).unwrap_or_default())
}

fn done() -> Event {
    Event::default().data("[DONE]")
}

impl Writer for ChatWriter {
    fn opening(&mut self) -> Vec<Event> {
        let delta = Delta {
            role: Some("assistant".into()),
            content: Some(String::new()),
            ..Delta::default()
        };
        vec![data(self.envelope.chunk(delta, None))]
    }

    fn event(&mut self, event: StreamEvent) -> Vec<Event> {
        self.assembler
            .delta(event)
            .map(|delta| data(self.envelope.chunk(delta, None)))
            .into_iter()
            .collect()
    }

    fn closing(&mut self, finish: Finish, usage: Usage) -> Vec<Event> {
        let mut events = vec![data(self.envelope.chunk(Delta::default(), Some(finish)))];
        if self.include_usage {
            events.push(data(self.envelope.usage_chunk(usage)));
        }
        events.push(done());
        events
    }

    fn failure(&mut self, error: ApiError) -> Vec<Event> {
        vec![data(error.body()), done()]
    }
}
