//! Python's `range`: lazy, sized and indexable, with every step of its
//! iteration checking the render limits.

use super::limits;
use minijinja::value::{Enumerator, Object, ObjectRepr, Rest, Value};
use minijinja::{Error, ErrorKind};
use std::sync::Arc;

/// Python's `range` refuses nothing, but no chat template needs more.
const MAX_RANGE: i64 = 100_000;

/// Python's `range(stop)` / `range(start, stop[, step])`, checking the
/// limits at every step so that a long loop stops when its time is up.
pub(crate) fn range(args: Rest<i64>) -> Result<Value, Error> {
    let (start, stop, step) = match args.as_slice() {
        [stop] => (0, *stop, 1),
        [start, stop] => (*start, *stop, 1),
        [start, stop, step] => (*start, *stop, *step),
        other => {
            return Err(Error::new(
                ErrorKind::InvalidOperation,
                format!(
                    "range expected 1 to 3 integer arguments, found {}",
                    other.len()
                ),
            ))
        }
    };
    if step == 0 {
        return Err(Error::new(
            ErrorKind::InvalidOperation,
            "range() arg 3 must not be zero",
        ));
    }
    let len = if (step > 0 && start < stop) || (step < 0 && start > stop) {
        let span = (i128::from(stop) - i128::from(start)).unsigned_abs();
        let step_abs = i128::from(step).unsigned_abs();
        span.div_ceil(step_abs)
    } else {
        0
    };
    if len > MAX_RANGE as u128 {
        return Err(Error::new(
            ErrorKind::InvalidOperation,
            format!("range of {len} elements is longer than the limit of {MAX_RANGE}"),
        ));
    }
    Ok(Value::from_object(PyRange {
        start,
        stop,
        step,
        len: len as usize,
    }))
}

/// A lazy, sized, indexable range whose iteration checks the render limits.
#[derive(Debug)]
pub(crate) struct PyRange {
    start: i64,
    stop: i64,
    step: i64,
    len: usize,
}

impl PyRange {
    fn at(&self, i: usize) -> i64 {
        self.start + self.step * i as i64
    }

    /// `repr(range)`: `range(0, 3)`, `range(0, 10, 2)`.
    pub(crate) fn write_repr(&self, out: &mut impl std::fmt::Write) -> std::fmt::Result {
        write!(out, "range({}, {}", self.start, self.stop)?;
        if self.step != 1 {
            write!(out, ", {}", self.step)?;
        }
        out.write_char(')')
    }
}

impl Object for PyRange {
    fn repr(self: &Arc<Self>) -> ObjectRepr {
        ObjectRepr::Seq
    }

    fn get_value(self: &Arc<Self>, key: &Value) -> Option<Value> {
        let i = key.as_i64()?;
        let i = if i < 0 { i + self.len as i64 } else { i };
        (0..self.len as i64)
            .contains(&i)
            .then(|| Value::from(self.at(i as usize)))
    }

    fn enumerator_len(self: &Arc<Self>) -> Option<usize> {
        Some(self.len)
    }

    fn enumerate(self: &Arc<Self>) -> Enumerator {
        Enumerator::Iter(Box::new(RangeIter {
            range: Arc::clone(self),
            next: 0,
        }))
    }
}

struct RangeIter {
    range: Arc<PyRange>,
    next: usize,
}

impl Iterator for RangeIter {
    type Item = Value;

    fn next(&mut self) -> Option<Value> {
        if self.next >= self.range.len {
            return None;
        }
        let i = self.next;
        self.next += 1;
        Some(match limits::check() {
            Ok(()) => Value::from(self.range.at(i)),
            Err(err) => Value::from(err),
        })
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let left = self.range.len - self.next;
        (left, Some(left))
    }
}
