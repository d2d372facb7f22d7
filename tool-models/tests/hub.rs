//! Models named on the Hugging Face Hub (`hf:…`), against a local mirror of
//! the Hub (tests/hub/mirror.rs, on 127.0.0.1): the cache's exact layout,
//! offline loads, resumed and corrupt downloads, the errors, the same
//! numbers as the file loaded by path, and Python's huggingface_hub sharing
//! the cache both ways.

#[path = "hub/mirror.rs"]
mod mirror;
#[path = "hub/python.rs"]
mod python;

use mirror::{sha256_hex, Mirror};
use std::path::{Path, PathBuf};
use std::time::Duration;
use tool_models::generate::Session;
use tool_models::hub::{resolve_str, HubError, HubOptions};
use tool_models::model::tiny::{write_tiny_gguf, write_tiny_model, TinySpec};
use tool_models::model::Model;

const GGUF_REPO: &str = "tiny/qwen2-GGUF";
const ST_REPO: &str = "tiny/qwen2";

/// A mirror serving a GGUF repository (two quants, a projector, an
/// importance matrix, a README) and a safetensors one, with a fresh cache.
struct Setup {
    _tmp: tempfile::TempDir,
    mirror: Mirror,
    cache: PathBuf,
}

impl Setup {
    fn new() -> Setup {
        let tmp = tempfile::tempdir().unwrap();
        let mirror = Mirror::start(&tmp.path().join("mirror"));
        let gguf = mirror.repo_dir(GGUF_REPO);
        write_tiny_gguf(&gguf.join("qwen2-Q4_K_M.gguf"), &TinySpec::qwen2(7)).unwrap();
        write_tiny_gguf(&gguf.join("qwen2-Q8_0.gguf"), &TinySpec::qwen2(8)).unwrap();
        std::fs::write(gguf.join("mmproj-qwen2-Q4_K_M.gguf"), b"not a model").unwrap();
        std::fs::write(gguf.join("qwen2-Q4_K_M.imatrix.gguf"), b"not a model").unwrap();
        std::fs::write(gguf.join("README.md"), b"# tiny\n").unwrap();
        write_tiny_model(&mirror.repo_dir(ST_REPO), &TinySpec::qwen2(7)).unwrap();
        let cache = tmp.path().join("home").join("hub");
        Setup {
            _tmp: tmp,
            mirror,
            cache,
        }
    }

    fn options(&self) -> HubOptions {
        HubOptions::from_env()
            .endpoint(self.mirror.url.clone())
            .cache_dir(self.cache.clone())
            .token(None)
            .offline(false)
            .progress(false)
            .revision("main")
            .timeout(Duration::from_secs(10))
    }

    /// The `HF_HOME` the cache lies in (`$HF_HOME/hub`), for a Python
    /// huggingface_hub sharing it.
    fn hf_home(&self) -> String {
        self.cache.parent().unwrap().to_string_lossy().into_owned()
    }

    fn served(&self, repo: &str, file: &str) -> PathBuf {
        self.mirror.repo_dir(repo).join(file)
    }

    fn repo_cache(&self, repo: &str) -> PathBuf {
        self.cache
            .join(format!("models--{}", repo.replace('/', "--")))
    }
}

/// The files under `dir`, relative, sorted (empty when it is not there).
fn files_under(dir: &Path) -> Vec<String> {
    let mut files = Vec::new();
    let mut stack = vec![dir.to_owned()];
    while let Some(d) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else {
            continue;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            if path.is_dir() && !path.is_symlink() {
                stack.push(path);
            } else {
                let rel = path
                    .strip_prefix(dir)
                    .unwrap()
                    .to_string_lossy()
                    .into_owned();
                files.push(rel);
            }
        }
    }
    files.sort();
    files
}

fn logits(path: &Path) -> Vec<f32> {
    let model = Model::load(path).unwrap();
    let tokens = model.tokenizer().encode("What is 12.5 times 4?").unwrap();
    Session::new(model).logits(&tokens).unwrap()
}

fn err(result: Result<PathBuf, HubError>) -> String {
    result.expect_err("expected an error").to_string()
}

