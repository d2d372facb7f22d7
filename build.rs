//! Turns the shared schema fixtures (`../shared/fixtures/schema/cases.jsonl`)
//! into a test module, so `tests/schema_fixtures.rs` compiles every case's
//! Rust function with `#[tool]` while reading the expected JSON at run time.
//! The fixtures are found as the tests find them (tests/common/fixtures.rs):
//! under `$TOOL_USE_FIXTURES`, else `../shared/fixtures`. Without them (a
//! plain clone, the published crate) the module is empty.

use std::fmt::Write;
use std::path::{Path, PathBuf};

/// A case's name and its schema function.
const CASE_TYPE: &str = "pub type Case = (&'static str, fn() -> &'static ::serde_json::Value);\n";

fn main() {
    let root = std::env::var_os("TOOL_USE_FIXTURES")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("../shared/fixtures"));
    let fixtures = root.join("schema/cases.jsonl");
    println!("cargo::rerun-if-env-changed=TOOL_USE_FIXTURES");
    println!("cargo::rerun-if-changed={}", fixtures.display());
    println!("cargo::rerun-if-changed=build.rs");
    let out =
        Path::new(&std::env::var("OUT_DIR").expect("cargo sets OUT_DIR")).join("schema_cases.rs");
    let code = match std::fs::read_to_string(&fixtures) {
        Ok(text) => cases_module(&text),
        Err(_) => {
            format!("{CASE_TYPE}pub static CASES: &[Case] = &[];\n")
        }
    };
    std::fs::write(out, code).expect("write schema_cases.rs");
}

fn cases_module(text: &str) -> String {
    let mut modules = String::new();
    let mut table = String::new();
    for (i, line) in text
        .lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
    {
        let case: serde_json::Value = serde_json::from_str(line)
            .unwrap_or_else(|e| panic!("cases.jsonl line {}: {e}", i + 1));
        let name = case["name"].as_str().expect("case has a name");
        let rust = case["rust"].as_str().expect("case has rust source");
        let func =
            tool_fn_name(rust).unwrap_or_else(|| panic!("case {name}: no `fn` after #[tool]"));
        let module = format!("case_{i}");
        writeln!(
            modules,
            "#[allow(unused, clippy::all)]\nmod {module} {{\n    use ::tool_use::tool;\n{rust}\n    pub fn schema() -> &'static ::serde_json::Value {{ {func}::schema() }}\n}}\n"
        )
        .unwrap();
        writeln!(table, "    ({name:?}, {module}::schema),").unwrap();
    }
    format!("{modules}\n{CASE_TYPE}pub static CASES: &[Case] = &[\n{table}];\n")
}

/// The name of the function that follows `#[tool...]`.
fn tool_fn_name(rust: &str) -> Option<&str> {
    let after = &rust[rust.find("#[tool")?..];
    let rest = &after[after.find("fn ")? + 3..];
    let end = rest.find(|c: char| !(c.is_alphanumeric() || c == '_'))?;
    Some(&rest[..end])
}
