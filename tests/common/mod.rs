//! Helpers shared by the integration tests.

/// Cuts `text` at the given offsets (taken modulo its length, kept only on
/// char boundaries, sorted, deduplicated): the chunks a stream might deliver.
pub fn cut_at(text: &str, cuts: Vec<usize>) -> Vec<&str> {
    let mut points: Vec<usize> = cuts
        .into_iter()
        .map(|c| c % (text.len() + 1))
        .filter(|&c| text.is_char_boundary(c))
        .collect();
    points.sort_unstable();
    points.dedup();
    let mut chunks = Vec::new();
    let mut last = 0;
    for p in points {
        chunks.push(&text[last..p]);
        last = p;
    }
    chunks.push(&text[last..]);
    chunks
}
