//! A Chat Completions request body, read field by field so that every
//! mistake names its field. Fields the server does not know are ignored,
//! as OpenAI ignores them.

use serde_json::{Map, Value};
use tool_runtime::definition::check_schema;
use tool_runtime::{json_kind, Message, ToolChoice, ToolDefinition};

use super::error::ApiError;
use super::request::Request;

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
        let value: Value = serde_json::from_slice(body)
            .map_err(|e| ApiError::invalid(format!("the request body is not valid JSON: {e}")))?;
        let Value::Object(body) = value else {
            return Err(ApiError::invalid(format!(
                "the request body must be a JSON object, found {}",
                json_kind(&value)
            )));
        };
        let fields = Fields(&body);
        let messages = messages(fields.get("messages"))?;
        let tools = tools(fields.get("tools"))?;
        let tool_choice = tool_choice(fields.get("tool_choice"), &tools)?;
        let max_tokens = match fields.count("max_completion_tokens")? {
            Some(n) => Some(n),
            None => fields.count("max_tokens")?,
        };
        if fields.count("n")?.is_some_and(|n| n != 1) {
            return Err(ApiError::param(
                "n",
                "n: only one choice per request is supported",
            ));
        }
        let temperature = fields.number("temperature")?;
        if temperature.is_some_and(|t| t < 0.0) {
            return Err(ApiError::param(
                "temperature",
                format!(
                    "temperature must be >= 0, found {}",
                    temperature.unwrap_or_default()
                ),
            ));
        }
        let top_p = fields.number("top_p")?;
        if top_p.is_some_and(|p| !(p > 0.0 && p <= 1.0)) {
            return Err(ApiError::param(
                "top_p",
                format!(
                    "top_p must be in (0, 1], found {}",
                    top_p.unwrap_or_default()
                ),
            ));
        }
        let seed = match fields.get("seed") {
            None => None,
            // Negative seeds are allowed by OpenAI; keep their bits.
            Some(v) => Some(
                v.as_u64()
                    .or_else(|| v.as_i64().map(|s| s as u64))
                    .ok_or_else(|| {
                        ApiError::param(
                            "seed",
                            format!("seed must be an integer, found {}", json_kind(v)),
                        )
                    })?,
            ),
        };
        let stream_options = fields.object("stream_options")?;
        Ok(ChatRequest {
            model: fields.string("model")?,
            stream: fields.boolean("stream")?.unwrap_or(false),
            include_usage: match stream_options {
                Some(o) => Fields(o).boolean("include_usage")?.unwrap_or(false),
                None => false,
            },
            request: Request {
                messages,
                tools,
                tool_choice,
                parallel_tool_calls: fields.boolean("parallel_tool_calls")?.unwrap_or(true),
                answer_schema: response_format(fields.get("response_format"))?,
                max_tokens,
                temperature: temperature.map(|t| t as f32),
                top_p: top_p.map(|p| p as f32),
                seed,
                stop: stop(fields.get("stop"))?,
                ignore_eos: fields.boolean("ignore_eos")?,
            },
        })
    }
}

/// The body's fields; `null` counts as absent, as OpenAI treats it.
struct Fields<'a>(&'a Map<String, Value>);

impl<'a> Fields<'a> {
    fn get(&self, name: &str) -> Option<&'a Value> {
        self.0.get(name).filter(|v| !v.is_null())
    }

    fn wrong(name: &str, expected: &str, found: &Value) -> ApiError {
        ApiError::param(
            name,
            format!("{name} must be {expected}, found {}", json_kind(found)),
        )
    }

    fn string(&self, name: &str) -> Result<Option<String>, ApiError> {
        self.get(name)
            .map(|v| {
                v.as_str()
                    .map(str::to_owned)
                    .ok_or_else(|| Fields::wrong(name, "a string", v))
            })
            .transpose()
    }

    fn boolean(&self, name: &str) -> Result<Option<bool>, ApiError> {
        self.get(name)
            .map(|v| {
                v.as_bool()
                    .ok_or_else(|| Fields::wrong(name, "a boolean", v))
            })
            .transpose()
    }

    fn number(&self, name: &str) -> Result<Option<f64>, ApiError> {
        self.get(name)
            .map(|v| v.as_f64().ok_or_else(|| Fields::wrong(name, "a number", v)))
            .transpose()
    }

    /// A positive integer.
    fn count(&self, name: &str) -> Result<Option<usize>, ApiError> {
        self.get(name)
            .map(|v| {
                v.as_u64()
                    .filter(|&n| n > 0)
                    .map(|n| usize::try_from(n).unwrap_or(usize::MAX))
                    .ok_or_else(|| Fields::wrong(name, "a positive integer", v))
            })
            .transpose()
    }

    fn object(&self, name: &str) -> Result<Option<&'a Map<String, Value>>, ApiError> {
        self.get(name)
            .map(|v| {
                v.as_object()
                    .ok_or_else(|| Fields::wrong(name, "an object", v))
            })
            .transpose()
    }
}

