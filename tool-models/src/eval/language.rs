//! BFCL's three languages: what each adds to the function documents the
//! model is shown, and how a parameter's value becomes the value the
//! checker compares (`simple_function_checker`'s per-language branch).
//!
//! In Python the model's JSON value is checked as it is. In Java and
//! JavaScript the model is shown every parameter as a string "in string
//! representation", and writes the language's syntax, which BFCL's
//! converters ([`super::convert`]) read back into values.

use serde_json::{Map, Value};

use super::convert::{self, Converted, Unconverted};
use super::python::{self, repr, PyType};

/// The language a category's functions are written in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Language {
    /// Python 3: JSON values checked as they are.
    Python,
    /// Java 8: every value a string in Java's syntax.
    Java,
    /// JavaScript: every value a string in JavaScript's syntax.
    JavaScript,
}

/// Why a parameter's value cannot be checked: BFCL's error type and its
/// words (the checker makes them its verdict).
#[derive(Debug)]
pub(super) struct Refused {
    pub(super) error_type: String,
    pub(super) error: String,
}

impl Refused {
    fn new(error_type: &str, error: String) -> Refused {
        Refused {
            error_type: error_type.to_owned(),
            error,
        }
    }
}

/// A parameter's value as the checks take it: its expected type, its
/// items' type (for lists), and the value itself, converted.
pub(super) struct Expected {
    pub(super) expected: PyType,
    pub(super) nested: Option<PyType>,
    pub(super) value: Value,
}

impl Language {
    /// What BFCL appends to every function's description
    /// (`_get_language_specific_hint`).
    pub(super) fn hint(self) -> &'static str {
        match self {
            Language::Python => " Note that the provided function is in Python 3 syntax.",
            Language::Java => " Note that the provided function is in Java 8 SDK syntax.",
            Language::JavaScript => " Note that the provided function is in JavaScript syntax.",
        }
    }

    /// A function document as the model is shown it
    /// (`_func_doc_language_specific_pre_processing`): the hint, and in
    /// Java and JavaScript every parameter a string whose description
    /// names its type (and its items' type, or an object's schema).
    pub(super) fn shown(self, function: &Value) -> Value {
        let mut shown = function.clone();
        if let Some(Value::String(d)) = shown.get_mut("description") {
            d.push_str(self.hint());
        }
        let name = match self {
            Language::Python => return shown,
            Language::Java => "Java",
            Language::JavaScript => "JavaScript",
        };
        let properties = shown["parameters"]["properties"].as_object_mut();
        for property in properties.into_iter().flat_map(Map::values_mut) {
            let Some(property) = property.as_object_mut() else {
                continue;
            };
            let kind = property
                .get("type")
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_owned();
            let mut note = if kind == "any" {
                format!(
                    " This parameter can be of any type of {name} object in string representation."
                )
            } else {
                format!(" This is {name} {kind} type parameter in string representation.")
            };
            let lists = match self {
                Language::Java => kind == "ArrayList" || kind == "Array",
                _ => kind == "array",
            };
            if lists {
                let items = property
                    .get("items")
                    .and_then(|i| i.get("type"))
                    .and_then(Value::as_str)
                    .unwrap_or_default();
                note.push_str(&format!(
                    " The list elements are of type {items}; they are not in string representation."
                ));
                property.remove("items");
            }
            if self == Language::JavaScript && kind == "dict" {
                if let Some(schema) = property.remove("properties") {
                    note.push_str(&format!(
                        " The dictionary entries have the following schema; they are not in string representation. {}",
                        python::json_dumps(&schema)
                    ));
                }
            }
            let description = property
                .entry("description")
                .or_insert_with(|| Value::from(""));
            if let Value::String(d) = description {
                d.push_str(&note);
            }
            property.insert("type".into(), Value::from("string"));
        }
        shown
    }

    /// The value of parameter `param` (documented as `details`, of type
    /// `description`) ready for the checks, or why it cannot be.
    pub(super) fn expect(
        self,
        param: &str,
        value: &Value,
        description: &str,
        details: &Value,
    ) -> Result<Expected, Refused> {
        let unknown = |kind: &str| {
            Refused::new(
                "checker:unknown_type",
                format!(
                    "Parameter {} has type {kind}, which BFCL's {self:?} checker does not know.",
                    python::str_repr(param)
                ),
            )
        };
        let type_of = match self {
            Language::Python => python_type,
            Language::Java => java_type,
            Language::JavaScript => js_type,
        };
        let expected = type_of(description).ok_or_else(|| unknown(description))?;
        let items = || details["items"]["type"].as_str();
        if self == Language::Python {
            let nested = match description {
                "array" | "tuple" => items().and_then(python_type),
                _ => None,
            };
            // Python lets an int stand for a float.
            let value = match (description, value) {
                ("float", Value::Number(n)) if !n.is_f64() => n
                    .as_f64()
                    .and_then(serde_json::Number::from_f64)
                    .map_or(value.clone(), Value::Number),
                _ => value.clone(),
            };
            return Ok(Expected {
                expected,
                nested,
                value,
            });
        }
        let Value::String(text) = value else {
            let tag = if self == Language::Java { "java" } else { "js" };
            return Err(Refused::new(
                &format!("type_error:{tag}"),
                format!(
                    "Incorrect type for parameter {}. Expected type String, got {}. Parameter value: {}.",
                    python::str_repr(param),
                    PyType::of(value).name(),
                    repr(value)
                ),
            ));
        };
        let converted = if matches!(description, "Array" | "ArrayList" | "array") {
            let Some(item) = items() else {
                return Err(Refused::new(
                    "checker:bad_function_doc",
                    format!("Parameter {} lists no item type.", python::str_repr(param)),
                ));
            };
            let nested = type_of(item).ok_or_else(|| unknown(item))?;
            self.convert(text, description, Some(item))
                .map(|value| (value, Some(nested)))
        } else {
            self.convert(text, description, None)
                .map(|value| (value, None))
        };
        match converted {
            Ok((value, nested)) => Ok(Expected {
                expected,
                nested,
                value,
            }),
            Err(Unconverted(why)) => Err(Refused::new(
                "checker:unconvertible",
                format!("BFCL's converter cannot read {}: {why}.", repr(value)),
            )),
        }
    }

    fn convert(self, text: &str, kind: &str, items: Option<&str>) -> Converted {
        match self {
            Language::Java => convert::java(text, kind, items),
            _ => convert::javascript(text, kind, items),
        }
    }
}

