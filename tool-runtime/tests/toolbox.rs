//! The toolbox end to end: `#[tool]` functions dispatched from model calls,
//! and every failure answered with a message the model can read.

// Generated code names the facade `::tool_use`; here the runtime stands in for it.
extern crate tool_runtime as tool_use;

#[path = "../../tests/common/weather.rs"]
mod weather;

use serde_json::{json, Value};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};
use tool_macros::{tool, tools};
use tool_runtime::{toolbox, DefinitionFormat, Message, Role, ToolCall, Toolbox, ToolboxError};
use weather::get_current_temperature;

/// Get the current wind speed in km/h at a given location.
///
/// Args:
///     location: The location to get the wind speed for, in the format "City, Country"
#[tool]
fn get_current_wind_speed(location: String) -> f64 {
    let _ = location;
    6.0
}

/// Divide two numbers.
///
/// Args:
///     a: dividend
///     b: divisor
///     digits: decimal places
#[tool]
fn divide(a: f64, b: f64, #[arg(default = 2)] digits: u8) -> Result<String, String> {
    if b == 0.0 {
        return Err("division by zero".into());
    }
    Ok(format!("{:.*}", digits as usize, a / b))
}

/// Always crashes.
#[tool]
fn crash() -> u8 {
    panic!("the disk is on fire")
}

/// Crashes after an await.
#[tool]
async fn crash_later() -> u8 {
    std::future::ready(()).await;
    panic!("async fire")
}

/// Sleeps, blocking.
///
/// Args:
///     ms: how long
#[tool]
fn nap(ms: u64) -> String {
    std::thread::sleep(Duration::from_millis(ms));
    format!("slept {ms}")
}

/// Sleeps, asynchronously (works under any executor).
///
/// Args:
///     ms: how long
#[tool]
async fn snooze(ms: u64) -> String {
    tool_runtime::exec::sleep(Duration::from_millis(ms)).await;
    format!("snoozed {ms}")
}

/// Summarise a list.
///
/// Args:
///     items: the items
///     tags: optional tags
#[tool]
fn summarise(items: &[i64], tags: Option<Vec<String>>) -> Value {
    json!({"count": items.len(), "sum": items.iter().sum::<i64>(), "tags": tags})
}

fn weather() -> Toolbox {
    toolbox![
        get_current_temperature,
        get_current_wind_speed,
        divide,
        crash,
        crash_later,
        nap,
        snooze,
        summarise
    ]
}

fn call(name: &str, args: Value) -> ToolCall {
    ToolCall::new("call_1", name, args)
}

fn answer(toolbox: &Toolbox, name: &str, args: Value) -> String {
    let m = toolbox.call_blocking(&call(name, args));
    assert_eq!(m.role, Role::Tool);
    assert_eq!(m.tool_call_id.as_deref(), Some("call_1"));
    assert_eq!(m.name.as_deref(), Some(name));
    m.content.unwrap()
}

#[test]
fn the_weather_conversation_of_the_transformers_guide() {
    let toolbox = weather();
    let defs = toolbox.definitions(DefinitionFormat::Transformers);
    assert_eq!(defs[0], *get_current_temperature::schema());
    let mut messages = vec![
        Message::system("You are a bot that responds to weather queries."),
        Message::user("Hey, what's the temperature in Paris right now?"),
    ];
    let tool_call = ToolCall::new(
        "call_1",
        "get_current_temperature",
        json!({"location": "Paris, France", "unit": "celsius"}),
    );
    messages.push(Message::assistant_calls(None, vec![tool_call.clone()]));
    messages.push(toolbox.call_blocking(&tool_call));
    assert_eq!(
        serde_json::to_value(&messages[3]).unwrap(),
        json!({"role": "tool", "content": "22.0", "tool_call_id": "call_1", "name": "get_current_temperature"})
    );
}

#[test]
fn results_become_content() {
    let t = weather();
    assert_eq!(answer(&t, "divide", json!({"a": 1, "b": 3})), "0.33");
    assert_eq!(
        answer(&t, "divide", json!({"a": 1, "b": 3, "digits": 4})),
        "0.3333"
    );
    assert_eq!(
        answer(&t, "summarise", json!({"items": [1, 2, 3]})),
        r#"{"count":3,"sum":6,"tags":null}"#
    );
    assert_eq!(
        answer(&t, "summarise", json!({"items": [], "tags": ["a"]})),
        r#"{"count":0,"sum":0,"tags":["a"]}"#
    );
}

