//! The agent loop with a scripted model: what it appends, what it reports,
//! how it dispatches, and how it stops.

#[path = "../tool-models/tests/common/events.rs"]
mod events;
#[path = "common/tools.rs"]
mod tools;

use std::sync::{Condvar, Mutex};
use std::time::Duration;

use events::streamed_content;
use serde_json::json;
use tool_use::parse::{Format, StreamEvent};
use tool_use::ToolChoice;
use tool_use::{
    agent::{Agent, AgentError, AgentEvent, Approval, Stopped},
    chat::{ChatModel, ModelDelta, Turn, TurnRequest, TurnStats},
};
use tool_use::{tool, toolbox, DefinitionFormat, Message, Role, Toolbox};
use tools::divide;

/// Get the current temperature at a location.
///
/// Args:
///     location: The location, in the format "City, Country"
#[tool]
fn get_current_temperature(location: String) -> f64 {
    if location.starts_with("Paris") {
        22.0
    } else {
        15.5
    }
}

/// Asserts that `message`'s text starts with `prefix`, showing the text if
/// not.
#[track_caller]
fn assert_text_starts_with(message: &Message, prefix: &str) {
    let text = message.text();
    assert!(text.starts_with(prefix), "{text}");
}

/// Replays canned turns and records what it was asked.
struct Scripted {
    turns: Vec<String>,
    seen: Vec<(usize, ToolChoice, usize)>,
    /// The names of the tools offered, each round.
    offered: Vec<Vec<String>>,
}

impl Scripted {
    fn new(turns: &[&str]) -> Scripted {
        Scripted {
            turns: turns.iter().map(|t| t.to_string()).collect(),
            seen: Vec::new(),
            offered: Vec::new(),
        }
    }
}

impl ChatModel for Scripted {
    fn format(&self) -> Format {
        Format::Hermes
    }

