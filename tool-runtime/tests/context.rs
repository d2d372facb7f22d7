//! The call's context end to end: `#[tool]` functions that take a
//! `&ToolContext` see their own call, the run's data and its cancellation;
//! timeouts and cancelled runs cancel the calls they end.

// Generated code names the facade `::tool_use`; here the runtime stands in for it.
extern crate tool_runtime as tool_use;

use serde_json::json;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tool_macros::tool;
use tool_runtime::{
    toolbox, CancelToken, Role, RunContext, ToolCall, ToolContext, ToolError, ToolProgress,
};

/// Set by `patient` when it saw its cancellation; `patient` is the only
/// tool that touches it, and one test calls it.
static SAW_CANCEL: AtomicBool = AtomicBool::new(false);

/// Wait for up to ten seconds, stopping early when cancelled.
#[tool]
fn patient(context: &ToolContext) -> String {
    let start = Instant::now();
    while start.elapsed() < Duration::from_secs(10) {
        if context.is_cancelled() {
            SAW_CANCEL.store(true, Ordering::SeqCst);
            return "stopped".into();
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    "waited".into()
}

/// Wait until cancelled, counting the waits that ended.
#[tool]
async fn waiter(context: &ToolContext) -> String {
    context.cancelled().await;
    ENDED_WAITS.fetch_add(1, Ordering::SeqCst);
    "cancelled".into()
}

static ENDED_WAITS: AtomicUsize = AtomicUsize::new(0);

/// Say which call this is.
///
/// Args:
///     tag: A label
#[tool]
fn whoami(tag: String, context: &ToolContext) -> String {
    format!("{tag}:{}:{}", context.tool_name(), context.call_id())
}

/// Report progress in three steps.
#[tool]
fn steps(context: &ToolContext) -> u8 {
    for i in 1..=3 {
        context.progress(f64::from(i), Some(3.0), Some(&format!("step {i}")));
    }
    3
}

struct Account(&'static str);

/// Read the account the run acts for.
#[tool]
fn account(context: &ToolContext) -> String {
    context.get::<Account>().map_or("none", |a| a.0).to_owned()
}

/// Waits until the tool on its own thread sets `flag` to say it saw the
/// cancellation; fails after five seconds.
#[track_caller]
fn wait_until_set(flag: &AtomicBool) {
    let start = Instant::now();
    while !flag.load(Ordering::SeqCst) {
        assert!(
            start.elapsed() < Duration::from_secs(5),
            "the tool never saw it"
        );
        std::thread::sleep(Duration::from_millis(5));
    }
}

#[test]
fn a_timeout_cancels_the_call_and_the_model_reads_the_timeout() {
    let t = toolbox![patient].timeout(Some(Duration::from_millis(50)));
    let start = Instant::now();
    let answer = t.call_blocking(&ToolCall::new("c1", "patient", json!({})));
    assert!(start.elapsed() < Duration::from_secs(5));
    assert_eq!(
        answer.text(),
        "Error: the tool `patient` did not finish within 0.05s"
    );
    // The tool's thread sees the cancellation and stops; its late answer
    // is discarded.
    wait_until_set(&SAW_CANCEL);
}

#[test]
fn cancelling_the_run_ends_its_calls_at_once() {
    let t = toolbox![waiter];
    let token = CancelToken::new();
    let run = RunContext::new().with_cancel(token.clone());
    let canceller = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(30));
        token.cancel();
    });
    let calls = [
        ToolCall::new("a", "waiter", json!({})),
        ToolCall::new("b", "waiter", json!({})),
    ];
    let answers = tool_runtime::exec::block_on(t.call_all_in(&calls, &run));
    canceller.join().unwrap();
    assert_eq!(answers.len(), 2);
    for answer in &answers {
        assert_eq!(answer.role, Role::Tool);
        assert_eq!(answer.text(), "Error: the call to `waiter` was cancelled");
    }
    // A run cancelled before a call starts does not start it.
    let ended = ENDED_WAITS.load(Ordering::SeqCst);
    let answer = t.call_in_blocking(&calls[0], &run);
    assert_eq!(answer.text(), "Error: the call to `waiter` was cancelled");
    assert_eq!(ENDED_WAITS.load(Ordering::SeqCst), ended);
}