#[test]
fn an_output_keeps_the_value_beside_its_text() {
    let t = weather();
    let invoke = |name: &str, args: Value| {
        tool_runtime::exec::block_on(t.invoke(&call(name, args))).unwrap()
    };
    let out = invoke("summarise", json!({"items": [1, 2]}));
    assert_eq!(out.text, r#"{"count":2,"sum":3,"tags":null}"#);
    assert_eq!(out.value, Some(json!({"count": 2, "sum": 3, "tags": null})));
    // A number is its JSON; a string is its own text, and still a value.
    let out = invoke(
        "get_current_temperature",
        json!({"location": "Paris, France", "unit": "celsius"}),
    );
    assert_eq!((out.text.as_str(), out.value), ("22.0", Some(json!(22.0))));
    let out = invoke("divide", json!({"a": 1, "b": 4}));
    assert_eq!(
        (out.text.as_str(), out.value),
        ("0.25", Some(json!("0.25")))
    );
}

#[test]
fn every_failure_is_a_message() {
    let t = weather();
    let cases = [
        (
            "get_current_temprature",
            json!({}),
            "Error: unknown tool `get_current_temprature`. Did you mean `get_current_temperature`? Available tools: get_current_temperature, get_current_wind_speed, divide, crash, crash_later, nap, snooze, summarise",
        ),
        ("divide", json!([1, 2]), "Error: arguments for `divide` must be a JSON object, found an array"),
        ("divide", json!("not json"), "Error: arguments for `divide` must be a JSON object, found a string that is not a JSON object"),
        ("divide", json!({"a": 1}), "Error: invalid arguments for `divide`: missing required argument `b`"),
        (
            "divide",
            json!({"a": 1, "b": 2, "c": 3}),
            "Error: invalid arguments for `divide`: unexpected argument `c` (the tool takes: a, b, digits)",
        ),
        ("divide", json!({"a": "one", "b": 2}), "Error: invalid arguments for `divide`: `a` must be a number, got \"one\""),
        ("divide", json!({"a": 1, "b": 2, "digits": 300}), "Error: invalid arguments for `divide`: `digits` must be at most 255, got 300"),
        (
            "get_current_temperature",
            json!({"location": "Paris", "unit": "kelvin"}),
            "Error: invalid arguments for `get_current_temperature`: `unit` must be one of \"celsius\", \"fahrenheit\", got \"kelvin\"",
        ),
        (
            "summarise",
            json!({"items": [1, "two"]}),
            "Error: invalid arguments for `summarise`: `items[1]` must be an integer, got \"two\"",
        ),
        ("divide", json!({"a": 1, "b": 0}), "Error: division by zero"),
        ("crash", json!({}), "Error: the tool `crash` crashed: the disk is on fire"),
        ("crash_later", json!({}), "Error: the tool `crash_later` crashed: async fire"),
    ];
    for (name, args, want) in cases {
        assert_eq!(answer(&t, name, args.clone()), want, "{name} {args}");
    }
}

#[test]
fn lenient_mode_repairs_and_strict_mode_refuses() {
    let t = weather();
    assert_eq!(answer(&t, "divide", json!("{\"a\": 1, \"b\": 4}")), "0.25");
    assert_eq!(
        answer(&t, "divide", json!({"a": "1", "b": "4", "digits": "1"})),
        "0.2"
    );
    assert_eq!(
        answer(&t, "summarise", json!({"items": [], "tags": null})),
        r#"{"count":0,"sum":0,"tags":null}"#
    );
    assert_eq!(
        answer(&t, "divide", json!({"a": 1, "b": 4, "digits": null})),
        "0.25"
    );
    let strict = weather().lenient(false);
    assert!(answer(&strict, "divide", json!("{\"a\": 1, \"b\": 4}"))
        .starts_with("Error: arguments for `divide` must be a JSON object"));
    assert_eq!(
        answer(&strict, "divide", json!({"a": "1", "b": 4})),
        "Error: invalid arguments for `divide`: `a` must be a number, got \"1\""
    );
    let relaxed = weather().allow_extra_arguments(true);
    assert_eq!(
        answer(&relaxed, "divide", json!({"a": 1, "b": 4, "why": "x"})),
        "0.25"
    );
}

#[test]
fn timeouts_for_blocking_and_async_tools() {
    let t = weather().timeout(Some(Duration::from_millis(50)));
    let start = Instant::now();
    assert_eq!(
        answer(&t, "nap", json!({"ms": 2000})),
        "Error: the tool `nap` did not finish within 0.05s"
    );
    assert_eq!(
        answer(&t, "snooze", json!({"ms": 2000})),
        "Error: the tool `snooze` did not finish within 0.05s"
    );
    assert!(
        start.elapsed() < Duration::from_millis(1500),
        "{:?}",
        start.elapsed()
    );
    assert_eq!(answer(&t, "nap", json!({"ms": 1})), "slept 1");
}

#[test]
fn call_all_runs_concurrently_and_keeps_order() {
    let t = weather();
    let calls: Vec<ToolCall> = [("nap", 300), ("snooze", 300), ("nap", 300), ("snooze", 10)]
        .iter()
        .enumerate()
        .map(|(i, (name, ms))| ToolCall::new(format!("c{i}"), *name, json!({"ms": ms})))
        .collect();
    let start = Instant::now();
    let answers = t.call_all_blocking(&calls);
    let elapsed = start.elapsed();
    let got: Vec<(&str, &str)> = answers
        .iter()
        .map(|m| (m.tool_call_id.as_deref().unwrap(), m.text()))
        .collect();
    assert_eq!(
        got,
        [
            ("c0", "slept 300"),
            ("c1", "snoozed 300"),
            ("c2", "slept 300"),
            ("c3", "snoozed 10")
        ]
    );
    assert!(
        elapsed < Duration::from_millis(800),
        "ran one after another: {elapsed:?}"
    );
}

#[tokio::test]
async fn async_tools_under_tokio() {
    let t = weather();
    let m = t.call(&call("snooze", json!({"ms": 5}))).await;
    assert_eq!(m.text(), "snoozed 5");
    let all = t
        .call_all(&[
            call(
                "get_current_wind_speed",
                json!({"location": "Paris, France"}),
            ),
            call("crash_later", json!({})),
        ])
        .await;
    assert_eq!(all[0].text(), "6.0");
    assert_eq!(
        all[1].text(),
        "Error: the tool `crash_later` crashed: async fire"
    );
}

/// A weather service whose tools share a cache and a counter.
struct Service {
    calls: AtomicUsize,
    cache: Mutex<Vec<String>>,
}

#[tools]
impl Service {
    /// Remember a city.
    ///
    /// Args:
    ///     city: The city
    #[tool]
    fn remember(&self, city: String) -> usize {
        self.calls.fetch_add(1, Ordering::SeqCst);
        let mut cache = self.cache.lock().unwrap();
        cache.push(city);
        cache.len()
    }

    /// List remembered cities.
    #[tool(name = "list_cities")]
    async fn cities(&self) -> Vec<String> {
        self.calls.fetch_add(1, Ordering::SeqCst);
        self.cache.lock().unwrap().clone()
    }

    /// Not a tool: an ordinary method.
    fn count(&self) -> usize {
        self.calls.load(Ordering::SeqCst)
    }
}

#[test]
fn tools_on_methods_share_state() {
    let service = std::sync::Arc::new(Service {
        calls: AtomicUsize::new(0),
        cache: Mutex::new(Vec::new()),
    });
    let t = Toolbox::new().with_all_shared(service.clone()).unwrap();
    assert_eq!(t.names().collect::<Vec<_>>(), ["remember", "list_cities"]);
    assert_eq!(answer(&t, "remember", json!({"city": "Paris"})), "1");
    assert_eq!(answer(&t, "remember", json!({"city": "Oslo"})), "2");
    assert_eq!(answer(&t, "list_cities", json!({})), r#"["Paris","Oslo"]"#);
    assert_eq!(service.count(), 3);
    let def = &t.definitions(DefinitionFormat::Transformers)[0];
    assert_eq!(def["function"]["parameters"]["required"], json!(["city"]));
}

#[test]
fn duplicate_names_are_an_error() {
    let err = Toolbox::new()
        .with(divide {})
        .unwrap()
        .with(divide {})
        .unwrap_err();
    assert_eq!(err, ToolboxError::DuplicateName("divide".into()));
    assert_eq!(
        err.to_string(),
        "two tools are named `divide`; tool names must be unique"
    );
}

#[test]
fn definitions_in_every_format() {
    let t = toolbox![get_current_temperature, divide];
    let strict = t.definitions(DefinitionFormat::OpenAiStrict);
    assert_eq!(
        strict[1]["function"]["parameters"]["required"],
        json!(["a", "b", "digits"])
    );
    assert_eq!(
        strict[1]["function"]["parameters"]["properties"]["digits"]["type"],
        json!(["integer", "null"])
    );
    let anthropic = t.definitions(DefinitionFormat::Anthropic);
    assert_eq!(
        anthropic[0]["input_schema"],
        get_current_temperature::schema()["function"]["parameters"]
    );
    let mcp = t.definitions(DefinitionFormat::Mcp);
    assert_eq!(mcp[1]["name"], "divide");
    let gemini = t.definitions(DefinitionFormat::Gemini);
    assert_eq!(gemini.len(), 1);
    assert_eq!(gemini[0]["functionDeclarations"][1]["name"], "divide");
    assert!(t.definitions(DefinitionFormat::OpenAi)[0]["function"]
        .get("return")
        .is_none());
}
