mod tools {
    pub mod weather {
        use tool_use::tool;

        /// Get the wind speed.
        ///
        /// Args:
        ///     location: Where
        #[tool]
        pub fn get_current_wind_speed(location: &str) -> f64 {
            let _ = location;
            6.0
        }

        /// Crate-visible.
        #[tool]
        pub(crate) fn ping() {}
    }
}

fn main() {
    use tools::weather;
    assert_eq!(weather::get_current_wind_speed("x"), 6.0);
    assert_eq!(weather::get_current_wind_speed::NAME, "get_current_wind_speed");
    assert_eq!(tools::weather::ping::SCHEMA_JSON,
        r#"{"type":"function","function":{"name":"ping","description":"Crate-visible.","parameters":{"type":"object","properties":{}}}}"#);
    weather::ping();
}
