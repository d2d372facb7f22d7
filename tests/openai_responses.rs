//! The official OpenAI Python client's Responses API (`client.responses`)
//! against `tool-use serve`, started as a user starts it:
//! tests/openai_responses.py runs every check (among them `allowed_tools`
//! in `required` and `auto` mode, streamed and not, on the bundled model).

mod python;

#[test]
fn the_openai_python_clients_responses_api_works_against_tool_use_serve() {
    let Some(python) = python::python_with("openai") else {
        return;
    };
    let (server, url) = python::start_listening(
        &["serve", "--port", "0", "--api-key-env", "TOOL_USE_TEST_KEY"],
        &[("TOOL_USE_TEST_KEY", "sk-local-test")],
    );
    let stdout = python::run_script(&python, "openai_responses.py", &[&url, "sk-local-test"]);
    drop(server);
    assert!(stdout.starts_with("ok: "), "{stdout}");
    println!("{stdout}");
}
