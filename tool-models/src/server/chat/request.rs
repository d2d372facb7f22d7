//! A Chat Completions request body, read with the typed wire
//! ([`crate::wire::chat::Request`]) and checked for what the model can do.
//! Every mistake names its field.

use tool_runtime::ToolChoice;

use crate::server::error::ApiError;
use crate::server::request::Request;
use crate::wire::{self, chat};

/// A Chat Completions request: what it asks the model for, and how the
/// answer is to be sent.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct ChatRequest {
    pub model: Option<String>,
    pub request: Request,
    pub stream: bool,
    pub include_usage: bool,
}

impl ChatRequest {
    /// Reads a request body.
    pub fn from_json(body: &[u8]) -> Result<ChatRequest, ApiError> {
        let wire: chat::Request = wire::read(body)?;
        if wire.messages.is_empty() {
            return Err(ApiError::param(
                "messages",
                "messages must hold at least one message",
            ));
        }
        if wire.n.is_some_and(|n| n.get() != 1) {
            return Err(ApiError::param(
                "n",
                "n: only one choice per request is supported",
            ));
        }
        if let Some(t) = wire.temperature.filter(|&t| t < 0.0) {
            return Err(ApiError::param(
                "temperature",
                format!("temperature must be >= 0, found {t}"),
            ));
        }
        if let Some(p) = wire.top_p.filter(|&p| !(p > 0.0 && p <= 1.0)) {
            return Err(ApiError::param(
                "top_p",
                format!("top_p must be in (0, 1], found {p}"),
            ));
        }
        let tools = wire.definitions()?;
        let tool_choice = wire.tool_choice.clone().unwrap_or(ToolChoice::Auto);
        tool_choice
            .check(&tools)
            .map_err(|e| ApiError::param("tool_choice", e.to_string()))?;
        let answer_schema = match &wire.response_format {
            Some(format) => format.answer_schema()?,
            None => None,
        };
        Ok(ChatRequest {
            stream: wire.stream.unwrap_or(false),
            include_usage: wire.include_usage(),
            request: Request {
                messages: wire.messages.clone(),
                tools,
                tool_choice,
                parallel_tool_calls: wire.parallel_tool_calls.unwrap_or(true),
                answer_schema,
                max_tokens: wire.token_limit(),
                temperature: wire.temperature.map(|t| t as f32),
                top_p: wire.top_p.map(|p| p as f32),
                seed: wire.seed,
                stop: wire.stop_strings(),
                ignore_eos: wire.ignore_eos,
            },
            model: wire.model,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{json, Value};
    use tool_runtime::Message;

    fn read(body: Value) -> Result<ChatRequest, ApiError> {
        ChatRequest::from_json(body.to_string().as_bytes())
    }

    fn weather() -> Value {
        json!({"type": "function", "function": {"name": "get_weather", "parameters": {
            "type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}}})
    }

    #[test]
    fn reads_a_full_request() {
        let r = read(json!({
            "model": "m", "messages": [{"role": "developer", "content": "Be brief."},
                {"role": "user", "content": [{"type": "text", "text": "Hi"}]}],
            "tools": [weather()], "tool_choice": {"type": "function", "function": {"name": "get_weather"}},
            "parallel_tool_calls": false, "max_completion_tokens": 7, "max_tokens": 9,
            "temperature": 0.5, "top_p": 0.9, "seed": -1, "stop": "END", "stream": true,
            "stream_options": {"include_usage": true}, "logit_bias": {}, "user": "ignored"
        }))
        .unwrap();
        assert!(r.stream && r.include_usage);
        let r = r.request;
        assert_eq!(r.messages[0], Message::system("Be brief."));
        assert_eq!(r.messages[1].text(), "Hi");
        assert_eq!(r.tool_choice, ToolChoice::Named("get_weather".into()));
        assert!(!r.parallel_tool_calls);
        assert_eq!(r.max_tokens, Some(7));
        assert_eq!(r.seed, Some(u64::MAX));
        assert_eq!(r.stop, vec!["END".to_owned()]);
    }

    #[test]
    fn names_the_field_at_fault() {
        for (body, param, needle) in [
            (json!({"messages": "hi"}), "messages", "expected a list"),
            (json!({}), "messages", "required"),
            (json!({"messages": []}), "messages", "at least one"),
            (
                json!({"messages": [{"role": "king"}]}),
                "messages[0].role",
                "king",
            ),
            (
                json!({"messages": [{"role": "user", "content": "x"}], "temperature": "hot"}),
                "temperature",
                "invalid type: string",
            ),
            (
                json!({"messages": [{"role": "user", "content": "x"}], "temperature": -1}),
                "temperature",
                ">= 0",
            ),
            (
                json!({"messages": [{"role": "user", "content": "x"}], "max_tokens": 0}),
                "max_tokens",
                "positive",
            ),
            (
                json!({"messages": [{"role": "user", "content": "x"}], "n": 2}),
                "n",
                "only one",
            ),
            (
                json!({"messages": [{"role": "user", "content": "x"}], "tool_choice": "required"}),
                "tool_choice",
                "none was offered",
            ),
            (
                json!({"messages": [{"role": "user", "content": "x"}], "tools": [weather()], "tool_choice": {"type": "function", "function": {"name": "nope"}}}),
                "tool_choice",
                "get_weather",
            ),
            (
                json!({"messages": [{"role": "user", "content": "x"}], "tools": [{"type": "function", "function": {"name": "f", "parameters": "object"}}]}),
                "tools[0]",
                "tool `f`",
            ),
            (
                json!({"messages": [{"role": "user", "content": "x"}], "tools": [{"type": "function", "function": {"name": "f", "parameters": {"properties": {"a": {"type": 3}}}}}]}),
                "tools[0]",
                "property `a`",
            ),
            (
                json!({"messages": [{"role": "user", "content": "x"}], "tools": [weather(), weather()]}),
                "tools[1]",
                "two tools",
            ),
            (
                json!({"messages": [{"role": "user", "content": "x"}], "response_format": {"type": "xml"}}),
                "response_format",
                "json_schema",
            ),
        ] {
            let e = read(body.clone()).unwrap_err();
            assert_eq!(e.status, 400, "{body}");
            assert_eq!(e.param.as_deref(), Some(param), "{body}: {}", e.message);
            assert!(e.message.contains(needle), "{body}: {}", e.message);
        }
        let e = ChatRequest::from_json(b"{\"messages\": [").unwrap_err();
        assert!(e.message.contains("not valid JSON"), "{}", e.message);
    }

    #[test]
    fn response_formats() {
        let base = json!({"messages": [{"role": "user", "content": "x"}]});
        let with = |rf: Value| {
            let mut b = base.clone();
            b["response_format"] = rf;
            read(b).unwrap().request.answer_schema
        };
        assert_eq!(with(json!({"type": "text"})), None);
        assert_eq!(
            with(json!({"type": "json_object"})),
            Some(json!({"type": "object"}))
        );
        let schema = json!({"type": "object", "properties": {"x": {"type": "integer"}}});
        assert_eq!(
            with(json!({"type": "json_schema", "json_schema": {"name": "s", "schema": schema}})),
            Some(schema)
        );
    }
}
