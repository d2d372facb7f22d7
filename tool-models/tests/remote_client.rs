//! `RemoteChat` against a scripted OpenAI-compatible server on 127.0.0.1:
//! the agent's whole loop over HTTP, streamed and not, each failure a
//! connection can end in, and the API key kept out of sight.

#[path = "common/events.rs"]
mod events;
#[path = "common/one_tool.rs"]
mod one_tool;

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use events::streamed_content;
use one_tool::one_tool;
use serde_json::{json, Value};
use tool_models::parse::StreamEvent;
use tool_models::remote::{RemoteChat, RemoteError, Timeouts};
use tool_models::{
    agent::{Agent, AgentError, AgentEvent, AgentRun},
    chat::ChatModel,
};
use tool_runtime::{Message, Role, ToolCall, Toolbox};

/// What the server does with one request.
enum Reply {
    /// A whole JSON response.
    Json(u16, Value),
    /// An HTTP error with extra headers.
    Status(u16, Vec<(&'static str, &'static str)>, String),
    /// An SSE stream of these `data:` payloads, then the connection closes.
    Sse(Vec<String>),
    /// Headers, then nothing: the client must give up.
    Hang,
}

/// A request as the server saw it.
#[derive(Debug, Clone)]
struct Seen {
    head: String,
    body: Value,
}

struct Server {
    url: String,
    seen: Arc<Mutex<Vec<Seen>>>,
    handle: Option<JoinHandle<()>>,
    /// Tells the thread to stop waiting for connections.
    stop: Arc<std::sync::atomic::AtomicBool>,
}

impl Server {
    /// Serves `replies` in order, one per connection, then stops.
    fn start(replies: Vec<Reply>) -> Server {
        use std::sync::atomic::{AtomicBool, Ordering};
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let url = format!("http://{}", listener.local_addr().unwrap());
        let seen = Arc::new(Mutex::new(Vec::new()));
        let log = Arc::clone(&seen);
        let stop = Arc::new(AtomicBool::new(false));
        let stopped = Arc::clone(&stop);
        // Polled, so that a test whose client never comes (or panics) ends
        // the thread when it drops the server, however many replies are left.
        listener.set_nonblocking(true).unwrap();
        let handle = std::thread::spawn(move || {
            for reply in replies {
                let stream = loop {
                    match listener.accept() {
                        Ok((stream, _)) => break stream,
                        Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {
                            if stopped.load(Ordering::Relaxed) {
                                return;
                            }
                            std::thread::sleep(Duration::from_millis(5));
                        }
                        Err(_) => return,
                    }
                };
                stream.set_nonblocking(false).unwrap();
                serve(stream, reply, &log);
            }
        });
        Server {
            url,
            seen,
            handle: Some(handle),
            stop,
        }
    }

    fn seen(&self) -> Vec<Seen> {
        self.seen.lock().unwrap().clone()
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        // A thread still waiting for a connection that never came stops.
        self.stop.store(true, std::sync::atomic::Ordering::Relaxed);
        if let Some(handle) = self.handle.take() {
            let _ = handle.join();
        }
    }
}

fn serve(stream: TcpStream, reply: Reply, log: &Mutex<Vec<Seen>>) {
    stream
        .set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    let mut reader = BufReader::new(stream.try_clone().unwrap());
    let mut head = String::new();
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).unwrap_or(0) == 0 {
            return;
        }
        if line == "\r\n" {
            break;
        }
        head.push_str(&line);
    }
    let length = head
        .lines()
        .find_map(|l| {
            let (k, v) = l.split_once(':')?;
            k.eq_ignore_ascii_case("content-length")
                .then(|| v.trim().parse::<usize>().ok())?
        })
        .unwrap_or(0);
    let mut body = vec![0; length];
    reader.read_exact(&mut body).unwrap();
    log.lock().unwrap().push(Seen {
        head,
        body: serde_json::from_slice(&body).unwrap_or(Value::Null),
    });
    let mut out = stream;
    let _ = match reply {
        Reply::Json(status, value) => respond(&mut out, status, &[], &value.to_string()),
        Reply::Status(status, headers, body) => respond(&mut out, status, &headers, &body),
        Reply::Sse(payloads) => {
            let _ = out.write_all(
                b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\nconnection: close\r\n\r\n",
            );
            for data in payloads {
                let _ = out.write_all(format!("data: {data}\n\n").as_bytes());
                let _ = out.flush();
            }
            Ok(())
        }
        Reply::Hang => {
            std::thread::sleep(Duration::from_secs(3));
            Ok(())
        }
    };
}

