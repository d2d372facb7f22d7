//! What an agent streamed, read back from the events of its run. Shared by
//! the tests of `tool-models` and of the `tool-use` facade.

use tool_models::agent::AgentEvent;
use tool_models::parse::StreamEvent;

/// The answer's text as it was streamed: the content pieces of `events`,
/// joined.
pub fn streamed_content(events: &[AgentEvent]) -> String {
    events
        .iter()
        .filter_map(|e| match e {
            AgentEvent::Stream(StreamEvent::Content(text)) => Some(text.as_str()),
            _ => None,
        })
        .collect()
}
