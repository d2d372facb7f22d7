//! BFCL's multi-turn verdict (`_evaluate_single_multi_turn_entry` and
//! `multi_turn_checker`), rule for rule: the model's calls and the ground
//! truth's are replayed, turn by turn, on fresh instances of BFCL's tool
//! classes, and after every turn whose ground truth calls something
//!
//! - the model must have called something in that turn;
//! - every instance's public attributes must equal the ground truth's;
//! - every result of the ground truth's calls in that turn must be among
//!   the results of the model's calls so far, in any order, each used once.
//!
//! A turn whose ground truth is empty is not judged (BFCL's runner does not
//! call its `multi_turn_irrelevance_checker`), but the model's calls in it
//! still run, so what they change is judged at the next turn.

use super::checker::Verdict;
use super::multi_turn::MultiTurn;
use super::tool_classes::{Side, State, ToolClasses};
use super::{Case, EvalError};

/// BFCL's multi-turn checker, on a process of BFCL's tool classes kept
/// for all the cases it judges.
pub struct MultiTurnChecker {
    classes: ToolClasses,
}

impl MultiTurnChecker {
    /// Starts the tool classes' process.
    ///
    /// # Errors
    /// [`EvalError::ToolClasses`] when Python cannot start.
    pub fn start() -> Result<MultiTurnChecker, EvalError> {
        let classes = ToolClasses::start(None).map_err(EvalError::ToolClasses)?;
        Ok(MultiTurnChecker { classes })
    }

    /// BFCL's verdict on a multi-turn case whose conversation made `turns`
    /// (per turn, per step, the calls as BFCL writes them for execution,
    /// as [`TurnLog::calls`](super::TurnLog::calls) gives them).
    ///
    /// # Errors
    /// [`EvalError::ToolClasses`] when the case is not multi-turn or the
    /// classes fail (the process is started again for the next case).
    pub fn check(&mut self, case: &Case, turns: &[Vec<Vec<String>>]) -> Result<Verdict, EvalError> {
        let multi_turn = case.multi_turn.as_ref().ok_or_else(|| {
            EvalError::ToolClasses(format!(
                "{} is not a multi-turn case: BFCL's tool classes judge only those",
                case.id
            ))
        })?;
        if !self.classes.alive() {
            self.classes = ToolClasses::start(None).map_err(EvalError::ToolClasses)?;
        }
        check(&case.id, multi_turn, turns, &mut self.classes).map_err(EvalError::ToolClasses)
    }
}

/// Whether BFCL's tool classes for `cases` load: Python starts, imports
/// `bfcl_eval` and each class the multi-turn cases use.
///
/// # Errors
/// [`EvalError::ToolClasses`] saying what failed.
pub fn check_tool_classes(cases: &[Case]) -> Result<(), EvalError> {
    let mut classes: Vec<&str> = cases
        .iter()
        .filter_map(|c| c.multi_turn.as_ref())
        .flat_map(|m| m.classes.iter().map(String::as_str))
        .collect();
    if classes.is_empty() {
        return Ok(());
    }
    classes.sort_unstable();
    classes.dedup();
    let mut process = ToolClasses::start(None).map_err(EvalError::ToolClasses)?;
    process.import(&classes).map_err(|e| {
        EvalError::ToolClasses(format!(
            "{e}. Multi-turn runs BFCL's tool classes with `{}`: install `{}` and `mpmath` there",
            super::data::python(),
            super::BFCL_PACKAGE
        ))
    })
}

/// The verdict on a conversation whose turns made `turns` (per turn, per
/// step, the calls as written for execution).
///
/// # Errors
/// The tool classes' failure (a dead or hung process).
pub(crate) fn check(
    id: &str,
    case: &MultiTurn,
    turns: &[Vec<Vec<String>>],
    classes: &mut ToolClasses,
) -> Result<Verdict, String> {
    let expected = &case.ground_truth;
    if turns.len() != expected.len() {
        return Ok(wrong(
            "multi_turn:force_terminated",
            vec![format!(
                "Model was force-terminated during inference phase. The length of the model result turns ({}) does not match the length of the ground truth turns ({}).",
                turns.len(),
                expected.len()
            )],
        ));
    }
    classes.begin(id, case)?;
    let mut all_results: Vec<String> = Vec::new();
    for (index, (steps, truth)) in turns.iter().zip(expected).enumerate() {
        // BFCL's decoder drops steps without a call.
        let steps: Vec<&Vec<String>> = steps.iter().filter(|s| !s.is_empty()).collect();
        for step in &steps {
            all_results.extend(classes.run(Side::Model, step)?);
        }
        let truth_results = classes.run(Side::Truth, truth)?;
        if truth.is_empty() {
            continue;
        }
        if steps.is_empty() {
            return Ok(wrong(
                "multi_turn:empty_turn_model_response",
                vec![format!("Model response list is empty for turn {index}")],
            ));
        }
        if let State::Differs { class, differences } = classes.compare(Side::Model, Side::Truth)? {
            let mut errors = vec![format!(
                "Model instance for {class} does not match the state with ground truth instance."
            )];
            errors.extend(differences);
            return Ok(wrong("multi_turn:instance_state_mismatch", errors));
        }
        let missing = missing(&truth_results, &all_results);
        if !missing.is_empty() {
            let mut errors = vec![format!(
                "Model response execution results so far does not contain all the ground truth response execution results for turn {index}."
            )];
            errors.extend(missing.into_iter().map(|m| format!("missing: {m}")));
            return Ok(wrong("multi_turn:execution_response_mismatch", errors));
        }
    }
    Ok(Verdict {
        valid: true,
        error_type: None,
        errors: Vec::new(),
    })
}

fn wrong(error_type: &str, errors: Vec<String>) -> Verdict {
    Verdict {
        valid: false,
        error_type: Some(error_type.to_owned()),
        errors,
    }
}

/// The items of `expected` not found in `found`, each found item used
/// once (`_is_subsequence_unordered`).
fn missing(expected: &[String], found: &[String]) -> Vec<String> {
    let mut left: Vec<&String> = found.iter().collect();
    let mut missing = Vec::new();
    for item in expected {
        match left.iter().position(|f| *f == item) {
            Some(i) => {
                left.remove(i);
            }
            None => missing.push(item.clone()),
        }
    }
    missing
}

#[cfg(test)]
mod tests {
    use super::missing;

    #[test]
    fn each_result_is_used_once_in_any_order() {
        let s = |v: &[&str]| v.iter().map(|x| x.to_string()).collect::<Vec<_>>();
        assert!(missing(&s(&["a", "b"]), &s(&["b", "x", "a"])).is_empty());
        assert_eq!(missing(&s(&["a", "a"]), &s(&["a"])), s(&["a"]));
        assert_eq!(missing(&s(&["c"]), &s(&[])), s(&["c"]));
    }
}
