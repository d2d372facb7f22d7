//! Python's view of JSON values: BFCL's checker is Python, and its verdicts
//! hang on Python's types (`type(5) == int`, `type(5.0) == float`), its
//! equality (`1 == 1.0 == True`) and `repr` in its messages. The checker
//! asks these instead of comparing `serde_json::Value`s directly.

use serde_json::Value;

/// The Python type `json.loads` gives a JSON value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum PyType {
    None,
    Bool,
    Int,
    Float,
    Str,
    List,
    Dict,
}

impl PyType {
    /// The type of `value` as Python reads it: integers without a fraction
    /// or exponent are `int`, other numbers `float`.
    pub(crate) fn of(value: &Value) -> PyType {
        match value {
            Value::Null => PyType::None,
            Value::Bool(_) => PyType::Bool,
            Value::Number(n) if n.is_f64() => PyType::Float,
            Value::Number(_) => PyType::Int,
            Value::String(_) => PyType::Str,
            Value::Array(_) => PyType::List,
            Value::Object(_) => PyType::Dict,
        }
    }

    /// The name `type(x).__name__` gives.
    pub(crate) fn name(self) -> &'static str {
        match self {
            PyType::None => "NoneType",
            PyType::Bool => "bool",
            PyType::Int => "int",
            PyType::Float => "float",
            PyType::Str => "str",
            PyType::List => "list",
            PyType::Dict => "dict",
        }
    }

    /// `str(int)`: how BFCL prints a type it passes on as a description.
    pub(crate) fn class_repr(self) -> String {
        format!("<class '{}'>", self.name())
    }
}

/// A number as Python compares it; booleans are 0 and 1.
fn numeric(value: &Value) -> Option<f64> {
    match value {
        Value::Bool(b) => Some(f64::from(u8::from(*b))),
        Value::Number(n) => n.as_f64(),
        _ => None,
    }
}

/// Python's `a == b` on values `json.loads` made.
pub(crate) fn eq(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Null, Value::Null) => true,
        (Value::String(x), Value::String(y)) => x == y,
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(p, q)| eq(p, q))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len() && x.iter().all(|(k, v)| y.get(k).is_some_and(|w| eq(v, w)))
        }
        (Value::Number(x), Value::Number(y)) => match (x.as_i64(), y.as_i64()) {
            // Exact for integers beyond f64's 53 bits.
            (Some(i), Some(j)) => i == j,
            _ => match (x.as_u64(), y.as_u64()) {
                (Some(i), Some(j)) => i == j,
                _ => numeric(a) == numeric(b),
            },
        },
        _ => match (numeric(a), numeric(b)) {
            (Some(x), Some(y)) => x == y,
            _ => false,
        },
    }
}

/// Python's `value in list`.
pub(crate) fn contains(list: &[Value], value: &Value) -> bool {
    list.iter().any(|item| eq(item, value))
}

/// BFCL's `standardize_string`: spaces and `,./-_*^` removed, lower case,
/// single quotes made double, so "April 1, 2024" matches "april 1 2024".
pub(crate) fn standardize(text: &str) -> String {
    text.chars()
        .filter(|c| !matches!(c, ' ' | ',' | '.' | '/' | '-' | '_' | '*' | '^'))
        .collect::<String>()
        .to_lowercase()
        .replace('\'', "\"")
}

/// `value` with strings standardised, as BFCL compares list items and dict values.
pub(crate) fn standardized(value: &Value) -> Value {
    match value {
        Value::String(s) => Value::String(standardize(s)),
        other => other.clone(),
    }
}

/// Python's `repr` of a value, for messages that read like BFCL's.
pub(crate) fn repr(value: &Value) -> String {
    text(value, Style::Repr)
}

/// Python's `json.dumps(value)`: `", "` and `": "` between items, every
/// non-ASCII character escaped, floats as Python writes them.
pub(crate) fn json_dumps(value: &Value) -> String {
    text(value, Style::Json)
}

/// How Python writes a value: `repr`, or `json.dumps`.
#[derive(Clone, Copy, PartialEq)]
enum Style {
    Repr,
    Json,
}

