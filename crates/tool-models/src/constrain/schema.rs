//! JSON schemas for tool calls, built from transformers-style definitions.
//!
//! Each call is an object `{"name": <const>, "<args key>": <parameters>}`;
//! several tools make an `anyOf`. Parameters are adjusted to what the
//! runtime accepts (`tool_runtime::validate`):
//! - the arguments object is closed (`additionalProperties: false`) unless
//!   the schema says otherwise, since the runtime rejects unknown
//!   arguments by default and no model is helped by inventing them;
//! - integers and numbers without bounds get ±10^18: the runtime reads an
//!   integer only when it fits 64 bits, and an unbounded number may take an
//!   exponent (`1e999`) that no JSON parser reads as a float; llguidance
//!   writes bounded numbers without exponent (and takes bounds as `f64`,
//!   so the exact `i64` limits are out of reach; 10^18 is exact);
//! - with a textual end marker (hermes `</tool_call>`), strings may not
//!   contain it, since the parser ends the call at its first occurrence;
//! - `$defs`/`definitions` move to the root of the call schema, renamed per
//!   tool, and every `$ref` follows them.

use super::ConstrainError;
use serde_json::{json, Map, Value};

/// Keywords whose value is one schema.
const ONE: &[&str] = &[
    "additionalProperties",
    "items",
    "not",
    "contains",
    "if",
    "then",
    "else",
    "propertyNames",
    "additionalItems",
    "unevaluatedItems",
    "unevaluatedProperties",
];
/// Keywords whose value is a list of schemas.
const LIST: &[&str] = &["anyOf", "oneOf", "allOf", "prefixItems", "items"];
/// Keywords whose value maps names to schemas.
const MAP: &[&str] = &[
    "properties",
    "patternProperties",
    "$defs",
    "definitions",
    "dependentSchemas",
];

/// One offered tool.
#[derive(Debug, Clone)]
pub(crate) struct ToolDef {
    pub(crate) name: String,
    /// The parameters schema, adjusted (see the module docs).
    pub(crate) params: Value,
}

/// Reads `{"type": "function", "function": {"name", "parameters"}}` (or the
/// bare inner object) definitions.
pub(crate) fn read_tools(tools: &[Value]) -> Result<Vec<ToolDef>, ConstrainError> {
    let mut out: Vec<ToolDef> = Vec::with_capacity(tools.len());
    for (index, def) in tools.iter().enumerate() {
        let bad = |reason: String| ConstrainError::BadTool { index, reason };
        let f = def.get("function").unwrap_or(def);
        let name = match f.get("name") {
            Some(Value::String(s)) if !s.is_empty() => s.clone(),
            Some(other) => {
                return Err(bad(format!(
                    "expected `function.name` to be a non-empty string, found {other}"
                )))
            }
            None => return Err(bad("expected `function.name`, found no name".into())),
        };
        if out.iter().any(|t| t.name == name) {
            return Err(bad(format!("tool `{name}` is defined twice")));
        }
        let mut params = match f.get("parameters") {
            None | Some(Value::Null) => json!({"type": "object", "properties": {}}),
            Some(Value::Object(o)) => Value::Object(o.clone()),
            Some(other) => {
                return Err(bad(format!(
                    "expected `{name}`'s parameters to be a JSON schema object, found {other}"
                )))
            }
        };
        let obj = params
            .as_object_mut()
            .ok_or_else(|| bad("unreachable".into()))?;
        match obj.get("type") {
            None => {
                obj.insert("type".into(), "object".into());
            }
            Some(Value::String(t)) if t == "object" => {}
            Some(other) => {
                return Err(bad(format!(
                    "expected `{name}`'s parameters to be of type \"object\", found {other}"
                )))
            }
        }
        if !obj.contains_key("additionalProperties") && !obj.contains_key("patternProperties") {
            obj.insert("additionalProperties".into(), false.into());
        }
        bound_numbers(&mut params);
        out.push(ToolDef { name, params });
    }
    Ok(out)
}

/// Options for llguidance's JSON compiler: the separators chat templates
/// print (`json.dumps` style) and no other whitespace, so a weak model
/// cannot wander off into endless blank space inside a call.
pub(crate) fn layout() -> Value {
    json!({"whitespace_flexible": false, "item_separator": ", ", "key_separator": ": "})
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
    for_each_subschema(schema, &mut |s| rewrite_refs(s, prefix, needs_root));
}

/// The bound given to integers and numbers that have none.
const INT_LIMIT: i64 = 1_000_000_000_000_000_000;

