//! Checks a call's arguments against the tool's JSON schema before any Rust
//! code sees them, so the model hears what is wrong in schema terms (which
//! argument, what was expected, what came) rather than serde's.
//!
//! Covers the schema vocabulary `#[tool]` and schemars produce. In lenient
//! mode it first repairs what models commonly get wrong: `"3"` for an
//! integer, `"true"` for a boolean, `2.0` for an integer, a nested object or
//! array sent as JSON text, and `null` for an optional argument.

use crate::error::ArgIssue;
use crate::json_kind;
use serde_json::{Map, Value};

/// How strict to be.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Policy {
    /// Repair common mistakes instead of rejecting them.
    pub lenient: bool,
    /// Accept (and drop) arguments the tool does not take.
    pub allow_extra: bool,
}

impl Default for Policy {
    fn default() -> Self {
        Policy {
            lenient: true,
            allow_extra: false,
        }
    }
}

/// `$ref` chains longer than this are treated as cycles.
const MAX_REF_DEPTH: usize = 32;

/// Validates (and in lenient mode repairs) `args` against a `parameters`
/// object schema; fills in declared defaults of absent arguments.
pub fn validate_arguments(
    params: &Value,
    args: &mut Map<String, Value>,
    policy: Policy,
) -> Result<(), Vec<ArgIssue>> {
    let mut v = Validator {
        root: params,
        policy,
        issues: Vec::new(),
    };
    let empty = Map::new();
    let properties = params
        .get("properties")
        .and_then(Value::as_object)
        .unwrap_or(&empty);
    let required: Vec<&str> = params
        .get("required")
        .and_then(Value::as_array)
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();

    let extra: Vec<String> = args
        .keys()
        .filter(|k| !properties.contains_key(*k))
        .cloned()
        .collect();
    for name in extra {
        if policy.allow_extra {
            args.remove(&name);
        } else {
            v.issues.push(ArgIssue::Unexpected {
                path: name,
                expected: properties.keys().cloned().collect(),
            });
        }
    }

    for (name, schema) in properties {
        let is_required = required.contains(&name.as_str());
        if policy.lenient
            && !is_required
            && args.get(name) == Some(&Value::Null)
            && !v.admits_null(schema, 0)
        {
            args.remove(name);
        }
        match args.get_mut(name) {
            Some(value) => v.check(value, schema, name, 0),
            None if is_required => v.issues.push(ArgIssue::Missing { path: name.clone() }),
            None => {
                if let Some(default) = schema.get("default") {
                    args.insert(name.clone(), default.clone());
                }
            }
        }
    }
    if v.issues.is_empty() {
        Ok(())
    } else {
        Err(v.issues)
    }
}

struct Validator<'a> {
    root: &'a Value,
    policy: Policy,
    issues: Vec<ArgIssue>,
}

fn types_of(schema: &Value) -> Vec<&str> {
    match schema.get("type") {
        Some(Value::String(t)) => vec![t.as_str()],
        Some(Value::Array(ts)) => ts.iter().filter_map(Value::as_str).collect(),
        _ => Vec::new(),
    }
}

fn has_type(value: &Value, ty: &str) -> bool {
    match (ty, value) {
        ("null", Value::Null)
        | ("boolean", Value::Bool(_))
        | ("string", Value::String(_))
        | ("array", Value::Array(_))
        | ("object", Value::Object(_))
        | ("number", Value::Number(_)) => true,
        ("integer", Value::Number(n)) => n.is_i64() || n.is_u64(),
        _ => false,
    }
}

fn article(ty: &str) -> &'static str {
    match ty {
        "integer" => "an integer",
        "number" => "a number",
        "boolean" => "a boolean",
        "array" => "an array",
        "object" => "an object",
        "null" => "null",
        _ => "a string",
    }
}

