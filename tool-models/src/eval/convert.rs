//! BFCL's type converters for its Java and JavaScript categories
//! (`java_type_converter.py`, `js_type_converter.py`): the model writes
//! every argument as a string in the language's syntax (`"5L"`,
//! `"new ArrayList<>(Arrays.asList(1, 2))"`, `"{'a': 1}"`), and the checker
//! turns it into the Python value it compares with the possible answers.
//!
//! The rules are BFCL's to the letter, quirks included: its regular
//! expressions (run here with the same leftmost, backtracking semantics),
//! its naive `split(",")`, a value that does not fit its type kept as the
//! string it was (which the type check then refuses), and an array of
//! Java `String`s keeping its quotes. Where BFCL raises (a Java `Set`,
//! `Hashtable`, `Queue` or `Stack`; a type it does not list) this returns
//! [`Unconverted`], which the checker reports.
//!
//! Python's own number syntax is followed where BFCL calls `int()` or
//! `float()` (surrounding spaces, `_` between digits, `inf`); a result JSON
//! cannot hold (an infinity, NaN, an integer beyond 64 bits) stays a string.

use std::sync::LazyLock;

use fancy_regex::Regex;
use serde_json::{Map, Number, Value};

/// A value BFCL's converter raises on: the type it cannot convert.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Unconverted(pub(crate) String);

/// What a converter returns: the value, or the type BFCL raises on.
pub(crate) type Converted = Result<Value, Unconverted>;

/// A regular expression as Python's `re` writes it; `$` is Python's (end,
/// or before a final newline).
fn re(pattern: &str) -> Regex {
    let pattern = pattern.replace('$', r"(?=\n?\z)");
    Regex::new(&pattern).expect("BFCL's patterns compile")
}

// The number patterns of both converters (Java's also read untyped values).

/// An integer in Java or JavaScript.
static INTEGER: LazyLock<Regex> = LazyLock::new(|| re(r"^-?\d+$"));
/// A Java `float` literal (`1.5f`).
static JAVA_FLOAT: LazyLock<Regex> = LazyLock::new(|| re(r"^-?\d+(\.\d+)?([eE][+-]?\d+)?[fF]$"));
/// A Java `long` literal (`5L`).
static JAVA_LONG: LazyLock<Regex> = LazyLock::new(|| re(r"^-?\d+[lL]$"));
/// A Java `double` literal.
static JAVA_DOUBLE: LazyLock<Regex> = LazyLock::new(|| re(r"^-?\d+(\.\d+)?([eE][+-]?\d+)?$"));
/// A JavaScript `float`: digits, perhaps with a fraction.
static JS_FLOAT: LazyLock<Regex> = LazyLock::new(|| re(r"^-?\d+(\.\d+)?$"));
/// A JavaScript `BigInt` literal (`5n`).
static JS_BIGINT: LazyLock<Regex> = LazyLock::new(|| re(r"^-?\d+n$"));

/// `re.match`: a match at the start.
fn matches_at_start<'t>(regex: &Regex, text: &'t str) -> Option<fancy_regex::Captures<'t, str>> {
    regex
        .captures(text)
        .ok()
        .flatten()
        .filter(|c| c.get(0).is_some_and(|m| m.start() == 0))
}

/// `re.search`: the first match anywhere.
fn search<'t>(regex: &Regex, text: &'t str) -> Option<fancy_regex::Captures<'t, str>> {
    regex.captures(text).ok().flatten()
}

/// `re.match` for patterns BFCL anchors with `^` itself.
fn full(regex: &Regex, text: &str) -> bool {
    matches_at_start(regex, text).is_some()
}

fn group<'t>(captures: &fancy_regex::Captures<'t, str>, i: usize) -> Option<&'t str> {
    captures.get(i).map(|m| m.as_str())
}

fn string(text: &str) -> Value {
    Value::String(text.to_owned())
}

