//! Input dicts that look up attributes as Jinja2 does on a Python `dict`.
//!
//! In Jinja2, `schema.items` is `getattr(schema, "items")` first: the bound
//! `dict.items` method, not the `"items"` key, which only `schema["items"]`
//! reaches. Real templates depend on it (Command R prints an array schema
//! with `json_spec.items` and gets `List[Union[]]`), so the dicts of the
//! render inputs answer dot lookups of `dict` method names with a method,
//! and of mutating ones with undefined (the immutable sandbox hides them).

use super::json_style::JsonStyle;
use minijinja::value::{Enumerator, Object, ObjectExt, ObjectRepr, Value};
use minijinja::{Error, ErrorKind, State};
use std::collections::HashMap;
use std::fmt;
use std::sync::{Arc, Mutex};

/// Dicts with more keys than this get a hash index; smaller ones are
/// searched in order, which is faster than hashing for the few keys a
/// message or a schema has.
const INDEX_FROM: usize = 12;

/// How many `tojson` layouts a dict remembers (templates use one or two).
const MEMO_STYLES: usize = 4;

/// A dict from the render inputs: its entries in order.
///
/// The dicts of the tools a template keeps between renders (see
/// `input::ToolsCache`) remember their `tojson` text, so they are serialised
/// once; the others, rebuilt every render, have no memo to fill.
#[derive(Debug)]
pub(crate) struct PyDict {
    entries: Vec<(Arc<str>, Value)>,
    index: Option<HashMap<Arc<str>, usize>>,
    dumped: Option<Mutex<Dumps>>,
}

/// `tojson` texts by layout.
type Dumps = Vec<(JsonStyle, Arc<str>)>;

impl PyDict {
    /// A dict of these entries (keys unique, as in a JSON object); `kept`
    /// when it outlives the render, so that its `tojson` text is worth keeping.
    pub(crate) fn from_entries(entries: Vec<(Arc<str>, Value)>, kept: bool) -> Value {
        let index = (entries.len() > INDEX_FROM).then(|| {
            entries
                .iter()
                .enumerate()
                .map(|(i, (k, _))| (Arc::clone(k), i))
                .collect()
        });
        Value::from_object(PyDict {
            entries,
            index,
            dumped: kept.then(|| Mutex::new(Vec::new())),
        })
    }

    /// The entries, in order.
    pub(crate) fn entries(&self) -> &[(Arc<str>, Value)] {
        &self.entries
    }

    fn lookup(&self, key: &str) -> Option<&Value> {
        match &self.index {
            Some(index) => index.get(key).map(|&i| &self.entries[i].1),
            None => self
                .entries
                .iter()
                .find(|(k, _)| &**k == key)
                .map(|(_, v)| v),
        }
    }

    /// The dict's `tojson` text in `style`, if it was made before.
    pub(crate) fn dumped(&self, style: &JsonStyle) -> Option<Arc<str>> {
        let memo = self.dumped.as_ref()?.lock().ok()?;
        memo.iter()
            .find(|(s, _)| s == style)
            .map(|(_, t)| Arc::clone(t))
    }

    /// Remembers the dict's `tojson` text in `style`.
    pub(crate) fn remember_dump(&self, style: &JsonStyle, text: &str) {
        if let Some(Ok(mut memo)) = self.dumped.as_ref().map(Mutex::lock) {
            if memo.len() < MEMO_STYLES {
                memo.push((style.clone(), Arc::from(text)));
            }
        }
    }
}

impl Object for PyDict {
    fn repr(self: &Arc<Self>) -> ObjectRepr {
        ObjectRepr::Map
    }

    fn get_value(self: &Arc<Self>, key: &Value) -> Option<Value> {
        self.lookup(key.as_str()?).cloned()
    }

    // Only attribute syntax (`x.name`) comes here; `x["name"]` uses `get_value`.
    fn get_value_by_str(self: &Arc<Self>, key: &str) -> Option<Value> {
        let method = match key {
            "copy" => "copy",
            "fromkeys" => "fromkeys",
            "get" => "get",
            "items" => "items",
            "keys" => "keys",
            "values" => "values",
            // Mutating methods: hidden by the immutable sandbox.
            "clear" | "pop" | "popitem" | "setdefault" | "update" => return None,
            _ => return self.lookup(key).cloned(),
        };
        Some(Value::from_object(BoundMethod {
            dict: Value::from_dyn_object(self.clone()),
            name: method,
        }))
    }

    fn enumerate(self: &Arc<Self>) -> Enumerator {
        self.mapped_rev_key_value_enumerator(|this| {
            Box::new(
                this.entries
                    .iter()
                    .map(|(k, v)| (Value::from(Arc::clone(k)), v.clone())),
            )
        })
    }

    fn enumerator_len(self: &Arc<Self>) -> Option<usize> {
        Some(self.entries.len())
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
