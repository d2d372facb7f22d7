//! `POST /v1/responses` of the server (`tool_use::server`) over
//! real HTTP on loopback, with the bundled model: forced calls, streamed
//! answers equal to whole ones, tool results answered from, by resending
//! the input and by `previous_response_id`, structured output, and the
//! errors clients get, in OpenAI's shape.

#[path = "common/http.rs"]
mod http;

use http::{bundled, client, named_events, start};
use serde_json::{json, Value};

/// The demo tools in the Responses form (`name` at the top level).
fn tools() -> Value {
    tool_use::demo::definitions()
        .into_iter()
        .map(|t| {
            let f = &t["function"];
            json!({"type": "function", "name": f["name"], "description": f["description"],
                "parameters": f["parameters"]})
        })
        .collect()
}

fn ask(prompt: &str) -> Value {
    json!({"model": "tool-use-mini", "input": prompt, "tools": tools()})
}

async fn post_with(url: &str, key: Option<&str>, body: &Value) -> (u16, Value) {
    let mut request = client()
        .post(format!("{url}/responses"))
        .header("content-type", "application/json")
        .body(body.to_string());
    if let Some(key) = key {
        request = request.bearer_auth(key);
    }
    let response = request.send().await.unwrap();
    let status = response.status().as_u16();
    let text = response.text().await.unwrap();
    let json = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{e}: {text}"));
    (status, json)
}

async fn post(url: &str, body: &Value) -> (u16, Value) {
    post_with(url, None, body).await
}

/// The `(event, data)` pairs of a streamed answer, after checking each
/// `event:` name is its data's `type` and the numbers run from 0.
async fn post_stream(url: &str, body: &Value) -> Vec<Value> {
    let mut body = body.clone();
    body["stream"] = json!(true);
    let response = client()
        .post(format!("{url}/responses"))
        .header("content-type", "application/json")
        .body(body.to_string())
        .send()
        .await
        .unwrap();
    let events = named_events(response).await;
    for (i, event) in events.iter().enumerate() {
        assert_eq!(event["sequence_number"], i, "{event}");
    }
    events
}

/// What a client accumulates from a stream, checking the order the SDKs
/// rely on: created first, each item added before its pieces and done
/// after them, the pieces adding up to the done item, one final event.
fn accumulate(events: &[Value]) -> Value {
    assert_eq!(events[0]["type"], "response.created");
    assert_eq!(events[1]["type"], "response.in_progress");
    let id = &events[0]["response"]["id"];
    let mut items: Vec<Value> = Vec::new();
    let mut done = 0;
    for e in &events[2..events.len() - 1] {
        let at = e["output_index"].as_u64().unwrap() as usize;
        match e["type"].as_str().unwrap() {
            "response.output_item.added" => {
                assert_eq!(at, items.len(), "{e}");
                items.push(e["item"].clone());
            }
            "response.output_text.delta" => {
                let item = &mut items[at];
                let text = format!(
                    "{}{}",
                    item["text"].as_str().unwrap_or(""),
                    e["delta"].as_str().unwrap()
                );
                item["text"] = json!(text);
            }
            "response.function_call_arguments.delta" => {
                let item = &mut items[at];
                let args = format!(
                    "{}{}",
                    item["arguments"].as_str().unwrap(),
                    e["delta"].as_str().unwrap()
                );
                item["arguments"] = json!(args);
            }
            "response.function_call_arguments.done" => {
                assert_eq!(e["arguments"], items[at]["arguments"], "{e}");
            }
            "response.output_text.done" => assert_eq!(e["text"], items[at]["text"], "{e}"),
            "response.output_item.done" => {
                assert_eq!(at, done, "items end in order: {e}");
                done += 1;
                let item = &e["item"];
                assert_eq!(item["id"], items[at]["id"]);
                match item["type"].as_str().unwrap() {
                    "function_call" => assert_eq!(item["arguments"], items[at]["arguments"]),
                    "message" => {
                        assert_eq!(item["content"][0]["text"], items[at]["text"])
                    }
                    _ => {}
                }
            }
            "response.content_part.added"
            | "response.content_part.done"
            | "response.reasoning_text.delta"
            | "response.reasoning_text.done" => {}
            other => panic!("unexpected {other}: {e}"),
        }
    }
    assert_eq!(done, items.len(), "every item ends");
    let last = events.last().unwrap();
    assert!(
        matches!(
            last["type"].as_str(),
            Some("response.completed" | "response.incomplete")
        ),
        "{last}"
    );
    assert_eq!(&last["response"]["id"], id);
    last["response"].clone()
}

/// An output without the ids each answer draws anew.
fn without_ids(output: &Value) -> Value {
    let mut output = output.clone();
    for item in output.as_array_mut().unwrap() {
        let item = item.as_object_mut().unwrap();
        item.remove("id");
        item.remove("call_id");
    }
    output
}

fn calls(response: &Value) -> Vec<Value> {
    response["output"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|i| i["type"] == "function_call")
        .cloned()
        .collect()
}

