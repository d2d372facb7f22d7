//! How `tojson` lays out JSON: `json.dumps`'s keyword arguments, apart from
//! the serialiser so that the dicts that remember their dumps can name it.

/// How to lay out JSON, as `json.dumps`'s keyword arguments.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct JsonStyle {
    /// Escape every non-ASCII character as `\uXXXX`.
    pub ensure_ascii: bool,
    /// Pretty-print with this indent string (`indent=2` is two spaces).
    pub indent: Option<String>,
    /// Between items and between a key and its value.
    pub separators: (String, String),
    /// Print object keys sorted.
    pub sort_keys: bool,
}

impl Default for JsonStyle {
    /// `json.dumps(x, ensure_ascii=False)`.
    fn default() -> JsonStyle {
        JsonStyle {
            ensure_ascii: false,
            indent: None,
            separators: (", ".into(), ": ".into()),
            sort_keys: false,
        }
    }
}
