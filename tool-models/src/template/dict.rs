//! Input dicts that look up attributes as Jinja2 does on a Python `dict`.
//!
//! In Jinja2, `schema.items` is `getattr(schema, "items")` first: the bound
//! `dict.items` method, not the `"items"` key, which only `schema["items"]`
//! reaches. Real templates depend on it (Command R prints an array schema
//! with `json_spec.items` and gets `List[Union[]]`), so the dicts of the
//! render inputs answer dot lookups of `dict` method names with a method,
//! and of mutating ones with undefined (the immutable sandbox hides them).

use minijinja::value::{Enumerator, Object, ObjectRepr, Value};
use minijinja::{Error, ErrorKind, State};
use std::fmt;
use std::sync::Arc;

/// `dict` methods the immutable sandbox lets a template see.
const SAFE_METHODS: &[&str] = &["copy", "fromkeys", "get", "items", "keys", "values"];
/// `dict` methods it hides (they mutate).
const UNSAFE_METHODS: &[&str] = &["clear", "pop", "popitem", "setdefault", "update"];

/// A dict from the render inputs (an ordered minijinja map inside).
#[derive(Debug)]
pub(crate) struct PyDict {
    map: Value,
}

impl PyDict {
    /// Wraps an ordered minijinja map.
    pub(crate) fn wrap(map: Value) -> Value {
        Value::from_object(PyDict { map })
    }
}

impl Object for PyDict {
    fn repr(self: &Arc<Self>) -> ObjectRepr {
        ObjectRepr::Map
    }

    fn get_value(self: &Arc<Self>, key: &Value) -> Option<Value> {
        let value = self.map.get_item(key).ok()?;
        (!value.is_undefined()).then_some(value)
    }

    // Only attribute syntax (`x.name`) comes here; `x["name"]` uses `get_value`.
    fn get_value_by_str(self: &Arc<Self>, key: &str) -> Option<Value> {
        if let Some(name) = SAFE_METHODS.iter().find(|m| **m == key) {
            return Some(Value::from_object(BoundMethod {
                dict: Value::from_dyn_object(self.clone()),
                name,
            }));
        }
        if UNSAFE_METHODS.contains(&key) {
            return None;
        }
        self.get_value(&Value::from(key))
    }

    fn enumerate(self: &Arc<Self>) -> Enumerator {
        match self.map.try_iter() {
            Ok(keys) => Enumerator::Iter(Box::new(keys.collect::<Vec<_>>().into_iter())),
            Err(_) => Enumerator::Empty,
        }
    }

    fn enumerator_len(self: &Arc<Self>) -> Option<usize> {
        self.map.len()
    }
}

/// `dict.items` and friends, got as attributes and called later.
struct BoundMethod {
    dict: Value,
    name: &'static str,
}

impl fmt::Debug for BoundMethod {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "<built-in method {} of dict object>", self.name)
    }
}

impl Object for BoundMethod {
    fn repr(self: &Arc<Self>) -> ObjectRepr {
        ObjectRepr::Plain
    }

    fn call(self: &Arc<Self>, state: &mut State<'_, '_>, args: &[Value]) -> Result<Value, Error> {
        match self.name {
            "copy" => Ok(self.dict.clone()),
            "fromkeys" => Err(Error::new(
                ErrorKind::InvalidOperation,
                "dict.fromkeys is not supported in chat templates",
            )),
            name => self.dict.call_method(state, name, args),
        }
    }

    fn render(self: &Arc<Self>, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "<built-in method {} of dict object>", self.name)
    }
}
