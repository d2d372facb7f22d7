//! Python's view of template values: how `None`, floats, lists and dicts print.
//!
//! Jinja2 runs inside Python, so `{{ x }}` prints `str(x)`: `True`, `None`,
//! `1e+20`, `{'a': 1}`. minijinja prints its own spellings (`true`, `none`,
//! `{"a": 1}`); the formatter installed by `env.rs` calls [`write_str`] instead.

use super::range::PyRange;
use minijinja::value::{Object, ObjectRepr, Value, ValueKind};
use std::fmt::{self, Write};
use std::sync::Arc;

/// Python's `None` where a template must not be able to iterate it.
///
/// minijinja iterates `none` as an empty list, but Python raises
/// `TypeError: 'NoneType' object is not iterable`, and several real templates
/// (Hermes, Command R) are expected to fail exactly there when no tools or
/// documents are given. `tools` and `documents` are passed as this object when
/// absent; the `none` test, `tojson` and the formatter treat it as `None`.
#[derive(Debug)]
pub(crate) struct PyNone;

impl Object for PyNone {
    fn repr(self: &Arc<Self>) -> ObjectRepr {
        ObjectRepr::Plain
    }

    fn is_true(self: &Arc<Self>) -> bool {
        false
    }

    fn render(self: &Arc<Self>, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("None")
    }
}

/// The `PyNone` value.
pub(crate) fn py_none() -> Value {
    Value::from_object(PyNone)
}

/// Whether a value is Python's `None` (minijinja's `none` or [`PyNone`]).
pub(crate) fn is_none(value: &Value) -> bool {
    value.is_none() || value.downcast_object_ref::<PyNone>().is_some()
}

