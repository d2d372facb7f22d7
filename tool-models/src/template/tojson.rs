//! `tojson` as transformers defines it: Python's
//! `json.dumps(x, ensure_ascii=False, indent=indent, separators=separators, sort_keys=sort_keys)`.
//!
//! Schemas reach the model through this filter, so every byte matters: the
//! `", "`/`": "` separators, `1e+20` and `1.0` for floats, raw non-ASCII text.

use super::dict::PyDict;
pub use super::json_style::JsonStyle;
use super::python::{float_repr, is_none};
use minijinja::value::{Kwargs, ValueKind};
use minijinja::{Error, ErrorKind, Value};
use std::fmt::Write;
use std::sync::Arc;

/// Serialises a template value as Python's `json.dumps` would.
pub fn dumps(value: &Value, style: &JsonStyle) -> Result<String, Error> {
    // An input dict remembers its text: tools kept between renders are
    // serialised once.
    let dict = value.downcast_object_ref::<PyDict>();
    if let Some(text) = dict.and_then(|d| d.dumped(style)) {
        return Ok(text.to_string());
    }
    let mut out = String::new();
    write_value(&mut out, value, style, 0)?;
    if let Some(dict) = dict {
        dict.remember_dump(style, &out);
    }
    Ok(out)
}

/// The `tojson` filter: `tojson(ensure_ascii=False, indent=None, separators=None, sort_keys=False)`,
/// positionally or by keyword, like the Python function transformers registers.
pub(crate) fn tojson_filter(
    value: &Value,
    args: &[Value],
    kwargs: Kwargs,
) -> Result<String, Error> {
    const NAMES: [&str; 4] = ["ensure_ascii", "indent", "separators", "sort_keys"];
    if args.len() > NAMES.len() {
        return Err(Error::new(
            ErrorKind::TooManyArguments,
            format!("tojson takes at most 4 arguments, found {}", args.len()),
        ));
    }
    let mut given: [Option<Value>; 4] = Default::default();
    for (slot, arg) in given.iter_mut().zip(args) {
        *slot = Some(arg.clone());
    }
    for (slot, name) in given.iter_mut().zip(NAMES) {
        if let Some(v) = kwargs.get::<Option<Value>>(name)? {
            if slot.is_some() {
                return Err(Error::new(
                    ErrorKind::InvalidOperation,
                    format!("tojson got multiple values for argument '{name}'"),
                ));
            }
            *slot = Some(v);
        }
    }
    kwargs.assert_all_used()?;
    let [ensure_ascii, indent, separators, sort_keys] = given;
    let indent = match indent {
        Some(v) if is_none(&v) || v.is_undefined() => None,
        // Python's json treats an int as that many spaces and a string as itself.
        Some(v) if v.is_integer() => Some(" ".repeat(v.as_i64().unwrap_or(0).max(0) as usize)),
        Some(v) if v.kind() == ValueKind::String => Some(v.as_str().unwrap_or_default().to_owned()),
        Some(v) => {
            return Err(Error::new(
                ErrorKind::InvalidOperation,
                format!(
                    "tojson indent must be an int or a string, found {}",
                    v.kind()
                ),
            ))
        }
        None => None,
    };
    let separators = match separators {
        Some(v) if !is_none(&v) && !v.is_undefined() => {
            let parts: Vec<Value> = v.try_iter()?.collect();
            match parts.as_slice() {
                [a, b] if a.as_str().is_some() && b.as_str().is_some() => (
                    a.as_str().unwrap_or_default().to_owned(),
                    b.as_str().unwrap_or_default().to_owned(),
                ),
                _ => {
                    return Err(Error::new(
                        ErrorKind::InvalidOperation,
                        format!("tojson separators must be a pair of strings, found {v}"),
                    ))
                }
            }
        }
        // json.dumps drops the space after ',' when indenting.
        _ if indent.is_some() => (",".into(), ": ".into()),
        _ => (", ".into(), ": ".into()),
    };
    let style = JsonStyle {
        ensure_ascii: ensure_ascii.is_some_and(|v| v.is_true()),
        indent,
        separators,
        sort_keys: sort_keys.is_some_and(|v| v.is_true()),
    };
    dumps(value, &style)
}

