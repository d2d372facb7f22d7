//! `tool-use chat`: the agent with the demo tools, on a local model or on a
//! model an OpenAI-compatible engine serves.

use std::io::{Read, Write};
use std::path::Path;
use std::process::ExitCode;

use serde_json::json;
use tool_use::generate::GenerateOptions;
use tool_use::mcp::{McpClient, ToolboxMcp};
use tool_use::parse::StreamEvent;
use tool_use::remote::{Api, RemoteChat, RequestOptions};
use tool_use::{
    agent::{Agent, AgentEvent},
    chat::ChatModel,
};
use tool_use::{Message, Role, ToolCall, ToolChoice, Toolbox};

/// Arguments of `tool-use chat`.
#[derive(clap::Args)]
pub struct ChatArgs {
    #[command(flatten)]
    load: super::LoadArgs,
    /// What the user says; read from stdin when absent.
    prompt: Option<String>,
    /// A Hugging Face model directory, a `.gguf` file, or a model on the
    /// Hugging Face Hub (`hf:ORG/REPO[:QUANT]`, `hf:ORG/REPO/FILE`; default:
    /// the bundled model, or `$TOOL_USE_MODEL`); with `--base-url`, the served
    /// model's name (default: the engine's first model).
    #[arg(long)]
    model: Option<String>,
    /// An engine to run the model on (vLLM, llama-server,
    /// Ollama, SGLang…), e.g. `http://127.0.0.1:8080/v1`.
    #[arg(long)]
    base_url: Option<String>,
    /// The environment variable that holds the engine's API key.
    #[arg(long)]
    api_key_env: Option<String>,
    /// The API to speak with `--base-url`: `chat` (Chat Completions),
    /// `messages` (Anthropic's Messages) or `responses` (OpenAI's Responses).
    #[arg(long, default_value = "chat", requires = "base_url")]
    api: Api,
    /// Ask the engine for the whole answer at once instead of a stream.
    #[arg(long)]
    no_stream: bool,
    /// Print one JSON object: `{"messages": [...], "stats": {...}}`.
    #[arg(long)]
    json: bool,
    /// The most model turns before giving up.
    #[arg(long, default_value_t = 6)]
    max_rounds: usize,
    /// The most tokens the model may write in one turn.
    #[arg(long, default_value_t = 256)]
    max_tokens: usize,
    /// Sampling temperature; 0 (the default) is greedy.
    #[arg(long, default_value_t = 0.0)]
    temperature: f32,
    /// Seed for sampling.
    #[arg(long)]
    seed: Option<u64>,
    /// `auto`, `required`, `none`, or a tool's name.
    #[arg(long, default_value = "auto")]
    tool_choice: String,
    #[command(flatten)]
    decoding: super::DecodingArgs,
    /// Ground every free string argument: a local model may only write runs
    /// of words of your messages there (a city, a query), so it cannot
    /// misspell one or make one up. Helps small models like the bundled one;
    /// ignored by remote engines.
    #[arg(long)]
    grounded: bool,
    /// A system message to start the conversation with.
    #[arg(long)]
    system: Option<String>,
    /// An MCP server whose tools join the demo tools: a command line split at
    /// spaces (`uvx mcp-server-time`) or a streamable HTTP URL
    /// (`http://127.0.0.1:8000/mcp`). Repeatable.
    #[arg(long, value_name = "SERVER")]
    mcp: Vec<String>,
    /// Offer only the `--mcp` servers' tools, not the demo ones.
    #[arg(long, requires = "mcp")]
    mcp_only: bool,
    /// Ask on the terminal before each call runs: run it, deny it (the
    /// model reads your reason), edit its arguments, or stop.
    #[arg(long)]
    confirm: bool,
}

/// The demo tools (unless `--mcp-only`) and those of every `--mcp` server.
/// The clients live as long as the toolbox's tools do.
fn toolbox(args: &ChatArgs) -> Result<Toolbox, String> {
    let mut toolbox = if args.mcp_only {
        Toolbox::new()
    } else {
        tool_use::demo::toolbox()
    };
    for server in &args.mcp {
        let client = if server.starts_with("http://") || server.starts_with("https://") {
            McpClient::http_blocking(server)
        } else {
            let mut words = server.split_whitespace();
            let program = words.next().ok_or("--mcp: an empty command")?;
            let mut command = std::process::Command::new(program);
            command.args(words);
            McpClient::stdio_blocking(command)
        };
        let client = client.map_err(|e| format!("--mcp {server}: {e}"))?;
        toolbox = toolbox
            .with_mcp(&client)
            .map_err(|e| format!("--mcp {server}: {e}"))?;
    }
    Ok(if args.grounded {
        toolbox.ground_free_strings()
    } else {
        toolbox
    })
}

/// Runs `tool-use chat`.
pub fn run(args: ChatArgs) -> Result<ExitCode, String> {
    let prompt = match args.prompt.clone() {
        Some(p) => p,
        None if args.confirm => {
            return Err(
                "--confirm reads its answers from stdin: give the prompt as an argument".into(),
            )
        }
        None => {
            let mut text = String::new();
            std::io::stdin()
                .read_to_string(&mut text)
                .map_err(|e| format!("cannot read the prompt from stdin: {e}"))?;
            text.trim().to_owned()
        }
    };
    if prompt.is_empty() {
        return Err("no prompt: pass one as an argument or on stdin".into());
    }
    let choice: ToolChoice = args.tool_choice.parse().map_err(|e| format!("{e}"))?;
    let mut messages = Vec::new();
    if let Some(system) = &args.system {
        messages.push(Message::system(system.clone()));
    }
    messages.push(Message::user(prompt));
    if let Some(base_url) = &args.base_url {
        let remote = remote_chat(base_url, &args)?;
        return drive(remote, &args, messages, choice);
    }
    let model = super::load_model(args.model.as_deref().map(Path::new), &args.load)?;
    let options = GenerateOptions {
        max_new_tokens: args.max_tokens,
        temperature: args.temperature,
        seed: args.seed,
        ..GenerateOptions::default()
    };
    let local = args.decoding.local_chat(model)?.options(options);
    if !args.decoding.no_constrain && !local.can_constrain() && !args.json {
        eprintln!(
            "note: calls in the `{}` format cannot be constrained; generating freely",
            tool_use::chat::ChatModel::format(&local)
        );
    }
    drive(local, &args, messages, choice)
}