fn respond(
    out: &mut TcpStream,
    status: u16,
    headers: &[(&str, &str)],
    body: &str,
) -> std::io::Result<()> {
    let mut text = format!(
        "HTTP/1.1 {status} X\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n",
        body.len()
    );
    for (k, v) in headers {
        text.push_str(&format!("{k}: {v}\r\n"));
    }
    text.push_str("\r\n");
    text.push_str(body);
    out.write_all(text.as_bytes())
}

fn chunk(delta: Value) -> String {
    json!({"object": "chat.completion.chunk", "model": "m",
           "choices": [{"index": 0, "delta": delta, "finish_reason": null}]})
    .to_string()
}

fn finish(reason: &str) -> String {
    json!({"choices": [{"index": 0, "delta": {}, "finish_reason": reason}]}).to_string()
}

fn usage(prompt: usize, completion: usize) -> String {
    json!({"choices": [], "usage": {"prompt_tokens": prompt, "completion_tokens": completion}})
        .to_string()
}

/// A streamed call of `get_temperature` for `city`, in vLLM's fragments.
fn streamed_call(id: &str, city: &str) -> Vec<String> {
    vec![
        chunk(json!({"role": "assistant", "content": null})),
        chunk(
            json!({"tool_calls": [{"index": 0, "id": id, "type": "function",
            "function": {"name": "get_temperature", "arguments": ""}}]}),
        ),
        chunk(json!({"tool_calls": [{"index": 0, "function": {"arguments": "{\"city\": "}}]})),
        chunk(
            json!({"tool_calls": [{"index": 0, "function": {"arguments": format!("\"{city}\"}}")}}]}),
        ),
        finish("tool_calls"),
        usage(40, 9),
        "[DONE]".into(),
    ]
}

fn streamed_answer(text: &str) -> Vec<String> {
    let mut out = vec![chunk(json!({"role": "assistant", "content": ""}))];
    out.extend(
        text.split_inclusive(' ')
            .map(|w| chunk(json!({"content": w}))),
    );
    out.push(finish("stop"));
    out.push(usage(60, 7));
    out.push("[DONE]".into());
    out
}

/// The toolbox the tests' model calls: one tool, written by hand (the
/// `#[tool]` macro belongs to the `tool-use` facade).
fn toolbox() -> Toolbox {
    one_tool(
        "get_temperature",
        "The temperature in a city.",
        "city",
        |args| format!("21.5 in {}", args["city"].as_str().unwrap_or("")),
    )
}

/// Asks `agent` how warm Paris is: the run, and the events it gave.
fn ask_paris<M: ChatModel>(agent: &mut Agent<M>) -> (AgentRun, Vec<AgentEvent>) {
    let mut events = Vec::new();
    let run = agent
        .run_with(vec![Message::user("How warm is Paris?")], &mut |e| {
            events.push(e)
        })
        .unwrap();
    (run, events)
}

/// The run's one call was `get_temperature` for Paris, with the id `id`,
/// and the toolbox answered it.
#[track_caller]
fn assert_called_for_paris(run: &AgentRun, id: &str) {
    assert_eq!(
        run.messages[1].tool_calls,
        [ToolCall::new(
            id,
            "get_temperature",
            json!({"city": "Paris"})
        )]
    );
    assert_eq!(run.messages[2].text(), "21.5 in Paris");
}

/// Says "Hi" to `agent`: the run must fail, with `message` in its error.
#[track_caller]
fn hi_fails_with(agent: &mut Agent<RemoteChat>, message: &str) -> AgentError {
    let err = agent.run(vec![Message::user("Hi")]).unwrap_err();
    assert!(err.to_string().contains(message), "{err}");
    err
}

fn quick(url: &str) -> RemoteChat {
    RemoteChat::openai_compatible(format!("{url}/v1"), "test-model").timeouts(Timeouts {
        connect: Duration::from_secs(2),
        first_byte: Duration::from_secs(2),
        total: Duration::from_secs(10),
    })
}

