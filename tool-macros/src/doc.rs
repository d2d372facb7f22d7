//! Parses a tool's doc comment: the description, the parameters' descriptions
//! (Google `Args:` or rustdoc `# Arguments`) and the `Returns` text.
//!
//! Follows transformers' `get_json_schema` with one refinement: a line indented
//! deeper than the entries continues the entry above it, even when it looks like
//! `key: value` (transformers would start a new argument there).

/// What a doc comment says about a tool.
#[derive(Debug, Default, PartialEq)]
pub struct Docs {
    /// Text before the first section, trimmed; inner newlines kept.
    pub description: String,
    pub args: Vec<ArgDoc>,
    pub returns: Option<Section>,
}

/// One documented parameter.
#[derive(Debug, PartialEq)]
pub struct ArgDoc {
    pub name: String,
    /// Whitespace collapsed, the `(choices: …)` suffix removed.
    pub description: String,
    /// The raw text inside `(choices: …)`, to be parsed as JSON.
    pub choices: Option<String>,
    /// Index of the doc line the entry starts on, for error spans.
    pub line: usize,
}

/// A `Returns` section: its text and the line of its header.
#[derive(Debug, PartialEq)]
pub struct Section {
    pub text: String,
    pub line: usize,
}

/// A problem in the doc comment, located on one of its lines.
#[derive(Debug, PartialEq)]
pub struct DocError {
    pub line: usize,
    pub message: String,
}

#[derive(Clone, Copy, PartialEq, Debug)]
enum Kind {
    Args { markdown: bool },
    Returns,
    Other,
}

fn header(line: &str) -> Option<Kind> {
    let t = line.trim();
    if let Some(title) = t.strip_suffix(':') {
        // Google-style headers that end the description (transformers
        // knows the first three).
        return match title {
            "Args" | "Arguments" | "Parameters" | "Params" => Some(Kind::Args { markdown: false }),
            "Returns" | "Return" => Some(Kind::Returns),
            "Raises" | "Errors" | "Panics" | "Safety" | "Yields" | "Example" | "Examples"
            | "Note" | "Notes" | "Warning" | "Warnings" | "See Also" | "References" | "Todo"
            | "Attributes" => Some(Kind::Other),
            _ => None,
        };
    }
    let hashes = t.bytes().take_while(|&b| b == b'#').count();
    if !(1..=6).contains(&hashes) || !t[hashes..].starts_with(' ') {
        return None;
    }
    let title = t[hashes..].trim().to_ascii_lowercase();
    Some(match title.as_str() {
        "arguments" | "args" | "parameters" | "params" => Kind::Args { markdown: true },
        "returns" | "return" => Kind::Returns,
        _ => Kind::Other,
    })
}

fn indent(line: &str) -> usize {
    line.len() - line.trim_start().len()
}

