//! Grounding the parameters of tools at run time: [`Toolbox::ground`] and
//! [`Toolbox::ground_free_strings`] mark them as `#[arg(grounded)]` does at
//! compile time, for tools written elsewhere (MCP servers, the demo tools).

use crate::context::ToolContext;
use crate::error::UnknownTool;
use crate::grounding::{free, ground_free_strings, GROUNDED};
use crate::tool::{Invocation, Tool};
use crate::toolbox::{Toolbox, ToolboxError};
use crate::ToolDefinition;
use serde_json::{Map, Value};
use std::sync::Arc;

/// A tool whose definition marks some parameters grounded; everything else
/// is the wrapped tool's.
struct Grounded {
    inner: Arc<dyn Tool>,
    definition: ToolDefinition,
}

impl Tool for Grounded {
    fn name(&self) -> &str {
        self.inner.name()
    }

    fn definition(&self) -> &ToolDefinition {
        &self.definition
    }

    fn validation_schema(&self) -> &Value {
        self.inner.validation_schema()
    }

    fn invoke(self: Arc<Self>, args: Map<String, Value>, context: ToolContext) -> Invocation {
        self.inner.clone().invoke(args, context)
    }
}

/// The types a grounded parameter may have: a string is limited to runs
/// of the user's words, a number to the numbers the conversation writes.
const GROUNDABLE: [&str; 3] = ["string", "number", "integer"];

/// Why `schema` cannot be grounded, if it cannot: only free strings and
/// numbers (no `enum`) and lists of them can.
fn not_groundable(schema: &Value) -> Option<String> {
    if free(schema, &GROUNDABLE) {
        return None;
    }
    Some(match (&schema["type"], schema.get("enum")) {
        (_, Some(_)) => "it is limited to choices already".to_owned(),
        (Value::String(t), None) => format!("it is of type {t}"),
        _ => "it is not of one type".to_owned(),
    })
}

impl Toolbox {
    /// Marks `parameters` of the tool called `tool` grounded: a local model's
    /// constrained decoding then admits for them only runs of words of the
    /// user's messages, or for a number only the numbers the conversation
    /// writes (see `#[arg(grounded)]`).
    ///
    /// # Errors
    /// [`ToolboxError::UnknownTool`], or [`ToolboxError::NotGroundable`] for
    /// a parameter the tool does not have or that is not a free string or
    /// number or a list of them; the toolbox is then left as it was.
    pub fn ground(&mut self, tool: &str, parameters: &[&str]) -> Result<(), ToolboxError> {
        let Some(index) = self.index_of(tool) else {
            return Err(ToolboxError::UnknownTool(UnknownTool::new(
                tool,
                self.names(),
            )));
        };
        let inner = self.tools[index].clone();
        let mut definition = inner.definition().to_json();
        let mut properties = definition
            .pointer_mut("/function/parameters/properties")
            .and_then(Value::as_object_mut);
        for &parameter in parameters {
            let refuse = |reason: String| ToolboxError::NotGroundable {
                tool: tool.to_owned(),
                parameter: parameter.to_owned(),
                reason,
            };
            let schema = properties
                .as_deref_mut()
                .and_then(|p| p.get_mut(parameter))
                .ok_or_else(|| refuse("the tool has no such parameter".into()))?;
            if let Some(reason) = not_groundable(schema) {
                return Err(refuse(reason));
            }
            if let Some(obj) = schema.as_object_mut() {
                obj.insert(GROUNDED.into(), Value::Bool(true));
            }
        }
        let definition = ToolDefinition::unchecked(&definition);
        self.tools[index] = Arc::new(Grounded { inner, definition });
        Ok(())
    }

    /// Marks every free string parameter (and list of them) of every tool
    /// grounded: the setting for a small model that should copy what the
    /// user wrote rather than make values up.
    pub fn ground_free_strings(mut self) -> Toolbox {
        for tool in &mut self.tools {
            let mut definition = tool.definition().to_json();
            if ground_free_strings(&mut definition) > 0 {
                let definition = ToolDefinition::unchecked(&definition);
                let inner = tool.clone();
                *tool = Arc::new(Grounded { inner, definition });
            }
        }
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::format::DefinitionFormat;
    use crate::grounding::ground_free_numbers;
    use crate::tool::ToolResult;
    use serde_json::json;

    struct Weather(ToolDefinition);

    impl Tool for Weather {
        fn name(&self) -> &str {
            "weather"
        }
        fn definition(&self) -> &ToolDefinition {
            &self.0
        }
        fn invoke(self: Arc<Self>, args: Map<String, Value>, _: ToolContext) -> Invocation {
            Invocation::Blocking(Box::new(move || -> ToolResult {
                Ok(format!("sunny in {}", args["city"].as_str().unwrap_or("?")).into())
            }))
        }
    }

    fn toolbox() -> Toolbox {
        Toolbox::new()
            .with(Weather(
                ToolDefinition::from_json(
                    &json!({"type": "function", "function": {"name": "weather",
                "description": "d", "parameters": {"type": "object", "properties": {
                    "city": {"type": "string", "description": "c"},
                    "unit": {"type": "string", "enum": ["c", "f"]},
                    "days": {"type": "integer"},
                    "with": {"type": "array", "items": {"type": "string"}},
                    "on": {"type": "boolean"}
                }, "required": ["city"]}}}),
                )
                .unwrap(),
            ))
            .unwrap()
    }

    fn marked(t: &Toolbox) -> Vec<String> {
        let defs = t.definitions(DefinitionFormat::Transformers);
        let props = defs[0]["function"]["parameters"]["properties"]
            .as_object()
            .unwrap();
        props
            .iter()
            .filter(|(_, s)| s.get(GROUNDED) == Some(&Value::Bool(true)))
            .map(|(k, _)| k.clone())
            .collect()
    }

    #[test]
    fn grounding_marks_free_strings_and_numbers_and_refuses_the_rest_by_name() {
        let mut t = toolbox();
        t.ground("weather", &["city"]).unwrap();
        assert_eq!(marked(&t), ["city"]);
        let mut t = toolbox();
        t.ground("weather", &["city", "days"]).unwrap();
        assert_eq!(marked(&t), ["city", "days"]);
        let mut definition = toolbox().definitions(DefinitionFormat::Transformers)[0].clone();
        assert_eq!(ground_free_numbers(&mut definition), 1);
        assert_eq!(
            definition["function"]["parameters"]["properties"]["days"][GROUNDED],
            true
        );
        let call = crate::ToolCall::new("1", "weather", json!({"city": "Oslo"}));
        assert_eq!(
            t.call_blocking(&call).text(),
            "sunny in Oslo",
            "it still runs"
        );
        assert_eq!(marked(&toolbox().ground_free_strings()), ["city", "with"]);

        let err = toolbox().ground("wether", &["city"]).unwrap_err();
        let mut unchanged = toolbox();
        assert!(unchanged.ground("weather", &["city", "on"]).is_err());
        assert!(
            marked(&unchanged).is_empty(),
            "a refused call changes nothing"
        );
        assert_eq!(
            err.to_string(),
            "unknown tool `wether`. Did you mean `weather`? Available tools: weather"
        );
        for (param, why) in [
            ("unit", "it is limited to choices already"),
            ("on", "it is of type boolean"),
            ("town", "the tool has no such parameter"),
        ] {
            let err = toolbox()
                .ground("weather", &[param])
                .unwrap_err()
                .to_string();
            assert!(err.contains(why) && err.contains(param), "{err}");
        }
    }
}
