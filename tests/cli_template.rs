//! `tool-use template render`, run as a user runs it.

#[path = "common/cli.rs"]
mod cli;
#[path = "common/fixtures.rs"]
mod fixtures;

use cli::{failed, succeeded, tool_use};
use std::io::Write;
use std::path::Path;
use std::process::{Output, Stdio};

fn run(args: &[&str], stdin: &str) -> Output {
    let mut child = tool_use()
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the tool-use binary runs");
    // The command may exit before reading stdin (a bad argument): ignore EPIPE.
    let _ = child
        .stdin
        .take()
        .expect("stdin")
        .write_all(stdin.as_bytes());
    child.wait_with_output().expect("it finishes")
}

/// A path as a command-line argument.
fn path(p: &Path) -> String {
    p.to_str().expect("a UTF-8 path").to_owned()
}

/// A fixture template's path, and the `kwargs` and `expected` of its case
/// `name`; `None` (the test passes without checking) without the fixtures.
fn case(template: &str, name: &str) -> Option<(String, String, String)> {
    let fixtures = fixtures::dir("chat-templates")?;
    let cases = std::fs::read_to_string(fixtures.join("cases.jsonl")).expect("fixtures");
    let case: serde_json::Value = cases
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .find(|c| c["template"] == template && c["case"] == name)
        .expect("the case");
    Some((
        path(&fixtures.join("templates").join(template)),
        case["kwargs"].to_string(),
        case["expected"].as_str().unwrap_or_default().to_owned(),
    ))
}

#[test]
fn renders_a_fixture_exactly_from_stdin_and_from_a_file() {
    let name = "meta-llama-Llama-3.1-8B-Instruct.jinja";
    let Some((template, kwargs, expected)) = case(name, "tool_round_trip") else {
        return;
    };
    let args = [
        "template",
        "render",
        "--template",
        &template,
        "--now",
        "2026-01-15T10:30:00",
    ];
    let out = run(&args, &kwargs);
    assert_eq!(String::from_utf8(succeeded(out)).unwrap(), expected);

    let input = std::env::temp_dir().join(format!("cli-template-{}.json", std::process::id()));
    std::fs::write(&input, &kwargs).unwrap();
    let mut with_file = args.to_vec();
    let input_str = input.to_str().unwrap();
    with_file.extend(["--input", input_str]);
    let out = run(&with_file, "");
    let _ = std::fs::remove_file(&input);
    assert_eq!(String::from_utf8(succeeded(out)).unwrap(), expected);
}

#[test]
fn a_template_error_exits_non_zero_with_the_message() {
    let Some((template, kwargs, _)) = case("google-gemma-2-2b-it.jinja", "plain") else {
        return;
    };
    let out = run(
        &[
            "template",
            "render",
            "--template",
            &template,
            "--input",
            "-",
        ],
        &kwargs,
    );
    assert!(out.stdout.is_empty());
    let stderr = failed(out);
    assert!(stderr.contains("System role not supported"), "{stderr}");
}

#[test]
fn bad_arguments_are_reported() {
    let out = run(
        &["template", "render", "--template", "/nonexistent/x.jinja"],
        "{}",
    );
    assert!(failed(out).contains("/nonexistent/x.jinja"));
    let Some(fixtures) = fixtures::dir("chat-templates") else {
        return;
    };
    let template = path(&fixtures.join("templates/Qwen-Qwen2.5-7B-Instruct.jinja"));
    let out = run(&["template", "render", "--template", &template], "[1, 2]");
    assert!(failed(out).contains("JSON object"));
    let out = run(
        &[
            "template",
            "render",
            "--template",
            &template,
            "--now",
            "soon",
        ],
        "{}",
    );
    assert!(!out.status.success());
}
