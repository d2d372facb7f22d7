//! The responses a later request may continue with `previous_response_id`:
//! the last [`KEPT_RESPONSES`], in memory, oldest forgotten first.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};

use tool_runtime::{Message, ToolDefinition};

/// How many responses are kept.
pub(crate) const KEPT_RESPONSES: usize = 256;

/// What continuing a response needs.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Stored {
    /// Its conversation (without its instructions, which are not carried
    /// over), its output included.
    pub messages: Vec<Message>,
    /// The tools it offered, for a request that offers none.
    pub tools: Vec<ToolDefinition>,
}

/// The last responses, by id.
#[derive(Debug)]
pub(crate) struct ResponseStore {
    capacity: usize,
    entries: Mutex<VecDeque<(String, Arc<Stored>)>>,
}

impl ResponseStore {
    pub fn new(capacity: usize) -> ResponseStore {
        ResponseStore {
            capacity,
            entries: Mutex::new(VecDeque::with_capacity(capacity)),
        }
    }

    fn entries(&self) -> std::sync::MutexGuard<'_, VecDeque<(String, Arc<Stored>)>> {
        // A panic while holding the lock leaves whole entries behind.
        self.entries.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The response `id`, if it is still kept.
    pub fn get(&self, id: &str) -> Option<Arc<Stored>> {
        self.entries()
            .iter()
            .find(|(kept, _)| kept == id)
            .map(|(_, stored)| Arc::clone(stored))
    }

    /// Keeps `stored` as `id`, forgetting the oldest beyond the capacity.
    pub fn put(&self, id: String, stored: Stored) {
        let mut entries = self.entries();
        while entries.len() >= self.capacity.max(1) {
            entries.pop_front();
        }
        entries.push_back((id, Arc::new(stored)));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stored(text: &str) -> Stored {
        Stored {
            messages: vec![Message::user(text)],
            tools: Vec::new(),
        }
    }

    #[test]
    fn keeps_the_last_n() {
        let store = ResponseStore::new(2);
        store.put("a".into(), stored("1"));
        store.put("b".into(), stored("2"));
        assert_eq!(store.get("a").unwrap().messages[0].text(), "1");
        store.put("c".into(), stored("3"));
        assert!(store.get("a").is_none());
        assert_eq!(store.get("b").unwrap().messages[0].text(), "2");
        assert_eq!(store.get("c").unwrap().messages[0].text(), "3");
        assert!(store.get("d").is_none());
    }
}
