//! A toolbox changed while shared: snapshots stay as they were, changes are
//! whole or absent, listeners hear each change once, and concurrent changes
//! are all kept.

use proptest::prelude::*;
use serde_json::{json, Map, Value};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use tool_runtime::{
    Invocation, SharedToolbox, Tool, ToolCall, ToolContext, ToolDefinition, Toolbox, ToolboxError,
};

/// A tool that answers with its own name.
struct Named {
    name: String,
    definition: ToolDefinition,
}

fn named(name: &str) -> Arc<dyn Tool> {
    let definition = ToolDefinition::from_json(&json!({
        "type": "function",
        "function": {"name": name, "parameters": {"type": "object", "properties": {}}}
    }))
    .unwrap();
    Arc::new(Named {
        name: name.to_owned(),
        definition,
    })
}

impl Tool for Named {
    fn name(&self) -> &str {
        &self.name
    }

    fn definition(&self) -> &ToolDefinition {
        &self.definition
    }

    fn invoke(self: Arc<Self>, _: Map<String, Value>, _: ToolContext) -> Invocation {
        Invocation::Blocking(Box::new(move || Ok(self.name.clone().into())))
    }
}

fn names(toolbox: &Toolbox) -> Vec<String> {
    toolbox.names().map(str::to_owned).collect()
}

#[test]
fn a_snapshot_keeps_its_tools_and_runs_them_after_they_are_removed() {
    let shared = SharedToolbox::new(Toolbox::new().with_shared(named("a")).unwrap());
    let before = shared.snapshot();
    shared.add(named("b")).unwrap();
    assert!(shared.remove("a").is_some());
    assert_eq!(names(&before), ["a"]);
    assert_eq!(names(&shared.snapshot()), ["b"]);
    let call = ToolCall::new("1", "a", json!({}));
    assert_eq!(before.call_blocking(&call).text(), "a");
    let gone = shared.snapshot().call_blocking(&call);
    assert!(
        gone.text().starts_with("Error: unknown tool `a`"),
        "{}",
        gone.text()
    );
    assert_eq!(shared.version(), 2);
}

#[test]
fn a_failed_change_changes_nothing_and_tells_no_one() {
    let shared = SharedToolbox::new(Toolbox::new().with_shared(named("a")).unwrap());
    let heard = Arc::new(AtomicUsize::new(0));
    let counter = heard.clone();
    let _listening = shared.on_change(move |_| {
        counter.fetch_add(1, Ordering::SeqCst);
    });
    let clash = Toolbox::new()
        .with_shared(named("b"))
        .unwrap()
        .with_shared(named("a"))
        .unwrap();
    assert_eq!(
        shared.merge(clash),
        Err(ToolboxError::DuplicateName("a".into()))
    );
    assert_eq!(names(&shared.snapshot()), ["a"], "`b` was not kept either");
    assert_eq!(
        shared.add(named("a")),
        Err(ToolboxError::DuplicateName("a".into()))
    );
    assert!(shared.remove("nope").is_none());
    assert_eq!((shared.version(), heard.load(Ordering::SeqCst)), (0, 0));

    // Several changes as one: heard once, seen whole.
    shared
        .update(|toolbox| {
            toolbox.remove("a");
            toolbox.add(named("c"))?;
            toolbox.add(named("d"))
        })
        .unwrap();
    assert_eq!(names(&shared.snapshot()), ["c", "d"]);
    assert_eq!((shared.version(), heard.load(Ordering::SeqCst)), (1, 1));
}

#[test]
fn listeners_hear_each_change_with_its_tools_until_dropped() {
    let shared = SharedToolbox::default();
    let heard = Arc::new(Mutex::new(Vec::new()));
    let log = heard.clone();
    let reader = shared.clone();
    let listening = shared.on_change(move |toolbox| {
        // A listener may read the toolbox: it is the one it was given.
        assert_eq!(names(&reader.snapshot()), names(toolbox));
        log.lock().unwrap().push(names(toolbox));
    });
    shared.add(named("a")).unwrap();
    shared.add(named("b")).unwrap();
    shared.remove("a");
    drop(listening);
    shared.add(named("c")).unwrap();
    assert_eq!(
        *heard.lock().unwrap(),
        [vec!["a"], vec!["a", "b"], vec!["b"]]
    );
}

#[test]
fn changes_from_many_threads_are_all_kept() {
    let shared = SharedToolbox::default();
    let heard = Arc::new(AtomicUsize::new(0));
    let counter = heard.clone();
    let _listening = shared.on_change(move |_| {
        counter.fetch_add(1, Ordering::SeqCst);
    });
    std::thread::scope(|s| {
        for t in 0..8 {
            let shared = shared.clone();
            s.spawn(move || {
                for i in 0..25 {
                    shared.add(named(&format!("t{t}_{i}"))).unwrap();
                    // Readers meanwhile see whole toolboxes.
                    let (version, toolbox) = shared.versioned();
                    assert!(toolbox.len() as u64 <= version);
                }
                for i in (0..25).step_by(2) {
                    assert!(shared.remove(&format!("t{t}_{i}")).is_some());
                }
            });
        }
    });
    let toolbox = shared.snapshot();
    assert_eq!(toolbox.len(), 8 * 12);
    assert_eq!(shared.version(), 8 * (25 + 13));
    assert_eq!(heard.load(Ordering::SeqCst), 8 * (25 + 13));
    for t in 0..8 {
        for i in 0..25 {
            let name = format!("t{t}_{i}");
            assert_eq!(toolbox.get(&name).is_some(), i % 2 == 1, "{name}");
        }
    }
}

#[derive(Debug, Clone)]
enum Change {
    Add(u8),
    Remove(u8),
}

fn change() -> impl Strategy<Value = Change> {
    prop_oneof![
        (0u8..12).prop_map(Change::Add),
        (0u8..12).prop_map(Change::Remove)
    ]
}

proptest! {
    /// Any sequence of additions and removals leaves the tools a plain list
    /// would hold, in its order, each found by name and dispatched to; the
    /// version counts the changes that changed something.
    #[test]
    fn adds_and_removes_agree_with_a_list(changes in prop::collection::vec(change(), 0..40)) {
        let shared = SharedToolbox::default();
        let mut expected: Vec<String> = Vec::new();
        let mut made = 0;
        for change in changes {
            match change {
                Change::Add(n) => {
                    let name = format!("tool_{n}");
                    let added = shared.add(named(&name));
                    if expected.contains(&name) {
                        prop_assert_eq!(added, Err(ToolboxError::DuplicateName(name)));
                    } else {
                        prop_assert_eq!(added, Ok(()));
                        expected.push(name);
                        made += 1;
                    }
                }
                Change::Remove(n) => {
                    let name = format!("tool_{n}");
                    let removed = shared.remove(&name);
                    let at = expected.iter().position(|e| *e == name);
                    prop_assert_eq!(removed.is_some(), at.is_some());
                    if let Some(at) = at {
                        expected.remove(at);
                        made += 1;
                    }
                }
            }
        }
        let toolbox = shared.snapshot();
        prop_assert_eq!(names(&toolbox), expected.clone());
        prop_assert_eq!(shared.version(), made);
        for name in &expected {
            let answer = toolbox.call_blocking(&ToolCall::new("1", name, json!({})));
            prop_assert_eq!(answer.text(), name.as_str());
        }
    }
}
