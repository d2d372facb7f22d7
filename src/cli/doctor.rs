//! `tool-use doctor`: what a model is, which tool-call format its chat
//! template implies and how that was decided, and whether the template and
//! the format's parser work together: the template must show the model its
//! tools, and a call it writes in the template's own form must parse back.
//!
//! Every check is a line `ok …` or `FAIL …` with its reason; any failure
//! makes the exit code non-zero. `--json` prints the same as one object.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use serde_json::{json, Value};
use tool_use::constrain::{TokenEnv, ToolConstraint};
use tool_use::model::Model;
use tool_use::parse::{detect_reasoning_start, generic, Format, ParseOptions, ReasoningStart};
use tool_use::runtime::validate::json_eq;
use tool_use::runtime::ToolDefinition;
use tool_use::template::{turn_start, ChatTemplate, RenderOptions};
use tool_use::{
    chat::{ChatModel, TurnRequest},
    local::LocalChat,
};
use tool_use::{Message, Role, ToolCall, ToolChoice};

/// Arguments of `tool-use doctor`.
#[derive(clap::Args)]
pub struct DoctorArgs {
    #[command(flatten)]
    load: super::LoadArgs,
    /// The model to check: a Hugging Face model directory, a `.gguf` file,
    /// or a model on the Hugging Face Hub (`hf:ORG/REPO[:QUANT]`,
    /// `hf:ORG/REPO/FILE`), as `tool-use chat --model` takes it (default:
    /// the bundled model, or `$TOOL_USE_MODEL`).
    #[arg(long)]
    model: Option<String>,
    /// The chat template to check instead of the model's own (a `.jinja`
    /// file, a `tokenizer_config.json`, a model directory or a `.gguf`
    /// file), as `tool-use chat --chat-template` takes it.
    #[arg(long, value_name = "PATH")]
    chat_template: Option<PathBuf>,
    /// The tool-call format to check instead of the one the template shows
    /// (one of `tool-use parse --help`'s formats), as `tool-use chat
    /// --tool-format` takes it.
    #[arg(long)]
    tool_format: Option<String>,
    /// Print one JSON object: the model's facts, the format, and each check
    /// (`{"check", "ok", "detail"}`), with `"ok"` for all of them.
    #[arg(long)]
    json: bool,
}

/// The question of the sample prompt.
const QUESTION: &str = "What's the temperature in Paris, France, and what is 12.5 times 4?";

/// The demo tools the sample prompt offers, and the call written to each.
fn sample_calls() -> Vec<ToolCall> {
    vec![
        ToolCall::new(
            "abc123def",
            "get_current_temperature",
            json!({"location": "Paris, France", "unit": "celsius"}),
        ),
        ToolCall::new(
            "xyz789uvw",
            "calculate",
            json!({"operation": "multiply", "a": 12.5, "b": 4}),
        ),
    ]
}

/// One check's outcome.
struct Check {
    /// What was checked (`chat template`, `tool format`…).
    name: String,
    /// Whether it passed.
    ok: bool,
    /// Why: what was found, and for a failure what was expected.
    detail: String,
}

/// The checks so far, printed as they are made unless `--json`.
struct Report {
    checks: Vec<Check>,
    json: bool,
}

impl Report {
    fn add(&mut self, name: impl Into<String>, ok: bool, detail: impl Into<String>) {
        let check = Check {
            name: name.into(),
            ok,
            detail: detail.into(),
        };
        if !self.json {
            let mark = if check.ok { "ok  " } else { "FAIL" };
            println!("{mark} {}: {}", check.name, check.detail);
        }
        self.checks.push(check);
    }

    fn ok(&mut self, name: impl Into<String>, detail: impl Into<String>) {
        self.add(name, true, detail);
    }

    fn fail(&mut self, name: impl Into<String>, detail: impl Into<String>) {
        self.add(name, false, detail);
    }

