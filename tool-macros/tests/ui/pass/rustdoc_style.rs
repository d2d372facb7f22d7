use tool_use::tool;

/// Convert an amount between currencies.
///
/// # Arguments
///
/// * `amount` - How much money
/// * `from` - The currency to convert from, as an ISO code
///   (three letters)
/// * `to` - The currency to convert to (choices: ["EUR", "USD"])
///
/// # Returns
///
/// The converted amount.
///
/// # Examples
///
/// ```ignore
/// # this is not a heading
/// convert(1.0, "USD", "EUR");
/// ```
#[tool]
pub fn convert(amount: f64, from: &str, to: &str) -> f64 {
    let _ = (from, to);
    amount
}

fn main() {
    let s = convert::schema();
    let props = &s["function"]["parameters"]["properties"];
    assert_eq!(props["from"]["description"], "The currency to convert from, as an ISO code (three letters)");
    assert_eq!(props["to"]["enum"], serde_json::json!(["EUR", "USD"]));
    assert_eq!(s["function"]["return"]["description"], "The converted amount.");
    assert_eq!(convert(2.0, "USD", "EUR"), 2.0);
}