/// Gives integers and numbers without bounds the range ±[`INT_LIMIT`].
fn bound_numbers(schema: &mut Value) {
    if let Some(obj) = schema.as_object_mut() {
        let numeric = |t: &Value| t == "integer" || t == "number";
        let integer = match obj.get("type") {
            Some(t @ Value::String(_)) => numeric(t),
            Some(Value::Array(ts)) => ts.iter().any(numeric),
            _ => false,
        };
        let bound = |key: &str| obj.get(key).and_then(Value::as_f64);
        let low = bound("minimum").or(bound("exclusiveMinimum"));
        let high = bound("maximum").or(bound("exclusiveMaximum"));
        let limit = INT_LIMIT as f64;
        if integer {
            // A bound beyond the limit on the other side would leave no value.
            if low.is_none() && high.is_none_or(|h| h >= -limit) {
                obj.insert("minimum".into(), (-INT_LIMIT).into());
            }
            if high.is_none() && low.is_none_or(|l| l <= limit) {
                obj.insert("maximum".into(), INT_LIMIT.into());
            }
        }
    }
    for_each_subschema(schema, &mut bound_numbers);
}

/// Forbids `marker` inside every string-typed schema (enums and consts
/// aside), by a pattern for "anything without `marker`"; a schema that has
/// a pattern already gets the new one through `allOf`. Does nothing when
/// the marker's first char recurs in it (no such marker is in use).
pub(crate) fn forbid_in_strings(schema: &mut Value, marker: &str) {
    let Some(pattern) = without(marker) else {
        return;
    };
    forbid(schema, &pattern);
}

fn forbid(schema: &mut Value, pattern: &str) {
    for_each_subschema(schema, &mut |s| forbid(s, pattern));
    let Some(obj) = schema.as_object_mut() else {
        return;
    };
    let stringy = match obj.get("type") {
        Some(Value::String(t)) => t == "string",
        Some(Value::Array(ts)) => ts.iter().any(|t| t == "string"),
        _ => false,
    };
    if !stringy || obj.contains_key("enum") || obj.contains_key("const") {
        return;
    }
    if !obj.contains_key("pattern") {
        obj.insert("pattern".into(), pattern.into());
        return;
    }
    let ty = obj.get("type").cloned().unwrap_or(Value::Null);
    let original = std::mem::take(schema);
    *schema = json!({"allOf": [original, {"type": ty, "pattern": pattern}]});
}

/// An anchored regex for the strings that do not contain `word`, when its
/// first char does not recur in it.
///
/// Reading such a word, a mismatch sends the matcher back to the start,
/// or to one char matched when the char is the first one; so the strings
/// are: (a char that is not the first | the first char, detours that come
/// back to "one char matched", then a mismatch)*, then optionally the
/// first char, detours, and a proper prefix of the rest.
fn without(word: &str) -> Option<String> {
    let chars: Vec<char> = word.chars().collect();
    let (&first, rest) = chars.split_first()?;
    if rest.is_empty() || rest.contains(&first) {
        return None;
    }
    let lit = |cs: &[char]| cs.iter().map(|&c| escape(c)).collect::<String>();
    let f = escape(first);
    // After the first char and `rest[..j]`, the next one must be `rest[j]`.
    let detour: Vec<String> = (0..rest.len())
        .map(|j| format!("{}{f}", lit(&rest[..j])))
        .collect();
    let back: Vec<String> = (0..rest.len())
        .map(|j| format!("{}[^{}{}]", lit(&rest[..j]), class(rest[j]), class(first)))
        .collect();
    let tail: Vec<String> = (0..rest.len()).map(|j| lit(&rest[..j])).collect();
    let (detour, back, tail) = (detour.join("|"), back.join("|"), tail.join("|"));
    Some(format!(
        "^(?:[^{cf}]|{f}(?:{detour})*(?:{back}))*(?:{f}(?:{detour})*(?:{tail}))?$",
        cf = class(first)
    ))
}

/// `c` as a regex literal.
fn escape(c: char) -> String {
    // The `regex` crate's meta characters; escaping others (`\<`) may mean
    // something else.
    if "\\.+*?()|[]{}^$#&-~".contains(c) {
        format!("\\{c}")
    } else {
        c.to_string()
    }
}

/// `c` inside a bracketed class.
fn class(c: char) -> String {
    if "\\[]^-&~".contains(c) {
        format!("\\{c}")
    } else {
        c.to_string()
    }
}