fn output_text(response: &Value) -> String {
    let mut text = String::new();
    for item in response["output"].as_array().unwrap() {
        for part in item["content"].as_array().into_iter().flatten() {
            if part["type"] == "output_text" {
                text.push_str(part["text"].as_str().unwrap());
            }
        }
    }
    text
}

#[tokio::test(flavor = "multi_thread")]
async fn forced_calls_streamed_as_whole_and_answered_from_their_results() {
    let url = start(bundled()).await;
    let weather = "What's the temperature in Paris right now?";

    let mut body = ask(weather);
    body["tool_choice"] = json!("required");
    let (status, whole) = post(&url, &body).await;
    assert_eq!(status, 200, "{whole}");
    assert_eq!(whole["object"], "response");
    assert_eq!(whole["status"], "completed", "{whole}");
    assert!(whole["id"].as_str().unwrap().starts_with("resp_"));
    let found = calls(&whole);
    assert_eq!(found.len(), 1, "{whole}");
    let call = &found[0];
    assert_eq!(call["name"], "get_current_temperature");
    assert!(call["id"].as_str().unwrap().starts_with("fc_"));
    let arguments: Value = serde_json::from_str(call["arguments"].as_str().unwrap()).unwrap();
    assert_eq!(arguments["unit"], "celsius", "{whole}");
    let usage = &whole["usage"];
    assert!(usage["input_tokens"].as_u64().unwrap() > 100, "{usage}");
    assert_eq!(
        usage["total_tokens"].as_u64(),
        Some(usage["input_tokens"].as_u64().unwrap() + usage["output_tokens"].as_u64().unwrap())
    );

    // Streamed: the same items, arguments in pieces.
    let events = post_stream(&url, &body).await;
    let streamed = accumulate(&events);
    assert_eq!(streamed["status"], whole["status"]);
    assert_eq!(
        without_ids(&streamed["output"]),
        without_ids(&whole["output"])
    );
    let pieces = events
        .iter()
        .filter(|e| e["type"] == "response.function_call_arguments.delta")
        .count();
    assert!(pieces > 5, "arguments in {pieces} pieces");
    assert_eq!(
        streamed["usage"]["input_tokens_details"]["cached_tokens"],
        streamed["usage"]["input_tokens"],
        "the same prompt again comes from the KV cache: {streamed}"
    );

    // The result goes back with the whole input, the call as the server
    // wrote it; the model answers from it.
    let input = json!([
        {"role": "user", "content": weather},
        call,
        {"type": "function_call_output", "call_id": call["call_id"], "output": "22.0"},
    ]);
    let follow_up = json!({"model": "tool-use-mini", "input": input, "tools": tools()});
    let (status, answer) = post(&url, &follow_up).await;
    assert_eq!(status, 200, "{answer}");
    assert_eq!(answer["status"], "completed");
    assert!(calls(&answer).is_empty(), "{answer}");
    let text = output_text(&answer);
    assert!(text.contains("22"), "{answer}");
    // Streamed, the same text.
    let streamed = accumulate(&post_stream(&url, &follow_up).await);
    assert_eq!(output_text(&streamed), text);

    // The same by previous_response_id: only the output is sent, and the
    // tools come from the response continued.
    let continued = json!({"model": "tool-use-mini", "previous_response_id": whole["id"],
        "input": [{"type": "function_call_output", "call_id": call["call_id"], "output": "22.0"}]});
    let (status, answer) = post(&url, &continued).await;
    assert_eq!(status, 200, "{answer}");
    assert_eq!(answer["previous_response_id"], whole["id"]);
    assert_eq!(output_text(&answer), text, "{answer}");
    // A streamed response can be continued too.
    let continued_streamed = json!({"model": "tool-use-mini",
        "previous_response_id": streamed["id"], "input": "Thanks!", "max_output_tokens": 4});
    let (status, answer) = post(&url, &continued_streamed).await;
    assert_eq!(status, 200, "{answer}");
}