fn messages(value: Option<&Value>) -> Result<Vec<Message>, ApiError> {
    let Some(value) = value else {
        return Err(ApiError::param("messages", "messages is required"));
    };
    let Value::Array(items) = value else {
        return Err(Fields::wrong("messages", "a list of messages", value));
    };
    if items.is_empty() {
        return Err(ApiError::param(
            "messages",
            "messages must hold at least one message",
        ));
    }
    items
        .iter()
        .enumerate()
        .map(|(i, m)| {
            let mut m = m.clone();
            // OpenAI's newer name for the system role.
            if let Some(role) = m.get_mut("role").filter(|r| *r == "developer") {
                *role = Value::from("system");
            }
            serde_json::from_value(m).map_err(|e| {
                ApiError::param(format!("messages[{i}]"), format!("messages[{i}]: {e}"))
            })
        })
        .collect()
}

/// Tool definitions: OpenAI's form, checked for what templates and the
/// constraint rely on.
fn tools(value: Option<&Value>) -> Result<Vec<ToolDefinition>, ApiError> {
    let Some(value) = value else {
        return Ok(Vec::new());
    };
    let Value::Array(items) = value else {
        return Err(Fields::wrong("tools", "a list of tools", value));
    };
    let bad = |i: usize, message: String| {
        ApiError::param(format!("tools[{i}]"), format!("tools[{i}]: {message}"))
    };
    // OpenAI has other kinds of tools (`custom`): only functions have a
    // definition that templates and the constraint can read.
    for (i, tool) in items.iter().enumerate() {
        if let Some(tool) = tool.as_object() {
            match tool.get("type").and_then(Value::as_str) {
                Some("function") => {}
                other => {
                    return Err(bad(
                        i,
                        format!(
                            "only tools of type \"function\" are supported, found {}",
                            other.map_or_else(|| "no type".to_owned(), |t| format!("\"{t}\""))
                        ),
                    ))
                }
            }
        }
    }
    ToolDefinition::list_from_json(items).map_err(|e| bad(e.index, e.error.to_string()))
}

fn tool_choice(value: Option<&Value>, tools: &[ToolDefinition]) -> Result<ToolChoice, ApiError> {
    let bad = |m: String| ApiError::param("tool_choice", m);
    let choice = match value {
        None => ToolChoice::Auto,
        Some(v) => ToolChoice::from_json(v).map_err(|e| bad(format!("tool_choice: {e}")))?,
    };
    choice.check(tools).map_err(|e| bad(e.to_string()))?;
    Ok(choice)
}

/// `response_format`: the schema answers must follow, if any.
fn response_format(value: Option<&Value>) -> Result<Option<Value>, ApiError> {
    let bad = |m: String| ApiError::param("response_format", format!("response_format: {m}"));
    let Some(value) = value else {
        return Ok(None);
    };
    match value.get("type").and_then(Value::as_str) {
        Some("text") => Ok(None),
        Some("json_object") => Ok(Some(serde_json::json!({"type": "object"}))),
        Some("json_schema") => {
            let schema = value
                .get("json_schema")
                .and_then(|j| j.get("schema"))
                .ok_or_else(|| bad("expected `json_schema.schema`".into()))?;
            check_schema(schema).map_err(|e| bad(format!("not a JSON schema: {e}")))?;
            Ok(Some(schema.clone()))
        }
        _ => Err(bad(
            "expected type \"text\", \"json_object\" or \"json_schema\"".into(),
        )),
    }
}

fn stop(value: Option<&Value>) -> Result<Vec<String>, ApiError> {
    let stops = match value {
        None => Vec::new(),
        Some(Value::String(s)) => vec![s.clone()],
        Some(Value::Array(items)) => items
            .iter()
            .map(|s| {
                s.as_str()
                    .map(str::to_owned)
                    .ok_or_else(|| Fields::wrong("stop", "a string or a list of strings", s))
            })
            .collect::<Result<_, _>>()?,
        Some(other) => {
            return Err(Fields::wrong(
                "stop",
                "a string or a list of strings",
                other,
            ))
        }
    };
    // An empty stop string would end every answer before it starts.
    Ok(stops.into_iter().filter(|s| !s.is_empty()).collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

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
            (json!({"messages": "hi"}), "messages", "found a string"),
            (json!({}), "messages", "required"),
            (json!({"messages": []}), "messages", "at least one"),
            (
                json!({"messages": [{"role": "king"}]}),
                "messages[0]",
                "king",
            ),
            (
                json!({"messages": [{"role": "user", "content": "x"}], "temperature": "hot"}),
                "temperature",
                "a number",
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
