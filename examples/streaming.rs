//! The agent's events as they happen: the model's text as it is decoded,
//! each call once its JSON is complete, each tool's result, the answer, and
//! per-turn statistics. This is what a UI subscribes to.
//!
//! ```text
//! cargo run --release --example streaming
//! cargo run --release --example streaming -- "How windy is it in Oslo?"
//! ```

use std::io::Write;

use tool_use::agent::AgentEvent;
use tool_use::parse::StreamEvent;
use tool_use::{Agent, LocalChat, Message};

fn main() {
    let question = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "What's the temperature in Paris right now?".into());
    let chat = match tool_use::bundled::load()
        .map_err(|e| e.to_string())
        .and_then(|model| LocalChat::new(model).map_err(|e| e.to_string()))
    {
        Ok(chat) => chat,
        Err(e) => {
            eprintln!("cannot load the bundled model: {e}");
            std::process::exit(1);
        }
    };
    let mut agent = Agent::new(chat, tool_use::demo::toolbox()).max_rounds(4);
    println!("user: {question}");
    let mut stdout = std::io::stdout();
    let result = agent.run_with(vec![Message::user(question)], &mut |event| {
        match event {
            AgentEvent::RoundStart { round } => print!("\n[round {round}] assistant: "),
            // Text arrives piece by piece; tool-call markup never shows here.
            AgentEvent::Stream(StreamEvent::Content(text)) => print!("{text}"),
            AgentEvent::Stream(StreamEvent::Reasoning(text)) => print!("({text})"),
            // A call's name as soon as it is known, its arguments as written
            // (all at once for formats that do not stream them), then the call.
            AgentEvent::Stream(StreamEvent::ToolCallStart { name, .. }) => print!("\n  → {name}("),
            AgentEvent::Stream(StreamEvent::ToolCallArguments { delta, .. }) => print!("{delta}"),
            AgentEvent::Stream(StreamEvent::ToolCallEnd { call, .. }) => {
                print!(")  [complete: {}]", call.arguments)
            }
            AgentEvent::InvalidToolCall { message } => print!("\n  ✗ {}", message.text()),
            AgentEvent::ToolProgress(p) => print!("\n  … {} {}", p.tool, p.done),
            AgentEvent::ToolResult { message } => print!(
                "\n  ← {}: {}",
                message.name.as_deref().unwrap_or("?"),
                message.text()
            ),
            AgentEvent::TurnEnd { stats } => print!(
                "\n  ({} prompt tokens, {} reused, {} generated)",
                stats.prompt_tokens, stats.reused_tokens, stats.generated_tokens
            ),
            AgentEvent::Answer(answer) => print!("\n\nanswer: {answer}"),
            // Unreadable calls come as `InvalidToolCall`, with their error.
            AgentEvent::Stream(StreamEvent::InvalidToolCall(_)) => {}
        }
        let _ = stdout.flush();
    });
    println!();
    if let Err(e) = result {
        eprintln!("{e}");
        std::process::exit(1);
    }
}