/// `repr` and `json.dumps` differ only in their scalars' spelling.
fn text(value: &Value, style: Style) -> String {
    let string = |s: &str| match style {
        Style::Repr => str_repr(s),
        Style::Json => json_string(s),
    };
    match value {
        Value::Null if style == Style::Repr => "None".into(),
        Value::Null => "null".into(),
        Value::Bool(b) if style == Style::Repr => if *b { "True" } else { "False" }.into(),
        Value::Bool(b) => b.to_string(),
        Value::Number(n) if n.is_f64() => float_repr(n.as_f64().unwrap_or(f64::NAN)),
        Value::Number(n) => n.to_string(),
        Value::String(s) => string(s),
        Value::Array(items) => {
            let items: Vec<String> = items.iter().map(|v| text(v, style)).collect();
            format!("[{}]", items.join(", "))
        }
        Value::Object(map) => {
            let items: Vec<String> = map
                .iter()
                .map(|(k, v)| format!("{}: {}", string(k), text(v, style)))
                .collect();
            format!("{{{}}}", items.join(", "))
        }
    }
}

/// A JSON string with `ensure_ascii`: `\uXXXX` (surrogate pairs beyond
/// the BMP) for every non-ASCII character.
fn json_string(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            c if c.is_ascii() && !c.is_ascii_control() => out.push(c),
            c => {
                let mut units = [0u16; 2];
                for unit in c.encode_utf16(&mut units) {
                    out.push_str(&format!("\\u{unit:04x}"));
                }
            }
        }
    }
    out.push('"');
    out
}

/// `repr(float)`: always a point or an exponent, as Python writes it.
fn float_repr(x: f64) -> String {
    if x.is_nan() {
        return "nan".into();
    }
    if x.is_infinite() {
        return if x > 0.0 { "inf".into() } else { "-inf".into() };
    }
    let text = format!("{x:?}");
    match text.split_once('e') {
        // Python writes the exponent with a sign and at least two digits.
        Some((mantissa, exponent)) => {
            let (sign, digits) = match exponent.strip_prefix('-') {
                Some(d) => ('-', d),
                None => ('+', exponent),
            };
            format!("{mantissa}e{sign}{digits:0>2}")
        }
        None if text.contains('.') => text,
        None => format!("{text}.0"),
    }
}

/// `repr(str)`: single quotes unless the text holds one and no double quote.
pub(crate) fn str_repr(s: &str) -> String {
    let quote = if s.contains('\'') && !s.contains('"') {
        '"'
    } else {
        '\''
    };
    let mut out = String::with_capacity(s.len() + 2);
    out.push(quote);
    for c in s.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if c == quote => {
                out.push('\\');
                out.push(c);
            }
            c => out.push(c),
        }
    }
    out.push(quote);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn types_follow_json_loads() {
        assert_eq!(PyType::of(&json!(5)), PyType::Int);
        assert_eq!(PyType::of(&json!(5.0)), PyType::Float);
        assert_eq!(PyType::of(&json!(-3)), PyType::Int);
        assert_eq!(PyType::of(&json!(true)), PyType::Bool);
        assert_eq!(PyType::of(&json!(null)).name(), "NoneType");
    }

    #[test]
    fn equality_is_pythons() {
        assert!(eq(&json!(1), &json!(1.0)));
        assert!(eq(&json!(true), &json!(1)));
        assert!(eq(&json!(false), &json!(0.0)));
        assert!(!eq(&json!("1"), &json!(1)));
        assert!(eq(&json!([1, 2.0]), &json!([1.0, 2])));
        assert!(!eq(&json!([1, 2]), &json!([2, 1])));
        assert!(eq(
            &json!({"a": 1, "b": [true]}),
            &json!({"b": [1], "a": 1.0})
        ));
        assert!(!eq(&json!({"a": 1}), &json!({"a": 1, "b": 2})));
        assert!(eq(&json!(null), &json!(null)));
        assert!(!eq(&json!(null), &json!("")));
        assert!(contains(&[json!(""), json!(3)], &json!(3.0)));
    }

    #[test]
    fn standardize_ignores_spacing_punctuation_and_case() {
        assert_eq!(standardize("April 1, 2024"), standardize("april 1 2024"));
        assert_eq!(standardize("New_York-City."), "newyorkcity");
        assert_eq!(standardize("it's"), "it\"s");
    }

    #[test]
    fn repr_reads_like_python() {
        assert_eq!(
            repr(&json!({"a": [1, 2.5, true, null], "b": "x"})),
            "{'a': [1, 2.5, True, None], 'b': 'x'}"
        );
        assert_eq!(repr(&json!(3.0)), "3.0");
        assert_eq!(repr(&json!(1e100)), "1e+100");
        assert_eq!(repr(&json!(1.5e-7)), "1.5e-07");
        assert_eq!(repr(&json!("it's")), "\"it's\"");
        assert_eq!(repr(&json!("a'b\"c")), "'a\\'b\"c'");
    }
}
