//! How `tool-use eval bfcl` drives a multi-turn case, on BFCL's real data
//! and tool classes with scripted models: a model that never stops calling
//! is ended by BFCL's step limit, a call the classes cannot run is answered
//! with Python's error, held-out functions arrive at their turn with BFCL's
//! words, and a Python process that hangs or dies fails its case with the
//! reason while the run goes on.
//!
//! Needs `$TOOL_USE_PYTHON` with `bfcl_eval` and `mpmath`; without them the
//! tests say so and pass, unless `TOOL_USE_REQUIRE_PYTHON_CLIENTS=1`.

// Only `python_with` is used here.
#[allow(dead_code)]
mod python;
// Only `eval_bfcl` is used here.
#[allow(dead_code)]
#[path = "common/cli.rs"]
mod cli;

use cli::eval_bfcl;

use serde_json::{json, Value};
use tool_use::chat::ScriptedChat;
use tool_use::chat::TurnRequest;
use tool_use::eval::{self, Case, Category, RunOptions};
use tool_use::parse::Format;
use tool_use::{Message, Role};

fn call(name: &str, arguments: Value) -> String {
    format!(
        "<tool_call>\n{}\n</tool_call>",
        json!({"name": name, "arguments": arguments})
    )
}

fn case(category: Category, id: &str) -> Option<Case> {
    python::python_with("bfcl_eval")?;
    let data = eval::find_data(None).unwrap();
    let cases = eval::load_category(&data, category).unwrap();
    Some(cases.into_iter().find(|c| c.id == id).unwrap())
}

#[test]
fn a_model_that_never_stops_calling_is_ended_by_bfcls_step_limit() {
    let Some(case) = case(Category::MultiTurnBase, "multi_turn_base_0") else {
        return;
    };
    let mut model = ScriptedChat::new(Format::Hermes, |_| call("pwd", json!({})));
    let result = eval::evaluate(&case, &mut model, &RunOptions::default());
    assert!(!result.valid);
    assert_eq!(
        result.error_type.as_deref(),
        Some("multi_turn:force_terminated")
    );
    assert_eq!(result.engine_error, None);
    // BFCL runs the step that passes the limit, then quits the whole
    // conversation: one turn of 21 steps, 21 requests.
    assert_eq!(result.turns.len(), 1);
    assert_eq!(result.turns[0].steps.len(), eval::STEP_LIMIT + 1);
    assert_eq!(model.asked().len(), eval::STEP_LIMIT + 1);
    let step = &result.turns[0].steps[0];
    assert_eq!(step.calls, ["pwd()"]);
    assert_eq!(
        step.results,
        [r#"{"current_working_directory": "/workspace"}"#]
    );
}

#[test]
fn calls_the_classes_cannot_run_are_answered_with_pythons_error_and_the_run_goes_on() {
    let Some(case) = case(Category::MultiTurnBase, "multi_turn_base_0") else {
        return;
    };
    let mut model = ScriptedChat::new(Format::Hermes, |request: &TurnRequest<'_>| {
        match request.messages.last().map(|m| m.role) {
            Some(Role::User) => [
                // A required argument missing, a function BFCL does not
                // have, and one that works: all three run (the one no
                // class has last: its NameError changes nothing).
                call("cd", json!({})),
                call("no_such_function", json!({"x": 1})),
                call("cd", json!({"folder": "document"})),
            ]
            .concat(),
            _ => "Done.".to_owned(),
        }
    });
    let result = eval::evaluate(&case, &mut model, &RunOptions::default());
    assert_eq!(result.engine_error, None, "{:?}", result.errors);
    let turns = case.multi_turn.as_ref().unwrap().turns.len();
    assert_eq!(result.turns.len(), turns);
    let step = &result.turns[0].steps[0];
    assert_eq!(
        step.calls,
        ["cd()", "cd(folder='document')", "no_such_function(x=1)"]
    );
    assert!(
        step.results[0].starts_with("Error during execution: ")
            && step.results[0].contains("folder"),
        "{:?}",
        step.results
    );
    assert!(
        step.results[2].starts_with("Error during execution: name 'no_such_function'"),
        "{:?}",
        step.results
    );
    assert_eq!(
        step.results[1],
        r#"{"current_working_directory": "document"}"#
    );
    // The model reads the three results, each answering its call.
    let second = &model.asked()[1].messages;
    let answered: Vec<&str> = (second.iter())
        .filter(|m| m.role == Role::Tool)
        .map(Message::text)
        .collect();
    assert_eq!(answered, step.results);
    assert_eq!(result.turns[0].last, "Done.");
    // The second turn runs in the directory the first one left: state
    // carries over between turns.
    assert_eq!(
        result.turns[1].steps[0].results[1],
        r#"{"error": "cd: 'document': No such file or directory"}"#
    );
    assert!(!result.valid);
}

