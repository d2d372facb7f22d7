//! Tool definitions in each provider's dialect, from the transformers form
//! that `#[tool]` produces.

use serde_json::{json, Map, Value};

use crate::ToolDefinition;

/// Which API the definitions are for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DefinitionFormat {
    /// transformers' `get_json_schema` form, for chat templates: `return` included.
    Transformers,
    /// OpenAI Chat Completions `tools`: as transformers, without `return`.
    OpenAi,
    /// OpenAI strict mode: every object closed (`additionalProperties: false`),
    /// every property required, optional ones typed `[T, "null"]`.
    OpenAiStrict,
    /// Anthropic Messages `tools`: `name`, `description`, `input_schema`.
    Anthropic,
    /// MCP `tools/list`: `name`, `description`, `inputSchema`.
    Mcp,
    /// Gemini `tools`: one `{"functionDeclarations": [...]}`, OpenAPI-style
    /// schemas (no `$ref`, `nullable` kept).
    Gemini,
}

/// Converts transformers-form definitions into `format`: the value of the
/// API's `tools` field. The definitions are not checked (a [`Tool`](crate::Tool)
/// may give any JSON); [`convert_definitions`] takes checked ones.
pub fn convert(definitions: &[&Value], format: DefinitionFormat) -> Vec<Value> {
    let definitions: Vec<ToolDefinition> = definitions
        .iter()
        .map(|d| ToolDefinition::unchecked(d))
        .collect();
    convert_definitions(&definitions, format)
}

/// Converts definitions into `format`: the value of the API's `tools` field.
pub fn convert_definitions(definitions: &[ToolDefinition], format: DefinitionFormat) -> Vec<Value> {
    match format {
        DefinitionFormat::Transformers => definitions.iter().map(ToolDefinition::to_json).collect(),
        DefinitionFormat::Gemini => {
            let declarations: Vec<Value> = definitions.iter().map(|d| format.write(d)).collect();
            vec![json!({ "functionDeclarations": declarations })]
        }
        _ => definitions.iter().map(|d| format.write(d)).collect(),
    }
}

impl DefinitionFormat {
    /// One definition as this format writes it: an element of the API's
    /// `tools` (for Gemini, of its one `functionDeclarations` list). A
    /// description is left out where the definition has none. The wire
    /// types of `tool-models` are built from the same writer.
    pub fn write(self, definition: &ToolDefinition) -> Value {
        if self == DefinitionFormat::Transformers {
            return definition.to_json();
        }
        let function = &definition.as_json()["function"];
        let mut m = Map::new();
        m.insert("name".into(), definition.name().into());
        if let Some(description) = function.get("description").filter(|d| !d.is_null()) {
            m.insert("description".into(), description.clone());
        }
        let parameters = self.parameters(definition);
        match self {
            DefinitionFormat::OpenAi | DefinitionFormat::OpenAiStrict => {
                let strict = match self {
                    DefinitionFormat::OpenAiStrict => Some(true),
                    _ => function.get("strict").and_then(Value::as_bool),
                };
                if let Some(strict) = strict {
                    m.insert("strict".into(), strict.into());
                }
                m.insert("parameters".into(), parameters);
                json!({"type": "function", "function": m})
            }
            DefinitionFormat::Anthropic => {
                m.insert("input_schema".into(), parameters);
                Value::Object(m)
            }
            DefinitionFormat::Mcp => {
                m.insert("inputSchema".into(), parameters);
                Value::Object(m)
            }
            DefinitionFormat::Gemini | DefinitionFormat::Transformers => {
                m.insert("parameters".into(), parameters);
                Value::Object(m)
            }
        }
    }

