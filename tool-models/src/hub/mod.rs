//! Models named on the Hugging Face Hub: `hf:ORG/REPO[:QUANT]` and
//! `hf:ORG/REPO/FILE`, downloaded into the Hub's own cache (the one Python's
//! huggingface_hub and llama.cpp share), verified against their sha256,
//! resumed where a download stopped, and found there again without the
//! network.
//!
//! [`Model::load`](crate::model::Model::load) takes these names wherever it
//! takes a path (with the `local` feature); [`resolve`] gives the local path
//! a name stands for.
//!
//! | variable | meaning |
//! |---|---|
//! | `HF_ENDPOINT` | the Hub (default `https://huggingface.co`) |
//! | `HF_HOME` | the cache's home (default `~/.cache/huggingface`); the cache is `$HF_HOME/hub` |
//! | `HF_HUB_CACHE` | the cache itself, overriding `$HF_HOME/hub` |
//! | `HF_TOKEN` | the token for gated and private repositories |
//! | `HF_HUB_OFFLINE=1` | the cache only, never the network |
//!
//! ```no_run
//! use tool_models::hub::{resolve, HubName, HubOptions};
//!
//! let name: HubName = "hf:Qwen/Qwen2.5-0.5B-Instruct-GGUF:Q4_K_M".parse()?;
//! let path = resolve(&name, &HubOptions::from_env())?;
//! println!("{}", path.display()); // …/snapshots/COMMIT/qwen2.5-0.5b-instruct-q4_k_m.gguf
//! # Ok::<(), tool_models::hub::HubError>(())
//! ```

mod cache;
mod choose;
mod client;
mod error;
mod name;
mod options;

pub use error::HubError;
pub use name::{HubName, HubTarget, HF_PREFIX};
pub use options::{HubOptions, DEFAULT_ENDPOINT};

use cache::RepoCache;
use choose::{choose_gguf, gguf_files, index_shards, safetensors_files, WEIGHTS_INDEX};
use client::HubClient;
use error::list_or_none;
use std::path::PathBuf;

/// The local path `name` stands for, downloading what the cache lacks:
/// a GGUF file (the first shard of a split one), a safetensors model's
/// snapshot directory, or the one file `hf:ORG/REPO/FILE` names.
///
/// With [`offline`](HubOptions::offline) it reads only the cache, and a
/// missing file is [`HubError::NotCached`].
pub fn resolve(name: &HubName, options: &HubOptions) -> Result<PathBuf, HubError> {
    if options.offline {
        return resolve_cached(name, options);
    }
    // A blocking client panics inside an async runtime: its own thread
    // keeps this callable from anywhere.
    std::thread::scope(|scope| {
        scope
            .spawn(|| resolve_online(name, options))
            .join()
            .unwrap_or_else(|_| {
                Err(HubError::Protocol {
                    url: options.endpoint.clone(),
                    reason: format!("the download of {name} failed unexpectedly"),
                })
            })
    })
}

/// [`resolve`] for a name given as text (`hf:…`).
pub fn resolve_str(name: &str, options: &HubOptions) -> Result<PathBuf, HubError> {
    resolve(&name.parse()?, options)
}

fn resolve_online(name: &HubName, options: &HubOptions) -> Result<PathBuf, HubError> {
    let repo = name.repo();
    let cache = RepoCache::new(&options.cache_dir, &repo);
    let client = HubClient::new(options)?;
    let revision = options.revision.as_str();
    let quant = match name.target() {
        HubTarget::File(file) => {
            let (path, commit) = client.fetch(&cache, &repo, revision, file)?;
            cache.write_ref(revision, &commit)?;
            return Ok(path);
        }
        HubTarget::Quant(quant) => Some(quant.as_str()),
        HubTarget::Default => None,
    };
    let info = client.repo_info(&repo)?;
    // Every file from the commit the listing describes.
    let fetch = |file: &str| client.fetch(&cache, &repo, &info.sha, file).map(|(p, _)| p);
    let ggufs = gguf_files(&info.files);
    let path = if !ggufs.is_empty() || quant.is_some() {
        let chosen = choose_gguf(&info.files, quant).ok_or_else(|| HubError::QuantNotFound {
            repo: repo.clone(),
            quant: quant.unwrap_or_default().to_owned(),
            gguf_files: ggufs,
        })?;
        let mut first = None;
        for file in &chosen {
            let path = fetch(file)?;
            first.get_or_insert(path);
        }
        first.unwrap_or_else(|| cache.snapshot(&info.sha))
    } else {
        let chosen = safetensors_files(&info.files).ok_or_else(|| HubError::NoModel {
            repo: repo.clone(),
            files: info.files.clone(),
        })?;
        for file in &chosen {
            let path = fetch(file)?;
            if file == WEIGHTS_INDEX {
                for shard in read_index(&path)? {
                    fetch(&shard)?;
                }
            }
        }
        cache.snapshot(&info.sha)
    };
    cache.write_ref(revision, &info.sha)?;
    Ok(path)
}

/// [`resolve`] from the cache alone.
fn resolve_cached(name: &HubName, options: &HubOptions) -> Result<PathBuf, HubError> {
    let repo = name.repo();
    let cache = RepoCache::new(&options.cache_dir, &repo);
    let not_cached = |what: String| HubError::NotCached {
        what,
        cache: options.cache_dir.clone(),
    };
    let commit = cache.commit_of(&options.revision).ok_or_else(|| {
        not_cached(format!(
            "{repo} (no snapshot of its revision {:?})",
            options.revision
        ))
    })?;
    let files = cache.snapshot_files(&commit);
    let quant = match name.target() {
        HubTarget::File(file) => {
            let path = cache.snapshot_file(&commit, file);
            return match path.is_file() {
                true => Ok(path),
                false => Err(not_cached(format!("{repo}'s file {file:?}"))),
            };
        }
        HubTarget::Quant(quant) => Some(quant.as_str()),
        HubTarget::Default => None,
    };
    let ggufs = gguf_files(&files);
    if !ggufs.is_empty() || quant.is_some() {
        let what = match quant {
            Some(quant) => format!("a GGUF file of {repo} with the quant tag {quant:?}"),
            None => format!("a GGUF file of {repo}"),
        };
        let chosen = choose_gguf(&files, quant)
            .ok_or_else(|| not_cached(format!("{what} (cached: {})", list_or_none(&ggufs))))?;
        return Ok(cache.snapshot_file(&commit, &chosen[0]));
    }
    let chosen = safetensors_files(&files).ok_or_else(|| {
        not_cached(format!(
            "{repo}'s model files (cached: {})",
            list_or_none(&files)
        ))
    })?;
    if chosen.iter().any(|f| f == WEIGHTS_INDEX) {
        let index = cache.snapshot_file(&commit, WEIGHTS_INDEX);
        for shard in read_index(&index)? {
            if !cache.snapshot_file(&commit, &shard).is_file() {
                return Err(not_cached(format!("{repo}'s weight file {shard:?}")));
            }
        }
    }
    Ok(cache.snapshot(&commit))
}

fn read_index(path: &std::path::Path) -> Result<Vec<String>, HubError> {
    let text = std::fs::read_to_string(path).map_err(|e| HubError::io(path, e))?;
    index_shards(&text).map_err(|reason| HubError::Protocol {
        url: path.display().to_string(),
        reason,
    })
}