#[test]
fn the_agent_runs_a_streamed_tool_round_trip_over_http() {
    let mut replies = vec![Reply::Sse(streamed_call("call_x1", "Paris"))];
    replies.push(Reply::Sse(streamed_answer("It is 21.5 degrees in Paris.")));
    let server = Server::start(replies);
    let mut agent = Agent::new(quick(&server.url), toolbox());
    let (run, events) = ask_paris(&mut agent);
    assert_eq!(run.answer, "It is 21.5 degrees in Paris.");
    let roles: Vec<Role> = run.messages.iter().map(|m| m.role).collect();
    assert_eq!(
        roles,
        [Role::User, Role::Assistant, Role::Tool, Role::Assistant]
    );
    assert_called_for_paris(&run, "call_x1");
    assert_eq!(run.stats.prompt_tokens, 100);
    assert_eq!(run.stats.generated_tokens, 16);
    // The same events as a local model: start, argument pieces, the call.
    assert!(events
        .iter()
        .any(|e| matches!(e, AgentEvent::Stream(StreamEvent::ToolCallStart { name, .. }) if name == "get_temperature")));
    let pieces = events
        .iter()
        .filter(|e| matches!(e, AgentEvent::Stream(StreamEvent::ToolCallArguments { .. })))
        .count();
    assert_eq!(pieces, 2);
    assert_eq!(streamed_content(&events), run.answer);

    // What the engine was sent: the model, the tools, the call's result.
    let seen = server.seen();
    assert_eq!(seen.len(), 2);
    assert!(
        seen[0].head.starts_with("POST /v1/chat/completions "),
        "{}",
        seen[0].head
    );
    assert_eq!(seen[0].body["model"], "test-model");
    assert_eq!(seen[0].body["stream"], true);
    assert_eq!(
        seen[0].body["tools"][0]["function"]["name"],
        "get_temperature"
    );
    let second = &seen[1].body["messages"];
    assert_eq!(
        second[1]["tool_calls"][0]["function"]["arguments"],
        "{\"city\":\"Paris\"}"
    );
    assert_eq!(
        second[2],
        json!({"role": "tool", "content": "21.5 in Paris", "tool_call_id": "call_x1"})
    );
}

#[test]
fn streamed_and_whole_answers_give_the_same_run() {
    let whole = |content: Option<&str>, calls: Value| {
        Reply::Json(
            200,
            json!({"object": "chat.completion", "model": "m", "choices": [{"index": 0,
                "finish_reason": "stop",
                "message": {"role": "assistant", "content": content, "tool_calls": calls}}],
                "usage": {"prompt_tokens": 5, "completion_tokens": 3}}),
        )
    };
    let call = json!([{"id": "call_x1", "type": "function",
        "function": {"name": "get_temperature", "arguments": "{\"city\": \"Paris\"}"}}]);
    let server = Server::start(vec![
        whole(None, call),
        whole(Some("It is 21.5 degrees in Paris."), Value::Null),
        Reply::Sse(streamed_call("call_x1", "Paris")),
        Reply::Sse(streamed_answer("It is 21.5 degrees in Paris.")),
    ]);
    let question = vec![Message::user("How warm is Paris?")];
    let mut plain = Agent::new(quick(&server.url).stream(false), toolbox());
    let a = plain.run(question.clone()).unwrap();
    assert_eq!(server.seen()[0].body.get("stream"), None);
    let mut streamed = Agent::new(quick(&server.url), toolbox());
    let b = streamed.run(question).unwrap();
    assert_eq!(a.messages, b.messages);
}

#[test]
fn a_malformed_call_goes_back_to_the_model_and_the_run_goes_on() {
    let bad = vec![
        chunk(
            json!({"tool_calls": [{"index": 0, "id": "call_b", "type": "function",
            "function": {"name": "get_temperature", "arguments": "{\"city\": Paris}"}}]}),
        ),
        finish("tool_calls"),
        "[DONE]".into(),
    ];
    let server = Server::start(vec![
        Reply::Sse(bad),
        Reply::Sse(streamed_answer("Sorry, let me not guess.")),
    ]);
    let mut agent = Agent::new(quick(&server.url), toolbox());
    let run = agent
        .run(vec![Message::user("How warm is Paris?")])
        .unwrap();
    assert_eq!(run.answer, "Sorry, let me not guess.");
    assert!(
        run.messages[2]
            .text()
            .starts_with("Error: arguments are not valid JSON"),
        "{}",
        run.messages[2].text()
    );
    // The engine sees the model's own text, to correct it.
    assert_eq!(
        server.seen()[1].body["messages"][1]["tool_calls"][0]["function"]["arguments"],
        "{\"city\": Paris}"
    );
}

