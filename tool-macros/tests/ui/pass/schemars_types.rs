use tool_use::tool;

/// A point on the map.
#[derive(schemars::JsonSchema, serde::Deserialize, serde::Serialize)]
struct Point {
    /// Latitude
    lat: f64,
    lon: f64,
    label: Option<Label>,
}

#[derive(schemars::JsonSchema, serde::Deserialize, serde::Serialize)]
struct Label {
    title: String,
}

#[derive(schemars::JsonSchema, serde::Deserialize, serde::Serialize)]
#[serde(rename_all = "lowercase")]
enum Mode {
    Walk,
    Drive,
}

/// Plan a route.
///
/// Args:
///     stops: Where to stop
///     mode: How to travel
///     start: Where to start
#[tool]
fn route(stops: Vec<Point>, mode: Option<Mode>, #[arg(default = "walk")] start: Mode) -> Point {
    let _ = (mode, start);
    stops.into_iter().next().unwrap()
}

fn main() {
    let s = route::schema();
    let text = serde_json::to_string(s).unwrap();
    for banned in ["$ref", "$defs", "$schema"] {
        assert!(!text.contains(banned), "{banned} in {text}");
    }
    let props = &s["function"]["parameters"]["properties"];
    assert_eq!(props["stops"]["type"], "array");
    assert_eq!(props["stops"]["items"]["type"], "object");
    assert!(props["stops"]["items"].get("title").is_none());
    // A property called `title` is kept; only the schema keyword goes.
    assert_eq!(
        props["stops"]["items"]["properties"]["label"]["properties"]["title"]["type"],
        "string"
    );
    assert_eq!(props["mode"]["nullable"], true);
    assert_eq!(props["mode"]["description"], "How to travel");
    assert_eq!(props["start"]["default"], "walk");
    assert_eq!(s["function"]["parameters"]["required"], serde_json::json!(["stops"]));
    assert_eq!(s["function"]["return"]["required"], serde_json::json!(["lat", "lon"]));
    let keys: Vec<&String> = props["mode"].as_object().unwrap().keys().collect();
    assert_eq!(keys.last().unwrap().as_str(), "description");
    assert!(std::ptr::eq(s, route::schema()), "built once and cached");
}