/// Calls `f` on each schema directly inside `schema`.
fn for_each_subschema(schema: &mut Value, f: &mut dyn FnMut(&mut Value)) {
    let Some(obj) = schema.as_object_mut() else {
        return;
    };
    for (key, value) in obj.iter_mut() {
        let key = key.as_str();
        if MAP.contains(&key) {
            if let Value::Object(m) = value {
                m.values_mut().for_each(&mut *f);
            }
        } else if LIST.contains(&key) && value.is_array() {
            if let Value::Array(a) = value {
                a.iter_mut().for_each(&mut *f);
            }
        } else if ONE.contains(&key) && value.is_object() {
            f(value);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tool(name: &str, params: Value) -> Value {
        json!({"type": "function", "function": {"name": name, "parameters": params}})
    }

    #[test]
    fn closes_arguments_and_bounds_numbers() {
        let t = read_tools(&[tool(
            "f",
            json!({"type": "object", "properties": {
                "n": {"type": "integer"},
                "m": {"type": ["integer", "null"], "minimum": 0},
                "o": {"type": "object", "properties": {"k": {"type": "integer"}}},
                "x": {"type": "number", "exclusiveMaximum": 1.5},
                "s": {"type": "string"}
            }}),
        )])
        .unwrap();
        let p = &t[0].params;
        assert_eq!(p["additionalProperties"], false);
        assert_eq!(p["properties"]["n"]["minimum"], -INT_LIMIT);
        assert_eq!(p["properties"]["m"]["minimum"], 0);
        assert_eq!(p["properties"]["m"]["maximum"], INT_LIMIT);
        assert_eq!(
            p["properties"]["o"]["properties"]["k"]["maximum"],
            INT_LIMIT
        );
        assert!(p["properties"]["o"].get("additionalProperties").is_none());
        assert_eq!(p["properties"]["x"]["minimum"], -INT_LIMIT);
        assert!(p["properties"]["x"].get("maximum").is_none());
        assert!(p["properties"]["s"].get("minimum").is_none());
    }

    #[test]
    fn keeps_stated_additional_properties() {
        let t = read_tools(&[tool("f", json!({"additionalProperties": true}))]).unwrap();
        assert_eq!(t[0].params["additionalProperties"], true);
        assert_eq!(t[0].params["type"], "object");
    }

    #[test]
    fn rejects_bad_definitions() {
        let e = read_tools(&[json!({"function": {"name": 3}})]).unwrap_err();
        assert!(e.to_string().contains("#0") && e.to_string().contains("found 3"));
        let e = read_tools(&[tool("f", json!({"type": "string"}))]).unwrap_err();
        assert!(e.to_string().contains("\"object\""), "{e}");
        let e = read_tools(&[tool("f", json!({})), tool("f", json!({}))]).unwrap_err();
        assert!(e.to_string().contains("twice"), "{e}");
    }

    #[test]
    fn forbids_the_marker_in_strings() {
        assert_eq!(
            without("<ab>").unwrap(),
            "^(?:[^<]|<(?:<|a<|ab<)*(?:[^a<]|a[^b<]|ab[^><]))*(?:<(?:<|a<|ab<)*(?:|a|ab))?$"
        );
        assert_eq!(without("abca"), None);
        let mut s = json!({"type": "object", "properties": {
            "a": {"type": "string"},
            "b": {"type": ["string", "null"], "pattern": "^x"},
            "c": {"type": "string", "enum": ["x"]},
            "d": {"type": "array", "items": {"type": "string"}}
        }});
        forbid_in_strings(&mut s, "</tool_call>");
        let p = &s["properties"];
        assert!(p["a"]["pattern"]
            .as_str()
            .unwrap()
            .starts_with("^(?:[^<]|<"));
        assert_eq!(p["b"]["allOf"][0]["pattern"], "^x");
        assert_eq!(p["b"]["allOf"][1]["type"], json!(["string", "null"]));
        assert!(p["c"].get("pattern").is_none());
        assert!(p["d"]["items"]["pattern"].is_string());
    }

    #[test]
    fn hoists_definitions_per_tool() {
        let point = json!({"type": "object", "properties": {"lat": {"type": "number"}}});
        let params = json!({
            "type": "object",
            "properties": {"p": {"$ref": "#/$defs/Point"}, "q": {"$ref": "#/properties/p"}},
            "$defs": {"Point": point}
        });
        let tools = read_tools(&[tool("a", params.clone()), tool("b", params)]).unwrap();
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
