//! What the remote client costs on top of the engine's own time:
//! - per streamed chunk: merging its JSON (`ChunkMerger::feed`), and SSE
//!   framing plus merging from raw bytes;
//! - per request: a whole streamed turn through `RemoteChat` (HTTP on
//!   127.0.0.1, request body, SSE, merge, events) against a server that
//!   answers at once with a canned 64-chunk stream, so everything measured
//!   is client and loopback.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpListener;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use eventsource_stream::Eventsource;
use futures_util::StreamExt;
use serde_json::json;
use std::hint::black_box;
use tool_models::chat::{ChatModel, TurnRequest};
use tool_models::remote::{ChunkMerger, RemoteChat};
use tool_runtime::{Message, ToolChoice, ToolDefinition};

/// A typical streamed turn: 48 content pieces, then a call in 14 fragments.
fn payloads() -> Vec<String> {
    let chunk = |delta: serde_json::Value| {
        json!({"id": "chatcmpl-0123456789", "object": "chat.completion.chunk", "created": 1,
               "model": "qwen2.5-7b-instruct", "system_fingerprint": "fp",
               "choices": [{"index": 0, "delta": delta, "logprobs": null, "finish_reason": null}]})
        .to_string()
    };
    let mut out = vec![chunk(json!({"role": "assistant", "content": ""}))];
    for i in 0..48 {
        out.push(chunk(json!({"content": format!(" word{i}")})));
    }
    out.push(chunk(
        json!({"tool_calls": [{"index": 0, "id": "call_0123456789", "type": "function",
        "function": {"name": "get_current_temperature", "arguments": ""}}]}),
    ));
    let args = "{\"location\": \"Paris, France\", \"unit\": \"celsius\"}";
    let chars: Vec<char> = args.chars().collect();
    for piece in chars.chunks(4) {
        out.push(chunk(json!({"tool_calls": [{"index": 0,
            "function": {"arguments": piece.iter().collect::<String>()}}]})));
    }
    out.push(
        json!({"choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]}).to_string(),
    );
    out.push("[DONE]".into());
    out
}

fn sse_bytes(payloads: &[String]) -> Vec<u8> {
    payloads
        .iter()
        .flat_map(|p| format!("data: {p}\n\n").into_bytes())
        .collect()
}

/// Answers every connection with `body` as an SSE stream.
fn serve(body: Vec<u8>) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}/v1", listener.local_addr().unwrap());
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(stream) = stream else { return };
            let mut reader = BufReader::new(stream.try_clone().unwrap());
            let mut length = 0;
            loop {
                let mut line = String::new();
                if reader.read_line(&mut line).unwrap_or(0) == 0 || line == "\r\n" {
                    break;
                }
                if let Some(v) = line.to_ascii_lowercase().strip_prefix("content-length:") {
                    length = v.trim().parse().unwrap_or(0);
                }
            }
            let mut request = vec![0; length];
            let _ = reader.read_exact(&mut request);
            let mut out = stream;
            let _ = out.write_all(
                b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\nconnection: close\r\n\r\n",
            );
            let _ = out.write_all(&body);
        }
    });
    url
}

fn bench(c: &mut Criterion) {
    let payloads = payloads();
    let n = payloads.len() as u64;
    let mut group = c.benchmark_group("remote");
    group.throughput(Throughput::Elements(n));
    group.bench_function("merge a 66-chunk stream", |b| {
        b.iter(|| {
            let mut merger = ChunkMerger::new();
            for p in &payloads {
                black_box(merger.feed(p).unwrap());
            }
            black_box(merger.finish().unwrap())
        })
    });
    let bytes = sse_bytes(&payloads);
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    group.bench_function("SSE framing + merge from bytes", |b| {
        b.iter(|| {
            runtime.block_on(async {
                // Network-sized reads: 1,400-byte pieces.
                let pieces: Vec<Result<Vec<u8>, std::io::Error>> =
                    bytes.chunks(1400).map(|c| Ok(c.to_vec())).collect();
                let mut events = futures_util::stream::iter(pieces).eventsource();
                let mut merger = ChunkMerger::new();
                while let Some(event) = events.next().await {
                    black_box(merger.feed(&event.unwrap().data).unwrap());
                }
                black_box(merger.finish().unwrap())
            })
        })
    });
    group.finish();

    let url = serve(bytes);
    let mut chat = RemoteChat::openai_compatible(url, "qwen2.5-7b-instruct");
    let messages = [Message::user("What's the temperature in Paris right now?")];
    let tools = [
        json!({"type": "function", "function": {"name": "get_current_temperature",
        "description": "Get the current temperature at a location.",
        "parameters": {"type": "object", "properties": {
            "location": {"type": "string"}, "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]}},
            "required": ["location", "unit"]}}}),
    ];
    let tools = ToolDefinition::list_from_json(&tools).unwrap();
    let request = TurnRequest::new(&messages, &tools, &ToolChoice::Auto);
    c.bench_function("remote/a streamed turn over HTTP on 127.0.0.1", |b| {
        b.iter(|| {
            black_box(
                chat.respond(&request, &mut |d| {
                    black_box(d);
                })
                .unwrap(),
            )
        })
    });
}

criterion_group!(benches, bench);
criterion_main!(benches);
