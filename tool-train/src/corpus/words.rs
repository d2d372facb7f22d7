//! Corpus word lists kept as data: a module's tables are one JSON object in
//! a file under `tool-train/data/` (`practice/bare.json` for
//! `practice/bare.rs`), a key per table, built into the binary and read on
//! first use. `tool-train/data/README.md` says what each table is for.
//!
//! A module declares its file,
//!
//! ```ignore
//! static WORDS: Words = words!("practice/bare.json");
//! ```
//!
//! and reads a table by its key where it uses it:
//! `rng.pick(WORDS.list("lead_verbs"))`. The file is parsed once, and each
//! table made `'static` once (leaked: tables live for the whole run). A
//! missing key or a value of the wrong shape is a bug in the data, and
//! panics naming the file and the key.

use std::any::Any;
use std::collections::BTreeMap;
use std::sync::{Mutex, OnceLock, PoisonError};

use serde_json::{Map, Value};

/// The [`Words`] of `tool-train/data/$path`, its text built into the binary.
macro_rules! words {
    ($path:literal) => {
        $crate::corpus::words::Words::new(
            $path,
            include_str!(concat!(env!("CARGO_MANIFEST_DIR"), "/data/", $path)),
        )
    };
}
pub(super) use words;

/// A table made from the file, kept for the run.
type Made = &'static (dyn Any + Send + Sync);

/// One module's data file, parsed on first use.
pub(super) struct Words {
    /// The file's path in `tool-train/data/`.
    path: &'static str,
    /// The file's text.
    text: &'static str,
    parsed: OnceLock<Map<String, Value>>,
    /// Each table read so far, by key.
    made: Mutex<BTreeMap<&'static str, Made>>,
}

impl Words {
    /// The data file `tool-train/data/{path}`, whose text is `text`.
    pub(super) const fn new(path: &'static str, text: &'static str) -> Self {
        Words {
            path,
            text,
            parsed: OnceLock::new(),
            made: Mutex::new(BTreeMap::new()),
        }
    }

    /// The list of strings under `key`.
    pub(super) fn list(&self, key: &'static str) -> &'static [&'static str] {
        self.get(key)
    }

    /// The lists of strings under `key` (one per operation or statistic).
    pub(super) fn lists(&self, key: &'static str) -> &'static [&'static [&'static str]] {
        self.get(key)
    }

    /// The table under `key` as a `T`, made from the file on first use.
    pub(super) fn get<T: FromData + Copy>(&self, key: &'static str) -> T {
        let mut made = self.made.lock().unwrap_or_else(PoisonError::into_inner);
        let table: Made = match made.get(key) {
            Some(table) => *table,
            None => {
                let table: &'static T = Box::leak(Box::new(self.read::<T>(key)));
                made.insert(key, table);
                table
            }
        };
        *table.downcast_ref::<T>().unwrap_or_else(|| {
            panic!(
                "tool-train/data/{}: {key:?} is read as two types",
                self.path
            )
        })
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
            "words_by_kind": [["plus"], ["minus", "less"]],
            "pairs": [["a", ["b", "c"]]],
            "three": [["a"], ["b"]],
            "twice": ["a"]
        }"#,
    );

    #[test]
    fn tables_hold_their_values_in_order_as_written() {
        let words = TEST.list("words");
        assert_eq!(words, ["", "", "a \"quoted\" word", "°C", " spaced "]);
        let leads: &[(&str, bool, bool)] = TEST.get("leads");
        let ops: [&[&str]; 2] = TEST.get("ops");
        assert_eq!(ops, [["plus"].as_slice(), &["minus", "less"]]);
        assert_eq!(leads, [("What's ", true, false)]);
        assert_eq!(TEST.lists("words_by_kind")[1], ["minus", "less"]);
        let pairs: &[(&str, &[&str])] = TEST.get("pairs");
        assert_eq!(pairs, [("a", ["b", "c"].as_slice())]);
        // Made once: the same strings every time.
        assert!(std::ptr::eq(words, TEST.list("words")));
    }

    #[test]
    #[should_panic(expected = "tool-train/data/test.json has no \"missing\"")]
    fn a_missing_table_names_its_file_and_key() {
        TEST.list("missing");
    }

    #[test]
    #[should_panic(expected = "tool-train/data/test.json: \"three\" is not a [")]
    fn an_array_of_the_wrong_length_is_the_wrong_shape() {
        TEST.get::<[&[&str]; 3]>("three");
    }

    #[test]
    #[should_panic(expected = "tool-train/data/test.json: \"leads\" is not a &")]
    fn records_are_not_strings() {
        TEST.list("leads");
    }

    #[test]
    #[should_panic(expected = "tool-train/data/test.json: \"twice\" is read as two types")]
    fn a_table_has_one_type() {
        TEST.list("twice");
        TEST.lists("twice");
    }
}
