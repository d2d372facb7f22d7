//! The Hub cache's layout, shared with Python's huggingface_hub and
//! llama.cpp:
//!
//! ```text
//! CACHE/models--ORG--REPO/
//!     blobs/ETAG                      the file's bytes, named by its ETag
//!     blobs/ETAG.incomplete           a download under way (or cut: resumed)
//! CACHE/.locks/models--ORG--REPO/ETAG.lock   held while ETAG downloads
//!     refs/main                       the commit `main` names
//!     snapshots/COMMIT/FILE           -> ../../blobs/ETAG
//! ```

use super::HubError;
use std::path::{Path, PathBuf};

/// One repository's folder in the Hub cache.
#[derive(Clone, Debug)]
pub(crate) struct RepoCache {
    dir: PathBuf,
}

impl RepoCache {
    /// The folder of `repo` (`ORG/REPO`) in the cache `cache_dir`.
    pub(crate) fn new(cache_dir: &Path, repo: &str) -> RepoCache {
        RepoCache {
            dir: cache_dir.join(format!("models--{}", repo.replace('/', "--"))),
        }
    }

    /// The blobs' folder.
    pub(crate) fn blobs(&self) -> PathBuf {
        self.dir.join("blobs")
    }

    /// The blob named `etag`.
    pub(crate) fn blob(&self, etag: &str) -> PathBuf {
        self.blobs().join(etag)
    }

    /// Where the blob `etag` is written while it downloads.
    pub(crate) fn incomplete(&self, etag: &str) -> PathBuf {
        self.blobs().join(format!("{etag}.incomplete"))
    }

    /// Holds the lock on the blob `etag` until the returned file is dropped,
    /// waiting for another process that holds it: the lock huggingface_hub
    /// takes (`CACHE/.locks/models--ORG--REPO/ETAG.lock`, an flock), so that
    /// one download of a blob runs at a time, whichever program runs it.
    pub(crate) fn lock(&self, etag: &str) -> Result<std::fs::File, HubError> {
        let name = self.dir.file_name().unwrap_or_default();
        let path = match self.dir.parent() {
            Some(cache) => cache.join(".locks").join(name),
            None => PathBuf::from(".locks").join(name),
        }
        .join(format!("{etag}.lock"));
        create_parent(&path)?;
        let file = std::fs::OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(&path)
            .map_err(|e| HubError::io(&path, e))?;
        file.lock().map_err(|e| HubError::io(&path, e))?;
        Ok(file)
    }

    /// The snapshot of `commit`.
    pub(crate) fn snapshot(&self, commit: &str) -> PathBuf {
        self.dir.join("snapshots").join(commit)
    }

    /// `file` in the snapshot of `commit`.
    pub(crate) fn snapshot_file(&self, commit: &str, file: &str) -> PathBuf {
        file.split('/')
            .fold(self.snapshot(commit), |path, part| path.join(part))
    }

    /// The commit `revision` names: itself when it is a commit hash, else
    /// what `refs/REVISION` holds (`None` when nothing was cached).
    pub(crate) fn commit_of(&self, revision: &str) -> Option<String> {
        if is_commit(revision) {
            return Some(revision.to_owned());
        }
        let text = std::fs::read_to_string(self.dir.join("refs").join(revision)).ok()?;
        let commit = text.trim();
        (!commit.is_empty()).then(|| commit.to_owned())
    }

    /// Records that `revision` names `commit` (nothing for a commit hash).
    pub(crate) fn write_ref(&self, revision: &str, commit: &str) -> Result<(), HubError> {
        if is_commit(revision) || self.commit_of(revision).as_deref() == Some(commit) {
            return Ok(());
        }
        let path = self.dir.join("refs").join(revision);
        create_parent(&path)?;
        std::fs::write(&path, commit).map_err(|e| HubError::io(&path, e))
    }

    /// Makes `file` in the snapshot of `commit` a link to the blob `etag`
    /// (relative, as huggingface_hub makes it); its path.
    pub(crate) fn link(&self, commit: &str, file: &str, etag: &str) -> Result<PathBuf, HubError> {
        let path = self.snapshot_file(commit, file);
        create_parent(&path)?;
        if std::fs::symlink_metadata(&path).is_ok() {
            std::fs::remove_file(&path).map_err(|e| HubError::io(&path, e))?;
        }
        // From snapshots/COMMIT/a/b/FILE up to the repository's folder.
        let depth = file.split('/').count() + 1;
        let mut target = PathBuf::new();
        for _ in 0..depth {
            target.push("..");
        }
        target.push("blobs");
        target.push(etag);
        link_or_copy(&target, &self.blob(etag), &path)?;
        Ok(path)
    }

