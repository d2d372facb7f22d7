//! The official OpenAI Python client (PyPI `openai`) against `tool-use
//! serve`, started as a user starts it: tests/openai_client.py runs every
//! check. The Python comes from `$TOOL_USE_PYTHON`; without one that can
//! import `openai` the test says so and passes, unless
//! `TOOL_USE_REQUIRE_PYTHON_CLIENTS=1` (CI) makes that a failure.

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};

/// Kills the server however the test ends.
struct Running(Child);

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn python() -> Option<String> {
    let python = std::env::var("TOOL_USE_PYTHON").unwrap_or_else(|_| "python3".into());
    let ok = Command::new(&python)
        .args(["-c", "import openai"])
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    if ok {
        return Some(python);
    }
    let why = format!("`{python}` cannot import openai (set TOOL_USE_PYTHON)");
    assert!(
        std::env::var_os("TOOL_USE_REQUIRE_PYTHON_CLIENTS").is_none(),
        "{why}"
    );
    eprintln!("skipped: {why}");
    None
}

#[test]
fn the_openai_python_client_works_against_tool_use_serve() {
    let Some(python) = python() else {
        return;
    };
    let mut child = Command::new(env!("CARGO_BIN_EXE_tool-use"))
        .args(["serve", "--port", "0", "--api-key-env", "TOOL_USE_TEST_KEY"])
        .env("TOOL_USE_TEST_KEY", "sk-local-test")
        .env_remove("TOOL_USE_MODEL")
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .unwrap();
    let stdout = child.stdout.take().unwrap();
    let server = Running(child);
    let mut line = String::new();
    BufReader::new(stdout).read_line(&mut line).unwrap();
    let url = line
        .trim()
        .strip_prefix("listening on ")
        .unwrap_or_else(|| panic!("unexpected first line: {line:?}"))
        .to_owned();
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/openai_client.py");
    let out = Command::new(python)
        .args([script, &url, "sk-local-test"])
        .output()
        .unwrap();
    drop(server);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(stdout.starts_with("ok: "), "{stdout}");
    println!("{stdout}");
}
