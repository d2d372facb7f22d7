//! `tool-train eval`: how well a model calls tools, on the corpus's held-out
//! split (other seed, values and phrasings than training).
//!
//! Every assistant turn of every conversation is generated greedily from the
//! conversation before it, with and without constrained decoding, and scored:
//! right tools, exact arguments, calls that parse and validate, no call where
//! none is due, and answers that contain the tool results they report; and,
//! by kind of value (place names, numbers, enums, …), how many arguments of
//! the right tools were right. Exact calls, no call on a request and the
//! arguments right are also split by whether the request's cue words (its
//! words besides the values the calls copy) all occur in some training
//! request: a word the corpus never shows ("titled", "middle value", "wake
//! me up") is one no amount of training on it can teach.

use std::collections::BTreeMap;
use std::path::PathBuf;

use serde::Serialize;
use serde_json::{json, Value};
use tool_train::corpus::{self, Split, Vocabulary};
use tool_use::generate::GenerateOptions;
use tool_use::model::Model;
use tool_use::parse::{Format, ParseOptions};
use tool_use::runtime::validate::{validate_arguments, Policy};
use tool_use::runtime::ToolDefinition;
use tool_use::template::Clock;
use tool_use::ToolChoice;
use tool_use::{
    chat::{ChatModel, TurnRequest},
    local::LocalChat,
};
use tool_use::{Role, ToolCall, Toolbox};

/// The training conversations per practice whose requests make the
/// vocabulary `eval` splits call turns by: enough that a request of the
/// training split lacks one of its words about once in 150.
const VOCABULARY_CONVERSATIONS: usize = 3_000;
/// The seed they are drawn from (any other than the held-out split's).
const VOCABULARY_SEED: u64 = 77;

/// Arguments of `tool-train eval`.
#[derive(clap::Args)]
pub struct EvalArgs {
    /// A model directory or `.gguf` (default: the bundled model).
    #[arg(long)]
    model: Option<PathBuf>,
    /// Held-out conversations to score.
    #[arg(long, default_value_t = 100)]
    examples: usize,
    /// Conversations of the extended held-out split scored after them, ten
    /// per case by default (greetings, creative writing, units named in other
    /// words, conversions both ways, numbers of many digits, ...).
    #[arg(long, default_value_t = 10 * corpus::Case::ALL.len())]
    cases: usize,
    /// Held-out conversations with tools made up on the spot (no corpus
    /// tool), scored apart after the others: whether the model reads a
    /// schema it has never seen.
    #[arg(long, default_value_t = 0)]
    schemas: usize,
    /// Seed of the held-out conversations.
    #[arg(long, default_value_t = 1001)]
    seed: u64,
    /// The most tokens per turn.
    #[arg(long, default_value_t = 160)]
    max_tokens: usize,
    /// Print the scores as one JSON object.
    #[arg(long)]
    json: bool,
    /// Print every turn that misses, with what the model wrote.
    #[arg(long)]
    verbose: bool,
    /// Mark the arguments users spell out (places, tickers, queries, titles,
    /// texts, addresses, rooms, people) `#[arg(grounded)]`: constrained decoding
    /// then admits only runs of the user's words for them. The model sees
    /// the same prompt either way.
    #[arg(long)]
    grounded: bool,
}