    /// The files of the snapshot of `commit`, `/`-separated, sorted.
    pub(crate) fn snapshot_files(&self, commit: &str) -> Vec<String> {
        let mut files = Vec::new();
        walk(&self.snapshot(commit), "", &mut files);
        files.sort();
        files
    }
}

/// Whether `revision` is a full commit hash.
pub(crate) fn is_commit(revision: &str) -> bool {
    revision.len() == 40 && revision.bytes().all(|b| b.is_ascii_hexdigit())
}

pub(crate) fn create_parent(path: &Path) -> Result<(), HubError> {
    match path.parent() {
        Some(parent) => std::fs::create_dir_all(parent).map_err(|e| HubError::io(parent, e)),
        None => Ok(()),
    }
}

#[cfg(unix)]
fn link_or_copy(target: &Path, _blob: &Path, link: &Path) -> Result<(), HubError> {
    std::os::unix::fs::symlink(target, link).map_err(|e| HubError::io(link, e))
}

/// Where links need privileges, a copy (as huggingface_hub does).
#[cfg(not(unix))]
fn link_or_copy(_target: &Path, blob: &Path, link: &Path) -> Result<(), HubError> {
    std::fs::copy(blob, link)
        .map(|_| ())
        .map_err(|e| HubError::io(link, e))
}

fn walk(dir: &Path, prefix: &str, files: &mut Vec<String>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        let path = entry.path();
        let rel = if prefix.is_empty() {
            name
        } else {
            format!("{prefix}/{name}")
        };
        if path.is_dir() {
            walk(&path, &rel, files);
        } else if path.is_file() {
            // A link to a blob that is there.
            files.push(rel);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_layout_is_the_hubs() {
        let cache = RepoCache::new(Path::new("/c"), "Qwen/Qwen2.5-0.5B");
        assert_eq!(
            cache.blob("abc"),
            Path::new("/c/models--Qwen--Qwen2.5-0.5B/blobs/abc")
        );
        assert_eq!(
            cache.incomplete("abc"),
            Path::new("/c/models--Qwen--Qwen2.5-0.5B/blobs/abc.incomplete")
        );
        assert_eq!(
            cache.snapshot_file("c0ffee", "q/m.gguf"),
            Path::new("/c/models--Qwen--Qwen2.5-0.5B/snapshots/c0ffee/q/m.gguf")
        );
    }

    #[test]
    fn refs_and_links_are_relative_and_read_back() {
        let tmp = tempfile::tempdir().unwrap();
        let cache = RepoCache::new(tmp.path(), "o/r");
        let commit = "0123456789abcdef0123456789abcdef01234567";
        assert_eq!(cache.commit_of("main"), None);
        assert_eq!(cache.commit_of(commit).as_deref(), Some(commit));
        cache.write_ref("main", commit).unwrap();
        assert_eq!(cache.commit_of("main").as_deref(), Some(commit));

        std::fs::create_dir_all(cache.blobs()).unwrap();
        std::fs::write(cache.blob("e1"), b"one").unwrap();
        std::fs::write(cache.blob("e2"), b"two").unwrap();
        let top = cache.link(commit, "a.gguf", "e1").unwrap();
        let deep = cache.link(commit, "q/b.gguf", "e2").unwrap();
        assert_eq!(std::fs::read(&top).unwrap(), b"one");
        assert_eq!(std::fs::read(&deep).unwrap(), b"two");
        #[cfg(unix)]
        {
            assert_eq!(
                std::fs::read_link(&top).unwrap(),
                Path::new("../../blobs/e1")
            );
            assert_eq!(
                std::fs::read_link(&deep).unwrap(),
                Path::new("../../../blobs/e2")
            );
        }
        // Linking again replaces the link.
        cache.link(commit, "a.gguf", "e2").unwrap();
        assert_eq!(std::fs::read(&top).unwrap(), b"two");
        assert_eq!(cache.snapshot_files(commit), ["a.gguf", "q/b.gguf"]);
    }

    #[test]
    fn a_blob_is_locked_where_huggingface_hub_locks_it() {
        let tmp = tempfile::tempdir().unwrap();
        let cache = RepoCache::new(tmp.path(), "o/r");
        let held = cache.lock("e1").unwrap();
        let path = tmp.path().join(".locks/models--o--r/e1.lock");
        let other = std::fs::File::open(&path).unwrap();
        assert!(other.try_lock().is_err());
        drop(held);
        assert!(other.try_lock().is_ok());
    }
}
