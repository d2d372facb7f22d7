//! Models served by OpenAI-compatible engines (vLLM, SGLang, llama.cpp's
//! `llama-server`, Ollama, TGI, hosted APIs) through the Chat Completions API.
//!
//! - [`chat_request`] writes a request body: the conversation (assistant
//!   calls with their arguments as JSON text, as the API wants), the tools,
//!   `tool_choice` and the sampling options.
//! - [`ChunkMerger`] reads the answer, streamed (`data:` payloads) or whole,
//!   into the same [`StreamEvent`](crate::parse::StreamEvent)s a local
//!   model's parser produces, so the agent treats both alike;
//!   [`ResponsesReader`] does the same for OpenAI's Responses API
//!   (`POST /v1/responses`).
//! - [`RemoteChat`] sends the requests (reqwest, over plain HTTP; HTTPS with
//!   the `remote-tls` feature) and is a [`ChatModel`](crate::chat::ChatModel);
//!   [`RemoteChat::completions`] drives a raw `/v1/completions` endpoint
//!   with this crate's own template rendering and parsers instead.
//! - [`MessagesReader`] reads an answer of Anthropic's Messages API
//!   (`POST /v1/messages`) into those same events.

mod api;
mod chat;
mod client;
mod completions;
mod error;
mod messages;
mod options;
mod responses;
mod stream;
#[cfg(test)]
mod test_support;

pub use crate::chat::Usage;
pub use api::{Api, UnknownApi};
pub use chat::chat_request;
pub use client::{RemoteChat, Timeouts};
pub use error::RemoteError;
pub use messages::{MessagesReader, DEFAULT_MAX_TOKENS};
pub use options::{RequestOptions, ResponseFormat};
pub use responses::ResponsesReader;
pub use stream::{ChunkMerger, Completion};
