//! BFCL's AST checker and relevance rules, rule for rule
//! (`ast_checker.py` and `eval_runner.py` of `bfcl-eval`), so a verdict here
//! is the leaderboard's verdict. Where BFCL's checker would raise on odd
//! data (a malformed possible answer), this one returns an invalid verdict
//! with the reason instead. Error types are BFCL's strings.

use serde::Serialize;
use serde_json::{Map, Value};

use super::category::Check;
use super::decoded::Decoded;
use super::language::{Expected, Language};
use super::python::{self, contains, eq, repr, standardize, standardized, PyType};
use super::schema::tool_name;
use super::Case;

/// The checker's verdict on one answer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Verdict {
    /// Whether the answer is right.
    pub valid: bool,
    /// BFCL's error type (`simple_function_checker:missing_required`…)
    /// when it is not.
    pub error_type: Option<String>,
    /// What was wrong, in BFCL's words.
    pub errors: Vec<String>,
}

impl Verdict {
    fn valid() -> Verdict {
        Verdict {
            valid: true,
            error_type: None,
            errors: Vec::new(),
        }
    }

    fn invalid(error_type: &str, error: impl Into<String>) -> Verdict {
        Verdict {
            valid: false,
            error_type: Some(error_type.to_owned()),
            errors: vec![error.into()],
        }
    }
}

/// Judges `decoded` as BFCL judges an answer to `case`. A multi-turn
/// case has no single answer: it is judged by
/// [`MultiTurnChecker`](super::MultiTurnChecker), and here always wrong.
pub fn check(case: &Case, decoded: &Decoded) -> Verdict {
    match case.category.check() {
        Check::NoCall | Check::AnyCall => relevance(case.category.check(), decoded),
        Check::MultiTurn => Verdict::invalid(
            "multi_turn:not_one_answer",
            "A multi-turn case is judged turn by turn, by the state and results its calls leave.",
        ),
        check => match decoded {
            Decoded::Failed(why) => Verdict::invalid(
                "ast_decoder:decoder_failed",
                format!("Invalid syntax. Failed to decode AST. {why}"),
            ),
            Decoded::Calls(calls) if !well_formed(calls) => Verdict::invalid(
                "ast_decoder:decoder_wrong_output_format",
                "Did not output in the specified format.",
            ),
            Decoded::Calls(calls) => {
                let language = case.category.language();
                ast(check, language, &case.functions, calls, &case.answers)
            }
        },
    }
}

/// BFCL's `is_function_calling_format_output`: every item `{name: {args}}`.
fn well_formed(calls: &[Value]) -> bool {
    calls.iter().all(|item| {
        item.as_object()
            .is_some_and(|o| o.len() == 1 && o.values().all(Value::is_object))
    })
}

/// Irrelevance (no call) and relevance (some call); BFCL's
/// `is_empty_output` decides what is no call.
fn relevance(check: Check, decoded: &Decoded) -> Verdict {
    let called = match decoded {
        Decoded::Failed(_) => false,
        Decoded::Calls(calls) => well_formed(calls) && !calls.is_empty(),
    };
    match (check, called) {
        (Check::NoCall, false) | (Check::AnyCall, true) => Verdict::valid(),
        (Check::NoCall, true) => Verdict::invalid(
            "irrelevance_error:decoder_success",
            "Valid syntax. Successfully decode AST when it should not.",
        ),
        _ => Verdict::invalid(
            "relevance_error:decoder_failed",
            "Invalid syntax. Failed to decode AST when it should have.",
        ),
    }
}