/// Lenient repairs of a value whose JSON type is wrong.
fn repair(value: &Value, ty: &str) -> Option<Value> {
    match (ty, value) {
        ("integer", Value::String(s)) => {
            let s = s.trim();
            s.parse::<i64>()
                .map(Value::from)
                .or_else(|_| s.parse::<u64>().map(Value::from))
                .ok()
        }
        ("integer", Value::Number(n)) => n
            .as_f64()
            .filter(|f| f.fract() == 0.0 && f.abs() < 9.007_199_254_740_992e15)
            .map(|f| Value::from(f as i64)),
        ("number", Value::String(s)) => s
            .trim()
            .parse::<f64>()
            .ok()
            .filter(|f| f.is_finite())
            .and_then(|f| serde_json::Number::from_f64(f).map(Value::Number)),
        ("boolean", Value::String(s)) => match s.trim().to_ascii_lowercase().as_str() {
            "true" => Some(Value::Bool(true)),
            "false" => Some(Value::Bool(false)),
            _ => None,
        },
        ("array" | "object", Value::String(s)) => serde_json::from_str::<Value>(s)
            .ok()
            .filter(|v| has_type(v, ty)),
        _ => None,
    }
}

impl Validator<'_> {
    /// The schema a `$ref` points to, within the root's `$defs`.
    fn deref(&self, reference: &str) -> Option<&Value> {
        let name = reference
            .strip_prefix("#/$defs/")
            .or_else(|| reference.strip_prefix("#/definitions/"))?;
        self.root
            .get("$defs")
            .or_else(|| self.root.get("definitions"))?
            .get(name)
    }

    fn admits_null(&self, schema: &Value, depth: usize) -> bool {
        if depth > MAX_REF_DEPTH {
            return false;
        }
        if let Some(target) = schema
            .get("$ref")
            .and_then(Value::as_str)
            .and_then(|r| self.deref(r))
        {
            return self.admits_null(target, depth + 1);
        }
        schema.get("nullable") == Some(&Value::Bool(true))
            || types_of(schema).contains(&"null")
            || ["anyOf", "oneOf"].iter().any(|k| {
                schema
                    .get(*k)
                    .and_then(Value::as_array)
                    .is_some_and(|bs| bs.iter().any(|b| self.admits_null(b, depth + 1)))
            })
            || schema.as_object().is_some_and(|o| o.is_empty())
            || schema == &Value::Bool(true)
    }

    /// Checks `value` (repairing it in lenient mode), recording issues at `path`.
    fn check(&mut self, value: &mut Value, schema: &Value, path: &str, depth: usize) {
        if depth > MAX_REF_DEPTH {
            return;
        }
        let obj = match schema {
            Value::Bool(true) => return,
            Value::Bool(false) => {
                self.issues.push(ArgIssue::Invalid {
                    path: path.into(),
                    message: "no value is allowed here".into(),
                });
                return;
            }
            Value::Object(o) => o,
            _ => return,
        };
        if let Some(target) = obj
            .get("$ref")
            .and_then(Value::as_str)
            .and_then(|r| self.deref(r))
        {
            let target = target.clone();
            self.check(value, &target, path, depth + 1);
        }
        if value.is_null() && self.admits_null(schema, depth) {
            return;
        }

        let types = types_of(schema);
        if !types.is_empty() && !types.iter().any(|t| has_type(value, t)) {
            let repaired = self
                .policy
                .lenient
                .then(|| types.iter().find_map(|t| repair(value, t)))
                .flatten();
            match repaired {
                Some(r) => *value = r,
                None => {
                    let mut expected: Vec<&str> = types.iter().map(|t| article(t)).collect();
                    if obj.get("nullable") == Some(&Value::Bool(true)) {
                        expected.push("null");
                    }
                    self.issues.push(ArgIssue::WrongType {
                        path: path.into(),
                        expected: expected.join(" or "),
                        found: value.clone(),
                    });
                    return;
                }
            }
        }

        if let Some(allowed) = obj.get("enum").and_then(Value::as_array) {
            if !allowed.iter().any(|a| json_eq(a, value)) {
                self.issues.push(ArgIssue::NotAllowed {
                    path: path.into(),
                    allowed: allowed.clone(),
                    found: value.clone(),
                });
                return;
            }
        }
        if let Some(c) = obj.get("const") {
            if !json_eq(c, value) {
                self.issues.push(ArgIssue::NotAllowed {
                    path: path.into(),
                    allowed: vec![c.clone()],
                    found: value.clone(),
                });
                return;
            }
        }

        for (key, combine_all) in [("allOf", true), ("anyOf", false), ("oneOf", false)] {
            let Some(branches) = obj.get(key).and_then(Value::as_array) else {
                continue;
            };
            if combine_all {
                for b in branches {
                    self.check(value, b, path, depth + 1);
                }
            } else if !self.any_branch(value, branches, path, depth) {
                return;
            }
        }

        match value {
            Value::Number(n) => self.check_number(&n.clone(), obj, value.clone(), path),
            Value::String(s) => {
                let len = s.chars().count() as u64;
                self.check_count(
                    len,
                    obj,
                    "minLength",
                    "maxLength",
                    "character",
                    value.clone(),
                    path,
                );
            }
            Value::Array(items) => {
                let len = items.len() as u64;
                let found = Value::String(format!("{len} items"));
                if !self.check_count(len, obj, "minItems", "maxItems", "item", found, path) {
                    return;
                }
                self.check_items(items, obj, path, depth);
            }
            Value::Object(map) => self.check_object(map, obj, path, depth),
            _ => {}
        }
    }

    /// True when `value` fits one branch (taking that branch's repairs).
    fn any_branch(
        &mut self,
        value: &mut Value,
        branches: &[Value],
        path: &str,
        depth: usize,
    ) -> bool {
        for b in branches {
            let mut trial = Validator {
                root: self.root,
                policy: self.policy,
                issues: Vec::new(),
            };
            let mut candidate = value.clone();
            trial.check(&mut candidate, b, path, depth + 1);
            if trial.issues.is_empty() {
                *value = candidate;
                return true;
            }
        }
        self.issues.push(ArgIssue::Invalid {
            path: path.into(),
            message: format!(
                "{} does not match any of the allowed shapes",
                json_kind(value)
            ),
        });
        false
    }

    fn check_number(
        &mut self,
        n: &serde_json::Number,
        obj: &Map<String, Value>,
        found: Value,
        path: &str,
    ) {
        use std::cmp::Ordering;
        let fail = |key: &str, bad: &[Ordering]| {
            obj.get(key)
                .and_then(Value::as_number)
                .and_then(|bound| compare(n, bound))
                .is_some_and(|o| bad.contains(&o))
        };
        let fail = match () {
            _ if fail("minimum", &[Ordering::Less]) => Some(format!("at least {}", obj["minimum"])),
            _ if fail("maximum", &[Ordering::Greater]) => {
                Some(format!("at most {}", obj["maximum"]))
            }
            _ if fail("exclusiveMinimum", &[Ordering::Less, Ordering::Equal]) => {
                Some(format!("greater than {}", obj["exclusiveMinimum"]))
            }
            _ if fail("exclusiveMaximum", &[Ordering::Greater, Ordering::Equal]) => {
                Some(format!("less than {}", obj["exclusiveMaximum"]))
            }
            _ => None,
        };
        if let Some(bound) = fail {
            self.issues.push(ArgIssue::OutOfRange {
                path: path.into(),
                bound,
                found,
            });
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn check_count(
        &mut self,
        len: u64,
        obj: &Map<String, Value>,
        min_key: &str,
        max_key: &str,
        unit: &str,
        found: Value,
        path: &str,
    ) -> bool {
        let plural = |n: u64| {
            if n == 1 {
                unit.to_string()
            } else {
                format!("{unit}s")
            }
        };
        let min = obj.get(min_key).and_then(Value::as_u64);
        let max = obj.get(max_key).and_then(Value::as_u64);
        let bound = match (min, max) {
            (Some(a), Some(b)) if a == b && len != a => Some(format!("exactly {a} {}", plural(a))),
            (Some(a), _) if len < a => Some(format!("at least {a} {}", plural(a))),
            (_, Some(b)) if len > b => Some(format!("at most {b} {}", plural(b))),
            _ => None,
        };
        match bound {
            Some(bound) => {
                self.issues.push(ArgIssue::OutOfRange {
                    path: path.into(),
                    bound,
                    found,
                });
                false
            }
            None => true,
        }
    }

    fn check_items(
        &mut self,
        items: &mut [Value],
        obj: &Map<String, Value>,
        path: &str,
        depth: usize,
    ) {
        let prefix = obj.get("prefixItems").and_then(Value::as_array);
        let rest = obj.get("items");
        if let Some(prefix) = prefix {
            // A tuple: without `items`, exactly as long as its prefix (as serde reads tuples).
            if rest.is_none() && items.len() != prefix.len() {
                self.issues.push(ArgIssue::OutOfRange {
                    path: path.into(),
                    bound: format!("exactly {} items", prefix.len()),
                    found: Value::String(format!("{} items", items.len())),
                });
                return;
            }
        }
        for (i, item) in items.iter_mut().enumerate() {
            let item_path = format!("{path}[{i}]");
            if let Some(s) = prefix.and_then(|p| p.get(i)).or(rest) {
                self.check(item, s, &item_path, depth + 1);
            }
        }
    }

    fn check_object(
        &mut self,
        map: &mut Map<String, Value>,
        obj: &Map<String, Value>,
        path: &str,
        depth: usize,
    ) {
        let properties = obj.get("properties").and_then(Value::as_object);
        if let Some(required) = obj.get("required").and_then(Value::as_array) {
            for r in required.iter().filter_map(Value::as_str) {
                if !map.contains_key(r) {
                    self.issues.push(ArgIssue::Missing {
                        path: format!("{path}.{r}"),
                    });
                }
            }
        }
        for (key, value) in map.iter_mut() {
            let key_path = format!("{path}.{key}");
            match (
                properties.and_then(|p| p.get(key)),
                obj.get("additionalProperties"),
            ) {
                (Some(s), _) => self.check(value, s, &key_path, depth + 1),
                (None, Some(Value::Bool(false))) => self.issues.push(ArgIssue::Unexpected {
                    path: key_path,
                    expected: properties
                        .map(|p| p.keys().cloned().collect())
                        .unwrap_or_default(),
                }),
                (None, Some(s)) => self.check(value, s, &key_path, depth + 1),
                (None, None) => {}
            }
        }
    }
}

/// Orders two JSON numbers exactly when both are integers (bounds such as
/// `u64::MAX` are beyond `f64` precision), else as floats.
fn compare(a: &serde_json::Number, b: &serde_json::Number) -> Option<std::cmp::Ordering> {
    let int = |n: &serde_json::Number| {
        n.as_i64()
            .map(i128::from)
            .or_else(|| n.as_u64().map(i128::from))
    };
    match (int(a), int(b)) {
        (Some(x), Some(y)) => Some(x.cmp(&y)),
        _ => a.as_f64()?.partial_cmp(&b.as_f64()?),
    }
}

/// JSON equality where `1` equals `1.0`, as JSON Schema compares (and as
/// a call read back compares with the call written).
pub fn json_eq(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => x.as_f64() == y.as_f64(),
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(a, b)| json_eq(a, b))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len()
                && x.iter()
                    .all(|(k, v)| y.get(k).is_some_and(|w| json_eq(v, w)))
        }
        _ => a == b,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn params() -> Value {
        json!({"type": "object", "properties": {
            "location": {"type": "string", "description": "where"},
            "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]},
            "days": {"type": "integer", "minimum": 0, "maximum": 14},
            "hourly": {"type": "boolean", "nullable": true},
            "limit": {"type": "integer", "minimum": 0, "default": 10},
            "rgb": {"type": "array", "items": {"type": "integer", "minimum": 0, "maximum": 255}, "minItems": 3, "maxItems": 3},
            "pair": {"type": "array", "prefixItems": [{"type": "integer"}, {"type": "string"}]}
        }, "required": ["location", "unit"]})
    }

    fn run(args: Value, policy: Policy) -> Result<Value, Vec<String>> {
        let mut map = args.as_object().unwrap().clone();
        validate_arguments(&params(), &mut map, policy)
            .map(|()| Value::Object(map))
            .map_err(|issues| issues.iter().map(ToString::to_string).collect())
    }

    const STRICT: Policy = Policy {
        lenient: false,
        allow_extra: false,
    };

    #[test]
    fn accepts_and_fills_defaults() {
        let out = run(json!({"location": "Paris", "unit": "celsius"}), STRICT).unwrap();
        assert_eq!(
            out,
            json!({"location": "Paris", "unit": "celsius", "limit": 10})
        );
    }

    #[test]
    fn each_rule_has_its_message() {
        let cases = [
            (json!({"unit": "celsius"}), "missing required argument `location`"),
            (
                json!({"location": "P", "unit": "celsius", "colour": 1}),
                "unexpected argument `colour` (the tool takes: location, unit, days, hourly, limit, rgb, pair)",
            ),
            (json!({"location": 3, "unit": "celsius"}), "`location` must be a string, got 3"),
            (
                json!({"location": "P", "unit": "kelvin"}),
                "`unit` must be one of \"celsius\", \"fahrenheit\", got \"kelvin\"",
            ),
            (json!({"location": "P", "unit": "celsius", "days": 15}), "`days` must be at most 14, got 15"),
            (json!({"location": "P", "unit": "celsius", "days": -1}), "`days` must be at least 0, got -1"),
            (json!({"location": "P", "unit": "celsius", "days": 1.5}), "`days` must be an integer, got 1.5"),
            (
                json!({"location": "P", "unit": "celsius", "rgb": [1, 2]}),
                "`rgb` must be exactly 3 items, got \"2 items\"",
            ),
            (
                json!({"location": "P", "unit": "celsius", "rgb": [1, 2, 300]}),
                "`rgb[2]` must be at most 255, got 300",
            ),
            (
                json!({"location": "P", "unit": "celsius", "pair": [1, "a", 2]}),
                "`pair` must be exactly 2 items, got \"3 items\"",
            ),
            (
                json!({"location": "P", "unit": "celsius", "hourly": "yes"}),
                "`hourly` must be a boolean or null, got \"yes\"",
            ),
        ];
        for (args, want) in cases {
            let got = run(args.clone(), STRICT).unwrap_err();
            assert_eq!(got, vec![want.to_string()], "{args}");
        }
    }

    #[test]
    fn lenient_repairs() {
        let out = run(
            json!({"location": "P", "unit": "celsius", "days": "3", "hourly": "TRUE", "limit": 5.0, "rgb": "[1,2,3]"}),
            Policy::default(),
        )
        .unwrap();
        assert_eq!(out["days"], 3);
        assert_eq!(out["hourly"], true);
        assert_eq!(out["limit"], 5);
        assert_eq!(out["rgb"], json!([1, 2, 3]));
        // null for an optional, non-nullable argument: treated as absent.
        let out = run(
            json!({"location": "P", "unit": "celsius", "limit": null}),
            Policy::default(),
        )
        .unwrap();
        assert_eq!(out["limit"], 10);
        // Strict mode rejects the same inputs.
        assert!(run(
            json!({"location": "P", "unit": "celsius", "days": "3"}),
            STRICT
        )
        .is_err());
        // Repairs never invent values.
        assert!(run(
            json!({"location": "P", "unit": "celsius", "days": "three"}),
            Policy::default()
        )
        .is_err());
    }

    #[test]
    fn extra_arguments_can_be_allowed() {
        let policy = Policy {
            lenient: false,
            allow_extra: true,
        };
        let out = run(
            json!({"location": "P", "unit": "celsius", "colour": 1}),
            policy,
        )
        .unwrap();
        assert!(out.get("colour").is_none());
    }

    #[test]
    fn nested_schemars_shapes() {
        let schema = json!({"type": "object", "properties": {
            "stops": {"type": "array", "items": {"type": "object",
                "properties": {"lat": {"type": "number"}, "label": {"type": ["string", "null"]}},
                "required": ["lat"]}},
            "mode": {"oneOf": [{"type": "string", "const": "walk"}, {"type": "string", "const": "drive"}]},
            "shape": {"$ref": "#/$defs/Shape"}
        }, "required": ["stops"], "$defs": {"Shape": {"type": "string", "enum": ["circle"]}}});
        let check = |args: Value| {
            let mut m = args.as_object().unwrap().clone();
            validate_arguments(&schema, &mut m, STRICT)
                .map_err(|i| i.iter().map(ToString::to_string).collect::<Vec<_>>())
        };
        assert!(check(
            json!({"stops": [{"lat": 1.0, "label": null}], "mode": "walk", "shape": "circle"})
        )
        .is_ok());
        assert_eq!(
            check(json!({"stops": [{"label": "x"}]})).unwrap_err(),
            vec!["missing required argument `stops[0].lat`"]
        );
        assert_eq!(
            check(json!({"stops": [], "mode": "fly"})).unwrap_err(),
            vec!["`mode`: a string does not match any of the allowed shapes"]
        );
        assert_eq!(
            check(json!({"stops": [], "shape": "square"})).unwrap_err(),
            vec!["`shape` must be one of \"circle\", got \"square\""]
        );
    }
}
