//! A server for a local model speaking the three APIs that carry tool
//! calls: `POST /v1/chat/completions` (OpenAI's Chat Completions),
//! `POST /v1/messages` (Anthropic's Messages) and `POST /v1/responses`
//! (OpenAI's Responses), each streamed or not, with `GET /v1/models` and
//! `GET /health`.
//!
//! Tools in a request go into the model's own chat template, its output is
//! read by its family's parser, and calls are constrained to the tools'
//! schemas where the family has a grammar. One model on the CPU serves
//! every request: on the project's decoder up to
//! [`max_batch`](Server::max_batch) of them decode together, a step at a
//! time, each weight matrix read once for all (continuous batching: a
//! request joins between two steps and leaves when it ends, and gets,
//! greedy, the answer it gets alone); models that candle-transformers runs
//! serve one at a time. Further requests wait in a bounded queue and are
//! refused with 503 and `Retry-After` beyond it. A request reuses the KV
//! cache of the conversation it continues, reported as
//! `usage.prompt_tokens_details.cached_tokens` (Messages:
//! `usage.cache_read_input_tokens`): on the project's decoder the session keeps
//! several conversations' caches within [`Server::kv_budget`], so clients
//! taking turns each reuse their own; models that candle-transformers runs
//! keep the last one only. A client that disconnects cancels its
//! generation. Every refusal is an error object in the shape of the API
//! asked: OpenAI's, or Anthropic's on `/v1/messages`.
//!
//! The Responses API (`/v1/responses`) takes function tools only (a
//! built-in tool such as `web_search` is refused, naming its `type`) and
//! text input (images and files are refused, naming the part). Streamed,
//! it sends the API's events with `event:` names and `sequence_number`s
//! from 0, ending with `response.completed`, or `response.incomplete` when
//! `max_output_tokens` cut the answer short; an error after the stream
//! began is an `error` event, the last. `previous_response_id` continues a
//! response this server made: it keeps the last 256 in memory (the
//! conversation each was given, its output, its tools), forgets older ones
//! and those made with `store: false`, and answers 400 for an id it does
//! not keep. A continued response's tools serve a request that offers none;
//! its `instructions` are not carried over, as in OpenAI's API.
//! `reasoning`, `metadata`, `user` and `text.verbosity` are echoed, not
//! acted on. The model's reasoning comes out as `reasoning` items.
//!
//! ```no_run
//! use tool_models::local::LocalChat;
//! use tool_models::model::Model;
//! use tool_models::server::Server;
//!
//! # async fn run() -> Result<(), Box<dyn std::error::Error>> {
//! let chat = LocalChat::new(Model::load("models/tool-use-mini")?)?;
//! let listener = tokio::net::TcpListener::bind("127.0.0.1:8080").await?;
//! Server::new(chat, "tool-use-mini").max_queue(16).serve(listener).await?;
//! # Ok(())
//! # }
//! ```

mod answer;
mod auth;
mod batch;
mod chat;
mod error;
mod ids;
mod intake;
mod job;
mod messages;
mod request;
mod responses;
mod routes;
#[cfg(test)]
mod test_events;
mod worker;

use crate::setters::setters;
use std::future::Future;
use std::sync::Arc;

use crate::generate::GenerateOptions;
use crate::local::LocalChat;

/// How many requests decode together unless [`Server::max_batch`] says
/// otherwise.
pub const DEFAULT_MAX_BATCH: usize = 16;

/// Why the server could not start or stopped.
#[derive(Debug, thiserror::Error)]
pub enum ServerError {
    /// The thread that runs the model could not be started.
    #[error("cannot start the model thread: {0}")]
    Spawn(std::io::Error),
    /// Accepting connections failed.
    #[error("the server stopped: {0}")]
    Io(std::io::Error),
}

/// A local model served over OpenAI's Chat Completions and Responses APIs
/// and Anthropic's Messages API.
pub struct Server {
    chat: LocalChat,
    model: String,
    api_key: Option<String>,
    max_queue: usize,
    max_batch: usize,
    max_body_bytes: usize,
    defaults: GenerateOptions,
}

