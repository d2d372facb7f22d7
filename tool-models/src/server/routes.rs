//! The HTTP endpoints: thin handlers over the worker.

use std::collections::VecDeque;
use std::convert::Infallible;
use std::sync::Arc;

use axum::body::Bytes;
use axum::extract::rejection::BytesRejection;
use axum::extract::{DefaultBodyLimit, Path, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::sse::{Event, Sse};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use serde_json::{json, Value};
use tokio::sync::mpsc::{unbounded_channel, UnboundedReceiver};

use super::auth::authorize;
use super::error::ApiError;
use super::reply::{Assembler, Envelope};
use super::request::ChatRequest;
use super::worker::{Job, Reply, Worker};
use crate::generate::CancelFlag;

/// What every handler shares.
pub(crate) struct Shared {
    pub worker: Worker,
    pub model: String,
    pub api_key: Option<String>,
    pub max_body_bytes: usize,
    pub created: u64,
}

pub(crate) fn router(shared: Arc<Shared>) -> Router {
    let limit = shared.max_body_bytes;
    Router::new()
        .route("/health", get(health))
        .route("/v1/models", get(models))
        .route("/v1/models/{id}", get(model))
        .route("/v1/chat/completions", post(chat))
        .fallback(not_found)
        .layer(DefaultBodyLimit::max(limit))
        .with_state(shared)
}

async fn health(State(shared): State<Arc<Shared>>) -> Json<Value> {
    let (queued, generating) = shared.worker.load();
    Json(json!({"status": "ok", "generating": generating, "queued": queued}))
}

async fn not_found() -> ApiError {
    ApiError::not_found(
        "no such endpoint: this server has GET /v1/models, POST /v1/chat/completions and GET /health",
        "unknown_url",
    )
}

fn model_object(shared: &Shared) -> Value {
    json!({"id": shared.model, "object": "model", "created": shared.created, "owned_by": "tool-use"})
}

async fn models(State(shared): State<Arc<Shared>>, headers: HeaderMap) -> Response {
    match authorize(&headers, shared.api_key.as_deref()) {
        Ok(()) => Json(json!({"object": "list", "data": [model_object(&shared)]})).into_response(),
        Err(e) => e.into_response(),
    }
}

async fn model(
    State(shared): State<Arc<Shared>>,
    Path(id): Path<String>,
    headers: HeaderMap,
) -> Response {
    let check = authorize(&headers, shared.api_key.as_deref()).and_then(|()| {
        if id == shared.model {
            Ok(model_object(&shared))
        } else {
            Err(unknown_model(&shared, &id))
        }
    });
    match check {
        Ok(m) => Json(m).into_response(),
        Err(e) => e.into_response(),
    }
}

fn unknown_model(shared: &Shared, id: &str) -> ApiError {
    ApiError::not_found(
        format!(
            "the model `{id}` does not exist: this server serves `{}`",
            shared.model
        ),
        "model_not_found",
    )
}

async fn chat(
    State(shared): State<Arc<Shared>>,
    headers: HeaderMap,
    body: Result<Bytes, BytesRejection>,
) -> Response {
    match start_chat(&shared, &headers, body).await {
        Ok(response) => response,
        Err(e) => e.into_response(),
    }
}

/// Raises the job's flag when the handler or its stream is dropped: the
/// client went away, or the answer is complete (then it is harmless).
struct CancelOnDrop(CancelFlag);

impl Drop for CancelOnDrop {
    fn drop(&mut self) {
        self.0.cancel();
    }
}

async fn start_chat(
    shared: &Shared,
    headers: &HeaderMap,
    body: Result<Bytes, BytesRejection>,
) -> Result<Response, ApiError> {
    authorize(headers, shared.api_key.as_deref())?;
    let body = body.map_err(|r| {
        if r.status() == StatusCode::PAYLOAD_TOO_LARGE {
            ApiError::too_large(shared.max_body_bytes)
        } else {
            ApiError::invalid(format!("cannot read the request body: {}", r.body_text()))
        }
    })?;
    let request = ChatRequest::from_json(&body)?;
    if let Some(name) = &request.model {
        if name != &shared.model {
            return Err(unknown_model(shared, name));
        }
    }
    let stream = request.stream;
    let include_usage = request.include_usage;
    let cancel = CancelFlag::new();
    let guard = CancelOnDrop(cancel.clone());
    let (replies, mut rx) = unbounded_channel();
    shared.worker.submit(Job {
        request,
        cancel,
        replies,
    })?;
    // Refusals (a template that rejects the conversation, a prompt too
    // long) come before generation, so they still get their status code.
    match rx.recv().await {
        Some(Reply::Started) => {}
        Some(Reply::Failed(e)) => return Err(e),
        Some(other) => {
            return Err(ApiError::internal(format!(
                "the model thread answered out of order: {other:?}"
            )))
        }
        None => return Err(dropped()),
    }
    let envelope = Envelope::new(&shared.model);
    if stream {
        Ok(events(envelope, rx, guard, include_usage).into_response())
    } else {
        collect(envelope, rx, guard).await
    }
}

async fn collect(
    envelope: Envelope,
    mut rx: UnboundedReceiver<Reply>,
    _guard: CancelOnDrop,
) -> Result<Response, ApiError> {
    let mut assembler = Assembler::default();
    loop {
        match rx.recv().await {
            Some(Reply::Event(event)) => {
                assembler.delta(event);
            }
            Some(Reply::Done { finish, usage }) => {
                return Ok(
                    Json(envelope.completion(assembler.message(), finish, usage)).into_response(),
                )
            }
            Some(Reply::Failed(e)) => return Err(e),
            Some(Reply::Started) => {}
            None => return Err(dropped()),
        }
    }
}

/// The worker went away without answering (it catches panics, so only a
/// stopped thread does this).
fn dropped() -> ApiError {
    ApiError::internal("the model thread dropped the request")
}

/// The stream's state between chunks.
struct Stream {
    rx: UnboundedReceiver<Reply>,
    assembler: Assembler,
    envelope: Envelope,
    include_usage: bool,
    pending: VecDeque<String>,
    done: bool,
    _guard: CancelOnDrop,
}

impl Stream {
    /// Too late for a status code: the error goes in the stream, then it ends.
    fn fail(&mut self, e: ApiError) {
        self.pending.push_back(e.body().to_string());
        self.pending.push_back("[DONE]".into());
        self.done = true;
    }
}

fn events(
    envelope: Envelope,
    rx: UnboundedReceiver<Reply>,
    guard: CancelOnDrop,
    include_usage: bool,
) -> Sse<impl futures_util::Stream<Item = Result<Event, Infallible>>> {
    let first = envelope.chunk(json!({"role": "assistant", "content": ""}), None);
    let state = Stream {
        rx,
        assembler: Assembler::default(),
        envelope,
        include_usage,
        pending: VecDeque::from([first.to_string()]),
        done: false,
        _guard: guard,
    };
    Sse::new(futures_util::stream::unfold(state, |mut s| async move {
        loop {
            if let Some(data) = s.pending.pop_front() {
                return Some((Ok(Event::default().data(data)), s));
            }
            if s.done {
                return None;
            }
            match s.rx.recv().await {
                Some(Reply::Event(event)) => {
                    if let Some(delta) = s.assembler.delta(event) {
                        s.pending
                            .push_back(s.envelope.chunk(delta, None).to_string());
                    }
                }
                Some(Reply::Done { finish, usage }) => {
                    s.pending
                        .push_back(s.envelope.chunk(json!({}), Some(finish)).to_string());
                    if s.include_usage {
                        s.pending
                            .push_back(s.envelope.usage_chunk(usage).to_string());
                    }
                    s.pending.push_back("[DONE]".into());
                    s.done = true;
                }
                Some(Reply::Started) => {}
                Some(Reply::Failed(e)) => s.fail(e),
                None => s.fail(dropped()),
            }
        }
    }))
}
