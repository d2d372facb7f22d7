//! Chat Completions request bodies, written with the typed wire.

use serde_json::{Map, Value};
use tool_runtime::{Message, ToolChoice, ToolDefinition};

use super::options::{add_sampling, RequestOptions};
use crate::wire::chat::{Request, Tool};

/// The body of `POST /v1/chat/completions`.
///
/// Messages are written as the API takes them ([`WireMessage`](crate::wire::chat::WireMessage): assistant
/// calls carry their arguments as JSON text, tool results their call's
/// id). `tools` are transformers/OpenAI definitions (`{"type": "function",
/// "function": {...}}`); keys the API does not know (transformers'
/// `return`) are left out. With `stream`, the engine is asked for the usage
/// chunk too.
///
/// ```
/// use serde_json::json;
/// use tool_models::remote::{chat_request, RequestOptions};
/// use tool_runtime::{Message, ToolChoice, ToolDefinition};
///
/// let tools = ToolDefinition::list_from_json(&[json!({"type": "function", "function": {
///     "name": "get_weather", "description": "Weather.", "parameters": {"type": "object"},
///     "return": {"type": "string"}}})])?;
/// let body = chat_request(
///     "qwen2.5", &[Message::user("Weather in Paris?")], &tools,
///     &ToolChoice::Named("get_weather".into()), &RequestOptions::default(), true,
/// );
/// assert_eq!(body["tool_choice"], json!({"type": "function", "function": {"name": "get_weather"}}));
/// assert!(body["tools"][0]["function"].get("return").is_none());
///
/// // Engines rarely know `allowed_tools`: the allowed tools are offered
/// // alone, in the choice's mode.
/// let mut both = tools.clone();
/// both.extend(ToolDefinition::list_from_json(&[json!({"name": "get_wind"})])?);
/// let allowed = ToolChoice::Allowed { tools: vec!["get_wind".into()], required: true };
/// let body = chat_request("qwen2.5", &[Message::user("Hi")], &both, &allowed,
///     &RequestOptions::default(), true);
/// assert_eq!(body["tools"].as_array().unwrap().len(), 1);
/// assert_eq!(body["tools"][0]["function"]["name"], "get_wind");
/// assert_eq!(body["tool_choice"], "required");
/// assert_eq!(body["stream_options"]["include_usage"], true);
/// # Ok::<(), tool_runtime::DefinitionsError>(())
/// ```
pub fn chat_request(
    model: &str,
    messages: &[Message],
    tools: &[ToolDefinition],
    tool_choice: &ToolChoice,
    options: &RequestOptions,
    stream: bool,
) -> Value {
    // Engines that serve Chat Completions rarely know `allowed_tools`: an
    // `Allowed` choice offers its tools only, in the choice's mode.
    let limited = matches!(tool_choice, ToolChoice::Allowed { .. });
    let tools: Vec<Tool> = ToolDefinition::strip_grounding(tools)
        .iter()
        .filter(|t| !limited || tool_choice.allows(t.name()))
        .map(Tool::from_definition)
        .collect();
    let offered = !tools.is_empty();
    let request = Request {
        model: Some(model.to_owned()),
        messages: messages.to_vec(),
        tools,
        tool_choice: offered.then(|| tool_choice.mode()),
        parallel_tool_calls: options.parallel_tool_calls.filter(|_| offered),
        response_format: options.response_format.clone(),
        ..Request::default()
    };
    let mut body = match serde_json::to_value(request) {
        Ok(Value::Object(body)) => body,
        // A struct of strings and JSON values always serialises to an object.
        _ => Map::new(),
    };
    add_sampling(&mut body, options, stream);
    Value::Object(body)
}