/// `ast_checker`: the calls against the possible answers.
fn ast(
    check: Check,
    language: Language,
    functions: &[Value],
    calls: &[Value],
    answers: &[Value],
) -> Verdict {
    match check {
        Check::Parallel => parallel(language, functions, calls, answers),
        Check::Multiple => {
            if calls.len() != answers.len() {
                return Verdict::invalid(
                    "multiple_function_checker:wrong_count",
                    "Wrong number of functions.",
                );
            }
            let Some(expected) = answers.first().and_then(answer_name) else {
                return Verdict::invalid(
                    "multiple_function_checker:wrong_count",
                    "No possible answer.",
                );
            };
            match find_function(functions, expected) {
                Some(function) => simple(language, function, &calls[0], &answers[0]),
                None => missing_function(expected),
            }
        }
        _ => {
            if calls.len() != 1 {
                return Verdict::invalid(
                    "simple_function_checker:wrong_count",
                    "Wrong number of functions.",
                );
            }
            match (functions.first(), answers.first()) {
                (Some(function), Some(answer)) => simple(language, function, &calls[0], answer),
                _ => missing_function("the first function"),
            }
        }
    }
}

/// The function name of a possible answer `{name: {...}}`.
fn answer_name(answer: &Value) -> Option<&str> {
    answer.as_object()?.keys().next().map(String::as_str)
}

fn find_function<'a>(functions: &'a [Value], name: &str) -> Option<&'a Value> {
    functions.iter().find(|f| f["name"] == name)
}

/// Where BFCL's checker would raise: the case's data is inconsistent.
fn missing_function(name: &str) -> Verdict {
    Verdict::invalid(
        "checker:bad_possible_answer",
        format!("The possible answer names {name}, which no offered function is."),
    )
}

/// `parallel_function_checker_no_order`: each possible answer, in order,
/// takes the first unmatched call that fits it (greedy, as BFCL's).
fn parallel(
    language: Language,
    functions: &[Value],
    calls: &[Value],
    answers: &[Value],
) -> Verdict {
    if calls.len() != answers.len() {
        return Verdict::invalid(
            "parallel_function_checker_no_order:wrong_count",
            "Wrong number of functions.",
        );
    }
    let mut matched = vec![false; calls.len()];
    for (i, answer) in answers.iter().enumerate() {
        let Some(expected) = answer_name(answer) else {
            return missing_function("nothing");
        };
        let Some(function) = find_function(functions, expected) else {
            return missing_function(expected);
        };
        let mut errors = Vec::new();
        let found = (0..calls.len()).filter(|&j| !matched[j]).find(|&j| {
            let verdict = simple(language, function, &calls[j], answer);
            if !verdict.valid {
                errors.push(format!(
                    "Model Result Index {j}: {}",
                    verdict.errors.join(" ")
                ));
            }
            verdict.valid
        });
        match found {
            Some(j) => matched[j] = true,
            None => {
                let left: Vec<String> = (0..calls.len())
                    .filter(|&j| !matched[j])
                    .map(|j| j.to_string())
                    .collect();
                errors.insert(
                    0,
                    format!(
                        "Could not find a matching function among index [{}] of model output for index {i} of possible answers.",
                        left.join(", ")
                    ),
                );
                return Verdict {
                    valid: false,
                    error_type: Some("parallel_function_checker_no_order:cannot_find_match".into()),
                    errors,
                };
            }
        }
    }
    Verdict::valid()
}

