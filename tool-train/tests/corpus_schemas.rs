//! Conversations with made-up tools: every call valid for its schema, every
//! value copied from the request, the kinds of conversation each doing what
//! it says, rendered within the training length, and the standard
//! conversations unchanged by the practice that adds them.

#[path = "common/calls.rs"]
mod calls;

use calls::assert_same_calls;
use serde_json::{Map, Value};
use std::collections::HashSet;
use std::path::PathBuf;
use std::sync::OnceLock;
use tool_train::corpus::{self, Example, Practice, Scenario, SchemaCase, Split};
use tool_train::train::bpe::Tokenizer;
use tool_use::parse::{Format, ParseOptions};
use tool_use::runtime::validate::{validate_arguments, Policy};

fn train() -> &'static [Example] {
    static CORPUS: OnceLock<Vec<Example>> = OnceLock::new();
    CORPUS.get_or_init(|| corpus::generate_schemas(3, 1500, Split::Train))
}

fn held_out() -> &'static [Example] {
    static CORPUS: OnceLock<Vec<Example>> = OnceLock::new();
    CORPUS.get_or_init(|| corpus::generate_schemas(3, 500, Split::HeldOut))
}

fn all() -> impl Iterator<Item = &'static Example> {
    train().iter().chain(held_out())
}

fn function(tool: &Value) -> &Map<String, Value> {
    tool["function"].as_object().unwrap()
}

fn offered<'a>(example: &'a Example, name: &str) -> &'a Map<String, Value> {
    example
        .tools
        .iter()
        .map(function)
        .find(|f| f["name"] == name)
        .unwrap_or_else(|| panic!("{name} is called but not offered"))
}

#[test]
fn every_call_is_valid_for_its_schema_as_it_stands() {
    let strict = Policy {
        lenient: false,
        allow_extra: false,
    };
    for example in all() {
        for x in &example.expectations {
            for call in &x.calls {
                let schema = &offered(example, &call.name)["parameters"];
                let mut args = call.arguments.as_object().unwrap().clone();
                let before = args.clone();
                validate_arguments(schema, &mut args, strict)
                    .unwrap_or_else(|e| panic!("{call:?} against {schema}: {e:?}"));
                // Nothing was filled in or repaired.
                assert_eq!(args, before);
                // Keys follow the schema's order.
                let order: Vec<&String> = schema["properties"]
                    .as_object()
                    .unwrap()
                    .keys()
                    .filter(|k| before.contains_key(*k))
                    .collect();
                assert_eq!(before.keys().collect::<Vec<_>>(), order);
            }
        }
    }
}

/// Each value as a request could write it: strings as they are, numbers
/// as JSON writes them, lists item by item.
fn texts(value: &Value) -> Vec<String> {
    match value {
        Value::String(s) => vec![s.clone()],
        Value::Number(n) => vec![n.to_string()],
        Value::Array(items) => items.iter().flat_map(texts).collect(),
        _ => Vec::new(),
    }
}

#[test]
fn every_value_is_copied_from_the_request() {
    for example in all() {
        for x in &example.expectations {
            let request = example.request(x);
            for call in &x.calls {
                for (key, value) in call.arguments.as_object().unwrap() {
                    for text in texts(value) {
                        assert!(
                            request.contains(&text),
                            "{key}={text:?} is not in {request:?}"
                        );
                    }
                }
            }
        }
    }
}

/// Which of BFCL's kinds of conversation `example` is.
fn kind(example: &Example) -> SchemaCase {
    let first = &example.expectations[0];
    let names: HashSet<&str> = first.calls.iter().map(|c| c.name.as_str()).collect();
    match (first.calls.len(), names.len(), example.tools.len()) {
        (0, ..) => SchemaCase::Irrelevant,
        (1, _, 1) => SchemaCase::Simple,
        (1, ..) => SchemaCase::Multiple,
        (_, 1, _) => SchemaCase::Parallel,
        _ => SchemaCase::ParallelMultiple,
    }
}

#[test]
fn each_kind_of_conversation_calls_as_it_should() {
    let mut seen = HashSet::new();
    for example in all() {
        let first = &example.expectations[0];
        match example.scenario {
            Scenario::Single => assert_eq!(first.calls.len(), 1),
            Scenario::Parallel => assert!(first.calls.len() >= 2, "{:?}", example.messages),
            Scenario::Unavailable => {
                assert!(first.calls.is_empty());
                assert!(!example.tools.is_empty());
            }
            other => panic!("unexpected scenario {other:?}"),
        }
        seen.insert(kind(example));
        // The last message answers in words, with every result.
        let last = example.expectations.last().unwrap();
        assert!(last.calls.is_empty());
        let answer = example.messages[last.index].text();
        for fact in &last.must_contain {
            assert!(answer.contains(fact), "{answer:?} lacks {fact:?}");
        }
        // Tool names are unique among those offered.
        let offered: HashSet<&Value> = example
            .tools
            .iter()
            .map(|t| &t["function"]["name"])
            .collect();
        assert_eq!(offered.len(), example.tools.len());
    }
    assert_eq!(seen.len(), 5, "{seen:?}");
}