/// Scores of one decoding mode.
#[derive(Debug, Default, Serialize)]
struct Scores {
    /// Turns that should call tools.
    call_turns: usize,
    /// ... where the model called exactly the expected tools.
    right_tools: usize,
    /// ... where the calls equal the expected ones, arguments included.
    exact_calls: usize,
    /// Call turns whose request has a cue word (a word besides the values
    /// the calls copy) that no training request shows.
    unseen_call_turns: usize,
    /// ... where the calls are exact.
    unseen_exact_calls: usize,
    /// Calls the model wrote.
    calls: usize,
    /// ... that parsed and validated against their tool's schema.
    valid_calls: usize,
    /// Turns that should answer in words.
    answer_turns: usize,
    /// ... where the model made no call.
    no_call: usize,
    /// Answer turns right after a user's request that needs no tool (small
    /// talk, a request no tool covers, thanks), as opposed to answers
    /// after tool results.
    request_turns: usize,
    /// ... where the model made no call.
    request_no_call: usize,
    /// Request turns whose request has a cue word no training request
    /// shows ("Wake me up …"): a model trained on this corpus alone cannot
    /// tell whether a tool does what it asks.
    unseen_request_turns: usize,
    /// ... where the model made no call.
    unseen_request_no_call: usize,
    /// Per kind of conversation: (turns done right, turns). A call turn is
    /// right when its calls match exactly; an answer turn when it makes no
    /// call and contains every expected text.
    by_scenario: BTreeMap<String, (usize, usize)>,
    /// The same, per case of the extended held-out split.
    by_case: BTreeMap<String, (usize, usize)>,
    /// Answer turns that report tool results (or errors).
    result_turns: usize,
    /// ... whose answer contains every expected text.
    answers_with_results: usize,
    /// Per kind of argument value: (right, expected) over the calls of the
    /// right tool.
    arguments: BTreeMap<&'static str, (usize, usize)>,
    /// The same, over the requests in seen words only.
    seen_arguments: BTreeMap<&'static str, (usize, usize)>,
    /// Per kind of argument value: how the wrong ones were wrong.
    wrong_arguments: BTreeMap<&'static str, Wrong>,
    /// Generated tokens, for speed.
    generated_tokens: usize,
    /// Seconds spent generating.
    seconds: f64,
}

/// How a wrong argument value differs from the expected one. Copying a
/// value letter by letter, a model may write it right and go on, or stop
/// early: where a value ends is a skill of its own.
#[derive(Debug, Default, Serialize)]
struct Wrong {
    /// The expected value and more (`Dresden, Zcember` for `Dresden`, `211`
    /// for `21`), as JSON writes them.
    too_long: usize,
    /// A beginning of the expected value (`Abu` for `Abu Dhabi`).
    too_short: usize,
    /// Anything else, a missing argument included.
    otherwise: usize,
}

impl Wrong {
    fn count(&mut self, want: &Value, got: Option<&Value>) {
        let text = |v: &Value| match v {
            Value::String(s) => s.clone(),
            other => other.to_string(),
        };
        let comparable = |v: &Value| matches!(v, Value::String(_) | Value::Number(_));
        match got {
            Some(got) if comparable(want) && comparable(got) => {
                let (want, got) = (text(want), text(got));
                if got == want {
                    // The same text as another JSON type: `"12.5"` for `12.5`.
                    self.otherwise += 1;
                } else if got.starts_with(&want) {
                    self.too_long += 1;
                } else if want.starts_with(&got) {
                    self.too_short += 1;
                } else {
                    self.otherwise += 1;
                }
            }
            _ => self.otherwise += 1,
        }
    }
}