/// `PYTHON_TYPE_MAPPING`.
fn python_type(bfcl_type: &str) -> Option<PyType> {
    Some(match bfcl_type {
        "string" | "any" => PyType::Str,
        "integer" => PyType::Int,
        "float" => PyType::Float,
        "boolean" => PyType::Bool,
        "array" | "tuple" => PyType::List,
        "dict" => PyType::Dict,
        _ => return None,
    })
}

/// `JAVA_TYPE_CONVERSION`. A `Set` (Python's `set`) never reaches the
/// type check: BFCL's converter raises on it first, as on `Hashtable`,
/// `Queue` and `Stack`.
fn java_type(bfcl_type: &str) -> Option<PyType> {
    Some(match bfcl_type {
        "byte" | "short" | "integer" | "long" => PyType::Int,
        "float" | "double" => PyType::Float,
        "boolean" => PyType::Bool,
        "char" | "String" | "any" => PyType::Str,
        "Array" | "ArrayList" | "Queue" | "Stack" | "Set" => PyType::List,
        "HashMap" | "Hashtable" => PyType::Dict,
        _ => return None,
    })
}

/// `JS_TYPE_CONVERSION`.
fn js_type(bfcl_type: &str) -> Option<PyType> {
    Some(match bfcl_type {
        "String" | "any" => PyType::Str,
        "integer" | "Bigint" => PyType::Int,
        "float" => PyType::Float,
        "Boolean" => PyType::Bool,
        "dict" => PyType::Dict,
        "array" => PyType::List,
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn java_and_javascript_documents_are_shown_as_bfcl_shows_them() {
        let java = json!({"name": "A.b", "description": "D.", "parameters": {"type": "dict", "properties": {
            "n": {"type": "long", "description": "n."},
            "xs": {"type": "ArrayList", "description": "xs.", "items": {"type": "String"}},
            "o": {"type": "any", "description": "o."}}}});
        let shown = Language::Java.shown(&java);
        assert_eq!(
            shown["description"],
            "D. Note that the provided function is in Java 8 SDK syntax."
        );
        let p = &shown["parameters"]["properties"];
        assert_eq!(
            p["n"],
            json!({"type": "string", "description": "n. This is Java long type parameter in string representation."})
        );
        assert_eq!(
            p["xs"],
            json!({"type": "string", "description": "xs. This is Java ArrayList type parameter in string representation. The list elements are of type String; they are not in string representation."})
        );
        assert_eq!(
            p["o"]["description"],
            "o. This parameter can be of any type of Java object in string representation."
        );

        let js = json!({"name": "f", "description": "D.", "parameters": {"type": "dict", "properties": {
            "d": {"type": "dict", "description": "d.", "properties": {"k": {"type": "String", "description": "é"}}}}}});
        let shown = Language::JavaScript.shown(&js);
        assert_eq!(
            shown["parameters"]["properties"]["d"],
            json!({"type": "string", "description": "d. This is JavaScript dict type parameter in string representation. The dictionary entries have the following schema; they are not in string representation. {\"k\": {\"type\": \"String\", \"description\": \"\\u00e9\"}}"})
        );
        // Python's documents only gain the hint.
        let shown = Language::Python.shown(&java);
        assert_eq!(shown["parameters"], java["parameters"]);
    }

    #[test]
    fn values_are_converted_or_refused_as_bfcl_does() {
        let details = json!({"type": "long"});
        let e = Language::Java
            .expect("n", &json!("12L"), "long", &details)
            .ok()
            .unwrap();
        assert_eq!((e.expected, e.value), (PyType::Int, json!(12)));
        let refused = Language::Java
            .expect("n", &json!(12), "long", &details)
            .err()
            .unwrap();
        assert_eq!(refused.error_type, "type_error:java");
        assert_eq!(
            refused.error,
            "Incorrect type for parameter 'n'. Expected type String, got int. Parameter value: 12."
        );
        let list = json!({"type": "array", "items": {"type": "float"}});
        let e = Language::JavaScript
            .expect("xs", &json!("[1.5, 2]"), "array", &list)
            .ok()
            .unwrap();
        // "2" fits the float pattern (its decimals are optional).
        assert_eq!(
            (e.nested, e.value),
            (Some(PyType::Float), json!([1.5, 2.0]))
        );
        let set = Language::Java
            .expect("s", &json!("x"), "Set", &json!({"type": "Set"}))
            .err()
            .unwrap();
        assert_eq!(set.error_type, "checker:unconvertible");
    }
}
