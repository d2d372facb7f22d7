//! The types a JSON schema allows, read one way for the parsers (which type
//! raw text values by them) and the grammars (which write one alternative
//! per type): a value the grammar lets a model write reads back as a value
//! of a type the schema names.

use serde_json::Value;

/// The types a schema allows, in its own order, lower case, `null`
/// included (`nullable` read as `null`); empty when it names none.
pub(crate) fn schema_types(schema: &Value) -> Vec<String> {
    let mut out = Vec::new();
    types(schema, &mut out);
    out
}

fn types(schema: &Value, out: &mut Vec<String>) {
    match schema.get("type") {
        Some(Value::String(t)) => out.push(t.to_ascii_lowercase()),
        Some(Value::Array(ts)) => out.extend(
            ts.iter()
                .filter_map(Value::as_str)
                .map(str::to_ascii_lowercase),
        ),
        _ => {}
    }
    if schema.get("nullable").and_then(Value::as_bool) == Some(true) {
        out.push("null".into());
    }
    for k in ["anyOf", "oneOf"] {
        if let Some(Value::Array(alts)) = schema.get(k) {
            for alt in alts {
                types(alt, out);
            }
        }
    }
    if out.is_empty() {
        if let Some(Value::Array(values)) = schema.get("enum") {
            for v in values {
                let t = match v {
                    Value::Null => "null",
                    Value::Bool(_) => "boolean",
                    Value::Number(n) if n.is_f64() => "number",
                    Value::Number(_) => "integer",
                    Value::String(_) => "string",
                    Value::Array(_) => "array",
                    Value::Object(_) => "object",
                };
                out.push(t.into());
            }
        }
    }
}
