//! What every endpoint does before its API's own work: the state they
//! share, the key and body checks, and handing a request to the worker.

use std::sync::Arc;

use axum::body::Bytes;
use axum::extract::{FromRequest, Request};
use axum::http::StatusCode;
use tokio::sync::mpsc::{unbounded_channel, UnboundedReceiver};

use super::auth::authorize;
use super::error::ApiError;
use super::job::{Job, Reply};
use super::request;
use super::responses::store::ResponseStore;
use super::worker::Worker;
use tool_runtime::CancelToken;

/// What every handler shares.
pub(crate) struct Shared {
    pub worker: Worker,
    pub model: String,
    pub api_key: Option<String>,
    pub max_body_bytes: usize,
    pub created: u64,
    /// The responses `previous_response_id` may continue.
    pub responses: Arc<ResponseStore>,
}

/// A request for a model this server does not serve (404).
pub(crate) fn unknown_model(shared: &Shared, id: &str) -> ApiError {
    ApiError::not_found(
        format!(
            "the model `{id}` does not exist: this server serves `{}`",
            shared.model
        ),
        "model_not_found",
    )
}

/// Raises the job's flag when the handler or its stream is dropped: the
/// client went away, or the answer is complete (then it is harmless).
pub(crate) struct CancelOnDrop(CancelToken);

impl Drop for CancelOnDrop {
    fn drop(&mut self) {
        self.0.cancel();
    }
}

/// A request the worker took: its replies, and the guard that stops its
/// generation when the handler or its stream is dropped.
pub(crate) struct Accepted {
    pub replies: UnboundedReceiver<Reply>,
    /// The rendered prompt's tokens.
    pub prompt_tokens: usize,
    /// Held, not read: dropping it cancels.
    pub _guard: CancelOnDrop,
}

/// The request's body, once its API key is checked: what every API's
/// endpoint extracts first. Refused with a 401, a 413 or a 400.
pub(crate) struct CheckedBody(pub Bytes);

impl FromRequest<Arc<Shared>> for CheckedBody {
    type Rejection = ApiError;

    async fn from_request(request: Request, shared: &Arc<Shared>) -> Result<Self, ApiError> {
        let key = authorize(request.headers(), shared.api_key.as_deref());
        // The body is read whatever the key; a refused key is answered
        // before a body that could not be read.
        let body = Bytes::from_request(request, shared).await;
        key?;
        body.map(CheckedBody).map_err(|r| {
            if r.status() == StatusCode::PAYLOAD_TOO_LARGE {
                ApiError::too_large(shared.max_body_bytes)
            } else {
                ApiError::invalid(format!("cannot read the request body: {}", r.body_text()))
            }
        })
    }
}

/// Refuses a request that names another model than the one served.
pub(crate) fn check_model(shared: &Shared, name: Option<&str>) -> Result<(), ApiError> {
    match name {
        Some(name) if name != shared.model => Err(unknown_model(shared, name)),
        _ => Ok(()),
    }
}

/// Queues `request` and waits until its prompt is rendered and fits.
/// Refusals (a template that rejects the conversation, a prompt too long)
/// come before generation, so they still get their status code.
pub(crate) async fn submit(
    shared: &Shared,
    request: request::Request,
) -> Result<Accepted, ApiError> {
    let cancel = CancelToken::new();
    let guard = CancelOnDrop(cancel.clone());
    let (replies, mut rx) = unbounded_channel();
    shared.worker.submit(Job {
        request,
        cancel,
        replies,
    })?;
    match rx.recv().await {
        Some(Reply::Started { prompt_tokens }) => Ok(Accepted {
            replies: rx,
            prompt_tokens,
            _guard: guard,
        }),
        Some(Reply::Failed(e)) => Err(e),
        Some(other) => Err(ApiError::internal(format!(
            "the model thread answered out of order: {other:?}"
        ))),
        None => Err(dropped()),
    }
}

/// The worker went away without answering (it catches panics, so only a
/// stopped thread does this).
pub(crate) fn dropped() -> ApiError {
    ApiError::internal("the model thread dropped the request")
}