/// Set by `watcher` once it saw its call cancelled.
static WATCHER_SAW: AtomicBool = AtomicBool::new(false);

/// Watch until cancelled (at most ten seconds).
#[tool]
fn watcher(context: &ToolContext) -> String {
    let start = Instant::now();
    while !context.is_cancelled() && start.elapsed() < Duration::from_secs(10) {
        std::thread::sleep(Duration::from_millis(5));
    }
    WATCHER_SAW.store(context.is_cancelled(), Ordering::SeqCst);
    "done".into()
}

#[test]
fn dropping_a_running_call_cancels_its_context_alone() {
    // A time limit puts the blocking tool on a thread of its own, which
    // outlives the dropped call and reports what it saw.
    let t = toolbox![watcher].timeout(Some(Duration::from_secs(20)));
    let token = CancelToken::new();
    let run = RunContext::new().with_cancel(token.clone());
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_time()
        .build()
        .unwrap();
    rt.block_on(async {
        let call = ToolCall::new("d", "watcher", json!({}));
        // The agent run awaiting the call is dropped when this fires.
        let out = tokio::time::timeout(Duration::from_millis(30), t.call_in(&call, &run)).await;
        assert!(out.is_err());
    });
    wait_until_set(&WATCHER_SAW);
    // The run itself goes on: only the dropped call was cancelled.
    assert!(!token.is_cancelled());
}

#[test]
fn parallel_calls_each_get_their_own_context() {
    let t = toolbox![whoami];
    let calls: Vec<ToolCall> = (0..4)
        .map(|i| {
            ToolCall::new(
                format!("call_{i}"),
                "whoami",
                json!({"tag": format!("t{i}")}),
            )
        })
        .collect();
    let answers = t.call_all_blocking(&calls);
    let texts: Vec<&str> = answers.iter().map(|m| m.text()).collect();
    assert_eq!(
        texts,
        [
            "t0:whoami:call_0",
            "t1:whoami:call_1",
            "t2:whoami:call_2",
            "t3:whoami:call_3"
        ]
    );
}

#[test]
fn progress_and_data_reach_the_tool_through_the_run() {
    let seen: Arc<Mutex<Vec<ToolProgress>>> = Arc::default();
    let sink = seen.clone();
    let run = RunContext::new()
        .with(Account("ada@example.com"))
        .with_progress(move |p| sink.lock().unwrap().push(p));
    let t = toolbox![steps, account];
    let answers = tool_runtime::exec::block_on(t.call_all_in(
        &[
            ToolCall::new("s", "steps", json!({})),
            ToolCall::new("a", "account", json!({})),
        ],
        &run,
    ));
    assert_eq!(answers[0].text(), "3");
    assert_eq!(answers[1].text(), "ada@example.com");
    let seen = seen.lock().unwrap();
    let done: Vec<f64> = seen.iter().map(|p| p.done).collect();
    assert_eq!(done, [1.0, 2.0, 3.0]);
    assert!(seen.iter().all(|p| p.call_id == "s" && p.tool == "steps"));
    assert_eq!(seen[2].message.as_deref(), Some("step 3"));
    // Without the data, the tool sees none.
    let plain = t.call_blocking(&ToolCall::new("a", "account", json!({})));
    assert_eq!(plain.text(), "none");
}

#[test]
fn a_cancelled_error_reads_as_the_model_would_be_told() {
    let e = ToolError::Cancelled {
        tool: "countdown".into(),
    };
    assert_eq!(e.to_string(), "the call to `countdown` was cancelled");
}