/// Runs `tool-train eval`.
pub fn run(args: EvalArgs) -> Result<(), String> {
    let path = args.model.unwrap_or_else(tool_use::bundled::model_dir);
    let mut examples = corpus::generate(args.seed, args.examples, Split::HeldOut);
    examples.extend(corpus::generate_cases(args.seed, args.cases));
    if args.grounded {
        for example in &mut examples {
            mark_grounded(&mut example.tools);
        }
    }
    let toolbox = corpus::tools::toolbox(Clock::System);
    let vocabulary = Vocabulary::of_training(VOCABULARY_SEED, VOCABULARY_CONVERSATIONS);
    let mut made_up = corpus::generate_schemas(args.seed, args.schemas, Split::HeldOut);
    if args.grounded {
        for example in &mut made_up {
            mark_grounded(&mut example.tools);
        }
    }
    let mut results = Vec::new();
    for constrain in [true, false] {
        let model = Model::load(&path).map_err(|e| e.to_string())?;
        let mut chat = LocalChat::new(model)
            .map_err(|e| e.to_string())?
            .constrain(constrain)
            .options(GenerateOptions::greedy(args.max_tokens));
        let scores = score(&mut chat, &examples, &toolbox, &vocabulary, args.verbose)?;
        let label = if constrain {
            "constrained"
        } else {
            "unconstrained"
        };
        results.push((constrain, label.to_owned(), scores));
        if !made_up.is_empty() {
            let scores = score(&mut chat, &made_up, &toolbox, &vocabulary, args.verbose)?;
            results.push((constrain, format!("{label}_schemas"), scores));
        }
    }
    if args.json {
        let out: Value = results
            .iter()
            .map(|(_, label, s)| (label.clone(), json!(s)))
            .collect::<serde_json::Map<_, _>>()
            .into();
        println!("{out}");
        return Ok(());
    }
    println!(
        "held-out split: {} conversations and {} of its extension (seed {}){}",
        args.examples,
        args.cases,
        args.seed,
        if args.grounded {
            ", with grounded arguments"
        } else {
            ""
        }
    );
    for (constrained, label, s) in &results {
        println!(
            "\n{}{}:",
            if *constrained {
                "constrained decoding"
            } else {
                "free decoding"
            },
            if label.ends_with("_schemas") {
                format!(", {} conversations with made-up tools", args.schemas)
            } else {
                String::new()
            }
        );
        rate("  right tools          ", (s.right_tools, s.call_turns));
        rate_by_words(
            "  exact-match calls    ",
            (s.exact_calls, s.call_turns),
            (s.unseen_exact_calls, s.unseen_call_turns),
        );
        rate("  valid calls          ", (s.valid_calls, s.calls));
        rate("  no call when none due ", (s.no_call, s.answer_turns));
        rate_by_words(
            "    on a request        ",
            (s.request_no_call, s.request_turns),
            (s.unseen_request_no_call, s.unseen_request_turns),
        );
        let after_results = (
            s.no_call - s.request_no_call,
            s.answer_turns - s.request_turns,
        );
        rate("    after tool results  ", after_results);
        rate(
            "  answers with results ",
            (s.answers_with_results, s.result_turns),
        );
        println!("  arguments right, by kind (calls of the right tool; in seen words, last):");
        for (kind, (right, of)) in &s.arguments {
            let seen = s
                .seen_arguments
                .get(kind)
                .map_or_else(|| "n/a".into(), |(r, o)| pct(*r, *o));
            let wrong = match s.wrong_arguments.get(kind) {
                Some(w) if right < of => format!(
                    "   wrong: {} too long, {} too short, {} otherwise",
                    w.too_long, w.too_short, w.otherwise
                ),
                _ => String::new(),
            };
            println!("    {kind:<24} {}{wrong}   seen: {seen}", pct(*right, *of));
        }
        // Every turn is of one kind of conversation; a turn of the
        // extension is also counted by its case below.
        let (right, of) = s
            .by_scenario
            .values()
            .fold((0, 0), |(r, o), (right, of)| (r + right, o + of));
        println!("  turns right          {}", pct(right, of));
        println!("  turns right, by kind of conversation:");
        for (scenario, (right, of)) in &s.by_scenario {
            println!("    {scenario:<24} {}", pct(*right, *of));
        }
        if !s.by_case.is_empty() {
            println!("  turns right, by case of the extension:");
            for (case, (right, of)) in &s.by_case {
                println!("    {case:<24} {}", pct(*right, *of));
            }
        }
        println!("  {} tokens in {:.1}s", s.generated_tokens, s.seconds);
    }
    Ok(())
}