/// Python's `s[1:-1]`.
fn inner(text: &str) -> &str {
    let mut chars = text.chars();
    chars.next();
    chars.next_back();
    chars.as_str()
}

/// Python's `int(text)`, as JSON; `None` where Python raises.
pub(crate) fn py_int(text: &str) -> Option<Value> {
    let t = text.trim();
    let (negative, digits) = match t.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, t.strip_prefix('+').unwrap_or(t)),
    };
    if !underscored_digits(digits) {
        return None;
    }
    let plain: String = digits.chars().filter(|c| *c != '_').collect();
    let signed = if negative { format!("-{plain}") } else { plain };
    match signed.parse::<i64>() {
        Ok(n) => Some(Value::from(n)),
        Err(_) => Some(string(text)),
    }
}

/// Digits with single `_` between them, as Python's literals allow.
fn underscored_digits(text: &str) -> bool {
    !text.is_empty()
        && !text.starts_with('_')
        && !text.ends_with('_')
        && !text.contains("__")
        && text.chars().all(|c| c.is_ascii_digit() || c == '_')
}

/// Python's `float(text)`, as JSON; `None` where Python raises.
pub(crate) fn py_float(text: &str) -> Option<Value> {
    let t = text.trim();
    let unsigned = t.strip_prefix(['-', '+']).unwrap_or(t);
    let lower = unsigned.to_ascii_lowercase();
    if matches!(lower.as_str(), "inf" | "infinity" | "nan") {
        return Some(string(text));
    }
    static FLOAT: LazyLock<Regex> = LazyLock::new(|| {
        re(r"^[-+]?(\d(_?\d)*(\.(\d(_?\d)*)?)?|\.\d(_?\d)*)([eE][-+]?\d(_?\d)*)?\z")
    });
    if !full(&FLOAT, t) {
        return None;
    }
    let plain: String = t.chars().filter(|c| *c != '_').collect();
    let value = plain.parse::<f64>().ok()?;
    Some(Number::from_f64(value).map_or_else(|| string(text), Value::Number))
}

/// A Python `float` for a string the pattern already vetted.
fn float(text: &str) -> Value {
    py_float(text).unwrap_or_else(|| string(text))
}

/// A Python `int` for a string the pattern already vetted.
fn int(text: &str) -> Value {
    py_int(text).unwrap_or_else(|| string(text))
}

/// `java_type_converter(value, expected_type, nested_type)`.
pub(crate) fn java(value: &str, expected: &str, nested: Option<&str>) -> Converted {
    Ok(match expected {
        "byte" | "short" | "integer" if full(&INTEGER, value) => int(value),
        "float" if full(&JAVA_FLOAT, value) => float(value.trim_end_matches(['f', 'F'])),
        "double" if full(&JAVA_DOUBLE, value) => float(value),
        "long" if full(&JAVA_LONG, value) => int(value.trim_end_matches(['l', 'L'])),
        "boolean" if value == "true" || value == "false" => Value::Bool(value == "true"),
        // BFCL's char pattern (`^\'.$\'`) can never match: the value stays.
        "byte" | "short" | "integer" | "float" | "double" | "long" | "boolean" | "char"
        | "String" | "any" => string(value),
        "Array" => java_array(value, nested)?,
        "ArrayList" => java_array_list(value, nested)?,
        "HashMap" => java_hash_map(value),
        "Set" | "Hashtable" | "Queue" | "Stack" => {
            return Err(Unconverted(format!(
                "{expected} conversion is not implemented"
            )))
        }
        other => return Err(Unconverted(format!("Unsupported type: {other}"))),
    })
}

