//! Constrained tool calls: [`ToolConstraint`].

use super::grammar::{lark, Grammar};
use super::schema::{layout, read_tools, ToolDef};
use super::session::{forward_constraint_to_session, Session};
use super::{ConstrainError, TokenEnv};
use llguidance::api::TopLevelGrammar;
use tool_runtime::{ToolChoice, ToolDefinition};

/// Masks a tool-using output so that every call the format's parser reads
/// names an offered tool and has arguments valid against its schema.
///
/// Built once per request (compiling the grammar takes about a millisecond
/// per tool); clone a fresh one to reuse the compiled grammar: a clone
/// carries the state it was cloned in.
#[derive(Clone)]
pub struct ToolConstraint {
    session: Session,
    grammar: String,
}

impl std::fmt::Debug for ToolConstraint {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ToolConstraint")
            .field("grammar", &self.grammar)
            .finish_non_exhaustive()
    }
}

impl ToolConstraint {
    /// The constraint for calls written as `grammar` describes to `tools`
    /// (definitions checked where they entered:
    /// `ToolDefinition::list_from_json`) under `choice`; `None` where this
    /// vocabulary cannot write the grammar. Formats reach it through
    /// [`ToolConstraint::new`], which looks their grammar up.
    pub(crate) fn from_grammar(
        env: &TokenEnv,
        grammar: &Grammar,
        tools: &[ToolDefinition],
        choice: &ToolChoice,
    ) -> Result<Option<ToolConstraint>, ConstrainError> {
        choice.check(tools)?;
        let mut defs = read_tools(tools);
        // Calls to the named or allowed tools only; the grammar itself
        // knows just whether calls may, must or must not come.
        if matches!(choice, ToolChoice::Named(_) | ToolChoice::Allowed { .. }) {
            defs.retain(|t| choice.allows(&t.name));
        }
        let Some(grammar) = lark(env, grammar, &defs, &choice.mode())? else {
            return Ok(None);
        };
        match Session::new(env, TopLevelGrammar::from_lark(grammar.clone())) {
            Ok(session) => Ok(Some(ToolConstraint { session, grammar })),
            Err(e) => Err(blame(env, &defs).unwrap_or(ConstrainError::Grammar(e))),
        }
    }

    /// The Lark grammar in force (for diagnostics).
    pub fn grammar(&self) -> &str {
        &self.grammar
    }
}

/// The first tool whose parameters schema does not compile on its own, and why.
fn blame(env: &TokenEnv, tools: &[ToolDef]) -> Option<ConstrainError> {
    tools.iter().find_map(|t| {
        let mut schema = t.params.clone();
        if let Some(obj) = schema.as_object_mut() {
            obj.insert("x-guidance".into(), layout());
        }
        Session::new(env, TopLevelGrammar::from_json_schema(schema))
            .err()
            .map(|reason| ConstrainError::Schema {
                what: format!("tool `{}`'s parameters", t.name),
                reason,
            })
    })
}

forward_constraint_to_session!(ToolConstraint);