/// `repr(float)`: the shortest digits that round-trip, in fixed notation for
/// exponents -4 <= e < 16 and scientific (`1e+20`, `1e-07`) otherwise.
pub(crate) fn float_repr(f: f64) -> String {
    if f.is_nan() {
        return "nan".into();
    }
    if f.is_infinite() {
        return if f > 0.0 { "inf".into() } else { "-inf".into() };
    }
    // Rust's `{:e}` gives the same shortest round-trip digits as Python's repr;
    // only the layout differs.
    let sci = format!("{:e}", f.abs());
    let (mantissa, exp) = sci.split_once('e').unwrap_or((sci.as_str(), "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    let digits: String = mantissa.chars().filter(char::is_ascii_digit).collect();
    let sign = if f.is_sign_negative() { "-" } else { "" };
    if !(-4..16).contains(&exp) {
        let (first, rest) = digits.split_at(1);
        let dot = if rest.is_empty() { "" } else { "." };
        let esign = if exp < 0 { '-' } else { '+' };
        return format!("{sign}{first}{dot}{rest}e{esign}{:02}", exp.abs());
    }
    if exp < 0 {
        let zeros = "0".repeat((-exp - 1) as usize);
        return format!("{sign}0.{zeros}{digits}");
    }
    let int_len = exp as usize + 1;
    if digits.len() <= int_len {
        let zeros = "0".repeat(int_len - digits.len());
        format!("{sign}{digits}{zeros}.0")
    } else {
        let (int, frac) = digits.split_at(int_len);
        format!("{sign}{int}.{frac}")
    }
}

/// Writes `str(value)`, as Jinja2 prints `{{ value }}`.
pub(crate) fn write_str(out: &mut impl Write, value: &Value) -> fmt::Result {
    match value.kind() {
        ValueKind::Undefined => Ok(()),
        ValueKind::String => out.write_str(value.as_str().unwrap_or_default()),
        _ => write_repr(out, value),
    }
}

/// Writes `repr(value)`: how Python prints a value inside a list or dict.
pub(crate) fn write_repr(out: &mut impl Write, value: &Value) -> fmt::Result {
    match value.kind() {
        ValueKind::Undefined | ValueKind::None => out.write_str("None"),
        ValueKind::Bool => out.write_str(if value.is_true() { "True" } else { "False" }),
        ValueKind::Number if !value.is_integer() => match f64::try_from(value.clone()) {
            Ok(f) => out.write_str(&float_repr(f)),
            Err(_) => write!(out, "{value}"),
        },
        ValueKind::String => write_str_repr(out, value.as_str().unwrap_or_default()),
        ValueKind::Seq | ValueKind::Iterable => {
            if let Some(range) = value.downcast_object_ref::<PyRange>() {
                return range.write_repr(out);
            }
            let Ok(items) = value.try_iter() else {
                return write!(out, "{value}");
            };
            let tuple = value.is_tuple();
            out.write_char(if tuple { '(' } else { '[' })?;
            let mut n = 0;
            for (i, item) in items.enumerate() {
                if i > 0 {
                    out.write_str(", ")?;
                }
                write_repr(out, &item)?;
                n += 1;
            }
            match (tuple, n) {
                (true, 1) => out.write_str(",)"),
                (true, _) => out.write_char(')'),
                _ => out.write_char(']'),
            }
        }
        ValueKind::Map => {
            let Ok(keys) = value.try_iter() else {
                return write!(out, "{value}");
            };
            out.write_char('{')?;
            for (i, key) in keys.enumerate() {
                if i > 0 {
                    out.write_str(", ")?;
                }
                write_repr(out, &key)?;
                out.write_str(": ")?;
                write_repr(out, &value.get_item(&key).unwrap_or_default())?;
            }
            out.write_char('}')
        }
        _ => write!(out, "{value}"),
    }
}

/// Where [`pad`] puts the text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Align {
    Left,
    Right,
    Center,
}

/// `str.center` / `ljust` / `rjust`: `s` padded with `fill` to `width`
/// characters (Python puts the odd one of a centre's padding on the right
/// unless the text length is odd as well).
pub(crate) fn pad(s: &str, width: usize, fill: char, align: Align) -> String {
    let len = s.chars().count();
    if width <= len {
        return s.to_owned();
    }
    // Bounded: a template asking for a huge width gets 64 Ki of padding.
    let total = (width - len).min(1 << 16);
    let left = match align {
        Align::Left => 0,
        Align::Right => total,
        // CPython: left = pad / 2 + (pad & width & 1)
        Align::Center => total / 2 + (total & width & 1),
    };
    let fill = |n: usize| std::iter::repeat_n(fill, n).collect::<String>();
    format!("{}{s}{}", fill(left), fill(total - left))
}

/// `repr(str)`: single quotes unless the text has a single quote and no double one.
fn write_str_repr(out: &mut impl Write, s: &str) -> fmt::Result {
    let quote = if s.contains('\'') && !s.contains('"') {
        '"'
    } else {
        '\''
    };
    out.write_char(quote)?;
    for c in s.chars() {
        match c {
            '\\' => out.write_str("\\\\")?,
            '\n' => out.write_str("\\n")?,
            '\r' => out.write_str("\\r")?,
            '\t' => out.write_str("\\t")?,
            c if c == quote => {
                out.write_char('\\')?;
                out.write_char(c)?;
            }
            c if (c as u32) < 0x20 || (0x7f..0xa0).contains(&(c as u32)) => {
                write!(out, "\\x{:02x}", c as u32)?
            }
            c => out.write_char(c)?,
        }
    }
    out.write_char(quote)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn floats_print_as_python_repr() {
        let cases = [
            (1e20, "1e+20"),
            (1.0, "1.0"),
            (1e-7, "1e-07"),
            (-0.0, "-0.0"),
            (0.1, "0.1"),
            (1e16, "1e+16"),
            (1e15, "1000000000000000.0"),
            (0.0001, "0.0001"),
            (0.00001, "1e-05"),
            (123.456, "123.456"),
            (1.5e300, "1.5e+300"),
            (22.5, "22.5"),
            (f64::NAN, "nan"),
        ];
        for (f, want) in cases {
            assert_eq!(float_repr(f), want, "repr({f:?})");
        }
    }

    #[test]
    fn containers_print_as_python_repr() {
        let v = super::super::input::json_to_value(&serde_json::json!(
            {"a": [1, 2.0, true, null], "it's": "say \"hi\"\n"}
        ));
        let mut s = String::new();
        write_str(&mut s, &v).unwrap();
        assert_eq!(s, r#"{'a': [1, 2.0, True, None], "it's": 'say "hi"\n'}"#);
    }

    #[test]
    fn pads_as_python() {
        assert_eq!(pad("ab", 6, '*', Align::Center), "**ab**");
        assert_eq!(pad("abc", 6, '*', Align::Center), "*abc**");
        assert_eq!(pad("ab", 5, '*', Align::Center), "**ab*");
        assert_eq!(pad("abc", 7, ' ', Align::Center), "  abc  ");
        assert_eq!(pad("ab", 4, '0', Align::Right), "00ab");
        assert_eq!(pad("abcd", 2, ' ', Align::Left), "abcd");
    }
}