#[test]
fn held_out_functions_arrive_at_their_turn_with_bfcls_words() {
    let Some(case) = case(Category::MultiTurnMissFunc, "multi_turn_miss_func_0") else {
        return;
    };
    let multi_turn = case.multi_turn.clone().unwrap();
    let (&turn, (_, held)) = multi_turn.held_out.iter().next().unwrap();
    let held: Vec<String> = held.iter().map(|t| t.name().to_owned()).collect();
    let mut model = ScriptedChat::new(Format::Hermes, |_| "I cannot do that.".to_owned());
    let result = eval::evaluate(&case, &mut model, &RunOptions::default());
    assert_eq!(result.turns.len(), multi_turn.turns.len());
    // One request per turn, the model never calling.
    assert_eq!(model.asked().len(), multi_turn.turns.len());
    for (index, asked) in model.asked().iter().enumerate() {
        let tools = asked.tool_names();
        for name in &held {
            assert_eq!(
                tools.contains(&name.as_str()),
                index >= turn,
                "turn {index}: {tools:?}"
            );
        }
    }
    let asked = &model.asked()[turn].messages;
    assert_eq!(asked.last().unwrap().text(), eval::MORE_FUNCTIONS_PROMPT);
    assert_eq!(
        result.error_type.as_deref(),
        Some("multi_turn:empty_turn_model_response")
    );
}

/// A stand-in for Python that runs the real one on a script of ours: it
/// loads the classes (so the run starts) and then, at a case, `then`.
fn fake_python(dir: &std::path::Path, then: &str) -> std::path::PathBuf {
    let real = python::python_with("bfcl_eval").unwrap();
    let script = dir.join("fake.py");
    std::fs::write(
        &script,
        format!(
            "import json, sys, time\n\
             for line in sys.stdin:\n\
             \x20   if json.loads(line)['op'] == 'import':\n\
             \x20       print(json.dumps({{'ok': True}}), flush=True)\n\
             \x20   else:\n\
             \x20       {then}\n"
        ),
    )
    .unwrap();
    let path = dir.join("python");
    std::fs::write(
        &path,
        format!("#!/bin/sh\nexec {real} {}\n", script.display()),
    )
    .unwrap();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    path
}

#[test]
fn a_python_process_that_hangs_or_dies_fails_its_case_and_the_run_goes_on() {
    let Some(_) = case(Category::MultiTurnBase, "multi_turn_base_0") else {
        return;
    };
    let data = eval::find_data(None).unwrap();
    let dir = tempfile::tempdir().unwrap();
    for (then, reason) in [
        ("time.sleep(60)", " 2 s"),
        (
            "sys.stderr.write('the classes fell over\\n'); sys.exit(3)",
            "the classes fell over",
        ),
    ] {
        let python = fake_python(dir.path(), then);
        let json_path = dir.path().join("report.json");
        let out = eval_bfcl(&data)
            .args(["--categories", "multi_turn_base", "--limit", "2"])
            .args(["--case-timeout", "2", "--json"])
            .arg(&json_path)
            .env("TOOL_USE_PYTHON", &python)
            .env_remove("TOOL_USE_MODEL")
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "{stderr}");
        let report: Value =
            serde_json::from_str(&std::fs::read_to_string(&json_path).unwrap()).unwrap();
        let cases = report["cases"].as_array().unwrap();
        // Both cases ran, each failing with the reason: the second got a
        // process of its own.
        assert_eq!(cases.len(), 2, "{stderr}");
        for case in cases {
            let error = case["engine_error"].as_str().unwrap_or_default();
            assert!(error.contains(reason), "{then}: {error}");
        }
    }
}

#[test]
fn without_bfcls_classes_the_run_is_refused_saying_what_to_install() {
    let Some(_) = case(Category::MultiTurnBase, "multi_turn_base_0") else {
        return;
    };
    let data = eval::find_data(None).unwrap();
    let out = eval_bfcl(&data)
        .args(["--categories", "multi_turn", "--limit", "1"])
        .env("TOOL_USE_PYTHON", "/nonexistent/python3")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(
        stderr.contains("/nonexistent/python3") && stderr.contains("tool classes"),
        "{stderr}"
    );
}
