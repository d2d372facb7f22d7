//! `{% generation %}…{% endgeneration %}`: transformers' assistant mask.
//!
//! minijinja has no custom tags, so the tag pair is rewritten into a filter
//! block (`{% filter … %}…{% endfilter %}`) before compiling: a block tag for
//! a block tag, so `trim_blocks`, `lstrip_blocks` and `-` modifiers behave
//! exactly as they do around the original. The filter brackets the rendered
//! text with two Unicode noncharacters, which [`extract_spans`] removes after
//! the render, noting where they were.

use std::ops::Range;

/// The filter that the `generation` tag becomes.
pub(crate) const FILTER_NAME: &str = "__tool_use_generation";

/// Opens a generated span in the raw output (a noncharacter: never text).
const START: char = '\u{FDD0}';
/// Closes a generated span.
const END: char = '\u{FDD1}';

/// Rewrites `generation` tags into filter blocks; `None` when there are none.
pub(crate) fn rewrite(source: &str) -> Option<String> {
    if !source.contains("generation") {
        return None;
    }
    let mut out = String::with_capacity(source.len() + 64);
    let mut rest = source;
    let mut found = false;
    while let Some(open) = rest.find("{%") {
        out.push_str(&rest[..open]);
        let tag = &rest[open..];
        match parse_tag(tag) {
            Some((len, prefix, keyword, suffix)) => {
                let replacement = if keyword == "generation" {
                    format!("filter {FILTER_NAME}")
                } else {
                    "endfilter".to_owned()
                };
                out.push_str(&tag[..prefix]);
                out.push_str(&replacement);
                out.push_str(&tag[suffix..len]);
                rest = &tag[len..];
                found = true;
            }
            None => {
                out.push_str("{%");
                rest = &tag[2..];
            }
        }
    }
    out.push_str(rest);
    found.then_some(out)
}

/// Parses `{%[-+]? generation|endgeneration [-+]?%}` at the start of `tag`:
/// returns its length, where the keyword starts and ends, and the keyword.
fn parse_tag(tag: &str) -> Option<(usize, usize, &str, usize)> {
    let bytes = tag.as_bytes();
    let mut i = 2;
    if matches!(bytes.get(i), Some(b'-' | b'+')) {
        i += 1;
    }
    while bytes.get(i).is_some_and(u8::is_ascii_whitespace) {
        i += 1;
    }
    let keyword = ["endgeneration", "generation"]
        .into_iter()
        .find(|k| tag[i..].starts_with(k))?;
    let prefix = i;
    i += keyword.len();
    let suffix = i;
    if !bytes
        .get(i)
        .is_some_and(|b| b.is_ascii_whitespace() || matches!(b, b'-' | b'+' | b'%'))
    {
        return None;
    }
    while bytes.get(i).is_some_and(u8::is_ascii_whitespace) {
        i += 1;
    }
    if matches!(bytes.get(i), Some(b'-' | b'+')) {
        i += 1;
    }
    tag[i..]
        .starts_with("%}")
        .then_some((i + 2, prefix, keyword, suffix))
}

/// The `generation` filter: brackets the block's text with markers.
pub(crate) fn mark(body: String) -> String {
    let mut out = String::with_capacity(body.len() + 2 * START.len_utf8());
    out.push(START);
    out.push_str(&body);
    out.push(END);
    out
}

/// Removes the markers from a render and returns the text with the byte
/// ranges the generation blocks produced, sorted by start.
pub(crate) fn extract_spans(raw: &str) -> Result<(String, Vec<Range<usize>>), String> {
    let mut text = String::with_capacity(raw.len());
    let mut open = Vec::new();
    let mut spans = Vec::new();
    for c in raw.chars() {
        match c {
            START => open.push(text.len()),
            END => match open.pop() {
                Some(start) => spans.push(start..text.len()),
                None => return Err(unbalanced()),
            },
            c => text.push(c),
        }
    }
    if !open.is_empty() {
        return Err(unbalanced());
    }
    spans.sort_by_key(|r| (r.start, r.end));
    Ok((text, spans))
}

fn unbalanced() -> String {
    "the rendered text contains U+FDD0/U+FDD1, which mark generation blocks; \
     remove them from the input"
        .to_owned()
}

/// Converts byte ranges of `text` into char ranges (Python string indices,
/// as transformers reports them).
pub(crate) fn char_ranges(text: &str, spans: &[Range<usize>]) -> Vec<Range<usize>> {
    let char_index = |byte: usize| text.get(..byte).map_or(0, |s| s.chars().count());
    spans
        .iter()
        .map(|r| char_index(r.start)..char_index(r.end))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rewrites_tags_keeping_modifiers() {
        let src = "{%- generation -%}x{%endgeneration+%} {% if generation %}";
        assert_eq!(
            rewrite(src).unwrap(),
            "{%- filter __tool_use_generation -%}x{%endfilter+%} {% if generation %}"
        );
        assert_eq!(rewrite("{{ generation }}"), None);
    }

    #[test]
    fn extracts_byte_spans() {
        let raw = format!("é{}ab{}c{}d{}", START, END, START, END);
        let (text, spans) = extract_spans(&raw).unwrap();
        assert_eq!(text, "éabcd");
        assert_eq!(spans, vec![2..4, 5..6]);
        assert_eq!(char_ranges(&text, &spans), vec![1..3, 4..5]);
        assert!(extract_spans(&format!("{END}")).is_err());
    }
}