/// `parse_arraylist`: `Arrays.asList(…)`, double-brace `add(…)`s, or empty.
fn java_array_list(text: &str, nested: Option<&str>) -> Converted {
    static AS_LIST: LazyLock<Regex> =
        LazyLock::new(|| re(r"new\s+ArrayList<\w*>\(Arrays\.asList\((.+?)\)\)"));
    static ADDS: LazyLock<Regex> =
        LazyLock::new(|| re(r"(?s)new\s+ArrayList<\w*>\(\)\s*\{\{\s*(.+?)\s*\}\}"));
    static ADD: LazyLock<Regex> = LazyLock::new(|| re(r"add\((.+?)\)"));
    static EMPTY: LazyLock<Regex> = LazyLock::new(|| re(r"new\s+ArrayList<\w*>\(\)"));
    let element = |text: &str| -> Converted {
        let text = text.trim();
        match nested {
            Some("char" | "String") => Ok(string(inner(text))),
            Some(nested) => java(text, nested, None),
            None => Ok(java_value(text)),
        }
    };
    if let Some(found) = search(&AS_LIST, text) {
        let elements = group(&found, 1).unwrap_or_default();
        return elements
            .split(',')
            .map(element)
            .collect::<Result<_, _>>()
            .map(Value::Array);
    }
    if let Some(found) = search(&ADDS, text) {
        let adds = group(&found, 1).unwrap_or_default();
        return ADD
            .captures_iter(adds)
            .filter_map(Result::ok)
            .map(|add| element(group(&add, 1).unwrap_or_default()))
            .collect::<Result<_, _>>()
            .map(Value::Array);
    }
    if search(&EMPTY, text).is_some() {
        return Ok(Value::Array(Vec::new()));
    }
    Ok(string(text))
}

/// `parse_array`: `new T[]{…}`; elements converted as `nested` (a
/// `String` keeps its quotes: BFCL converts it with the `String` rule).
fn java_array(text: &str, nested: Option<&str>) -> Converted {
    static ARRAY: LazyLock<Regex> = LazyLock::new(|| re(r"new\s+\w+\[\]\s*\{(.*?)\}"));
    let Some(found) = search(&ARRAY, text) else {
        return Ok(string(text));
    };
    let elements = group(&found, 1).unwrap_or_default();
    elements
        .split(',')
        .map(str::trim)
        .filter(|e| !e.is_empty())
        .map(|e| match nested {
            Some(nested) => java(e, nested, None),
            None => Ok(java_value(e)),
        })
        .collect::<Result<_, _>>()
        .map(Value::Array)
}