fn collapse(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Parses the lines of a doc comment (one per `///`, leading space included).
pub fn parse(lines: &[String]) -> Result<Docs, Vec<DocError>> {
    let base = lines
        .iter()
        .filter(|l| !l.trim().is_empty())
        .map(|l| indent(l))
        .min()
        .unwrap_or(0);
    let lines: Vec<&str> = lines
        .iter()
        .map(|l| l.get(base..).unwrap_or("").trim_end())
        .collect();

    // Split into the description and sections, ignoring `#` lines in code fences.
    let mut sections: Vec<(Kind, usize, Vec<usize>)> = Vec::new();
    let mut description = Vec::new();
    let mut fence = false;
    for (i, line) in lines.iter().enumerate() {
        let t = line.trim_start();
        if t.starts_with("```") || t.starts_with("~~~") {
            fence = !fence;
        }
        match (!fence).then(|| header(line)).flatten() {
            Some(kind) => sections.push((kind, i, Vec::new())),
            None => match sections.last_mut() {
                Some((_, _, body)) => body.push(i),
                None => description.push(*line),
            },
        }
    }

    let mut docs = Docs {
        description: description.join("\n").trim().to_owned(),
        ..Docs::default()
    };
    let mut errors = Vec::new();
    for (kind, header_line, body) in sections {
        match kind {
            Kind::Args { markdown } => {
                parse_args(&lines, &body, markdown, &mut docs.args, &mut errors)
            }
            Kind::Returns => {
                let text = collapse(&body.iter().map(|&i| lines[i]).collect::<Vec<_>>().join(" "));
                docs.returns = Some(Section {
                    text,
                    line: header_line,
                });
            }
            Kind::Other => {}
        }
    }
    if errors.is_empty() {
        Ok(docs)
    } else {
        Err(errors)
    }
}

fn parse_args(
    lines: &[&str],
    body: &[usize],
    markdown: bool,
    args: &mut Vec<ArgDoc>,
    errors: &mut Vec<DocError>,
) {
    let Some(entry_indent) = body
        .iter()
        .map(|&i| lines[i])
        .find(|l| !l.trim().is_empty())
        .map(indent)
    else {
        return;
    };
    // (name, pieces of description, line)
    let mut current: Option<(String, Vec<&str>, usize)> = None;
    let mut entries = Vec::new();
    for &i in body {
        let line = lines[i];
        if line.trim().is_empty() {
            continue;
        }
        let entry = if indent(line) <= entry_indent {
            parse_entry(line.trim())
        } else {
            None
        };
        match (entry, &mut current) {
            (Some((name, desc)), _) => {
                entries.extend(current.take());
                current = Some((name.to_owned(), vec![desc], i));
            }
            (None, Some((_, pieces, _))) => pieces.push(line.trim()),
            (None, None) if markdown => {} // prose before the first bullet
            (None, None) => errors.push(DocError {
                line: i,
                message: format!(
                    "expected `name: description` in the `Args:` section, found `{}`",
                    line.trim()
                ),
            }),
        }
    }
    entries.extend(current);

    for (name, pieces, line) in entries {
        if args.iter().any(|a| a.name == name) {
            errors.push(DocError {
                line,
                message: format!("parameter `{name}` is documented twice; keep one entry"),
            });
            continue;
        }
        let (description, choices) = split_choices(&collapse(&pieces.join(" ")));
        args.push(ArgDoc {
            name,
            description,
            choices,
            line,
        });
    }
}

/// `name: desc`, `name (type): desc`, or a bullet ``* `name` - desc``.
fn parse_entry(line: &str) -> Option<(&str, &str)> {
    let (rest, bullet) = match line.strip_prefix(['*', '-', '+']) {
        Some(r) if r.starts_with(char::is_whitespace) => (r.trim_start(), true),
        _ => (line, false),
    };
    let rest = rest.strip_prefix("r#").unwrap_or(rest);
    let (name, after) = if let Some(r) = rest.strip_prefix('`') {
        let end = r.find('`')?;
        (&r[..end], &r[end + 1..])
    } else {
        let end = rest
            .find(|c: char| !(c.is_alphanumeric() || c == '_'))
            .unwrap_or(rest.len());
        (&rest[..end], &rest[end..])
    };
    let name = name.strip_prefix("r#").unwrap_or(name);
    if name.is_empty() || !name.chars().all(|c| c.is_alphanumeric() || c == '_') {
        return None;
    }
    let mut after = after.trim_start();
    // An optional `(type)` annotation, as Google style allows.
    if after.starts_with('(') {
        after = after[after.find(')')? + 1..].trim_start();
    }
    let separators: &[&str] = if bullet {
        &[":", "-", "–", "—"]
    } else {
        &[":"]
    };
    let desc = separators.iter().find_map(|s| after.strip_prefix(s))?;
    Some((name, desc.trim()))
}

/// Splits a trailing `(choices: [...])` (any case) off a description.
fn split_choices(desc: &str) -> (String, Option<String>) {
    if !desc.ends_with(')') {
        return (desc.to_owned(), None);
    }
    let lower = desc.to_ascii_lowercase();
    let Some(start) = lower.find("(choices:") else {
        return (desc.to_owned(), None);
    };
    let inner = desc[start + "(choices:".len()..desc.len() - 1].trim();
    (desc[..start].trim().to_owned(), Some(inner.to_owned()))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `text` as the lines of a doc comment, parsed.
    fn parsed(text: &str) -> Result<Docs, Vec<DocError>> {
        let lines: Vec<String> = text.lines().map(|l| format!(" {l}")).collect();
        parse(&lines)
    }

    fn doc(text: &str) -> Docs {
        parsed(text).unwrap()
    }

    fn doc_errors(text: &str) -> Vec<DocError> {
        parsed(text).unwrap_err()
    }

    fn arg<'a>(docs: &'a Docs, name: &str) -> &'a ArgDoc {
        docs.args.iter().find(|a| a.name == name).expect(name)
    }

    fn described<'a>(docs: &'a Docs, name: &str) -> &'a str {
        &arg(docs, name).description
    }

    #[test]
    fn google_style() {
        let d = doc("Get the temperature.\n\nArgs:\n    location: The place\n    unit: The unit (choices: [\"c\", \"f\"])\n\nReturns:\n    The value.");
        assert_eq!(d.description, "Get the temperature.");
        assert_eq!(described(&d, "location"), "The place");
        assert_eq!(described(&d, "unit"), "The unit");
        assert_eq!(arg(&d, "unit").choices.as_deref(), Some("[\"c\", \"f\"]"));
        assert_eq!(d.returns.unwrap().text, "The value.");
    }

    #[test]
    fn rustdoc_style() {
        let d = doc("Get it.\n\n# Arguments\n\n* `location` - The place\n* `unit` - The unit\n  that continues\n\n# Returns\n\nThe value.");
        assert_eq!(described(&d, "location"), "The place");
        assert_eq!(described(&d, "unit"), "The unit that continues");
        assert_eq!(d.returns.unwrap().text, "The value.");
    }

    #[test]
    fn deeper_indent_continues_even_when_it_looks_like_an_entry() {
        let d = doc("X.\n\nArgs:\n    y: The y value\n        key: value continuation");
        assert_eq!(d.args.len(), 1);
        assert_eq!(described(&d, "y"), "The y value key: value continuation");
    }

    #[test]
    fn whitespace_collapses_and_description_keeps_newlines() {
        let d = doc("First line.\nSecond line.\n\nArgs:\n    x: The x   value,\twhich\n        spans lines.");
        assert_eq!(d.description, "First line.\nSecond line.");
        assert_eq!(described(&d, "x"), "The x value, which spans lines.");
    }

    #[test]
    fn choices_suffix_any_case_last_paren() {
        let d = doc(
            "X.\n\nArgs:\n    n: number (CHOICES: [1, 2])\n    s: s (choices: [\"a)\", \"b\"])  ",
        );
        assert_eq!(arg(&d, "n").choices.as_deref(), Some("[1, 2]"));
        assert_eq!(described(&d, "n"), "number");
        assert_eq!(arg(&d, "s").choices.as_deref(), Some("[\"a)\", \"b\"]"));
    }

    #[test]
    fn choices_only_as_a_suffix() {
        let d = doc("X.\n\nArgs:\n    n: a (choices: [1]) that is not last");
        assert_eq!(arg(&d, "n").choices, None);
        assert_eq!(described(&d, "n"), "a (choices: [1]) that is not last");
    }

    #[test]
    fn other_sections_end_args_and_are_ignored() {
        let d = doc("X.\n\nArgs:\n    a: first\n\nRaises:\n    ValueError: sometimes\n\n# Examples\n\n```\n# hidden\n```");
        assert_eq!(d.args.len(), 1);
        assert_eq!(d.returns, None);
    }

    #[test]
    fn google_type_annotations_are_skipped() {
        let d = doc("X.\n\nArgs:\n    a (int): first\n    b (list[str], optional): second");
        assert_eq!(described(&d, "a"), "first");
        assert_eq!(described(&d, "b"), "second");
    }

    #[test]
    fn bullet_variants() {
        let d = doc(
            "X.\n\n# Arguments\n\nSome intro.\n\n- `a`: first\n* b - second\n+ `r#type` — third",
        );
        assert_eq!(described(&d, "a"), "first");
        assert_eq!(described(&d, "b"), "second");
        assert_eq!(described(&d, "type"), "third");
    }

    #[test]
    fn duplicate_entry_is_an_error_on_its_line() {
        let err = doc_errors("X.\n\nArgs:\n    a: first\n    a: again");
        assert_eq!(err.len(), 1);
        assert_eq!(err[0].line, 4);
        assert!(err[0].message.contains("documented twice"));
    }

    #[test]
    fn stray_text_in_google_args_is_an_error() {
        let err = doc_errors("X.\n\nArgs:\n    just words here");
        assert!(err[0].message.contains("expected `name: description`"));
    }

    #[test]
    fn hash_in_code_fence_is_not_a_heading() {
        let d = doc("Desc.\n\n```\n# not a heading\n```\nmore");
        assert_eq!(d.description, "Desc.\n\n```\n# not a heading\n```\nmore");
    }

    #[test]
    fn empty_and_section_only_docs() {
        assert_eq!(doc("").description, "");
        let d = doc("Args:\n    a: x");
        assert_eq!(d.description, "");
        assert_eq!(d.args.len(), 1);
    }

    #[test]
    fn description_is_dedented_by_common_indent() {
        let lines = vec!["   A".to_string(), "     b".to_string()];
        assert_eq!(parse(&lines).unwrap().description, "A\n  b");
    }
}