    /// A definition's parameters schema as this format's API takes it: an
    /// empty object schema where it has none, and, in every format but
    /// [`Transformers`](DefinitionFormat::Transformers), without the
    /// grounding marker; `nullable` as a `null` type for Anthropic and MCP,
    /// closed and all-required for OpenAI strict, `$ref`s inlined for
    /// OpenAI strict and Gemini, and OpenAPI's `nullable` for Gemini.
    pub fn parameters(self, definition: &ToolDefinition) -> Value {
        let mut parameters = match self {
            DefinitionFormat::Transformers => definition
                .parameters()
                .map(|p| Value::Object(p.clone()))
                .unwrap_or_else(|| json!({"type": "object", "properties": {}})),
            _ => definition.parameters_without_grounding(),
        };
        match self {
            DefinitionFormat::Transformers | DefinitionFormat::OpenAi => {}
            DefinitionFormat::OpenAiStrict => {
                inline_refs(&mut parameters);
                strict(&mut parameters);
            }
            DefinitionFormat::Anthropic | DefinitionFormat::Mcp => {
                nullable_to_type(&mut parameters)
            }
            DefinitionFormat::Gemini => {
                inline_refs(&mut parameters);
                gemini(&mut parameters);
            }
        }
        parameters
    }
}

/// Applies `f` to every subschema below `schema` (not to `schema` itself).
fn for_each_subschema(schema: &mut Value, f: &mut dyn FnMut(&mut Value)) {
    let Some(obj) = schema.as_object_mut() else {
        return;
    };
    for (key, sub) in obj.iter_mut() {
        match key.as_str() {
            "properties" | "$defs" | "definitions" | "patternProperties" => {
                if let Some(m) = sub.as_object_mut() {
                    m.values_mut().for_each(&mut *f);
                }
            }
            "items" | "additionalProperties" | "not" | "contains" => f(sub),
            "prefixItems" | "anyOf" | "oneOf" | "allOf" => {
                if let Some(list) = sub.as_array_mut() {
                    list.iter_mut().for_each(&mut *f);
                }
            }
            _ => {}
        }
    }
}

/// Makes a schema also accept `null`.
fn add_null(schema: &mut Value) {
    let Some(obj) = schema.as_object_mut() else {
        return;
    };
    match obj.get("type").cloned() {
        Some(Value::String(t)) if t != "null" => {
            obj.insert("type".into(), json!([t, "null"]));
        }
        Some(Value::Array(mut ts)) => {
            if !ts.iter().any(|t| t == "null") {
                ts.push(json!("null"));
                obj.insert("type".into(), Value::Array(ts));
            }
        }
        Some(_) => {}
        None if obj.is_empty() => {}
        None => {
            let key = ["anyOf", "oneOf"]
                .into_iter()
                .find(|k| obj.contains_key(*k));
            match key.and_then(|k| obj.get_mut(k)) {
                Some(Value::Array(branches)) => branches.push(json!({"type": "null"})),
                _ => {
                    let inner = Value::Object(std::mem::take(obj));
                    obj.insert("anyOf".into(), json!([inner, {"type": "null"}]));
                }
            }
        }
    }
}

/// `"nullable": true` (OpenAPI) → `"type": [T, "null"]` (JSON Schema), everywhere.
fn nullable_to_type(schema: &mut Value) {
    for_each_subschema(schema, &mut nullable_to_type);
    if let Some(obj) = schema.as_object_mut() {
        if obj.remove("nullable") == Some(Value::Bool(true)) {
            let description = obj.shift_remove("description");
            add_null(schema);
            if let (Some(d), Some(obj)) = (description, schema.as_object_mut()) {
                obj.insert("description".into(), d);
            }
        }
    }
}

/// OpenAI strict mode: closed objects, everything required, optional → nullable.
fn strict(schema: &mut Value) {
    nullable_to_type(schema);
    strict_objects(schema);
}

