//! Serving over loopback HTTP for the server's tests: the server started
//! on an ephemeral port, a client with a bound, and streamed answers read
//! as server-sent events.

use std::time::Duration;

use serde_json::Value;
use tool_use::models::agent::LocalChat;
use tool_use::models::server::Server;

/// Serves `server` on an ephemeral loopback port; returns `http://…/v1`.
pub async fn start(server: Server) -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/v1", listener.local_addr().unwrap());
    tokio::spawn(server.serve(listener));
    url
}

/// The bundled model, served as `tool-use-mini`.
pub fn bundled() -> Server {
    let chat = LocalChat::new(tool_use::bundled::load_embedded().unwrap()).unwrap();
    Server::new(chat, "tool-use-mini")
}

/// A client that gives up after two minutes.
pub fn client() -> reqwest::Client {
    reqwest::Client::builder()
        .timeout(Duration::from_secs(120))
        .build()
        .unwrap()
}

/// The data of each event of a streamed answer, after checking that it is
/// one and that each `event:` name is its data's `type` (as Anthropic's and
/// the Responses API's streams name them).
#[allow(dead_code)] // The Chat Completions tests read `data:` lines only.
pub async fn named_events(response: reqwest::Response) -> Vec<Value> {
    assert_eq!(response.status(), 200);
    assert!(response.headers()["content-type"]
        .to_str()
        .unwrap()
        .starts_with("text/event-stream"));
    let text = response.text().await.unwrap();
    text.split("\n\n")
        .filter(|frame| !frame.trim().is_empty())
        .map(|frame| {
            let field = |name: &str| {
                frame
                    .lines()
                    .find_map(|l| l.strip_prefix(name))
                    .unwrap_or_else(|| panic!("no {name} in {frame:?}"))
            };
            let data: Value = serde_json::from_str(field("data: ")).unwrap();
            assert_eq!(data["type"], field("event: "), "{frame}");
            data
        })
        .collect()
}