#[tokio::test(flavor = "multi_thread")]
async fn tool_choice_parallel_calls_formats_and_limits() {
    let url = start(bundled()).await;

    let mut named = ask("What's the temperature in Paris in celsius?");
    named["tool_choice"] = json!({"type": "function", "name": "get_current_wind_speed"});
    let (status, answer) = post(&url, &named).await;
    assert_eq!(status, 200, "{answer}");
    let names: Vec<Value> = calls(&answer).iter().map(|c| c["name"].clone()).collect();
    assert_eq!(names, [json!("get_current_wind_speed")], "{answer}");
    assert_eq!(answer["tool_choice"], named["tool_choice"]);

    let mut parallel = ask("What's the temperature in Paris and in Tokyo, in celsius?");
    parallel["tool_choice"] = json!("required");
    let (_, both) = post(&url, &parallel).await;
    assert_eq!(calls(&both).len(), 2, "{both}");
    parallel["parallel_tool_calls"] = json!(false);
    let (_, one) = post(&url, &parallel).await;
    assert_eq!(calls(&one).len(), 1, "{one}");
    assert_eq!(one["parallel_tool_calls"], false);
    assert_eq!(calls(&one)[0]["arguments"], calls(&both)[0]["arguments"]);

    let schema = json!({"type": "object", "properties": {"city": {"type": "string", "maxLength": 24}},
        "required": ["city"], "additionalProperties": false});
    let structured = json!({"model": "tool-use-mini", "input": "Name a city as JSON.",
        "text": {"format": {"type": "json_schema", "name": "city", "schema": schema, "strict": true}},
        "max_output_tokens": 128});
    let (status, answer) = post(&url, &structured).await;
    assert_eq!(status, 200, "{answer}");
    let city: Value = serde_json::from_str(&output_text(&answer)).unwrap();
    assert!(city["city"].is_string(), "{answer}");
    assert_eq!(city.as_object().unwrap().len(), 1, "{city}");
    assert_eq!(answer["text"]["format"]["name"], "city");

    // The token limit: incomplete, in both forms.
    let mut cut = ask("Tell me about Paris.");
    cut["tool_choice"] = json!("none");
    cut["max_output_tokens"] = json!(3);
    let (status, answer) = post(&url, &cut).await;
    assert_eq!(status, 200, "{answer}");
    assert_eq!(answer["status"], "incomplete", "{answer}");
    assert_eq!(answer["incomplete_details"]["reason"], "max_output_tokens");
    assert_eq!(answer["usage"]["output_tokens"], 3);
    let events = post_stream(&url, &cut).await;
    assert_eq!(events.last().unwrap()["type"], "response.incomplete");
    assert_eq!(output_text(&accumulate(&events)), output_text(&answer));

    // `store: false` leaves nothing to continue.
    let mut unstored = cut.clone();
    unstored["store"] = json!(false);
    let (_, answer) = post(&url, &unstored).await;
    assert_eq!(answer["store"], false);
    let (status, error) = post(
        &url,
        &json!({"input": "more", "previous_response_id": answer["id"]}),
    )
    .await;
    assert_eq!(status, 400, "{error}");
}

/// The error object, after checking OpenAI's shape.
fn error_of(body: &Value) -> &Value {
    let error = &body["error"];
    assert!(error["message"].is_string(), "{body}");
    assert!(error["type"].is_string(), "{body}");
    assert!(
        error.get("param").is_some() && error.get("code").is_some(),
        "{body}"
    );
    error
}

#[tokio::test(flavor = "multi_thread")]
async fn bad_requests_get_openai_shaped_errors_naming_the_field() {
    let url = start(bundled().api_key("sk-test")).await;
    let key = Some("sk-test");
    let call = json!({"type": "function_call", "call_id": "abc123def", "name": "get_current_temperature",
        "arguments": "{\"location\": \"Paris, France\", \"unit\": \"celsius\"}"});
    for (body, param, needle) in [
        (
            json!({"model": "tool-use-mini", "tools": tools(), "input": [
                {"role": "user", "content": "Weather?"}, call,
                {"type": "function_call_output", "call_id": "nope", "output": "22"}]}),
            "input[2].call_id",
            "\"nope\"",
        ),
        (
            json!({"input": "Hi", "tools": [{"type": "web_search"}]}),
            "tools[0].type",
            "web_search",
        ),
        (
            json!({"input": "Hi", "previous_response_id": "resp_unknown"}),
            "previous_response_id",
            "last 256",
        ),
        (
            json!({"input": "Hi", "tools": tools(), "tool_choice": {"type": "function", "name": "nope"}}),
            "tool_choice",
            "get_current_temperature",
        ),
        (
            json!({"input": [{"role": "user", "content": [{"type": "input_image", "image_url": "x"}]}]}),
            "input[0].content[0].type",
            "input_image",
        ),
        (
            json!({"input": "Hi", "temperature": "hot"}),
            "temperature",
            "expected a number",
        ),
    ] {
        let (status, answer) = post_with(&url, key, &body).await;
        assert_eq!(status, 400, "{body}: {answer}");
        let error = error_of(&answer);
        assert_eq!(error["type"], "invalid_request_error");
        assert_eq!(error["param"], param, "{answer}");
        assert!(
            error["message"].as_str().unwrap().contains(needle),
            "{answer}"
        );
    }

    let (status, answer) = post_with(&url, key, &json!({"model": "gpt-9", "input": "Hi"})).await;
    assert_eq!(status, 404, "{answer}");
    assert_eq!(error_of(&answer)["code"], "model_not_found");

    for wrong in [None, Some("sk-wrong")] {
        let (status, answer) = post_with(&url, wrong, &json!({"input": "Hi"})).await;
        assert_eq!(status, 401, "{answer}");
        assert_eq!(error_of(&answer)["type"], "authentication_error");
    }

    // Not JSON at all.
    let response = client()
        .post(format!("{url}/responses"))
        .bearer_auth("sk-test")
        .body("{")
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 400);
    let body: Value = serde_json::from_str(&response.text().await.unwrap()).unwrap();
    assert!(error_of(&body)["message"]
        .as_str()
        .unwrap()
        .contains("not valid JSON"));
}
