//! The Hub's HTTP API, blocking: a repository's listing, a file's metadata
//! (`HEAD …/resolve/…`), and a file's download into the cache, resumed with
//! `Range` and verified against its sha256 before it enters the cache.

use super::cache::{create_parent, RepoCache};
use super::choose::gguf_files;
use super::name::check_file;
use super::{HubError, HubOptions};
use reqwest::blocking::{Client, RequestBuilder, Response};
use reqwest::header::{HeaderMap, AUTHORIZATION, CONTENT_LENGTH, ETAG, LOCATION, RANGE};
use reqwest::StatusCode;
use sha2::{Digest, Sha256};
use std::io::{Read, Write};
use std::path::{Path, PathBuf};

/// How many times one call resumes a download cut short before giving up
/// (the part kept resumes on the next call).
const ATTEMPTS: usize = 3;

/// A repository's commit and files, from `api/models/ORG/REPO/revision/REV`.
#[derive(Clone, Debug)]
pub(crate) struct RepoInfo {
    /// The commit the revision names.
    pub(crate) sha: String,
    /// Every file, `/`-separated.
    pub(crate) files: Vec<String>,
}

/// What `HEAD …/resolve/REV/FILE` tells of a file.
#[derive(Clone, Debug)]
struct FileMeta {
    repo: String,
    commit: String,
    etag: String,
    size: Option<u64>,
    /// Where to download it (the Hub redirects large files elsewhere).
    url: String,
}

/// A client of one Hub.
pub(crate) struct HubClient<'a> {
    options: &'a HubOptions,
    /// Follows no redirects: the Hub's headers are on the redirect.
    head: Client,
    /// Follows redirects, for the downloads.
    get: Client,
}

