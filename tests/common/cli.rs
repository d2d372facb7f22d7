//! The `tool-use` command as the CLI tests run it.

use std::path::Path;
use std::process::{Command, Output};

/// `tool-use`, as built for these tests.
pub fn tool_use() -> Command {
    Command::new(env!("CARGO_BIN_EXE_tool-use"))
}

/// `tool-use eval bfcl --data DATA`, for a BFCL test to add its options to.
#[allow(dead_code)] // Only the BFCL tests evaluate.
pub fn eval_bfcl(data: &Path) -> Command {
    let mut command = tool_use();
    command.args(["eval", "bfcl", "--data"]).arg(data);
    command
}

/// The stdout of a run that must succeed (else the test fails with its
/// stderr).
pub fn succeeded(out: Output) -> Vec<u8> {
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    out.stdout
}

/// The stderr of a run that must fail.
pub fn failed(out: Output) -> String {
    assert!(!out.status.success());
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// Runs `tool-use` with `args`, which must fail with `message` in its
/// stderr.
#[allow(dead_code)] // `cli_template` runs its failures with stdin instead
#[track_caller]
pub fn fails_with(args: &[&str], message: &str) {
    let stderr = failed(tool_use().args(args).output().unwrap());
    assert!(stderr.contains(message), "{stderr}");
}
