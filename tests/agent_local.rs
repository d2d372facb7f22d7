//! The agent on a real (tiny, random-weight) model: rendering, constrained
//! generation, parsing, dispatch and prefix reuse, end to end.

#[path = "common/answers.rs"]
mod answers;

use answers::assert_answered;
use serde_json::json;
use std::sync::Arc;
use tool_use::generate::GenerateOptions;
use tool_use::model::tiny::{write_tiny_model, TinySpec};
use tool_use::model::Model;
use tool_use::parse::{Format, ParseOptions};
use tool_use::runtime::ToolDefinition;
use tool_use::{
    agent::{Agent, AgentError},
    chat::{ChatModel, TurnRequest},
    local::LocalChat,
};
use tool_use::{tool, toolbox, DefinitionFormat, Message, Role, ToolCall, ToolChoice};

/// Book a table at a restaurant.
///
/// Args:
///     restaurant: The restaurant (choices: ["Chez Panisse", "Noma", "El Celler"])
///     guests: How many people
///     time: When (choices: ["lunch", "dinner"])
///     vegetarian: Whether everyone eats vegetarian
///     high_chair: Whether a high chair is needed
#[tool]
fn book_table(
    restaurant: String,
    guests: u8,
    time: String,
    vegetarian: bool,
    high_chair: Option<bool>,
) -> String {
    format!("booked {restaurant} for {guests} at {time} (veg: {vegetarian}, chair: {high_chair:?})")
}

/// Convert an amount between currencies.
///
/// Args:
///     amount: The amount to convert
///     from: The currency to convert from (choices: ["EUR", "USD", "JPY"])
///     to: The currency to convert to (choices: ["EUR", "USD", "JPY"])
#[tool]
fn convert_currency(amount: f64, from: String, to: String) -> String {
    format!("{amount} {from} in {to}")
}

/// Get the weather.
///
/// Args:
///     city: The city, as the user wrote it
///     days: How many days ahead
#[tool]
fn weather_in(#[arg(grounded)] city: String, days: Option<u8>) -> String {
    format!("sunny in {city} for {days:?} days")
}

/// Split a bill.
///
/// Args:
///     total: The bill's total
///     people: How many people pay
#[tool]
fn split_bill(#[arg(grounded)] total: f64, #[arg(grounded)] people: u32) -> f64 {
    total / f64::from(people.max(1))
}

fn tiny_model(seed: u64) -> Model {
    let dir = tempfile::tempdir().unwrap();
    let spec = TinySpec {
        // The tiny tokenizer is nearly byte-level: two tool schemas take ~1k tokens.
        max_position_embeddings: 4096,
        ..TinySpec::qwen2(seed)
    };
    write_tiny_model(dir.path(), &spec).unwrap();
    // The model reads every file at load: the directory may go.
    Model::load(dir.path()).unwrap()
}

/// `chat`'s turns answering `request` sampled at temperature 1 with the
/// seeds 0 to 11, each as its seed, its text and the calls `options` read in
/// it; and `chat`, for the next run.
fn sampled_turns(
    mut chat: LocalChat,
    request: &TurnRequest<'_>,
    options: &ParseOptions,
) -> (LocalChat, Vec<(u64, String, Vec<ToolCall>)>) {
    let mut turns = Vec::new();
    for seed in 0..12 {
        chat = chat.options(GenerateOptions::sampled(300, 1.0, seed));
        let turn = chat.respond(request, &mut |_| {}).unwrap();
        let parsed = Format::Hermes.parse(&turn.text, options);
        turns.push((seed, turn.text, parsed.tool_calls));
    }
    (chat, turns)
}

