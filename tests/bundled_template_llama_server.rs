//! The bundled model's chat template in llama.cpp's own Jinja engine: a
//! tiny GGUF served by `llama-server` with the template as its
//! `--chat-template-file`, asked for the prompt (`/apply-template`) of a
//! tool round trip, must give the text our renderer (transformers-exact)
//! gives. The GGUF converter would not know the bundled tokenizer, so the
//! text is compared, not token ids.
//!
//! Without llama-server the test says so and passes, unless
//! `TOOL_USE_REQUIRE_LLAMA_SERVER=1` (CI).

#[path = "../tool-models/tests/common/llama_server.rs"]
mod llama_server;

use serde_json::{json, Value};
use std::time::Duration;
use tool_use::template::ChatTemplate;

fn bundled_template() -> String {
    let config: Value = serde_json::from_str(include_str!(
        "../models/tool-use-mini/tokenizer_config.json"
    ))
    .unwrap();
    config["chat_template"].as_str().unwrap().to_owned()
}

/// A request in the OpenAI wire form, and the same conversation as
/// transformers takes it (arguments as objects).
fn conversation() -> (Value, Value) {
    let tools = json!([
        {"type": "function", "function": {
            "name": "get_current_temperature",
            "description": "Get the current temperature at a location.",
            "parameters": {"type": "object", "properties": {
                "location": {"type": "string", "description": "The location, as \"City, Country\"."},
                "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]}},
                "required": ["location", "unit"]}}},
        {"type": "function", "function": {"name": "get_current_time"}}
    ]);
    let arguments = json!({"location": "Paris, France", "unit": "celsius"});
    let call = |arguments: Value| {
        json!({"id": "call_0", "type": "function",
               "function": {"name": "get_current_temperature", "arguments": arguments}})
    };
    let messages = |arguments: Value| {
        json!([
            {"role": "system", "content": "You are a weather bot. Be brief."},
            {"role": "user", "content": "How warm is it in Paris?"},
            {"role": "assistant", "content": "", "tool_calls": [call(arguments)]},
            {"role": "tool", "tool_call_id": "call_0", "content": "22.5"},
            {"role": "assistant", "content": "It is 22.5 °C in Paris."},
            {"role": "user", "content": "Thanks! And the time?"}
        ])
    };
    let wire = json!({
        "messages": messages(Value::String(arguments.to_string())),
        "tools": tools,
    });
    let ours = json!({
        "messages": messages(arguments),
        "tools": tools,
        "add_generation_prompt": true,
    });
    (wire, ours)
}

#[test]
fn llama_server_renders_the_bundled_template_as_we_do() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("tool-use-mini.jinja");
    std::fs::write(&file, bundled_template()).unwrap();
    let Some(server) =
        llama_server::serve_tiny_with(&["--chat-template-file", file.to_str().unwrap()])
    else {
        return;
    };
    let (wire, ours) = conversation();
    let expected = ChatTemplate::new(&bundled_template())
        .unwrap()
        .render_json(&ours)
        .unwrap();
    let (status, body) = llama_server::post_json(
        &server.url,
        "/apply-template",
        &wire,
        Duration::from_secs(30),
    );
    assert!(status.contains("200"), "{status}: {body}");
    let reply: Value = serde_json::from_str(&body).unwrap();
    let prompt = reply["prompt"].as_str().unwrap();
    assert_eq!(prompt, expected);
    // The tools are in the prompt, compact, as the model was trained.
    assert!(prompt.contains(r#"{"name":"get_current_time","description":"","parameters":{}}"#));
}