/// `simple_function_checker`: one call against one possible answer.
fn simple(language: Language, function: &Value, call: &Value, answer: &Value) -> Verdict {
    let Some(possible) = answer
        .as_object()
        .and_then(|a| a.values().next())
        .and_then(Value::as_object)
    else {
        return Verdict::invalid(
            "checker:bad_possible_answer",
            format!("Unreadable possible answer {answer}."),
        );
    };
    let name = tool_name(function["name"].as_str().unwrap_or_default());
    let empty = Map::new();
    let properties = function["parameters"]["properties"]
        .as_object()
        .unwrap_or(&empty);
    let required = function["parameters"]["required"]
        .as_array()
        .map_or(&[][..], Vec::as_slice);

    let Some(args) = call.get(&name).and_then(Value::as_object) else {
        return Verdict::invalid(
            "simple_function_checker:wrong_func_name",
            format!(
                "Function name {} not found in model output.",
                python::str_repr(&name)
            ),
        );
    };
    for param in required.iter().filter_map(Value::as_str) {
        if !args.contains_key(param) {
            return Verdict::invalid(
                "simple_function_checker:missing_required",
                format!("Missing required parameter: {}.", python::str_repr(param)),
            );
        }
    }
    for (param, value) in args {
        let (Some(details), Some(allowed)) = (properties.get(param), possible.get(param)) else {
            return Verdict::invalid(
                "simple_function_checker:unexpected_param",
                format!("Unexpected parameter: {}.", python::str_repr(param)),
            );
        };
        let allowed = allowed.as_array().map_or(&[][..], Vec::as_slice);
        let description = details["type"].as_str().unwrap_or_default();
        let Expected {
            expected,
            nested,
            value,
        } = match language.expect(param, value, description, details) {
            Ok(expected) => expected,
            Err(refused) => return Verdict::invalid(&refused.error_type, refused.error),
        };
        let typed = type_check(param, &value, allowed, description, expected, nested);
        if !typed.valid {
            return typed.verdict;
        }
        if !typed.is_variable {
            let verdict = match (expected, nested) {
                (PyType::Dict, _) => Some(dict_check(&value, allowed)),
                (PyType::List, Some(PyType::Dict)) => Some(list_dict_check(&value, allowed)),
                (PyType::Str, _) => Some(string_check(param, &value, allowed)),
                (PyType::List, _) => Some(list_check(param, &value, allowed)),
                _ => None,
            };
            match verdict {
                Some(v) if !v.valid => return v,
                Some(_) => continue,
                None => {}
            }
        }
        if !contains(allowed, &value) {
            return Verdict::invalid("value_error:others", not_among(param, &value, allowed));
        }
    }
    for (param, allowed) in possible {
        if !args.contains_key(param) && !may_be_absent(allowed) {
            return Verdict::invalid(
                "simple_function_checker:missing_optional",
                format!(
                    "Optional parameter {} not provided and not marked as optional.",
                    python::str_repr(param)
                ),
            );
        }
    }
    Verdict::valid()
}

/// What `type_checker` returns.
struct Typed {
    valid: bool,
    is_variable: bool,
    verdict: Verdict,
}

/// The type of the first possible answer that is not `""` (the marker of
/// an optional parameter): BFCL reads a value of another type than the
/// parameter's as a variable's name.
fn answer_type(allowed: &[Value]) -> Option<PyType> {
    allowed
        .iter()
        .find(|a| a.as_str() != Some(""))
        .map(PyType::of)
}

/// `type_checker`, including its quirks: a failed nested check falls
/// through to the variable check, and only one level is checked.
fn type_check(
    param: &str,
    value: &Value,
    allowed: &[Value],
    description: &str,
    expected: PyType,
    nested: Option<PyType>,
) -> Typed {
    let mut errors = Vec::new();
    let mut error_type = "type_error:simple";
    let mut valid = true;
    let answer_type = answer_type(allowed);
    let is_variable = answer_type.is_some_and(|t| t != expected);
    if PyType::of(value) == expected {
        let Some(nested) = nested else {
            return Typed {
                valid: true,
                is_variable,
                verdict: Verdict::valid(),
            };
        };
        let items = value.as_array().map_or(&[][..], Vec::as_slice);
        for possible in allowed {
            let fits = match possible.as_array() {
                Some(possible) => items.iter().all(|item| {
                    type_check(param, item, possible, &nested.class_repr(), nested, None).valid
                }),
                None => true,
            };
            if fits {
                return Typed {
                    valid: true,
                    is_variable,
                    verdict: Verdict::valid(),
                };
            }
        }
        valid = false;
        errors.push(format!(
            "Nested type checking failed for parameter {}. Expected outer type {description} with inner type {}. Parameter value: {}.",
            python::str_repr(param),
            nested.class_repr(),
            repr(value)
        ));
        error_type = "type_error:nested";
    }
    if answer_type == Some(PyType::of(value)) {
        return Typed {
            valid,
            is_variable: true,
            verdict: Verdict {
                valid,
                error_type: (!valid).then(|| error_type.to_owned()),
                errors,
            },
        };
    }
    errors.push(format!(
        "Incorrect type for parameter {}. Expected type {description}, got {}. Parameter value: {}.",
        python::str_repr(param),
        PyType::of(value).name(),
        repr(value)
    ));
    Typed {
        valid: false,
        is_variable,
        verdict: Verdict {
            valid: false,
            error_type: Some("type_error:simple".into()),
            errors,
        },
    }
}

