//! JSON schemas for tool calls, built from transformers-style definitions.
//!
//! Each call is an object `{"name": <const>, "<args key>": <parameters>}`;
//! several tools make an `anyOf`. Parameters are narrowed (see
//! [`narrow`](super::narrow)) so that every call parses and validates, and
//! their `$defs`/`definitions` move to the root of the call schema, renamed
//! per tool, with every `$ref` following them.

use super::narrow::{bound_numbers, close_objects, each_subschema};
use serde_json::{json, Map, Value};
use tool_runtime::ToolDefinition;

/// One offered tool.
#[derive(Debug, Clone)]
pub(crate) struct ToolDef {
    pub(crate) name: String,
    /// The parameters schema, adjusted (see the module docs).
    pub(crate) params: Value,
}

/// The grammar's view of checked definitions: each one's parameters made an
/// object schema whose arguments parse and validate (see the module docs).
pub(crate) fn read_tools(tools: &[ToolDefinition]) -> Vec<ToolDef> {
    tools
        .iter()
        .map(|tool| {
            let mut params = match tool.parameters() {
                Some(p) => Value::Object(p.clone()),
                None => json!({"type": "object", "properties": {}}),
            };
            if let Some(obj) = params.as_object_mut() {
                obj.entry("type").or_insert_with(|| "object".into());
                // Closed even without declared properties: the runtime
                // rejects unknown arguments.
                if !obj.contains_key("additionalProperties")
                    && !obj.contains_key("patternProperties")
                {
                    obj.insert("additionalProperties".into(), false.into());
                }
            }
            close_objects(&mut params);
            bound_numbers(&mut params);
            ToolDef {
                name: tool.name().to_owned(),
                params,
            }
        })
        .collect()
}

/// Options for llguidance's JSON compiler: the separators chat templates
/// print, `json.dumps` style (`, ` and `: `) or compact (`,` and `:`, as
/// templates that pass the arguments' text through write them; the
/// separators are regexes), and no other whitespace, so a weak model
/// cannot wander off into endless blank space inside a call.
pub(crate) fn layout() -> Value {
    json!({"whitespace_flexible": false, "item_separator": ", ?", "key_separator": ": ?"})
}

/// The schema of one call to any of `tools` (at least one); their
/// definitions go to `defs`, for the root of the schema.
pub(crate) fn call_schema(
    tools: &[ToolDef],
    args_key: &str,
    defs: &mut Map<String, Value>,
) -> Value {
    let mut branches: Vec<Value> = tools
        .iter()
        .enumerate()
        .map(|(i, t)| {
            let params = hoist_defs(&t.params, &format!("t{i}"), defs);
            json!({
                "type": "object",
                "properties": {"name": {"const": t.name}, args_key: params},
                "required": ["name", args_key],
                "additionalProperties": false,
            })
        })
        .collect();
    if branches.len() == 1 {
        branches.remove(0)
    } else {
        json!({"anyOf": branches})
    }
}

/// A copy of `params` whose definitions moved into `defs` as `<prefix>_<name>`
/// and whose `$ref`s point there; a reference to the parameters' own root
/// (`#`, `#/properties/…`) points to a copy stored as `<prefix>`.
fn hoist_defs(params: &Value, prefix: &str, defs: &mut Map<String, Value>) -> Value {
    let mut p = params.clone();
    let mut own = Map::new();
    if let Some(obj) = p.as_object_mut() {
        for key in ["$defs", "definitions"] {
            if let Some(Value::Object(d)) = obj.remove(key) {
                own.extend(d);
            }
        }
    }
    let mut needs_root = false;
    rewrite_refs(&mut p, prefix, &mut needs_root);
    for (name, mut def) in own {
        rewrite_refs(&mut def, prefix, &mut needs_root);
        defs.insert(format!("{prefix}_{name}"), def);
    }
    if needs_root {
        defs.insert(prefix.to_owned(), p.clone());
    }
    p
}

fn rewrite_refs(schema: &mut Value, prefix: &str, needs_root: &mut bool) {
    if let Some(Value::String(r)) = schema.get_mut("$ref") {
        let rest = ["#/$defs/", "#/definitions/"]
            .iter()
            .find_map(|p| r.strip_prefix(p));
        if let Some(rest) = rest {
            *r = format!("#/$defs/{prefix}_{rest}");
        } else if let Some(rest) = r.strip_prefix('#') {
            *r = format!("#/$defs/{prefix}{rest}");
            *needs_root = true;
        }
    }
    each_subschema(schema, true, &mut |s| rewrite_refs(s, prefix, needs_root));
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(tools: &[Value]) -> Result<Vec<ToolDef>, tool_runtime::DefinitionsError> {
        Ok(read_tools(&ToolDefinition::list_from_json(tools)?))
    }

    fn tool(name: &str, params: Value) -> Value {
        json!({"type": "function", "function": {"name": name, "parameters": params}})
    }

    #[test]
    fn narrows_arguments() {
        let t = read(&[tool(
            "f",
            json!({"properties": {
                "n": {"type": "integer"},
                "o": {"type": "object", "properties": {"k": {"type": "integer"}}}
            }}),
        )])
        .unwrap();
        let p = &t[0].params;
        assert_eq!(p["type"], "object");
        assert_eq!(p["additionalProperties"], false);
        assert_eq!(p["properties"]["o"]["additionalProperties"], false);
        assert!(p["properties"]["n"]["minimum"].is_i64());
        let t = read(&[tool("g", json!({"type": "object"}))]).unwrap();
        assert_eq!(t[0].params["additionalProperties"], false);
    }

    #[test]
    fn keeps_stated_additional_properties() {
        let t = read(&[tool("f", json!({"additionalProperties": true}))]).unwrap();
        assert_eq!(t[0].params["additionalProperties"], true);
        assert_eq!(t[0].params["type"], "object");
    }

    #[test]
    fn rejects_bad_definitions() {
        let e = read(&[json!({"function": {"name": 3}})]).unwrap_err();
        assert!(e.to_string().contains("#0") && e.to_string().contains("found 3"));
        let e = read(&[tool("f", json!({"type": "string"}))]).unwrap_err();
        assert!(e.to_string().contains("\"object\""), "{e}");
        let e = read(&[tool("f", json!({})), tool("f", json!({}))]).unwrap_err();
        assert!(e.to_string().contains("twice"), "{e}");
    }

    #[test]
    fn hoists_definitions_per_tool() {
        let point = json!({"type": "object", "properties": {"lat": {"type": "number"}}});
        let params = json!({
            "type": "object",
            "properties": {"p": {"$ref": "#/$defs/Point"}, "q": {"$ref": "#/properties/p"}},
            "$defs": {"Point": point}
        });
        let tools = read(&[tool("a", params.clone()), tool("b", params)]).unwrap();
        let mut defs = Map::new();
        let s = call_schema(&tools, "arguments", &mut defs);
        assert!(defs.contains_key("t0_Point") && defs.contains_key("t1_Point"));
        assert!(defs.contains_key("t0") && defs.contains_key("t1"));
        let args = &s["anyOf"][1]["properties"]["arguments"];
        assert_eq!(args["properties"]["p"]["$ref"], "#/$defs/t1_Point");
        assert_eq!(args["properties"]["q"]["$ref"], "#/$defs/t1/properties/p");
        assert_eq!(s["anyOf"][0]["properties"]["name"]["const"], "a");
    }
}