// The tools take enums, bounded integers, numbers and booleans: a random
// model closes a free-text string only by chance (its quote is one token in
// hundreds), so free strings would test the token budget, not the grammar.
#[test]
fn a_random_model_constrained_writes_100_of_100_valid_calls() {
    let tools = toolbox![book_table, convert_currency];
    let definitions = tools.definitions(DefinitionFormat::Transformers);
    let options = ParseOptions {
        tools: ToolDefinition::list_from_json(&definitions).unwrap(),
        ..ParseOptions::default()
    };
    let mut chat = LocalChat::new(tiny_model(7)).unwrap();
    assert_eq!(chat.format(), Format::Hermes);
    assert!(chat.can_constrain());
    let messages = [Message::user(
        "Book a table for two at Chez Panisse, please.",
    )];
    let mut valid = 0;
    for seed in 0..100 {
        chat = chat.options(GenerateOptions::sampled(600, 1.0, seed));
        // A named tool makes exactly one call, so the token budget is never
        // the limit (`required` lets a random model call again and again).
        let name = ["book_table", "convert_currency"][seed as usize % 2];
        let choice = ToolChoice::Named(name.into());
        let request = TurnRequest::new(&messages, &options.tools, &choice);
        let turn = chat.respond(&request, &mut |_| {}).unwrap();
        let parsed = Format::Hermes.parse(&turn.text, &options);
        assert_eq!(parsed.tool_calls.len(), 1, "seed {seed}: {}", turn.text);
        assert_eq!(parsed.tool_calls[0].name, name);
        assert!(
            parsed.invalid_tool_calls.is_empty(),
            "seed {seed}: {:?}\n{}",
            parsed.invalid_tool_calls,
            turn.text
        );
        assert!(
            !parsed.tool_calls.is_empty(),
            "seed {seed}: no call in {:?}",
            turn.text
        );
        assert_answered(&tools, &parsed.tool_calls, &format!("seed {seed}: "));
        valid += 1;
    }
    assert_eq!(valid, 100);
}

#[test]
fn unconstrained_a_random_model_does_not_manage_valid_calls() {
    // The counterpart of the test above: without the grammar, required or
    // not, a random model does not write a readable call.
    let tools = toolbox![book_table, convert_currency];
    let definitions = tools.definitions(DefinitionFormat::Transformers);
    let mut chat = LocalChat::new(tiny_model(7))
        .unwrap()
        .constrain(false)
        .options(GenerateOptions::sampled(64, 1.0, 3));
    let messages = [Message::user("Book a table.")];
    let tools = ToolDefinition::list_from_json(&definitions).unwrap();
    let choice = ToolChoice::Required;
    let request = TurnRequest::new(&messages, &tools, &choice);
    let turn = chat.respond(&request, &mut |_| {}).unwrap();
    let parsed = Format::Hermes.parse(&turn.text, &ParseOptions::default());
    assert!(parsed.tool_calls.is_empty(), "{:?}", turn.text);
}

#[test]
fn the_agent_loop_runs_on_a_local_model_and_reuses_the_prompt_prefix() {
    let chat = LocalChat::new(tiny_model(11))
        .unwrap()
        .options(GenerateOptions::sampled(400, 1.0, 5));
    // Named tool in round 1 makes a call certain; later rounds are free, so
    // a random model rambles or calls again until max_rounds.
    let mut agent = Agent::new(chat, toolbox![book_table, convert_currency])
        .tool_choice(ToolChoice::Named("convert_currency".into()))
        .max_rounds(3);
    let messages = vec![Message::user("How much is 20 EUR in USD?")];
    let outcome = agent.run(messages);
    let (transcript, stats) = match &outcome {
        Ok(run) => (run.messages.clone(), Some(run.stats.clone())),
        Err(e @ AgentError::MaxRounds { .. }) => (e.messages().to_vec(), None),
        Err(e) => panic!("{e}"),
    };
    assert_eq!(transcript[1].role, Role::Assistant);
    let call = &transcript[1].tool_calls[0];
    assert_eq!(call.name, "convert_currency");
    assert_eq!(transcript[2].role, Role::Tool);
    assert!(
        !transcript[2].text().starts_with("Error"),
        "{}",
        transcript[2].text()
    );
    if let Some(stats) = stats {
        assert!(stats.rounds >= 2);
        // Round 2's prompt extends round 1's: at least that prompt comes
        // from the cache (the output too where the template re-renders it
        // as written; a random model's spacing inside the call is not).
        assert!(stats.turns[1].reused_tokens >= stats.turns[0].prompt_tokens);
    }
    let _ = json!(transcript);
}

/// One agent's run on `model`, in a chat of its own: the transcript, or
/// the conversation so far when the rounds ran out.
fn transcript_of(model: &Arc<Model>, question: &str, tool: &str) -> serde_json::Value {
    let chat = LocalChat::new(Arc::clone(model))
        .unwrap()
        .options(GenerateOptions::sampled(200, 1.0, 9));
    let mut agent = Agent::new(chat, toolbox![book_table, convert_currency])
        .tool_choice(ToolChoice::Named(tool.into()))
        .max_rounds(3);
    match agent.run(vec![Message::user(question)]) {
        Ok(run) => json!(run.messages),
        Err(e @ AgentError::MaxRounds { .. }) => json!(e.messages()),
        Err(e) => panic!("{e}"),
    }
}

