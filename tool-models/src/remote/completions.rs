//! The raw-completions mode: the project renders the model's own chat
//! template, an engine's `/v1/completions` only continues the text, and the
//! family's parser reads the calls. A served base or fine-tuned model works
//! even where the engine has no tool parser for its family.

use std::collections::BTreeMap;

use serde_json::{Map, Value};

use super::error::{Reading, RemoteError};
use super::options::{add_sampling, RequestOptions};
use super::stream::{error_message, first_choice};
use crate::chat::TurnRequest;
use crate::chat::Usage;
use crate::parse::{detect_format, Format};
use crate::template::{ChatTemplate, RenderOptions};

/// The template side of the raw-completions mode.
pub(super) struct Completions {
    template: ChatTemplate,
    pub(super) format: Format,
    special_tokens: BTreeMap<String, String>,
}

impl Completions {
    pub(super) fn new(template_source: &str) -> Result<Completions, RemoteError> {
        let template =
            ChatTemplate::new(template_source).map_err(|e| RemoteError::Template(e.to_string()))?;
        let format = detect_format(template_source).map_err(|e| {
            RemoteError::Template(format!(
                "{e}; name the tool-call format with RemoteChat::tool_format"
            ))
        })?;
        Ok(Completions {
            template,
            format,
            special_tokens: BTreeMap::new(),
        })
    }

    pub(super) fn special_tokens(&mut self, tokens: BTreeMap<String, String>) {
        self.special_tokens = tokens;
    }

    /// The prompt: the conversation and tools rendered with the template.
    pub(super) fn render(&self, request: &TurnRequest<'_>) -> Result<String, RemoteError> {
        let shown = tool_runtime::ToolDefinition::strip_grounding(request.tools);
        let mut render = RenderOptions::new(request.messages)
            .add_generation_prompt(true)
            .special_tokens(&self.special_tokens);
        if !shown.is_empty() {
            render = render.definitions(&shown);
        }
        Ok(self
            .template
            .render(&render)
            .map_err(|e| RemoteError::Template(e.to_string()))?
            .text)
    }

    /// The body of `POST /v1/completions`: the rendered prompt and the options.
    pub(super) fn body(
        &self,
        model: &str,
        request: &TurnRequest<'_>,
        options: &RequestOptions,
        stream: bool,
    ) -> Result<Value, RemoteError> {
        let prompt = self.render(request)?;
        let mut body = Map::new();
        body.insert("model".into(), Value::from(model));
        body.insert("prompt".into(), Value::from(prompt));
        add_sampling(&mut body, options, stream);
        Ok(Value::Object(body))
    }
}

/// What one completions chunk (or whole response) says.
#[derive(Debug, Default)]
pub(super) struct Piece {
    pub text: String,
    pub finish_reason: Option<String>,
    pub usage: Option<Usage>,
}

/// Reads a completions chunk or response body.
pub(super) fn read_piece(data: &str) -> Result<Piece, RemoteError> {
    let value = Reading::new("completion", data).json()?;
    if let Some(error) = value.get("error").filter(|e| !e.is_null()) {
        return Err(RemoteError::Engine(error_message(error)));
    }
    let mut piece = Piece {
        usage: value.get("usage").and_then(Usage::from_json),
        ..Piece::default()
    };
    if let Some(choice) = value.get("choices").and_then(first_choice) {
        if let Some(text) = choice.get("text").and_then(Value::as_str) {
            piece.text = text.to_owned();
        }
        piece.finish_reason = choice
            .get("finish_reason")
            .and_then(Value::as_str)
            .map(str::to_owned);
    }
    Ok(piece)
}