/// Prints a line of the report: `label` (which holds its indent and the
/// padding to the numbers' column), then `right` of `of` as a percentage.
fn rate(label: &str, (right, of): (usize, usize)) {
    println!("{label}{}", pct(right, of));
}

/// Prints `all` (right, of) under `label`, then apart, one level further
/// in, for requests in seen words and those with a word training never
/// shows, `unseen` of them.
fn rate_by_words(label: &str, all: (usize, usize), unseen: (usize, usize)) {
    rate(label, all);
    let indent = " ".repeat(label.len() - label.trim_start().len() + 2);
    let width = 24 - indent.len();
    let seen = pct(all.0 - unseen.0, all.1 - unseen.1);
    println!("{indent}{:<width$}{seen}", "in seen words");
    println!(
        "{indent}{:<width$}{}",
        "with unseen words",
        pct(unseen.0, unseen.1)
    );
}

fn pct(n: usize, of: usize) -> String {
    if of == 0 {
        return "n/a".into();
    }
    format!("{:5.1}%  ({n}/{of})", 100.0 * n as f64 / of as f64)
}

fn score(
    chat: &mut LocalChat,
    examples: &[corpus::Example],
    toolbox: &Toolbox,
    vocabulary: &Vocabulary,
    verbose: bool,
) -> Result<Scores, String> {
    let mut s = Scores::default();
    for example in examples {
        let tools = ToolDefinition::list_from_json(&example.tools).map_err(|e| e.to_string())?;
        let options = ParseOptions {
            tools: tools.clone(),
            ..ParseOptions::default()
        };
        for expected in &example.expectations {
            let request = TurnRequest::new(example.prompt(expected), &tools, &ToolChoice::Auto);
            let turn = chat
                .respond(&request, &mut |_| {})
                .map_err(|e| e.to_string())?;
            s.generated_tokens += turn.stats.generated_tokens;
            s.seconds += (turn.stats.prefill + turn.stats.decode).as_secs_f64();
            let parsed = Format::Hermes.parse(&turn.text, &options);
            s.calls += parsed.tool_calls.len() + parsed.invalid_tool_calls.len();
            let valid = parsed
                .tool_calls
                .iter()
                .filter(|c| validates(toolbox, example, c))
                .count();
            s.valid_calls += valid;
            if verbose && (valid < parsed.tool_calls.len() || !parsed.invalid_tool_calls.is_empty())
            {
                eprintln!("invalid call(s): {:?}", turn.text);
            }
            let unseen = vocabulary.unseen_in(example, expected);
            let never_in_training = if unseen.is_empty() {
                String::new()
            } else {
                format!(" (never in training: {})", unseen.join(", "))
            };
            let right = if expected.calls.is_empty() {
                s.answer_turns += 1;
                let text = parsed.content.unwrap_or_default();
                let no_call = parsed.tool_calls.is_empty() && parsed.invalid_tool_calls.is_empty();
                s.no_call += usize::from(no_call);
                let after_request = example
                    .prompt(expected)
                    .last()
                    .is_some_and(|m| m.role == Role::User);
                if after_request {
                    s.request_turns += 1;
                    s.request_no_call += usize::from(no_call);
                    if !unseen.is_empty() {
                        s.unseen_request_turns += 1;
                        s.unseen_request_no_call += usize::from(no_call);
                    }
                }
                let contains = expected.must_contain.iter().all(|m| text.contains(m));
                if !expected.must_contain.is_empty() {
                    s.result_turns += 1;
                    s.answers_with_results += usize::from(contains);
                }
                if verbose && !(no_call && contains) {
                    eprintln!(
                        "  asked: {:?}{never_in_training}\n answer: {:?} (to contain {:?})",
                        example.request(expected),
                        turn.text,
                        expected.must_contain
                    );
                }
                no_call && contains
            } else {
                s.call_turns += 1;
                let mut got: Vec<&str> =
                    parsed.tool_calls.iter().map(|c| c.name.as_str()).collect();
                let mut want: Vec<&str> = expected.calls.iter().map(|c| c.name.as_str()).collect();
                got.sort_unstable();
                want.sort_unstable();
                if got == want && parsed.invalid_tool_calls.is_empty() {
                    s.right_tools += 1;
                }
                count_arguments(
                    toolbox,
                    example,
                    &parsed.tool_calls,
                    &expected.calls,
                    unseen.is_empty(),
                    &mut s,
                );
                let exact = same_calls(&parsed.tool_calls, &expected.calls)
                    && parsed.invalid_tool_calls.is_empty();
                if !unseen.is_empty() {
                    s.unseen_call_turns += 1;
                    s.unseen_exact_calls += usize::from(exact);
                }
                if exact {
                    s.exact_calls += 1;
                } else if verbose {
                    let show = |calls: &[ToolCall]| {
                        calls
                            .iter()
                            .map(|c| format!("{} {}", c.name, c.arguments))
                            .collect::<Vec<_>>()
                            .join(" | ")
                    };
                    eprintln!(
                        "wanted: {}\n   got: {}\n  asked: {:?}{never_in_training}",
                        show(&expected.calls),
                        show(&parsed.tool_calls),
                        example.request(expected),
                    );
                    // A turn with no call says nothing above: show what it
                    // answered.
                    if parsed.tool_calls.is_empty() && parsed.invalid_tool_calls.is_empty() {
                        eprintln!(" answer: {:?}", turn.text);
                    }
                }
                exact
            };
            let tally = s
                .by_scenario
                .entry(format!("{:?}", example.scenario))
                .or_default();
            tally.0 += usize::from(right);
            tally.1 += 1;
            if let Some(case) = example.case {
                let tally = s.by_case.entry(format!("{case:?}")).or_default();
                tally.0 += usize::from(right);
                tally.1 += 1;
            }
        }
    }
    Ok(s)
}

