//! `tool-use chat` on the bundled model: with tools served over MCP, and
//! `--grounded`, which keeps free string arguments to runs of the user's words.

#[path = "common/cli.rs"]
mod cli;

use cli::{fails_with, succeeded, tool_use};

/// `tool-use chat --json` messages for `question` with `extra` arguments.
fn chat_messages(question: &str, extra: &[&str]) -> serde_json::Value {
    let out = tool_use()
        .args(["chat", "--json"])
        .args(extra)
        .arg(question)
        .env_remove("TOOL_USE_MODEL")
        .output()
        .unwrap();
    let run: serde_json::Value = serde_json::from_slice(&succeeded(out)).unwrap();
    run["messages"].clone()
}

#[test]
fn the_chat_command_runs_the_agent_on_tools_served_over_mcp() {
    let server = format!("{} mcp", env!("CARGO_BIN_EXE_tool-use"));
    let question = "What is 25 times 4?";
    let through_mcp = chat_messages(question, &["--mcp-only", "--mcp", &server]);
    // The bundled model calls `calculate`; the product of the numbers it
    // wrote came back through MCP.
    let call = &through_mcp[1]["tool_calls"][0]["function"];
    assert_eq!(call["name"], "calculate", "{through_mcp}");
    assert_eq!(call["arguments"]["operation"], "multiply", "{through_mcp}");
    let product =
        call["arguments"]["a"].as_f64().unwrap() * call["arguments"]["b"].as_f64().unwrap();
    assert_eq!(
        through_mcp[2]["content"],
        product.to_string(),
        "{through_mcp}"
    );
    // The same transcript as with the tools in-process.
    assert_eq!(through_mcp, chat_messages(question, &[]));

    // The demo tools and the same tools over MCP cannot share a toolbox.
    fails_with(
        &["chat", "--mcp", &server, question],
        "two tools are named `get_current_temperature`",
    );
}

/// The calls of a `tool-use chat --json` run: (name, arguments).
fn calls(question: &str, extra: &[&str]) -> Vec<(String, serde_json::Value)> {
    chat_messages(question, extra)
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|m| m["tool_calls"].as_array().cloned().unwrap_or_default())
        .map(|c| {
            (
                c["function"]["name"].as_str().unwrap().to_owned(),
                c["function"]["arguments"].clone(),
            )
        })
        .collect()
}

#[test]
fn grounded_the_bundled_model_copies_places_from_the_request() {
    // Without `--grounded`, v2 wrote `Copenhage`, `Reykavik`, `Zagrebb,
    // Croatia` and `Medelm, Colombia` for these, v3 `Reykjaviki` and v5
    // `Reykjik`; v6 and v7 copy all four.
    for question in [
        "What time is it in Copenhagen?",
        "What's the temperature in Reykjavik?",
        "How windy is it in Zagreb, Croatia?",
        "What's the temperature in Medellin, Colombia?",
    ] {
        let made = calls(question, &["--grounded"]);
        assert!(!made.is_empty(), "{question}: no call");
        let words: Vec<&str> = question.split_whitespace().collect();
        for (name, args) in made {
            for key in ["location", "timezone"] {
                if let Some(place) = args.get(key).and_then(|v| v.as_str()) {
                    assert!(question.contains(place), "{name} {args} for {question:?}");
                    assert!(
                        place
                            .split(' ')
                            .all(|w| words.iter().any(|q| q.starts_with(w))),
                        "{name} {args}: whole words of {question:?}"
                    );
                }
            }
        }
    }
}

/// A model whose files hold no chat template (a base model's GGUF, say)
/// runs with `--chat-template`: the bundled model's files without their
/// template, given it back as a `.jinja` file, answer exactly as the
/// bundled model does, and without it the run says what is missing.
#[test]
fn chat_template_gives_a_model_without_one_its_template() {
    let bundled = tool_use::bundled::model_dir();
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("no-template");
    std::fs::create_dir(&dir).unwrap();
    for entry in std::fs::read_dir(&bundled).unwrap() {
        let path = entry.unwrap().path();
        if path
            .extension()
            .is_some_and(|e| e == "json" || e == "safetensors")
        {
            std::fs::copy(&path, dir.join(path.file_name().unwrap())).unwrap();
        }
    }
    let config_path = dir.join("tokenizer_config.json");
    let mut config: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&config_path).unwrap()).unwrap();
    let template = config
        .as_object_mut()
        .unwrap()
        .remove("chat_template")
        .expect("the bundled model has a template");
    std::fs::write(&config_path, config.to_string()).unwrap();
    let jinja = tmp.path().join("template.jinja");
    std::fs::write(&jinja, template.as_str().unwrap()).unwrap();

    let question = "What's the temperature in Paris right now?";
    let model = dir.to_str().unwrap();
    fails_with(&["chat", "--model", model, question], "no chat template");
    let given = chat_messages(
        question,
        &["--model", model, "--chat-template", jinja.to_str().unwrap()],
    );
    assert_eq!(given, chat_messages(question, &[]));
}

/// `tool-use chat --confirm --json` with `answers` on stdin: the transcript
/// and what went to stderr.
fn confirmed(question: &str, answers: &str) -> (std::process::Output, String) {
    use std::io::Write;
    let mut child = tool_use()
        .args(["chat", "--json", "--confirm", question])
        .env_remove("TOOL_USE_MODEL")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(answers.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    (out, stderr)
}

#[test]
fn confirm_asks_before_each_call_and_the_model_reads_a_denial() {
    let question = "What is 25 times 4?";
    let (out, asked) = confirmed(question, "n not today\ny\ny\ny\ny\ny\n");
    assert!(asked.contains("run calculate("), "{asked}");
    let run: serde_json::Value = serde_json::from_slice(&succeeded(out)).unwrap();
    let messages = &run["messages"];
    assert_eq!(
        messages[1]["tool_calls"][0]["function"]["name"],
        "calculate"
    );
    assert_eq!(
        messages[2]["content"], "Error: the call was denied: not today",
        "{messages}"
    );

    // Edited arguments run, and the transcript shows them.
    let (out, _) = confirmed(
        question,
        "e\n{\"operation\": \"add\", \"a\": 2, \"b\": 3}\ny\ny\ny\ny\n",
    );
    let run: serde_json::Value = serde_json::from_slice(&succeeded(out)).unwrap();
    let messages = &run["messages"];
    assert_eq!(
        messages[1]["tool_calls"][0]["function"]["arguments"]["operation"],
        "add"
    );
    assert_eq!(messages[2]["content"], "5", "{messages}");

    // Stopping ends the run with the transcript and a clear error.
    let (out, _) = confirmed(question, "s\n");
    assert!(!out.status.success());
    let run: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        run["error"], "the run stopped for approval of calculate",
        "{run}"
    );

    // The prompt cannot come from stdin as well.
    fails_with(
        &["chat", "--confirm"],
        "--confirm reads its answers from stdin: give the prompt as an argument",
    );
}
