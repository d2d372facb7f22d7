//! Getting a tool's schema from `#[tool]` versus building the same schema at
//! run time through schemars (what derive-based libraries do on every call).

use criterion::{criterion_group, criterion_main, Criterion};
use schemars::JsonSchema;
use serde_json::{json, Value};
use std::hint::black_box;
use tool_use::tool;

/// Get the current temperature at a location.
///
/// Args:
///     location: The location to get the temperature for, in the format "City, Country"
///     unit: The unit to return the temperature in. (choices: ["celsius", "fahrenheit"])
///
/// Returns:
///     The current temperature at the specified location in the specified units, as a float.
#[tool]
#[allow(dead_code)] // only its definition is measured
fn get_current_temperature(location: String, unit: String) -> f64 {
    let _ = (location, unit);
    22.0
}

/// The same parameters as a schemars type, the way derive-based tool crates declare them.
#[derive(JsonSchema)]
#[allow(dead_code)]
struct GetCurrentTemperatureArgs {
    /// The location to get the temperature for, in the format "City, Country"
    location: String,
    /// The unit to return the temperature in.
    unit: Unit,
}

#[derive(JsonSchema)]
#[serde(rename_all = "lowercase")]
#[allow(dead_code)]
enum Unit {
    Celsius,
    Fahrenheit,
}

fn schemars_definition() -> Value {
    let mut parameters = schemars::generate::SchemaSettings::draft2020_12()
        .with(|s| {
            s.inline_subschemas = true;
            s.meta_schema = None;
        })
        .into_generator()
        .into_root_schema_for::<GetCurrentTemperatureArgs>()
        .to_value();
    if let Some(obj) = parameters.as_object_mut() {
        obj.remove("title");
    }
    json!({
        "type": "function",
        "function": {
            "name": "get_current_temperature",
            "description": "Get the current temperature at a location.",
            "parameters": parameters,
            "return": {"type": "number"},
        }
    })
}

fn bench(c: &mut Criterion) {
    // Both describe the same tool.
    let ours = get_current_temperature::schema();
    let theirs = schemars_definition();
    assert_eq!(
        ours["function"]["parameters"]["required"],
        theirs["function"]["parameters"]["required"]
    );

    let mut g = c.benchmark_group("tool schema");
    g.bench_function("#[tool] schema() (cached)", |b| {
        b.iter(|| black_box(get_current_temperature::schema()))
    });
    g.bench_function("#[tool] SCHEMA_JSON parsed to Value (first call)", |b| {
        b.iter(|| {
            black_box(
                serde_json::from_str::<Value>(black_box(get_current_temperature::SCHEMA_JSON))
                    .unwrap(),
            )
        })
    });
    g.bench_function("#[tool] SCHEMA_JSON as text (no work)", |b| {
        b.iter(|| black_box(get_current_temperature::SCHEMA_JSON).len())
    });
    g.bench_function("schemars at run time", |b| {
        b.iter(|| black_box(schemars_definition()))
    });
    g.bench_function("schemars at run time, as text", |b| {
        b.iter(|| black_box(serde_json::to_string(&schemars_definition()).unwrap()))
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
