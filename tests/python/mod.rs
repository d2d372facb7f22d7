//! Running the project's command as a user does and a Python client against
//! it. The Python comes from `$TOOL_USE_PYTHON`; without one that can import
//! the client's package the test says so and passes, unless
//! `TOOL_USE_REQUIRE_PYTHON_CLIENTS=1` (CI) makes that a failure.

#[path = "../../tool-models/tests/common/python.rs"]
mod interpreter;

pub use interpreter::python_with;
use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};

/// Kills the process however the test ends.
pub struct Running(pub Child);

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Starts `tool-use ARGS` and reads the URL it prints (`listening on URL`).
pub fn start_listening(args: &[&str], env: &[(&str, &str)]) -> (Running, String) {
    let mut command = Command::new(env!("CARGO_BIN_EXE_tool-use"));
    command
        .args(args)
        .env_remove("TOOL_USE_MODEL")
        .stderr(Stdio::inherit());
    for (k, v) in env {
        command.env(k, v);
    }
    listen(command)
}

/// Starts `command`, a server that first prints `listening on URL` on
/// stdout, and reads that URL.
pub fn listen(mut command: Command) -> (Running, String) {
    let mut child = command.stdout(Stdio::piped()).spawn().unwrap();
    let stdout = child.stdout.take().unwrap();
    let running = Running(child);
    let mut line = String::new();
    BufReader::new(stdout).read_line(&mut line).unwrap();
    let url = line
        .trim()
        .strip_prefix("listening on ")
        .unwrap_or_else(|| panic!("unexpected first line: {line:?}"))
        .to_owned();
    (running, url)
}

/// Runs `python tests/SCRIPT ARGS`; its stdout, after asserting it succeeded.
pub fn run_script(python: &str, script: &str, args: &[&str]) -> String {
    let path = format!("{}/tests/{script}", env!("CARGO_MANIFEST_DIR"));
    let out = Command::new(python).arg(path).args(args).output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    stdout
}

/// Runs the Python client script `tests/SCRIPT` (it needs the package
/// `package`) against `tool-use serve`, started as a user starts it with an
/// API key: the script gets `base(url)` and that key, and must print `ok: …`.
/// Passes without checking anything where no Python has `package`.
#[allow(dead_code)] // Only the client tests run a client against the server.
pub fn check_client_against_serve(package: &str, script: &str, base: fn(&str) -> &str) {
    let Some(python) = python_with(package) else {
        return;
    };
    let (server, url) = start_listening(
        &["serve", "--port", "0", "--api-key-env", "TOOL_USE_TEST_KEY"],
        &[("TOOL_USE_TEST_KEY", "sk-local-test")],
    );
    let stdout = run_script(&python, script, &[base(&url), "sk-local-test"]);
    drop(server);
    assert!(stdout.starts_with("ok: "), "{stdout}");
    println!("{stdout}");
}
