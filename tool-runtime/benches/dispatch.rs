//! Dispatch overhead: a model's call through the toolbox (lookup, schema
//! validation, deserialisation, the call, the tool message) against calling
//! the function directly; and `call_all` over 100 calls.

// Generated code names the facade `::tool_use`; here the runtime stands in for it.
extern crate tool_runtime as tool_use;

use criterion::{criterion_group, criterion_main, Criterion};
use serde_json::json;
use std::hint::black_box;
use tool_macros::tool;
use tool_runtime::{toolbox, ToolCall};

/// Get the current temperature at a location.
///
/// Args:
///     location: The location to get the temperature for, in the format "City, Country"
///     unit: The unit to return the temperature in. (choices: ["celsius", "fahrenheit"])
#[tool]
fn get_current_temperature(location: &str, unit: &str) -> f64 {
    if unit == "celsius" && !location.is_empty() {
        22.0
    } else {
        71.6
    }
}

/// Get the current wind speed, asynchronously.
///
/// Args:
///     location: The location
#[tool]
async fn get_current_wind_speed(location: String) -> f64 {
    location.len() as f64
}

fn bench(c: &mut Criterion) {
    let tools = toolbox![get_current_temperature, get_current_wind_speed];
    let call = ToolCall::new(
        "call_1",
        "get_current_temperature",
        json!({"location": "Paris, France", "unit": "celsius"}),
    );
    let mut g = c.benchmark_group("dispatch");
    g.bench_function("direct call", |b| {
        b.iter(|| {
            black_box(get_current_temperature(
                black_box("Paris, France"),
                black_box("celsius"),
            ))
        })
    });
    g.bench_function("direct call + format result", |b| {
        b.iter(|| {
            black_box(
                get_current_temperature(black_box("Paris, France"), black_box("celsius"))
                    .to_string(),
            )
        })
    });
    g.bench_function("toolbox.call_blocking (sync tool)", |b| {
        b.iter(|| black_box(tools.call_blocking(black_box(&call))))
    });
    let wind = ToolCall::new(
        "call_2",
        "get_current_wind_speed",
        json!({"location": "Paris, France"}),
    );
    g.bench_function("toolbox.call_blocking (async tool)", |b| {
        b.iter(|| black_box(tools.call_blocking(black_box(&wind))))
    });
    let sync_calls: Vec<ToolCall> = (0..100).map(|_| call.clone()).collect();
    let async_calls: Vec<ToolCall> = (0..100).map(|_| wind.clone()).collect();
    g.bench_function("call_all 100 sync calls (a thread each)", |b| {
        b.iter(|| black_box(tools.call_all_blocking(&sync_calls)))
    });
    g.bench_function("call_all 100 async calls", |b| {
        b.iter(|| black_box(tools.call_all_blocking(&async_calls)))
    });
    g.bench_function("100 sync calls one by one", |b| {
        b.iter(|| {
            sync_calls
                .iter()
                .map(|c| tools.call_blocking(c))
                .collect::<Vec<_>>()
        })
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