/// BFCL's message for a value that is none of the possible ones.
fn not_among(param: &str, value: &Value, allowed: &[Value]) -> String {
    format!(
        "Invalid value for parameter {}: {}. Expected one of {}.",
        python::str_repr(param),
        repr(value),
        repr(&Value::Array(allowed.to_vec()))
    )
}

/// `string_checker`: the standardised string among the standardised
/// string answers.
fn string_check(param: &str, value: &Value, allowed: &[Value]) -> Verdict {
    let given = standardize(value.as_str().unwrap_or_default());
    if allowed
        .iter()
        .filter_map(Value::as_str)
        .any(|a| standardize(a) == given)
    {
        return Verdict::valid();
    }
    let message = not_among(param, value, allowed);
    Verdict::invalid("value_error:string", format!("{message} Case insensitive."))
}

/// Python's `"" in options`: whether the possible values include `""`, the
/// marker of a parameter that may be left out (for a string, a substring
/// test, which `""` always passes).
fn may_be_absent(options: &Value) -> bool {
    match options {
        Value::Array(items) => contains(items, &Value::from("")),
        Value::String(_) => true,
        _ => false,
    }
}

/// The items of a possible answer as Python iterates them: a list's items,
/// a string's characters (BFCL iterates `""`, its optional marker, to nothing).
fn iterate(value: &Value) -> Vec<Value> {
    match value {
        Value::Array(items) => items.clone(),
        Value::String(s) => s.chars().map(|c| Value::String(c.to_string())).collect(),
        _ => Vec::new(),
    }
}

/// `list_checker`: the list, strings standardised, equal to one of the
/// answers, order included.
fn list_check(param: &str, value: &Value, allowed: &[Value]) -> Verdict {
    let given = Value::Array(iterate(value).iter().map(standardized).collect());
    let fits = allowed.iter().any(|a| {
        eq(
            &Value::Array(iterate(a).iter().map(standardized).collect()),
            &given,
        )
    });
    if fits {
        return Verdict::valid();
    }
    Verdict::invalid("value_error:list/tuple", not_among(param, value, allowed))
}

/// `dict_checker`: the dict against each possible dict in turn; the last
/// one's complaint is the verdict when none fits.
fn dict_check(value: &Value, allowed: &[Value]) -> Verdict {
    let empty = Map::new();
    let given = value.as_object().unwrap_or(&empty);
    let mut verdict = Verdict {
        valid: false,
        error_type: Some("dict_checker:unclear".into()),
        errors: Vec::new(),
    };
    for possible in allowed {
        if possible.as_str() == Some("") {
            continue;
        }
        match dict_problem(given, possible.as_object().unwrap_or(&empty)) {
            None => return Verdict::valid(),
            Some(problem) => verdict = problem,
        }
    }
    verdict
}

