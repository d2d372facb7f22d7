//! `tool-use doctor`: the bundled model and a tiny Qwen2 pass every check;
//! a template that drops the tools, and a path that is no model, fail with
//! the reason; and every shared fixture template, on the tiny model, passes
//! or fails as recorded here. And `tool-use chat`, offered tools the
//! bundled model was not trained on, points to `--model hf:…` and this
//! chapter's advice (`doctor` is how one checks such a model).

#[path = "common/cli.rs"]
mod cli;
#[path = "common/fixtures.rs"]
mod fixtures;

use cli::{succeeded, tool_use};
use serde_json::Value;
use std::path::Path;
use std::process::Output;
use tool_use::model::tiny::{write_tiny_model, TinySpec};

/// `tool-use doctor` with `args`, `$TOOL_USE_MODEL` unset.
fn doctor(args: &[&str]) -> Output {
    tool_use()
        .arg("doctor")
        .args(args)
        .env_remove("TOOL_USE_MODEL")
        .output()
        .unwrap()
}

/// `tool-use doctor --json` with `args`: its exit status and its report.
fn doctor_json(args: &[&str]) -> (bool, Value) {
    let out = doctor(&[&["--json"], args].concat());
    let report = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "doctor --json printed no JSON ({e}): {}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        )
    });
    (out.status.success(), report)
}

/// The checks that failed: `check: detail`, one a line.
fn failures(report: &Value) -> Vec<String> {
    report["checks"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|c| c["ok"] != true)
        .map(|c| {
            format!(
                "{}: {}",
                c["check"].as_str().unwrap(),
                c["detail"].as_str().unwrap()
            )
        })
        .collect()
}

/// A tiny Qwen2 directory (its template is Hermes-style) in `dir`.
fn tiny_qwen2(dir: &Path, context: usize) {
    let spec = TinySpec {
        max_position_embeddings: context,
        ..TinySpec::qwen2(7)
    };
    write_tiny_model(dir, &spec).unwrap();
}

/// Replaces the `chat_template` of `dir`'s tokenizer_config.json.
fn set_template(dir: &Path, template: &str) {
    let path = dir.join("tokenizer_config.json");
    let mut config: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    config["chat_template"] = Value::String(template.to_owned());
    std::fs::write(&path, config.to_string()).unwrap();
}

#[test]
fn the_bundled_model_passes_every_check() {
    let stdout = String::from_utf8(succeeded(doctor(&[]))).unwrap();
    for line in [
        "architecture  LlamaForCausalLM",
        "ok   tool format: hermes: detected from the chat template",
        "ok   round trip get_current_temperature: ",
        "ok   round trip calculate: ",
        "all 6 checks passed",
    ] {
        assert!(stdout.contains(line), "{stdout}");
    }
    assert!(!stdout.contains("FAIL"), "{stdout}");

    let (ok, report) = doctor_json(&[]);
    assert!(ok, "{report}");
    assert_eq!(report["ok"], true, "{report}");
    assert_eq!(report["architecture"], "LlamaForCausalLM");
    assert_eq!(report["parameters"], "4.25M (4,252,160)");
    assert_eq!(report["context_length"], 2048);
    assert_eq!(report["tool_format"]["id"], "hermes");
    assert_eq!(report["tool_format"]["constrained"], true);
    assert_eq!(report["checks"].as_array().unwrap().len(), 6, "{report}");
    assert!(failures(&report).is_empty(), "{report}");
}

#[test]
fn a_tiny_qwen2_with_a_hermes_template_passes() {
    let dir = tempfile::tempdir().unwrap();
    // The tiny tokenizer spells most words letter by letter: the sample
    // prompt needs more than the default 1,024 positions.
    tiny_qwen2(dir.path(), 4096);
    let model = dir.path().to_str().unwrap();
    let (ok, report) = doctor_json(&["--model", model]);
    assert!(ok, "{:?}", failures(&report));
    assert_eq!(report["architecture"], "Qwen2ForCausalLM");
    assert_eq!(report["tool_format"]["id"], "hermes");
    assert_eq!(report["tool_format"]["constrained"], true);
    // On the project's decoder, its ten matrices in f32.
    assert_eq!(report["weights"], "f32 ×10", "{report}");
    assert_eq!(report["context_length"], 4096);

    // Named with --tool-format, the same format is said to be named.
    let (ok, report) = doctor_json(&["--model", model, "--tool-format", "hermes"]);
    assert!(ok, "{:?}", failures(&report));
    assert_eq!(
        report["tool_format"]["decided_by"],
        "--tool-format (the template shows it too)"
    );
}

