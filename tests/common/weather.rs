//! The temperature tool of transformers' tool-use guide, written with
//! `#[tool]`: its definition is the guide's, word for word. Shared by the
//! facade's weather-conversation test and tool-runtime's toolbox tests,
//! each of which brings `tool` (the attribute) into scope at its root.

use super::tool;

/// Get the current temperature at a location.
///
/// Args:
///     location: The location to get the temperature for, in the format "City, Country"
///     unit: The unit to return the temperature in. (choices: ["celsius", "fahrenheit"])
///
/// Returns:
///     The current temperature at the specified location in the specified units, as a float.
#[tool]
pub fn get_current_temperature(location: &str, unit: String) -> f64 {
    let _ = location;
    if unit == "celsius" {
        22.0
    } else {
        71.6
    }
}
