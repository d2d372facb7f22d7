//! "Did you mean": the distance between two names, for suggesting the
//! closest one when a name is not found (a tool, an argument, an attribute).

/// The Levenshtein distance between `a` and `b`, counted in characters:
/// how many insertions, deletions and substitutions turn one into the other.
///
/// ```
/// assert_eq!(tool_runtime::suggest::edit_distance("lcoation", "location"), 2);
/// assert_eq!(tool_runtime::suggest::edit_distance("", "abc"), 3);
/// ```
pub fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut prev = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let cur = row[j + 1];
            row[j + 1] = (prev + usize::from(ca != *cb)).min(row[j] + 1).min(cur + 1);
            prev = cur;
        }
    }
    row[b.len()]
}

/// The candidate nearest to `name` among those `close(distance, candidate)`
/// accepts; the first of equally near ones.
///
/// ```
/// use tool_runtime::suggest::closest;
/// let near = closest("lcoation", ["location", "unit"], |d, _| d <= 2);
/// assert_eq!(near, Some("location"));
/// ```
pub fn closest<'a>(
    name: &str,
    candidates: impl IntoIterator<Item = &'a str>,
    close: impl Fn(usize, &str) -> bool,
) -> Option<&'a str> {
    candidates
        .into_iter()
        .map(|c| (edit_distance(name, c), c))
        .filter(|&(d, c)| close(d, c))
        .min_by_key(|&(d, _)| d)
        .map(|(_, c)| c)
}
