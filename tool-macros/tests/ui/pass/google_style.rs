use tool_use::tool;

/// Get the current temperature at a location.
///
/// Args:
///     location: The location to get the temperature for, in the format "City, Country"
///     unit: The unit to return the temperature in. (choices: ["celsius", "fahrenheit"])
///
/// Returns:
///     The current temperature.
#[tool]
fn get_current_temperature(location: String, unit: String) -> f64 {
    let _ = (location, unit);
    22.0
}

fn main() {
    assert_eq!(get_current_temperature("Paris, France".into(), "celsius".into()), 22.0);
    assert_eq!(get_current_temperature::NAME, "get_current_temperature");
    assert_eq!(get_current_temperature::DESCRIPTION, "Get the current temperature at a location.");
    let schema = get_current_temperature::schema();
    assert_eq!(
        serde_json::to_string(schema).unwrap(),
        get_current_temperature::SCHEMA_JSON
    );
    assert_eq!(schema["function"]["parameters"]["properties"]["unit"]["enum"][1], "fahrenheit");
    assert!(std::ptr::eq(schema, get_current_temperature::schema()), "built once");
}