#[test]
fn a_prompt_longer_than_the_context_fails() {
    let dir = tempfile::tempdir().unwrap();
    write_tiny_model(dir.path(), &TinySpec::qwen2(7)).unwrap();
    let (ok, report) = doctor_json(&["--model", dir.path().to_str().unwrap()]);
    assert!(!ok);
    let failed = failures(&report);
    // Only the prompt: the grammar and the round trips do not depend on it.
    assert_eq!(failed.len(), 1, "{failed:?}");
    assert!(
        failed[0].starts_with("sample prompt: cannot be made: the prompt has ")
            && failed[0].ends_with("tokens, more than the model's context of 1024"),
        "{failed:?}"
    );
}

/// A template that writes an assistant's calls in Hermes' tags (so the
/// format is detected) but never prints `tools`.
const DROPS_TOOLS: &str = "{% for m in messages %}<|im_start|>{{ m.role }}\n\
    {% if m.tool_calls %}{% for c in m.tool_calls %}<tool_call>{{ {'name': c.function.name, \
    'arguments': c.function.arguments} | tojson }}</tool_call>{% endfor %}\
    {% else %}{{ m.content }}{% endif %}<|im_end|>\n{% endfor %}\
    {% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}";

/// A template that prints only the messages' text.
const CONTENTS_ONLY: &str = "{% for m in messages %}{{ m.content }}\n{% endfor %}";

#[test]
fn a_template_that_drops_the_tools_fails_naming_them() {
    let dir = tempfile::tempdir().unwrap();
    tiny_qwen2(dir.path(), 4096);
    set_template(dir.path(), DROPS_TOOLS);
    let model = dir.path().to_str().unwrap();
    let out = doctor(&["--model", model]);
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(!out.status.success(), "{stdout}");
    assert!(
        stdout.contains(
            "FAIL sample prompt: the chat template dropped the tools get_current_temperature, \
             calculate"
        ),
        "{stdout}"
    );
    // The calls it does write still parse back.
    assert!(stdout.contains("ok   round trip calculate"), "{stdout}");

    // A template that shows neither tools nor calls gets the generic
    // format, which lists the tools itself: nothing is dropped.
    set_template(dir.path(), CONTENTS_ONLY);
    let (ok, report) = doctor_json(&["--model", model]);
    assert!(ok, "{:?}", failures(&report));
    assert_eq!(report["tool_format"]["id"], "generic");
    assert_eq!(report["tool_format"]["lists_tools_itself"], true);
    // Unless another format is named: then the template drops them.
    let (ok, report) = doctor_json(&["--model", model, "--tool-format", "hermes"]);
    assert!(!ok);
    let failed = failures(&report);
    assert!(
        failed.iter().any(|f| f.starts_with(
            "sample prompt: the chat template dropped the tools get_current_temperature, calculate"
        ) && f.contains("--tool-format generic")),
        "{failed:?}"
    );
}

#[test]
fn a_path_that_is_no_model_fails_with_the_reason() {
    let out = doctor(&["--model", "/no/such/model"]);
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.starts_with("tool-use doctor: "), "{stderr}");
    assert!(stderr.contains("/no/such/model"), "{stderr}");
    assert!(
        stderr.contains("a Hugging Face model directory or a .gguf file"),
        "{stderr}"
    );
    let (ok, report) = doctor_json(&["--model", "/no/such/model"]);
    assert!(!ok);
    assert_eq!(report["ok"], false);
    assert!(report["error"].as_str().unwrap().contains("/no/such/model"));

    let dir = tempfile::tempdir().unwrap();
    tiny_qwen2(dir.path(), 4096);
    let model = dir.path().to_str().unwrap();
    let out = doctor(&["--model", model, "--tool-format", "nonsense"]);
    assert!(!out.status.success());
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains("FAIL tool format: --tool-format: "),
        "{stdout}"
    );
}

/// The checks a template fails: each check's name and pieces of its reason.
type Failing = &'static [(&'static str, &'static [&'static str])];

