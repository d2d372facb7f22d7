//! BFCL's multi-turn categories: what a case holds and what a conversation
//! records. A conversation has several user turns, each answered by as
//! many steps of calls as the model needs, the calls run by BFCL's own
//! tool classes ([`super::tool_classes`]) and their results fed back, as
//! BFCL's `inference_multi_turn_FC` drives a tool API
//! ([`super::conversation`]):
//!
//! - the model is asked; calls it writes are written as BFCL writes them
//!   (`name(key=repr(value),…)`), run in order, and answered one tool
//!   message each; then it is asked again;
//! - a turn ends when the model writes no call, or calls BFCL's decoder
//!   could not read (the step is not run);
//! - more than [`STEP_LIMIT`] steps in a turn end the whole conversation
//!   (BFCL's force-quit, judged wrong);
//! - in `multi_turn_miss_func`, the held-out functions join the tools at
//!   the turn BFCL names, asked with BFCL's prompt.
//!
//! Every call goes to the classes as written, as in BFCL: a misspelt name
//! or a wrong argument is answered with Python's error, not refused here,
//! and a held-out function called before it is offered runs.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::Value;
use tool_runtime::{Message, ToolDefinition};

use super::schema::tool_definitions;
use super::{Category, Language};

/// BFCL's `MAXIMUM_STEP_LIMIT`: a turn may have this many steps with
/// calls; one more ends the conversation.
pub const STEP_LIMIT: usize = 20;

/// BFCL's `DEFAULT_USER_PROMPT_FOR_ADDITIONAL_FUNCTION_FC`: the user's
/// words at the turn held-out functions arrive.
pub const MORE_FUNCTIONS_PROMPT: &str =
    "I have updated some more functions you can choose from. What about now?";

/// What a multi-turn case holds beyond a single-turn one.
#[derive(Debug, Clone, PartialEq)]
pub struct MultiTurn {
    /// Each turn's new messages, as BFCL's `question` gives them; empty at
    /// a turn where held-out functions arrive.
    pub turns: Vec<Vec<Message>>,
    /// The tool classes the case uses (`GorillaFileSystem`, `TwitterAPI`…).
    pub classes: Vec<String>,
    /// Each class's starting state.
    pub initial_config: Value,
    /// Whether the classes load BFCL's long-context data.
    pub long_context: bool,
    /// Functions held back from the start, by the turn they join at: the
    /// documents (without the language hint, as BFCL adds them) and the
    /// tool definitions.
    pub held_out: BTreeMap<usize, (Vec<Value>, Vec<ToolDefinition>)>,
    /// The ground truth: each turn's calls, written as Python calls.
    pub ground_truth: Vec<Vec<String>>,
}

/// One step of a turn that called tools.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Step {
    /// What the model wrote.
    pub raw: String,
    /// Its calls, as BFCL writes them for execution.
    pub calls: Vec<String>,
    /// Each call's result.
    pub results: Vec<String>,
}

/// One user turn of a multi-turn conversation.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct TurnLog {
    /// The steps that called tools, in order.
    pub steps: Vec<Step>,
    /// What the turn ended with: the model's answer, or calls that could
    /// not be run.
    pub last: String,
    /// Why the last output's calls could not be run, when so.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub undecodable: Option<String>,
}

impl TurnLog {
    /// The turn's calls, step by step, as BFCL's checker reads a decoded
    /// result (`list[list[str]]`).
    pub fn calls(&self) -> Vec<Vec<String>> {
        self.steps.iter().map(|s| s.calls.clone()).collect()
    }
}

