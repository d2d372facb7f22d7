//! The official OpenAI Python client's Responses API (`client.responses`)
//! against `tool-use serve`, started as a user starts it:
//! tests/openai_responses.py runs every check (among them `allowed_tools`
//! in `required` and `auto` mode, streamed and not, on the bundled model).

mod python;

#[test]
fn the_openai_python_clients_responses_api_works_against_tool_use_serve() {
    python::check_client_against_serve("openai", "openai_responses.py", |url| url);
}
