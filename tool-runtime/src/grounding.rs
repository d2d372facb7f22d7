//! The grounding marker on a parameter's schema (`"x-grounded": true`): a
//! hint for local constrained decoding that the value must be copied from
//! the conversation. `#[arg(grounded)]` writes it at compile time; the
//! functions here set and take it on definitions in JSON, and
//! [`Toolbox::ground`](crate::Toolbox::ground) on a toolbox's tools.

use serde_json::{Map, Value};

/// The keyword `#[arg(grounded)]` writes on a parameter's schema: a hint
/// for local constrained decoding (the value must be copied from the user's
/// words), which hosted APIs do not know. Every format but
/// [`DefinitionFormat::Transformers`](crate::DefinitionFormat::Transformers) leaves it out.
pub const GROUNDED: &str = "x-grounded";

/// Removes the [`GROUNDED`] marker from a parameter's schema, keeping the
/// other keys in order; whether the parameter was grounded.
pub fn take_grounded(schema: &mut Map<String, Value>) -> bool {
    let grounded = schema.get(GROUNDED) == Some(&Value::Bool(true));
    schema.retain(|k, _| k != GROUNDED);
    grounded
}

/// Whether `schema` is a free value of one of `types` (no `enum`), or a
/// list of them.
pub(crate) fn free(schema: &Value, types: &[&str]) -> bool {
    let one = |s: &Value| {
        s["type"].as_str().is_some_and(|t| types.contains(&t)) && s.get("enum").is_none()
    };
    one(schema) || (schema["type"] == "array" && one(&schema["items"]))
}

/// Marks every free string parameter (and list of them) of one
/// transformers-form definition grounded, as
/// [`Toolbox::ground_free_strings`](crate::Toolbox::ground_free_strings) does for a toolbox's tools; how many it
/// marked. For definitions that belong to no toolbox (a benchmark's).
pub fn ground_free_strings(definition: &mut Value) -> usize {
    ground_free(definition, &["string"])
}

/// Marks every free number parameter (`number` or `integer` without an
/// `enum`, and lists of them) of one transformers-form definition
/// grounded: a local model may then only write a number the conversation
/// holds there. How many it marked.
pub fn ground_free_numbers(definition: &mut Value) -> usize {
    ground_free(definition, &["number", "integer"])
}

/// Marks the free parameters of `types` grounded; how many.
fn ground_free(definition: &mut Value, types: &[&str]) -> usize {
    let Some(properties) = definition
        .pointer_mut("/function/parameters/properties")
        .and_then(Value::as_object_mut)
    else {
        return 0;
    };
    let mut marked = 0;
    for schema in properties.values_mut() {
        if free(schema, types) {
            if let Some(obj) = schema.as_object_mut() {
                obj.insert(GROUNDED.into(), Value::Bool(true));
                marked += 1;
            }
        }
    }
    marked
}