impl<'a> HubClient<'a> {
    pub(crate) fn new(options: &'a HubOptions) -> Result<HubClient<'a>, HubError> {
        let build = |policy| {
            Client::builder()
                .user_agent(concat!(
                    "tool-models/",
                    env!("CARGO_PKG_VERSION"),
                    "; hf_hub"
                ))
                .connect_timeout(options.timeout)
                .timeout(options.timeout)
                .redirect(policy)
                .build()
                .map_err(|e| HubError::Connect {
                    url: options.endpoint.clone(),
                    reason: format!("cannot make an HTTP client: {e}"),
                })
        };
        Ok(HubClient {
            options,
            head: build(reqwest::redirect::Policy::none())?,
            get: build(reqwest::redirect::Policy::limited(10))?,
        })
    }

    /// `request` with the token, when `url` is on the Hub itself.
    fn authorize(&self, request: RequestBuilder, url: &str) -> RequestBuilder {
        match &self.options.token {
            Some(token) if url.starts_with(&self.options.endpoint) => {
                request.header(AUTHORIZATION, format!("Bearer {token}"))
            }
            _ => request,
        }
    }

    fn send(&self, request: RequestBuilder, url: &str) -> Result<Response, HubError> {
        self.authorize(request, url)
            .send()
            .map_err(|e| HubError::Connect {
                url: url.to_owned(),
                reason: error_chain(&e),
            })
    }

    /// The repository's commit and files at the options' revision.
    pub(crate) fn repo_info(&self, repo: &str) -> Result<RepoInfo, HubError> {
        let url = format!(
            "{}/api/models/{repo}/revision/{}",
            self.options.endpoint, self.options.revision
        );
        let response = self.send(self.get.get(&url), &url)?;
        let status = response.status();
        if !status.is_success() {
            return Err(self.status_error(repo, &url, response, None));
        }
        let body = response.text().map_err(|e| HubError::Protocol {
            url: url.clone(),
            reason: format!("cannot read the answer: {}", error_chain(&e)),
        })?;
        let protocol = |reason: String| HubError::Protocol {
            url: url.clone(),
            reason,
        };
        let value: serde_json::Value = serde_json::from_str(&body)
            .map_err(|e| protocol(format!("expected a JSON repository listing: {e}")))?;
        let sha = value
            .get("sha")
            .and_then(|s| s.as_str())
            .ok_or_else(|| protocol("the listing has no string `sha` (the commit)".into()))?
            .to_owned();
        let siblings = value
            .get("siblings")
            .and_then(|s| s.as_array())
            .ok_or_else(|| protocol("the listing has no array `siblings` (the files)".into()))?;
        let files = siblings
            .iter()
            .map(|s| {
                s.get("rfilename")
                    .and_then(|f| f.as_str())
                    .map(str::to_owned)
                    .ok_or_else(|| protocol(format!("a sibling without `rfilename`: {s}")))
            })
            .collect::<Result<Vec<_>, _>>()?;
        // Names that would leave the cache's folder are no files of a snapshot.
        let files = files
            .into_iter()
            .filter(|f| check_file(f).is_ok())
            .collect();
        if !is_path_component(&sha) {
            return Err(protocol(format!("`sha` is {sha:?}, not a commit")));
        }
        Ok(RepoInfo { sha, files })
    }

    /// The error for a refused request: 404 as a missing repository or file
    /// (`file`), 401/403 as asking for a token.
    fn status_error(
        &self,
        repo: &str,
        url: &str,
        response: Response,
        file: Option<&str>,
    ) -> HubError {
        let status = response.status();
        let code = header(response.headers(), "x-error-code").unwrap_or_default();
        if status == StatusCode::UNAUTHORIZED || status == StatusCode::FORBIDDEN {
            return HubError::Unauthorized {
                repo: repo.to_owned(),
                url: url.to_owned(),
                status: status.as_u16(),
                token_sent: self.options.token.is_some(),
            };
        }
        if status == StatusCode::NOT_FOUND && code != "RevisionNotFound" {
            if let (Some(file), false) = (file, code == "RepoNotFound") {
                // The repository's GGUF files, to say what there is instead.
                return match self.repo_info(repo) {
                    Ok(info) => HubError::FileNotFound {
                        repo: repo.to_owned(),
                        file: file.to_owned(),
                        gguf_files: gguf_files(&info.files),
                    },
                    Err(e) => e,
                };
            }
            return HubError::RepoNotFound {
                repo: repo.to_owned(),
                endpoint: self.options.endpoint.clone(),
            };
        }
        let mut body = String::new();
        let _ = response.take(400).read_to_string(&mut body);
        HubError::Status {
            url: url.to_owned(),
            status: status.as_u16(),
            body: body.trim().to_owned(),
        }
    }

    /// What the Hub says of `file` at `revision`.
    fn file_meta(&self, repo: &str, revision: &str, file: &str) -> Result<FileMeta, HubError> {
        let mut url = format!("{}/{repo}/resolve/{revision}/{file}", self.options.endpoint);
        // Redirects on the same host stay on the Hub (a renamed
        // repository); one to another host is the file's storage, and the
        // file's metadata is on the redirect itself (as huggingface_hub
        // reads it).
        for _ in 0..5 {
            let response = self.send(self.head.head(&url), &url)?;
            let status = response.status();
            let headers = response.headers().clone();
            let location = header(&headers, LOCATION.as_str());
            if status.is_redirection() {
                let target = join_url(&url, location.as_deref().unwrap_or(""));
                if same_host(&url, &target) {
                    url = target;
                    continue;
                }
            } else if !status.is_success() {
                return Err(self.status_error(repo, &url, response, Some(file)));
            }
            let protocol = |reason: &str| HubError::Protocol {
                url: url.clone(),
                reason: reason.to_owned(),
            };
            let commit = header(&headers, "x-repo-commit")
                .filter(|c| is_path_component(c))
                .ok_or_else(|| protocol("the Hub's answer has no X-Repo-Commit header (a commit hash); is HF_ENDPOINT a Hugging Face Hub?"))?;
            let etag = header(&headers, "x-linked-etag")
                .or_else(|| header(&headers, ETAG.as_str()))
                .map(|e| normalize_etag(&e))
                .filter(|e| is_path_component(e))
                .ok_or_else(|| protocol("the Hub's answer has no usable ETag header"))?;
            let size = header(&headers, "x-linked-size")
                .or_else(|| {
                    (!status.is_redirection())
                        .then(|| header(&headers, CONTENT_LENGTH.as_str()))
                        .flatten()
                })
                .and_then(|s| s.parse().ok());
            let download = match (status.is_redirection(), location) {
                (true, Some(location)) => join_url(&url, &location),
                _ => url.clone(),
            };
            return Ok(FileMeta {
                repo: repo.to_owned(),
                commit,
                etag,
                size,
                url: download,
            });
        }
        Err(HubError::Protocol {
            url,
            reason: "more than 5 redirects".into(),
        })
    }

    /// `file` of `repo` at `revision` in the cache, downloaded when it is not
    /// there: its snapshot path and commit.
    pub(crate) fn fetch(
        &self,
        cache: &RepoCache,
        repo: &str,
        revision: &str,
        file: &str,
    ) -> Result<(PathBuf, String), HubError> {
        let meta = self.file_meta(repo, revision, file)?;
        let path = cache.snapshot_file(&meta.commit, file);
        // A commit's files never change: one already there is this one.
        if path.is_file() {
            return Ok((path, meta.commit));
        }
        if !cache.blob(&meta.etag).is_file() {
            // Another process may be downloading it: wait, then look again.
            let _lock = cache.lock(&meta.etag)?;
            if !cache.blob(&meta.etag).is_file() {
                self.download(cache, &meta, file)?;
            }
        }
        let path = cache.link(&meta.commit, file, &meta.etag)?;
        Ok((path, meta.commit))
    }

    /// Downloads the blob `meta` describes into the cache: into its
    /// `.incomplete` file, resumed where an earlier try stopped, verified,
    /// then renamed into `blobs/`.
    fn download(&self, cache: &RepoCache, meta: &FileMeta, file: &str) -> Result<(), HubError> {
        let part = cache.incomplete(&meta.etag);
        create_parent(&part)?;
        let bar = progress_bar(self.options.progress, file, meta.size);
        let mut attempt = 0;
        loop {
            attempt += 1;
            match self.download_once(meta, &part, &bar) {
                Ok(()) => break,
                Err(e @ HubError::Interrupted { .. }) if attempt < ATTEMPTS => {
                    bar.println(format!("{e}; resuming"));
                }
                Err(e) => {
                    bar.abandon();
                    return Err(e);
                }
            }
        }
        bar.finish_and_clear();
        verify(meta, &part)?;
        let blob = cache.blob(&meta.etag);
        std::fs::rename(&part, &blob).map_err(|e| HubError::io(&blob, e))
    }

    /// One request for what `part` lacks, appended to it.
    fn download_once(
        &self,
        meta: &FileMeta,
        part: &Path,
        bar: &indicatif::ProgressBar,
    ) -> Result<(), HubError> {
        let have = std::fs::metadata(part).map(|m| m.len()).unwrap_or(0);
        if meta.size.is_some_and(|size| have >= size) {
            return Ok(());
        }
        let url = &meta.url;
        let mut request = self.get.get(url);
        if have > 0 {
            request = request.header(RANGE, format!("bytes={have}-"));
        }
        let mut response = self.send(request, url)?;
        let status = response.status();
        let resumed = match status {
            StatusCode::PARTIAL_CONTENT => true,
            StatusCode::OK => false,
            // What is kept is the whole file: the checksum says.
            StatusCode::RANGE_NOT_SATISFIABLE if have > 0 => return Ok(()),
            _ => return Err(self.status_error(&meta.repo, url, response, None)),
        };
        let mut out = std::fs::OpenOptions::new()
            .create(true)
            .append(resumed)
            .write(true)
            .truncate(!resumed)
            .open(part)
            .map_err(|e| HubError::io(part, e))?;
        let mut got = if resumed { have } else { 0 };
        bar.set_position(got);
        let mut buf = vec![0u8; 1 << 16];
        let interrupted = |got, reason: String| HubError::Interrupted {
            url: url.clone(),
            got,
            expected: meta.size,
            reason,
        };
        loop {
            let n = match response.read(&mut buf) {
                Ok(0) => break,
                Ok(n) => n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(interrupted(got, e.to_string())),
            };
            out.write_all(&buf[..n])
                .map_err(|e| HubError::io(part, e))?;
            got += n as u64;
            bar.set_position(got);
        }
        out.flush().map_err(|e| HubError::io(part, e))?;
        match meta.size {
            Some(size) if got < size => Err(interrupted(got, "the connection closed early".into())),
            _ => Ok(()),
        }
    }
}

/// Checks the downloaded `part` against the ETag's sha256 (when it is one)
/// and the announced size; deletes it when it does not match.
fn verify(meta: &FileMeta, part: &Path) -> Result<(), HubError> {
    let reject = |error: HubError| {
        let _ = std::fs::remove_file(part);
        Err(error)
    };
    let size = std::fs::metadata(part)
        .map_err(|e| HubError::io(part, e))?
        .len();
    if let Some(expected) = meta.size.filter(|&s| s != size) {
        return reject(HubError::Protocol {
            url: meta.url.clone(),
            reason: format!(
                "the download has {size} bytes, the Hub announced {expected}; nothing was kept"
            ),
        });
    }
    if !is_sha256(&meta.etag) {
        return Ok(());
    }
    let found = sha256_file(part)?;
    if found != meta.etag.to_ascii_lowercase() {
        return reject(HubError::Checksum {
            url: meta.url.clone(),
            expected: meta.etag.clone(),
            found,
        });
    }
    Ok(())
}

/// The sha256 of the file at `path`, in lowercase hex.
pub(crate) fn sha256_file(path: &Path) -> Result<String, HubError> {
    let mut file = std::fs::File::open(path).map_err(|e| HubError::io(path, e))?;
    let mut hasher = Sha256::new();
    let mut buf = vec![0u8; 1 << 16];
    loop {
        match file.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => hasher.update(&buf[..n]),
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(HubError::io(path, e)),
        }
    }
    Ok(hex(&hasher.finalize()))
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// Whether an ETag is a sha256 (the Hub's for files stored with LFS).
fn is_sha256(etag: &str) -> bool {
    etag.len() == 64 && etag.bytes().all(|b| b.is_ascii_hexdigit())
}

/// Whether `text` can name a blob or a snapshot: letters, digits, `-`, `_`
/// and `.`, not `.` or `..`.
fn is_path_component(text: &str) -> bool {
    !text.is_empty()
        && text != "."
        && text != ".."
        && text
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.'))
}

/// An ETag without `W/` and quotes.
fn normalize_etag(etag: &str) -> String {
    etag.trim()
        .trim_start_matches("W/")
        .trim_matches('"')
        .to_owned()
}

fn header(headers: &HeaderMap, name: &str) -> Option<String> {
    headers
        .get(name)
        .and_then(|v| v.to_str().ok())
        .map(str::to_owned)
}

/// `location` resolved against `base`.
fn join_url(base: &str, location: &str) -> String {
    match reqwest::Url::parse(base).and_then(|b| b.join(location)) {
        Ok(url) => url.to_string(),
        Err(_) => location.to_owned(),
    }
}

/// Whether two URLs are on the same host.
fn same_host(a: &str, b: &str) -> bool {
    let host = |u: &str| {
        reqwest::Url::parse(u)
            .ok()
            .and_then(|u| u.host_str().map(str::to_ascii_lowercase))
    };
    host(a).is_some() && host(a) == host(b)
}

/// A reqwest error with its causes (`error sending request: … Connection
/// refused`).
fn error_chain(e: &dyn std::error::Error) -> String {
    let mut text = e.to_string();
    let mut source = e.source();
    while let Some(cause) = source {
        let cause_text = cause.to_string();
        if !text.contains(&cause_text) {
            text.push_str(": ");
            text.push_str(&cause_text);
        }
        source = cause.source();
    }
    text
}

/// A progress bar for `file` on stderr, hidden when stderr is not a
/// terminal (or `show` is off).
fn progress_bar(show: bool, file: &str, size: Option<u64>) -> indicatif::ProgressBar {
    use std::io::IsTerminal;
    let target = if show && std::io::stderr().is_terminal() {
        indicatif::ProgressDrawTarget::stderr()
    } else {
        indicatif::ProgressDrawTarget::hidden()
    };
    let bar = indicatif::ProgressBar::with_draw_target(size, target);
    if let Ok(style) = indicatif::ProgressStyle::with_template(
        "{msg} {wide_bar} {bytes}/{total_bytes} {bytes_per_sec} {eta}",
    ) {
        bar.set_style(style);
    }
    bar.set_message(file.to_owned());
    bar
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn etags_lose_quotes_and_weakness() {
        assert_eq!(normalize_etag("\"abc\""), "abc");
        assert_eq!(normalize_etag("W/\"abc\""), "abc");
        assert!(is_sha256(&"a".repeat(64)));
        assert!(!is_sha256(&"a".repeat(40)));
        assert!(is_path_component("0123abc"));
        for bad in ["", ".", "..", "a/b", "a\\b", "a b"] {
            assert!(!is_path_component(bad), "{bad:?}");
        }
    }

    #[test]
    fn sha256_is_hex() {
        let tmp = tempfile::tempdir().unwrap();
        let path = tmp.path().join("f");
        std::fs::write(&path, b"abc").unwrap();
        assert_eq!(
            sha256_file(&path).unwrap(),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
    }

    #[test]
    fn redirects_resolve_against_the_request() {
        assert_eq!(
            join_url("http://h:1/o/r/resolve/main/f", "/api/x"),
            "http://h:1/api/x"
        );
        assert_eq!(join_url("http://h:1/a", "https://cdn/x"), "https://cdn/x");
        assert!(same_host("http://h:1/a", "http://H:2/b"));
        assert!(!same_host("http://h:1/a", "https://cdn/x"));
    }
}
