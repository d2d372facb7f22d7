//! `#[tool]` functions and a `#[tools]` service with state, served to any MCP
//! host (Claude Desktop, an IDE, the MCP Python SDK…) in a few lines.
//!
//! ```text
//! cargo run --example mcp_server                         # stdio, for hosts that start it
//! cargo run --example mcp_server -- --http 127.0.0.1:8000  # http://127.0.0.1:8000/mcp
//! ```
//!
//! A host's configuration starts it as a command, e.g.
//! `{"command": "path/to/mcp_server"}`. Only protocol goes to stdout.
//!
//! `countdown` shows a long call: it reports progress each step (a host
//! that sent a progress token gets `notifications/progress`) and stops as
//! soon as the host cancels it (`notifications/cancelled`). `text_stats`
//! returns a struct: hosts get its `outputSchema` and a
//! `structuredContent` result. `enable_rot13` adds a tool while the server
//! runs: connected hosts get `notifications/tools/list_changed`.

use schemars::JsonSchema;
use serde::Serialize;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tool_use::mcp::{HttpOptions, McpServer};
use tool_use::{tool, tools, RunContext, SharedToolbox, ToolContext};

/// Count the words in a text.
///
/// Args:
///     text: The text.
#[tool]
fn count_words(text: String) -> usize {
    text.split_whitespace().count()
}

/// What `text_stats` finds in a text.
#[derive(Serialize, JsonSchema)]
struct TextStats {
    /// How many words.
    words: usize,
    /// How many sentences (runs ending in `.`, `!` or `?`).
    sentences: usize,
    /// The longest word.
    longest_word: String,
}

/// Count a text's words and sentences, and find its longest word.
///
/// Args:
///     text: The text.
///
/// Returns:
///     The counts and the longest word.
#[tool]
fn text_stats(text: String) -> TextStats {
    let words: Vec<&str> = text.split_whitespace().collect();
    TextStats {
        words: words.len(),
        sentences: text
            .split(['.', '!', '?'])
            .filter(|s| !s.trim().is_empty())
            .count(),
        longest_word: words
            .iter()
            .max_by_key(|w| w.len())
            .map_or("", |w| w)
            .to_owned(),
    }
}

/// Count down from `steps`, one step about every 200 ms, reporting progress.
///
/// Args:
///     steps: How many steps to count (at most 100).
#[tool]
async fn countdown(steps: u32, context: &ToolContext) -> String {
    let steps = steps.min(100);
    for done in 1..=steps {
        tokio::select! {
            _ = tokio::time::sleep(Duration::from_millis(200)) => {}
            _ = context.cancelled() => {
                eprintln!("countdown: cancelled after {} of {steps} steps", done - 1);
                return format!("cancelled after {} steps", done - 1);
            }
        }
        let left = format!("{} to go", steps - done);
        context.progress(f64::from(done), Some(f64::from(steps)), Some(&left));
    }
    "liftoff".into()
}

/// Encode a text with ROT13: each letter moves 13 places along the alphabet.
///
/// Args:
///     text: The text.
#[tool]
fn rot13(text: String) -> String {
    let turn = |c: char, base: u8| (((c as u8 - base + 13) % 26) + base) as char;
    text.chars()
        .map(|c| match c {
            'a'..='z' => turn(c, b'a'),
            'A'..='Z' => turn(c, b'A'),
            _ => c,
        })
        .collect()
}

/// Offer the `rot13` tool from now on.
#[tool]
fn enable_rot13(context: &ToolContext) -> String {
    // The server's context carries the toolbox it serves (see `main`).
    let Some(tools) = context.get::<SharedToolbox>() else {
        return "this server's tools cannot change".into();
    };
    match tools.merge(tool_use::toolbox![rot13]) {
        Ok(()) => "rot13 is available now".into(),
        Err(_) => "rot13 was available already".into(),
    }
}

/// A notebook kept while the server runs: state behind `&self`.
#[derive(Default)]
struct Notebook {
    notes: Mutex<Vec<String>>,
}

#[tools]
impl Notebook {
    /// Write a note down.
    ///
    /// Args:
    ///     text: The note.
    ///
    /// Returns:
    ///     How many notes there are now.
    #[tool]
    fn add_note(&self, text: String) -> Result<usize, String> {
        let mut notes = self.notes.lock().map_err(|_| "the notebook is unusable")?;
        notes.push(text);
        Ok(notes.len())
    }

    /// Read every note, oldest first.
    #[tool]
    fn read_notes(&self) -> Result<Vec<String>, String> {
        let notes = self.notes.lock().map_err(|_| "the notebook is unusable")?;
        Ok(notes.clone())
    }
}

#[tokio::main]
async fn main() {
    let toolbox = tool_use::toolbox![count_words, countdown, text_stats, enable_rot13]
        .with_all_shared(Arc::new(Notebook::default()))
        .expect("the tool names are distinct");
    // Shared, so that a change reaches the server, which tells its clients.
    let tools = SharedToolbox::new(toolbox);
    let server = McpServer::new(tools.clone())
        .named("notebook", "0.1.0")
        .context(RunContext::new().with(tools));

    let args: Vec<String> = std::env::args().skip(1).collect();
    let result = match args.as_slice() {
        [] => server.serve_stdio().await,
        [flag, address] if flag == "--http" => serve_http(server, address).await,
        _ => {
            eprintln!("usage: mcp_server [--http ADDR]");
            std::process::exit(2);
        }
    };
    if let Err(e) = result {
        eprintln!("mcp_server: {e}");
        std::process::exit(1);
    }
}

async fn serve_http(server: McpServer, address: &str) -> Result<(), tool_use::mcp::McpError> {
    let listener = tokio::net::TcpListener::bind(address).await?;
    // On stdout, for a script that started the server on port 0.
    println!("listening on http://{}/mcp", listener.local_addr()?);
    eprintln!("Ctrl-C stops the server");
    let stop = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    server
        .serve_http(listener, &HttpOptions::default(), stop)
        .await
}
