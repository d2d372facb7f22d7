use std::borrow::Cow;
use tool_use::tool;

fn main() {
    /// Join two strings.
    ///
    /// Args:
    ///     a: first
    ///     b: second
    ///     r#type: how to join
    #[tool]
    fn join<'a>(a: &'a str, b: Cow<'a, str>, r#type: Option<char>) -> String {
        format!("{a}{}{b}", r#type.unwrap_or(' '))
    }

    assert_eq!(join("a", "b".into(), Some('-')), "a-b");
    let props = &join::schema()["function"]["parameters"]["properties"];
    assert_eq!(props["type"]["maxLength"], 1);
    assert_eq!(props["type"]["nullable"], true);
    assert_eq!(join::schema()["function"]["parameters"]["required"], serde_json::json!(["a", "b"]));
}
