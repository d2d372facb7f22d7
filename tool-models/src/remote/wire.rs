//! Chat Completions request bodies.

use serde_json::{json, Map, Value};
use tool_runtime::{Message, Role, ToolChoice, ToolDefinition};

/// How the answer must be shaped (`response_format`).
#[derive(Debug, Clone, PartialEq)]
pub enum ResponseFormat {
    /// Any JSON object (`{"type": "json_object"}`).
    JsonObject,
    /// JSON valid against `schema` (`{"type": "json_schema", ...}`).
    JsonSchema {
        /// The schema's name, as the API requires one.
        name: String,
        /// The JSON schema.
        schema: Value,
        /// Whether the engine must follow it exactly (`strict`).
        strict: bool,
    },
}

/// Per-request sampling and output options; `None` leaves the engine's default.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RequestOptions {
    /// Sampling temperature.
    pub temperature: Option<f64>,
    /// Nucleus sampling mass.
    pub top_p: Option<f64>,
    /// The most tokens to generate.
    pub max_tokens: Option<usize>,
    /// Seed, for engines that make sampling reproducible.
    pub seed: Option<u64>,
    /// Strings that end the answer.
    pub stop: Vec<String>,
    /// Whether the model may call several tools in one turn.
    pub parallel_tool_calls: Option<bool>,
    /// The answer's shape.
    pub response_format: Option<ResponseFormat>,
    /// Engine-specific fields, added to the body as they are (`top_k`,
    /// `min_p`, `logit_bias`, vLLM's `chat_template_kwargs`…); they win over
    /// the fields above.
    pub extra: Map<String, Value>,
}

/// A message as the Chat Completions API takes it: assistant calls carry
/// their arguments as JSON text, tool results their call's id.
///
/// ```
/// use serde_json::json;
/// use tool_models::remote::wire_message;
/// use tool_runtime::{Message, ToolCall};
///
/// let turn = Message::assistant_calls(None, vec![ToolCall::new("call_1", "f", json!({"x": 1}))]);
/// assert_eq!(
///     wire_message(&turn),
///     json!({"role": "assistant", "content": null, "tool_calls": [
///         {"id": "call_1", "type": "function", "function": {"name": "f", "arguments": "{\"x\":1}"}}
///     ]})
/// );
/// ```
pub fn wire_message(message: &Message) -> Value {
    let mut out = Map::new();
    out.insert("role".into(), Value::from(message.role.as_str()));
    match message.role {
        Role::Assistant if !message.tool_calls.is_empty() => {
            out.insert(
                "content".into(),
                message.content.clone().map_or(Value::Null, Value::String),
            );
            let calls: Vec<Value> = message
                .tool_calls
                .iter()
                .map(|call| {
                    // An unreadable call is kept as the text the model wrote.
                    let arguments = match &call.arguments {
                        Value::String(raw) => raw.clone(),
                        other => other.to_string(),
                    };
                    json!({
                        "id": call.id,
                        "type": "function",
                        "function": {"name": call.name, "arguments": arguments},
                    })
                })
                .collect();
            out.insert("tool_calls".into(), Value::Array(calls));
        }
        Role::Tool => {
            out.insert("content".into(), Value::from(message.text()));
            if let Some(id) = &message.tool_call_id {
                out.insert("tool_call_id".into(), Value::from(id.as_str()));
            }
        }
        _ => {
            out.insert("content".into(), Value::from(message.text()));
        }
    }
    Value::Object(out)
}

/// The body of `POST /v1/chat/completions`.
///
/// `tools` are transformers/OpenAI definitions (`{"type": "function",
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
    let mut body = Map::new();
    body.insert("model".into(), Value::from(model));
    body.insert(
        "messages".into(),
        Value::Array(messages.iter().map(wire_message).collect()),
    );
    if !tools.is_empty() {
        body.insert(
            "tools".into(),
            Value::Array(
                crate::agent::ground::strip(tools)
                    .iter()
                    .map(api_tool)
                    .collect(),
            ),
        );
        body.insert("tool_choice".into(), tool_choice.to_json());
        if let Some(parallel) = options.parallel_tool_calls {
            body.insert("parallel_tool_calls".into(), Value::from(parallel));
        }
    }
    if let Some(format) = &options.response_format {
        body.insert(
            "response_format".into(),
            match format {
                ResponseFormat::JsonObject => json!({"type": "json_object"}),
                ResponseFormat::JsonSchema {
                    name,
                    schema,
                    strict,
                } => json!({
                    "type": "json_schema",
                    "json_schema": {"name": name, "schema": schema, "strict": strict},
                }),
            },
        );
    }
    add_sampling(&mut body, options, stream);
    Value::Object(body)
}

/// What both endpoints take alike: sampling, streaming (with the usage
/// chunk), and the engine-specific fields last, so that they win.
pub(super) fn add_sampling(body: &mut Map<String, Value>, options: &RequestOptions, stream: bool) {
    let mut set = |key: &str, value: Option<Value>| {
        if let Some(value) = value {
            body.insert(key.into(), value);
        }
    };
    set("temperature", options.temperature.map(Value::from));
    set("top_p", options.top_p.map(Value::from));
    set("max_tokens", options.max_tokens.map(Value::from));
    set("seed", options.seed.map(Value::from));
    set(
        "stop",
        (!options.stop.is_empty()).then(|| Value::from(options.stop.clone())),
    );
    if stream {
        set("stream", Some(Value::Bool(true)));
        set("stream_options", Some(json!({"include_usage": true})));
    }
    for (key, value) in &options.extra {
        body.insert(key.clone(), value.clone());
    }
}

/// A tool definition with only the keys the API defines.
fn api_tool(tool: &ToolDefinition) -> Value {
    let Some(function) = tool["function"].as_object() else {
        return tool.to_json();
    };
    let kept: Map<String, Value> = function
        .iter()
        .filter(|(k, _)| matches!(k.as_str(), "name" | "description" | "parameters" | "strict"))
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    json!({"type": "function", "function": kept})
}
