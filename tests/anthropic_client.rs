//! The official Anthropic Python SDK (PyPI `anthropic`) against `tool-use
//! serve`, started as a user starts it: tests/anthropic_client.py runs
//! every check.

mod python;

#[test]
fn the_anthropic_python_sdk_works_against_tool_use_serve() {
    // The SDK adds `/v1/messages` to its base URL itself.
    python::check_client_against_serve("anthropic", "anthropic_client.py", |url| {
        url.strip_suffix("/v1").unwrap_or(url)
    });
}
