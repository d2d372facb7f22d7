//! `tool-use generate --model hf:…` as a user runs it: a model already in
//! the Hugging Face cache found with `HF_HUB_OFFLINE=1` (generating what the
//! same file generates by path), and an unreachable Hub or a missing file
//! answered with how to use the cache only. The downloads themselves are
//! tested against a local mirror of the Hub in tool-models/tests/hub.rs.

#![cfg(feature = "cli")]

#[path = "common/cli.rs"]
mod cli;

use cli::{failed, succeeded, tool_use};
use std::path::{Path, PathBuf};
use std::process::Command;
use tool_use::model::tiny::{write_tiny_gguf, TinySpec};

const COMMIT: &str = "0123456789abcdef0123456789abcdef01234567";

/// `tool-use generate --json` with `env` and nothing of the caller's Hub
/// settings.
fn generate(model: &str, env: &[(&str, &Path)]) -> Command {
    let mut command = tool_use();
    command
        .args(["generate", "--max-tokens", "4", "--json", "--model", model])
        .arg("Hello")
        .env_remove("TOOL_USE_MODEL")
        .env_remove("HF_HUB_CACHE")
        .env_remove("HF_TOKEN")
        .env_remove("HF_HUB_OFFLINE")
        .env_remove("HF_ENDPOINT");
    for (k, v) in env {
        command.env(k, v);
    }
    command
}

/// The folder of `repo` (`ORG/NAME`) in the Hugging Face cache under
/// `home`, laid out as huggingface_hub lays it out: `refs/main` names
/// [`COMMIT`], whose snapshot folder is made, empty.
fn cached_repo(home: &Path, repo: &str) -> PathBuf {
    let dir = home
        .join("hub")
        .join(format!("models--{}", repo.replace('/', "--")));
    std::fs::create_dir_all(dir.join("snapshots").join(COMMIT)).unwrap();
    std::fs::create_dir_all(dir.join("refs")).unwrap();
    std::fs::write(dir.join("refs/main"), COMMIT).unwrap();
    dir
}

#[test]
fn generate_finds_an_hf_model_in_the_cache_offline() {
    let tmp = tempfile::tempdir().unwrap();
    let home = tmp.path().join("home");
    let file = tmp.path().join("tiny-Q4_K_M.gguf");
    write_tiny_gguf(&file, &TinySpec::qwen2(7)).unwrap();
    // The file in the cache as a blob, linked from the snapshot.
    let repo = cached_repo(&home, "tiny/qwen2-GGUF");
    std::fs::create_dir_all(repo.join("blobs")).unwrap();
    std::fs::copy(&file, repo.join("blobs/blob")).unwrap();
    let link = repo.join("snapshots").join(COMMIT).join("tiny-Q4_K_M.gguf");
    #[cfg(unix)]
    std::os::unix::fs::symlink("../../blobs/blob", &link).unwrap();
    #[cfg(not(unix))]
    std::fs::copy(&file, &link).unwrap();

    let offline = Path::new("1");
    let dead = Path::new("http://127.0.0.1:9");
    let env = [
        ("HF_HOME", home.as_path()),
        ("HF_HUB_OFFLINE", offline),
        ("HF_ENDPOINT", dead),
    ];
    let run = |model: &str| -> serde_json::Value {
        let out = generate(model, &env).output().unwrap();
        serde_json::from_slice(&succeeded(out)).unwrap()
    };
    let by_name = run("hf:tiny/qwen2-GGUF:q4_k_m");
    let by_path = run(file.to_str().unwrap());
    assert_eq!(by_name["ids"], by_path["ids"]);
    assert_eq!(by_name["prompt_ids"], by_path["prompt_ids"]);
    assert_eq!(run("hf:tiny/qwen2-GGUF")["ids"], by_path["ids"]);

    let stderr = failed(generate("hf:tiny/qwen2-GGUF:Q8_0", &env).output().unwrap());
    assert!(stderr.contains("HF_HUB_OFFLINE is set"), "{stderr}");
    assert!(stderr.contains("tiny-Q4_K_M.gguf"), "{stderr}");
}

#[test]
fn generate_names_hf_hub_offline_when_the_hub_is_unreachable() {
    let tmp = tempfile::tempdir().unwrap();
    let port = {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        listener.local_addr().unwrap().port()
    };
    let endpoint = format!("http://127.0.0.1:{port}");
    let env = [
        ("HF_HOME", tmp.path()),
        ("HF_ENDPOINT", Path::new(&endpoint)),
    ];
    let stderr = failed(generate("hf:tiny/qwen2-GGUF", &env).output().unwrap());
    assert!(stderr.contains("cannot reach"), "{stderr}");
    assert!(stderr.contains("HF_HUB_OFFLINE=1"), "{stderr}");

    let stderr = failed(generate("hf:tiny", &env).output().unwrap());
    assert!(stderr.contains("expected hf:ORG/REPO"), "{stderr}");
}

/// `--chat-template hf:ORG/REPO/FILE` takes one file from the cache (no
/// weights): `tool-use doctor` on a tiny model whose own template is
/// replaced by one cached under a Hub name reports that template's format.
#[test]
fn a_chat_template_named_on_the_hub_comes_from_the_cache() {
    let tmp = tempfile::tempdir().unwrap();
    let model = tmp.path().join("model");
    tool_use::model::tiny::write_tiny_model(
        &model,
        &TinySpec {
            max_position_embeddings: 4096,
            ..TinySpec::qwen2(7)
        },
    )
    .unwrap();
    // FunctionGemma's template (as the project pins it), cached as
    // `tiny/functiongemma-template`'s tokenizer_config.json.
    let template = include_str!("data/functiongemma_format.jinja");
    let config = serde_json::json!({"chat_template": template, "eos_token": "<|im_end|>"});
    let home = tmp.path().join("home");
    let snapshot = cached_repo(&home, "tiny/functiongemma-template")
        .join("snapshots")
        .join(COMMIT);
    std::fs::write(snapshot.join("tokenizer_config.json"), config.to_string()).unwrap();
    let out = tool_use()
        .args(["doctor", "--json", "--model"])
        .arg(&model)
        .args([
            "--chat-template",
            "hf:tiny/functiongemma-template/tokenizer_config.json",
        ])
        .env("HF_HOME", &home)
        .env("HF_HUB_OFFLINE", "1")
        .env("HF_ENDPOINT", "http://127.0.0.1:9")
        .env_remove("HF_HUB_CACHE")
        .output()
        .unwrap();
    let report: serde_json::Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out.stderr)));
    assert_eq!(report["tool_format"]["id"], "functiongemma", "{report}");

    let missing = tool_use()
        .args(["doctor", "--model"])
        .arg(&model)
        .args(["--chat-template", "hf:tiny/absent/tokenizer_config.json"])
        .env("HF_HOME", &home)
        .env("HF_HUB_OFFLINE", "1")
        .env_remove("HF_HUB_CACHE")
        .output()
        .unwrap();
    let stderr = failed(missing);
    assert!(
        stderr.contains("--chat-template") && stderr.contains("HF_HUB_OFFLINE"),
        "{stderr}"
    );
}
