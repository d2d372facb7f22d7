//! BFCL's questions and possible answers, read from the installed
//! `bfcl-eval` package (never downloaded): where they are, and the cases
//! they make.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;
use tool_runtime::{Message, ToolDefinition};

use super::multi_turn::{self, MultiTurn};
use super::schema::tool_definitions;
use super::{Category, EvalError};

/// The environment variable naming BFCL's data folder (`bfcl_eval/data`).
pub const DATA_ENV: &str = "TOOL_USE_BFCL_DATA";

/// The package version the checker and the docs' numbers were made with.
pub const BFCL_PACKAGE: &str = "bfcl-eval==2026.3.23";

/// One question with its functions and possible answers.
#[derive(Debug, Clone, PartialEq)]
pub struct Case {
    /// BFCL's id (`simple_python_12`, `live_multiple_3-1-0`).
    pub id: String,
    /// Its category.
    pub category: Category,
    /// The conversation: BFCL's first (in single-turn categories, only) turn.
    pub messages: Vec<Message>,
    /// BFCL's function documents, each description with its language's
    /// hint, and the types as written: what its checker reads.
    pub functions: Vec<Value>,
    /// The functions as tool definitions for the model: as BFCL shows them
    /// ([`Language`](super::Language): in Java and JavaScript every
    /// parameter a string), converted as [`super::schema`] says, checked.
    pub tools: Vec<ToolDefinition>,
    /// The possible answers (`ground_truth`): one `{name: {param: [values]}}`
    /// per expected call; empty where the category has none, and in
    /// multi-turn ones (their ground truth is in `multi_turn`).
    pub answers: Vec<Value>,
    /// The later turns, the tool classes and the ground truth of a
    /// multi-turn case; `functions` and `tools` are those offered from the
    /// start.
    pub multi_turn: Option<MultiTurn>,
}

/// Which cases to load.
#[derive(Debug, Clone, Default)]
pub struct Selection {
    /// The categories, in order (all when empty).
    pub categories: Vec<Category>,
    /// At most this many cases of each category, the first ones.
    pub limit: Option<usize>,
    /// Only these ids (all when empty).
    pub ids: Vec<String>,
}

/// BFCL's data folder: `explicit`, else `$TOOL_USE_BFCL_DATA`, else the
/// installed package's, as the Python interpreter `$TOOL_USE_PYTHON` (or
/// `python3`) finds it.
///
/// # Errors
/// [`EvalError::NoData`], saying how to install the package, when none of
/// these is a folder holding BFCL's files.
pub fn find_data(explicit: Option<&Path>) -> Result<PathBuf, EvalError> {
    let check = |dir: PathBuf, from: &str| -> Result<PathBuf, EvalError> {
        if dir.join(Category::SimplePython.file_name()).is_file() {
            Ok(dir)
        } else {
            Err(EvalError::NoData(format!(
                "{from} names {}, which holds no {}",
                dir.display(),
                Category::SimplePython.file_name()
            )))
        }
    };
    if let Some(dir) = explicit {
        return check(dir.to_path_buf(), "--data");
    }
    if let Some(dir) = std::env::var_os(DATA_ENV).filter(|d| !d.is_empty()) {
        return check(PathBuf::from(dir), DATA_ENV);
    }
    let python = python();
    let script =
        "import bfcl_eval, os; print(os.path.join(os.path.dirname(bfcl_eval.__file__), 'data'))";
    let found = Command::new(&python)
        .args(["-c", script])
        .output()
        .ok()
        .filter(|out| out.status.success())
        .map(|out| String::from_utf8_lossy(&out.stdout).trim().to_owned());
    match found {
        Some(dir) if !dir.is_empty() => check(PathBuf::from(dir), &format!("{python}'s bfcl_eval")),
        _ => Err(EvalError::NoData(format!(
            "`{python}` cannot import bfcl_eval. Install BFCL's data with \
             `{python} -m pip install --no-deps {BFCL_PACKAGE} mpmath` (its questions, answers \
             and multi-turn tool classes are all the evaluation needs; mpmath is for its math \
             class), or pass --data DIR / set {DATA_ENV} to its bfcl_eval/data folder"
        ))),
    }
}

/// The Python interpreter BFCL's package is asked of: `$TOOL_USE_PYTHON`,
/// else `python3`.
pub(crate) fn python() -> String {
    std::env::var("TOOL_USE_PYTHON")
        .ok()
        .filter(|p| !p.is_empty())
        .unwrap_or_else(|| "python3".into())
}

