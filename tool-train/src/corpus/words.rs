//! Corpus word lists kept as data: a module's tables are one JSON object in
//! a file under `tool-train/data/` (`practice/bare.json` for
//! `practice/bare.rs`), a key per table (its name in snake case), built
//! into the binary and read on first use.
//!
//! A module declares its file and its tables as statics,
//!
//! ```ignore
//! static WORDS: Words = Words::new(
//!     "practice/bare.json",
//!     include_str!("../../../data/practice/bare.json"),
//! );
//! static LEAD_VERBS: Table<&[&str]> = WORDS.table("lead_verbs");
//! ```
//!
//! and uses a table as the slice (or array) it holds: `rng.pick(&LEAD_VERBS)`,
//! `LEAD_VERBS.contains(&word)`. The file is parsed once, each table's
//! strings made `'static` once (leaked: tables live for the whole run). A
//! missing key or a value of the wrong shape is a bug in the data, and
//! panics naming the file and the key. `tool-train/data/README.md` says
//! what shapes the files hold.

use std::ops::Deref;
use std::sync::OnceLock;

use serde_json::{Map, Value};

/// One module's data file, parsed on first use.
pub(super) struct Words {
    /// The file's path in `tool-train/data/`.
    path: &'static str,
    /// The file's text.
    text: &'static str,
    parsed: OnceLock<Map<String, Value>>,
}

impl Words {
    /// The data file `tool-train/data/{path}`, whose text is `text`.
    pub(super) const fn new(path: &'static str, text: &'static str) -> Self {
        Words {
            path,
            text,
            parsed: OnceLock::new(),
        }
    }

    /// The table under `key`, read when it is first used.
    pub(super) const fn table<T>(&'static self, key: &'static str) -> Table<T> {
        Table {
            words: self,
            key,
            value: OnceLock::new(),
        }
    }

    /// The value under `key` as a `T`.
    fn read<T: FromData>(&self, key: &str) -> T {
        let path = self.path;
        let object = self.parsed.get_or_init(|| {
            serde_json::from_str(self.text)
                .unwrap_or_else(|e| panic!("tool-train/data/{path} is not a JSON object: {e}"))
        });
        let value = object
            .get(key)
            .unwrap_or_else(|| panic!("tool-train/data/{path} has no {key:?}"));
        T::from_data(value).unwrap_or_else(|| {
            panic!(
                "tool-train/data/{path}: {key:?} is not a {}",
                std::any::type_name::<T>()
            )
        })
    }
}

/// A table of a [`Words`] file, used as the value it holds.
pub(super) struct Table<T: 'static> {
    words: &'static Words,
    key: &'static str,
    value: OnceLock<T>,
}

impl<T: FromData> Deref for Table<T> {
    type Target = T;

    fn deref(&self) -> &T {
        self.value.get_or_init(|| self.words.read(self.key))
    }
}

/// What a table can hold, made from its JSON once and kept for the run:
/// strings, booleans, slices and arrays of them, and pairs and triples
/// (JSON arrays of two or three items).
pub(super) trait FromData: Sized + Send + Sync + 'static {
    /// `value` as `Self`; none if it has another shape.
    fn from_data(value: &Value) -> Option<Self>;
}

impl FromData for &'static str {
    fn from_data(value: &Value) -> Option<Self> {
        Some(value.as_str()?.to_owned().leak())
    }
}

impl FromData for bool {
    fn from_data(value: &Value) -> Option<Self> {
        value.as_bool()
    }
}

impl<T: FromData> FromData for &'static [T] {
    fn from_data(value: &Value) -> Option<Self> {
        let items = value.as_array()?;
        let items: Option<Vec<T>> = items.iter().map(T::from_data).collect();
        Some(items?.leak())
    }
}

impl<T: FromData, const N: usize> FromData for [T; N] {
    fn from_data(value: &Value) -> Option<Self> {
        let items = value.as_array()?;
        let items: Option<Vec<T>> = items.iter().map(T::from_data).collect();
        items?.try_into().ok()
    }
}

impl<A: FromData, B: FromData> FromData for (A, B) {
    fn from_data(value: &Value) -> Option<Self> {
        match value.as_array()?.as_slice() {
            [a, b] => Some((A::from_data(a)?, B::from_data(b)?)),
            _ => None,
        }
    }
}

impl<A: FromData, B: FromData, C: FromData> FromData for (A, B, C) {
    fn from_data(value: &Value) -> Option<Self> {
        match value.as_array()?.as_slice() {
            [a, b, c] => Some((A::from_data(a)?, B::from_data(b)?, C::from_data(c)?)),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    static TEST: Words = Words::new(
        "test.json",
        r#"{
            "words": ["", "", "a \"quoted\" word", "°C", " spaced "],
            "leads": [["What's ", true, false]],
            "ops": [["plus"], ["minus", "less"]],
            "pairs": [["a", ["b", "c"]]]
        }"#,
    );
    static WORDS: Table<&[&str]> = TEST.table("words");
    static LEADS: Table<&[(&str, bool, bool)]> = TEST.table("leads");
    static OPS: Table<[&[&str]; 2]> = TEST.table("ops");
    static PAIRS: Table<&[(&str, &[&str])]> = TEST.table("pairs");
    static MISSING: Table<&[&str]> = TEST.table("missing");
    static TOO_FEW: Table<[&[&str]; 3]> = TEST.table("ops");
    static NOT_WORDS: Table<&[&str]> = TEST.table("leads");

    #[test]
    fn tables_hold_their_values_in_order_as_written() {
        assert_eq!(
            *WORDS,
            ["", "", "a \"quoted\" word", "°C", " spaced "].as_slice()
        );
        assert_eq!(*LEADS, [("What's ", true, false)].as_slice());
        assert_eq!(OPS[1], ["minus", "less"]);
        assert_eq!(PAIRS[0], ("a", ["b", "c"].as_slice()));
        // Read once: the same strings every time.
        assert!(std::ptr::eq(WORDS[2], WORDS[2]));
    }

    #[test]
    #[should_panic(expected = "tool-train/data/test.json has no \"missing\"")]
    fn a_missing_table_names_its_file_and_key() {
        let _ = MISSING.len();
    }

    #[test]
    #[should_panic(expected = "tool-train/data/test.json: \"ops\" is not a [")]
    fn an_array_of_the_wrong_length_is_the_wrong_shape() {
        let _ = TOO_FEW.len();
    }

    #[test]
    #[should_panic(expected = "tool-train/data/test.json: \"leads\" is not a &")]
    fn records_are_not_strings() {
        let _ = NOT_WORDS.len();
    }
}
