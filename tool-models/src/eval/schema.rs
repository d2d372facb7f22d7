//! BFCL's function documents as tool definitions, converted as BFCL converts
//! them for tool APIs (`convert_to_tool` with `GORILLA_TO_OPENAPI`), so every
//! engine is shown what the leaderboard's tool-calling models are shown.

use serde_json::{Map, Value};

/// BFCL's type names (Python's, Java's, JavaScript's) as JSON Schema types;
/// a name it does not list becomes `string`, as in BFCL.
pub fn json_type(bfcl_type: &str) -> &'static str {
    match bfcl_type {
        "integer" | "byte" | "short" | "long" | "Bigint" => "integer",
        "number" | "float" | "double" => "number",
        "boolean" | "bool" => "boolean",
        "array" | "list" | "tuple" | "ArrayList" | "Array" | "Queue" | "Stack" => "array",
        "dict" | "object" | "HashMap" | "Hashtable" => "object",
        _ => "string",
    }
}

/// The name a tool API is given for BFCL's `name`: dots become underscores,
/// since OpenAI-style APIs allow only `[a-zA-Z0-9_-]`; the checker expects
/// calls under this name.
pub fn tool_name(bfcl_name: &str) -> String {
    bfcl_name.replace('.', "_")
}

/// BFCL's function documents as checked tool definitions for the model.
///
/// # Errors
/// Why a converted document is not a valid definition.
pub(crate) fn tool_definitions(
    functions: &[Value],
) -> Result<Vec<tool_runtime::ToolDefinition>, String> {
    let tools: Vec<Value> = functions.iter().map(tool_definition).collect();
    tool_runtime::ToolDefinition::list_from_json(&tools).map_err(|e| e.to_string())
}

/// One BFCL function document as a transformers-form tool definition
/// (`{"type": "function", "function": {...}}`), key order kept.
pub fn tool_definition(function: &Value) -> Value {
    let mut item = function.clone();
    if let Some(obj) = item.as_object_mut() {
        if let Some(Value::String(name)) = obj.get_mut("name") {
            *name = tool_name(name);
        }
        if let Some(parameters) = obj.get_mut("parameters").and_then(Value::as_object_mut) {
            parameters.insert("type".into(), Value::from("object"));
            if let Some(properties) = parameters
                .get_mut("properties")
                .and_then(Value::as_object_mut)
            {
                cast_properties(properties);
            }
        }
    }
    let mut definition = Map::new();
    definition.insert("type".into(), Value::from("function"));
    definition.insert("function".into(), item);
    Value::Object(definition)
}

/// BFCL's `_cast_to_openai_type`: each property's type made JSON Schema's
/// (a float also says so in its description and `format`), recursing into
/// object properties and up to two levels of array items.
fn cast_properties(properties: &mut Map<String, Value>) {
    for schema in properties.values_mut() {
        let Some(schema) = schema.as_object_mut() else {
            continue;
        };
        let bfcl_type = schema
            .get("type")
            .and_then(Value::as_str)
            .map(str::to_owned);
        if bfcl_type.as_deref() == Some("float") {
            schema.insert("format".into(), Value::from("float"));
            let description = schema
                .get("description")
                .and_then(Value::as_str)
                .unwrap_or("");
            let description = format!("{description} This is a float type value.");
            schema.insert("description".into(), Value::from(description));
        }
        let json = bfcl_type.as_deref().map_or("string", json_type);
        schema.insert("type".into(), Value::from(json));
        if json != "array" && json != "object" {
            continue;
        }
        if let Some(nested) = schema.get_mut("properties").and_then(Value::as_object_mut) {
            cast_properties(nested);
        } else if let Some(items) = schema.get_mut("items").and_then(Value::as_object_mut) {
            cast_items(items);
        }
    }
}

/// An array's `items`: its type, then one more level of items or the
/// properties of object items.
fn cast_items(items: &mut Map<String, Value>) {
    let item_type = items
        .get("type")
        .and_then(Value::as_str)
        .map_or("string", json_type);
    items.insert("type".into(), Value::from(item_type));
    if item_type == "array" {
        if let Some(inner) = items.get_mut("items").and_then(Value::as_object_mut) {
            let inner_type = inner
                .get("type")
                .and_then(Value::as_str)
                .map_or("string", json_type);
            inner.insert("type".into(), Value::from(inner_type));
        }
    } else if item_type == "object" {
        if let Some(nested) = items.get_mut("properties").and_then(Value::as_object_mut) {
            cast_properties(nested);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn every_bfcl_type_has_a_json_schema_type() {
        for (bfcl, json) in [
            ("string", "string"),
            ("integer", "integer"),
            ("float", "number"),
            ("number", "number"),
            ("boolean", "boolean"),
            ("array", "array"),
            ("tuple", "array"),
            ("dict", "object"),
            ("any", "string"),
            ("long", "integer"),
            ("double", "number"),
            ("char", "string"),
            ("HashMap", "object"),
            ("ArrayList", "array"),
            ("something else", "string"),
        ] {
            assert_eq!(json_type(bfcl), json, "{bfcl}");
        }
    }

    #[test]
    fn a_function_converts_as_bfcl_converts_it() {
        let function = json!({
            "name": "geometry.area",
            "description": "Area.",
            "parameters": {"type": "dict", "properties": {
                "base": {"type": "float", "description": "The base."},
                "tags": {"type": "tuple", "items": {"type": "float"}, "description": "t"},
                "grid": {"type": "array", "items": {"type": "array", "items": {"type": "integer"}}},
                "shape": {"type": "dict", "properties": {"sides": {"type": "integer"}}},
                "points": {"type": "array", "items": {"type": "dict", "properties": {
                    "x": {"type": "float", "description": "x"}}}},
                "anything": {"type": "any", "description": "a", "default": "x"},
                "untyped": {"description": "u"}
            }, "required": ["base"]}
        });
        let definition = tool_definition(&function);
        assert_eq!(
            definition,
            json!({"type": "function", "function": {
                "name": "geometry_area",
                "description": "Area.",
                "parameters": {"type": "object", "properties": {
                    "base": {"type": "number", "description": "The base. This is a float type value.", "format": "float"},
                    "tags": {"type": "array", "items": {"type": "number"}, "description": "t"},
                    "grid": {"type": "array", "items": {"type": "array", "items": {"type": "integer"}}},
                    "shape": {"type": "object", "properties": {"sides": {"type": "integer"}}},
                    "points": {"type": "array", "items": {"type": "object", "properties": {
                        "x": {"type": "number", "description": "x This is a float type value.", "format": "float"}}}},
                    "anything": {"type": "string", "description": "a", "default": "x"},
                    "untyped": {"description": "u", "type": "string"}
                }, "required": ["base"]}
            }})
        );
        // Key order is what the model is shown: BFCL keeps it, so do we.
        let keys: Vec<&String> = definition["function"]["parameters"]["properties"]["base"]
            .as_object()
            .unwrap()
            .keys()
            .collect();
        assert_eq!(keys, ["type", "description", "format"]);
    }
}
