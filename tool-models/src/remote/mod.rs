//! Models served by OpenAI-compatible engines (vLLM, SGLang, llama.cpp's
//! `llama-server`, Ollama, TGI, hosted APIs): the Chat Completions wire
//! format, read and written without an HTTP client of its own.
//!
//! - [`chat_request`] writes a request body: the conversation (assistant
//!   calls with their arguments as JSON text, as the API wants), the tools,
//!   `tool_choice` and the sampling options.
//! - [`ChunkMerger`] reads the answer, streamed (`data:` payloads) or whole,
//!   into the same [`StreamEvent`](crate::parse::StreamEvent)s a local
//!   model's parser produces, so the agent treats both alike.

mod error;
mod stream;
mod wire;

pub use error::RemoteError;
pub use stream::{ChunkMerger, Completion, Usage};
pub use wire::{chat_request, wire_message, RequestOptions, ResponseFormat};
