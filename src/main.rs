//! The `tool-use` command.

mod cli;

use clap::{Parser, Subcommand};
use std::process::ExitCode;

/// Tool use for LLMs: render chat templates, parse model output, run the agent.
#[derive(Parser)]
#[command(name = "tool-use", version, about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Work with chat templates.
    #[command(subcommand)]
    Template(cli::template::TemplateCommand),
    /// Run the agent with the demo tools: a local model (the bundled one by
    /// default) or one an engine serves (`--base-url`, `--api`).
    Chat(cli::chat::ChatArgs),
    /// Check a local model (the bundled one by default): what it is, the
    /// tool-call format its chat template implies, and whether its template
    /// and that format's parser work together.
    Doctor(cli::doctor::DoctorArgs),
    /// List the models an OpenAI-compatible engine serves.
    Models(cli::models::ModelsArgs),
    /// Generate once from a prompt, without the agent (token-level comparisons).
    Generate(cli::generate::GenerateArgs),
    /// Serve a local model (the bundled one by default) over OpenAI's Chat
    /// Completions and Responses APIs and Anthropic's Messages API.
    Serve(cli::serve::ServeArgs),
    /// Serve the demo tools over the Model Context Protocol (stdio, or
    /// streamable HTTP with `--http`).
    Mcp(cli::mcp::McpArgs),
    /// Parse a model's raw output (stdin) into content, reasoning and tool calls.
    Parse(cli::parse::ParseArgs),
    /// Measure a model (local, or on an engine) on a
    /// function-calling benchmark.
    #[command(subcommand)]
    Eval(cli::eval::EvalCommand),
}

fn main() -> ExitCode {
    match Cli::parse().command {
        Command::Template(c) => cli::template::run(c),
        Command::Parse(args) => cli::parse::run(args),
        Command::Chat(args) => cli::finish("chat", cli::chat::run(args)),
        Command::Doctor(args) => cli::finish("doctor", cli::doctor::run(args)),
        Command::Models(args) => cli::finish("models", cli::models::run(args)),
        Command::Serve(args) => cli::finish("serve", cli::serve::run(args)),
        Command::Mcp(args) => cli::finish("mcp", cli::mcp::run(args)),
        Command::Generate(args) => cli::finish("generate", cli::generate::run(args)),
        Command::Eval(command) => cli::finish("eval", cli::eval::run(command)),
    }
}
