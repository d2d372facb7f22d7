//! Where the shared fixtures are, for every test and bench that reads them.
//!
//! The fixtures (`schema/`, `chat-templates/`, `tool-call-parsing/`) are not
//! part of this repository: they are the project's shared material, laid
//! beside the checkout as `../shared/fixtures`. A plain clone has no such
//! folder, and its `cargo test` must still pass, so a test whose fixtures are
//! missing says so and passes without checking anything. CI sets
//! `TOOL_USE_FIXTURES`, and then a missing folder is a failure, not a skip.
//!
//! Included with `#[path]` by the root package's tests and benches and by
//! tool-models' tests, so there is one rule for all of them.

#![allow(dead_code)]

use std::path::PathBuf;

/// The variable that names the fixtures folder, and makes it required.
pub const VARIABLE: &str = "TOOL_USE_FIXTURES";

/// The fixtures' `sub` folder (`chat-templates`, `schema`,
/// `tool-call-parsing`): under `$TOOL_USE_FIXTURES` when it is set (and
/// then it must exist: this panics otherwise), else under
/// `../shared/fixtures` beside the workspace; `None`, with a message on
/// stderr, when neither has it.
pub fn dir(sub: &str) -> Option<PathBuf> {
    if let Some(root) = std::env::var_os(VARIABLE).filter(|v| !v.is_empty()) {
        let dir = PathBuf::from(root).join(sub);
        assert!(
            dir.is_dir(),
            "{VARIABLE} is set but {} is not a folder: set it to the shared fixtures \
             (the folder holding {sub}/), or unset it to skip these tests",
            dir.display()
        );
        return Some(dir);
    }
    let dir = workspace().join("../shared/fixtures").join(sub);
    if dir.is_dir() {
        return Some(dir);
    }
    eprintln!(
        "skipped: the shared fixtures are not at {} (they are the project's shared \
         material, laid beside the checkout as ../shared/fixtures; or point {VARIABLE} \
         at a copy)",
        dir.display()
    );
    None
}

/// The file `name` in the fixtures' `sub` folder, when the folder is there
/// (see [`dir`]); a missing file in a present folder is the test's failure.
pub fn file(sub: &str, name: &str) -> Option<PathBuf> {
    dir(sub).map(|d| d.join(name))
}

/// The workspace root: the nearest folder upwards from the package being
/// tested that holds this file (tool-models' tests include it from there).
fn workspace() -> PathBuf {
    let package = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    package
        .ancestors()
        .find(|a| a.join("tests/common/fixtures.rs").is_file())
        .map(PathBuf::from)
        .unwrap_or(package)
}
