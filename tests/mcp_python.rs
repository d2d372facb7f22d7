//! The official MCP Python SDK (PyPI `mcp`, 2.x) as the client of `tool-use
//! mcp`, over stdio and over streamable HTTP: tests/mcp_client.py runs every
//! check (listing, schemas, calls, failures as `isError`, an unknown tool as a
//! protocol error, concurrent calls); against examples/mcp_server.rs,
//! tests/mcp_example.py checks that `countdown`'s progress reaches the
//! client with its token, that a cancelled `countdown` stops (the
//! server's log shows the tool saw the cancel), that `text_stats`
//! has an `outputSchema` and answers with `structuredContent`, and that a
//! tool added while the server runs is announced
//! (`notifications/tools/list_changed`), listed and called.

mod python;

use std::io::Read;
use std::path::PathBuf;
use std::process::{Command, Stdio};

#[test]
fn the_mcp_python_sdk_works_over_stdio() {
    let Some(python) = python::python_with("mcp") else {
        return;
    };
    let stdout = python::run_script(
        &python,
        "mcp_client.py",
        &["stdio", env!("CARGO_BIN_EXE_tool-use")],
    );
    assert!(stdout.contains("\nok 26 checks"), "{stdout}");
}

#[test]
fn the_mcp_python_sdk_works_over_http() {
    let Some(python) = python::python_with("mcp") else {
        return;
    };
    let (server, url) = python::start_listening(&["mcp", "--http", "127.0.0.1:0"], &[]);
    let stdout = python::run_script(&python, "mcp_client.py", &["http", &url]);
    drop(server);
    assert!(stdout.contains("\nok 26 checks"), "{stdout}");
}

/// The example, which `cargo test` builds beside the tests (a run filtered
/// to this test builds no examples: `cargo build --example mcp_server`).
fn example() -> PathBuf {
    let deps = std::env::current_exe().unwrap();
    let profile = deps.parent().and_then(|d| d.parent()).unwrap();
    let path = profile.join("examples").join("mcp_server");
    assert!(path.exists(), "{} is not built", path.display());
    path
}

/// What the example logs when a cancelled countdown stops.
const STOPPED: &str = "countdown: cancelled after ";

#[test]
fn progress_cancellation_structured_results_and_list_changes_over_stdio() {
    let Some(python) = python::python_with("mcp") else {
        return;
    };
    let script = format!("{}/tests/mcp_example.py", env!("CARGO_MANIFEST_DIR"));
    let example = example();
    let out = Command::new(&python)
        .arg(script)
        .args(["stdio", example.to_str().unwrap()])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    // The SDK passes the server's stderr on as its own.
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stdout}{stderr}");
    assert!(stdout.contains("\nok 17 checks"), "{stdout}");
    assert!(stderr.contains(STOPPED), "{stderr}");
}

#[test]
fn progress_cancellation_structured_results_and_list_changes_over_http() {
    let Some(python) = python::python_with("mcp") else {
        return;
    };
    let mut command = Command::new(example());
    command
        .args(["--http", "127.0.0.1:0"])
        .stderr(Stdio::piped());
    let (mut server, url) = python::listen(command);
    let mut log = server.0.stderr.take().unwrap();
    let out = python::run_script(&python, "mcp_example.py", &["http", &url]);
    assert!(out.contains("\nok 17 checks"), "{out}");
    drop(server);
    let mut logged = String::new();
    log.read_to_string(&mut logged).unwrap();
    assert!(logged.contains(STOPPED), "{logged}");
}
