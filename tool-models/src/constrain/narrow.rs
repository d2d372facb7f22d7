//! Narrowing schemas so that whatever llguidance lets a model write parses
//! and validates. Each pass only removes values a schema admits, never
//! adds any, so a narrowed output is valid against the original schema:
//! - objects that declare `properties` are closed (`additionalProperties:
//!   false`) unless the schema says otherwise: the runtime rejects unknown
//!   top-level arguments, and no model is helped by inventing keys;
//! - integers and numbers without bounds get ±10^18: the runtime reads an
//!   integer only when it fits 64 bits, and an unbounded number may take an
//!   exponent (`1e999`) that no JSON parser reads as a float; llguidance
//!   writes bounded numbers without exponent (and takes bounds as `f64`,
//!   so the exact `i64` limits are out of reach; 10^18 is exact);
//! - schemas that admit any value (`{}`, `true`, an object or array with no
//!   shape) get a recursive "any JSON value" with the same limits;
//! - with a textual end marker (hermes `</tool_call>`), strings may not
//!   contain it, since the parser ends the call at its first occurrence.

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

/// Keywords under which narrowing would widen what the whole admits.
const NOT_NARROWED: &[&str] = &["not", "if"];
/// Keywords that do not constrain a value.
const ANNOTATIONS: &[&str] = &[
    "description",
    "title",
    "default",
    "examples",
    "$comment",
    "deprecated",
    "readOnly",
    "writeOnly",
];
/// Name of the "any JSON value" definition.
pub(crate) const ANY_VALUE: &str = "any_json_value";

/// Closes objects that declare properties and say nothing of others.
pub(crate) fn close_objects(schema: &mut Value) {
    each_subschema(schema, false, &mut close_objects);
    if let Some(obj) = schema.as_object_mut() {
        if obj.contains_key("properties")
            && !obj.contains_key("additionalProperties")
            && !obj.contains_key("patternProperties")
            && !obj.contains_key("unevaluatedProperties")
        {
            obj.insert("additionalProperties".into(), false.into());
        }
    }
}

/// The bound given to integers and numbers that have none.
const INT_LIMIT: i64 = 1_000_000_000_000_000_000;

/// Gives integers and numbers without bounds the range ±[`INT_LIMIT`].
pub(crate) fn bound_numbers(schema: &mut Value) {
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
    each_subschema(schema, false, &mut bound_numbers);
}

/// Whether `schema` admits any value (`true`, or annotations only).
pub(crate) fn admits_any(schema: &Value) -> bool {
    match schema {
        Value::Bool(b) => *b,
        Value::Object(o) => o.keys().all(|k| ANNOTATIONS.contains(&k.as_str())),
        _ => false,
    }
}

/// Points every schema that admits any value at `#/$defs/`[`ANY_VALUE`];
/// true if one did (the caller then adds [`any_value`] to the root's `$defs`).
pub(crate) fn bound_any(schema: &mut Value) -> bool {
    let mut used = false;
    bound_any_in(schema, &mut used);
    used
}

fn bound_any_in(schema: &mut Value, used: &mut bool) {
    let reference = || json!({"$ref": format!("#/$defs/{ANY_VALUE}")});
    if admits_any(schema) {
        *schema = reference();
        *used = true;
        return;
    }
    each_subschema(schema, false, &mut |s| bound_any_in(s, used));
    let Some(obj) = schema.as_object_mut() else {
        return;
    };
    let ty = |t: &str| match obj.get("type") {
        Some(Value::String(s)) => s == t,
        Some(Value::Array(ts)) => ts.iter().any(|s| s == t),
        _ => false,
    };
    let open_object = ty("object")
        && ![
            "properties",
            "additionalProperties",
            "patternProperties",
            "unevaluatedProperties",
        ]
        .iter()
        .any(|k| obj.contains_key(*k));
    let open_array = ty("array")
        && ![
            "items",
            "prefixItems",
            "additionalItems",
            "unevaluatedItems",
        ]
        .iter()
        .any(|k| obj.contains_key(*k));
    if open_object {
        obj.insert("additionalProperties".into(), reference());
        *used = true;
    }
    if open_array {
        obj.insert("items".into(), reference());
        *used = true;
    }
}

/// The definition of any JSON value, numbers bounded as [`bound_numbers`]
/// does, strings without `marker` when there is one.
pub(crate) fn any_value(marker: Option<&str>) -> Value {
    let reference = json!({"$ref": format!("#/$defs/{ANY_VALUE}")});
    let mut string = json!({"type": "string"});
    if let Some(m) = marker {
        forbid_in_strings(&mut string, m);
    }
    json!({"anyOf": [
        {"type": "null"},
        {"type": "boolean"},
        {"type": "number", "minimum": -INT_LIMIT, "maximum": INT_LIMIT},
        string,
        {"type": "array", "items": reference},
        {"type": "object", "additionalProperties": reference}
    ]})
}

