//! [`ToolDefinition`]: one tool's definition in transformers' form
//! (`{"type": "function", "function": {"name", "description", "parameters",
//! "return"}}`), checked once where it enters, read through accessors after.
//!
//! The JSON is kept as given, key order included: chat templates print
//! `tojson` of the definitions, so a prompt must not change because a
//! definition went through this type.

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::{Map, Value};
use std::borrow::Cow;

use crate::grounding::{take_grounded, GROUNDED};
use crate::json_kind;

/// One tool's definition, checked: a non-empty name and, when given,
/// parameters that are an object schema.
///
/// ```
/// use serde_json::json;
/// use tool_runtime::ToolDefinition;
///
/// let json = json!({"type": "function", "function": {"name": "get_weather",
///     "parameters": {"type": "object", "properties": {
///         "city": {"type": "string", "x-grounded": true}}}}});
/// let def = ToolDefinition::from_json(&json)?;
/// assert_eq!(def.name(), "get_weather");
/// assert_eq!(def.grounded().collect::<Vec<_>>(), ["city"]);
/// assert_eq!(def.to_json(), json);
/// # Ok::<(), tool_runtime::DefinitionError>(())
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct ToolDefinition {
    name: String,
    /// The transformers form, as given.
    json: Value,
}

/// A tool definition that is not of the expected shape: what was expected
/// and what was found.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DefinitionError {
    /// The definition is not a JSON object.
    #[error("expected a tool definition object, found {0}")]
    NotAnObject(&'static str),
    /// `{"type": "function", ...}` without a `function` object.
    #[error("expected a `function` object, found {0}")]
    NoFunction(&'static str),
    /// The name is missing, not a string, or blank.
    #[error("expected `function.name` to be a non-empty string, found {0}")]
    Name(String),
    /// The parameters are not an object schema.
    #[error("tool `{name}`: parameters is not a JSON schema: {reason}")]
    Parameters {
        /// The tool's name.
        name: String,
        /// What was expected and what was found.
        reason: SchemaError,
    },
    /// Two definitions of a list share a name.
    #[error("two tools are named `{0}`: a tool is defined twice, but names must be unique")]
    Duplicate(String),
}

/// A list of definitions with a bad one: which one, and what is wrong.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("tool definition #{index}: {error}")]
pub struct DefinitionsError {
    /// Position of the definition in the list.
    pub index: usize,
    /// What is wrong with it.
    pub error: DefinitionError,
}

/// A JSON schema whose keywords do not have their types (see [`check_schema`]).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct SchemaError(String);

impl ToolDefinition {
    /// Reads a definition in transformers' form, or the bare `function`
    /// object (which becomes the transformers form).
    pub fn from_json(json: &Value) -> Result<ToolDefinition, DefinitionError> {
        let Value::Object(outer) = json else {
            return Err(DefinitionError::NotAnObject(json_kind(json)));
        };
        let wrapped =
            outer.contains_key("function") || outer.get("type") == Some(&"function".into());
        let json = if wrapped {
            match outer.get("function") {
                Some(Value::Object(_)) => json.clone(),
                other => {
                    return Err(DefinitionError::NoFunction(
                        other.map_or("nothing", json_kind),
                    ))
                }
            }
        } else {
            serde_json::json!({"type": "function", "function": json})
        };
        let function = &json["function"];
        let name = match function.get("name") {
            Some(Value::String(s)) if !s.trim().is_empty() => s.clone(),
            Some(other) => return Err(DefinitionError::Name(other.to_string())),
            None => return Err(DefinitionError::Name("no name".into())),
        };
        match function.get("parameters") {
            None | Some(Value::Null) => {}
            Some(parameters) => {
                check_parameters(parameters).map_err(|reason| DefinitionError::Parameters {
                    name: name.clone(),
                    reason,
                })?
            }
        }
        Ok(ToolDefinition { name, json })
    }

    /// Reads a list of definitions: each one checked, no name twice.
    pub fn list_from_json<'a>(
        json: impl IntoIterator<Item = &'a Value>,
    ) -> Result<Vec<ToolDefinition>, DefinitionsError> {
        let definitions = json
            .into_iter()
            .enumerate()
            .map(|(index, d)| {
                ToolDefinition::from_json(d).map_err(|error| DefinitionsError { index, error })
            })
            .collect::<Result<Vec<_>, _>>()?;
        check_definitions(&definitions)?;
        Ok(definitions)
    }

    /// A definition that was not checked, for code that must take any JSON
    /// (a definition `#[tool]` built, one marked grounded): the name is
    /// empty when there is none.
    pub(crate) fn unchecked(json: &Value) -> ToolDefinition {
        ToolDefinition {
            name: json["function"]["name"]
                .as_str()
                .unwrap_or_default()
                .to_owned(),
            json: json.clone(),
        }
    }

    /// The tool's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// What the tool does, for the model.
    pub fn description(&self) -> Option<&str> {
        self.function().get("description").and_then(Value::as_str)
    }

    /// The parameters' JSON schema; `None` when the definition has none.
    pub fn parameters(&self) -> Option<&Map<String, Value>> {
        self.function().get("parameters").and_then(Value::as_object)
    }

    /// The schema of the tool's result (`return`), when the definition states it.
    pub fn returns(&self) -> Option<&Value> {
        self.function().get("return")
    }

    /// The parameters marked grounded (`"x-grounded": true`): their values
    /// must be copied from the user's words.
    pub fn grounded(&self) -> impl Iterator<Item = &str> + '_ {
        self.properties()
            .filter(|(_, s)| s.get(GROUNDED) == Some(&Value::Bool(true)))
            .map(|(name, _)| name.as_str())
    }

    /// Whether any parameter carries the grounding marker, whatever its value.
    pub fn has_grounding_marker(&self) -> bool {
        self.properties().any(|(_, s)| s.get(GROUNDED).is_some())
    }

    /// The parameters' schema without the grounding marker, as hosted APIs
    /// take it; an empty object schema when the definition has none.
    pub fn parameters_without_grounding(&self) -> Value {
        let mut parameters = self
            .function()
            .get("parameters")
            .cloned()
            .unwrap_or_else(|| serde_json::json!({"type": "object", "properties": {}}));
        if let Some(properties) = parameters
            .get_mut("properties")
            .and_then(Value::as_object_mut)
        {
            for schema in properties.values_mut().filter_map(Value::as_object_mut) {
                take_grounded(schema);
            }
        }
        parameters
    }

    /// Whether any of `tools` has a grounded parameter.
    pub fn any_grounded(tools: &[ToolDefinition]) -> bool {
        tools.iter().any(|t| t.grounded().next().is_some())
    }

    /// `tools` without the grounding marker, as a model is shown them
    /// (borrowed when none has it).
    pub fn strip_grounding(tools: &[ToolDefinition]) -> Cow<'_, [ToolDefinition]> {
        if !tools.iter().any(ToolDefinition::has_grounding_marker) {
            return Cow::Borrowed(tools);
        }
        Cow::Owned(
            tools
                .iter()
                .map(ToolDefinition::without_grounding)
                .collect(),
        )
    }

    /// This definition without the grounding marker, as a model is shown
    /// it; `self` again (a clone) when no parameter carries the marker.
    pub fn without_grounding(&self) -> ToolDefinition {
        self.map_grounded(|_| {})
    }

    /// This definition with the grounding marker removed from every
    /// parameter and `edit` applied to the schema of each parameter that was
    /// marked grounded (`"x-grounded": true`). The name stays; `edit` must
    /// keep the schema a schema (narrow it, say with an `enum`).
    pub fn map_grounded(&self, mut edit: impl FnMut(&mut Map<String, Value>)) -> ToolDefinition {
        let mut json = self.json.clone();
        if let Some(properties) = json
            .pointer_mut("/function/parameters/properties")
            .and_then(Value::as_object_mut)
        {
            for schema in properties.values_mut().filter_map(Value::as_object_mut) {
                if take_grounded(schema) {
                    edit(schema);
                }
            }
        }
        ToolDefinition {
            name: self.name.clone(),
            json,
        }
    }

    /// This definition with every free string parameter (and list of them)
    /// marked grounded, as [`ground_free_strings`](crate::ground_free_strings)
    /// marks a definition in JSON.
    pub fn free_strings_grounded(&self) -> ToolDefinition {
        self.edited(|json| {
            crate::grounding::ground_free_strings(json);
        })
    }

    /// This definition with every free number parameter (and list of them)
    /// marked grounded, as [`ground_free_numbers`](crate::ground_free_numbers)
    /// marks a definition in JSON.
    pub fn free_numbers_grounded(&self) -> ToolDefinition {
        self.edited(|json| {
            crate::grounding::ground_free_numbers(json);
        })
    }

    /// A copy with `edit` applied to its JSON; the name stays.
    fn edited(&self, edit: impl FnOnce(&mut Value)) -> ToolDefinition {
        let mut json = self.json.clone();
        edit(&mut json);
        ToolDefinition {
            name: self.name.clone(),
            json,
        }
    }

    /// The transformers form, as it was read.
    pub fn as_json(&self) -> &Value {
        &self.json
    }

    /// The transformers form, as it was read.
    pub fn to_json(&self) -> Value {
        self.json.clone()
    }

    /// The transformers form, as it was read.
    pub fn into_json(self) -> Value {
        self.json
    }

    /// The `function` object.
    fn function(&self) -> &Value {
        &self.json["function"]
    }

    fn properties(&self) -> impl Iterator<Item = (&String, &Value)> + '_ {
        self.parameters()
            .and_then(|p| p.get("properties"))
            .and_then(Value::as_object)
            .into_iter()
            .flatten()
    }
}

