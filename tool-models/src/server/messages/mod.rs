//! `POST /v1/messages`: Anthropic's Messages API.

mod reply;

use std::sync::Arc;

use axum::extract::State;
use axum::response::sse::Event;
use axum::response::{IntoResponse, Response};
use axum::Json;

use super::answer::{collect, stream, Writer};
use super::error::ApiError;
use super::intake::{check_model, submit, CheckedBody, Shared};
use super::request::{Finish, Request};
use crate::chat::Usage;
use crate::parse::StreamEvent;
use crate::wire::messages::MessagesEvent;
use crate::wire::messages::MessagesRequest;
use reply::Assembler;

pub(crate) async fn handle(
    State(shared): State<Arc<Shared>>,
    body: Result<CheckedBody, ApiError>,
) -> Response {
    let answer = match body {
        Ok(CheckedBody(body)) => start(&shared, &body).await,
        Err(e) => Err(e),
    };
    // Anthropic's SDKs read errors only in Anthropic's shape.
    answer.unwrap_or_else(ApiError::into_anthropic_response)
}

async fn start(shared: &Shared, body: &[u8]) -> Result<Response, ApiError> {
    let wire = MessagesRequest::read(body)?;
    let conversation = wire.conversation()?;
    check_model(shared, wire.model.as_deref())?;
    let request = Request {
        messages: conversation.messages,
        tools: conversation.tools,
        tool_choice: conversation.tool_choice,
        parallel_tool_calls: conversation.parallel_tool_calls,
        answer_schema: None,
        max_tokens: Some(usize::try_from(wire.max_tokens).unwrap_or(usize::MAX)),
        temperature: wire.temperature.map(|t| t as f32),
        top_p: wire.top_p.map(|p| p as f32),
        seed: None,
        stop: wire.stop_sequences,
        ignore_eos: None,
    };
    let accepted = submit(shared, request).await?;
    let mut assembler = Assembler::new(&shared.model, accepted.prompt_tokens);
    if wire.stream {
        return Ok(stream(accepted, MessagesWriter { assembler }).into_response());
    }
    let (finish, usage) = collect(accepted, |event| {
        assembler.event(event);
    })
    .await?;
    assembler.closing(finish, usage);
    Ok(Json(assembler.message()).into_response())
}

/// Messages events: each with its `event:` name, as the SDKs require.
struct MessagesWriter {
    assembler: Assembler,
}

fn sse(event: &MessagesEvent) -> Event {
    // Cannot fail: every map in these types has string keys.
    let data = serde_json::to_string(event).unwrap_or_default();
    Event::default().event(event.name()).data(data)
}

fn all(events: Vec<MessagesEvent>) -> Vec<Event> {
    events.iter().map(sse).collect()
}

impl Writer for MessagesWriter {
    fn opening(&mut self) -> Vec<Event> {
        vec![sse(&self.assembler.opening())]
    }

    fn event(&mut self, event: StreamEvent) -> Vec<Event> {
        all(self.assembler.event(event))
    }

    fn closing(&mut self, finish: Finish, usage: Usage) -> Vec<Event> {
        all(self.assembler.closing(finish, usage))
    }

    fn failure(&mut self, error: ApiError) -> Vec<Event> {
        vec![Event::default()
            .event("error")
            .data(error.anthropic_body().to_string())]
    }
}
