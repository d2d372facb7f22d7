//! The docs agree with themselves and with the code: README carries the one
//! feature table word for word, the book's table of contents and its files
//! are the same set, every relative link in README, the crate READMEs and
//! the book leads to a file, and the family count the docs give is the
//! parsers' own. (The examples in them run as doctests: `src/book.rs`.)

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use tool_use::parse::Format;

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn read(path: &str) -> String {
    std::fs::read_to_string(root().join(path)).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// The targets of the markdown links `[text](target)` in `text`, without
/// `#anchors`; web addresses left out.
fn links(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = text;
    while let Some(at) = rest.find("](") {
        let after = &rest[at + 2..];
        let Some(end) = after.find(')') else { break };
        let target = after[..end].split('#').next().unwrap_or_default();
        if !target.is_empty() && !target.contains("://") && !target.contains(' ') {
            out.push(target.to_owned());
        }
        rest = &after[end..];
    }
    // mdBook's includes are links too: a missing file is a hole in the book.
    for include in text.split("{{#include ").skip(1) {
        if let Some(end) = include.find("}}") {
            out.push(include[..end].trim().to_owned());
        }
    }
    out
}

#[test]
fn readme_carries_the_feature_table_word_for_word() {
    let table = read("src/features.md");
    let readme = read("README.md");
    assert!(
        readme.contains(&table),
        "README.md's feature table differs from src/features.md (the one copy: \
         edit it there and paste it into README)"
    );
    // The crate docs and the book include the file itself.
    assert!(read("src/lib.rs").contains(r#"#![doc = include_str!("features.md")]"#));
    assert!(read("docs/src/introduction.md").contains("{{#include ../../src/features.md}}"));
}

#[test]
fn the_docs_give_the_parsers_own_family_count() {
    // The generic JSON answer is a format, not a model family.
    let families = Format::all().filter(|f| *f != Format::Generic).count();
    let phrase = format!("{families} model families");
    for file in ["src/features.md", "tool-models/README.md"] {
        assert!(
            read(file).contains(&phrase),
            "{file} does not say {phrase:?}"
        );
    }
    let table = read("docs/src/parsing-tool-calls.md");
    let rows = table
        .lines()
        .filter(|l| l.starts_with("| `"))
        .map(|l| l.split('`').nth(1).unwrap_or_default().to_owned())
        .collect::<BTreeSet<_>>();
    let ids = Format::ids()
        .into_iter()
        .map(str::to_owned)
        .collect::<BTreeSet<_>>();
    assert_eq!(rows, ids, "the parsing chapter's family table");
}

#[test]
fn the_book_lists_every_chapter_and_only_those() {
    let summary = read("docs/src/SUMMARY.md");
    let listed: BTreeSet<String> = links(&summary).into_iter().collect();
    let files: BTreeSet<String> = std::fs::read_dir(root().join("docs/src"))
        .expect("docs/src")
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".md") && n != "SUMMARY.md")
        .collect();
    assert_eq!(
        listed, files,
        "docs/src/SUMMARY.md against the files of docs/src"
    );
    assert!(
        read("README.md").contains("](docs/src/introduction.md)"),
        "README links to the book's first page"
    );
}

#[test]
fn every_relative_link_leads_to_a_file() {
    let mut pages: Vec<PathBuf> = [
        "README.md",
        "tool-models/README.md",
        "tool-mcp/README.md",
        "models/tool-use-mini/README.md",
    ]
    .iter()
    .map(PathBuf::from)
    .collect();
    for entry in std::fs::read_dir(root().join("docs/src"))
        .expect("docs/src")
        .flatten()
    {
        pages.push(Path::new("docs/src").join(entry.file_name()));
    }
    let mut broken = Vec::new();
    for page in &pages {
        let text = read(page.to_str().expect("a UTF-8 path"));
        let dir = root().join(page.parent().expect("a folder"));
        for target in links(&text) {
            if !dir.join(&target).exists() {
                broken.push(format!("{}: {target}", page.display()));
            }
        }
    }
    assert!(
        broken.is_empty(),
        "links to nothing:\n{}",
        broken.join("\n")
    );
}