/// The shared fixture templates (each `NAME.jinja`) that pass every check
/// on the tiny Qwen2, with the format `doctor` decides for each. With
/// [`FAILING`], every template there is.
const PASSING: &[(&str, &str)] = &[
    ("CohereForAI-c4ai-command-r-plus-tool_use", "cohere"),
    ("CohereForAI-c4ai-command-r7b-12-2024-tool_use", "cohere"),
    ("GLM-4.6", "glm45"),
    // Its template reads `xml_tools`, not `tools`: the generic prompt lists them.
    ("HuggingFaceTB-SmolLM3-3B", "generic"),
    ("MiniMax-M2", "minimax_m2"),
    ("Mistral-Small-3.2-24B-Instruct-2506", "mistral"),
    ("NVIDIA-Nemotron-Nano-v2", "nemotron_v2"),
    ("NousResearch-Hermes-2-Pro-Llama-3-8B-tool_use", "hermes"),
    ("NousResearch-Hermes-3-Llama-3.1-8B-tool_use", "hermes"),
    ("Qwen-Qwen2.5-7B-Instruct", "hermes"),
    // It reads `message.content` of every assistant turn (`.lstrip`): a
    // call-only turn is rendered with `"content": ""`, as llama.cpp gives it.
    ("Qwen-Qwen3-0.6B", "hermes"),
    ("Qwen3-Coder", "qwen3_xml"),
    // No tools in the template: the generic prompt lists them.
    ("google-gemma-2-2b-it", "generic"),
    // It joins each call's `arguments` as text: a call-only turn is
    // rendered with them as JSON text, as llama.cpp gives them.
    ("meetkai-functionary-medium-v3.2", "functionary_v32"),
    ("meta-llama-Llama-3.1-8B-Instruct", "llama3_json"),
    ("meta-llama-Llama-3.2-3B-Instruct", "llama3_json"),
    // No tools in the template: the generic prompt lists them.
    ("microsoft-Phi-3.5-mini-instruct", "generic"),
    ("mistralai-Mistral-Nemo-Instruct-2407", "mistral"),
    ("moonshotai-Kimi-K2", "kimi_k2"),
    ("openai-gpt-oss-120b", "harmony"),
];

/// The shared fixture templates that fail some check on the tiny Qwen2: the
/// format `doctor` decides (`None`: none), and the checks that fail, each
/// with pieces of its reason.
const FAILING: &[(&str, Option<&str>, Failing)] = &[
    // The template writes DeepSeek's call markup but never the tools (the
    // distilled model was not trained to call any).
    (
        "deepseek-ai-DeepSeek-R1-Distill-Qwen-32B",
        Some("deepseek_v3"),
        &[(
            "sample prompt",
            &["the chat template dropped the tools get_current_temperature, calculate"],
        )],
    ),
    // DeepSeek V3.1's template lists no tools: its model card has the caller
    // describe them in the system message. A limit of the template.
    (
        "deepseek-ai-DeepSeek-V3.1",
        Some("deepseek_v31"),
        &[(
            "sample prompt",
            &["the chat template dropped the tools get_current_temperature, calculate"],
        )],
    ),
    // Gemma 4 shows its tools but writes calls in a format no parser here
    // reads (`<|tool_call>call:…`): there is no Gemma 4 family yet.
    (
        "google-gemma-4-31B-it",
        None,
        &[(
            "tool format",
            &["cannot tell the model's tool-call format from its chat template"],
        )],
    ),
    // Granite 3.3's template renders an assistant turn's `content` only,
    // never its `tool_calls`: a model behind it never sees its own earlier
    // calls. A limit of the template.
    (
        "ibm-granite-granite-3.3-2B-Instruct",
        Some("granite"),
        &[
            (
                "round trip get_current_temperature",
                &["the chat template does not write an assistant's tool calls"],
            ),
            (
                "round trip calculate",
                &["the chat template does not write an assistant's tool calls"],
            ),
        ],
    ),
];

