//! Running one turn's calls for the agent: each call gets its context from
//! the agent's [`RunContext`], and the progress its tool reports (on its own
//! thread, maybe) reaches the run's event callback, on the run's thread, as
//! [`AgentEvent::ToolProgress`] while the calls are still running.

use std::future::Future;
use std::sync::{Arc, Mutex};
use std::task::Waker;

use tool_runtime::{Message, RunContext, ToolCall, ToolProgress, Toolbox};

use super::AgentEvent;

/// Reports made on the tools' threads, waiting for the run's thread.
#[derive(Default)]
struct Reports {
    queued: Vec<ToolProgress>,
    /// The task running the calls, woken when a report arrives.
    waker: Option<Waker>,
}

/// Runs `calls` under `run` (several concurrently), passing each progress
/// report to `on_event` as it comes, and to the run's own progress sink if
/// it has one; the tool messages come back in call order.
pub(super) async fn call_all<F>(
    toolbox: &Toolbox,
    calls: &[ToolCall],
    run: &RunContext,
    on_event: &mut F,
) -> Vec<Message>
where
    F: FnMut(AgentEvent) + ?Sized,
{
    let reports: Arc<Mutex<Reports>> = Arc::default();
    let queue = reports.clone();
    let run = run.clone().and_progress(move |report: ToolProgress| {
        let mut reports = lock(&queue);
        reports.queued.push(report);
        if let Some(waker) = reports.waker.take() {
            waker.wake();
        }
    });
    let mut running = std::pin::pin!(toolbox.call_all_in(calls, &run));
    let pass_on = |on_event: &mut F| {
        let queued = std::mem::take(&mut lock(&reports).queued);
        for report in queued {
            on_event(AgentEvent::ToolProgress(report));
        }
    };
    std::future::poll_fn(|cx| {
        lock(&reports).waker = Some(cx.waker().clone());
        pass_on(on_event);
        let done = running.as_mut().poll(cx);
        // A tool run inline reports during the poll.
        pass_on(on_event);
        done
    })
    .await
}

/// A poisoned lock only means a tool panicked while reporting; the queue
/// itself is whole.
fn lock(m: &Mutex<Reports>) -> std::sync::MutexGuard<'_, Reports> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{json, Map, Value};
    use std::sync::OnceLock;
    use tool_runtime::{Invocation, Tool, ToolContext, ToolDefinition};

    /// Reports `steps` steps from a thread of its own, then answers.
    struct Steps;

    impl Tool for Steps {
        fn name(&self) -> &str {
            "steps"
        }
        fn definition(&self) -> &ToolDefinition {
            static D: OnceLock<ToolDefinition> = OnceLock::new();
            D.get_or_init(|| {
                ToolDefinition::from_json(&json!({"type": "function", "function": {
                    "name": "steps", "parameters": {"type": "object", "properties": {}}}}))
                .unwrap()
            })
        }
        fn invoke(self: Arc<Self>, _: Map<String, Value>, context: ToolContext) -> Invocation {
            Invocation::Blocking(Box::new(move || {
                for i in 1..=3 {
                    context.progress(f64::from(i), Some(3.0), None);
                    std::thread::sleep(std::time::Duration::from_millis(5));
                }
                Ok(context.call_id().into())
            }))
        }
    }

    #[test]
    fn progress_from_tool_threads_reaches_the_events_in_order() {
        let toolbox = Toolbox::new().with(Steps).unwrap();
        let calls = [
            ToolCall::new("a", "steps", json!({})),
            ToolCall::new("b", "steps", json!({})),
        ];
        let mut events = Vec::new();
        let also: Arc<Mutex<usize>> = Arc::default();
        let counted = also.clone();
        let run = RunContext::new().with_progress(move |_| *counted.lock().unwrap() += 1);
        let results =
            tool_runtime::exec::block_on(call_all(&toolbox, &calls, &run, &mut |e| events.push(e)));
        assert_eq!(results[0].text(), "a");
        assert_eq!(results[1].text(), "b");
        for id in ["a", "b"] {
            let done: Vec<f64> = events
                .iter()
                .filter_map(|e| match e {
                    AgentEvent::ToolProgress(p) if p.call_id == id => Some(p.done),
                    _ => None,
                })
                .collect();
            assert_eq!(done, [1.0, 2.0, 3.0], "{id}");
        }
        assert_eq!(
            *also.lock().unwrap(),
            6,
            "the run's own sink hears them too"
        );
    }
}