#[test]
fn a_gguf_download_lays_out_the_hub_cache_and_loads_again_offline() {
    let setup = Setup::new();
    let path = resolve_str(&format!("hf:{GGUF_REPO}"), &setup.options()).unwrap();

    let commit = Mirror::commit(GGUF_REPO);
    let bytes = std::fs::read(setup.served(GGUF_REPO, "qwen2-Q4_K_M.gguf")).unwrap();
    let sha = sha256_hex(&bytes);
    let repo = setup.repo_cache(GGUF_REPO);
    assert_eq!(
        path,
        repo.join("snapshots")
            .join(&commit)
            .join("qwen2-Q4_K_M.gguf")
    );
    assert_eq!(
        files_under(&repo),
        [
            format!("blobs/{sha}"),
            "refs/main".to_string(),
            format!("snapshots/{commit}/qwen2-Q4_K_M.gguf"),
        ]
    );
    assert_eq!(
        std::fs::read_link(&path).unwrap(),
        Path::new("../../blobs").join(&sha)
    );
    assert_eq!(std::fs::read(&path).unwrap(), bytes);
    assert_eq!(
        std::fs::read_to_string(repo.join("refs/main")).unwrap(),
        commit
    );

    // Offline, from the cache alone: not one request more.
    let before = setup.mirror.seen().len();
    let offline = setup.options().offline(true);
    assert_eq!(
        resolve_str(&format!("hf:{GGUF_REPO}"), &offline).unwrap(),
        path
    );
    assert_eq!(
        resolve_str(&format!("hf:{GGUF_REPO}:q4_k_m"), &offline).unwrap(),
        path
    );
    assert_eq!(
        resolve_str(&format!("hf:{GGUF_REPO}/qwen2-Q4_K_M.gguf"), &offline).unwrap(),
        path
    );
    assert_eq!(setup.mirror.seen().len(), before);
    // A quant not downloaded is not there offline, and the error says why.
    let missing = err(resolve_str(&format!("hf:{GGUF_REPO}:Q8_0"), &offline));
    assert!(missing.contains("HF_HUB_OFFLINE"), "{missing}");
    assert!(missing.contains("qwen2-Q4_K_M.gguf"), "{missing}");

    // Online again, the cached file is not downloaded twice.
    resolve_str(&format!("hf:{GGUF_REPO}"), &setup.options()).unwrap();
    let downloads = setup
        .mirror
        .seen()
        .iter()
        .filter(|s| s.method == "GET" && s.path.starts_with("/cdn/"))
        .count();
    assert_eq!(downloads, 1);
}

#[test]
fn a_model_from_hf_computes_what_the_file_by_path_computes() {
    let setup = Setup::new();
    let by_name = resolve_str(&format!("hf:{GGUF_REPO}:Q8_0"), &setup.options()).unwrap();
    assert!(
        by_name.ends_with("qwen2-Q8_0.gguf"),
        "{}",
        by_name.display()
    );
    let by_path = setup.served(GGUF_REPO, "qwen2-Q8_0.gguf");
    assert_eq!(logits(&by_name), logits(&by_path));

    // A safetensors repository is a model directory.
    let dir = resolve_str(&format!("hf:{ST_REPO}"), &setup.options()).unwrap();
    assert_eq!(
        dir,
        setup
            .repo_cache(ST_REPO)
            .join("snapshots")
            .join(Mirror::commit(ST_REPO))
    );
    assert_eq!(
        files_under(&dir),
        [
            "config.json",
            "generation_config.json",
            "model.safetensors",
            "tokenizer.json",
            "tokenizer_config.json"
        ]
    );
    assert_eq!(logits(&dir), logits(&setup.mirror.repo_dir(ST_REPO)));
}

#[test]
fn a_sharded_safetensors_repository_fetches_every_shard_its_index_names() {
    let setup = Setup::new();
    let repo = "tiny/qwen2-sharded";
    let dir = setup.mirror.repo_dir(repo);
    write_tiny_model(&dir, &TinySpec::qwen2(9)).unwrap();
    // The one weights file as the only shard of an index.
    let weights = std::fs::read(dir.join("model.safetensors")).unwrap();
    let header_len = u64::from_le_bytes(weights[..8].try_into().unwrap()) as usize;
    let header: serde_json::Value = serde_json::from_slice(&weights[8..8 + header_len]).unwrap();
    let shard = "model-00001-of-00001.safetensors";
    let weight_map: serde_json::Map<String, serde_json::Value> = header
        .as_object()
        .unwrap()
        .keys()
        .filter(|k| *k != "__metadata__")
        .map(|k| (k.clone(), serde_json::Value::from(shard)))
        .collect();
    std::fs::rename(dir.join("model.safetensors"), dir.join(shard)).unwrap();
    std::fs::write(
        dir.join("model.safetensors.index.json"),
        serde_json::to_string(&serde_json::json!({"metadata": {}, "weight_map": weight_map}))
            .unwrap(),
    )
    .unwrap();

    let snapshot = resolve_str(&format!("hf:{repo}"), &setup.options()).unwrap();
    assert!(snapshot.join(shard).is_file());
    assert!(snapshot.join("model.safetensors.index.json").is_file());
    let offline = resolve_str(&format!("hf:{repo}"), &setup.options().offline(true)).unwrap();
    assert_eq!(offline, snapshot);
    assert_eq!(logits(&snapshot), logits(&dir));
}

