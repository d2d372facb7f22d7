//! The routes: each API's endpoint, the model list and the health check.

use std::sync::Arc;

use axum::extract::{DefaultBodyLimit, Path, State};
use axum::http::HeaderMap;
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use serde_json::{json, Value};

use super::auth::authorize;
use super::chat;
use super::error::ApiError;
use super::intake::{unknown_model, Shared};
use super::messages;
use super::responses;

pub(crate) fn router(shared: Arc<Shared>) -> Router {
    let limit = shared.max_body_bytes;
    Router::new()
        .route("/health", get(health))
        .route("/v1/models", get(models))
        .route("/v1/models/{id}", get(model))
        .route("/v1/chat/completions", post(chat::handle))
        .route("/v1/messages", post(messages::handle))
        .route("/v1/responses", post(responses::handle))
        .fallback(not_found)
        .layer(DefaultBodyLimit::max(limit))
        .with_state(shared)
}

async fn health(State(shared): State<Arc<Shared>>) -> Json<Value> {
    let (queued, generating) = shared.worker.load();
    Json(json!({
        "status": "ok",
        "generating": generating > 0,
        "sequences": generating,
        "queued": queued,
    }))
}

async fn not_found() -> ApiError {
    ApiError::not_found(
        "no such endpoint: this server has GET /v1/models, POST /v1/chat/completions, \
         POST /v1/messages, POST /v1/responses and GET /health",
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