#[test]
fn a_503_is_retried_after_retry_after_and_a_429_without_retries_left_is_an_error() {
    let server = Server::start(vec![
        Reply::Status(
            503,
            vec![("retry-after", "0")],
            "{\"error\": {\"message\": \"loading\"}}".into(),
        ),
        Reply::Sse(streamed_answer("Hello.")),
    ]);
    let mut agent = Agent::new(quick(&server.url), Toolbox::new());
    assert_eq!(
        agent.run(vec![Message::user("Hi")]).unwrap().answer,
        "Hello."
    );
    assert_eq!(server.seen().len(), 2);

    let server = Server::start(vec![Reply::Status(
        429,
        vec![("retry-after", "0")],
        "{\"error\": {\"message\": \"rate limited: 3 requests a minute\"}}".into(),
    )]);
    let mut agent = Agent::new(quick(&server.url).retries(0), Toolbox::new());
    hi_fails_with(&mut agent, "HTTP 429: rate limited: 3 requests a minute");
}

#[test]
fn http_errors_carry_the_engines_message_and_keep_the_transcript() {
    let server = Server::start(vec![Reply::Status(
        400,
        vec![],
        "{\"error\": {\"message\": \"tool_choice is not supported\", \"type\": \"invalid_request_error\"}}".into(),
    )]);
    let mut agent = Agent::new(quick(&server.url), Toolbox::new());
    let err = hi_fails_with(&mut agent, "HTTP 400: tool_choice is not supported");
    assert!(matches!(&err, AgentError::Model { round: 1, .. }));
    assert_eq!(err.messages(), [Message::user("Hi")]);

    // A body that is not JSON is quoted.
    let server = Server::start(vec![Reply::Status(502, vec![], "Bad Gateway".into())]);
    let mut agent = Agent::new(quick(&server.url), Toolbox::new());
    hi_fails_with(&mut agent, "HTTP 502: Bad Gateway");
}

#[test]
fn an_error_chunk_and_a_dropped_stream_are_errors_not_answers() {
    let server = Server::start(vec![
        Reply::Sse(vec![
            chunk(json!({"content": "Hel"})),
            json!({"error": {"message": "out of memory"}}).to_string(),
        ]),
        Reply::Sse(vec![chunk(json!({"content": "Hel"}))]),
    ]);
    let mut agent = Agent::new(quick(&server.url), Toolbox::new());
    hi_fails_with(&mut agent, "the engine reported an error: out of memory");
    hi_fails_with(&mut agent, "stream ended before the turn was complete");
}

#[test]
fn an_unreachable_engine_and_a_silent_one_fail_in_bounded_time() {
    // A port nothing listens on.
    let port = TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let chat = quick(&format!("http://127.0.0.1:{port}"));
    hi_fails_with(
        &mut Agent::new(chat, Toolbox::new()),
        &format!("cannot reach http://127.0.0.1:{port}/v1/chat/completions"),
    );

    let server = Server::start(vec![Reply::Hang]);
    let chat = RemoteChat::openai_compatible(&server.url, "m").timeouts(Timeouts {
        connect: Duration::from_secs(2),
        first_byte: Duration::from_millis(300),
        total: Duration::from_secs(5),
    });
    let started = Instant::now();
    hi_fails_with(
        &mut Agent::new(chat, Toolbox::new()),
        "waited 300ms for the first byte",
    );
    assert!(started.elapsed() < Duration::from_secs(3));
}