#[test]
fn a_split_gguf_is_fetched_whole_and_named_by_its_first_shard() {
    let setup = Setup::new();
    let repo = "tiny/split-GGUF";
    let dir = setup.mirror.repo_dir(repo);
    std::fs::create_dir_all(dir.join("Q4_K_M")).unwrap();
    for i in 1..=3 {
        let file = format!("Q4_K_M/m-Q4_K_M-0000{i}-of-00003.gguf");
        std::fs::write(dir.join(file), format!("shard {i}")).unwrap();
    }
    std::fs::write(dir.join("m-F16.gguf"), b"f16").unwrap();
    let path = resolve_str(&format!("hf:{repo}"), &setup.options()).unwrap();
    assert!(
        path.ends_with("Q4_K_M/m-Q4_K_M-00001-of-00003.gguf"),
        "{}",
        path.display()
    );
    let snapshot = setup
        .repo_cache(repo)
        .join("snapshots")
        .join(Mirror::commit(repo));
    assert_eq!(
        files_under(&snapshot),
        [
            "Q4_K_M/m-Q4_K_M-00001-of-00003.gguf",
            "Q4_K_M/m-Q4_K_M-00002-of-00003.gguf",
            "Q4_K_M/m-Q4_K_M-00003-of-00003.gguf"
        ]
    );
    assert_eq!(std::fs::read_to_string(&path).unwrap(), "shard 1");
}

#[test]
fn a_cut_download_is_resumed_with_a_range_request_and_verifies() {
    let setup = Setup::new();
    setup.mirror.cut_after(1000, 1);
    let path = resolve_str(&format!("hf:{GGUF_REPO}"), &setup.options()).unwrap();
    let ranges: Vec<String> = setup
        .mirror
        .seen()
        .iter()
        .filter_map(|s| s.range.clone())
        .collect();
    assert_eq!(ranges, ["bytes=1000-"]);
    let served = std::fs::read(setup.served(GGUF_REPO, "qwen2-Q4_K_M.gguf")).unwrap();
    assert_eq!(std::fs::read(&path).unwrap(), served);
}

#[test]
fn a_download_cut_every_time_keeps_its_part_for_the_next_call() {
    let setup = Setup::new();
    setup.mirror.cut_after(1000, 3);
    let message = err(resolve_str(&format!("hf:{GGUF_REPO}"), &setup.options()));
    assert!(message.contains("run again to resume"), "{message}");
    let blobs = setup.repo_cache(GGUF_REPO).join("blobs");
    let parts = files_under(&blobs);
    assert_eq!(parts.len(), 1, "{parts:?}");
    assert!(parts[0].ends_with(".incomplete"), "{parts:?}");
    assert_eq!(
        std::fs::metadata(blobs.join(&parts[0])).unwrap().len(),
        3000
    );

    let path = resolve_str(&format!("hf:{GGUF_REPO}"), &setup.options()).unwrap();
    let last_range = setup
        .mirror
        .seen()
        .iter()
        .rev()
        .find_map(|s| s.range.clone());
    assert_eq!(last_range.as_deref(), Some("bytes=3000-"));
    let served = std::fs::read(setup.served(GGUF_REPO, "qwen2-Q4_K_M.gguf")).unwrap();
    assert_eq!(std::fs::read(&path).unwrap(), served);
    assert!(!files_under(&blobs)
        .iter()
        .any(|f| f.ends_with(".incomplete")));
}

#[test]
fn a_checksum_mismatch_keeps_nothing_in_the_cache() {
    let setup = Setup::new();
    setup.mirror.wrong_checksum(true);
    let message = err(resolve_str(&format!("hf:{GGUF_REPO}"), &setup.options()));
    assert!(message.contains("checksum mismatch"), "{message}");
    let served = std::fs::read(setup.served(GGUF_REPO, "qwen2-Q4_K_M.gguf")).unwrap();
    assert!(message.contains(&sha256_hex(&served)), "{message}");
    let repo = setup.repo_cache(GGUF_REPO);
    assert_eq!(files_under(&repo.join("blobs")), Vec::<String>::new());
    assert_eq!(files_under(&repo.join("snapshots")), Vec::<String>::new());
}

