//! The official Anthropic Python SDK (PyPI `anthropic`) against `tool-use
//! serve`, started as a user starts it: tests/anthropic_client.py runs
//! every check.

mod python;

#[test]
fn the_anthropic_python_sdk_works_against_tool_use_serve() {
    let Some(python) = python::python_with("anthropic") else {
        return;
    };
    let (server, url) = python::start_listening(
        &["serve", "--port", "0", "--api-key-env", "TOOL_USE_TEST_KEY"],
        &[("TOOL_USE_TEST_KEY", "sk-local-test")],
    );
    // The SDK adds `/v1/messages` to its base URL itself.
    let base = url.strip_suffix("/v1").unwrap_or(&url);
    let stdout = python::run_script(&python, "anthropic_client.py", &[base, "sk-local-test"]);
    drop(server);
    assert!(stdout.starts_with("ok: "), "{stdout}");
    println!("{stdout}");
}