/// Name and arguments equal, in any order (parallel calls have none).
fn same_calls(got: &[ToolCall], want: &[ToolCall]) -> bool {
    let key = |c: &ToolCall| format!("{}\u{0}{}", c.name, c.arguments);
    let mut a: Vec<String> = got.iter().map(key).collect();
    let mut b: Vec<String> = want.iter().map(key).collect();
    a.sort_unstable();
    b.sort_unstable();
    a == b
}

/// Pairs each expected call with the first unused call of the same tool and
/// counts, per kind of value, the expected arguments it got right (apart
/// too when the request is in `seen_words`), and how the others were wrong.
fn count_arguments(
    toolbox: &Toolbox,
    example: &corpus::Example,
    got: &[ToolCall],
    want: &[ToolCall],
    seen_words: bool,
    s: &mut Scores,
) {
    let mut used = vec![false; got.len()];
    for expected in want {
        let Some(i) = (0..got.len()).find(|&i| !used[i] && got[i].name == expected.name) else {
            continue;
        };
        used[i] = true;
        let Value::Object(args) = &expected.arguments else {
            continue;
        };
        let schema = parameters(toolbox, example, &expected.name);
        for (key, value) in args {
            let property = schema
                .as_ref()
                .and_then(|s| s.get("properties"))
                .and_then(|p| p.get(key));
            let kind = value_kind(key, value, property);
            let entry = s.arguments.entry(kind).or_default();
            entry.1 += 1;
            let written = got[i].arguments.get(key);
            let right = written == Some(value);
            entry.0 += usize::from(right);
            if seen_words {
                let seen = s.seen_arguments.entry(kind).or_default();
                seen.0 += usize::from(right);
                seen.1 += 1;
            }
            if !right {
                s.wrong_arguments
                    .entry(kind)
                    .or_default()
                    .count(value, written);
            }
        }
    }
}

