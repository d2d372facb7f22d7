//! Filters and tests whose Jinja2 behaviour differs from minijinja's built-in ones.

use super::limits;
use super::python::{self, is_none};
use super::python_ops::escape_html;
use minijinja::filters as builtin;
use minijinja::value::{Kwargs, Rest, StringInput, Value, ValueKind, ValueOrKwargs};
use minijinja::{Error, ErrorKind, State};
use std::borrow::Cow;

/// minijinja's filter of the same name, behind a check of the value:
/// the wrappers keep minijinja's signatures (which its filter registry
/// reads), so each is one line here.
macro_rules! guarded {
    ($check:ident: $($(#[$doc:meta])* fn $name:ident(
        $state:ident: $st:ty, $value:ident: $v:ty $(, $arg:ident: $ty:ty)* $(,)?
    ) -> $ret:ty;)*) => {$(
        $(#[$doc])*
        pub(crate) fn $name($state: $st, $value: $v $(, $arg: $ty)*) -> Result<$ret, Error> {
            builtin::$name($state, $check($value)? $(, $arg)*)
        }
    )*};
}

/// Python's error for iterating `None`, which minijinja iterates as empty.
fn iterable<V: std::borrow::Borrow<Value>>(value: V) -> Result<V, Error> {
    if is_none(value.borrow()) {
        return Err(Error::new(
            ErrorKind::InvalidOperation,
            "'NoneType' object is not iterable",
        ));
    }
    Ok(value)
}

guarded! { iterable:
    /// `list`: an error on `None`, as in Python.
    fn list(state: &State, value: Value) -> Value;
    /// `join`: an error on `None`, as in Python.
    fn join(
        state: &mut State, value: &Value, joiner: Option<StringInput<'_>>, attribute: Option<&str>,
        kwargs: Kwargs,
    ) -> Value;
    /// `sort`: an error on `None`, as in Python.
    fn sort(state: &State, value: Value, kwargs: Kwargs) -> Value;
    /// `unique`: an error on `None`, as in Python.
    fn unique(state: &State, value: Value, kwargs: Kwargs) -> Value;
    /// `sum`: an error on `None`, as in Python.
    fn sum(
        state: &State, value: Value, attribute: Option<&str>, start: Option<Value>, kwargs: Kwargs
    ) -> Value;
    /// `min`: an error on `None`, as in Python.
    fn min(state: &State, value: Value, kwargs: Kwargs) -> Value;
    /// `max`: an error on `None`, as in Python.
    fn max(state: &State, value: Value, kwargs: Kwargs) -> Value;
    /// `batch`: an error on `None`, as in Python.
    fn batch(state: &State, value: Value, count: usize, fill_with: Option<Value>) -> Value;
}

/// `reverse`: an error on `None`; an undefined value reverses to nothing.
pub(crate) fn reverse(value: &Value) -> Result<Value, Error> {
    iterable(value)?;
    if value.is_undefined() {
        return Ok(Value::from(Vec::<Value>::new()));
    }
    builtin::reverse(value)
}

/// `None` as minijinja's own none: Jinja2's select-style filters yield
/// nothing for a falsy input, the `tools` placeholder included.
fn plain_none(value: Value) -> Result<Value, Error> {
    Ok(if is_none(&value) {
        Value::from(())
    } else {
        value
    })
}

/// A test's name, as the select-style filters take it.
type TestName<'a> = Option<Cow<'a, str>>;
/// The test's arguments.
type TestArgs = Rest<ValueOrKwargs>;

guarded! { plain_none:
    /// `select` (nothing for `None`).
    fn select(state: &mut State, value: Value, test: TestName<'_>, args: TestArgs) -> Vec<Value>;
    /// `reject` (nothing for `None`).
    fn reject(state: &mut State, value: Value, test: TestName<'_>, args: TestArgs) -> Vec<Value>;
    /// `selectattr` (nothing for `None`).
    fn selectattr(
        state: &mut State, value: Value, attr: Cow<'_, str>, test: TestName<'_>, args: TestArgs
    ) -> Vec<Value>;
    /// `rejectattr` (nothing for `None`).
    fn rejectattr(
        state: &mut State, value: Value, attr: Cow<'_, str>, test: TestName<'_>, args: TestArgs
    ) -> Vec<Value>;
    /// `map` (nothing for `None`).
    fn map(state: &mut State, value: Value, args: TestArgs) -> Vec<Value>;
}

/// `length` / `count`: Jinja2's `Undefined` has length 0.
pub(crate) fn length(value: &Value) -> Result<usize, Error> {
    if value.is_undefined() {
        return Ok(0);
    }
    builtin::length(value)
}

/// `first`: undefined (printing nothing) for an undefined value.
pub(crate) fn first(value: &Value) -> Result<Value, Error> {
    if value.is_undefined() {
        return Ok(Value::UNDEFINED);
    }
    builtin::first(value)
}

/// `last`: undefined (printing nothing) for an undefined value.
pub(crate) fn last(value: Value) -> Result<Value, Error> {
    if value.is_undefined() {
        return Ok(Value::UNDEFINED);
    }
    builtin::last(value)
}

/// `items`: nothing for an undefined value.
pub(crate) fn items(value: &Value) -> Result<Value, Error> {
    if value.is_undefined() {
        return Ok(Value::from(Vec::<Value>::new()));
    }
    builtin::items(value)
}

/// `int(value, default=0, base=10)`: Jinja2 falls back to the default
/// (0 unless given) where minijinja fails.
pub(crate) fn int(
    state: &State,
    value: &Value,
    default: Option<Value>,
    base: Option<u32>,
    kwargs: Kwargs,
) -> Result<Value, Error> {
    let fallback = kwargs.get::<Option<Value>>("default")?;
    let default = default.or(fallback).unwrap_or(Value::from(0));
    Ok(builtin::int(state, value, Some(default.clone()), base, kwargs).unwrap_or(default))
}

/// `escape` / `e` / `forceescape`: markupsafe's escaping (`&#34;`, `&#39;`)
/// into a safe (`Markup`) string; a safe string stays as it is.
pub(crate) fn escape(value: &Value) -> Result<Value, Error> {
    if value.is_safe() {
        return Ok(value.clone());
    }
    Ok(Value::from_safe_string(escape_html(&string(value)?)))
}

/// `center(width=80)`: Python's `str.center`.
pub(crate) fn center(value: &Value, width: Option<usize>) -> Result<Value, Error> {
    let s = string(value)?;
    Ok(Value::from(python::pad(
        &s,
        width.unwrap_or(80),
        ' ',
        python::Align::Center,
    )))
}

/// `wordcount`: the number of words.
pub(crate) fn wordcount(value: &Value) -> Result<usize, Error> {
    Ok(string(value)?
        .split(|c: char| !(c.is_alphanumeric() || c == '_'))
        .filter(|w| !w.is_empty())
        .count())
}

/// The `iterable` test: `None` is not (minijinja iterates it as empty);
/// an undefined value is, as Jinja2's `Undefined` iterates as empty.
pub(crate) fn is_iterable(value: &Value) -> bool {
    if is_none(value) {
        return false;
    }
    value.is_undefined() || value.try_iter().is_ok()
}

/// The `sequence` test: anything with a length and items, strings and
/// dicts included, as Jinja2's.
pub(crate) fn is_sequence(value: &Value) -> bool {
    matches!(
        value.kind(),
        ValueKind::String | ValueKind::Seq | ValueKind::Map
    ) && !is_none(value)
}

/// `indent(s, width=4, first=False, blank=False)`, Jinja2's exactly: it
/// appends a newline before splitting, so `'{\n'|indent(4)` keeps its
/// trailing newline (minijinja's drops it).
pub(crate) fn indent(s: &str, args: &[Value], kwargs: Kwargs) -> Result<String, Error> {
    limits::check()?;
    if args.len() > 3 {
        return Err(Error::new(
            ErrorKind::TooManyArguments,
            format!("indent takes at most 3 arguments, found {}", args.len()),
        ));
    }
    let arg = |i: usize, name: &str| -> Result<Option<Value>, Error> {
        match (args.get(i), kwargs.get::<Option<Value>>(name)?) {
            (Some(_), Some(_)) => Err(Error::new(
                ErrorKind::InvalidOperation,
                format!("indent got multiple values for argument '{name}'"),
            )),
            (Some(v), None) => Ok(Some(v.clone())),
            (None, Some(v)) => Ok(Some(v)),
            (None, None) => Ok(None),
        }
    };
    let width = arg(0, "width")?;
    let first = arg(1, "first")?.is_some_and(|v| v.is_true());
    let blank = arg(2, "blank")?.is_some_and(|v| v.is_true());
    kwargs.assert_all_used()?;
    let indention = match width {
        None => "    ".to_owned(),
        Some(w) => match w.as_str() {
            Some(s) => s.to_owned(),
            None => {
                let n = w.as_i64().ok_or_else(|| {
                    Error::new(
                        ErrorKind::InvalidOperation,
                        format!(
                            "indent width must be an int or a string, found {}",
                            w.kind()
                        ),
                    )
                })?;
                " ".repeat(n.clamp(0, 1 << 16) as usize)
            }
        },
    };
    let s = format!("{s}\n");
    let lines = python_splitlines(&s);
    let mut rv = String::with_capacity(s.len() + lines.len() * indention.len());
    if blank {
        rv.push_str(&lines.join(&format!("\n{indention}")));
    } else if let Some((head, rest)) = lines.split_first() {
        rv.push_str(head);
        for line in rest {
            rv.push('\n');
            if !line.is_empty() {
                rv.push_str(&indention);
            }
            rv.push_str(line);
        }
    }
    if first {
        rv.insert_str(0, &indention);
    }
    Ok(rv)
}

/// Python's `str.splitlines()`: the line breaks it knows, none kept, no
/// empty last line after a final break.
fn python_splitlines(s: &str) -> Vec<&str> {
    let mut lines = Vec::new();
    let mut start = 0;
    let mut chars = s.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        let is_break = matches!(
            c,
            '\n' | '\r'
                | '\u{b}'
                | '\u{c}'
                | '\u{1c}'
                | '\u{1d}'
                | '\u{1e}'
                | '\u{85}'
                | '\u{2028}'
                | '\u{2029}'
        );
        if !is_break {
            continue;
        }
        lines.push(&s[start..i]);
        let mut end = i + c.len_utf8();
        if c == '\r' {
            if let Some(&(j, '\n')) = chars.peek() {
                chars.next();
                end = j + 1;
            }
        }
        start = end;
    }
    if start < s.len() {
        lines.push(&s[start..]);
    }
    lines
}

/// `string`: Python's `str(value)`.
pub(crate) fn string(value: &Value) -> Result<String, Error> {
    limits::check()?;
    let mut s = String::new();
    python::write_str(&mut s, value)
        .map_err(|_| Error::new(ErrorKind::WriteFailure, "could not format the value"))?;
    Ok(s)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn indent_of(s: &str, width: i64, first: bool) -> String {
        let kwargs = Kwargs::from_iter([("first", Value::from(first))]);
        indent(s, &[Value::from(width)], kwargs).unwrap()
    }

    #[test]
    fn indents_as_jinja2() {
        assert_eq!(indent_of("{\n", 4, true), "    {\n");
        assert_eq!(indent_of("a\nb\n\nc", 2, false), "a\n  b\n\n  c");
        assert_eq!(indent_of("x", 8, true), "        x");
        assert_eq!(python_splitlines("a\r\nb\rc\n"), vec!["a", "b", "c"]);
    }
}