#[test]
fn two_agents_on_one_model_on_two_threads_each_get_their_solo_transcripts() {
    let model = Arc::new(tiny_model(13));
    let runs = [
        ("How much is 20 EUR in USD?", "convert_currency"),
        ("A table for two at Noma tonight, please.", "book_table"),
    ];
    let solo: Vec<_> = (runs.iter())
        .map(|(q, tool)| transcript_of(&model, q, tool))
        .collect();
    assert_ne!(solo[0], solo[1]);
    for _ in 0..3 {
        let barrier = std::sync::Barrier::new(runs.len());
        let together: Vec<_> = std::thread::scope(|s| {
            let threads: Vec<_> = (runs.iter())
                .map(|(q, tool)| {
                    let (model, barrier) = (&model, &barrier);
                    s.spawn(move || {
                        barrier.wait();
                        transcript_of(model, q, tool)
                    })
                })
                .collect();
            threads.into_iter().map(|t| t.join().unwrap()).collect()
        });
        assert_eq!(together, solo);
    }
}

#[test]
fn a_grounded_argument_is_always_a_run_of_the_users_words_and_the_prompt_hides_the_marker() {
    let tools = toolbox![weather_in];
    let definitions = tools.definitions(DefinitionFormat::Transformers);
    assert_eq!(
        definitions[0]["function"]["parameters"]["properties"]["city"]["x-grounded"],
        true
    );
    let options = ParseOptions {
        tools: ToolDefinition::list_from_json(&definitions).unwrap(),
        ..ParseOptions::default()
    };
    let said = "Hi! What's the weather like in Port Velmora, Zandia this week?";
    let messages = [
        Message::system("You are helpful in Lisbon."),
        Message::user(said),
    ];
    let mut chat = LocalChat::new(tiny_model(5)).unwrap();
    let tools = ToolDefinition::list_from_json(&definitions).unwrap();
    let choice = ToolChoice::Named("weather_in".into());
    let request = TurnRequest::new(&messages, &tools, &choice);
    let prepared = chat.prepare(&request, None).unwrap();
    assert!(prepared.prompt().contains("The city, as the user wrote it"));
    assert!(
        !prepared.prompt().contains("x-grounded"),
        "{}",
        prepared.prompt()
    );
    let mut cities = std::collections::BTreeSet::new();
    let (chat, grounded) = sampled_turns(chat, &request, &options);
    for (seed, text, calls) in grounded {
        assert_eq!(calls.len(), 1, "seed {seed}: {text}");
        let city = calls[0].arguments["city"]
            .as_str()
            .unwrap_or_default()
            .to_owned();
        // Whole words of the user's message, never of the system prompt.
        assert!(said.contains(&city), "seed {seed}: {city:?}");
        let words: Vec<&str> = said.split_whitespace().collect();
        assert!(
            city.split(' ').all(|w| words.iter().any(|s| s.contains(w))),
            "seed {seed}: {city:?}"
        );
        assert!(!city.contains("Lisbon"));
        cities.insert(city);
    }
    assert!(
        cities.len() > 3,
        "a random model picks many runs: {cities:?}"
    );

    // Without grounding the same random model writes other strings.
    let (_, free) = sampled_turns(chat.ground(false), &request, &options);
    let outside = (free.iter())
        .filter(|(_, _, calls)| {
            let city = calls.first().and_then(|c| c.arguments["city"].as_str());
            !city.is_some_and(|city| said.contains(city))
        })
        .count();
    eprintln!("{outside} of 12 outside the user's words; grounded: {cities:?}");
    assert!(outside >= 9, "{outside} of 12 outside the user's words");
}