impl std::fmt::Debug for Server {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Server")
            .field("model", &self.model)
            .field("api_key", &self.api_key.as_ref().map(|_| "<set>"))
            .field("max_queue", &self.max_queue)
            .field("max_batch", &self.max_batch)
            .field("max_body_bytes", &self.max_body_bytes)
            .field("defaults", &self.defaults)
            .finish_non_exhaustive()
    }
}

impl Server {
    /// Serves `chat` under the model name `model` (what `/v1/models` lists
    /// and requests name). Requests without `temperature` decode greedily;
    /// without `max_tokens`, until the model stops or the context is full.
    pub fn new(chat: LocalChat, model: impl Into<String>) -> Server {
        let context = chat.model().context_length();
        Server {
            chat,
            model: model.into(),
            api_key: None,
            max_queue: 64,
            max_batch: DEFAULT_MAX_BATCH,
            max_body_bytes: 8 << 20,
            defaults: GenerateOptions::greedy(context),
        }
    }

    /// Requires `Authorization: Bearer <key>` or `x-api-key: <key>` on
    /// `/v1/*` (compared in constant time; never logged).
    pub fn api_key(mut self, key: impl Into<String>) -> Server {
        self.api_key = Some(key.into());
        self
    }

    /// The bytes the KV caches of the server's session may hold together
    /// ([`DEFAULT_KV_BUDGET`](crate::generate::DEFAULT_KV_BUDGET) unless
    /// the session was given another): the conversations kept for reuse, least
    /// recently used dropped first; 0 keeps only the last one. Sets the
    /// session's [`kv_budget`](crate::generate::Session::kv_budget).
    pub fn kv_budget(mut self, bytes: usize) -> Server {
        self.chat.session_mut().set_kv_budget(bytes);
        self
    }

    setters! {
        /// How many requests may wait while one generates (64 by default);
        /// beyond it, 503 with `Retry-After`.
        max_queue(n: usize) => max_queue;
        /// How many requests decode together at most
        /// ([`DEFAULT_MAX_BATCH`]); 1 serves one at a time. Models that
        /// candle-transformers runs always serve one at a time.
        max_batch(n: usize) => max_batch;
        /// The largest request body accepted (8 MiB by default); larger ones
        /// get 413.
        max_body_bytes(n: usize) => max_body_bytes;
        /// Generation options for what a request leaves out (temperature,
        /// top_p, seed, max_tokens, stop); `cancel` is the server's own.
        defaults(options: GenerateOptions) => defaults;
    }

    /// The routes, with the model's thread started: to nest in a larger
    /// axum application or to serve with your own listener.
    pub fn router(self) -> Result<axum::Router, ServerError> {
        let worker =
            worker::Worker::spawn(self.chat, self.defaults, self.max_queue, self.max_batch)
                .map_err(ServerError::Spawn)?;
        Ok(routes::router(Arc::new(intake::Shared {
            worker,
            model: self.model,
            api_key: self.api_key,
            max_body_bytes: self.max_body_bytes,
            created: ids::unix_time(),
            responses: Arc::new(responses::store::ResponseStore::new(
                responses::store::KEPT_RESPONSES,
            )),
        })))
    }

    /// Serves on `listener` until the process ends.
    pub async fn serve(self, listener: tokio::net::TcpListener) -> Result<(), ServerError> {
        self.serve_until(listener, std::future::pending()).await
    }

    /// Serves on `listener` until `shutdown` completes, then finishes the
    /// answers in flight.
    pub async fn serve_until(
        self,
        listener: tokio::net::TcpListener,
        shutdown: impl Future<Output = ()> + Send + 'static,
    ) -> Result<(), ServerError> {
        let router = self.router()?;
        axum::serve(listener, router)
            .with_graceful_shutdown(shutdown)
            .await
            .map_err(ServerError::Io)
    }
}
