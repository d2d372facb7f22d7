//! The agent on a model an OpenAI-compatible engine serves (vLLM,
//! llama.cpp's `llama-server`, Ollama, SGLang, a hosted API): the same
//! `Agent` and `#[tool]` toolbox as the local examples, the model elsewhere.
//!
//! ```text
//! llama-server -m model.gguf --jinja --port 8080 &
//! cargo run --example remote -- http://127.0.0.1:8080/v1
//! cargo run --example remote -- http://127.0.0.1:8000/v1 Qwen/Qwen2.5-7B-Instruct "How windy is it in Oslo?"
//! OPENAI_API_KEY=... cargo run --features remote-tls --example remote -- https://api.example.com/v1 MODEL
//! ```

use tool_use::agent::AgentEvent;
use tool_use::parse::StreamEvent;
use tool_use::{Agent, Message, RemoteChat};

fn main() {
    let mut args = std::env::args().skip(1);
    let Some(base_url) = args.next() else {
        eprintln!("usage: remote BASE_URL [MODEL] [QUESTION]");
        std::process::exit(2);
    };
    let model = args.next();
    let question = args
        .next()
        .unwrap_or_else(|| "What's the temperature in Paris right now?".into());

    let mut chat = RemoteChat::openai_compatible(&base_url, model.clone().unwrap_or_default());
    if std::env::var_os("OPENAI_API_KEY").is_some() {
        chat = chat
            .api_key_env("OPENAI_API_KEY")
            .unwrap_or_else(|e| fail(&e));
    }
    if model.is_none() {
        // The engine's first model, as `tool-use models` lists them.
        let models = chat.models().unwrap_or_else(|e| fail(&e));
        let Some(first) = models.into_iter().next() else {
            fail(&format!("{base_url} serves no model"))
        };
        println!("model: {first}");
        chat = chat.model(first);
    }

    let mut agent = Agent::new(chat, tool_use::demo::toolbox()).max_rounds(4);
    println!("user: {question}");
    let result = agent.run_with(vec![Message::user(question)], &mut |event| match event {
        AgentEvent::Stream(StreamEvent::ToolCallEnd { call, .. }) => {
            println!("  → {}({})", call.name, call.arguments)
        }
        AgentEvent::ToolResult { message } | AgentEvent::InvalidToolCall { message } => {
            println!("  ← {}", message.text())
        }
        AgentEvent::Answer(answer) => println!("assistant: {answer}"),
        _ => {}
    });
    if let Err(e) = result {
        fail(&e);
    }
}

fn fail(e: &dyn std::fmt::Display) -> ! {
    eprintln!("{e}");
    std::process::exit(1);
}
