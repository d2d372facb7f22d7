//! The agent's spans after OpenTelemetry's GenAI semantic conventions
//! (feature `tracing`): `invoke_agent` around the run, a `chat` span per
//! model turn with its tokens and finish reason, and an `execute_tool` span
//! per call inside the run's, with failures recorded. Captured by a
//! subscriber of the test's own, names, attributes and nesting checked.

#[path = "common/tools.rs"]
mod tools;

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

use tool_use::chat::ScriptedChat;
use tool_use::parse::Format;
use tool_use::{agent::Agent, chat::TurnStats};
use tool_use::{toolbox, Message};
use tools::divide;
use tracing::span::{Attributes, Id, Record};
use tracing::{field::Field, field::Visit, Subscriber};
use tracing_subscriber::layer::{Context, Layer, SubscriberExt};
use tracing_subscriber::registry::LookupSpan;

/// One captured span: its name, parent's name and fields.
#[derive(Debug, Clone, Default)]
struct Captured {
    name: String,
    parent: Option<String>,
    fields: BTreeMap<String, String>,
}

#[derive(Clone, Default)]
struct Capture(Arc<Mutex<Vec<(u64, Captured)>>>);

struct Fields<'a>(&'a mut BTreeMap<String, String>);

impl Visit for Fields<'_> {
    fn record_debug(&mut self, field: &Field, value: &dyn std::fmt::Debug) {
        self.0.insert(field.name().into(), format!("{value:?}"));
    }
    fn record_str(&mut self, field: &Field, value: &str) {
        self.0.insert(field.name().into(), value.into());
    }
}

impl<S: Subscriber + for<'a> LookupSpan<'a>> Layer<S> for Capture {
    fn on_new_span(&self, attrs: &Attributes<'_>, id: &Id, ctx: Context<'_, S>) {
        let mut span = Captured {
            name: attrs.metadata().name().into(),
            parent: ctx
                .span(id)
                .and_then(|s| s.parent())
                .map(|p| p.name().into()),
            ..Captured::default()
        };
        attrs.record(&mut Fields(&mut span.fields));
        self.0.lock().unwrap().push((id.into_u64(), span));
    }
    fn on_record(&self, id: &Id, values: &Record<'_>, _: Context<'_, S>) {
        let mut spans = self.0.lock().unwrap();
        if let Some((_, span)) = spans.iter_mut().rev().find(|(i, _)| *i == id.into_u64()) {
            values.record(&mut Fields(&mut span.fields));
        }
    }
}

/// Asserts the name of `span`'s parent, and the values of these of its
/// fields (it may have others).
#[track_caller]
fn assert_span(span: &Captured, parent: Option<&str>, fields: &[(&str, &str)]) {
    assert_eq!(span.parent.as_deref(), parent, "{span:?}");
    for (name, value) in fields {
        assert_eq!(span.fields[*name], *value, "{name} of {span:?}");
    }
}

/// The turns given, reporting the same token counts each.
fn scripted(turns: &[&str]) -> ScriptedChat {
    ScriptedChat::replies(Format::Hermes, turns.iter().copied())
        .stats(TurnStats {
            prompt_tokens: 120,
            generated_tokens: 17,
            ..TurnStats::default()
        })
        .name("scripted-1")
}

#[test]
fn a_run_is_an_invoke_agent_span_with_chat_and_execute_tool_spans_inside() {
    let capture = Capture::default();
    let subscriber = tracing_subscriber::registry().with(capture.clone());
    let model = scripted(&[
        concat!(
            r#"<tool_call>{"name": "divide", "arguments": {"a": 1, "b": 4}}</tool_call>"#,
            r#"<tool_call>{"name": "divide", "arguments": {"a": 1, "b": 0}}</tool_call>"#
        ),
        "A quarter; the other cannot be done.",
    ]);
    let run = tracing::subscriber::with_default(subscriber, || {
        Agent::new(model, toolbox![divide])
            .run(vec![Message::user("1/4 and 1/0?")])
            .unwrap()
    });
    assert_eq!(run.stats.rounds, 2);

    let spans: Vec<Captured> = capture
        .0
        .lock()
        .unwrap()
        .iter()
        .map(|(_, s)| s.clone())
        .collect();
    let names: Vec<&str> = spans.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(
        names,
        [
            "invoke_agent",
            "chat",
            "execute_tool",
            "execute_tool",
            "chat"
        ]
    );
    let agent = &spans[0];
    assert_span(
        agent,
        None,
        &[
            ("gen_ai.operation.name", "invoke_agent"),
            ("gen_ai.request.model", "scripted-1"),
        ],
    );
    assert!(!agent.fields.contains_key("error.type"));

    // Each model turn's span and each call's inside the run's: the calls
    // run after their turn's span closed.
    let (first, ok, failed, last) = (&spans[1], &spans[2], &spans[3], &spans[4]);
    let chat: &[(&str, &str)] = &[
        ("otel.name", "chat scripted-1"),
        ("gen_ai.operation.name", "chat"),
        ("gen_ai.request.model", "scripted-1"),
        ("gen_ai.usage.input_tokens", "120"),
        ("gen_ai.usage.output_tokens", "17"),
    ];
    let execute_tool: &[(&str, &str)] = &[
        ("gen_ai.operation.name", "execute_tool"),
        ("gen_ai.tool.name", "divide"),
        ("otel.name", "execute_tool divide"),
    ];
    for (span, fields) in [
        (first, chat),
        (ok, execute_tool),
        (failed, execute_tool),
        (last, chat),
    ] {
        assert_span(span, Some("invoke_agent"), fields);
    }
    assert_eq!(
        first.fields["gen_ai.response.finish_reasons"],
        r#"["tool_calls"]"#
    );
    assert_eq!(last.fields["gen_ai.response.finish_reasons"], r#"["stop"]"#);
    assert_eq!(
        ok.fields["gen_ai.tool.call.id"],
        run.messages[1].tool_calls[0].id
    );
    assert_eq!(
        failed.fields["gen_ai.tool.call.id"],
        run.messages[1].tool_calls[1].id
    );
    assert!(!ok.fields.contains_key("error.type"));
    assert_eq!(failed.fields["error.type"], "tool_error");
    assert_eq!(failed.fields["otel.status_code"], "ERROR");
    assert_eq!(failed.fields["otel.status_description"], "division by zero");
}

#[test]
fn a_run_that_fails_records_why_on_its_span() {
    let capture = Capture::default();
    let subscriber = tracing_subscriber::registry().with(capture.clone());
    let model =
        scripted(&[r#"<tool_call>{"name": "divide", "arguments": {"a": 1, "b": 2}}</tool_call>"#]);
    let err = tracing::subscriber::with_default(subscriber, || {
        Agent::new(model, toolbox![divide])
            .max_rounds(1)
            .run(vec![Message::user("1/2?")])
            .unwrap_err()
    });
    let spans = capture.0.lock().unwrap();
    let agent = &spans[0].1;
    assert_eq!(agent.name, "invoke_agent");
    assert_eq!(agent.fields["error.type"], "max_rounds");
    assert_eq!(agent.fields["otel.status_description"], err.to_string());
}
