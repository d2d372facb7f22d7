//! Filters whose Jinja2 behaviour differs from minijinja's built-in ones.

use super::limits;
use super::python;
use minijinja::value::{Kwargs, Value};
use minijinja::{Error, ErrorKind};

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
