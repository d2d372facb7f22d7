//! MCP both ways: `McpClient` against `tool-use mcp` (a child process over
//! stdio) and against an in-process `McpServer` over streamable HTTP; MCP
//! tools next to `#[tool]` functions in one toolbox; servers that die or
//! answer garbage; progress and cancellation both ways; a toolbox kept in
//! step with a server whose tools change.

use serde_json::json;
use std::process::Command;
use std::time::{Duration, Instant};
use tool_use::mcp::{HttpOptions, McpClient, McpError, McpServer, ToolboxMcp};
use tool_use::{tool, DefinitionFormat, Message, ToolCall, Toolbox};

/// Calls whose answers do not depend on the clock: results, the tools' own
/// failures, repairs and every kind of refusal.
fn calls() -> Vec<ToolCall> {
    [
        (
            "get_current_temperature",
            json!({"location": "Paris, France", "unit": "celsius"}),
        ),
        ("get_current_wind_speed", json!({"location": "Lima, Peru"})),
        ("calculate", json!({"operation": "power", "a": 2, "b": 10})),
        ("calculate", json!({"operation": "divide", "a": 1, "b": 0})),
        ("calculate", json!({"operation": "add", "a": "2", "b": 3})),
        ("calculate", json!({"operation": "add", "a": 1})),
        (
            "calculate",
            json!({"operation": "add", "a": 1, "b": 2, "c": 3}),
        ),
        (
            "convert_units",
            json!({"value": 1, "from_unit": "km", "to_unit": "celsius"}),
        ),
        ("calculat", json!({"operation": "add", "a": 1, "b": 2})),
    ]
    .into_iter()
    .enumerate()
    .map(|(i, (name, args))| ToolCall::new(format!("call_{i}"), name, args))
    .collect()
}

fn contents(messages: &[Message]) -> Vec<String> {
    messages
        .iter()
        .map(|m| m.content.clone().unwrap_or_default())
        .collect()
}

fn demo_command() -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_tool-use"));
    command.arg("mcp").env_remove("TOOL_USE_MODEL");
    command
}

