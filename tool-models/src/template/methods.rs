//! Python string methods that minijinja-contrib's `pycompat` lacks, and
//! `Markup`'s methods: on a `|safe` string they escape their string
//! arguments and return `Markup` again, as markupsafe's do.

use super::limits;
use super::python::{pad, Align};
use super::python_ops::escape_html;
use minijinja::value::{from_args, Tuple, Value, ValueKind};
use minijinja::Error;
use std::borrow::Cow;

/// Markup methods that escape their string arguments.
const ESCAPING: &[&str] = &[
    "capitalize",
    "title",
    "lower",
    "upper",
    "replace",
    "ljust",
    "rjust",
    "lstrip",
    "rstrip",
    "center",
    "strip",
    "swapcase",
    "zfill",
    "removeprefix",
    "removesuffix",
    "partition",
    "rpartition",
    "format",
    "join",
];

/// The arguments a method of `value` sees: escaped when `value` is
/// `Markup` and the method escapes them.
pub(crate) fn markup_args<'a>(value: &Value, method: &str, args: &'a [Value]) -> Cow<'a, [Value]> {
    if !value.is_safe() || !ESCAPING.contains(&method) {
        return Cow::Borrowed(args);
    }
    let escape = |v: &Value| match v.as_str() {
        Some(s) if !v.is_safe() => Value::from_safe_string(escape_html(s)),
        _ => v.clone(),
    };
    args.iter()
        .map(|a| {
            if method == "join" && matches!(a.kind(), ValueKind::Seq | ValueKind::Iterable) {
                a.try_iter()
                    .map(|items| Value::from(items.map(|i| escape(&i)).collect::<Vec<_>>()))
                    .unwrap_or_else(|_| a.clone())
            } else {
                escape(a)
            }
        })
        .collect::<Vec<_>>()
        .into()
}

/// A method's result on `Markup` is `Markup` (strings, and lists or tuples
/// of strings as from `split` and `partition`).
pub(crate) fn keep_markup(value: &Value, result: Value) -> Value {
    if !value.is_safe() {
        return result;
    }
    let safe = |v: Value| match v.as_str() {
        Some(s) if !v.is_safe() => Value::from_safe_string(s.to_owned()),
        _ => v,
    };
    match result.kind() {
        ValueKind::String => safe(result),
        ValueKind::Seq => match result.try_iter() {
            Ok(items) => {
                let items: Vec<Value> = items.map(safe).collect();
                if result.is_tuple() {
                    Value::from(Tuple::from(items))
                } else {
                    Value::from(items)
                }
            }
            Err(_) => result,
        },
        _ => result,
    }
}

/// String methods of Python's that `pycompat` does not have; `None` for
/// every other method (and every non-string value).
pub(crate) fn call(value: &Value, method: &str, args: &[Value]) -> Option<Result<Value, Error>> {
    let s = value.as_str()?;
    let result = match method {
        "center" | "ljust" | "rjust" => justify(s, method, args),
        "zfill" => from_args(args).map(|(width,): (usize,)| Value::from(zfill(s, width))),
        "swapcase" => from_args(args).map(|()| Value::from(swapcase(s))),
        "casefold" => from_args(args).map(|()| Value::from(s.to_lowercase())),
        "removeprefix" => {
            from_args(args).map(|(p,): (&str,)| Value::from(s.strip_prefix(p).unwrap_or(s)))
        }
        "removesuffix" => {
            from_args(args).map(|(p,): (&str,)| Value::from(s.strip_suffix(p).unwrap_or(s)))
        }
        "partition" | "rpartition" => from_args(args).and_then(|(sep,): (&str,)| {
            if sep.is_empty() {
                return Err(Error::new(
                    minijinja::ErrorKind::InvalidOperation,
                    "empty separator",
                ));
            }
            let found = if method == "partition" {
                s.split_once(sep)
            } else {
                s.rsplit_once(sep)
            };
            let parts = match (found, method) {
                (Some((a, b)), _) => [a, sep, b],
                (None, "partition") => [s, "", ""],
                (None, _) => ["", "", s],
            };
            Ok(Value::from(Tuple::from(parts.map(Value::from))))
        }),
        "rsplit" => rsplit(s, args),
        "index" | "rindex" => from_args(args).and_then(|(sub,): (&str,)| {
            let at = if method == "index" {
                s.find(sub)
            } else {
                s.rfind(sub)
            };
            at.map(|i| Value::from(s[..i].chars().count()))
                .ok_or_else(|| {
                    Error::new(
                        minijinja::ErrorKind::InvalidOperation,
                        "substring not found",
                    )
                })
        }),
        "isdecimal" | "isnumeric" => from_args(args)
            .map(|()| Value::from(!s.is_empty() && s.chars().all(|c| c.is_numeric()))),
        _ => return None,
    };
    Some(limits::check().and(result))
}