/// A multi-turn case from its question line, BFCL's function documents by
/// class, and its possible-answer line: as `load_dataset_entry` prepares
/// it (the classes' documents in order, the hint added, held-out
/// functions taken out).
pub(super) fn case(
    category: Category,
    question: &Value,
    answer: Option<&Value>,
    docs: &dyn Fn(&str) -> Result<Vec<Value>, String>,
) -> Result<(Vec<Value>, Vec<ToolDefinition>, MultiTurn), String> {
    let turns: Vec<Vec<Message>> = serde_json::from_value(question["question"].clone())
        .map_err(|e| format!("expected `question`, a list of turns of messages: {e}"))?;
    let classes: Vec<String> = serde_json::from_value(question["involved_classes"].clone())
        .map_err(|e| format!("expected `involved_classes`, a list of class names: {e}"))?;
    let mut functions = Vec::new();
    for class in &classes {
        functions.extend(docs(class)?);
    }
    let mut held_out = BTreeMap::new();
    if let Some(missed) = question.get("missed_function") {
        let missed = missed
            .as_object()
            .ok_or("expected `missed_function` to map turns to function names")?;
        for (turn, names) in missed {
            let turn: usize = turn
                .parse()
                .map_err(|_| format!("`missed_function` names turn `{turn}`"))?;
            if turn >= turns.len() {
                return Err(format!(
                    "`missed_function` names turn {turn} of {}",
                    turns.len()
                ));
            }
            let mut docs = Vec::new();
            for name in names.as_array().into_iter().flatten() {
                if let Some(i) = functions.iter().position(|f| f["name"] == *name) {
                    docs.push(functions.remove(i));
                }
            }
            let tools = tool_definitions(&docs)?;
            held_out.insert(turn, (docs, tools));
        }
    }
    let language = Language::Python;
    let functions: Vec<Value> = functions.iter().map(|f| language.shown(f)).collect();
    let tools = tool_definitions(&functions)?;
    let ground_truth: Vec<Vec<String>> = match answer {
        Some(answer) => serde_json::from_value(answer["ground_truth"].clone()).map_err(|e| {
            format!("expected the possible answer's `ground_truth`, a list of turns of calls: {e}")
        })?,
        None => return Err("expected a possible answer".into()),
    };
    if ground_truth.len() != turns.len() {
        return Err(format!(
            "{} turns of ground truth for {} turns of questions",
            ground_truth.len(),
            turns.len()
        ));
    }
    let multi_turn = MultiTurn {
        turns,
        classes,
        initial_config: question
            .get("initial_config")
            .cloned()
            .unwrap_or(Value::Object(Default::default())),
        long_context: category == Category::MultiTurnLongContext,
        held_out,
        ground_truth,
    };
    Ok((functions, tools, multi_turn))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn docs(class: &str) -> Result<Vec<Value>, String> {
        let doc = |name: &str| {
            json!({"name": name, "description": format!("{name} it."),
                "parameters": {"type": "dict", "properties": {"file_name": {"type": "string", "description": "f"}}, "required": []}})
        };
        match class {
            "GorillaFileSystem" => Ok(vec![doc("cd"), doc("sort"), doc("tail")]),
            other => Err(format!("unknown tool class `{other}`")),
        }
    }

    fn question() -> Value {
        json!({"id": "multi_turn_miss_func_0",
            "question": [[{"role": "user", "content": "Sort it."}], []],
            "initial_config": {"GorillaFileSystem": {"root": {}}},
            "involved_classes": ["GorillaFileSystem"],
            "missed_function": {"1": ["sort"]}})
    }

    fn answer() -> Value {
        json!({"id": "multi_turn_miss_func_0", "ground_truth": [[], ["sort(file_name='a')"]]})
    }

    #[test]
    fn a_case_offers_its_classes_functions_and_holds_back_the_missed_ones() {
        let (q, a) = (question(), answer());
        let (functions, tools, multi) =
            case(Category::MultiTurnMissFunc, &q, Some(&a), &docs).unwrap();
        let names: Vec<&str> = tools.iter().map(|t| t.name()).collect();
        assert_eq!(names, ["cd", "tail"]);
        assert_eq!(
            functions[0]["description"],
            "cd it. Note that the provided function is in Python 3 syntax."
        );
        let (held_docs, held_tools) = &multi.held_out[&1];
        assert_eq!(held_tools[0].name(), "sort");
        // BFCL takes the missed functions out before it adds the hint, so
        // they arrive without it.
        assert_eq!(held_docs[0]["description"], "sort it.");
        assert_eq!(multi.ground_truth[1], ["sort(file_name='a')"]);
        assert!(!multi.long_context);
        let (_, _, long) = case(Category::MultiTurnLongContext, &q, Some(&a), &docs).unwrap();
        assert!(long.long_context);
    }

    #[test]
    fn malformed_lines_say_what_is_wrong() {
        let mut q = question();
        q["involved_classes"] = json!(["Nope"]);
        let e = case(Category::MultiTurnBase, &q, Some(&answer()), &docs).unwrap_err();
        assert!(e.contains("unknown tool class `Nope`"), "{e}");
        let mut q = question();
        q["missed_function"] = json!({"5": ["sort"]});
        let e = case(Category::MultiTurnBase, &q, Some(&answer()), &docs).unwrap_err();
        assert!(e.contains("turn 5 of 2"), "{e}");
        let mut a = answer();
        a["ground_truth"] = json!([[]]);
        let e = case(Category::MultiTurnBase, &question(), Some(&a), &docs).unwrap_err();
        assert!(e.contains("1 turns of ground truth for 2"), "{e}");
        let mut q = question();
        q["question"] = json!("Sort it.");
        let e = case(Category::MultiTurnBase, &q, Some(&answer()), &docs).unwrap_err();
        assert!(e.contains("expected `question`"), "{e}");
    }
}