#[test]
fn the_api_key_is_sent_but_never_shown() {
    let secret = "sk-test-0123456789abcdef";
    std::env::set_var("TOOL_MODELS_TEST_KEY", secret);
    let server = Server::start(vec![Reply::Status(
        401,
        vec![],
        "{\"error\": {\"message\": \"invalid api key\"}}".into(),
    )]);
    let chat = quick(&server.url)
        .api_key_env("TOOL_MODELS_TEST_KEY")
        .unwrap()
        .header("x-team", "tools");
    let shown = format!("{chat:?}");
    assert!(
        !shown.contains(secret) && shown.contains("<redacted>"),
        "{shown}"
    );
    let err = Agent::new(chat, Toolbox::new())
        .run(vec![Message::user("Hi")])
        .unwrap_err();
    assert!(!format!("{err} {err:?}").contains(secret));
    let head = server.seen()[0].head.to_ascii_lowercase();
    assert!(
        head.contains(&format!("authorization: bearer {secret}")),
        "{head}"
    );
    assert!(head.contains("x-team: tools"), "{head}");

    let err = RemoteChat::openai_compatible("http://127.0.0.1:1", "m")
        .api_key_env("TOOL_MODELS_TEST_KEY_UNSET")
        .unwrap_err();
    assert_eq!(
        err,
        RemoteError::MissingApiKey("TOOL_MODELS_TEST_KEY_UNSET".into())
    );
}

#[test]
fn the_model_list_is_read_and_blocking_calls_refuse_async_code() {
    let server = Server::start(vec![Reply::Json(
        200,
        json!({"object": "list", "data": [{"id": "qwen2.5", "object": "model"}, {"id": "llama3"}]}),
    )]);
    let mut chat = quick(&server.url);
    assert_eq!(chat.models().unwrap(), ["qwen2.5", "llama3"]);
    assert!(server.seen()[0].head.starts_with("GET /v1/models "));

    let runtime = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap();
    let err = runtime.block_on(async { chat.models() }).unwrap_err();
    assert_eq!(err, RemoteError::InsideRuntime);
}

#[test]
fn the_async_agent_gives_the_blocking_agents_run_inside_a_runtime() {
    let replies = || {
        vec![
            Reply::Sse(streamed_call("call_x1", "Paris")),
            Reply::Sse(streamed_answer("It is 21.5 degrees in Paris.")),
        ]
    };
    let question = vec![Message::user("How warm is Paris?")];
    let server = Server::start(replies());
    let blocking = Agent::new(quick(&server.url), toolbox())
        .run(question.clone())
        .unwrap();

    let server = Server::start(replies());
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let mut events = Vec::new();
    let run = runtime
        .block_on(async {
            let mut agent = Agent::new(quick(&server.url), toolbox());
            // A future that can move between threads: spawn it.
            tokio::spawn(async move {
                let mut events = Vec::new();
                let run = agent
                    .run_async_with(question, &mut |e| events.push(e))
                    .await;
                (run, events)
            })
            .await
        })
        .map(|(run, seen)| {
            events = seen;
            run
        })
        .unwrap()
        .unwrap();
    assert_eq!(run.messages, blocking.messages);
    assert_eq!(run.answer, blocking.answer);
    assert!(events.iter().any(
        |e| matches!(e, AgentEvent::ToolResult { message } if message.text() == "21.5 in Paris")
    ));
}

/// A Hermes-style template, as a served model's tokenizer_config.json has it.
const HERMES: &str = "{%- if tools %}<|im_start|>system\n<tools>{% for t in tools %}{{ t | tojson }}{% endfor %}</tools><|im_end|>\n{% endif %}{%- for m in messages %}<|im_start|>{{ m.role }}\n{% if m.tool_calls %}{% for c in m.tool_calls %}<tool_call>\n{\"name\": \"{{ c.function.name }}\", \"arguments\": {{ c.function.arguments | tojson }}}\n</tool_call>{% endfor %}{% else %}{{ m.content }}{% endif %}<|im_end|>\n{% endfor %}{%- if add_generation_prompt %}<|im_start|>assistant\n{% endif %}";

fn text_chunks(text: &str, finish: &str) -> Vec<String> {
    let chars: Vec<char> = text.chars().collect();
    let mut out: Vec<String> = chars
        .chunks(5)
        .map(|p| {
            json!({"object": "text_completion", "choices": [{"index": 0,
            "text": p.iter().collect::<String>(), "finish_reason": null}]})
            .to_string()
        })
        .collect();
    out.push(json!({"choices": [{"index": 0, "text": "", "finish_reason": finish}]}).to_string());
    out.push(
        json!({"choices": [], "usage": {"prompt_tokens": 70, "completion_tokens": 20}}).to_string(),
    );
    out.push("[DONE]".into());
    out
}