    fn respond(
        &mut self,
        request: &TurnRequest<'_>,
        out: &mut dyn FnMut(ModelDelta<'_>),
    ) -> Result<Turn, Box<dyn std::error::Error + Send + Sync>> {
        self.seen.push((
            request.messages.len(),
            request.tool_choice.clone(),
            request.tools.len(),
        ));
        self.offered
            .push(request.tools.iter().map(|t| t.name().to_owned()).collect());
        if self.turns.is_empty() {
            return Err("script exhausted".into());
        }
        let text = self.turns.remove(0);
        // Stream in small pieces, cutting markup, as a model would.
        let chars: Vec<char> = text.chars().collect();
        for piece in chars.chunks(3) {
            out(ModelDelta::Text(&piece.iter().collect::<String>()));
        }
        let stats = TurnStats {
            prompt_tokens: 100 * self.seen.len(),
            reused_tokens: 90 * (self.seen.len() - 1),
            generated_tokens: chars.len(),
            prefill: Duration::from_millis(10),
            decode: Duration::from_millis(20),
            time_to_first_token: Duration::from_millis(12),
        };
        Ok(Turn { text, stats })
    }
}

fn weather_box() -> Toolbox {
    toolbox![get_current_temperature, divide]
}

fn user(text: &str) -> Vec<Message> {
    vec![Message::user(text)]
}

#[test]
fn a_call_then_an_answer_builds_the_transcript_and_reports_each_step() {
    let model = Scripted::new(&[
        r#"<tool_call>{"name": "get_current_temperature", "arguments": {"location": "Paris, France"}}</tool_call>"#,
        "It is 22.0 degrees in Paris.",
    ]);
    let mut agent = Agent::new(model, weather_box());
    let mut events = Vec::new();
    let run = agent
        .run_with(user("How warm is Paris?"), &mut |e| events.push(e))
        .unwrap();

    let roles: Vec<Role> = run.messages.iter().map(|m| m.role).collect();
    assert_eq!(
        roles,
        [Role::User, Role::Assistant, Role::Tool, Role::Assistant]
    );
    let call = &run.messages[1].tool_calls[0];
    assert_eq!(call.name, "get_current_temperature");
    assert_eq!(call.arguments["location"], "Paris, France");
    assert_eq!(run.messages[2].text(), "22.0");
    assert_eq!(
        run.messages[2].tool_call_id.as_deref(),
        Some(call.id.as_str())
    );
    assert_eq!(run.answer, "It is 22.0 degrees in Paris.");
    assert_eq!(run.messages[3].text(), run.answer);

    // Events: call and result in round 1, the answer streamed in round 2.
    let kinds: Vec<&str> = events
        .iter()
        .map(|e| match e {
            AgentEvent::RoundStart { .. } => "round",
            AgentEvent::Stream(StreamEvent::Content(_)) => "text",
            AgentEvent::Stream(StreamEvent::Reasoning(_)) => "reasoning",
            AgentEvent::Stream(StreamEvent::ToolCallStart { .. }) => "start",
            AgentEvent::Stream(StreamEvent::ToolCallArguments { .. }) => "arguments",
            AgentEvent::Stream(StreamEvent::ToolCallEnd { .. }) => "call",
            AgentEvent::Stream(StreamEvent::InvalidToolCall(_)) => "invalid (stream)",
            AgentEvent::InvalidToolCall { .. } => "invalid",
            AgentEvent::ToolProgress(_) => "progress",
            AgentEvent::ToolResult { .. } => "result",
            AgentEvent::TurnEnd { .. } => "end",
            AgentEvent::Answer(_) => "answer",
        })
        .collect::<Vec<_>>();
    let mut dedup = kinds.clone();
    dedup.dedup();
    assert_eq!(
        dedup,
        [
            "round",
            "start",
            "arguments",
            "call",
            "end",
            "result",
            "round",
            "text",
            "end",
            "answer"
        ]
    );
    // The call's start names it, and its streamed arguments are its arguments.
    let streamed_arguments: String = events
        .iter()
        .filter_map(|e| match e {
            AgentEvent::Stream(StreamEvent::ToolCallArguments { index: 0, delta }) => {
                Some(delta.as_str())
            }
            _ => None,
        })
        .collect();
    let streamed_arguments: serde_json::Value = serde_json::from_str(&streamed_arguments).unwrap();
    assert_eq!(streamed_arguments, call.arguments);
    assert!(events.iter().any(|e| matches!(
        e,
        AgentEvent::Stream(StreamEvent::ToolCallStart { index: 0, id, name }) if *id == call.id && name == "get_current_temperature"
    )));
    assert_eq!(streamed_content(&events), run.answer);

    // The model saw the toolbox's definitions, and the growing transcript.
    let model = agent.model();
    assert_eq!(model.seen[0].2, 2);
    assert_eq!(model.seen[0].0, 1);
    assert_eq!(model.seen[1].0, 3);
    assert_eq!(
        agent
            .toolbox()
            .snapshot()
            .definitions(DefinitionFormat::Transformers)
            .len(),
        2
    );

    assert_eq!(run.stats.rounds, 2);
    assert_eq!(run.stats.prompt_tokens, 300);
    assert_eq!(run.stats.reused_tokens, 90);
    assert_eq!(run.stats.turns.len(), 2);
    assert!((run.stats.time_to_first_token_s - 0.012).abs() < 1e-9);
    assert!((run.stats.prefill_tokens_per_s - 210.0 / 0.02).abs() < 1e-6);
}

#[test]
fn tool_errors_and_unreadable_calls_go_back_to_the_model() {
    let model = Scripted::new(&[
        concat!(
            r#"<tool_call>{"name": "divide", "arguments": {"a": 1, "b": 0}}</tool_call>"#,
            r#"<tool_call>{"name": "divide", "arguments": {"a": 1, "b": </tool_call>"#,
            r#"<tool_call>{"name": "get_weather", "arguments": {}}</tool_call>"#,
        ),
        "I could not compute that.",
    ]);
    let mut events = Vec::new();
    let run = Agent::new(model, weather_box())
        .run_with(user("1/0?"), &mut |e| events.push(e))
        .unwrap();
    assert_eq!(run.messages.len(), 6);
    let calls = &run.messages[1].tool_calls;
    assert_eq!(calls.len(), 3, "every call, readable or not, is recorded");
    assert_eq!(run.messages[2].text(), "Error: division by zero");
    assert_text_starts_with(&run.messages[3], "Error: ");
    assert!(
        calls[1].arguments.is_string(),
        "raw text kept: {:?}",
        calls[1]
    );
    assert_text_starts_with(&run.messages[4], "Error: unknown tool `get_weather`");
    for (call, answer) in calls.iter().zip(&run.messages[2..5]) {
        assert_eq!(answer.tool_call_id.as_deref(), Some(call.id.as_str()));
    }
    // The cut-off call, and the call to a tool not offered (the parser
    // knows the offered tools).
    assert_eq!(
        events
            .iter()
            .filter(|e| matches!(e, AgentEvent::InvalidToolCall { .. }))
            .count(),
        2
    );
    assert_eq!(run.answer, "I could not compute that.");
}

#[test]
fn a_model_that_keeps_calling_stops_at_max_rounds_with_its_transcript() {
    let call = r#"<tool_call>{"name": "get_current_temperature", "arguments": {"location": "Oslo, Norway"}}</tool_call>"#;
    let model = Scripted::new(&[call; 10]);
    let err = Agent::new(model, weather_box())
        .max_rounds(3)
        .answer_on_repeat(false)
        .run(user("Loop"))
        .unwrap_err();
    assert!(matches!(err, AgentError::MaxRounds { rounds: 3, .. }));
    assert!(err.to_string().contains("after 3 rounds"), "{err}");
    assert!(err.to_string().contains("get_current_temperature"), "{err}");
    assert_eq!(err.messages().len(), 1 + 3 * 2);
    assert_eq!(err.messages()[6].text(), "15.5");
}

#[test]
fn calls_repeated_word_for_word_are_answered_from_the_results_already_there() {
    let call = r#"<tool_call>{"name": "get_current_temperature", "arguments": {"location": "Oslo, Norway"}}</tool_call>"#;
    let model = Scripted::new(&[call, call, "It is 15.5 degrees in Oslo."]);
    let mut agent = Agent::new(model, weather_box());
    let run = agent.run(user("How warm is Oslo?")).unwrap();
    // The repeat is not run again, nor kept: the round after it must answer.
    let roles: Vec<Role> = run.messages.iter().map(|m| m.role).collect();
    assert_eq!(
        roles,
        [Role::User, Role::Assistant, Role::Tool, Role::Assistant]
    );
    assert_eq!(run.answer, "It is 15.5 degrees in Oslo.");
    let choices: Vec<ToolChoice> = agent.model().seen.iter().map(|s| s.1.clone()).collect();
    assert_eq!(
        choices,
        [ToolChoice::Auto, ToolChoice::Auto, ToolChoice::None]
    );

    // Asked once: a model that calls again then has its call run.
    let other = r#"<tool_call>{"name": "get_current_temperature", "arguments": {"location": "Paris, France"}}</tool_call>"#;
    let model = Scripted::new(&[call, call, other, "Both known."]);
    let run = Agent::new(model, weather_box())
        .run(user("Oslo and Paris?"))
        .unwrap();
    assert_eq!(run.messages.len(), 1 + 2 * 2 + 1);
    assert_eq!(run.messages[4].text(), "22.0");
}

#[test]
fn a_failing_model_stops_the_run_and_keeps_the_transcript() {
    let call = r#"<tool_call>{"name": "get_current_temperature", "arguments": {"location": "Oslo, Norway"}}</tool_call>"#;
    let err = Agent::new(Scripted::new(&[call]), weather_box())
        .run(user("Hi"))
        .unwrap_err();
    match &err {
        AgentError::Model { round, message, .. } => {
            assert_eq!(*round, 2);
            assert_eq!(message, "script exhausted");
        }
        other => panic!("expected a model error, got {other:?}"),
    }
    assert_eq!(err.messages().len(), 3);
}

#[test]
fn required_and_named_choices_bind_the_first_round_only() {
    for choice in [
        ToolChoice::Required,
        ToolChoice::Named("divide".into()),
        ToolChoice::None,
    ] {
        let model = Scripted::new(&[
            r#"<tool_call>{"name": "divide", "arguments": {"a": 6, "b": 3}}</tool_call>"#,
            "2",
        ]);
        let mut agent = Agent::new(model, weather_box()).tool_choice(choice.clone());
        agent.run(user("6/3")).unwrap();
        let seen: Vec<ToolChoice> = agent.model().seen.iter().map(|s| s.1.clone()).collect();
        let later = if choice == ToolChoice::None {
            ToolChoice::None
        } else {
            ToolChoice::Auto
        };
        assert_eq!(seen, [choice, later]);
    }
}

/// Answers "together" only if another call is running at the same time.
///
/// Args:
///     tag: A label echoed in the answer
#[tool]
fn rendezvous(tag: String) -> String {
    static STATE: (Mutex<usize>, Condvar) = (Mutex::new(0), Condvar::new());
    let (lock, cv) = &STATE;
    let mut arrived = lock.lock().unwrap();
    *arrived += 1;
    cv.notify_all();
    let (arrived, timeout) = cv
        .wait_timeout_while(arrived, Duration::from_secs(10), |n| *n < 2)
        .unwrap();
    drop(arrived);
    if timeout.timed_out() {
        format!("{tag} alone")
    } else {
        format!("{tag} together")
    }
}

#[test]
fn parallel_calls_of_one_turn_run_concurrently_and_answer_in_order() {
    let model = Scripted::new(&[
        concat!(
            r#"<tool_call>{"name": "rendezvous", "arguments": {"tag": "a"}}</tool_call>"#,
            "\n",
            r#"<tool_call>{"name": "rendezvous", "arguments": {"tag": "b"}}</tool_call>"#,
        ),
        "Both done.",
    ]);
    let run = Agent::new(model, toolbox![rendezvous])
        .run(user("Meet"))
        .unwrap();
    assert_eq!(run.messages[2].text(), "a together");
    assert_eq!(run.messages[3].text(), "b together");
    assert_eq!(run.answer, "Both done.");
}

struct Account(&'static str);

/// Read the balance of the account the run acts for, in three steps.
#[tool]
fn balance(context: &tool_use::ToolContext) -> String {
    for step in 1..=3 {
        context.progress(f64::from(step), Some(3.0), None);
    }
    match context.get::<Account>() {
        Some(account) => format!("{}: 42", account.0),
        None => "Error: no account".into(),
    }
}

#[test]
fn the_run_context_reaches_tools_and_their_progress_reaches_the_events() {
    let model = Scripted::new(&[
        r#"<tool_call>{"name": "balance", "arguments": {}}</tool_call>"#,
        "You have 42.",
    ]);
    let mut agent = Agent::new(model, toolbox![balance])
        .context(tool_use::RunContext::new().with(Account("ada")));
    let mut events = Vec::new();
    let run = agent
        .run_with(user("My balance?"), &mut |e| events.push(e))
        .unwrap();
    assert_eq!(run.messages[2].text(), "ada: 42");
    let progress: Vec<(String, f64)> = events
        .iter()
        .filter_map(|e| match e {
            AgentEvent::ToolProgress(p) => Some((p.call_id.clone(), p.done)),
            _ => None,
        })
        .collect();
    let id = run.messages[1].tool_calls[0].id.clone();
    assert_eq!(progress, [(id.clone(), 1.0), (id.clone(), 2.0), (id, 3.0)]);
    // Progress comes between the call and its result.
    let at = |want: fn(&AgentEvent) -> bool| events.iter().position(want).unwrap();
    assert!(
        at(|e| matches!(e, AgentEvent::ToolProgress(_)))
            < at(|e| matches!(e, AgentEvent::ToolResult { .. }))
    );
}

/// Cancels the run's token from inside a call, as a user pressing stop
/// while a tool runs would.
#[tool]
fn stop_button(context: &tool_use::ToolContext) -> String {
    STOP.lock().unwrap().as_ref().unwrap().cancel();
    assert!(context.is_cancelled(), "a call is cancelled with its run");
    "pressed".into()
}

static STOP: Mutex<Option<tool_use::CancelToken>> = Mutex::new(None);

#[test]
fn a_cancelled_run_stops_before_its_next_round_with_its_transcript() {
    let token = tool_use::CancelToken::new();
    *STOP.lock().unwrap() = Some(token.clone());
    let model = Scripted::new(&[
        r#"<tool_call>{"name": "stop_button", "arguments": {}}</tool_call>"#,
        "never said",
    ]);
    let mut agent = Agent::new(model, toolbox![stop_button])
        .context(tool_use::RunContext::new().with_cancel(token));
    let err = agent.run(user("Stop.")).unwrap_err();
    assert!(
        matches!(err, AgentError::Cancelled { round: 2, .. }),
        "{err}"
    );
    assert_eq!(err.to_string(), "the run was cancelled in round 2");
    // The call made before the stop is answered; what it returned after
    // its run was cancelled is discarded.
    let messages = err.messages();
    assert_eq!(messages.len(), 3);
    assert_eq!(
        messages[2].text(),
        "Error: the call to `stop_button` was cancelled"
    );
    assert_eq!(agent.model().turns.len(), 1, "the second turn never ran");
}

/// The model calls the temperature in Paris and divides by zero in one
/// turn, then answers.
fn two_calls() -> Scripted {
    Scripted::new(&[
        concat!(
            r#"<tool_call>{"name": "get_current_temperature", "arguments": {"location": "Paris, France"}}</tool_call>"#,
            r#"<tool_call>{"name": "divide", "arguments": {"a": 1, "b": 0}}</tool_call>"#
        ),
        "Done.",
    ])
}

fn texts(messages: &[Message]) -> Vec<String> {
    messages.iter().map(|m| m.text().to_owned()).collect()
}

#[test]
fn an_approval_hook_runs_denies_and_edits_calls() {
    let mut seen = Vec::new();
    let mut agent =
        Agent::new(two_calls(), weather_box()).approve(move |call: &tool_use::ToolCall| {
            seen.push(call.name.clone());
            Ok::<_, std::convert::Infallible>(match call.name.as_str() {
                "get_current_temperature" => Approval::Edit(json!({"location": "Oslo, Norway"})),
                _ => Approval::Deny("no dividing today".into()),
            })
        });
    let run = agent.run(user("Go.")).unwrap();
    assert_eq!(
        texts(&run.messages[2..4]),
        ["15.5", "Error: the call was denied: no dividing today"]
    );
    // The transcript shows the call as it ran.
    assert_eq!(
        run.messages[1].tool_calls[0].arguments,
        json!({"location": "Oslo, Norway"})
    );
    assert_eq!(run.answer, "Done.");
}

#[test]
fn an_edit_is_checked_against_the_schema_again() {
    let mut agent = Agent::new(two_calls(), weather_box()).approve(|call: &tool_use::ToolCall| {
        Ok::<_, std::convert::Infallible>(match call.name.as_str() {
            "divide" => Approval::Edit(json!({"a": 1})),
            _ => Approval::Run,
        })
    });
    let run = agent.run(user("Go.")).unwrap();
    assert_eq!(run.messages[2].text(), "22.0");
    assert_text_starts_with(
        &run.messages[3],
        "Error: invalid arguments for `divide`: missing required argument `b`",
    );
}

#[test]
fn a_stopped_run_resumes_with_the_decisions_later() {
    let mut agent = Agent::new(two_calls(), weather_box())
        .approve(|_: &tool_use::ToolCall| Ok::<_, std::convert::Infallible>(Approval::Stop));
    let err = agent.run(user("Go.")).unwrap_err();
    assert_eq!(
        err.to_string(),
        "the run stopped for approval of get_current_temperature, divide"
    );
    let stopped = err.into_stopped().unwrap();
    assert_eq!(texts(&stopped.messages), ["Go."]);
    assert_eq!(stopped.turn.tool_calls.len(), 2);
    assert_eq!(stopped.pending.len(), 2);
    // It keeps as JSON, for a decision that comes in another process.
    let kept = serde_json::to_string(&stopped).unwrap();
    let stopped: Stopped = serde_json::from_str(&kept).unwrap();

    // The wrong number of decisions runs nothing and hands the stop back.
    let err = agent.resume(stopped, vec![Approval::Run]).unwrap_err();
    assert_eq!(
        err.to_string(),
        "1 decisions for 2 waiting calls: give one per call, in order"
    );
    let stopped = err.into_stopped().unwrap();

    // Resumed without the hook's say (it would stop again).
    let mut agent = Agent::new(Scripted::new(&["Done."]), weather_box());
    let mut events = Vec::new();
    let run = agent
        .resume_with(
            stopped,
            vec![Approval::Run, Approval::Deny("not now".into())],
            &mut |e| events.push(e),
        )
        .unwrap();
    assert_eq!(
        texts(&run.messages),
        [
            "Go.",
            "",
            "22.0",
            "Error: the call was denied: not now",
            "Done."
        ]
    );
    let results = events
        .iter()
        .filter(|e| matches!(e, AgentEvent::ToolResult { .. }))
        .count();
    assert_eq!(results, 2);
}

#[test]
fn a_failing_or_panicking_hook_ends_the_run_with_a_clear_error() {
    let mut agent = Agent::new(two_calls(), weather_box())
        .approve(|_: &tool_use::ToolCall| Err::<Approval, _>("the approval service is down"));
    let err = agent.run(user("Go.")).unwrap_err();
    assert_eq!(
        err.to_string(),
        "the approval hook failed on `get_current_temperature`: the approval service is down"
    );
    assert_eq!(err.into_stopped().unwrap().pending.len(), 2);

    let mut agent = Agent::new(two_calls(), weather_box()).approve(
        |_: &tool_use::ToolCall| -> Result<Approval, std::convert::Infallible> {
            panic!("the approver crashed")
        },
    );
    let err = agent.run(user("Go.")).unwrap_err();
    assert_eq!(
        err.to_string(),
        "the approval hook panicked on `get_current_temperature`: the approver crashed"
    );
}

#[test]
fn an_async_hook_is_awaited_even_by_a_blocking_run() {
    let mut agent = Agent::new(two_calls(), weather_box()).approve_async(
        |call: tool_use::ToolCall| async move {
            Ok::<_, std::convert::Infallible>(if call.name == "divide" {
                Approval::Deny("async says no".into())
            } else {
                Approval::Run
            })
        },
    );
    let run = agent.run(user("Go.")).unwrap();
    assert_eq!(
        texts(&run.messages[2..4]),
        ["22.0", "Error: the call was denied: async says no"]
    );
}

#[test]
fn allowed_tools_limit_every_round_and_a_call_to_another_is_refused() {
    let allowed = ToolChoice::Allowed {
        tools: vec!["divide".into()],
        required: true,
    };
    let mut agent = Agent::new(two_calls(), weather_box()).tool_choice(allowed);
    let run = agent.run(user("Go.")).unwrap();
    assert_eq!(
        texts(&run.messages[2..4]),
        [
            "Error: the call was denied: `get_current_temperature` is not among the tools allowed now (divide)",
            "Error: division by zero"
        ]
    );
    // Every tool stays in the prompt; only the first round requires a call.
    let seen = &agent.model().seen;
    assert_eq!(seen[0].2, 2);
    assert_eq!(
        seen[0].1,
        ToolChoice::Allowed {
            tools: vec!["divide".into()],
            required: true
        }
    );
    assert_eq!(
        seen[1].1,
        ToolChoice::Allowed {
            tools: vec!["divide".into()],
            required: false
        }
    );
}

/// Unlock division: `divide` joins the tools, and this one leaves.
#[tool]
fn unlock_division(context: &tool_use::ToolContext) -> String {
    let Some(tools) = context.get::<tool_use::SharedToolbox>() else {
        return "no toolbox in the context".into();
    };
    let divide = toolbox![divide].get("divide").unwrap().clone();
    tools
        .update(|t| {
            t.remove("unlock_division");
            t.add(divide)
        })
        .unwrap();
    "division unlocked".into()
}

#[test]
fn tools_added_and_removed_during_a_run_reach_the_next_round() {
    let tools = tool_use::SharedToolbox::new(toolbox![get_current_temperature, unlock_division]);
    let model = Scripted::new(&[
        r#"<tool_call>{"name": "unlock_division", "arguments": {}}</tool_call>"#,
        concat!(
            r#"<tool_call>{"name": "divide", "arguments": {"a": 1, "b": 4}}</tool_call>"#,
            r#"<tool_call>{"name": "unlock_division", "arguments": {}}</tool_call>"#
        ),
        "A quarter.",
    ]);
    let mut agent =
        Agent::new(model, tools.clone()).context(tool_use::RunContext::new().with(tools.clone()));
    let run = agent.run(user("Divide 1 by 4.")).unwrap();
    assert_eq!(run.answer, "A quarter.");
    assert_eq!(
        agent.model().offered,
        [
            vec!["get_current_temperature", "unlock_division"],
            vec!["get_current_temperature", "divide"],
            vec!["get_current_temperature", "divide"],
        ]
    );
    assert_eq!(texts(&run.messages[2..3]), ["division unlocked"]);
    assert_eq!(texts(&run.messages[4..5]), ["0.25"]);
    assert_text_starts_with(&run.messages[5], "Error: unknown tool `unlock_division`");

    // Between runs too: the agent's toolbox is the shared one.
    assert!(agent.toolbox().remove("divide").is_some());
    assert_eq!(
        tools.snapshot().names().collect::<Vec<_>>(),
        ["get_current_temperature"]
    );
}

#[test]
fn choose_tools_decides_each_round_from_the_transcript() {
    let mut agent = Agent::new(two_calls(), weather_box()).choose_tools(|round, transcript| {
        if transcript.iter().any(|m| m.role == Role::Tool) {
            ToolChoice::None
        } else {
            assert_eq!(round, 1);
            ToolChoice::Allowed {
                tools: vec!["get_current_temperature".into()],
                required: true,
            }
        }
    });
    let run = agent.run(user("Go.")).unwrap();
    assert_eq!(
        texts(&run.messages[2..4]),
        [
            "22.0",
            "Error: the call was denied: `divide` is not among the tools allowed now (get_current_temperature)",
        ]
    );
    let choices: Vec<&ToolChoice> = agent.model().seen.iter().map(|s| &s.1).collect();
    assert_eq!(
        choices,
        [
            &ToolChoice::Allowed {
                tools: vec!["get_current_temperature".into()],
                required: true
            },
            &ToolChoice::None
        ]
    );

    // A choice naming a tool the toolbox lacks ends the run, transcript kept.
    let mut agent = Agent::new(two_calls(), weather_box())
        .choose_tools(|_, _| ToolChoice::Named("nope".into()));
    let error = agent.run(user("Go.")).unwrap_err();
    assert!(
        matches!(&error, AgentError::ToolChoice { messages, .. } if messages.len() == 1),
        "{error:?}"
    );
}
