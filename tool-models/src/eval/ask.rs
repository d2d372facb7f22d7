//! Asking a model for one turn and reading its calls as the agent does.

use tool_runtime::ToolDefinition;

use crate::chat::{ChatModel, ModelDelta, TurnError, TurnRequest, TurnStats};
use crate::parse::{Collector, ParseOptions, ParsedResponse};

/// A model's answer to one request, parsed.
#[derive(Debug, Clone)]
pub struct Answer {
    /// The raw text (a tool API's text beside its calls).
    pub raw: String,
    /// Content and calls, as the agent would read them.
    pub parsed: ParsedResponse,
    /// Token counts and timings.
    pub stats: TurnStats,
}

/// Asks `model` for one turn and reads its calls as the agent does: raw
/// text through the model's parser, calls an engine parsed as they are.
///
/// # Errors
/// The model's error.
pub fn ask(model: &mut dyn ChatModel, request: &TurnRequest<'_>) -> Result<Answer, TurnError> {
    ask_knowing(model, request, request.tools)
}

/// [`ask`], the parser knowing `known` (a call to a tool it does not know
/// is set aside as invalid).
pub(super) fn ask_knowing(
    model: &mut dyn ChatModel,
    request: &TurnRequest<'_>,
    known: &[ToolDefinition],
) -> Result<Answer, TurnError> {
    let options = ParseOptions {
        tools: known.to_vec(),
        ..ParseOptions::default()
    };
    let mut parser = model.format().stream(&options);
    let mut collector = Collector::default();
    let turn = model.respond(request, &mut |delta| match delta {
        ModelDelta::Text(text) => collector.extend(parser.feed(text)),
        ModelDelta::Parsed(event) => collector.push(event),
    })?;
    collector.extend(parser.finish());
    Ok(Answer {
        raw: turn.text,
        parsed: collector.finish(),
        stats: turn.stats,
    })
}
