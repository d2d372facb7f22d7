//! The official MCP Python SDK (PyPI `mcp`, 2.x) as the client of `tool-use
//! mcp`, over stdio and over streamable HTTP: tests/mcp_client.py runs every
//! check (listing, schemas, calls, failures as `isError`, an unknown tool as a
//! protocol error, concurrent calls).

mod python;

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
