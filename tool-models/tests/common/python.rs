//! Finding the Python the tests check against: `$TOOL_USE_PYTHON` (or
//! `python3`). Without one that can import the package a test needs, the
//! test says so and passes, unless `TOOL_USE_REQUIRE_PYTHON_CLIENTS=1` (CI)
//! makes that a failure.
//!
//! Shared by the workspace's tests and tool-models' (`#[path]`).

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// `$TOOL_USE_PYTHON` (or `python3`); a relative path is taken from the
/// workspace's root, where CI names it, when it is not found from here (a
/// member crate's tests run in the member's directory).
fn python() -> String {
    let python = std::env::var("TOOL_USE_PYTHON").unwrap_or_else(|_| "python3".into());
    let path = PathBuf::from(&python);
    if path.is_relative() && path.components().count() > 1 && !path.exists() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR"))
            .ancestors()
            .find(|dir| dir.join("Cargo.lock").exists());
        if let Some(found) = root.map(|root| root.join(&path)).filter(|p| p.exists()) {
            return found.to_string_lossy().into_owned();
        }
    }
    python
}

/// A Python that can import `module`, or why not (and the test skips).
pub fn python_with(module: &str) -> Option<String> {
    let python = python();
    let ok = Command::new(&python)
        .args(["-c", &format!("import {module}")])
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    if ok {
        return Some(python);
    }
    let why = format!("`{python}` cannot import {module} (set TOOL_USE_PYTHON)");
    assert!(
        std::env::var_os("TOOL_USE_REQUIRE_PYTHON_CLIENTS").is_none(),
        "{why}"
    );
    eprintln!("skipped: {why}");
    None
}