#[test]
fn a_grounded_number_is_always_one_the_conversation_wrote() {
    let tools = toolbox![split_bill];
    let definitions = tools.definitions(DefinitionFormat::Transformers);
    let options = ParseOptions {
        tools: ToolDefinition::list_from_json(&definitions).unwrap(),
        ..ParseOptions::default()
    };
    let messages = [
        Message::system("You are helpful; it is 2026."),
        Message::user("We were 4 at dinner and the bill came to $1,250.80, tip 7.5% included."),
    ];
    let tools = ToolDefinition::list_from_json(&definitions).unwrap();
    let choice = ToolChoice::Named("split_bill".into());
    let request = TurnRequest::new(&messages, &tools, &choice);
    let chat = LocalChat::new(tiny_model(9)).unwrap();
    let (mut totals, mut people) = (
        std::collections::BTreeSet::new(),
        std::collections::BTreeSet::new(),
    );
    let (chat, grounded) = sampled_turns(chat, &request, &options);
    for (seed, text, calls) in grounded {
        assert_eq!(calls.len(), 1, "seed {seed}: {text}");
        let args = &calls[0].arguments;
        // Numbers of the user's message only: not the system prompt's 2026.
        assert!(
            [json!(4), json!(1250.8), json!(7.5)].contains(&args["total"]),
            "seed {seed}: {args}"
        );
        assert_eq!(args["people"], json!(4), "the one whole number: {args}");
        totals.insert(args["total"].to_string());
        people.insert(args["people"].to_string());
    }
    eprintln!("grounded totals {totals:?}, people {people:?}");
    // Without grounding the same random model writes other numbers.
    let (_, free) = sampled_turns(chat.ground(false), &request, &options);
    let outside = (free.iter())
        .filter(|(_, _, calls)| {
            let total = calls.first().map(|c| c.arguments["total"].clone());
            !total.is_some_and(|t| [json!(4), json!(1250.8), json!(7.5)].contains(&t))
        })
        .count();
    assert!(
        outside >= 9,
        "{outside} of 12 outside the conversation's numbers"
    );
}

#[test]
fn cancelling_a_run_stops_the_local_model_at_its_next_token() {
    let chat = LocalChat::new(tiny_model(11))
        .unwrap()
        .options(GenerateOptions::sampled(400, 1.0, 5));
    let token = tool_use::CancelToken::new();
    // A random model rambles: uncancelled, it writes hundreds of tokens.
    let mut agent = Agent::new(chat, toolbox![book_table])
        .context(tool_use::RunContext::new().with_cancel(token.clone()));
    let (mut before, mut after) = (0, 0);
    let outcome = agent.run_with(vec![Message::user("Hello?")], &mut |event| {
        if let tool_use::agent::AgentEvent::Stream(_) = event {
            if token.is_cancelled() {
                after += 1;
            } else {
                before += 1;
                if before == 5 {
                    token.cancel();
                }
            }
        }
    });
    match outcome {
        Err(AgentError::Cancelled { round: 1, messages }) => {
            assert_eq!(messages.len(), 1, "the partial turn is dropped");
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(before, 5);
    assert!(after <= 1, "{after} pieces came after the cancel");

    // The chat is usable again: the next run writes its whole turn.
    *agent.context_mut() = tool_use::RunContext::new();
    let mut pieces = 0;
    let _ = agent.run_with(vec![Message::user("Hello?")], &mut |event| {
        if let tool_use::agent::AgentEvent::Stream(_) = event {
            pieces += 1;
        }
    });
    assert!(pieces > 20, "{pieces}");
}

#[test]
fn the_models_own_token_still_stops_it_inside_a_run_with_a_token_of_its_own() {
    let own = tool_use::CancelToken::new();
    let mut options = GenerateOptions::sampled(400, 1.0, 5);
    options.cancel = Some(own.clone());
    let chat = LocalChat::new(tiny_model(11)).unwrap().options(options);
    // The run has its own token, never cancelled; the model's is.
    let mut agent = Agent::new(chat, toolbox![book_table])
        .context(tool_use::RunContext::new().with_cancel(tool_use::CancelToken::new()));
    let mut pieces = 0;
    let outcome = agent.run_with(vec![Message::user("Hello?")], &mut |event| {
        if let tool_use::agent::AgentEvent::Stream(_) = event {
            pieces += 1;
            if pieces == 5 {
                own.cancel();
            }
        }
    });
    assert!(
        pieces <= 6,
        "{pieces} pieces: the model's token was ignored"
    );
    assert!(outcome.is_ok() || matches!(outcome, Err(AgentError::Cancelled { .. })));
}