/// Through MCP, a toolbox sees what the local one does: the same definitions
/// (schemas survive the trip; MCP spells `nullable` as a `null` type) and the
/// same tool messages, errors included.
async fn assert_same_as_local(client: &McpClient) {
    let remote = Toolbox::new().with_mcp(client).unwrap();
    let local = tool_use::demo::toolbox();
    assert_eq!(
        remote.definitions(DefinitionFormat::Mcp),
        local.definitions(DefinitionFormat::Mcp)
    );
    let through_mcp = contents(&remote.call_all(&calls()).await);
    assert_eq!(through_mcp, contents(&local.call_all(&calls()).await));
    assert_eq!(through_mcp[2], "1024");
    assert_eq!(through_mcp[3], "Error: division by zero");
    assert!(
        through_mcp[8].starts_with("Error: unknown tool `calculat`"),
        "{}",
        through_mcp[8]
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_child_process_over_stdio_serves_the_demo_tools() {
    let client = McpClient::stdio(demo_command()).await.unwrap();
    assert_eq!(
        client.server_name().as_deref(),
        Some(concat!("tool-use-demo ", env!("CARGO_PKG_VERSION")))
    );
    assert_eq!(client.definitions().len(), 5);
    for def in client.definitions() {
        assert_eq!(
            def.input_schema.get("type"),
            Some(&json!("object")),
            "{}",
            def.name
        );
        assert!(!def.input_schema.contains_key("$schema"), "{}", def.name);
    }
    assert_same_as_local(&client).await;
}

/// Tools for the in-process server: one that takes a while, so that calls in
/// flight can be seen overlapping.
/// Wait, then say so.
///
/// Args:
///     ms: How long to wait, in milliseconds.
#[tool]
async fn nap(ms: u64) -> String {
    tokio::time::sleep(Duration::from_millis(ms)).await;
    format!("slept {ms} ms")
}

async fn http_server(
    toolbox: Toolbox,
) -> (
    String,
    tokio::sync::oneshot::Sender<()>,
    tokio::task::JoinHandle<()>,
) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/mcp", listener.local_addr().unwrap());
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let task = tokio::spawn(async move {
        McpServer::new(toolbox)
            .serve_http(listener, &HttpOptions::default(), async {
                let _ = stopped.await;
            })
            .await
            .unwrap();
    });
    (url, stop, task)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn streamable_http_in_process_and_a_server_that_stops() {
    let (url, stop, task) = http_server(tool_use::demo::toolbox()).await;
    let client = McpClient::http(&url).await.unwrap();
    assert_same_as_local(&client).await;

    // Stopping ends open sessions too, promptly.
    stop.send(()).unwrap();
    tokio::time::timeout(Duration::from_secs(10), task)
        .await
        .unwrap()
        .unwrap();
    let toolbox = Toolbox::new().with_mcp(&client).unwrap();
    let answer = toolbox.call(&calls()[2]).await;
    let text = answer.content.unwrap_or_default();
    assert!(text.starts_with("Error: the MCP server http://"), "{text}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn calls_in_flight_overlap_and_mix_with_local_tools() {
    let (url, _stop, _task) = http_server(tool_use::toolbox![nap]).await;
    let client = McpClient::http(&url).await.unwrap();
    let toolbox = tool_use::demo::toolbox().with_mcp(&client).unwrap();
    let naps: Vec<ToolCall> = (0..4)
        .map(|i| ToolCall::new(format!("n{i}"), "nap", json!({"ms": 400})))
        .chain([ToolCall::new(
            "c",
            "calculate",
            json!({"operation": "add", "a": 1, "b": 1}),
        )])
        .collect();
    let started = Instant::now();
    let answers = contents(&toolbox.call_all(&naps).await);
    // Four 400 ms naps one after another would take 1.6 s.
    assert_took_less(started, Duration::from_millis(1400));
    assert_eq!(
        answers,
        [
            "slept 400 ms",
            "slept 400 ms",
            "slept 400 ms",
            "slept 400 ms",
            "2"
        ]
    );

    // A name the toolbox already has is refused, naming it.
    let again = toolbox.clone().with_mcp(&client).unwrap_err();
    assert!(
        matches!(&again, McpError::BadTool { tool, .. } if tool == "nap"),
        "{again}"
    );
    assert!(
        again.to_string().contains("two tools are named `nap`"),
        "{again}"
    );
}

/// A stdio "server" in the shell: answers the handshake and the tool list,
/// then does `then` to the first call.
fn scripted(then: &str) -> Command {
    let script = format!(
        r#"
        reply() {{ read -r line; id=$(printf '%s' "$line" | sed -n 's/.*"id":\([0-9]*\).*/\1/p'); printf '%s\n' "$1" | sed "s/ID/$id/"; }}
        reply '{{"jsonrpc":"2.0","id":ID,"result":{{"protocolVersion":"2025-06-18","capabilities":{{"tools":{{}}}},"serverInfo":{{"name":"scripted","version":"0"}}}}}}'
        read -r initialized
        reply '{{"jsonrpc":"2.0","id":ID,"result":{{"tools":[{{"name":"echo","description":"Echo.","inputSchema":{{"type":"object","properties":{{"text":{{"type":"string"}}}}}}}}]}}}}'
        read -r call
        {then}
        "#
    );
    let mut command = Command::new("bash");
    command.args(["-c", &script]);
    command
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_that_dies_or_answers_garbage_is_an_error_message() {
    let call = ToolCall::new("1", "echo", json!({"text": "hi"}));
    for (then, expected) in [
        (
            "exit 3",
            "Error: the MCP server `bash` could not run `echo`",
        ),
        (
            "echo 'this is not JSON'; exit 0",
            "Error: the MCP server `bash` could not run `echo`",
        ),
        (
            "echo '{\"jsonrpc\":\"2.0\",\"id\":\"nope\",\"result\":7}'; sleep 30",
            "Error: the tool `echo` did not finish within 2s",
        ),
    ] {
        let client = McpClient::stdio(scripted(then))
            .await
            .unwrap()
            .timeout(Duration::from_secs(2));
        assert_eq!(client.server_name().as_deref(), Some("scripted 0"));
        let toolbox = Toolbox::new().with_mcp(&client).unwrap();
        let started = Instant::now();
        let text = toolbox.call(&call).await.content.unwrap_or_default();
        assert!(text.starts_with(expected), "{then}: {text}");
        assert!(
            started.elapsed() < Duration::from_secs(10),
            "{then}: {:?}",
            started.elapsed()
        );
        // And again: the toolbox still answers.
        let text = toolbox.call(&call).await.content.unwrap_or_default();
        assert!(text.starts_with("Error: "), "{then}: {text}");
    }
}

#[test]
fn blocking_clients_work_without_a_runtime_and_refuse_inside_one() {
    let client = McpClient::stdio_blocking(demo_command()).unwrap();
    let toolbox = Toolbox::new().with_mcp(&client).unwrap();
    let answer = toolbox.call_blocking(&calls()[2]);
    assert_eq!(answer.content.as_deref(), Some("1024"));
    drop(toolbox);
    drop(client);

    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let inside = runtime.block_on(async { McpClient::stdio_blocking(demo_command()) });
    assert!(
        matches!(inside, Err(McpError::InsideRuntime(_))),
        "{inside:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hosts_outside_loopback_are_refused_unless_allowed() {
    let (url, _stop, _task) = http_server(tool_use::demo::toolbox()).await;
    let initialize = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}});
    let post = |host: &'static str| {
        reqwest::Client::new()
            .post(&url)
            .header("Host", host)
            .header("Accept", "application/json, text/event-stream")
            .header("Content-Type", "application/json")
            .body(initialize.to_string())
            .send()
    };
    assert_eq!(post("attacker.example").await.unwrap().status(), 403);
    assert_eq!(post("localhost").await.unwrap().status(), 200);
}

/// The team a server acts for: data the server adds to every call.
struct Team(&'static str);

/// Say who is calling.
#[tool]
fn who_calls(context: &tool_use::ToolContext) -> String {
    let host = context
        .get::<axum::http::request::Parts>()
        .and_then(|parts| parts.headers.get("host"))
        .and_then(|h| h.to_str().ok())
        .unwrap_or("no request");
    let client = context
        .get::<rmcp::model::Implementation>()
        .map_or("no client", |c| c.name.as_str());
    let team = context.get::<Team>().map_or("no team", |t| t.0);
    format!("{host}|{client}|{team}|{}", context.call_id())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_tool_sees_the_http_request_the_client_and_the_servers_data() {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap();
    let server = McpServer::new(tool_use::toolbox![who_calls])
        .context(tool_use::RunContext::new().with(Team("blue")));
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let task = tokio::spawn(async move {
        let stopped = async {
            let _ = stopped.await;
        };
        server
            .serve_http(listener, &HttpOptions::default(), stopped)
            .await
            .unwrap();
    });
    let client = McpClient::http(&format!("http://{address}/mcp"))
        .await
        .unwrap();
    let toolbox = Toolbox::new().with_mcp(&client).unwrap();
    let answer = toolbox
        .call(&ToolCall::new("c", "who_calls", json!({})))
        .await;
    let parts: Vec<&str> = answer.text().split('|').collect();
    assert_eq!(parts[0], address.to_string(), "{answer:?}");
    assert!(
        !parts[1].is_empty() && parts[1] != "no client",
        "{answer:?}"
    );
    assert_eq!(parts[2], "blue");
    assert!(parts[3].starts_with("mcp-"), "the request's id: {answer:?}");
    let _ = stop.send(());
    task.await.unwrap();
}

/// Tells how far it got, a step each 100 ms, until cancelled.
///
/// Args:
///     steps: How many steps.
#[tool]
async fn ticks(steps: u32, context: &tool_use::ToolContext) -> String {
    for done in 1..=steps {
        context.progress(f64::from(done), Some(f64::from(steps)), None);
        tokio::select! {
            _ = tokio::time::sleep(Duration::from_millis(100)) => {}
            _ = context.cancelled() => {
                TICKS_STOPPED.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                return format!("stopped at {done}");
            }
        }
    }
    "done".into()
}

/// How many `ticks` calls saw their cancellation, server side.
static TICKS_STOPPED: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

/// Asserts that less than `limit` has passed since `started`.
#[track_caller]
fn assert_took_less(started: Instant, limit: Duration) {
    let took = started.elapsed();
    assert!(took < limit, "{took:?}");
}

/// Polls `done` for up to five seconds.
async fn eventually(mut done: impl FnMut() -> bool) -> bool {
    let started = Instant::now();
    while started.elapsed() < Duration::from_secs(5) {
        if done() {
            return true;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    done()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn progress_and_cancellation_cross_the_connection_both_ways() {
    let (url, _stop, _task) = http_server(tool_use::toolbox![ticks]).await;
    let client = McpClient::http(&url).await.unwrap();
    let toolbox = Toolbox::new().with_mcp(&client).unwrap();

    // The server's reports are the call's progress, in order.
    let reports = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let heard = reports.clone();
    let run = tool_use::RunContext::new().with_progress(move |report: tool_use::ToolProgress| {
        heard
            .lock()
            .unwrap()
            .push((report.call_id, report.done, report.total));
    });
    let answer = toolbox
        .call_in(&ToolCall::new("t1", "ticks", json!({"steps": 3})), &run)
        .await;
    assert_eq!(answer.text(), "done");
    let reports = reports.lock().unwrap().clone();
    let expected: Vec<(String, f64, Option<f64>)> = (1..=3)
        .map(|done| ("t1".to_owned(), f64::from(done), Some(3.0)))
        .collect();
    assert_eq!(reports, expected);

    // Cancelling the run withdraws the call: the server's tool stops too.
    let before = TICKS_STOPPED.load(std::sync::atomic::Ordering::SeqCst);
    let token = tool_use::CancelToken::new();
    let run = tool_use::RunContext::new().with_cancel(token.clone());
    let canceller = tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(250)).await;
        token.cancel();
    });
    let started = Instant::now();
    let answer = toolbox
        .call_in(&ToolCall::new("t2", "ticks", json!({"steps": 100})), &run)
        .await;
    canceller.await.unwrap();
    assert_eq!(answer.text(), "Error: the call to `ticks` was cancelled");
    assert_took_less(started, Duration::from_secs(2));
    assert!(
        eventually(|| TICKS_STOPPED.load(std::sync::atomic::Ordering::SeqCst) > before).await,
        "the server's tool never saw the cancellation"
    );

    // So does a call that runs out of the client's time.
    let before = TICKS_STOPPED.load(std::sync::atomic::Ordering::SeqCst);
    let hurried = Toolbox::new()
        .with_mcp(&client.clone().timeout(Duration::from_millis(250)))
        .unwrap();
    let answer = hurried
        .call(&ToolCall::new("t3", "ticks", json!({"steps": 100})))
        .await;
    assert!(
        answer.text().contains("did not finish within"),
        "{}",
        answer.text()
    );
    assert!(
        eventually(|| TICKS_STOPPED.load(std::sync::atomic::Ordering::SeqCst) > before).await,
        "the server's tool never saw the time limit"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_toolbox_kept_in_step_follows_the_servers_changes() {
    let served = tool_use::SharedToolbox::new(tool_use::toolbox![nap]);
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/mcp", listener.local_addr().unwrap());
    let server = McpServer::new(served.clone());
    let _task = tokio::spawn(async move {
        server
            .serve_http(listener, &HttpOptions::default(), std::future::pending())
            .await
            .unwrap();
    });
    let client = McpClient::http(&url).await.unwrap();
    let local = tool_use::SharedToolbox::new(tool_use::demo::toolbox());
    client.sync(&local).unwrap();
    let names = |t: &tool_use::SharedToolbox| -> Vec<String> {
        t.snapshot().names().map(str::to_owned).collect()
    };
    assert_eq!(names(&local).last().map(String::as_str), Some("nap"));

    // The server gains a tool and loses one: the client hears, lists again,
    // and the local toolbox follows, its own tools untouched.
    served
        .update(|t| {
            t.remove("nap");
            t.add(tool_use::toolbox![ticks].get("ticks").unwrap().clone())
        })
        .unwrap();
    assert!(
        eventually(|| names(&local).contains(&"ticks".to_owned())).await,
        "{:?}",
        names(&local)
    );
    assert!(!names(&local).contains(&"nap".to_owned()));
    assert_eq!(names(&local).len(), tool_use::demo::toolbox().len() + 1);
    assert!(client.definitions().iter().all(|d| d.name != "nap"));
    let answer = local
        .snapshot()
        .call(&ToolCall::new("t", "ticks", json!({"steps": 1})))
        .await;
    assert_eq!(answer.text(), "done");

    // A name already taken is refused at first, and nothing is added.
    let clashing = tool_use::SharedToolbox::new(tool_use::toolbox![ticks]);
    let error = client.sync(&clashing).unwrap_err();
    assert!(
        matches!(&error, McpError::BadTool { tool, .. } if tool == "ticks"),
        "{error}"
    );
    assert_eq!(names(&clashing), ["ticks"]);
}

/// Sleep, blocking the thread.
///
/// Args:
///     ms: How long, in milliseconds.
#[tool]
fn doze(ms: u64) -> String {
    std::thread::sleep(Duration::from_millis(ms));
    format!("dozed {ms} ms")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn blocking_tools_never_hold_up_the_server() {
    let (url, _stop, _task) = http_server(tool_use::toolbox![doze]).await;
    let client = McpClient::http(&url).await.unwrap();
    let toolbox = Toolbox::new().with_mcp(&client).unwrap();
    let dozes: Vec<ToolCall> = (0..4)
        .map(|i| ToolCall::new(format!("d{i}"), "doze", json!({"ms": 400})))
        .collect();
    let started = Instant::now();
    let answers = contents(&toolbox.call_all(&dozes).await);
    // Run inline, the four would take turns on the runtime's two threads
    // (800 ms at least), and the client's own tasks would wait with them.
    assert_took_less(started, Duration::from_millis(750));
    assert_eq!(answers, ["dozed 400 ms"; 4]);
}
