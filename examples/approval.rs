//! Approval before a call runs: a policy hook that lets some tools run,
//! edits the arguments of others and denies the rest with a reason the
//! model reads; then a run that stops for a person's decision, is kept as
//! JSON (as a web app would between requests) and resumed.
//!
//! ```text
//! cargo run --release --example approval
//! ```

use tool_use::agent::{AgentError, Approval, Stopped};
use tool_use::{Agent, LocalChat, Message, ToolCall};

fn chat() -> LocalChat {
    let model = tool_use::bundled::load().unwrap_or_else(|e| {
        eprintln!("cannot load the bundled model: {e}");
        std::process::exit(1);
    });
    LocalChat::new(model).unwrap_or_else(|e| {
        eprintln!("cannot load the bundled model: {e}");
        std::process::exit(1);
    })
}

/// The policy: the weather runs, arithmetic is denied, and conversions
/// always go to kilometres.
fn policy(call: &ToolCall) -> Result<Approval, String> {
    Ok(match call.name.as_str() {
        "get_current_temperature" | "get_current_wind_speed" | "get_current_time" => Approval::Run,
        "calculate" => Approval::Deny("arithmetic is not allowed in this app".into()),
        "convert_units" => {
            let mut arguments = call.arguments.clone();
            arguments["to_unit"] = "km".into();
            Approval::Edit(arguments)
        }
        other => Approval::Deny(format!("`{other}` is not on the list")),
    })
}

fn show(messages: &[Message]) {
    for m in messages {
        for call in &m.tool_calls {
            println!("  → {}({})", call.name, call.arguments);
        }
        if !m.text().is_empty() {
            println!("  {:?}: {}", m.role, m.text());
        }
    }
}

fn main() {
    println!("A policy decides:");
    let mut agent = Agent::new(chat(), tool_use::demo::toolbox())
        .max_rounds(4)
        .approve(policy);
    for question in [
        "What is 25 times 4?",
        "What's the temperature in Paris right now?",
    ] {
        match agent.run(vec![Message::user(question)]) {
            Ok(run) => show(&run.messages),
            Err(e) => println!("  {e}"),
        }
    }

    println!("\nA person decides, later:");
    let mut agent = Agent::new(chat(), tool_use::demo::toolbox())
        .max_rounds(4)
        .approve(|_: &ToolCall| Ok::<_, String>(Approval::Stop));
    let question = "How windy is it in Oslo?";
    let stopped = match agent.run(vec![Message::user(question)]) {
        Err(AgentError::Stopped(stopped)) => *stopped,
        other => {
            println!("  the run did not stop: {other:?}");
            return;
        }
    };
    for call in &stopped.pending {
        println!("  waiting: {}({})", call.name, call.arguments);
    }
    // Kept between requests as JSON, then read back.
    let kept = serde_json::to_string(&stopped).expect("a stop serializes");
    let stopped: Stopped = serde_json::from_str(&kept).expect("and reads back");
    let decisions = vec![Approval::Run; stopped.pending.len()];
    let mut agent = Agent::new(chat(), tool_use::demo::toolbox()).max_rounds(4);
    match agent.resume(stopped, decisions) {
        Ok(run) => show(&run.messages),
        Err(e) => println!("  {e}"),
    }
}