/// For `#[tool]`'s generated code: the definition it built, checked; kept
/// as it is should the checks refuse it (the macro builds object schemas),
/// so that a tool never panics for its definition.
pub fn generated(json: Value) -> ToolDefinition {
    match ToolDefinition::from_json(&json) {
        Ok(definition) => definition,
        Err(_) => ToolDefinition::unchecked(&json),
    }
}

/// Checks that no two definitions share a name.
pub fn check_definitions(definitions: &[ToolDefinition]) -> Result<(), DefinitionsError> {
    for (index, d) in definitions.iter().enumerate() {
        if definitions[..index].iter().any(|e| e.name == d.name) {
            return Err(DefinitionsError {
                index,
                error: DefinitionError::Duplicate(d.name.clone()),
            });
        }
    }
    Ok(())
}

/// A tool's parameters: an object schema whose keywords have their types.
fn check_parameters(parameters: &Value) -> Result<(), SchemaError> {
    let Value::Object(obj) = parameters else {
        return Err(SchemaError(format!(
            "expected an object, found {}",
            json_kind(parameters)
        )));
    };
    match obj.get("type") {
        None => {}
        Some(Value::String(t)) if t == "object" => {}
        Some(other) => {
            return Err(SchemaError(format!(
                "`type` must be \"object\", found {other}"
            )))
        }
    }
    check_schema(parameters)
}

