//! BFCL is the bundled model's test set: the corpus must hold none of its
//! functions, questions or answers. This measures the overlap between the
//! training corpus (standard conversations and made-up tools) and the
//! installed BFCL data, prints it, and fails on any function the two share
//! (the same name with the same parameters) or any question that shares a
//! word 13-gram with the corpus (the length GPT-3's decontamination used).
//! Names alone, and 8-grams, are reported: common names
//! (`get_stock_price`) and phrasings ("what the temperature is going to
//! be in") are no leak.
//!
//! BFCL's data is found as `tool-use eval bfcl` finds it:
//! `$TOOL_USE_BFCL_DATA`, else the `bfcl_eval` package of `$TOOL_USE_PYTHON`
//! (or `python3`). Without it the test is skipped with a message, unless
//! `TOOL_USE_REQUIRE_PYTHON_CLIENTS=1` (as in CI), when it fails.

use serde_json::Value;
use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::process::Command;
use tool_train::corpus::{self, Example, Practice, Split};

/// The corpus measured: the made-up-tool practice's training split, whose
/// other half is the standard conversations.
fn corpus() -> Vec<Example> {
    let mut examples = corpus::generate_with(1, 6000, Split::Train, Practice::Schemas);
    examples.extend(corpus::generate_schemas(2, 3000, Split::HeldOut));
    examples
}

/// The length of the word n-grams a question may not share.
const N: usize = 13;

/// Functions of the standard corpus (v19's, written before BFCL was its
/// test set) that BFCL also has: `convert_currency(amount, from_currency,
/// to_currency)`, the textbook converter. The made-up tools add none; the
/// corpus the next shipped model trains on renames it, and then this list
/// is empty.
const KNOWN_SHARED: [&str; 1] = ["convert_currency"];

/// The shorter n-grams reported.
const SHORT: usize = 8;

fn data_dir() -> Option<PathBuf> {
    if let Some(dir) = std::env::var_os("TOOL_USE_BFCL_DATA").filter(|d| !d.is_empty()) {
        return Some(PathBuf::from(dir));
    }
    let python = std::env::var("TOOL_USE_PYTHON").unwrap_or_else(|_| "python3".into());
    // A relative interpreter path is the workspace's (CI's
    // `target/llama-venv/bin/python`); tests run in the package's folder.
    let python = if Path::new(&python).components().count() > 1 && Path::new(&python).is_relative()
    {
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("..")
            .join(&python)
    } else {
        PathBuf::from(&python)
    };
    let script =
        "import bfcl_eval, os; print(os.path.join(os.path.dirname(bfcl_eval.__file__), 'data'))";
    let out = Command::new(&python).args(["-c", script]).output().ok()?;
    let dir = String::from_utf8_lossy(&out.stdout).trim().to_owned();
    (out.status.success() && !dir.is_empty()).then(|| PathBuf::from(dir))
}

/// What BFCL holds: its functions and their names, and its questions.
#[derive(Default)]
struct Bfcl {
    names: HashSet<String>,
    functions: HashSet<(String, Vec<String>)>,
    questions: Vec<String>,
}

fn read_bfcl(dir: &Path) -> Bfcl {
    let mut bfcl = Bfcl::default();
    let mut files: Vec<PathBuf> = Vec::new();
    for folder in [dir.to_path_buf(), dir.join("possible_answer")] {
        for entry in std::fs::read_dir(&folder).unwrap().flatten() {
            let path = entry.path();
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            if name.starts_with("BFCL_v4_") && name.ends_with(".json") {
                files.push(path);
            }
        }
    }
    assert!(!files.is_empty(), "no BFCL_v4_*.json in {}", dir.display());
    for path in files {
        let text = std::fs::read_to_string(&path).unwrap();
        for line in text.lines().filter(|l| !l.trim().is_empty()) {
            let Ok(item) = serde_json::from_str::<Value>(line) else {
                continue;
            };
            collect(&item, &mut bfcl);
        }
    }
    bfcl
}

/// Walks one BFCL record: `function` lists give names and descriptions,
/// `question` lists give the users' words, `ground_truth` the answers.
fn collect(item: &Value, bfcl: &mut Bfcl) {
    if let Some(functions) = item.get("function").and_then(Value::as_array) {
        for f in functions {
            if let Some(name) = f.get("name").and_then(Value::as_str) {
                bfcl.names.insert(name.replace('.', "_").to_lowercase());
                bfcl.functions.insert(signature(name, &f["parameters"]));
            }
        }
    }
    if let Some(turns) = item.get("question").and_then(Value::as_array) {
        for turn in turns.iter().filter_map(Value::as_array) {
            for message in turn {
                if message.get("role").and_then(Value::as_str) == Some("user") {
                    if let Some(text) = message.get("content").and_then(Value::as_str) {
                        bfcl.questions.push(text.to_owned());
                    }
                }
            }
        }
    }
}

