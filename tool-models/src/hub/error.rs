//! Everything that can go wrong finding, downloading or verifying a Hub file.

use std::path::PathBuf;

/// An error resolving an `hf:` name to files in the local cache.
///
/// Each message says what was expected and what was found, and how to fix
/// it where there is a way (`HF_TOKEN`, `HF_HUB_OFFLINE`).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum HubError {
    /// The text is not an `hf:` name.
    #[error("{name:?} is not a Hugging Face Hub model name: {reason}; expected hf:ORG/REPO, hf:ORG/REPO:QUANT or hf:ORG/REPO/FILE")]
    Name {
        /// The text given.
        name: String,
        /// What is wrong with it.
        reason: String,
    },
    /// The Hub has no such repository (or hides a private one).
    #[error("repository {repo} not found on {endpoint} (a private or gated repository also answers so without a token: set HF_TOKEN)")]
    RepoNotFound {
        /// `ORG/REPO`.
        repo: String,
        /// The Hub asked.
        endpoint: String,
    },
    /// The repository has no such file.
    #[error(
        "{repo} has no file {file:?}; its GGUF files: {}",
        list_or_none(gguf_files)
    )]
    FileNotFound {
        /// `ORG/REPO`.
        repo: String,
        /// The file asked for.
        file: String,
        /// The repository's GGUF files, to choose from.
        gguf_files: Vec<String>,
    },
    /// No GGUF file of the repository carries the quant tag.
    #[error(
        "{repo} has no GGUF file with the quant tag {quant:?}; its GGUF files: {}",
        list_or_none(gguf_files)
    )]
    QuantNotFound {
        /// `ORG/REPO`.
        repo: String,
        /// The tag asked for.
        quant: String,
        /// The repository's GGUF files, to choose from.
        gguf_files: Vec<String>,
    },
    /// The repository holds neither a GGUF file nor a safetensors model.
    #[error("{repo} holds no model: expected a .gguf file, or config.json with model.safetensors (or model.safetensors.index.json); found {}", list_or_none(files))]
    NoModel {
        /// `ORG/REPO`.
        repo: String,
        /// The files it holds.
        files: Vec<String>,
    },
    /// The repository is gated or private and no token (or a token without
    /// access) was sent.
    #[error("{url}: {status} (the repository {repo} is gated or private): {}", if *token_sent { "the token in HF_TOKEN has no access to it; accept its terms on the Hub or use another token" } else { "set HF_TOKEN to a token with access to it" })]
    Unauthorized {
        /// `ORG/REPO`.
        repo: String,
        /// The request refused.
        url: String,
        /// 401 or 403.
        status: u16,
        /// Whether a token was sent.
        token_sent: bool,
    },
    /// The Hub could not be reached.
    #[error("cannot reach the Hugging Face Hub at {url}: {reason}; set HF_HUB_OFFLINE=1 to use only the files already in the cache, or HF_ENDPOINT for another Hub")]
    Connect {
        /// The request that failed.
        url: String,
        /// Why.
        reason: String,
    },
    /// `HF_HUB_OFFLINE` is set and the cache lacks a file.
    #[error("HF_HUB_OFFLINE is set and {what} is not in the cache {}; unset HF_HUB_OFFLINE to download it", cache.display())]
    NotCached {
        /// What was looked for (`ORG/REPO`'s file, say).
        what: String,
        /// The Hub cache looked in.
        cache: PathBuf,
    },
    /// A downloaded file's sha256 is not the one the Hub announced; nothing
    /// was kept.
    #[error("{url}: checksum mismatch: the Hub announced sha256 {expected}, the downloaded file has {found}; nothing was kept")]
    Checksum {
        /// The download.
        url: String,
        /// The sha256 the Hub's ETag announced.
        expected: String,
        /// The downloaded bytes' sha256.
        found: String,
    },
    /// A download stopped before its end; what arrived is kept to resume.
    #[error("{url}: the download stopped after {got} of {} bytes ({reason}); run again to resume it", expected.map_or("?".to_string(), |n| n.to_string()))]
    Interrupted {
        /// The download.
        url: String,
        /// The bytes kept.
        got: u64,
        /// The file's size, when announced.
        expected: Option<u64>,
        /// Why it stopped.
        reason: String,
    },
    /// The Hub answered with an unexpected status.
    #[error("{url}: the Hub answered {status}, expected 200: {body}")]
    Status {
        /// The request.
        url: String,
        /// The status.
        status: u16,
        /// The start of the answer's body.
        body: String,
    },
    /// The Hub's answer lacks something (a header, a JSON field).
    #[error("{url}: {reason}")]
    Protocol {
        /// The request.
        url: String,
        /// What was expected and what was found.
        reason: String,
    },
    /// A file of the cache could not be read or written.
    #[error("cannot access {}: {source}", path.display())]
    Io {
        /// The file or folder.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
}

impl HubError {
    pub(crate) fn io(path: impl Into<PathBuf>, source: std::io::Error) -> HubError {
        HubError::Io {
            path: path.into(),
            source,
        }
    }
}

/// `files` joined by commas, or `none`: how messages name what a repository
/// or the cache holds.
pub(super) fn list_or_none(files: &[String]) -> String {
    if files.is_empty() {
        "none".into()
    } else {
        files.join(", ")
    }
}