fn write_value(
    out: &mut String,
    value: &Value,
    style: &JsonStyle,
    depth: usize,
) -> Result<(), Error> {
    // Python raises RecursionError long before this; a cycle cannot occur in
    // immutable values, but an absurdly deep one must not overflow the stack.
    if depth > 256 {
        return Err(Error::new(
            ErrorKind::InvalidOperation,
            "tojson: value nested more than 256 levels deep",
        ));
    }
    if is_none(value) {
        out.push_str("null");
        return Ok(());
    }
    match value.kind() {
        ValueKind::Bool => out.push_str(if value.is_true() { "true" } else { "false" }),
        ValueKind::Number => write_number(out, value)?,
        ValueKind::String => {
            write_string(out, value.as_str().unwrap_or_default(), style.ensure_ascii)
        }
        ValueKind::Seq | ValueKind::Iterable => {
            if let Some(items) = value.downcast_object_ref::<Vec<Value>>() {
                return write_container(out, style, depth, '[', ']', items.iter(), |out, item| {
                    write_value(out, item, style, depth + 1)
                });
            }
            let items = value.try_iter()?;
            write_container(out, style, depth, '[', ']', items, |out, item| {
                write_value(out, &item, style, depth + 1)
            })?;
        }
        ValueKind::Map => {
            // Input dicts (the tools) are written from their entries, without
            // an enumerator or a clone per item.
            if let Some(dict) = value.downcast_object_ref::<PyDict>() {
                if !style.sort_keys {
                    let write_entry = |out: &mut String, (key, item): &(Arc<str>, Value)| {
                        write_string(out, key, style.ensure_ascii);
                        out.push_str(&style.separators.1);
                        write_value(out, item, style, depth + 1)
                    };
                    return write_container(
                        out,
                        style,
                        depth,
                        '{',
                        '}',
                        dict.entries().iter(),
                        write_entry,
                    );
                }
            }
            let pairs = match value.as_object().and_then(|o| o.try_iter_pairs()) {
                Some(pairs) => pairs,
                None => Box::new(std::iter::empty()),
            };
            let write_pair = |out: &mut String, (key, item): (Value, Value)| {
                match key.as_str() {
                    Some(key) => write_string(out, key, style.ensure_ascii),
                    None => write_string(out, &key_string(&key)?, style.ensure_ascii),
                }
                out.push_str(&style.separators.1);
                write_value(out, &item, style, depth + 1)
            };
            if style.sort_keys {
                let mut entries = Vec::new();
                for (key, item) in pairs {
                    entries.push((key_string(&key)?, item));
                }
                entries.sort_by(|a, b| a.0.cmp(&b.0));
                let entries = entries.into_iter().map(|(k, v)| (Value::from(k), v));
                write_container(out, style, depth, '{', '}', entries, write_pair)?;
            } else {
                write_container(out, style, depth, '{', '}', pairs, write_pair)?;
            }
        }
        kind => {
            let type_name = match kind {
                ValueKind::Undefined => "Undefined".to_owned(),
                other => other.to_string(),
            };
            return Err(Error::new(
                ErrorKind::InvalidOperation,
                format!("tojson: Object of type {type_name} is not JSON serializable"),
            ));
        }
    }
    Ok(())
}

fn write_container<T>(
    out: &mut String,
    style: &JsonStyle,
    depth: usize,
    open: char,
    close: char,
    items: impl Iterator<Item = T>,
    mut write_item: impl FnMut(&mut String, T) -> Result<(), Error>,
) -> Result<(), Error> {
    out.push(open);
    let mut empty = true;
    for item in items {
        if !empty {
            out.push_str(&style.separators.0);
        }
        empty = false;
        if let Some(indent) = &style.indent {
            out.push('\n');
            for _ in 0..=depth {
                out.push_str(indent);
            }
        }
        write_item(out, item)?;
    }
    if empty {
        out.push(close);
        return Ok(());
    }
    if let Some(indent) = &style.indent {
        out.push('\n');
        for _ in 0..depth {
            out.push_str(indent);
        }
    }
    out.push(close);
    Ok(())
}

/// Python's json converts int, float, bool and None keys to strings.
fn key_string(key: &Value) -> Result<String, Error> {
    if is_none(key) {
        return Ok("null".into());
    }
    match key.kind() {
        ValueKind::String => Ok(key.as_str().unwrap_or_default().to_owned()),
        ValueKind::Bool => Ok(if key.is_true() { "true" } else { "false" }.into()),
        ValueKind::Number => {
            let mut s = String::new();
            write_number(&mut s, key)?;
            Ok(s)
        }
        kind => Err(Error::new(
            ErrorKind::InvalidOperation,
            format!("tojson: keys must be str, int, float, bool or None, not {kind}"),
        )),
    }
}

fn write_number(out: &mut String, value: &Value) -> Result<(), Error> {
    if value.is_integer() {
        let _ = write!(out, "{value}");
        return Ok(());
    }
    let f = f64::try_from(value.clone())?;
    if f.is_nan() {
        out.push_str("NaN");
    } else if f.is_infinite() {
        out.push_str(if f > 0.0 { "Infinity" } else { "-Infinity" });
    } else {
        out.push_str(&float_repr(f));
    }
    Ok(())
}

fn write_string(out: &mut String, s: &str, ensure_ascii: bool) {
    out.push('"');
    // Copy runs that need no escape in one go; most schema text is such a run.
    let bytes = s.as_bytes();
    let mut run = 0;
    for (i, &b) in bytes.iter().enumerate() {
        let plain = b >= 0x20 && b != b'"' && b != b'\\' && (b < 0x80 || !ensure_ascii);
        if plain {
            continue;
        }
        // Continuation bytes of a character being escaped as a whole.
        if b & 0xC0 == 0x80 {
            run = i + 1;
            continue;
        }
        out.push_str(&s[run..i]);
        run = i + 1;
        match b {
            b'"' => out.push_str("\\\""),
            b'\\' => out.push_str("\\\\"),
            b'\n' => out.push_str("\\n"),
            b'\r' => out.push_str("\\r"),
            b'\t' => out.push_str("\\t"),
            0x08 => out.push_str("\\b"),
            0x0c => out.push_str("\\f"),
            b if b < 0x20 => {
                let _ = write!(out, "\\u{:04x}", b);
            }
            _ => {
                // A non-ASCII character under ensure_ascii.
                let c = s[i..].chars().next().unwrap_or('\u{fffd}');
                let mut units = [0u16; 2];
                for unit in c.encode_utf16(&mut units) {
                    let _ = write!(out, "\\u{unit:04x}");
                }
                run = i + c.len_utf8();
            }
        }
    }
    out.push_str(&s[run..]);
    out.push('"');
}