/// A function as compared: its name as tool APIs see it, lower case, and
/// its parameters' names, sorted.
fn signature(name: &str, parameters: &Value) -> (String, Vec<String>) {
    let mut params: Vec<String> = parameters["properties"]
        .as_object()
        .map(|p| p.keys().cloned().collect())
        .unwrap_or_default();
    params.sort();
    (name.replace('.', "_").to_lowercase(), params)
}

/// Lower-case words, punctuation dropped.
fn words(text: &str) -> Vec<String> {
    text.split(|c: char| !c.is_alphanumeric() && c != '\'')
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect()
}

fn grams(text: &str, n: usize) -> Vec<String> {
    let w = words(text);
    w.windows(n).map(|g| g.join(" ")).collect()
}

#[test]
fn the_corpus_shares_no_function_or_question_with_bfcl() {
    let Some(dir) = data_dir().filter(|d| d.is_dir()) else {
        if std::env::var("TOOL_USE_REQUIRE_PYTHON_CLIENTS").as_deref() == Ok("1") {
            panic!("BFCL's data is required (TOOL_USE_REQUIRE_PYTHON_CLIENTS=1) but not found");
        }
        eprintln!(
            "skipped: BFCL's data not found (install bfcl-eval for $TOOL_USE_PYTHON, \
             or set TOOL_USE_BFCL_DATA)"
        );
        return;
    };
    let bfcl = read_bfcl(&dir);
    let examples = corpus();

    // Every tool and every text of the corpus: requests, answers, tool
    // descriptions.
    let mut names: HashSet<String> = HashSet::new();
    let mut functions: HashSet<(String, Vec<String>)> = HashSet::new();
    let mut texts: Vec<String> = Vec::new();
    for example in &examples {
        for tool in &example.tools {
            let f = &tool["function"];
            if let Some(name) = f["name"].as_str() {
                names.insert(name.replace('.', "_").to_lowercase());
                functions.insert(signature(name, &f["parameters"]));
            }
            texts.push(f["description"].as_str().unwrap_or_default().to_owned());
        }
        texts.extend(example.messages.iter().map(|m| m.text().to_owned()));
    }
    let gram_set =
        |n: usize| -> HashSet<String> { texts.iter().flat_map(|t| grams(t, n)).collect() };
    let (long, short) = (gram_set(N), gram_set(SHORT));
    let sharing = |set: &HashSet<String>, n: usize| -> Vec<&String> {
        bfcl.questions
            .iter()
            .filter(|q| grams(q, n).iter().any(|g| set.contains(g)))
            .collect()
    };
    let shared_long = sharing(&long, N);
    let shared_short = sharing(&short, SHORT);
    let shared_functions: Vec<_> = functions.intersection(&bfcl.functions).collect();
    let mut shared_names: Vec<&String> = names.intersection(&bfcl.names).collect();
    shared_names.sort();
    let percent = |k: usize| 100.0 * k as f64 / bfcl.questions.len().max(1) as f64;
    eprintln!(
        "decontamination: {} corpus conversations against {} ({} functions, {} questions)",
        examples.len(),
        dir.display(),
        bfcl.functions.len(),
        bfcl.questions.len(),
    );
    eprintln!(
        "  functions in both: {}; questions sharing a word {N}-gram: {} ({:.2}%), \
         a {SHORT}-gram: {} ({:.2}%); names alone in both: {} {shared_names:?}",
        shared_functions.len(),
        shared_long.len(),
        percent(shared_long.len()),
        shared_short.len(),
        percent(shared_short.len()),
        shared_names.len(),
    );
    let mut shared_functions: Vec<&str> = shared_functions.iter().map(|f| f.0.as_str()).collect();
    shared_functions.sort();
    assert_eq!(
        shared_functions, KNOWN_SHARED,
        "functions in both the corpus and BFCL (same name, same parameters)"
    );
    assert!(
        shared_long.is_empty(),
        "BFCL questions sharing a word {N}-gram with the corpus: {:?}",
        &shared_long[..shared_long.len().min(5)]
    );
}
