//! `POST /v1/responses`: OpenAI's Responses API.

mod reply;
pub(super) mod store;

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
use crate::wire::responses::{messages_from_items, read_request, Sequenced};
use reply::Assembler;
use store::{ResponseStore, Stored, KEPT_RESPONSES};
use tool_runtime::{Message, ToolDefinition};

pub(crate) async fn handle(
    State(shared): State<Arc<Shared>>,
    CheckedBody(body): CheckedBody,
) -> Result<Response, ApiError> {
    let create = read_request(&body)?;
    check_model(&shared, create.model.as_deref())?;
    let earlier = match &create.previous_response_id {
        Some(id) => Some(
            shared
                .responses
                .get(id)
                .ok_or_else(|| unknown_previous(id))?,
        ),
        None => None,
    };
    let (messages, tools) = earlier
        .as_deref()
        .map_or((&[][..], &[][..]), |s| (&s.messages[..], &s.tools[..]));
    let asked = create.asked(messages, tools)?;
    // With `store: false` nothing is kept, so nothing is copied.
    let keep = (create.store != Some(false)).then(|| Keep {
        store: Arc::clone(&shared.responses),
        conversation: asked.messages[asked.instructions..].to_vec(),
        tools: asked.tools.clone(),
    });
    let request = Request {
        messages: asked.messages,
        tools: asked.tools,
        tool_choice: asked.tool_choice,
        parallel_tool_calls: create.parallel_tool_calls.unwrap_or(true),
        answer_schema: asked.answer_schema,
        max_tokens: create
            .max_output_tokens
            .map(|n| usize::try_from(n).unwrap_or(usize::MAX)),
        temperature: create.temperature.map(|t| t as f32),
        top_p: create.top_p.map(|p| p as f32),
        ..Request::default()
    };
    let accepted = submit(&shared, request).await?;
    let mut assembler = Assembler::new(&shared.model, &create);
    if create.stream == Some(true) {
        let writer = ResponsesWriter { assembler, keep };
        return Ok(stream(accepted, writer).into_response());
    }
    let (finish, usage) = collect(accepted, |event| {
        assembler.event(event);
    })
    .await?;
    assembler.closing(finish, usage);
    if let Some(keep) = &keep {
        keep.save(&assembler);
    }
    match assembler.response() {
        Some(response) => Ok(Json(response).into_response()),
        None => Err(ApiError::internal("the response was not assembled")),
    }
}

fn unknown_previous(id: &str) -> ApiError {
    ApiError::param(
        "previous_response_id",
        format!(
            "previous_response_id: no response `{id}` is kept: this server keeps only the last \
             {KEPT_RESPONSES} responses, in memory, and none made with `store: false`"
        ),
    )
}

/// What a finished response leaves for `previous_response_id`.
struct Keep {
    store: Arc<ResponseStore>,
    /// The conversation it was given, without its instructions.
    conversation: Vec<Message>,
    tools: Vec<ToolDefinition>,
}

impl Keep {
    fn save(&self, assembler: &Assembler) {
        let Some(response) = assembler.response() else {
            return;
        };
        // The output holds no `function_call_output`, so this cannot fail.
        let Ok(output) = messages_from_items(&response.output, &self.conversation, "output") else {
            return;
        };
        let mut messages = self.conversation.clone();
        messages.extend(output);
        self.store.put(
            response.id.clone(),
            Stored {
                messages,
                tools: self.tools.clone(),
            },
        );
    }
}

/// Responses events: `event: <type>` and the event as `data:`.
struct ResponsesWriter {
    assembler: Assembler,
    /// `None` with `store: false`.
    keep: Option<Keep>,
}

fn sse(events: Vec<Sequenced>) -> Vec<Event> {
    events
        .into_iter()
        .map(|e| {
            // These types always serialise: string keys, no non-finite floats
            // the request could not already hold.
            let data = serde_json::to_string(&e).unwrap_or_default();
            Event::default().event(e.event.kind()).data(data)
        })
        .collect()
}

impl Writer for ResponsesWriter {
    fn opening(&mut self) -> Vec<Event> {
        sse(self.assembler.opening())
    }

    fn event(&mut self, event: StreamEvent) -> Vec<Event> {
        sse(self.assembler.event(event))
    }

    fn closing(&mut self, finish: Finish, usage: Usage) -> Vec<Event> {
        let events = self.assembler.closing(finish, usage);
        if let Some(keep) = &self.keep {
            keep.save(&self.assembler);
        }
        sse(events)
    }

    fn failure(&mut self, error: ApiError) -> Vec<Event> {
        sse(self.assembler.failure(&error))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wire::FieldError;

    #[test]
    fn field_errors_become_param_errors() {
        let e = ApiError::from(FieldError::new("input[3].call_id", "no call"));
        assert_eq!(e.status, 400);
        assert_eq!(e.param.as_deref(), Some("input[3].call_id"));
        assert_eq!(e.message, "input[3].call_id: no call");
        let e = ApiError::from(FieldError::new("", "not JSON"));
        assert_eq!(e.param, None);
        let e = unknown_previous("resp_x");
        assert_eq!(e.param.as_deref(), Some("previous_response_id"));
        assert!(e.message.contains("last 256"), "{}", e.message);
    }
}
