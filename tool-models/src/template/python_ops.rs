//! Python's `+` and `%`, the functions [`operators`](super::operators)
//! rewrites those operators into: `Markup + str` escapes the plain side,
//! `"%d" % n` is printf formatting, numbers follow Python's arithmetic.

use super::limits;
use minijinja::formatting::{format, FormatStyle};
use minijinja::value::{Value, ValueKind};
use minijinja::{Error, ErrorKind};

/// markupsafe's `escape`: `& < > " '`.
pub(crate) fn escape_html(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&#34;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

fn type_error(op: &str, a: &Value, b: &Value) -> Error {
    Error::new(
        ErrorKind::InvalidOperation,
        format!(
            "unsupported operand type(s) for {op}: {} and {}",
            a.kind(),
            b.kind()
        ),
    )
}

/// `a + b` as Python computes it, `Markup` included.
pub(crate) fn add(a: Value, b: Value) -> Result<Value, Error> {
    limits::check()?;
    if a.is_safe() || b.is_safe() {
        let (Some(x), Some(y)) = (a.as_str(), b.as_str()) else {
            return Err(type_error("+", &a, &b));
        };
        let x = if a.is_safe() {
            x.to_owned()
        } else {
            escape_html(x)
        };
        let y = if b.is_safe() {
            y.to_owned()
        } else {
            escape_html(y)
        };
        return Ok(Value::from_safe_string(x + &y));
    }
    if let (Some(x), Some(y)) = (a.as_str(), b.as_str()) {
        return Ok(Value::from([x, y].concat()));
    }
    let number = |v: &Value| matches!(v.kind(), ValueKind::Number | ValueKind::Bool);
    if number(&a) && number(&b) {
        if let (Some(x), Some(y)) = (as_int(&a), as_int(&b)) {
            return x
                .checked_add(y)
                .map(int_value)
                .ok_or_else(|| type_error("+", &a, &b));
        }
        return match (f64::try_from(a.clone()), f64::try_from(b.clone())) {
            (Ok(x), Ok(y)) => Ok(Value::from(x + y)),
            _ => Err(type_error("+", &a, &b)),
        };
    }
    let seq = |v: &Value| matches!(v.kind(), ValueKind::Seq | ValueKind::Iterable);
    if seq(&a) && seq(&b) {
        let mut items = Vec::new();
        for v in [&a, &b] {
            for item in v.try_iter()? {
                limits::check()?;
                items.push(item);
            }
        }
        return Ok(Value::from(items));
    }
    Err(type_error("+", &a, &b))
}

/// `a % b`: printf formatting on a string (escaping the arguments of a
/// `Markup` one), Python's floored modulo on numbers.
pub(crate) fn modulo(a: Value, b: Value) -> Result<Value, Error> {
    limits::check()?;
    if let Some(fmt) = a.as_str() {
        let args: Vec<Value> = if b.is_tuple() {
            b.try_iter()?.collect()
        } else {
            vec![b.clone()]
        };
        // `%(key)s` reads a dict argument; otherwise a dict is printed.
        let mapping = b.kind() == ValueKind::Map && fmt.contains("%(");
        let args: Vec<Value> = args
            .into_iter()
            .map(|v| {
                if mapping {
                    v
                } else {
                    printable(v, a.is_safe())
                }
            })
            .collect();
        let text = format(FormatStyle::Printf, fmt, &args)?;
        return Ok(if a.is_safe() {
            Value::from_safe_string(text)
        } else {
            Value::from(text)
        });
    }
    if let (Some(x), Some(y)) = (as_int(&a), as_int(&b)) {
        if y == 0 {
            return Err(Error::new(
                ErrorKind::InvalidOperation,
                "integer division or modulo by zero",
            ));
        }
        let r = x % y;
        return Ok(int_value(if r != 0 && (r < 0) != (y < 0) {
            r + y
        } else {
            r
        }));
    }
    match (f64::try_from(a.clone()), f64::try_from(b.clone())) {
        (Ok(_), Ok(0.0)) => Err(Error::new(
            ErrorKind::InvalidOperation,
            "float modulo by zero",
        )),
        (Ok(x), Ok(y)) => {
            let r = x % y;
            Ok(Value::from(if r != 0.0 && (r < 0.0) != (y < 0.0) {
                r + y
            } else {
                r
            }))
        }
        _ => Err(type_error("%", &a, &b)),
    }
}

/// A printf argument as Python would see it: `None`, lists and dicts as
/// their `str()`; strings escaped for a `Markup` format.
fn printable(v: Value, escape: bool) -> Value {
    match v.kind() {
        ValueKind::String if escape && !v.is_safe() => {
            Value::from(escape_html(v.as_str().unwrap_or_default()))
        }
        ValueKind::None | ValueKind::Undefined | ValueKind::Seq | ValueKind::Map => {
            // `str()`: nothing for undefined, `None`, Python's repr of containers.
            let mut s = String::new();
            let _ = super::python::write_str(&mut s, &v);
            if escape {
                s = escape_html(&s);
            }
            Value::from(s)
        }
        _ => v,
    }
}

fn as_int(v: &Value) -> Option<i128> {
    match v.kind() {
        ValueKind::Bool => Some(i128::from(v.is_true())),
        ValueKind::Number if v.is_integer() => i128::try_from(v.clone()).ok(),
        _ => None,
    }
}

fn int_value(i: i128) -> Value {
    if let Ok(i) = i64::try_from(i) {
        Value::from(i)
    } else if let Ok(u) = u64::try_from(i) {
        Value::from(u)
    } else {
        Value::from(i)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markup_escapes_the_plain_side() {
        let safe = Value::from_safe_string("<a>".into());
        let plain = Value::from("\"x\" & 'y'");
        assert_eq!(
            add(safe.clone(), plain.clone()).unwrap().as_str(),
            Some("<a>&#34;x&#34; &amp; &#39;y&#39;")
        );
        assert_eq!(
            add(plain, safe.clone()).unwrap().as_str(),
            Some("&#34;x&#34; &amp; &#39;y&#39;<a>")
        );
        assert!(add(safe, Value::from(1)).is_err());
        assert_eq!(
            add(Value::from(1), Value::from(2.5)).unwrap(),
            Value::from(3.5)
        );
    }

    #[test]
    fn modulo_formats_strings_and_floors_numbers() {
        assert_eq!(
            modulo(
                Value::from("%05d|%s"),
                Value::from(minijinja::value::Tuple::from([
                    Value::from(42),
                    Value::from(())
                ]))
            )
            .unwrap()
            .as_str(),
            Some("00042|None")
        );
        assert_eq!(
            modulo(Value::from(-7), Value::from(3)).unwrap(),
            Value::from(2)
        );
        assert_eq!(
            modulo(Value::from(7.5), Value::from(-2)).unwrap(),
            Value::from(-0.5)
        );
        assert!(modulo(Value::from(1), Value::from(0)).is_err());
    }
}
