//! Where the Hub is, where its cache is, and how to talk to it: from the
//! environment as huggingface_hub reads it, or set explicitly.

use crate::setters::setters;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// The Hub used when `HF_ENDPOINT` is not set.
pub const DEFAULT_ENDPOINT: &str = "https://huggingface.co";

/// How [`resolve`](super::resolve) reaches the Hub and where it keeps files.
///
/// [`from_env`](Self::from_env) reads the variables huggingface_hub reads;
/// the setters override them (tests point `endpoint` at a local mirror
/// without touching the process's environment).
///
/// ```
/// use tool_models::hub::HubOptions;
///
/// let options = HubOptions::from_env()
///     .endpoint("http://127.0.0.1:8080")
///     .cache_dir("/tmp/hf/hub")
///     .offline(true);
/// assert_eq!(options.endpoint, "http://127.0.0.1:8080");
/// ```
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct HubOptions {
    /// The Hub's address, without a trailing `/` (`$HF_ENDPOINT`, else
    /// [`DEFAULT_ENDPOINT`]).
    pub endpoint: String,
    /// The Hub cache, holding one `models--ORG--REPO` folder per repository
    /// (`$HF_HUB_CACHE`, else `$HF_HOME/hub`, `$HF_HOME` defaulting to
    /// `$XDG_CACHE_HOME/huggingface` or `~/.cache/huggingface`): the one
    /// Python's huggingface_hub and llama.cpp share.
    pub cache_dir: PathBuf,
    /// The token sent as `Authorization: Bearer` (`$HF_TOKEN`, else the file
    /// `$HF_HOME/token` that `hf auth login` writes).
    pub token: Option<String>,
    /// Use only the cache, never the network (`$HF_HUB_OFFLINE` set to `1`,
    /// `true`, `yes` or `on`).
    pub offline: bool,
    /// The branch, tag or commit to download (default `main`).
    pub revision: String,
    /// Show a progress bar per download on stderr (when it is a terminal).
    pub progress: bool,
    /// How long to wait to connect, and for each read of an answer.
    pub timeout: Duration,
}

impl Default for HubOptions {
    /// [`from_env`](Self::from_env).
    fn default() -> HubOptions {
        HubOptions::from_env()
    }
}

impl HubOptions {
    /// The options the environment gives, as huggingface_hub reads them.
    pub fn from_env() -> HubOptions {
        let var = |name: &str| std::env::var(name).ok().filter(|v| !v.is_empty());
        let home = var("HF_HOME").map(PathBuf::from).unwrap_or_else(|| {
            let cache = var("XDG_CACHE_HOME")
                .map(PathBuf::from)
                .or_else(|| var("HOME").map(|h| Path::new(&h).join(".cache")))
                .unwrap_or_else(|| PathBuf::from(".cache"));
            cache.join("huggingface")
        });
        let cache_dir = var("HF_HUB_CACHE")
            .map(PathBuf::from)
            .unwrap_or_else(|| home.join("hub"));
        let token = var("HF_TOKEN").or_else(|| {
            let path = var("HF_TOKEN_PATH")
                .map(PathBuf::from)
                .unwrap_or_else(|| home.join("token"));
            std::fs::read_to_string(path)
                .ok()
                .map(|t| t.trim().to_owned())
                .filter(|t| !t.is_empty())
        });
        let offline = var("HF_HUB_OFFLINE").is_some_and(|v| {
            matches!(
                v.trim().to_ascii_lowercase().as_str(),
                "1" | "true" | "yes" | "on"
            )
        });
        HubOptions {
            endpoint: var("HF_ENDPOINT")
                .unwrap_or_else(|| DEFAULT_ENDPOINT.into())
                .trim_end_matches('/')
                .to_owned(),
            cache_dir,
            token,
            offline,
            revision: "main".into(),
            progress: true,
            timeout: Duration::from_secs(30),
        }
    }

    /// Sets [`endpoint`](Self::endpoint) (a trailing `/` is dropped).
    pub fn endpoint(mut self, endpoint: impl Into<String>) -> Self {
        self.endpoint = endpoint.into().trim_end_matches('/').to_owned();
        self
    }

    /// Sets [`cache_dir`](Self::cache_dir).
    pub fn cache_dir(mut self, dir: impl Into<PathBuf>) -> Self {
        self.cache_dir = dir.into();
        self
    }

    /// Sets [`revision`](Self::revision).
    pub fn revision(mut self, revision: impl Into<String>) -> Self {
        self.revision = revision.into();
        self
    }

    setters! {
        /// Sets [`token`](Self::token).
        token(token: Option<String>) => token;
        /// Sets [`offline`](Self::offline).
        offline(on: bool) => offline;
        /// Sets [`progress`](Self::progress).
        progress(on: bool) => progress;
        /// Sets [`timeout`](Self::timeout).
        timeout(timeout: Duration) => timeout;
    }
}
