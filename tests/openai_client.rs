//! The official OpenAI Python client (PyPI `openai`) against `tool-use
//! serve`, started as a user starts it: tests/openai_client.py runs every
//! check.

mod python;

#[test]
fn the_openai_python_client_works_against_tool_use_serve() {
    let Some(python) = python::python_with("openai") else {
        return;
    };
    let (server, url) = python::start_listening(
        &["serve", "--port", "0", "--api-key-env", "TOOL_USE_TEST_KEY"],
        &[("TOOL_USE_TEST_KEY", "sk-local-test")],
    );
    let stdout = python::run_script(&python, "openai_client.py", &[&url, "sk-local-test"]);
    drop(server);
    assert!(stdout.starts_with("ok: "), "{stdout}");
    println!("{stdout}");
}
