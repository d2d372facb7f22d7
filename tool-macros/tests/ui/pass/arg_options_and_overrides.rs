use tool_use::tool;

/// Search the catalogue.
///
/// Args:
///     query: What to look for
///     limit: How many results
///     tags: Tags to match
///     marker: The marker
#[tool(name = "catalogue-search", description = "Search the product catalogue.")]
fn search(
    query: String,
    #[arg(default = 10)] limit: u8,
    #[arg(default = -1.5, description = "Minimum score")] min_score: f64,
    #[arg(default = ["new"])] tags: Vec<String>,
    #[arg(default = 'x')] mut marker: char,
) -> Vec<String> {
    marker = marker.to_ascii_uppercase();
    let _ = (limit, min_score, tags, marker);
    vec![query]
}

/// Undocumented parameters may be described inline.
#[tool]
fn inline(#[arg(description = "The value")] value: i32) {
    let _ = value;
}

#[tool(description = "A tool with no doc comment at all.")]
fn bare() {}

/// Weather where the user said.
///
/// Args:
///     city: The city, as the user wrote it
///     note: A note
///     people: Who comes
///     budget: How much to spend
///     nights: How many nights
///     prices: Prices to compare
#[tool]
fn grounded(
    #[arg(grounded)] city: String,
    #[arg(grounded)] note: Option<String>,
    #[arg(grounded)] people: Vec<String>,
    #[arg(grounded)] budget: f64,
    #[arg(grounded)] nights: Option<u32>,
    #[arg(grounded)] prices: Vec<f32>,
) {
    let _ = (city, note, people, budget, nights, prices);
}

fn main() {
    assert_eq!(search::NAME, "catalogue-search");
    let f = &search::schema()["function"];
    assert_eq!(f["description"], "Search the product catalogue.");
    assert_eq!(f["parameters"]["required"], serde_json::json!(["query"]));
    assert_eq!(f["parameters"]["properties"]["limit"]["default"], 10);
    assert_eq!(f["parameters"]["properties"]["min_score"]["default"], -1.5);
    assert_eq!(f["parameters"]["properties"]["min_score"]["description"], "Minimum score");
    assert_eq!(f["parameters"]["properties"]["tags"]["default"], serde_json::json!(["new"]));
    assert_eq!(f["parameters"]["properties"]["marker"]["default"], "x");
    assert_eq!(search("q".into(), 1, 0.0, vec![], 'a'), vec!["q".to_string()]);
    assert_eq!(inline::schema()["function"]["parameters"]["properties"]["value"]["description"], "The value");
    assert_eq!(bare::DESCRIPTION, "A tool with no doc comment at all.");
    let g = &grounded::schema()["function"]["parameters"]["properties"];
    assert_eq!(g["city"]["x-grounded"], true);
    assert_eq!(g["note"]["x-grounded"], true);
    assert_eq!(g["people"]["x-grounded"], true);
    for number in ["budget", "nights", "prices"] {
        assert_eq!(g[number]["x-grounded"], true);
    }
    assert!(grounded::SCHEMA_JSON.contains("\"x-grounded\""));
    assert!(inline::SCHEMA_JSON.find("x-grounded").is_none());
    inline(1);
    bare();
}
