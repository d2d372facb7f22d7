use tool_use::tool;

/// Say "hello" — in any language: \ backslash, tab	here, émoji 😀.
///
/// Args:
///     text: The "text" (choices: ["a\"b", "c\\d", "é"])
#[tool]
fn greet(text: String) -> String {
    text
}

fn main() {
    let parsed: serde_json::Value = serde_json::from_str(greet::SCHEMA_JSON).unwrap();
    assert_eq!(&parsed, greet::schema());
    assert_eq!(serde_json::to_string(&parsed).unwrap(), greet::SCHEMA_JSON);
    assert_eq!(greet::schema()["function"]["parameters"]["properties"]["text"]["enum"][0], "a\"b");
    assert_eq!(greet::DESCRIPTION, "Say \"hello\" — in any language: \\ backslash, tab\there, émoji 😀.");
}