/// Adds [`any_value`] to the `$defs` of `root` when [`bound_any`] used it.
pub(crate) fn bound_any_at_root(root: &mut Value, marker: Option<&str>) {
    if !bound_any(root) {
        return;
    }
    if let Some(obj) = root.as_object_mut() {
        let defs = obj
            .entry("$defs")
            .or_insert_with(|| Value::Object(Map::new()));
        if let Some(d) = defs.as_object_mut() {
            d.insert(ANY_VALUE.into(), any_value(marker));
        }
    }
}

/// Forbids `marker` inside every string-typed schema (enums and consts
/// aside), by a pattern for "anything without `marker`"; a schema that has
/// a pattern already gets the new one through `allOf`. Does nothing when
/// the marker's first char recurs in it (no such marker is in use).
pub(crate) fn forbid_in_strings(schema: &mut Value, marker: &str) {
    let Some(pattern) = without(marker) else {
        return;
    };
    forbid(schema, &pattern, marker.chars().count());
}

fn forbid(schema: &mut Value, pattern: &str, marker_len: usize) {
    each_subschema(schema, false, &mut |s| forbid(s, pattern, marker_len));
    let Some(obj) = schema.as_object_mut() else {
        return;
    };
    let stringy = match obj.get("type") {
        Some(Value::String(t)) => t == "string",
        Some(Value::Array(ts)) => ts.iter().any(|t| t == "string"),
        _ => false,
    };
    // A string too short to hold the marker needs no pattern (and a length
    // bound with a pattern makes masks much slower to compute).
    let short = obj
        .get("maxLength")
        .and_then(Value::as_u64)
        .is_some_and(|max| max < marker_len as u64);
    if !stringy || short || obj.contains_key("enum") || obj.contains_key("const") {
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

/// Calls `f` on each schema directly inside `schema`; unless `all`, not on
/// those where a narrower schema would admit more (`not`, `if`).
pub(crate) fn each_subschema(schema: &mut Value, all: bool, f: &mut dyn FnMut(&mut Value)) {
    let Some(obj) = schema.as_object_mut() else {
        return;
    };
    for (key, value) in obj.iter_mut() {
        let key = key.as_str();
        if !all && NOT_NARROWED.contains(&key) {
            continue;
        }
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

    #[test]
    fn closes_declared_objects_only() {
        let mut s = json!({"type": "object", "properties": {
            "o": {"type": "object", "properties": {"k": {"type": "string"}}},
            "m": {"type": "object", "additionalProperties": {"type": "string"}},
            "n": {"not": {"type": "object", "properties": {}}}
        }});
        close_objects(&mut s);
        assert_eq!(s["additionalProperties"], false);
        assert_eq!(s["properties"]["o"]["additionalProperties"], false);
        assert_eq!(
            s["properties"]["m"]["additionalProperties"]["type"],
            "string"
        );
        assert!(s["properties"]["n"]["not"]
            .get("additionalProperties")
            .is_none());
    }

    #[test]
    fn bounds_numbers() {
        let mut p = json!({"type": "object", "properties": {
            "n": {"type": "integer"},
            "m": {"type": ["integer", "null"], "minimum": 0},
            "x": {"type": "number", "exclusiveMaximum": 1.5},
            "s": {"type": "string"},
            "big": {"type": "integer", "minimum": 2e18}
        }});
        bound_numbers(&mut p);
        let p = &p["properties"];
        assert_eq!(p["n"]["minimum"], -INT_LIMIT);
        assert_eq!(p["n"]["maximum"], INT_LIMIT);
        assert_eq!(p["m"]["minimum"], 0);
        assert_eq!(p["m"]["maximum"], INT_LIMIT);
        assert_eq!(p["x"]["minimum"], -INT_LIMIT);
        assert!(p["x"].get("maximum").is_none());
        assert!(p["s"].get("minimum").is_none());
        assert!(p["big"].get("maximum").is_none());
    }

    #[test]
    fn bounds_any_values() {
        let mut s = json!({"type": "object", "properties": {
            "a": {},
            "b": {"description": "anything"},
            "c": {"type": "object"},
            "d": {"type": "array"},
            "e": {"type": "string"},
            "f": {"not": {}}
        }});
        bound_any_at_root(&mut s, Some("</x>"));
        let r = json!({"$ref": "#/$defs/any_json_value"});
        let p = &s["properties"];
        assert_eq!(p["a"], r);
        assert_eq!(p["b"], r);
        assert_eq!(p["c"]["additionalProperties"], r);
        assert_eq!(p["d"]["items"], r);
        assert_eq!(p["e"], json!({"type": "string"}));
        assert_eq!(p["f"], json!({"not": {}}));
        let any = &s["$defs"]["any_json_value"]["anyOf"];
        assert!(any[3]["pattern"].is_string());
        let mut t = json!({"type": "string"});
        bound_any_at_root(&mut t, None);
        assert!(t.get("$defs").is_none());
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
            "d": {"type": "array", "items": {"type": "string"}},
            "e": {"type": "string", "maxLength": 11},
            "f": {"type": "string", "maxLength": 12}
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
        assert!(
            p["e"].get("pattern").is_none(),
            "too short to hold the marker"
        );
        assert!(p["f"]["pattern"].is_string());
    }
}
