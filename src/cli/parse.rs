//! `tool-use parse`: read a model's raw output and print the calls in it.

use serde_json::{json, Value};
use std::io::Read;
use std::path::PathBuf;
use std::process::ExitCode;
use tool_use::parse::{
    detect_format, detect_reasoning_start, Format, ParseOptions, ReasoningStart,
};
use tool_use::template::ChatTemplate;

/// Arguments of `tool-use parse`.
#[derive(clap::Args)]
pub struct ParseArgs {
    /// The output format (`hermes`, `mistral`, `qwen3_xml`…), or `auto` to
    /// tell it from `--template`.
    #[arg(long, default_value = "auto")]
    format: String,
    /// The model's chat template (a `.jinja` file): chooses the format with
    /// `--format auto`, and tells whether generation starts inside a
    /// reasoning block.
    #[arg(long)]
    template: Option<PathBuf>,
    /// An OpenAI-style tool list (JSON file), for formats whose values are
    /// typed by the tools' schemas.
    #[arg(long)]
    tools: Option<PathBuf>,
}

/// Runs `tool-use parse`.
pub fn run(args: ParseArgs) -> ExitCode {
    match parse(args) {
        Ok(out) => {
            println!("{out}");
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("tool-use parse: {e}");
            ExitCode::FAILURE
        }
    }
}

fn parse(args: ParseArgs) -> Result<Value, String> {
    let template = match &args.template {
        Some(p) => Some(
            std::fs::read_to_string(p).map_err(|e| format!("cannot read {}: {e}", p.display()))?,
        ),
        None => None,
    };
    let format = if args.format == "auto" {
        let src = template
            .as_deref()
            .ok_or("`--format auto` needs `--template`")?;
        detect_format(src).map_err(|e| e.to_string())?
    } else {
        Format::from_id(&args.format).map_err(|e| e.to_string())?
    };
    let tools = match &args.tools {
        Some(p) => {
            let text = std::fs::read_to_string(p)
                .map_err(|e| format!("cannot read {}: {e}", p.display()))?;
            match serde_json::from_str::<Value>(&text)
                .map_err(|e| format!("{}: not JSON: {e}", p.display()))?
            {
                Value::Array(t) => tool_use::ToolDefinition::list_from_json(&t)
                    .map_err(|e| format!("{}: {e}", p.display()))?,
                _ => return Err(format!("{}: expected a JSON list of tools", p.display())),
            }
        }
        None => Vec::new(),
    };
    let reasoning = match template.as_deref() {
        Some(src) => reasoning_start(src),
        // Without a template, let an unmatched `</think>` decide: the whole
        // output is at hand, so holding text back costs nothing.
        None => ReasoningStart::Auto,
    };
    let mut output = String::new();
    std::io::stdin()
        .read_to_string(&mut output)
        .map_err(|e| format!("cannot read stdin: {e}"))?;
    let r = format.parse(&output, &ParseOptions { tools, reasoning });
    let calls: Vec<Value> = r
        .tool_calls
        .iter()
        .map(|c| json!({"id": c.id, "name": c.name, "arguments": c.arguments}))
        .collect();
    Ok(json!({
        "content": r.content,
        "reasoning": r.reasoning,
        "tool_calls": calls,
        "invalid_tool_calls": r.invalid_tool_calls,
    }))
}

/// Renders the template's generation prompt to see whether it opens a
/// reasoning block; `Auto` when it cannot be rendered.
fn reasoning_start(source: &str) -> ReasoningStart {
    let Ok(t) = ChatTemplate::new(source) else {
        return ReasoningStart::Auto;
    };
    let kwargs = json!({
        "messages": [{"role": "user", "content": "Hi"}],
        "add_generation_prompt": true,
        "bos_token": "",
        "eos_token": "",
    });
    match t.render_json(&kwargs) {
        Ok(prompt) => detect_reasoning_start(&prompt),
        Err(_) => ReasoningStart::Auto,
    }
}
