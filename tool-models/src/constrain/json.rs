//! Structured output: [`JsonConstraint`].

use super::narrow::{bound_any_at_root, bound_numbers};
use super::schema::layout;
use super::session::{forward_constraint_to_session, Session};
use super::{ConstrainError, TokenEnv};
use llguidance::api::TopLevelGrammar;
use serde_json::Value;

/// Masks the whole output to one JSON value valid against a schema, then end
/// of sequence. Separators are `", "` and `": "` with no other whitespace,
/// unless the schema's `x-guidance` object says otherwise. Numbers without
/// bounds get ±10^18, as in tool calls, so that every output parses (see
/// `constrain/narrow.rs`); objects stay as open as the schema says.
#[derive(Clone)]
pub struct JsonConstraint {
    session: Session,
}

impl std::fmt::Debug for JsonConstraint {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("JsonConstraint").finish_non_exhaustive()
    }
}

impl JsonConstraint {
    /// The constraint for output valid against `schema`.
    pub fn new(env: &TokenEnv, schema: &Value) -> Result<JsonConstraint, ConstrainError> {
        let mut schema = match schema {
            Value::Object(_) => schema.clone(),
            // `true` admits any JSON value.
            Value::Bool(true) => Value::Object(Default::default()),
            other => {
                return Err(ConstrainError::Schema {
                    what: "the output".into(),
                    reason: format!("expected a JSON schema object, found {other}"),
                })
            }
        };
        bound_numbers(&mut schema);
        bound_any_at_root(&mut schema, None);
        if let Some(obj) = schema.as_object_mut() {
            obj.entry("x-guidance").or_insert_with(layout);
        }
        let session =
            Session::new(env, TopLevelGrammar::from_json_schema(schema)).map_err(|reason| {
                ConstrainError::Schema {
                    what: "the output".into(),
                    reason,
                }
            })?;
        Ok(JsonConstraint { session })
    }
}

forward_constraint_to_session!(JsonConstraint);
