//! A local mirror of the Hugging Face Hub for the tests: a small HTTP/1.1
//! server on 127.0.0.1 (port 0) serving `ROOT/ORG/REPO/…` as the Hub serves
//! repositories: `GET api/models/ORG/REPO[/revision/REV]`, and `HEAD`/`GET
//! ORG/REPO/resolve/REV/FILE` with `X-Repo-Commit`, `ETag` (a sha256 for
//! `.gguf` and `.safetensors` files, which redirect to `cdn/…` with
//! `X-Linked-Etag` and `X-Linked-Size` as LFS files do, to `localhost`,
//! another host as the Hub's storage is) and `Range`.
//!
//! Switches: cut the next N downloads after some bytes, announce a wrong
//! checksum, require a token. Every request is recorded.

use sha2::{Digest, Sha256};
use std::io::{BufRead, BufReader, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::Duration;

/// A request the mirror answered.
#[derive(Clone, Debug)]
pub struct Seen {
    pub method: String,
    pub path: String,
    pub range: Option<String>,
    pub authorization: Option<String>,
}

#[derive(Default)]
struct State {
    seen: Vec<Seen>,
    /// Cut the next `.1` downloads after `.0` bytes of body.
    cut: Option<(u64, usize)>,
    wrong_checksum: bool,
    token: Option<String>,
}

/// The running mirror; stops when dropped.
pub struct Mirror {
    pub url: String,
    root: PathBuf,
    state: Arc<Mutex<State>>,
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
}

impl Mirror {
    /// Serves the repositories under `root` (`root/ORG/REPO/FILE`).
    pub fn start(root: &Path) -> Mirror {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        listener.set_nonblocking(true).unwrap();
        let url = format!("http://{}", listener.local_addr().unwrap());
        let state = Arc::new(Mutex::new(State::default()));
        let stop = Arc::new(AtomicBool::new(false));
        let thread = {
            let (root, url, state, stop) =
                (root.to_owned(), url.clone(), state.clone(), stop.clone());
            std::thread::spawn(move || {
                let mut handlers = Vec::new();
                while !stop.load(Ordering::Relaxed) {
                    match listener.accept() {
                        Ok((stream, _)) => {
                            let (root, url, state) = (root.clone(), url.clone(), state.clone());
                            handlers.push(std::thread::spawn(move || {
                                let _ = serve(stream, &root, &url, &state);
                            }));
                        }
                        Err(_) => std::thread::sleep(Duration::from_millis(5)),
                    }
                }
                for handler in handlers {
                    let _ = handler.join();
                }
            })
        };
        Mirror {
            url,
            root: root.to_owned(),
            state,
            stop,
            thread: Some(thread),
        }
    }

    /// The folder of the repository `repo` (`ORG/REPO`), made if needed.
    pub fn repo_dir(&self, repo: &str) -> PathBuf {
        let dir = self.root.join(repo);
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    /// The commit the mirror reports for `repo`.
    pub fn commit(repo: &str) -> String {
        sha256_hex(repo.as_bytes())[..40].to_owned()
    }

    /// Cuts the next `times` downloads after `bytes` bytes of their body.
    pub fn cut_after(&self, bytes: u64, times: usize) {
        self.state.lock().unwrap().cut = Some((bytes, times));
    }

    /// Announces sha256s the files do not have.
    pub fn wrong_checksum(&self, on: bool) {
        self.state.lock().unwrap().wrong_checksum = on;
    }

    /// Refuses requests without `Authorization: Bearer TOKEN` (401).
    pub fn require_token(&self, token: Option<&str>) {
        self.state.lock().unwrap().token = token.map(str::to_owned);
    }

    /// The requests answered so far.
    pub fn seen(&self) -> Vec<Seen> {
        self.state.lock().unwrap().seen.clone()
    }
}

impl Drop for Mirror {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

pub fn sha256_hex(bytes: &[u8]) -> String {
    Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

fn is_lfs(file: &str) -> bool {
    file.ends_with(".gguf") || file.ends_with(".safetensors")
}

struct Request {
    method: String,
    path: String,
    range: Option<u64>,
}

fn read_request(stream: &TcpStream) -> std::io::Result<(Request, Seen)> {
    let mut reader = BufReader::new(stream.try_clone()?);
    let mut line = String::new();
    reader.read_line(&mut line)?;
    let mut parts = line.split_whitespace();
    let method = parts.next().unwrap_or_default().to_owned();
    let target = parts.next().unwrap_or_default();
    let path = percent_decode(target.split('?').next().unwrap_or_default());
    let (mut range, mut authorization) = (None, None);
    loop {
        let mut header = String::new();
        if reader.read_line(&mut header)? == 0 || header.trim().is_empty() {
            break;
        }
        if let Some((name, value)) = header.split_once(':') {
            let value = value.trim().to_owned();
            match name.trim().to_ascii_lowercase().as_str() {
                "range" => range = Some(value),
                "authorization" => authorization = Some(value),
                _ => {}
            }
        }
    }
    let start = range
        .as_deref()
        .and_then(|r| r.strip_prefix("bytes="))
        .and_then(|r| r.strip_suffix('-'))
        .and_then(|n| n.parse().ok());
    let seen = Seen {
        method: method.clone(),
        path: path.clone(),
        range,
        authorization,
    };
    Ok((
        Request {
            method,
            path,
            range: start,
        },
        seen,
    ))
}

fn percent_decode(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' && i + 2 < bytes.len() {
            if let Ok(b) = u8::from_str_radix(&text[i + 1..i + 3], 16) {
                out.push(b);
                i += 3;
                continue;
            }
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

struct Answer {
    status: u16,
    headers: Vec<(String, String)>,
    body: Vec<u8>,
    /// Bytes of body to send before closing (a cut download).
    cut: Option<u64>,
}

impl Answer {
    fn new(status: u16) -> Answer {
        Answer {
            status,
            headers: Vec::new(),
            body: Vec::new(),
            cut: None,
        }
    }

    fn header(mut self, name: &str, value: impl Into<String>) -> Answer {
        self.headers.push((name.to_owned(), value.into()));
        self
    }

    fn error(status: u16, code: &str, message: &str) -> Answer {
        let mut answer = Answer::new(status)
            .header("X-Error-Code", code)
            .header("Content-Type", "application/json");
        answer.body = format!("{{\"error\": \"{message}\"}}").into_bytes();
        answer
    }
}

fn serve(
    mut stream: TcpStream,
    root: &Path,
    url: &str,
    state: &Mutex<State>,
) -> std::io::Result<()> {
    stream.set_nonblocking(false)?;
    stream.set_read_timeout(Some(Duration::from_secs(10)))?;
    stream.set_write_timeout(Some(Duration::from_secs(10)))?;
    let (request, seen) = read_request(&stream)?;
    let answer = {
        let mut state = state.lock().unwrap();
        state.seen.push(seen.clone());
        answer(&request, &seen, root, url, &mut state)
    };
    let reason = match answer.status {
        200 => "OK",
        206 => "Partial Content",
        302 => "Found",
        401 => "Unauthorized",
        404 => "Not Found",
        416 => "Range Not Satisfiable",
        _ => "Other",
    };
    let mut head = format!("HTTP/1.1 {} {reason}\r\n", answer.status);
    for (name, value) in &answer.headers {
        head.push_str(&format!("{name}: {value}\r\n"));
    }
    head.push_str(&format!("Content-Length: {}\r\n", answer.body.len()));
    head.push_str("Connection: close\r\n\r\n");
    stream.write_all(head.as_bytes())?;
    if request.method != "HEAD" {
        let end = answer
            .cut
            .map_or(answer.body.len(), |n| (n as usize).min(answer.body.len()));
        stream.write_all(&answer.body[..end])?;
    }
    stream.flush()?;
    let _ = stream.shutdown(std::net::Shutdown::Write);
    Ok(())
}

fn answer(request: &Request, seen: &Seen, root: &Path, url: &str, state: &mut State) -> Answer {
    let path = request.path.trim_start_matches('/');
    let authorized = state
        .token
        .as_ref()
        .is_none_or(|t| seen.authorization.as_deref() == Some(&format!("Bearer {t}")));
    if let Some(rest) = path.strip_prefix("cdn/") {
        // Storage: no token needed, as the Hub's signed URLs.
        let parts: Vec<&str> = rest.splitn(3, '/').collect();
        if parts.len() < 3 {
            return Answer::error(404, "EntryNotFound", "no such file");
        }
        let file = root.join(parts[0]).join(parts[1]).join(parts[2]);
        return match std::fs::read(&file) {
            Ok(bytes) => content(request, bytes, state),
            Err(_) => Answer::error(404, "EntryNotFound", "no such file"),
        };
    }
    if !authorized {
        return Answer::error(401, "GatedRepo", "Access to this model is restricted");
    }
    if let Some(rest) = path.strip_prefix("api/models/") {
        let parts: Vec<&str> = rest.split('/').collect();
        let (org, name) = match parts.as_slice() {
            [org, name] | [org, name, "revision", _] => (*org, *name),
            _ => return Answer::error(404, "RepoNotFound", "Repository not found"),
        };
        let dir = root.join(org).join(name);
        if !dir.is_dir() {
            return Answer::error(404, "RepoNotFound", "Repository not found");
        }
        let repo = format!("{org}/{name}");
        let mut files = Vec::new();
        walk(&dir, "", &mut files);
        files.sort();
        let siblings: Vec<serde_json::Value> = files
            .iter()
            .map(|f| serde_json::json!({"rfilename": f}))
            .collect();
        let mut answer = Answer::new(200).header("Content-Type", "application/json");
        answer.body = serde_json::to_vec(&serde_json::json!({
            "id": repo,
            "modelId": repo,
            "sha": Mirror::commit(&repo),
            "siblings": siblings,
        }))
        .unwrap();
        return answer;
    }
    let parts: Vec<&str> = path.splitn(5, '/').collect();
    let [org, name, "resolve", revision, file] = parts.as_slice() else {
        return Answer::error(404, "RepoNotFound", "Repository not found");
    };
    let repo = format!("{org}/{name}");
    let dir = root.join(org).join(name);
    if !dir.is_dir() {
        return Answer::error(404, "RepoNotFound", "Repository not found");
    }
    let commit = Mirror::commit(&repo);
    if *revision != "main" && *revision != commit {
        return Answer::error(404, "RevisionNotFound", "Invalid rev id");
    }
    let Ok(bytes) = std::fs::read(dir.join(file)) else {
        return Answer::error(404, "EntryNotFound", "Entry not found");
    };
    if is_lfs(file) {
        let mut sha = sha256_hex(&bytes);
        if state.wrong_checksum {
            sha = sha256_hex(sha.as_bytes());
        }
        return Answer::new(302)
            // Another host, as the Hub's storage is: `localhost`.
            .header(
                "Location",
                format!(
                    "{}/cdn/{repo}/{file}",
                    url.replace("127.0.0.1", "localhost")
                ),
            )
            .header("X-Repo-Commit", commit)
            .header("X-Linked-Etag", format!("\"{sha}\""))
            .header("X-Linked-Size", bytes.len().to_string())
            .header("ETag", "\"redirect-etag\"");
    }
    let etag = sha256_hex(&[b"blob ".as_slice(), &bytes].concat())[..40].to_owned();
    content(request, bytes, state)
        .header("X-Repo-Commit", commit)
        .header("ETag", format!("\"{etag}\""))
}

/// A file's bytes, from `Range`'s start, cut when the switch says.
fn content(request: &Request, bytes: Vec<u8>, state: &mut State) -> Answer {
    let total = bytes.len() as u64;
    let mut answer = match request.range {
        Some(start) if start >= total => {
            return Answer::new(416).header("Content-Range", format!("bytes */{total}"))
        }
        Some(start) => {
            let mut answer = Answer::new(206).header(
                "Content-Range",
                format!("bytes {start}-{}/{total}", total - 1),
            );
            answer.body = bytes[start as usize..].to_vec();
            answer
        }
        None => {
            let mut answer = Answer::new(200);
            answer.body = bytes;
            answer
        }
    };
    answer = answer.header("Accept-Ranges", "bytes");
    if request.method == "GET" {
        if let Some((after, times)) = state.cut {
            if times > 0 {
                answer.cut = Some(after);
                state.cut = (times > 1).then_some((after, times - 1));
            }
        }
    }
    answer
}

fn walk(dir: &Path, prefix: &str, files: &mut Vec<String>) {
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        let rel = if prefix.is_empty() {
            name
        } else {
            format!("{prefix}/{name}")
        };
        if entry.path().is_dir() {
            walk(&entry.path(), &rel, files);
        } else {
            files.push(rel);
        }
    }
}
