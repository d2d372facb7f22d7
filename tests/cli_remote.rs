//! `tool-use chat --base-url … --json` and `tool-use models` against
//! llama.cpp's `llama-server`, run as a user runs them.

#[path = "common/cli.rs"]
mod cli;
#[path = "../tool-models/tests/common/llama_server.rs"]
mod llama_server;

use cli::{fails_with, succeeded, tool_use};

use serde_json::Value;

#[test]
fn chat_and_models_work_against_llama_server() {
    let Some(server) = llama_server::serve_tiny() else {
        return;
    };
    let base_url = format!("{}/v1", server.url);

    let out = tool_use()
        .args(["models", "--base-url", &base_url])
        .output()
        .unwrap();
    let listed = String::from_utf8(succeeded(out)).unwrap();
    assert!(listed.trim().ends_with("tiny.gguf"), "{listed}");

    // The same first turn through each API llama-server speaks.
    let mut turns = Vec::new();
    for (api, stream) in ["chat", "messages", "responses"]
        .into_iter()
        .flat_map(|api| [(api, true), (api, false)])
    {
        let mut command = tool_use();
        command.args([
            "chat",
            "--base-url",
            &base_url,
            "--api",
            api,
            "--json",
            "--max-tokens",
            "16",
        ]);
        if !stream {
            command.arg("--no-stream");
        }
        let out = command
            .arg("What's the temperature in Paris right now?")
            .output()
            .unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout);
        let json: Value = serde_json::from_str(&stdout)
            .unwrap_or_else(|e| panic!("{e}: {stdout} {}", String::from_utf8_lossy(&out.stderr)));
        // The shape of a local run: the transcript and the stats.
        let messages = json["messages"].as_array().unwrap();
        assert!(messages.len() >= 2, "{json}");
        assert_eq!(messages[0]["role"], "user");
        assert_eq!(messages[1]["role"], "assistant");
        let mut turn = messages[1].clone();
        if let Some(calls) = turn["tool_calls"].as_array_mut() {
            for call in calls {
                call["id"] = Value::Null;
            }
        }
        turns.push(((api, stream), turn));
        if out.status.success() {
            assert!(json["stats"]["rounds"].as_u64().unwrap() >= 1, "{json}");
            assert!(
                json["stats"]["prompt_tokens"].as_u64().unwrap() > 100,
                "{json}"
            );
        } else {
            // A random model may keep calling until --max-rounds.
            assert!(json["error"].as_str().unwrap().contains("rounds"), "{json}");
        }
    }
    // Chat Completions and Responses carry the same schemas, so the server
    // renders the same prompt and the model answers alike. Messages takes
    // JSON Schema proper: `get_current_time`'s optional `timezone` is
    // written `"type": ["string", "null"]`, not transformers' `nullable`,
    // so its prompt differs; it must agree with itself, streamed or not.
    let turn = |api: &str, stream: bool| {
        let found = turns.iter().find(|(key, _)| *key == (api, stream));
        &found.expect("every API ran").1
    };
    for (api, stream) in [("chat", false), ("responses", true), ("responses", false)] {
        assert_eq!(
            turn(api, stream),
            turn("chat", true),
            "{api} (streamed: {stream}) against chat, streamed"
        );
    }
    assert_eq!(
        turn("messages", false),
        turn("messages", true),
        "messages against messages, streamed"
    );

    // A bad address is a clear failure.
    fails_with(
        &["models", "--base-url", "http://127.0.0.1:1/v1"],
        "cannot reach http://127.0.0.1:1/v1/models",
    );
}
