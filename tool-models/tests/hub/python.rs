//! Python's huggingface_hub, from `$TOOL_USE_PYTHON`: without one that can
//! import it the test says so and passes, unless
//! `TOOL_USE_REQUIRE_PYTHON_CLIENTS=1` (CI) makes that a failure.

#[path = "../common/python.rs"]
mod interpreter;

pub use interpreter::python_with;
use std::process::Command;
use std::time::{Duration, Instant};

/// Runs `python -c CODE ARGS` with `env`; its stdout, trimmed, after
/// asserting it succeeded.
pub fn run(python: &str, code: &str, args: &[&str], env: &[(&str, &str)]) -> String {
    let mut command = Command::new(python);
    command.arg("-c").arg(code).args(args);
    for var in [
        "HF_TOKEN",
        "HF_HUB_OFFLINE",
        "HF_HUB_CACHE",
        "HF_ENDPOINT",
        "HF_HOME",
    ] {
        command.env_remove(var);
    }
    command.env("HF_HUB_DISABLE_PROGRESS_BARS", "1");
    command.env("HF_HUB_DISABLE_TELEMETRY", "1");
    for (k, v) in env {
        command.env(k, v);
    }
    // Bounded in time: the output goes to files while the process is polled.
    let dir = tempfile::tempdir().unwrap();
    let (out_path, err_path) = (dir.path().join("out"), dir.path().join("err"));
    command
        .stdout(std::fs::File::create(&out_path).unwrap())
        .stderr(std::fs::File::create(&err_path).unwrap());
    let mut child = command.spawn().unwrap();
    let start = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if start.elapsed() > Duration::from_secs(120) {
            let _ = child.kill();
            let _ = child.wait();
            panic!(
                "python ran over 120 s: {}",
                std::fs::read_to_string(&err_path).unwrap_or_default()
            );
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let stdout = std::fs::read_to_string(&out_path)
        .unwrap()
        .trim()
        .to_owned();
    let stderr = std::fs::read_to_string(&err_path).unwrap();
    assert!(status.success(), "{stdout}{stderr}");
    stdout
}