/// `parse_hashmap`: double-brace `put("key", value)`s, or empty.
fn java_hash_map(text: &str) -> Value {
    static PUTS: LazyLock<Regex> =
        LazyLock::new(|| re(r"(?s)new\s+HashMap<.*?>\s*\(\)\s*\{\s*\{?\s*(.*?)\s*\}?\s*\}"));
    static PUT: LazyLock<Regex> = LazyLock::new(|| re(r#"put\("(.*?)",\s*(.*?)\)"#));
    static EMPTY: LazyLock<Regex> = LazyLock::new(|| re(r"new\s+HashMap<.*?>\s*\(\)"));
    if let Some(found) = search(&PUTS, text) {
        let puts = group(&found, 1).unwrap_or_default();
        let mut map = Map::new();
        if !puts.trim().is_empty() {
            for put in PUT.captures_iter(puts).filter_map(Result::ok) {
                let key = group(&put, 1).unwrap_or_default();
                let value = java_value(group(&put, 2).unwrap_or_default().trim());
                map.insert(key.to_owned(), value);
            }
        }
        return Value::Object(map);
    }
    if search(&EMPTY, text).is_some() {
        return Value::Object(Map::new());
    }
    string(text)
}

/// `parse_java_value`: a value whose type is not given.
fn java_value(text: &str) -> Value {
    match text {
        "true" => Value::Bool(true),
        "false" => Value::Bool(false),
        _ if text.starts_with('"') && text.ends_with('"') => string(inner(text)),
        _ if full(&JAVA_LONG, text) => int(&text[..text.len() - 1]),
        _ if full(&JAVA_FLOAT, text) => float(text.trim_end_matches(['f', 'F'])),
        _ => py_int(text)
            .or_else(|| py_float(text))
            .unwrap_or_else(|| string(text)),
    }
}

/// `js_type_converter(value, expected_type, nested_type)`.
pub(crate) fn javascript(value: &str, expected: &str, nested: Option<&str>) -> Converted {
    Ok(match expected {
        "String" if quoted(value) => string(inner(value)),
        "integer" if full(&INTEGER, value) => int(value),
        "float" if full(&JS_FLOAT, value) => float(value),
        "Bigint" if full(&JS_BIGINT, value) => int(&value[..value.len() - 1]),
        "Boolean" if value == "true" || value == "false" => Value::Bool(value == "true"),
        "String" | "integer" | "float" | "Bigint" | "Boolean" | "any" => string(value),
        "array" => js_array(value, nested),
        "dict" => js_dict(value),
        other => return Err(Unconverted(format!("Unsupported type: {other}"))),
    })
}

/// Whether a JavaScript string is in quotes of either kind.
fn quoted(text: &str) -> bool {
    (text.starts_with('"') && text.ends_with('"'))
        || (text.starts_with('\'') && text.ends_with('\''))
}

/// `parse_js_collection(code, "array", nested_type)`: a 2-D array, a 1-D
/// array or `new Array(…)`; anything that raises inside stays the string.
fn js_array(code: &str, nested: Option<&str>) -> Value {
    static ARRAY_2D: LazyLock<Regex> = LazyLock::new(|| {
        re(r"\[\s*\[.*?\]\s*(,\s*\[.*?\]\s*)*\]|\bnew\s+Array\(\s*\[.*?\]\s*(,\s*\[.*?\]\s*)*\)")
    });
    static INNER: LazyLock<Regex> = LazyLock::new(|| re(r"\[(.*?)\]"));
    static ARRAY: LazyLock<Regex> = LazyLock::new(|| re(r"\[(.*?)\]|\bnew\s+Array\((.*?)\)"));
    let code = code.trim();
    if let Some(found) = matches_at_start(&ARRAY_2D, code) {
        let whole = group(&found, 0).unwrap_or_default();
        let rows = INNER.captures_iter(whole).filter_map(Result::ok);
        let rows = rows.enumerate().map(|(index, row)| {
            let mut row = group(&row, 1).unwrap_or_default().trim();
            if index == 0 && row.starts_with('[') {
                row = &row[1..];
            }
            Value::Array(row.split(',').map(|e| js_value(e.trim())).collect())
        });
        return Value::Array(rows.collect());
    }
    let Some(found) = matches_at_start(&ARRAY, code) else {
        return string(code);
    };
    let listed = group(&found, 1).or_else(|| group(&found, 2));
    let elements: Vec<&str> = match listed.map(str::trim) {
        Some("") | None => Vec::new(),
        Some(listed) => listed.split(',').collect(),
    };
    let converted: Result<Vec<Value>, Unconverted> = elements
        .iter()
        .map(|e| match nested {
            Some(nested) => javascript(e.trim(), nested, None),
            None => Ok(js_value(e)),
        })
        .collect();
    // BFCL's `except:` keeps the code as it was.
    converted.map_or_else(|_| string(code), Value::Array)
}

/// `parse_js_collection(code, "dict")`: `{key: value, …}` up to the first
/// `}`; arrays and objects inside read again, other values unquoted and
/// read as `parse_js_value` reads them.
fn js_dict(code: &str) -> Value {
    static DICT: LazyLock<Regex> = LazyLock::new(|| re(r"\{(.*?)\}"));
    static PAIR: LazyLock<Regex> = LazyLock::new(|| re(r"([^:]+):\s*(.*?)(?:,\s*(?=[^,]+:)|$)"));
    let code = code.trim();
    if code == "{}" {
        return Value::Object(Map::new());
    }
    let Some(found) = matches_at_start(&DICT, code) else {
        return string(code);
    };
    let content = group(&found, 1).unwrap_or_default();
    let mut map = Map::new();
    for pair in PAIR.captures_iter(content).filter_map(Result::ok) {
        let key = group(&pair, 1).unwrap_or_default().trim();
        let key = key.trim_matches(['\'', '"']);
        let value = group(&pair, 2).unwrap_or_default().trim();
        let value = if value.starts_with('[') && value.ends_with(']') {
            js_array(value, None)
        } else if value.starts_with('{') && value.ends_with('}') {
            js_dict(value)
        } else {
            js_value(value.trim_matches(['\'', '"']))
        };
        map.insert(key.to_owned(), value);
    }
    Value::Object(map)
}

/// `parse_js_value`: a value whose type is not given.
fn js_value(text: &str) -> Value {
    let text = text.trim();
    match text {
        "true" => Value::Bool(true),
        "false" => Value::Bool(false),
        _ if quoted(text) => string(inner(text)),
        _ => py_int(text)
            .or_else(|| py_float(text))
            .unwrap_or_else(|| string(text)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn java_ok(value: &str, expected: &str) -> Value {
        java(value, expected, None).unwrap()
    }

    // The assertions of BFCL's own `test_java_type_converter`.
    #[test]
    fn java_values_convert_as_bfcls_tests_say() {
        assert_eq!(java_ok("true", "boolean"), json!(true));
        assert_eq!(java_ok("123", "integer"), json!(123));
        assert_eq!(java_ok("-123", "integer"), json!(-123));
        assert_eq!(java_ok("2.5f", "float"), json!(2.5));
        assert_eq!(java_ok("-2.5", "double"), json!(-2.5));
        assert_eq!(java_ok("-123L", "long"), json!(-123));
        assert_eq!(java_ok("a", "char"), json!("a"));
        assert_eq!(java_ok("new int[]{1, 2, 3}", "Array"), json!([1, 2, 3]));
        assert_eq!(
            java_ok(r#"new ArrayList<>(Arrays.asList("a", "b"))"#, "ArrayList"),
            json!(["a", "b"])
        );
        assert_eq!(
            java_ok(
                r#"new HashMap<String, String>() {{ put("key", "value"); }}"#,
                "HashMap"
            ),
            json!({"key": "value"})
        );
        assert_eq!(java_ok("3e-3F", "float"), json!(3e-3));
        assert_eq!(
            java_ok("9223372036854775807L", "long"),
            json!(9223372036854775807i64)
        );
        assert_eq!(java_ok("123", "any"), json!("123"));
        for empty in ["new int[]{}", "new int[] {}", "new int[] { }"] {
            assert_eq!(java_ok(empty, "Array"), json!([]), "{empty}");
        }
        assert_eq!(java_ok("new ArrayList<>()", "ArrayList"), json!([]));
        for empty in [
            "new HashMap<>()",
            "new HashMap<>() {}",
            "new HashMap<>() {{}}",
            "new HashMap<>() {{ }}",
        ] {
            assert_eq!(java_ok(empty, "HashMap"), json!({}), "{empty}");
        }
        assert_eq!(
            java_ok(r#"new Object[]{1, "abc", true}"#, "Array"),
            json!([1, "abc", true])
        );
        assert_eq!(
            java_ok(
                r#"new HashMap<String, Object>() { { put("key1", 123); put("key2", true); } }"#,
                "HashMap"
            ),
            json!({"key1": 123, "key2": true})
        );
        assert_eq!(
            java("1L, 2, 3L", "Array", None).unwrap(),
            json!("1L, 2, 3L")
        );
        assert_eq!(
            java("new long[]{1L, 2, 3L}", "Array", Some("long")).unwrap(),
            json!([1, "2", 3])
        );
        assert_eq!(
            java(
                "new ArrayList<Float>() {{ add(1.0f); add(2.0f); }}",
                "ArrayList",
                Some("float")
            )
            .unwrap(),
            json!([1.0, 2.0])
        );
        assert_eq!(
            java(
                "new ArrayList<Character>() {{ add('a'); add('b'); }}",
                "ArrayList",
                Some("char")
            )
            .unwrap(),
            json!(["a", "b"])
        );
    }

    #[test]
    fn java_quirks_are_kept() {
        // A value that does not fit stays the string it was.
        assert_eq!(java_ok("3.14", "float"), json!("3.14"));
        assert_eq!(java_ok("12L", "integer"), json!("12L"));
        assert_eq!(java_ok("yes", "boolean"), json!("yes"));
        // An array of Strings keeps each element's quotes.
        assert_eq!(
            java(r#"new String[]{"a", "b"}"#, "Array", Some("String")).unwrap(),
            json!([r#""a""#, r#""b""#])
        );
        // `$` is Python's: before a final newline too.
        assert_eq!(java_ok("12\n", "integer"), json!(12));
        // What BFCL cannot convert is said.
        assert_eq!(
            java("x", "Set", None),
            Err(Unconverted("Set conversion is not implemented".into()))
        );
        assert!(java("x", "Vector", None).is_err());
    }

    // The assertions of BFCL's own `test_js_type_converter`.
    #[test]
    fn javascript_values_convert_as_bfcls_tests_say() {
        let js = |v: &str, t: &str| javascript(v, t, None).unwrap();
        assert_eq!(js("true", "Boolean"), json!(true));
        assert_eq!(js("123", "integer"), json!(123));
        assert_eq!(js("2.25", "float"), json!(2.25));
        assert_eq!(js("123n", "Bigint"), json!(123));
        assert_eq!(js("abc", "String"), json!("abc"));
        assert_eq!(js("'abc'", "String"), json!("abc"));
        assert_eq!(js("[1, 2, 3]", "array"), json!([1, 2, 3]));
        assert_eq!(js("new Array(1, 2, 3)", "array"), json!([1, 2, 3]));
        assert_eq!(js("{'key': 'value'}", "dict"), json!({"key": "value"}));
        assert_eq!(js("{'key': 123}", "dict"), json!({"key": 123}));
        assert_eq!(js("{'key': true}", "dict"), json!({"key": true}));
        assert_eq!(js("[]", "array"), json!([]));
        assert_eq!(js("{}", "dict"), json!({}));
        assert_eq!(js("[1, 'two', true]", "array"), json!([1, "two", true]));
        assert_eq!(js("[[1, 2], [3, 4]]", "array"), json!([[1, 2], [3, 4]]));
        assert_eq!(
            js("{'key1': [1, 2], 'key2': 3}", "dict"),
            json!({"key1": [1, 2], "key2": 3})
        );
        assert_eq!(
            javascript("['a', 'b']", "array", Some("String")).unwrap(),
            json!(["a", "b"])
        );
        // Quoted numbers in an object read as numbers (the quotes go first).
        assert_eq!(js("{'n': '12'}", "dict"), json!({"n": 12}));
        // An element of an unknown type keeps the whole array a string.
        assert_eq!(
            javascript("[1, 2]", "array", Some("Symbol")).unwrap(),
            json!("[1, 2]")
        );
        assert!(javascript("x", "Map", None).is_err());
    }

    #[test]
    fn python_numbers_read_as_python_reads_them() {
        assert_eq!(py_int(" 1_000 "), Some(json!(1000)));
        assert_eq!(py_int("+5"), Some(json!(5)));
        assert_eq!(py_int("1__0"), None);
        assert_eq!(py_int("1.0"), None);
        assert_eq!(py_float("1e3"), Some(json!(1000.0)));
        assert_eq!(py_float(".5"), Some(json!(0.5)));
        assert_eq!(py_float("5."), Some(json!(5.0)));
        assert_eq!(py_float("inf"), Some(json!("inf")));
        assert_eq!(py_float("e3"), None);
    }
}
