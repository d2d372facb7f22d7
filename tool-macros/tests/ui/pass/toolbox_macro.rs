use tool_use::{tool, toolbox, DefinitionFormat, ToolCall};

mod weather {
    use tool_use::tool;

    /// Get the wind speed.
    ///
    /// Args:
    ///     location: Where
    #[tool]
    pub fn get_current_wind_speed(location: &str) -> f64 {
        location.len() as f64
    }
}

/// Get the temperature.
///
/// Args:
///     location: Where
#[tool]
fn get_current_temperature(location: String) -> f64 {
    let _ = location;
    22.0
}

fn main() {
    let tools = toolbox![get_current_temperature, weather::get_current_wind_speed];
    assert_eq!(tools.names().collect::<Vec<_>>(), ["get_current_temperature", "get_current_wind_speed"]);
    assert_eq!(tools.definitions(DefinitionFormat::Transformers).len(), 2);
    let m = tools.call_blocking(&ToolCall::new("c", "get_current_wind_speed", serde_json::json!({"location": "Oslo"})));
    assert_eq!(m.text(), "4.0");

    // One more `#[tool]` function, added to a toolbox built elsewhere.
    let base = toolbox![weather::get_current_wind_speed];
    let more = base.merge(toolbox![get_current_temperature]).unwrap();
    assert_eq!(more.names().collect::<Vec<_>>(), ["get_current_wind_speed", "get_current_temperature"]);
    // A name both hold is refused.
    assert!(more.merge(toolbox![get_current_temperature]).is_err());
}
