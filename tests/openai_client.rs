//! The official OpenAI Python client (PyPI `openai`) against `tool-use
//! serve`, started as a user starts it: tests/openai_client.py runs every
//! check.

mod python;

#[test]
fn the_openai_python_client_works_against_tool_use_serve() {
    python::check_client_against_serve("openai", "openai_client.py", |url| url);
}