/// The cases `selection` names, from the data folder `dir`.
///
/// # Errors
/// [`EvalError::Data`] for a file that is missing or not BFCL's format
/// (naming the file and line), [`EvalError::UnknownIds`] for ids no
/// selected category has.
pub fn load_cases(dir: &Path, selection: &Selection) -> Result<Vec<Case>, EvalError> {
    let categories = if selection.categories.is_empty() {
        Category::ALL.to_vec()
    } else {
        selection.categories.clone()
    };
    let mut cases = Vec::new();
    for category in categories {
        let mut these = load_category(dir, category)?;
        if !selection.ids.is_empty() {
            these.retain(|c| selection.ids.contains(&c.id));
        }
        if let Some(limit) = selection.limit {
            these.truncate(limit);
        }
        cases.extend(these);
    }
    let missing: Vec<&str> = selection
        .ids
        .iter()
        .filter(|id| !cases.iter().any(|c| &c.id == *id))
        .map(String::as_str)
        .collect();
    if !missing.is_empty() {
        return Err(EvalError::UnknownIds(missing.join(", ")));
    }
    Ok(cases)
}

/// Every case of `category`, its possible answers matched by line (as
/// BFCL's runner matches them).
pub fn load_category(dir: &Path, category: Category) -> Result<Vec<Case>, EvalError> {
    let questions = read_lines(&dir.join(category.file_name()))?;
    let answers = if category.has_answers() {
        let path = dir.join("possible_answer").join(category.file_name());
        let answers = read_lines(&path)?;
        if answers.len() != questions.len() {
            return Err(EvalError::Data {
                file: path.display().to_string(),
                line: answers.len().min(questions.len()) + 1,
                reason: format!(
                    "{} possible answers for {} questions",
                    answers.len(),
                    questions.len()
                ),
            });
        }
        answers
    } else {
        Vec::new()
    };
    let file = dir.join(category.file_name()).display().to_string();
    let docs = FunctionDocs::new(dir);
    questions
        .into_iter()
        .enumerate()
        .map(|(index, question)| {
            let answer = answers.get(index);
            let case = if category.is_multi_turn() {
                multi_turn_case(category, question, answer, &docs)
            } else {
                case(category, question, answer)
            };
            case.map_err(|reason| EvalError::Data {
                file: file.clone(),
                line: index + 1,
                reason,
            })
        })
        .collect()
}

/// BFCL's multi-turn function documents, read once per class
/// (`data/multi_turn_func_doc/`, as `MULTI_TURN_FUNC_DOC_FILE_MAPPING` names
/// the files).
struct FunctionDocs {
    dir: PathBuf,
    read: std::cell::RefCell<HashMap<String, Vec<Value>>>,
}

impl FunctionDocs {
    fn new(data: &Path) -> FunctionDocs {
        FunctionDocs {
            dir: data.join("multi_turn_func_doc"),
            read: Default::default(),
        }
    }

    /// The documents of `class`' functions.
    fn of(&self, class: &str) -> Result<Vec<Value>, String> {
        if let Some(docs) = self.read.borrow().get(class) {
            return Ok(docs.clone());
        }
        let file = match class {
            "GorillaFileSystem" => "gorilla_file_system.json",
            "MathAPI" => "math_api.json",
            "MessageAPI" => "message_api.json",
            "TwitterAPI" => "posting_api.json",
            "TicketAPI" => "ticket_api.json",
            "TradingBot" => "trading_bot.json",
            "TravelAPI" => "travel_booking.json",
            "VehicleControlAPI" => "vehicle_control.json",
            other => return Err(format!("unknown tool class `{other}`")),
        };
        let docs = read_lines(&self.dir.join(file)).map_err(|e| e.to_string())?;
        self.read
            .borrow_mut()
            .insert(class.to_owned(), docs.clone());
        Ok(docs)
    }
}

/// The question's id, checked against its possible answer's (answers pair
/// with questions by line).
fn paired_id(question: &Value, answer: Option<&Value>) -> Result<String, String> {
    let id = question["id"]
        .as_str()
        .ok_or("expected an `id` string")?
        .to_owned();
    match answer {
        Some(answer) if answer["id"] != question["id"] => Err(format!(
            "the possible answer on this line is for {}, not {id}",
            answer["id"]
        )),
        _ => Ok(id),
    }
}