#[test]
fn tools_vary_in_names_types_and_shapes() {
    let mut names = HashSet::new();
    let mut types = HashSet::new();
    let (mut camel, mut dotted, mut optional, mut enums) = (0, 0, 0, 0);
    for example in train() {
        for tool in &example.tools {
            let f = function(tool);
            let name = f["name"].as_str().unwrap();
            names.insert(name.to_owned());
            camel += usize::from(name.chars().any(char::is_uppercase) && !name.contains('_'));
            dotted += usize::from(name.contains('.'));
            let params = &f["parameters"];
            let required = params["required"].as_array().unwrap().len();
            let properties = params["properties"].as_object().unwrap();
            optional += usize::from(required < properties.len());
            for p in properties.values() {
                types.insert(p["type"].as_str().unwrap().to_owned());
                enums += usize::from(p.get("enum").is_some());
            }
        }
    }
    assert!(names.len() > 2000, "{} distinct names", names.len());
    let want: HashSet<String> = ["string", "integer", "number", "boolean", "array"]
        .map(String::from)
        .into();
    assert_eq!(types, want);
    assert!(camel > 100 && dotted > 50 && optional > 500 && enums > 100);
}

#[test]
fn held_out_tools_are_not_trained_on() {
    let trained: HashSet<&Value> = train()
        .iter()
        .flat_map(|e| e.tools.iter().map(|t| &t["function"]["name"]))
        .collect();
    let held: Vec<&Value> = held_out()
        .iter()
        .flat_map(|e| e.tools.iter().map(|t| &t["function"]["name"]))
        .collect();
    let shared = held.iter().filter(|n| trained.contains(*n)).count();
    // Names are made from verbs and objects; held-out objects are never
    // trained on, so only a verb-less coincidence could repeat a name.
    assert_eq!(shared, 0, "{shared} of {} held-out names", held.len());
}

#[test]
fn conversations_render_parse_back_and_fit_the_training_length() {
    let template = corpus::bundled_template().unwrap();
    let path = PathBuf::from(tool_use_mini::SOURCE_DIR).join("tokenizer.json");
    let tokenizer = Tokenizer::from_file(&path).unwrap();
    let options = ParseOptions::default();
    let mut longest = 0;
    for example in all().take(600) {
        let (text, spans) = corpus::render(&template, example).unwrap();
        for (span, x) in spans.iter().zip(&example.expectations) {
            let body = text[span.clone()].strip_suffix("<|im_end|>").unwrap();
            let parsed = Format::Hermes.parse(body, &options);
            assert_same_calls(&parsed.tool_calls, &x.calls, body);
        }
        let encoded = corpus::encode(&tokenizer, &template, example).unwrap();
        longest = longest.max(encoded.ids.len());
    }
    assert!(longest <= 1536, "{longest} tokens");
}

#[test]
fn the_practice_adds_made_up_tools_and_keeps_the_rest() {
    let chat = corpus::generate_with(5, 400, Split::Train, Practice::Chat);
    let schemas = corpus::generate_with(5, 400, Split::Train, Practice::Schemas);
    let known = corpus::tools::definitions();
    let standard = |e: &Example| e.tools.iter().all(|t| known.contains(t));
    let made_up: Vec<&Example> = schemas.iter().filter(|e| !standard(e)).collect();
    assert!(
        (150..250).contains(&made_up.len()),
        "{} of 400",
        made_up.len()
    );
    // Of every kind, in about the shares the made-up corpus draws: what
    // `train` sees is what `generate_schemas` makes.
    let training = corpus::generate_with(6, 2000, Split::Train, Practice::Schemas);
    let drawn: Vec<&Example> = training.iter().filter(|e| !standard(e)).collect();
    let total: u32 = SchemaCase::WEIGHTS.iter().map(|w| w.1).sum();
    for (case, weight) in SchemaCase::WEIGHTS {
        let share = f64::from(weight) / f64::from(total);
        let found = drawn.iter().filter(|e| kind(e) == case).count() as f64 / drawn.len() as f64;
        assert!(
            (found - share).abs() < 0.06,
            "expected about {share} of the made-up conversations to be {case:?}, found {found:.3}"
        );
    }
    for (before, now) in chat.iter().zip(&schemas) {
        if standard(now) {
            assert_eq!(before, now);
        }
    }
    // The held-out split is the standard one either way.
    assert_eq!(
        corpus::generate_with(5, 100, Split::HeldOut, Practice::Schemas),
        corpus::generate(5, 100, Split::HeldOut)
    );
}

#[test]
fn the_same_seed_gives_the_same_conversations() {
    assert_eq!(
        corpus::generate_schemas(3, 50, Split::Train),
        train()[..50].to_vec()
    );
    assert_ne!(
        corpus::generate_schemas(4, 50, Split::Train),
        train()[..50].to_vec()
    );
}