#[test]
fn missing_repositories_files_and_quants_say_what_there_is() {
    let setup = Setup::new();
    let options = setup.options();
    let message = err(resolve_str("hf:tiny/nothing-here", &options));
    assert!(
        message.contains("repository tiny/nothing-here not found"),
        "{message}"
    );
    assert!(message.contains(&setup.mirror.url), "{message}");

    let message = err(resolve_str(
        &format!("hf:{GGUF_REPO}/qwen2-Q5_K_M.gguf"),
        &options,
    ));
    assert!(
        message.contains("no file \"qwen2-Q5_K_M.gguf\""),
        "{message}"
    );
    assert!(
        message.contains("qwen2-Q4_K_M.gguf, qwen2-Q8_0.gguf"),
        "{message}"
    );
    assert!(!message.contains("mmproj"), "{message}");

    let message = err(resolve_str(&format!("hf:{GGUF_REPO}:IQ2_XS"), &options));
    assert!(
        message.contains("no GGUF file with the quant tag \"IQ2_XS\""),
        "{message}"
    );
    assert!(
        message.contains("qwen2-Q4_K_M.gguf, qwen2-Q8_0.gguf"),
        "{message}"
    );

    let message = err(resolve_str("hf:tiny", &options));
    assert!(message.contains("expected hf:ORG/REPO"), "{message}");
    // Nothing was written for any of them.
    assert_eq!(files_under(&setup.cache), Vec::<String>::new());
}

#[test]
fn a_gated_repository_asks_for_hf_token() {
    let setup = Setup::new();
    setup.mirror.require_token(Some("hf_secret"));
    let name = format!("hf:{GGUF_REPO}");
    let message = err(resolve_str(&name, &setup.options()));
    assert!(message.contains("401"), "{message}");
    assert!(message.contains("set HF_TOKEN"), "{message}");
    let message = err(resolve_str(
        &name,
        &setup.options().token(Some("hf_wrong".into())),
    ));
    assert!(message.contains("has no access"), "{message}");

    let path = resolve_str(&name, &setup.options().token(Some("hf_secret".into()))).unwrap();
    assert!(path.is_file());
    let seen = setup.mirror.seen();
    // The token goes to the Hub, never to the storage it redirects to.
    assert!(seen
        .iter()
        .filter(|s| s.path.starts_with("/api/") || s.path.contains("/resolve/"))
        .any(|s| s.authorization.as_deref() == Some("Bearer hf_secret")));
    assert!(seen
        .iter()
        .filter(|s| s.path.starts_with("/cdn/"))
        .all(|s| s.authorization.is_none()));
}

#[test]
fn an_unreachable_hub_names_hf_hub_offline() {
    let setup = Setup::new();
    let port = {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        listener.local_addr().unwrap().port()
    };
    let options = setup.options().endpoint(format!("http://127.0.0.1:{port}"));
    let message = err(resolve_str(&format!("hf:{GGUF_REPO}"), &options));
    assert!(message.contains("cannot reach"), "{message}");
    assert!(message.contains("HF_HUB_OFFLINE=1"), "{message}");

    let message = err(resolve_str(
        &format!("hf:{GGUF_REPO}"),
        &setup.options().offline(true),
    ));
    assert!(message.contains("HF_HUB_OFFLINE is set"), "{message}");
    assert!(message.contains(GGUF_REPO), "{message}");
}

/// Run by [`model_load_takes_hf_names_from_the_environment`] in a child
/// process with the environment it sets; does nothing otherwise.
#[test]
fn child_loads_a_name_from_the_environment() {
    let Ok(name) = std::env::var("TOOL_MODELS_HUB_CHILD") else {
        return;
    };
    match Model::load(&name) {
        Ok(model) => {
            let tokens = model.tokenizer().encode("What is 12.5 times 4?").unwrap();
            let logits = Session::new(model).logits(&tokens).unwrap();
            println!("LOGITS {}", serde_json::to_string(&logits).unwrap());
        }
        Err(e) => println!("ERROR {e}"),
    }
}

