//! The agent calls tools an MCP server offers, next to a `#[tool]` function
//! of its own: the server is a child process (any command) or a URL.
//!
//! ```text
//! cargo build --release && cargo run --release --example mcp_client -- target/release/tool-use mcp
//! cargo run --release --example mcp_client -- http://127.0.0.1:8000/mcp
//! ```
//!
//! With `tool-use mcp` the tools are the demo ones, which the bundled model
//! knows: it calls them through MCP as it would call them in-process. A
//! server that dies or answers garbage becomes an `Error: …` tool message.

use std::process::Command;
use tool_use::mcp::{McpClient, ToolboxMcp};
use tool_use::{tool, Agent, LocalChat, Message, Role};

/// Count the words in a text.
///
/// Args:
///     text: The text.
#[tool]
fn count_words(text: String) -> usize {
    text.split_whitespace().count()
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let connected = match args.as_slice() {
        [url] if url.starts_with("http://") => McpClient::http_blocking(url),
        [program, rest @ ..] => {
            let mut command = Command::new(program);
            command.args(rest);
            McpClient::stdio_blocking(command)
        }
        [] => fail("usage: mcp_client (COMMAND [ARGS…] | http://HOST:PORT/mcp)"),
    };
    let client = connected.unwrap_or_else(|e| fail(&e.to_string()));
    println!(
        "{} offers:",
        client.server_name().unwrap_or_else(|| "the server".into())
    );
    for tool in client.definitions() {
        println!(
            "  {}: {}",
            tool.name,
            tool.description.as_deref().unwrap_or("")
        );
    }
    let toolbox = tool_use::toolbox![count_words]
        .with_mcp(&client)
        .unwrap_or_else(|e| fail(&e.to_string()));

    let model = tool_use::bundled::load().unwrap_or_else(|e| fail(&e.to_string()));
    let chat = LocalChat::new(model).unwrap_or_else(|e| fail(&e.to_string()));
    let mut agent = Agent::new(chat, toolbox).max_rounds(4);
    for question in [
        "What's the temperature in Paris, France?",
        "What is 12.5 times 4?",
    ] {
        println!("\nuser: {question}");
        match agent.run(vec![Message::user(question)]) {
            Ok(run) => print_turns(&run.messages),
            Err(e) => {
                print_turns(e.messages());
                println!("!! {e}");
            }
        }
    }
}

fn print_turns(messages: &[Message]) {
    for message in messages.iter().skip(1) {
        match message.role {
            Role::Assistant if !message.tool_calls.is_empty() => {
                for call in &message.tool_calls {
                    println!("assistant calls {}({})", call.name, call.arguments);
                }
            }
            Role::Tool => println!("tool: {}", message.content.as_deref().unwrap_or("")),
            _ => println!(
                "{:?}: {}",
                message.role,
                message.content.as_deref().unwrap_or("")
            ),
        }
    }
}

fn fail(message: &str) -> ! {
    eprintln!("mcp_client: {message}");
    std::process::exit(1);
}