/// The shape checks a JSON schema must pass before templates and the grammar
/// compiler see it: an object (or `true`), whose keywords have their types.
pub fn check_schema(schema: &Value) -> Result<(), SchemaError> {
    let obj = match schema {
        Value::Bool(true) => return Ok(()),
        Value::Object(obj) => obj,
        other => {
            return Err(SchemaError(format!(
                "expected an object, found {}",
                json_kind(other)
            )))
        }
    };
    if let Some(t) = obj.get("type") {
        let ok = match t {
            Value::String(_) => true,
            Value::Array(ts) => ts.iter().all(Value::is_string),
            _ => false,
        };
        if !ok {
            return Err(SchemaError(format!(
                "`type` must be a string or a list of strings, found {}",
                json_kind(t)
            )));
        }
    }
    if let Some(props) = obj.get("properties") {
        let Value::Object(props) = props else {
            return Err(SchemaError(format!(
                "`properties` must be an object, found {}",
                json_kind(props)
            )));
        };
        for (key, sub) in props {
            check_schema(sub).map_err(|e| SchemaError(format!("property `{key}`: {e}")))?;
        }
    }
    if let Some(required) = obj.get("required") {
        if !required
            .as_array()
            .is_some_and(|r| r.iter().all(Value::is_string))
        {
            return Err(SchemaError(
                "`required` must be a list of property names".into(),
            ));
        }
    }
    if let Some(items) = obj.get("items") {
        check_schema(items).map_err(|e| SchemaError(format!("items: {e}")))?;
    }
    Ok(())
}

impl TryFrom<&Value> for ToolDefinition {
    type Error = DefinitionError;

    fn try_from(json: &Value) -> Result<Self, Self::Error> {
        ToolDefinition::from_json(json)
    }
}

impl TryFrom<Value> for ToolDefinition {
    type Error = DefinitionError;

    fn try_from(json: Value) -> Result<Self, Self::Error> {
        ToolDefinition::from_json(&json)
    }
}

impl From<ToolDefinition> for Value {
    fn from(d: ToolDefinition) -> Value {
        d.json
    }
}

/// Reads a key of the transformers form (`definition["function"]`), as on
/// the JSON it was read from; `null` for a key it does not have.
impl std::ops::Index<&str> for ToolDefinition {
    type Output = Value;

    fn index(&self, key: &str) -> &Value {
        &self.json[key]
    }
}

/// The transformers form as compact JSON text, as it was read.
impl std::fmt::Display for ToolDefinition {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.json.fmt(f)
    }
}

impl Serialize for ToolDefinition {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.json.serialize(serializer)
    }
}

impl<'de> Deserialize<'de> for ToolDefinition {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let json = Value::deserialize(deserializer)?;
        ToolDefinition::from_json(&json).map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use serde_json::json;

    fn tool(name: &str, parameters: Value) -> Value {
        json!({"type": "function", "function": {"name": name, "parameters": parameters}})
    }