/// A multi-turn case from its question and possible-answer lines.
fn multi_turn_case(
    category: Category,
    question: Value,
    answer: Option<&Value>,
    docs: &FunctionDocs,
) -> Result<Case, String> {
    let id = paired_id(&question, answer)?;
    let (functions, tools, multi_turn) =
        multi_turn::case(category, &question, answer, &|class| docs.of(class))?;
    Ok(Case {
        id,
        category,
        messages: multi_turn.turns.first().cloned().unwrap_or_default(),
        functions,
        tools,
        answers: Vec::new(),
        multi_turn: Some(multi_turn),
    })
}

/// The JSON objects of a JSON-lines file.
fn read_lines(path: &Path) -> Result<Vec<Value>, EvalError> {
    let text = std::fs::read_to_string(path).map_err(|e| EvalError::Data {
        file: path.display().to_string(),
        line: 0,
        reason: format!("cannot read it: {e}"),
    })?;
    text.lines()
        .enumerate()
        .filter(|(_, line)| !line.trim().is_empty())
        .map(|(index, line)| {
            serde_json::from_str(line).map_err(|e| EvalError::Data {
                file: path.display().to_string(),
                line: index + 1,
                reason: format!("not JSON: {e}"),
            })
        })
        .collect()
}

/// One case from its question line and possible-answer line.
fn case(category: Category, question: Value, answer: Option<&Value>) -> Result<Case, String> {
    let id = paired_id(&question, answer)?;
    let turns = question["question"]
        .as_array()
        .ok_or("expected `question`, a list of turns")?;
    let [turn] = turns.as_slice() else {
        return Err(format!(
            "expected one turn in `question`, found {}",
            turns.len()
        ));
    };
    let messages: Vec<Message> =
        serde_json::from_value(turn.clone()).map_err(|e| format!("`question`'s messages: {e}"))?;
    let mut functions = question["function"]
        .as_array()
        .ok_or("expected `function`, a list of function documents")?
        .clone();
    let language = category.language();
    let mut shown = Vec::with_capacity(functions.len());
    for function in &mut functions {
        let description = function
            .get("description")
            .and_then(Value::as_str)
            .ok_or("expected every function to have a `description` string")?;
        if !function["parameters"]["properties"].is_object() {
            return Err(format!(
                "function `{}` has no `parameters.properties` object",
                function["name"]
            ));
        }
        shown.push(language.shown(function));
        function["description"] = Value::from(format!("{description}{}", language.hint()));
    }
    let answers = match answer {
        None => Vec::new(),
        Some(answer) => answer["ground_truth"]
            .as_array()
            .ok_or("expected the possible answer's `ground_truth` list")?
            .clone(),
    };
    let tools = tool_definitions(&shown)?;
    Ok(Case {
        id,
        category,
        messages,
        tools,
        functions,
        answers,
        multi_turn: None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_case_gets_bfcls_hint_and_tool_definitions() {
        let question = json!({"id": "simple_python_0", "question": [[{"role": "user", "content": "Area?"}]],
            "function": [{"name": "math.area", "description": "Area.", "parameters": {"type": "dict", "properties": {"r": {"type": "float", "description": "r"}}, "required": ["r"]}}]});
        let answer =
            json!({"id": "simple_python_0", "ground_truth": [{"math.area": {"r": [1.0]}}]});
        let case = case(Category::SimplePython, question, Some(&answer)).unwrap();
        assert_eq!(case.messages, [Message::user("Area?")]);
        assert_eq!(
            case.functions[0]["description"],
            "Area. Note that the provided function is in Python 3 syntax."
        );
        assert_eq!(
            case.functions[0]["parameters"]["properties"]["r"]["type"],
            "float"
        );
        assert_eq!(case.tools[0]["function"]["name"], "math_area");
        assert_eq!(case.answers.len(), 1);
    }

    #[test]
    fn malformed_lines_say_what_is_wrong() {
        let two_turns = json!({"id": "x_1", "question": [[], []], "function": []});
        let e = case(Category::SimplePython, two_turns, None).unwrap_err();
        assert!(e.contains("found 2"), "{e}");
        let question = json!({"id": "simple_python_0", "question": [[{"role": "user", "content": "?"}]], "function": []});
        let e = case(
            Category::SimplePython,
            question,
            Some(&json!({"id": "simple_python_1", "ground_truth": []})),
        )
        .unwrap_err();
        assert!(e.contains("simple_python_1"), "{e}");
    }

    #[test]
    fn missing_data_says_how_to_install_it() {
        let dir = tempfile::tempdir().unwrap();
        let e = find_data(Some(dir.path())).unwrap_err().to_string();
        assert!(e.contains("BFCL_v4_simple_python.json"), "{e}");
    }
}