#[test]
fn raw_completions_render_our_template_and_parse_the_calls_here() {
    let call = "<tool_call>\n{\"name\": \"get_temperature\", \"arguments\": {\"city\": \"Paris\"}}\n</tool_call>";
    let server = Server::start(vec![
        Reply::Sse(text_chunks(call, "stop")),
        Reply::Sse(text_chunks("It is 21.5 degrees in Paris.", "stop")),
    ]);
    let chat = RemoteChat::completions(format!("{}/v1", server.url), "base-model", HERMES).unwrap();
    assert_eq!(
        tool_models::chat::ChatModel::format(&chat),
        tool_models::parse::Format::Hermes
    );
    let mut agent = Agent::new(chat, toolbox());
    let (run, _) = ask_paris(&mut agent);
    assert_called_for_paris(&run, "call_0");
    assert_eq!(run.answer, "It is 21.5 degrees in Paris.");
    assert_eq!(run.stats.prompt_tokens, 140);

    // The engine got our rendering, with the tools, and then the call and its result.
    let seen = server.seen();
    assert!(
        seen[0].head.starts_with("POST /v1/completions "),
        "{}",
        seen[0].head
    );
    let prompt = seen[0].body["prompt"].as_str().unwrap();
    assert!(
        prompt.starts_with("<|im_start|>system\n<tools>{\"type\": \"function\""),
        "{prompt}"
    );
    assert!(
        prompt.ends_with("<|im_start|>user\nHow warm is Paris?<|im_end|>\n<|im_start|>assistant\n"),
        "{prompt}"
    );
    let second = seen[1].body["prompt"].as_str().unwrap();
    assert!(
        second.contains(
            "<tool_call>\n{\"name\": \"get_temperature\", \"arguments\": {\"city\": \"Paris\"}}"
        ),
        "{second}"
    );

    // Whole answers too.
    let server = Server::start(vec![Reply::Json(
        200,
        json!({"object": "text_completion", "choices": [{"index": 0,
            "text": "Hello there.", "finish_reason": "stop"}],
            "usage": {"prompt_tokens": 9, "completion_tokens": 3}}),
    )]);
    let chat = RemoteChat::completions(&server.url, "base-model", HERMES)
        .unwrap()
        .stream(false);
    let run = Agent::new(chat, Toolbox::new())
        .run(vec![Message::user("Hi")])
        .unwrap();
    assert_eq!(run.answer, "Hello there.");
    assert_eq!(server.seen()[0].body.get("stream"), None);

    // A template that names no known format is a clear error.
    let err = RemoteChat::completions("http://127.0.0.1:1", "m", "{{ messages }}").unwrap_err();
    assert!(
        err.to_string()
            .starts_with("the chat template cannot be used"),
        "{err}"
    );
    // And one that does not compile.
    let err = RemoteChat::completions("http://127.0.0.1:1", "m", "{% if %}").unwrap_err();
    assert!(matches!(err, RemoteError::Template(_)), "{err}");
}

#[test]
fn cancelling_the_run_drops_the_request_at_once() {
    let server = Server::start(vec![Reply::Hang]);
    let chat = RemoteChat::openai_compatible(&server.url, "m").timeouts(Timeouts {
        connect: Duration::from_secs(2),
        first_byte: Duration::from_secs(10),
        total: Duration::from_secs(10),
    });
    let token = tool_runtime::CancelToken::new();
    let mut agent = Agent::new(chat, Toolbox::new())
        .context(tool_runtime::RunContext::new().with_cancel(token.clone()));
    let canceller = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(200));
        token.cancel();
    });
    let started = Instant::now();
    let outcome = agent.run(vec![Message::user("Hi")]);
    canceller.join().unwrap();
    assert!(
        matches!(&outcome, Err(AgentError::Cancelled { round: 1, messages }) if messages.len() == 1),
        "{outcome:?}"
    );
    assert!(
        started.elapsed() < Duration::from_secs(2),
        "{:?}",
        started.elapsed()
    );
}
