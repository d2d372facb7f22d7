//! The tools of transformers' tool-use guide, defined with `#[tool]`.
//!
//! Prints each tool's definition (made at compile time) and calls the tools
//! directly. The agent loop on the bundled model lands in a later release.

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
fn get_current_temperature(location: String, unit: String) -> f64 {
    let _ = location;
    if unit == "fahrenheit" {
        71.6
    } else {
        22.0
    }
}

/// Get the current wind speed in km/h at a given location.
///
/// # Arguments
///
/// * `location` - The location to get the wind speed for, in the format "City, Country"
///
/// # Returns
///
/// The current wind speed at the given location in km/h, as a float.
#[tool]
fn get_current_wind_speed(location: &str) -> f64 {
    let _ = location;
    6.0
}

fn main() {
    for (name, json) in [
        (
            get_current_temperature::NAME,
            get_current_temperature::SCHEMA_JSON,
        ),
        (
            get_current_wind_speed::NAME,
            get_current_wind_speed::SCHEMA_JSON,
        ),
    ] {
        let value: serde_json::Value = serde_json::from_str(json).expect("schema is JSON");
        println!(
            "{name}:\n{}\n",
            serde_json::to_string_pretty(&value).expect("serialisable")
        );
    }
    let t = get_current_temperature("Paris, France".into(), "celsius".into());
    let w = get_current_wind_speed("Paris, France");
    println!("Paris, France: {t} °C, wind {w} km/h");
}
