//! Whether a chat template shows the model its tools at all. Many chat
//! templates (SmolLM2's, Gemma 3's) leave `tools` out of the prompt: a
//! model behind one is never told what it may call, and the agent falls
//! back to the generic tool prompt (`parse::generic`).

use super::{ChatTemplate, RenderOptions};
use serde_json::json;
use std::collections::BTreeMap;
use tool_runtime::Message;

impl ChatTemplate {
    /// Whether offering a tool changes what this template renders for a
    /// one-question conversation. A template that fails to render it is
    /// taken to show tools: there is nothing to fall back from.
    pub fn shows_tools(&self, special_tokens: &BTreeMap<String, String>) -> bool {
        let messages = [Message::user("What's the weather in Paris?")];
        let plain = RenderOptions::new(&messages)
            .add_generation_prompt(true)
            .special_tokens(special_tokens);
        let tool = json!({"type": "function", "function": {
            "name": "get_weather",
            "description": "The current weather in a city.",
            "parameters": {"type": "object", "properties": {
                "city": {"type": "string", "description": "The city."}},
                "required": ["city"]}}});
        let offered = plain.clone().tools(&[tool]);
        match (self.render(&plain), self.render(&offered)) {
            (Ok(plain), Ok(offered)) => plain.text != offered.text,
            _ => true,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn templates_that_print_tools_show_them_and_others_do_not() {
        let shows = ChatTemplate::new(
            "{% if tools %}{{ tools | tojson }}{% endif %}{% for m in messages %}{{ m.content }}{% endfor %}",
        )
        .unwrap();
        assert!(shows.shows_tools(&BTreeMap::new()));
        let ignores =
            ChatTemplate::new("{% for m in messages %}<|{{ m.role }}|>{{ m.content }}{% endfor %}")
                .unwrap();
        assert!(!ignores.shows_tools(&BTreeMap::new()));
        // A template that cannot render the probe is not second-guessed.
        let raises = ChatTemplate::new("{{ raise_exception('no') }}").unwrap();
        assert!(raises.shows_tools(&BTreeMap::new()));
    }
}