fn strict_objects(schema: &mut Value) {
    for_each_subschema(schema, &mut strict_objects);
    let Some(obj) = schema.as_object_mut() else {
        return;
    };
    obj.remove("default");
    let required: Vec<Value> = obj
        .get("required")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    let props = match obj.get_mut("properties").and_then(Value::as_object_mut) {
        Some(p) => p,
        None => return,
    };
    let mut all = Vec::new();
    for (name, prop) in props.iter_mut() {
        if !required.iter().any(|r| r == name) {
            let description = prop
                .as_object_mut()
                .and_then(|o| o.shift_remove("description"));
            add_null(prop);
            if let (Some(d), Some(o)) = (description, prop.as_object_mut()) {
                o.insert("description".into(), d);
            }
        }
        all.push(Value::String(name.clone()));
    }
    obj.insert("required".into(), Value::Array(all));
    obj.insert("additionalProperties".into(), Value::Bool(false));
}

/// Replaces `$ref`s into the root's `$defs` with the definitions themselves
/// (a cycle is cut off as `{}`), then drops `$defs`.
fn inline_refs(root: &mut Value) {
    let defs = root
        .as_object_mut()
        .and_then(|o| o.remove("$defs").or_else(|| o.remove("definitions")));
    let Some(Value::Object(defs)) = defs else {
        return;
    };
    fn walk(schema: &mut Value, defs: &Map<String, Value>, seen: &mut Vec<String>) {
        let target = schema
            .get("$ref")
            .and_then(Value::as_str)
            .and_then(|r| r.rsplit('/').next())
            .map(str::to_owned);
        if let Some(name) = target {
            let mut replacement = match defs.get(&name) {
                Some(d) if !seen.contains(&name) => d.clone(),
                _ => json!({}),
            };
            seen.push(name);
            walk(&mut replacement, defs, seen);
            seen.pop();
            if let (Some(obj), Some(rep)) = (schema.as_object_mut(), replacement.as_object()) {
                obj.remove("$ref");
                for (k, v) in rep {
                    obj.entry(k.clone()).or_insert_with(|| v.clone());
                }
            }
            return;
        }
        for_each_subschema(schema, &mut |s| walk(s, defs, seen));
    }
    walk(root, &defs, &mut Vec::new());
}