fn justify(s: &str, method: &str, args: &[Value]) -> Result<Value, Error> {
    let (width, fill): (usize, Option<&str>) = from_args(args)?;
    let mut chars = fill.unwrap_or(" ").chars();
    let (Some(fill), None) = (chars.next(), chars.next()) else {
        return Err(Error::new(
            minijinja::ErrorKind::InvalidOperation,
            "The fill character must be exactly one character long",
        ));
    };
    let align = match method {
        "ljust" => Align::Left,
        "rjust" => Align::Right,
        _ => Align::Center,
    };
    Ok(Value::from(pad(s, width, fill, align)))
}

/// `str.zfill`: zeros after a leading sign.
fn zfill(s: &str, width: usize) -> String {
    let len = s.chars().count();
    if width <= len {
        return s.to_owned();
    }
    let zeros = "0".repeat((width - len).min(1 << 16));
    match s.strip_prefix(['+', '-']) {
        Some(rest) => format!("{}{zeros}{rest}", &s[..1]),
        None => format!("{zeros}{s}"),
    }
}

fn swapcase(s: &str) -> String {
    s.chars()
        .flat_map(|c| {
            if c.is_uppercase() {
                c.to_lowercase().collect::<Vec<_>>()
            } else {
                c.to_uppercase().collect()
            }
        })
        .collect()
}

/// `str.rsplit(sep=None, maxsplit=-1)`.
fn rsplit(s: &str, args: &[Value]) -> Result<Value, Error> {
    let (sep, maxsplit): (Option<&str>, Option<i64>) = from_args(args)?;
    let max = maxsplit.filter(|&m| m >= 0).map(|m| m as usize);
    let mut parts: Vec<String> = match sep {
        Some("") => {
            return Err(Error::new(
                minijinja::ErrorKind::InvalidOperation,
                "empty separator",
            ))
        }
        Some(sep) => match max {
            Some(m) => s.rsplitn(m + 1, sep).map(str::to_owned).collect(),
            None => s.rsplit(sep).map(str::to_owned).collect(),
        },
        None => {
            // Words from the right; what is left after `max` of them keeps
            // its leading and inner whitespace, as Python's does.
            let mut words = Vec::new();
            let mut rest = s.trim_end();
            while !rest.is_empty() && max.is_none_or(|m| words.len() < m) {
                let start = rest
                    .char_indices()
                    .rev()
                    .find(|(_, c)| c.is_whitespace())
                    .map_or(0, |(i, c)| i + c.len_utf8());
                words.push(rest[start..].to_owned());
                rest = rest[..start].trim_end();
            }
            if !rest.is_empty() {
                words.push(rest.to_owned());
            }
            words
        }
    };
    parts.reverse();
    Ok(Value::from(parts))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn call_ok(s: &str, method: &str, args: &[Value]) -> Value {
        call(&Value::from(s), method, args).unwrap().unwrap()
    }

    #[test]
    fn string_methods_match_python() {
        assert_eq!(
            call_ok("ab", "center", &[Value::from(6), Value::from("*")]).as_str(),
            Some("**ab**")
        );
        assert_eq!(
            call_ok("-42", "zfill", &[Value::from(5)]).as_str(),
            Some("-0042")
        );
        assert_eq!(call_ok("AbC", "swapcase", &[]).as_str(), Some("aBc"));
        let parts = call_ok("a=b=c", "rpartition", &[Value::from("=")]);
        assert!(parts.is_tuple());
        let parts: Vec<String> = parts.try_iter().unwrap().map(|v| v.to_string()).collect();
        assert_eq!(parts, ["a=b", "=", "c"]);
        assert_eq!(
            call_ok(" a  b c ", "rsplit", &[Value::from(()), Value::from(1)]),
            Value::from(vec![" a  b", "c"])
        );
        assert_eq!(
            call_ok("a,b,c", "rsplit", &[Value::from(","), Value::from(1)]),
            Value::from(vec!["a,b", "c"])
        );
        assert_eq!(
            call_ok(" a  b c ", "rsplit", &[]),
            Value::from(vec!["a", "b", "c"])
        );
        assert_eq!(
            call_ok(" a  b c ", "rsplit", &[Value::from(()), Value::from(0)]),
            Value::from(vec![" a  b c"])
        );
        let wide = "x".repeat(70_000);
        assert_eq!(zfill(&wide, 80_000).len(), 80_000);
        assert_eq!(pad(&wide, 80_000, ' ', Align::Center).len(), 80_000);
        assert!(call(&Value::from(1), "zfill", &[]).is_none());
        assert!(call(&Value::from("x"), "upper", &[]).is_none());
    }

    #[test]
    fn markup_methods_escape_and_stay_markup() {
        let m = Value::from_safe_string("<a>".into());
        let given = [Value::from("a"), Value::from("<")];
        let args = markup_args(&m, "replace", &given);
        assert_eq!(args[1].as_str(), Some("&lt;"));
        let r = keep_markup(&m, Value::from("<&lt;>"));
        assert!(r.is_safe());
        assert!(!keep_markup(&Value::from("x"), Value::from("y")).is_safe());
    }
}