#[test]
fn every_fixture_template_passes_or_fails_as_recorded() {
    let Some(templates) = fixtures::dir("chat-templates") else {
        return;
    };
    let templates = templates.join("templates");
    let dir = tempfile::tempdir().unwrap();
    // Room for the longest system prompts in the tiny tokenizer's tokens.
    tiny_qwen2(dir.path(), 32768);
    let model = dir.path().to_str().unwrap();
    let mut names: Vec<String> = std::fs::read_dir(&templates)
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".jinja"))
        .collect();
    names.sort();
    let passing = PASSING
        .iter()
        .map(|&(name, format)| (name, Some(format), &[] as Failing));
    let expected: Vec<(&str, Option<&str>, Failing)> =
        passing.chain(FAILING.iter().copied()).collect();
    let mut recorded: Vec<String> = expected.iter().map(|e| format!("{}.jinja", e.0)).collect();
    recorded.sort();
    assert_eq!(names, recorded, "the fixture templates against the tables");
    let mut wrong = Vec::new();
    for (name, format, failing) in expected {
        let path = templates.join(format!("{name}.jinja"));
        let (ok, report) =
            doctor_json(&["--model", model, "--chat-template", path.to_str().unwrap()]);
        let got_format = report["tool_format"]["id"].as_str();
        if got_format != format {
            wrong.push(format!(
                "{name}: format {got_format:?}, expected {format:?}"
            ));
        }
        let failed = failures(&report);
        if ok != failing.is_empty() || report["ok"] != failing.is_empty() {
            wrong.push(format!("{name}: ok = {ok}, failures {failed:?}"));
        }
        let matches = failed.len() == failing.len()
            && failed
                .iter()
                .zip(failing.iter())
                .all(|(got, (check, reasons))| {
                    got.starts_with(&format!("{check}: "))
                        && reasons.iter().all(|r| got.contains(r))
                });
        if !matches {
            wrong.push(format!("{name}: failures {failed:?}, expected {failing:?}"));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

/// A stdio MCP server with one tool the bundled model was never trained on,
/// in Python's standard library only.
const NOTES_SERVER: &str = r#"
import json, sys
for line in sys.stdin:
    msg = json.loads(line)
    method, id = msg.get("method"), msg.get("id")
    if id is None:
        continue
    if method == "initialize":
        result = {"protocolVersion": msg["params"]["protocolVersion"],
                  "capabilities": {"tools": {}},
                  "serverInfo": {"name": "notes", "version": "0.1.0"}}
    elif method == "tools/list":
        result = {"tools": [{"name": "add_note", "description": "Add a note.",
                  "inputSchema": {"type": "object",
                                  "properties": {"text": {"type": "string"}},
                                  "required": ["text"]}}]}
    elif method == "tools/call":
        result = {"content": [{"type": "text", "text": "1"}], "isError": False}
    else:
        result = {}
    print(json.dumps({"jsonrpc": "2.0", "id": id, "result": result}), flush=True)
"#;

#[test]
fn chat_says_once_that_the_bundled_model_knows_only_the_demo_tools() {
    if std::process::Command::new("python3")
        .arg("--version")
        .output()
        .is_err()
    {
        eprintln!("skipped: no python3 to serve an MCP tool");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let server = dir.path().join("notes.py");
    std::fs::write(&server, NOTES_SERVER).unwrap();
    // `tool-use chat` with these arguments, answering in a few tokens
    // without a call: its stderr, after checking that it succeeded.
    let chat = |args: &[&str]| {
        let out = tool_use()
            .args([
                "chat",
                "--json",
                "--tool-choice",
                "none",
                "--max-tokens",
                "8",
            ])
            .args(args)
            .env_remove("TOOL_USE_MODEL")
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
        assert!(out.status.success(), "{stderr}");
        stderr
    };
    let notes = format!("python3 {}", server.display());
    let stderr = chat(&["--mcp", &notes, "Add a note: buy milk."]);
    let note = "note: the bundled model knows only the demo tools, not add_note: for your own \
                tools, name a model trained to call any tool with --model hf:ORG/REPO[:QUANT]";
    assert_eq!(stderr.matches(note).count(), 1, "{stderr}");
    assert!(stderr.contains("docs/src/choosing-a-model.md"), "{stderr}");

    // The demo tools over MCP are the bundled model's own: no note.
    let demo = format!("{} mcp", env!("CARGO_BIN_EXE_tool-use"));
    let stderr = chat(&["--mcp-only", "--mcp", &demo, "What is 2 plus 2?"]);
    assert!(!stderr.contains("knows only the demo tools"), "{stderr}");
}
