//! Per-request sampling and output options, whichever API carries them.

use serde_json::{json, Map, Value};

pub use crate::wire::chat::ResponseFormat;

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