/// What kind of value an argument holds, for [`count_arguments`].
fn value_kind(key: &str, value: &Value, property: Option<&Value>) -> &'static str {
    if property.is_some_and(|p| p.get("enum").is_some()) {
        return "enum";
    }
    let is = |keys: &[&str]| keys.contains(&key);
    match value {
        Value::String(_) if is(&["location", "origin", "destination", "timezone"]) => "place",
        // What the issue calls free text: titles, queries, phrases.
        Value::String(_) if is(&["query", "text", "title", "subject", "body"]) => "free text",
        Value::String(_)
            if is(&[
                "from_unit",
                "to_unit",
                "from_currency",
                "to_currency",
                "symbol",
            ]) =>
        {
            "unit, currency, ticker"
        }
        Value::String(_) if is(&["date", "time"]) => "date, time",
        Value::String(_) => "other text",
        Value::Number(_) => "number",
        Value::Bool(_) => "boolean",
        Value::Array(_) => "array",
        Value::Object(_) | Value::Null => "object",
    }
}

/// The arguments `--grounded` marks: values users spell out in their request.
const GROUNDED: &[&str] = &[
    "location",
    "origin",
    "destination",
    "timezone",
    "query",
    "text",
    "title",
    "subject",
    "body",
    "symbol",
    "room",
    "to",
    "cc",
    "attendees",
];

/// Marks the string parameters of [`GROUNDED`] `"x-grounded": true`.
fn mark_grounded(tools: &mut [Value]) {
    for tool in tools {
        let Some(properties) = tool
            .pointer_mut("/function/parameters/properties")
            .and_then(Value::as_object_mut)
        else {
            continue;
        };
        for (key, schema) in properties {
            let strings = schema["type"] == "string"
                || (schema["type"] == "array" && schema["items"]["type"] == "string");
            if GROUNDED.contains(&key.as_str()) && strings {
                schema[tool_use::runtime::grounding::GROUNDED] = Value::Bool(true);
            }
        }
    }
}

/// The schema of tool `name`'s arguments: the corpus tool's where the
/// example offers it (or offers no tool by that name), else the made-up
/// one's as the example offers it.
fn parameters(toolbox: &Toolbox, example: &corpus::Example, name: &str) -> Option<Value> {
    let offered = example.tools.iter().find(|t| t["function"]["name"] == name);
    match (toolbox.get(name), offered) {
        (Some(tool), Some(definition)) if tool.definition().to_json() == *definition => {
            Some(tool.validation_schema().clone())
        }
        (_, Some(definition)) => Some(definition["function"]["parameters"].clone()),
        (Some(tool), None) => Some(tool.validation_schema().clone()),
        (None, None) => None,
    }
}

fn validates(toolbox: &Toolbox, example: &corpus::Example, call: &ToolCall) -> bool {
    let Some(schema) = parameters(toolbox, example, &call.name) else {
        return false;
    };
    let Value::Object(args) = &call.arguments else {
        return false;
    };
    let policy = Policy {
        lenient: false,
        allow_extra: false,
    };
    validate_arguments(&schema, &mut args.clone(), policy).is_ok()
}

#[cfg(test)]
mod tests {
    use super::Wrong;
    use serde_json::json;

    #[test]
    fn a_wrong_value_is_too_long_too_short_or_otherwise() {
        let mut w = Wrong::default();
        w.count(&json!("Dresden"), Some(&json!("Dresden, Zcember")));
        w.count(&json!(21), Some(&json!(211)));
        w.count(&json!("Abu Dhabi"), Some(&json!("Abu")));
        w.count(&json!(1803760000), Some(&json!(180376000)));
        w.count(&json!("Reykjavik"), Some(&json!("Reykjik")));
        w.count(&json!(12.5), Some(&json!("12.5")));
        w.count(&json!("Oslo"), None);
        w.count(&json!(["Ann"]), Some(&json!(["Ann", "Bo"])));
        assert_eq!((w.too_long, w.too_short, w.otherwise), (2, 2, 4));
    }
}
