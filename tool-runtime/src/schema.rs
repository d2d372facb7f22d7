//! JSON schemas of tool parameters: the run-time half of `#[tool]`.
//!
//! The macro writes built-in types' schemas as text at compile time; other
//! types reach here through `schemars`, inlined so that templates and
//! providers that do not resolve `$ref` still see the whole shape.

use schemars::generate::SchemaSettings;
use schemars::JsonSchema;
use serde_json::{Map, Value};

/// A type that can be a tool parameter or return value: anything with a
/// `schemars::JsonSchema` impl. Built-in types never reach this trait.
#[diagnostic::on_unimplemented(
    message = "`{Self}` has no JSON schema, so it cannot be a tool parameter or return type",
    label = "not a built-in tool type, and no `schemars::JsonSchema` impl",
    note = "built-in types: bool, char, integers, f32, f64, String, &str, Cow<str>, Option<T>, \
            Vec<T>, &[T], [T; N], tuples, HashSet<T>, BTreeSet<T>, HashMap<String, V>, \
            BTreeMap<String, V>, serde_json::Value, Box<T>, Arc<T>, Rc<T>",
    note = "for your own type, add `#[derive(schemars::JsonSchema)]` beside its serde derives"
)]
pub trait ParamSchema {
    /// The type's schema, inlined: no `$ref`, `$defs`, `$schema` or `title`.
    fn param_schema() -> Value;
}

impl<T: JsonSchema + ?Sized> ParamSchema for T {
    fn param_schema() -> Value {
        let generator = SchemaSettings::draft2020_12()
            .with(|s| {
                s.inline_subschemas = true;
                s.meta_schema = None;
            })
            .into_generator();
        let mut value = generator.into_root_schema_for::<T>().to_value();
        strip_titles(&mut value);
        if let Some(obj) = value.as_object_mut() {
            obj.remove("$schema");
            if obj
                .get("$defs")
                .is_some_and(|d| d.as_object().is_some_and(Map::is_empty))
            {
                obj.remove("$defs");
            }
        }
        value
    }
}

/// The inlined schema of `T`.
pub fn inline_schema<T: ParamSchema + ?Sized>() -> Value {
    T::param_schema()
}

/// Removes `title` from a schema and its subschemas (not from property names).
fn strip_titles(schema: &mut Value) {
    let Some(obj) = schema.as_object_mut() else {
        return;
    };
    obj.remove("title");
    for (key, sub) in obj.iter_mut() {
        match key.as_str() {
            "properties" | "patternProperties" | "$defs" | "definitions" | "dependentSchemas" => {
                if let Some(map) = sub.as_object_mut() {
                    map.values_mut().for_each(strip_titles);
                }
            }
            "items"
            | "additionalProperties"
            | "not"
            | "if"
            | "then"
            | "else"
            | "contains"
            | "propertyNames"
            | "unevaluatedItems"
            | "unevaluatedProperties" => strip_titles(sub),
            "prefixItems" | "anyOf" | "oneOf" | "allOf" => {
                if let Some(list) = sub.as_array_mut() {
                    list.iter_mut().for_each(strip_titles);
                }
            }
            _ => {}
        }
    }
}

/// Parses schema text written by the macro.
pub fn parse_schema(text: &str) -> Value {
    // The macro wrote this text from a value it built; it is always valid JSON.
    serde_json::from_str(text).expect("#[tool] generated invalid schema JSON")
}

/// An object with the given entries, in order.
pub fn object<const N: usize>(entries: [(&str, Value); N]) -> Value {
    Value::Object(
        entries
            .into_iter()
            .map(|(k, v)| (k.to_owned(), v))
            .collect(),
    )
}

/// An array of the given values.
pub fn array<const N: usize>(items: [Value; N]) -> Value {
    Value::Array(items.into())
}

/// Appends entries to an object schema (`nullable`, `enum`, `description`...).
/// A schema that is `true` (schemars' "anything") becomes an object first.
pub fn extend<const N: usize>(schema: Value, entries: [(&str, Value); N]) -> Value {
    let mut obj = match schema {
        Value::Object(obj) => obj,
        _ => Map::new(),
    };
    for (k, v) in entries {
        // Re-inserting moves the key last: `description` must end the property.
        obj.shift_remove(k);
        obj.insert(k.to_owned(), v);
    }
    Value::Object(obj)
}
