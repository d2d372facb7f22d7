//! A local model as a chat model: [`LocalChat`] renders the conversation
//! with the model's own chat template, generates in its own
//! [`Session`](crate::generate::Session), and constrains calls to the
//! offered tools' schemas.

mod chat;
mod recent;

pub use chat::{LocalChat, LocalChatError, PreparedTurn};