    fn passed(&self) -> bool {
        self.checks.iter().all(|c| c.ok)
    }

    fn to_json(&self) -> Value {
        Value::Array(
            self.checks
                .iter()
                .map(|c| json!({"check": c.name, "ok": c.ok, "detail": c.detail}))
                .collect(),
        )
    }
}

/// Runs `tool-use doctor`.
pub fn run(args: DoctorArgs) -> Result<ExitCode, String> {
    let model = match load(&args) {
        Ok(model) => model,
        Err(e) => {
            if args.json {
                println!("{}", json!({"ok": false, "error": e}));
            }
            return Err(e);
        }
    };
    let facts = facts(&model);
    if !args.json {
        for (label, _, value) in &facts {
            let shown = match value {
                Value::String(s) => s.clone(),
                Value::Null => "none".into(),
                v => v.to_string(),
            };
            println!("{label:<14}{shown}");
        }
    }
    let mut report = Report {
        checks: Vec::new(),
        json: args.json,
    };
    let format = check(model, &args, &mut report);
    let passed = report.passed();
    if args.json {
        let mut out = Value::Object(
            facts
                .into_iter()
                .map(|(_, key, value)| (key.to_owned(), value))
                .collect(),
        );
        out["tool_format"] = format.unwrap_or(Value::Null);
        out["checks"] = report.to_json();
        out["ok"] = Value::Bool(passed);
        println!("{out}");
    } else if passed {
        println!("all {} checks passed", report.checks.len());
    } else {
        let failed = report.checks.iter().filter(|c| !c.ok).count();
        println!("{failed} of {} checks failed", report.checks.len());
    }
    Ok(if passed {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

/// The model `--model` names with `--chat-template`'s template, if any.
fn load(args: &DoctorArgs) -> Result<Model, String> {
    let mut model = super::load_model(args.model.as_deref().map(Path::new), &args.load)?;
    if let Some(path) = &args.chat_template {
        let templates = super::load_templates(path).map_err(|e| format!("--chat-template: {e}"))?;
        model
            .set_templates(templates)
            .map_err(|e| format!("--chat-template: {e}"))?;
    }
    Ok(model)
}

/// What the model is, printed before the checks: (label, JSON key, value).
fn facts(model: &Model) -> Vec<(&'static str, &'static str, Value)> {
    let tokens = |ids: &[u32]| -> String {
        ids.iter()
            .map(|&id| match model.tokenizer().id_to_token(id) {
                Some(text) => format!("{id} {text}"),
                None => id.to_string(),
            })
            .collect::<Vec<_>>()
            .join(", ")
    };
    let weights = match model.matrix_formats() {
        Some(formats) => formats
            .iter()
            .map(|(format, n)| format!("{format} ×{n}"))
            .collect::<Vec<_>>()
            .join(", "),
        None => "candle".to_owned(),
    };
    vec![
        ("model", "model", json!(model.path().display().to_string())),
        ("architecture", "architecture", json!(model.architecture())),
        (
            "parameters",
            "parameters",
            json!(model.parameter_count().map(parameters)),
        ),
        ("weights", "weights", json!(weights)),
        ("context", "context_length", json!(model.context_length())),
        ("vocabulary", "vocab_size", json!(model.vocab_size())),
        ("eos", "eos", json!(tokens(model.eos_token_ids()))),
        (
            "bos",
            "bos",
            json!(model.bos_token_id().map(|id| tokens(&[id]))),
        ),
    ]
}

/// `n` parameters for a person: `4.25M (4,250,112)`.
fn parameters(n: u64) -> String {
    let digits = n.to_string();
    let mut grouped = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            grouped.push(',');
        }
        grouped.push(c);
    }
    let short = match n {
        n if n >= 1_000_000_000 => format!("{:.2}B", n as f64 / 1e9),
        n if n >= 1_000_000 => format!("{:.2}M", n as f64 / 1e6),
        n if n >= 1_000 => format!("{:.2}K", n as f64 / 1e3),
        n => n.to_string(),
    };
    format!("{short} ({grouped})")
}

/// Makes every check on `model`; returns the format's facts (id, how it
/// was decided, what the template alone implies), when one was decided.
fn check(model: Model, args: &DoctorArgs, report: &mut Report) -> Option<Value> {
    let source = match (&args.chat_template, model.templates()) {
        (Some(path), _) => format!("--chat-template {}", path.display()),
        (None, Some(t)) => format!("the model's own ({})", t.path.display()),
        (None, None) => String::new(),
    };
    if model.chat_template().is_none() {
        report.fail(
            "chat template",
            format!(
                "the model at {} has none (expected `chat_template` in tokenizer_config.json, \
                 a chat_template.jinja, or `tokenizer.chat_template` in the GGUF); name one \
                 with --chat-template",
                model.path().display()
            ),
        );
        return None;
    }
    report.ok("chat template", source);

    let implied = model.tool_format();
    let chat = match super::local_chat(model, args.tool_format.as_deref()) {
        Ok(chat) => chat,
        Err(e) => {
            report.fail("tool format", e);
            return None;
        }
    };
    let format = ChatModel::format(&chat);
    let decided_by = if args.tool_format.is_some() {
        match implied {
            Some(f) if f == format => "--tool-format (the template shows it too)".to_owned(),
            Some(f) => format!("--tool-format (the template shows `{f}`)"),
            None => "--tool-format (the template shows no format)".to_owned(),
        }
    } else if chat.lists_tools_itself() {
        "the template shows no tools: they are listed in a system message and the model \
         answers in JSON"
            .to_owned()
    } else {
        "detected from the chat template's call markup".to_owned()
    };
    report.ok("tool format", format!("{format}: {decided_by}"));
    let format_facts = json!({
        "id": format.id(),
        "decided_by": decided_by,
        "template_implies": implied.map(Format::id),
        "lists_tools_itself": chat.lists_tools_itself(),
    });

    let tools: Vec<ToolDefinition> = sample_calls()
        .iter()
        .filter_map(|c| tool_use::demo::definition(&c.name))
        .filter_map(|d| ToolDefinition::from_json(&d).ok())
        .collect();
    // Unconstrained for the prompt: the constraint has its own check.
    let mut chat = chat.constrain(false);
    check_prompt(&mut chat, &tools, report);
    let constrained = check_constraint(&chat, &tools, report);
    for call in sample_calls() {
        check_round_trip(&chat, &tools, &call, report);
    }
    let mut format_facts = format_facts;
    format_facts["constrained"] = Value::Bool(constrained);
    Some(format_facts)
}

/// The request of the sample prompt.
fn sample_request<'a>(messages: &'a [Message], tools: &'a [ToolDefinition]) -> TurnRequest<'a> {
    TurnRequest::new(messages, tools, &ToolChoice::Auto)
}

/// The sample prompt, as `chat` renders it: it renders, fits the context,
/// and shows every tool.
fn check_prompt(chat: &mut LocalChat, tools: &[ToolDefinition], report: &mut Report) {
    let messages = [Message::user(QUESTION)];
    let turn = match chat.prepare(&sample_request(&messages, tools), None) {
        Ok(turn) => turn,
        Err(e) => {
            report.fail("sample prompt", format!("cannot be made: {e}"));
            return;
        }
    };
    let context = chat.model().context_length();
    let shown: Vec<&str> = tools.iter().map(ToolDefinition::name).collect();
    let dropped: Vec<&str> = shown
        .iter()
        .copied()
        .filter(|name| !turn.prompt().contains(name))
        .collect();
    if !dropped.is_empty() {
        let hint = if ChatModel::format(chat) == Format::Generic {
            ""
        } else {
            "; a template that ignores `tools` needs --tool-format generic, which lists \
             them in a system message"
        };
        report.fail(
            "sample prompt",
            format!(
                "the chat template dropped the tools {}: expected each offered tool's name in \
                 the prompt, found {} of {}{hint}",
                dropped.join(", "),
                shown.len() - dropped.len(),
                shown.len()
            ),
        );
        return;
    }
    let how = if chat.lists_tools_itself() {
        "listed in the generic system message"
    } else {
        "shown by the template"
    };
    report.ok(
        "sample prompt",
        format!(
            "{} tokens of {context}; the tools {} {how}",
            turn.prompt_tokens(),
            shown.join(", ")
        ),
    );
}

/// Whether calls can be constrained, and the constraint builds for the
/// sample tools with the model's tokenizer. Returns whether calls are
/// constrained.
fn check_constraint(chat: &LocalChat, tools: &[ToolDefinition], report: &mut Report) -> bool {
    let format = ChatModel::format(chat);
    if !chat.can_constrain() {
        report.ok(
            "constrained calls",
            format!("none: the `{format}` format has no grammar, so calls are generated freely"),
        );
        return false;
    }
    // As `LocalChat` builds it for a turn that offers tools.
    let built = TokenEnv::of_model(chat.model())
        .and_then(|env| ToolConstraint::new(&env, format, tools, &ToolChoice::Auto));
    match built {
        Ok(_) => {
            report.ok(
                "constrained calls",
                format!(
                    "the `{format}` grammar builds for the sample tools with the model's tokenizer"
                ),
            );
            true
        }
        Err(e) => {
            report.fail(
                "constrained calls",
                format!(
                    "expected the `{format}` grammar to build for the sample tools with the \
                     model's tokenizer, found: {e}"
                ),
            );
            false
        }
    }
}

/// A call to `call`'s tool, written by rendering an assistant turn that
/// makes it through the model's own chat template (as the agent shows a
/// model its earlier calls) and cutting the assistant's part out of the
/// conversation; the format's parser must read back the same call.
fn check_round_trip(
    chat: &LocalChat,
    tools: &[ToolDefinition],
    call: &ToolCall,
    report: &mut Report,
) {
    let name = format!("round trip {}", call.name);
    let format = ChatModel::format(chat);
    let written = match assistant_turn(chat, tools, call) {
        Ok(written) => written,
        Err(e) => {
            report.fail(name, e);
            return;
        }
    };
    if !written.text.contains(call.name.as_str()) {
        report.fail(
            name,
            format!(
                "the chat template does not write an assistant's tool calls: expected \
                 `{}` in the assistant's turn, found {:?}",
                call.name, written.text
            ),
        );
        return;
    }
    let options = ParseOptions {
        tools: tools.to_vec(),
        reasoning: written.reasoning,
    };
    let parsed = format.parse(&written.text, &options);
    let got: Vec<(&str, &Value)> = parsed
        .tool_calls
        .iter()
        .map(|c| (c.name.as_str(), &c.arguments))
        .collect();
    match got.as_slice() {
        [(got_name, got_args)] if *got_name == call.name && json_eq(got_args, &call.arguments) => {
            report.ok(
                name,
                format!(
                    "the `{format}` parser reads back {}({}) from {:?}",
                    call.name, call.arguments, written.text
                ),
            );
        }
        _ => {
            let invalid: Vec<String> = parsed
                .invalid_tool_calls
                .iter()
                .map(|c| format!("{} ({})", c.name.as_deref().unwrap_or("?"), c.error))
                .collect();
            report.fail(
                name,
                format!(
                    "expected the `{format}` parser to read back {}({}) from {:?}, found {}{}",
                    call.name,
                    call.arguments,
                    written.text,
                    if got.is_empty() {
                        "no call".to_owned()
                    } else {
                        got.iter()
                            .map(|(n, a)| format!("{n}({a})"))
                            .collect::<Vec<_>>()
                            .join(", ")
                    },
                    if invalid.is_empty() {
                        String::new()
                    } else {
                        format!(" and invalid calls {}", invalid.join(", "))
                    }
                ),
            );
        }
    }
}

/// An assistant turn as the chat template writes it.
struct Written {
    /// The assistant's part of the conversation: what a model trained on
    /// this template writes, its end-of-turn token left off.
    text: String,
    /// Where that text starts, for the parser.
    reasoning: ReasoningStart,
}

/// The assistant's turn that makes `call`, rendered by `chat`'s template
/// after the sample question: the conversation with the turn, less the
/// prompt that ends with the generation prompt.
fn assistant_turn(
    chat: &LocalChat,
    tools: &[ToolDefinition],
    call: &ToolCall,
) -> Result<Written, String> {
    let model = chat.model();
    let template = model
        .chat_template()
        .ok_or("the model has no chat template")?;
    let special = model
        .templates()
        .map(|t| t.special_tokens.clone())
        .unwrap_or_default();
    let user = Message::user(QUESTION);
    // As the agent keeps it in the conversation (no text, one call).
    let assistant = Message::assistant_calls(None, vec![call.clone()]);
    let prefix = render(
        chat,
        template,
        &special,
        tools,
        std::slice::from_ref(&user),
        true,
    )
    .map_err(|e| format!("the chat template cannot render the sample question: {e}"))?;
    let first = render(
        chat,
        template,
        &special,
        tools,
        &[user.clone(), assistant.clone()],
        false,
    );
    // Rendering adapts a call-only turn to templates that need text or
    // arguments as JSON text (see `ChatTemplate::render`): a failure here
    // is the agent's second round failing too.
    let full = first.map_err(|error| {
        format!("the chat template cannot render an assistant's tool call: {error}")
    })?;
    let (common, extends) = turn_start(&prefix, &full);
    let mut text = full[common..].trim_end();
    // The turn's end is the model's end-of-sequence token, which generation
    // stops at: not part of the output.
    let ends: Vec<String> = model
        .eos_token_ids()
        .iter()
        .filter_map(|&id| model.tokenizer().id_to_token(id))
        .collect();
    while let Some(shorter) = ends.iter().find_map(|end| text.strip_suffix(end.as_str())) {
        text = shorter.trim_end();
    }
    // Only a conversation that extends the prompt keeps the reasoning
    // block the prompt opened.
    let reasoning = if extends {
        detect_reasoning_start(&prefix)
    } else {
        ReasoningStart::Closed
    };
    Ok(Written {
        text: text.to_owned(),
        reasoning,
    })
}

/// `messages` rendered as `chat` renders them: in the generic format, with
/// calls as JSON text and the generic tool prompt in the system message
/// (or the first user message, for a template that takes no system
/// message), as [`LocalChat`] does.
fn render(
    chat: &LocalChat,
    template: &ChatTemplate,
    special: &std::collections::BTreeMap<String, String>,
    tools: &[ToolDefinition],
    messages: &[Message],
    generation: bool,
) -> Result<String, String> {
    let render = |messages: &[Message]| {
        let options = RenderOptions::new(messages)
            .definitions(tools)
            .add_generation_prompt(generation)
            .special_tokens(special);
        template.render(&options).map(|r| r.text)
    };
    if ChatModel::format(chat) != Format::Generic {
        return render(messages).map_err(|e| e.to_string());
    }
    let messages = generic::as_text(messages);
    let prompt = generic::system_prompt(
        tools.iter().map(ToolDefinition::as_json),
        chat.lists_tools_itself(),
    );
    let mut in_system = messages.clone();
    in_system.insert(0, Message::system(prompt.clone()));
    render(&in_system).or_else(|e| {
        let mut in_user = messages;
        match in_user.iter_mut().find(|m| m.role == Role::User) {
            Some(first) => *first = Message::user(format!("{prompt}\n\n{}", first.text())),
            None => return Err(e.to_string()),
        }
        render(&in_user).map_err(|e| e.to_string())
    })
}