/// The engine at `base_url`, set up from the command line; the model is the
/// engine's first when none is named.
fn remote_chat(base_url: &str, args: &ChatArgs) -> Result<RemoteChat, String> {
    let mut chat = RemoteChat::openai_compatible(base_url, args.model.clone().unwrap_or_default())
        .stream(!args.no_stream)
        .api(args.api)
        .options(RequestOptions {
            temperature: Some(f64::from(args.temperature)),
            max_tokens: Some(args.max_tokens),
            seed: args.seed,
            ..RequestOptions::default()
        });
    if let Some(var) = &args.api_key_env {
        chat = chat.api_key_env(var).map_err(|e| e.to_string())?;
    }
    if args.model.is_some() {
        return Ok(chat);
    }
    super::first_served_model(chat, base_url, "--model")
}

/// Says once, on stderr, that the bundled model is offered tools it was not
/// trained on (an `--mcp` server's): it knows the demo tools only.
fn note_unknown_tools(args: &ChatArgs, toolbox: &Toolbox) {
    let bundled = args.base_url.is_none()
        && args.model.is_none()
        && std::env::var_os(tool_use::bundled::MODEL_ENV).is_none();
    let unknown: Vec<&str> = toolbox
        .names()
        .filter(|name| !tool_use::demo::NAMES.contains(name))
        .collect();
    if bundled && !unknown.is_empty() {
        eprintln!(
            "note: the bundled model knows only the demo tools, not {}: for your own tools, \
             name a model trained to call any tool with --model hf:ORG/REPO[:QUANT] \
             (\"Choosing a model\" in the book, docs/src/choosing-a-model.md, lists some, \
             and how to check one with `tool-use doctor`)",
            unknown.join(", ")
        );
    }
}

/// Runs the agent on `model` and prints the transcript (or `--json`).
fn drive(
    model: impl ChatModel,
    args: &ChatArgs,
    messages: Vec<Message>,
    choice: ToolChoice,
) -> Result<ExitCode, String> {
    let toolbox = toolbox(args)?;
    note_unknown_tools(args, &toolbox);
    let mut agent = Agent::new(model, toolbox)
        .max_rounds(args.max_rounds)
        .tool_choice(choice);
    if args.confirm {
        agent = agent
            .approve(|call: &ToolCall| super::confirm::ask(call, &mut std::io::stdin().lock()));
    }
    let result = if args.json {
        agent.run(messages)
    } else {
        let mut out = std::io::stdout();
        let mut at_line_start = true;
        agent.run_with(messages, &mut |event| {
            show(&mut out, &mut at_line_start, event)
        })
    };
    match result {
        Ok(run) => {
            if args.json {
                let out = json!({"messages": run.messages, "stats": run.stats});
                println!("{out}");
            } else {
                let s = &run.stats;
                eprintln!(
                    "[{} round(s), {} prompt tokens ({} reused), {} generated; prefill {:.0} tok/s, decode {:.1} tok/s]",
                    s.rounds, s.prompt_tokens, s.reused_tokens, s.generated_tokens,
                    s.prefill_tokens_per_s, s.decode_tokens_per_s
                );
            }
            Ok(ExitCode::SUCCESS)
        }
        Err(e) => {
            if args.json {
                let out = json!({"messages": e.messages(), "error": e.to_string()});
                println!("{out}");
            }
            Err(e.to_string())
        }
    }
}

/// Prints one event for a person: the answer as it streams, calls and
/// results on their own lines.
fn show(out: &mut std::io::Stdout, at_line_start: &mut bool, event: AgentEvent) {
    let mut line = |text: String| {
        if !*at_line_start {
            let _ = writeln!(out);
        }
        let _ = writeln!(out, "{text}");
        *at_line_start = true;
    };
    match event {
        AgentEvent::Stream(StreamEvent::ToolCallEnd { call, .. }) => {
            line(format!("→ {}({})", call.name, call.arguments))
        }
        AgentEvent::ToolResult { message } | AgentEvent::InvalidToolCall { message } => {
            debug_assert_eq!(message.role, Role::Tool);
            line(format!("← {}", message.text()))
        }
        AgentEvent::ToolProgress(p) => {
            let of = p.total.map(|t| format!("/{t}")).unwrap_or_default();
            let message = p.message.map(|m| format!(": {m}")).unwrap_or_default();
            line(format!("… {} {}{of}{message}", p.tool, p.done))
        }
        AgentEvent::Stream(StreamEvent::Content(text)) => {
            let _ = write!(out, "{text}");
            let _ = out.flush();
            *at_line_start = text.ends_with('\n');
        }
        AgentEvent::Answer(_) => {
            if !*at_line_start {
                let _ = writeln!(out);
                *at_line_start = true;
            }
        }
        AgentEvent::RoundStart { .. }
        | AgentEvent::Stream(
            StreamEvent::Reasoning(_)
            | StreamEvent::ToolCallStart { .. }
            | StreamEvent::ToolCallArguments { .. }
            | StreamEvent::InvalidToolCall(_),
        )
        | AgentEvent::TurnEnd { .. } => {}
    }
}