/// What is wrong with `given` against one possible dict: its first key
/// that is not one of the possible dict's or whose value is not among its
/// values; but a missing key, which BFCL checks after those, wins.
fn dict_problem(given: &Map<String, Value>, possible: &Map<String, Value>) -> Option<Verdict> {
    let wrong = given.iter().find_map(|(key, v)| {
        let Some(options) = possible.get(key) else {
            let why = format!("Unexpected dict key parameter: '{key}'.");
            return Some(Verdict::invalid("value_error:dict_key", why));
        };
        let options: Vec<Value> = iterate(options).iter().map(standardized).collect();
        (!contains(&options, &standardized(v)))
            .then(|| Verdict::invalid("value_error:dict_value", not_among(key, v, &options)))
    });
    let missing = possible
        .iter()
        .find(|(key, options)| !given.contains_key(*key) && !may_be_absent(options))
        .map(|(key, _)| {
            let why = format!("Missing dict key parameter: '{key}'.");
            Verdict::invalid("value_error:dict_key", why)
        });
    missing.or(wrong)
}

/// `list_dict_checker`: the list of dicts against each possible list, item
/// by item in order.
fn list_dict_check(value: &Value, allowed: &[Value]) -> Verdict {
    let given = value.as_array().map_or(&[][..], Vec::as_slice);
    let mut verdict = Verdict {
        valid: false,
        error_type: Some("list_dict_checker:unclear".into()),
        errors: Vec::new(),
    };
    for possible in allowed {
        let possible = iterate(possible);
        if given.len() != possible.len() {
            verdict = Verdict::invalid(
                "value_error:list_dict_count",
                "Wrong number of dictionaries in the list.",
            );
            continue;
        }
        let mut fits = true;
        for (item, expected) in given.iter().zip(&possible) {
            verdict = dict_check(item, std::slice::from_ref(expected));
            if !verdict.valid {
                fits = false;
                break;
            }
        }
        if fits {
            return Verdict::valid();
        }
    }
    verdict
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::Category;
    use crate::parse::ParsedResponse;
    use serde_json::json;
    use tool_runtime::ToolCall;

    /// A case offering `math.area(base: float, unit: string = "units",
    /// tags: array of string)`, expecting `base` 10 and `unit` "cm" or
    /// nothing.
    fn case(category: Category, answers: Vec<Value>) -> Case {
        let function = json!({"name": "math.area", "description": "Area.", "parameters": {"type": "dict",
            "properties": {
                "base": {"type": "float", "description": "b"},
                "unit": {"type": "string", "description": "u"},
                "tags": {"type": "array", "items": {"type": "string"}, "description": "t"}
            }, "required": ["base"]}});
        Case {
            id: format!("{category}_0"),
            category,
            messages: Vec::new(),
            tools: vec![tool_runtime::ToolDefinition::from_json(
                &crate::eval::schema::tool_definition(&function),
            )
            .unwrap()],
            functions: vec![function],
            answers,
            multi_turn: None,
        }
    }

    fn answer(base: f64) -> Value {
        json!({"math.area": {"base": [base], "unit": ["cm", ""], "tags": [["Red Sky", "x"], ""]}})
    }

    fn calls(calls: Value) -> Decoded {
        Decoded::Calls(calls.as_array().unwrap().clone())
    }

    fn error_type(case: &Case, decoded: Value) -> Option<String> {
        check(case, &calls(decoded)).error_type
    }

    #[test]
    fn a_right_call_passes_under_python_rules() {
        let simple = case(Category::SimplePython, vec![answer(10.0)]);
        // The name with its dot made an underscore, an int for a float,
        // strings compared without case, spaces or punctuation.
        let verdict = check(
            &simple,
            &calls(json!([{"math_area": {"base": 10, "unit": "CM.", "tags": ["red-sky", "X"]}}])),
        );
        assert_eq!(verdict, Verdict::valid());
        assert_eq!(
            error_type(&simple, json!([{"math_area": {"base": 10.0}}])),
            None,
            "optional ones may be left out"
        );
    }

    #[test]
    fn each_mistake_gets_bfcls_error_type() {
        let simple = case(Category::SimplePython, vec![answer(10.0)]);
        for (output, expected) in [
            (
                json!([{"math.area": {"base": 10}}]),
                "simple_function_checker:wrong_func_name",
            ),
            (
                json!([{"math_area": {"unit": "cm"}}]),
                "simple_function_checker:missing_required",
            ),
            (
                json!([{"math_area": {"base": 10, "size": 1}}]),
                "simple_function_checker:unexpected_param",
            ),
            (json!([{"math_area": {"base": "10"}}]), "type_error:simple"),
            (json!([{"math_area": {"base": true}}]), "type_error:simple"),
            (
                json!([{"math_area": {"base": 10, "tags": "x"}}]),
                "type_error:simple",
            ),
            (json!([{"math_area": {"base": 11}}]), "value_error:others"),
            (
                json!([{"math_area": {"base": 10, "unit": "mm"}}]),
                "value_error:string",
            ),
            (
                json!([{"math_area": {"base": 10, "tags": ["x", "red sky"]}}]),
                "value_error:list/tuple",
            ),
            (
                json!([{"math_area": {"base": 10}}, {"math_area": {"base": 10}}]),
                "simple_function_checker:wrong_count",
            ),
            (
                json!([{"math_area": [10]}]),
                "ast_decoder:decoder_wrong_output_format",
            ),
        ] {
            assert_eq!(
                error_type(&simple, output.clone()).as_deref(),
                Some(expected),
                "{output}"
            );
        }
        let failed = check(&simple, &Decoded::Failed("no call".into()));
        assert_eq!(
            failed.error_type.as_deref(),
            Some("ast_decoder:decoder_failed")
        );
    }

    #[test]
    fn parallel_calls_match_in_any_order_but_each_once() {
        let parallel = case(Category::Parallel, vec![answer(10.0), answer(20.0)]);
        let both = json!([{"math_area": {"base": 20}}, {"math_area": {"base": 10}}]);
        assert_eq!(error_type(&parallel, both), None);
        let twice = json!([{"math_area": {"base": 10}}, {"math_area": {"base": 10}}]);
        assert_eq!(
            error_type(&parallel, twice).as_deref(),
            Some("parallel_function_checker_no_order:cannot_find_match")
        );
        let one = json!([{"math_area": {"base": 10}}]);
        assert_eq!(
            error_type(&parallel, one).as_deref(),
            Some("parallel_function_checker_no_order:wrong_count")
        );
    }

    #[test]
    fn relevance_is_about_whether_there_is_a_call() {
        let irrelevance = case(Category::Irrelevance, Vec::new());
        let relevance = case(Category::LiveRelevance, Vec::new());
        let any_call = json!([{"anything": {"x": 1}}]);
        assert!(check(&irrelevance, &Decoded::Failed("text".into())).valid);
        assert!(check(&irrelevance, &calls(json!([]))).valid);
        assert_eq!(
            error_type(&irrelevance, any_call.clone()).as_deref(),
            Some("irrelevance_error:decoder_success")
        );
        assert!(check(&relevance, &calls(any_call)).valid);
        assert_eq!(
            check(&relevance, &Decoded::Failed("text".into()))
                .error_type
                .as_deref(),
            Some("relevance_error:decoder_failed")
        );
    }

    #[test]
    fn parsed_answers_decode_as_bfcl_reads_a_tool_api() {
        let call = ToolCall::new("1", "f", json!({"x": 1}));
        let parsed = ParsedResponse {
            content: Some("Sure.".into()),
            tool_calls: vec![call.clone()],
            ..ParsedResponse::default()
        };
        assert_eq!(
            Decoded::from_parsed(&parsed),
            Decoded::Calls(vec![json!({"f": {"x": 1}})])
        );
        let text = ParsedResponse {
            content: Some("No tool fits.".into()),
            ..ParsedResponse::default()
        };
        assert!(
            matches!(Decoded::from_parsed(&text), Decoded::Failed(why) if why.contains("No tool fits."))
        );
        let not_json = ToolCall::new("1", "f", json!("{x: 1"));
        assert!(matches!(
            Decoded::from_calls(&[not_json]),
            Decoded::Failed(_)
        ));
    }
}