    #[test]
    fn says_what_is_wrong() {
        let error = |json: Value| ToolDefinition::from_json(&json).unwrap_err().to_string();
        assert_eq!(
            error(json!([1])),
            "expected a tool definition object, found an array"
        );
        assert_eq!(
            error(json!({"type": "function"})),
            "expected a `function` object, found nothing"
        );
        assert_eq!(
            error(json!({"function": {"name": 3}})),
            "expected `function.name` to be a non-empty string, found 3"
        );
        assert_eq!(
            error(json!({"function": {"name": " "}})),
            "expected `function.name` to be a non-empty string, found \" \""
        );
        assert_eq!(
            error(tool("f", json!({"type": "string"}))),
            "tool `f`: parameters is not a JSON schema: `type` must be \"object\", found \"string\""
        );
        assert_eq!(
            error(tool("f", json!({"properties": {"a": {"type": 3}}}))),
            "tool `f`: parameters is not a JSON schema: property `a`: `type` must be a string or a list of strings, found an integer"
        );
        let twice = ToolDefinition::list_from_json(&[tool("f", json!({})), tool("f", json!({}))]);
        assert_eq!(
            twice.unwrap_err().to_string(),
            "tool definition #1: two tools are named `f`: a tool is defined twice, but names must be unique"
        );
    }

    #[test]
    fn the_bare_function_object_is_wrapped() {
        let d = ToolDefinition::from_json(&json!({"name": "f"})).unwrap();
        assert_eq!(
            d.to_json(),
            json!({"type": "function", "function": {"name": "f"}})
        );
        assert_eq!(d.parameters(), None);
        assert_eq!(
            d.parameters_without_grounding(),
            json!({"type": "object", "properties": {}})
        );
    }

    fn schema() -> impl Strategy<Value = Value> {
        (
            prop::sample::select(vec!["string", "integer", "number", "boolean"]),
            prop::option::of("[ -~]{0,12}"),
            prop::option::of(any::<bool>()),
        )
            .prop_map(|(t, description, grounded)| {
                let mut s = Map::new();
                s.insert("type".into(), t.into());
                if let Some(d) = description {
                    s.insert("description".into(), d.into());
                }
                if let Some(g) = grounded {
                    s.insert(GROUNDED.into(), g.into());
                }
                Value::Object(s)
            })
    }

    fn definition() -> impl Strategy<Value = Value> {
        (
            "[a-zA-Z_][a-zA-Z0-9_.-]{0,15}",
            prop::option::of("[ -~]{0,30}"),
            prop::option::of(prop::collection::vec(("[a-z_]{1,8}", schema()), 0..5)),
            prop::option::of(schema()),
            any::<bool>(),
        )
            .prop_map(
                |(name, description, properties, returns, description_last)| {
                    let mut f = Map::new();
                    f.insert("name".into(), name.into());
                    let description = description.map(Value::from);
                    if let (Some(d), false) = (&description, description_last) {
                        f.insert("description".into(), d.clone());
                    }
                    if let Some(properties) = properties {
                        let required: Vec<Value> = properties
                            .iter()
                            .step_by(2)
                            .map(|(k, _)| k.clone().into())
                            .collect();
                        let properties: Map<String, Value> = properties.into_iter().collect();
                        f.insert(
                        "parameters".into(),
                        json!({"type": "object", "properties": properties, "required": required}),
                    );
                    }
                    if let (Some(d), true) = (description, description_last) {
                        f.insert("description".into(), d);
                    }
                    if let Some(r) = returns {
                        f.insert("return".into(), r);
                    }
                    json!({"type": "function", "function": f})
                },
            )
    }

    proptest! {
        #[test]
        fn round_trips(json in definition()) {
            let d = ToolDefinition::from_json(&json).unwrap();
            prop_assert_eq!(d.to_json().to_string(), json.to_string());
            let text = serde_json::to_string(&d).unwrap();
            prop_assert_eq!(&text, &json.to_string());
            let again: ToolDefinition = serde_json::from_str(&text).unwrap();
            prop_assert_eq!(&again, &d);
            prop_assert_eq!(ToolDefinition::from_json(&again.to_json()).unwrap(), d.clone());
            let grounded: Vec<&str> = json["function"]["parameters"]["properties"]
                .as_object()
                .into_iter()
                .flatten()
                .filter(|(_, s)| s[GROUNDED] == true)
                .map(|(k, _)| k.as_str())
                .collect();
            prop_assert_eq!(d.grounded().collect::<Vec<_>>(), grounded);
            prop_assert!(!d.parameters_without_grounding().to_string().contains(GROUNDED));
        }
    }
}