#[test]
fn model_load_takes_hf_names_from_the_environment() {
    let setup = Setup::new();
    let home = setup.cache.parent().unwrap().to_owned();
    let child = |name: &str, env: &[(&str, &str)]| {
        let mut command = std::process::Command::new(std::env::current_exe().unwrap());
        command
            .args([
                "--exact",
                "child_loads_a_name_from_the_environment",
                "--nocapture",
            ])
            .env("TOOL_MODELS_HUB_CHILD", name)
            .env("HF_HOME", &home)
            .env_remove("HF_HUB_CACHE")
            .env_remove("HF_TOKEN")
            .env_remove("HF_HUB_OFFLINE");
        for (k, v) in env {
            command.env(k, v);
        }
        let out = command.output().unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
        assert!(out.status.success(), "{stdout}");
        let line = stdout
            .lines()
            .find(|l| l.starts_with("LOGITS ") || l.starts_with("ERROR "))
            .unwrap_or_else(|| panic!("no result: {stdout}"))
            .to_owned();
        match line.strip_prefix("LOGITS ") {
            Some(json) => Ok(serde_json::from_str::<Vec<f32>>(json).unwrap()),
            None => Err(line["ERROR ".len()..].to_owned()),
        }
    };
    let name = format!("hf:{GGUF_REPO}:Q4_K_M");
    let expected = logits(&setup.served(GGUF_REPO, "qwen2-Q4_K_M.gguf"));
    let online = child(&name, &[("HF_ENDPOINT", &setup.mirror.url)]);
    assert_eq!(online.unwrap(), expected);
    assert!(setup.repo_cache(GGUF_REPO).join("refs/main").is_file());

    // Offline, with the Hub unreachable: from the cache.
    let dead = "http://127.0.0.1:9";
    let offline = child(&name, &[("HF_ENDPOINT", dead), ("HF_HUB_OFFLINE", "1")]);
    assert_eq!(offline.unwrap(), expected);
    let missing = child(
        &format!("hf:{ST_REPO}"),
        &[("HF_ENDPOINT", dead), ("HF_HUB_OFFLINE", "1")],
    );
    assert!(missing.unwrap_err().contains("HF_HUB_OFFLINE is set"));
    let bad = child("hf:nope", &[("HF_ENDPOINT", dead)]);
    assert!(bad.unwrap_err().contains("expected hf:ORG/REPO"));
}

/// A Python that has huggingface_hub (`None`, after saying so, where there
/// is none), and a fresh mirror and cache for it to share.
fn python_and_setup() -> Option<(String, Setup)> {
    let python = python::python_with("huggingface_hub")?;
    Some((python, Setup::new()))
}

#[test]
fn python_downloads_from_the_mirror_and_rust_finds_the_file_offline() {
    let Some((python, setup)) = python_and_setup() else {
        return;
    };
    let home = setup.hf_home();
    let code = "import sys; from huggingface_hub import hf_hub_download; \
                print(hf_hub_download(sys.argv[1], sys.argv[2]))";
    let for_file = |file: &str| {
        python::run(
            &python,
            code,
            &[GGUF_REPO, file],
            &[("HF_ENDPOINT", &setup.mirror.url), ("HF_HOME", &home)],
        )
    };
    let from_python = for_file("qwen2-Q4_K_M.gguf");
    for_file("README.md");
    let offline = setup.options().offline(true);
    let from_rust = resolve_str(&format!("hf:{GGUF_REPO}"), &offline).unwrap();
    assert_eq!(PathBuf::from(from_python), from_rust);
    let readme = resolve_str(&format!("hf:{GGUF_REPO}/README.md"), &offline).unwrap();
    assert_eq!(std::fs::read_to_string(readme).unwrap(), "# tiny\n");
    assert_eq!(
        logits(&from_rust),
        logits(&setup.served(GGUF_REPO, "qwen2-Q4_K_M.gguf"))
    );
}

#[test]
fn rust_downloads_from_the_mirror_and_python_finds_the_files_offline() {
    let Some((python, setup)) = python_and_setup() else {
        return;
    };
    let home = setup.hf_home();
    let gguf = resolve_str(&format!("hf:{GGUF_REPO}"), &setup.options()).unwrap();
    let readme = resolve_str(&format!("hf:{GGUF_REPO}/README.md"), &setup.options()).unwrap();
    let dir = resolve_str(&format!("hf:{ST_REPO}"), &setup.options()).unwrap();
    let code = "import sys; from huggingface_hub import hf_hub_download, snapshot_download; \
                print(hf_hub_download(sys.argv[1], sys.argv[2])); \
                print(hf_hub_download(sys.argv[1], sys.argv[3])); \
                print(snapshot_download(sys.argv[4]))";
    let out = python::run(
        &python,
        code,
        &[GGUF_REPO, "qwen2-Q4_K_M.gguf", "README.md", ST_REPO],
        &[
            ("HF_ENDPOINT", "http://127.0.0.1:9"),
            ("HF_HOME", &home),
            ("HF_HUB_OFFLINE", "1"),
        ],
    );
    let lines: Vec<PathBuf> = out.lines().map(PathBuf::from).collect();
    assert_eq!(lines, [gguf, readme, dir]);
}