/// Gemini's OpenAPI subset: no `additionalProperties`, tuples as plain arrays,
/// `const` as a one-value `enum`.
fn gemini(schema: &mut Value) {
    for_each_subschema(schema, &mut gemini);
    let Some(obj) = schema.as_object_mut() else {
        return;
    };
    obj.remove("additionalProperties");
    obj.remove("uniqueItems");
    if let Some(Value::Array(prefix)) = obj.remove("prefixItems") {
        obj.entry("items")
            .or_insert_with(|| json!({"anyOf": prefix}));
    }
    if let Some(c) = obj.remove("const") {
        obj.insert("enum".into(), json!([c]));
    }
    if let Some(Value::Array(ts)) = obj.get("type").cloned() {
        // ["T", "null"] → "T" + nullable
        let non_null: Vec<&Value> = ts.iter().filter(|t| *t != "null").collect();
        if non_null.len() == 1 {
            obj.insert("type".into(), non_null[0].clone());
            if non_null.len() < ts.len() {
                obj.insert("nullable".into(), Value::Bool(true));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::grounding::GROUNDED;

    fn def() -> Value {
        json!({"type": "function", "function": {"name": "search", "description": "Search.",
            "parameters": {"type": "object", "properties": {
                "query": {"type": "string", "description": "q"},
                "limit": {"type": "integer", "minimum": 0, "default": 10, "description": "n"},
                "tags": {"type": "array", "items": {"type": "string", "nullable": true}, "nullable": true, "description": "t"},
                "pair": {"type": "array", "prefixItems": [{"type": "integer"}, {"type": "string"}], "description": "p"},
                "any": {"description": "anything"}
            }, "required": ["query", "pair", "any"]},
            "return": {"type": "number"}}})
    }

    #[test]
    fn only_transformers_keeps_the_grounded_hint() {
        let mut d = def();
        d["function"]["parameters"]["properties"]["city"] =
            json!({"type": "string", "description": "c", GROUNDED: true});
        for format in [
            DefinitionFormat::OpenAi,
            DefinitionFormat::OpenAiStrict,
            DefinitionFormat::Anthropic,
            DefinitionFormat::Mcp,
            DefinitionFormat::Gemini,
        ] {
            let out = convert(&[&d], format);
            let text = serde_json::to_string(&out).unwrap();
            assert!(!text.contains(GROUNDED), "{format:?}: {text}");
            assert!(text.contains("\"city\""), "{format:?}: {text}");
        }
        let kept = convert(&[&d], DefinitionFormat::Transformers);
        assert_eq!(
            kept[0]["function"]["parameters"]["properties"]["city"][GROUNDED],
            true
        );
    }

    #[test]
    fn openai_drops_return() {
        let d = def();
        let out = convert(&[&d], DefinitionFormat::OpenAi);
        assert!(out[0]["function"].get("return").is_none());
        assert_eq!(
            out[0]["function"]["parameters"],
            d["function"]["parameters"]
        );
        assert_eq!(convert(&[&d], DefinitionFormat::Transformers)[0], d);
    }

    #[test]
    fn openai_strict() {
        let d = def();
        let out = &convert(&[&d], DefinitionFormat::OpenAiStrict)[0]["function"];
        assert_eq!(out["strict"], true);
        let p = &out["parameters"];
        assert_eq!(p["additionalProperties"], false);
        assert_eq!(
            p["required"],
            json!(["query", "limit", "tags", "pair", "any"])
        );
        assert_eq!(
            p["properties"]["limit"],
            json!({"type": ["integer", "null"], "minimum": 0, "description": "n"})
        );
        assert_eq!(
            p["properties"]["tags"],
            json!({"type": ["array", "null"], "items": {"type": ["string", "null"]}, "description": "t"})
        );
        assert_eq!(
            p["properties"]["query"],
            json!({"type": "string", "description": "q"})
        );
    }

    #[test]
    fn anthropic_and_mcp() {
        let d = def();
        let a = &convert(&[&d], DefinitionFormat::Anthropic)[0];
        assert_eq!(a["name"], "search");
        assert_eq!(
            a["input_schema"]["properties"]["tags"]["type"],
            json!(["array", "null"])
        );
        assert!(a["input_schema"]["properties"]["tags"]
            .get("nullable")
            .is_none());
        let m = &convert(&[&d], DefinitionFormat::Mcp)[0];
        assert_eq!(m["inputSchema"], a["input_schema"]);
        assert_eq!(
            m.as_object().unwrap().keys().collect::<Vec<_>>(),
            ["name", "description", "inputSchema"]
        );
    }

    #[test]
    fn gemini_inlines_refs_and_keeps_nullable() {
        let d = json!({"type": "function", "function": {"name": "route", "description": "R.",
        "parameters": {"type": "object", "properties": {
            "stop": {"$ref": "#/$defs/Point", "description": "where"},
            "label": {"type": ["string", "null"]},
            "tree": {"$ref": "#/$defs/Node"}
        }, "$defs": {
            "Point": {"type": "object", "properties": {"lat": {"type": "number"}}, "additionalProperties": false},
            "Node": {"type": "object", "properties": {"child": {"$ref": "#/$defs/Node"}}}
        }}}});
        let g = convert(&[&d], DefinitionFormat::Gemini);
        let text = g[0].to_string();
        assert!(!text.contains("$ref") && !text.contains("$defs"), "{text}");
        let p = &g[0]["functionDeclarations"][0]["parameters"]["properties"];
        assert_eq!(
            p["stop"],
            json!({"description": "where", "type": "object", "properties": {"lat": {"type": "number"}}})
        );
        assert_eq!(p["label"], json!({"type": "string", "nullable": true}));
        assert_eq!(
            p["tree"]["properties"]["child"],
            json!({}),
            "a cycle is cut"
        );
    }
}
