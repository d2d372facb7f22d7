//! [`RemoteChat`]: a model served by an OpenAI-compatible engine, as a
//! [`ChatModel`] the agent drives like a local one.

use crate::setters::setters;
use std::time::{Duration, Instant};

use eventsource_stream::Eventsource;
use futures_util::StreamExt;
use reqwest::StatusCode;
use serde_json::Value;

use super::api::Api;
use super::completions::{read_piece, Completions};
use super::error::{snippet, Reading, RemoteError};
use super::options::RequestOptions;
use crate::chat::{
    AsyncChatModel, ChatModel, ModelDelta, Turn, TurnError, TurnFuture, TurnRequest, TurnStats,
    Usage,
};
use crate::parse::{Format, StreamEvent};

/// How long to wait, at most.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Timeouts {
    /// Opening the connection.
    pub connect: Duration,
    /// From sending the request to the response's status line and headers
    /// (a model that queues or prefills long takes this long).
    pub first_byte: Duration,
    /// The whole turn.
    pub total: Duration,
}

impl Default for Timeouts {
    /// 10 s to connect, 120 s to the first byte, 600 s in all.
    fn default() -> Timeouts {
        Timeouts {
            connect: Duration::from_secs(10),
            first_byte: Duration::from_secs(120),
            total: Duration::from_secs(600),
        }
    }
}

/// A model served by vLLM, SGLang, llama.cpp's `llama-server`, Ollama, TGI
/// or any OpenAI-compatible API, through `POST /v1/chat/completions`.
///
/// The engine renders its own chat template and parses the calls, so turns
/// arrive already parsed ([`ModelDelta::Parsed`]): the same
/// [`Agent`](crate::agent::Agent) runs it and [`LocalChat`](crate::local::LocalChat).
///
/// ```no_run
/// use tool_models::agent::Agent;
/// use tool_models::remote::RemoteChat;
/// use tool_runtime::{Message, Toolbox};
///
/// let chat = RemoteChat::openai_compatible("http://127.0.0.1:8080/v1", "qwen2.5-7b-instruct")
///     .api_key_env("OPENAI_API_KEY")?;
/// let mut agent = Agent::new(chat, Toolbox::new());
/// let run = agent.run(vec![Message::user("Hello")])?;
/// println!("{}", run.answer);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct RemoteChat {
    base_url: String,
    model: String,
    /// Never printed: `Debug` shows only whether there is one.
    api_key: Option<String>,
    headers: Vec<(String, String)>,
    options: RequestOptions,
    stream: bool,
    timeouts: Timeouts,
    retries: u32,
    client: Option<reqwest::Client>,
    runtime: Option<tokio::runtime::Runtime>,
    /// Set in the raw-completions mode.
    completions: Option<Completions>,
    api: Api,
}

impl std::fmt::Debug for RemoteChat {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RemoteChat")
            .field("base_url", &self.base_url)
            .field("model", &self.model)
            .field("api_key", &self.api_key.as_ref().map(|_| "<redacted>"))
            .field(
                "headers",
                &self.headers.iter().map(|(n, _)| n).collect::<Vec<_>>(),
            )
            .field("options", &self.options)
            .field("stream", &self.stream)
            .field("timeouts", &self.timeouts)
            .field("retries", &self.retries)
            .field(
                "mode",
                &match &self.completions {
                    Some(c) => format!("completions ({})", c.format.id()),
                    None => self.api.id().to_owned(),
                },
            )
            .finish_non_exhaustive()
    }
}

impl RemoteChat {
    /// The model `model` at `base_url`: the API's root, with or without
    /// `/v1` (`http://127.0.0.1:8080` and `http://127.0.0.1:8080/v1` are the
    /// same). Streams by default; retries a 429 or 503 twice.
    pub fn openai_compatible(base_url: impl Into<String>, model: impl Into<String>) -> RemoteChat {
        RemoteChat {
            base_url: base_url.into().trim_end_matches('/').to_owned(),
            model: model.into(),
            api_key: None,
            headers: Vec::new(),
            options: RequestOptions::default(),
            stream: true,
            timeouts: Timeouts::default(),
            retries: 2,
            client: None,
            runtime: None,
            completions: None,
            api: Api::ChatCompletions,
        }
    }

    /// The model `model` at `base_url` through the raw `/v1/completions`
    /// endpoint: this crate renders `template_source` (the model's chat
    /// template) with the conversation and tools, and reads the calls with
    /// the parser of the format the template implies. For served models
    /// whose engine has no tool parser for their family.
    ///
    /// # Errors
    /// [`RemoteError::Template`] when the template does not compile or
    /// names no known tool-call format.
    pub fn completions(
        base_url: impl Into<String>,
        model: impl Into<String>,
        template_source: &str,
    ) -> Result<RemoteChat, RemoteError> {
        let mut chat = RemoteChat::openai_compatible(base_url, model);
        chat.completions = Some(Completions::new(template_source)?);
        Ok(chat)
    }

    /// In the raw-completions mode, the template's special tokens
    /// (`bos_token`, `eos_token`…, as `tokenizer_config.json` names them).
    pub fn special_tokens(
        mut self,
        tokens: std::collections::BTreeMap<String, String>,
    ) -> RemoteChat {
        if let Some(c) = &mut self.completions {
            c.special_tokens(tokens);
        }
        self
    }

    /// Sends the API key held by the environment variable `var` as a bearer
    /// token. The key is never printed, in `Debug` output or in errors.
    ///
    /// # Errors
    /// [`RemoteError::MissingApiKey`] when `var` is unset or empty.
    pub fn api_key_env(mut self, var: &str) -> Result<RemoteChat, RemoteError> {
        match std::env::var(var) {
            Ok(key) if !key.trim().is_empty() => {
                self.api_key = Some(key.trim().to_owned());
                Ok(self)
            }
            _ => Err(RemoteError::MissingApiKey(var.to_owned())),
        }
    }

    /// Adds a header to every request (an organisation id, a routing key).
    pub fn header(mut self, name: impl Into<String>, value: impl Into<String>) -> RemoteChat {
        self.headers.push((name.into(), value.into()));
        self
    }

    setters! {
        /// Which API carries the turns ([`Api::ChatCompletions`] by
        /// default). With [`Api::Messages`] the key goes in `x-api-key`,
        /// as Anthropic's API wants it, with `anthropic-version`.
        api(api: Api) => api;
        /// Sampling and output options for every request.
        options(options: RequestOptions) => options;
        /// Whether to stream the answer (on by default).
        stream(on: bool) => stream;
        /// How many times a request answered 429 or 503 is sent again (after
        /// the engine's `Retry-After`, or 0.5 s, 1 s, 2 s…). Only a request
        /// whose answer has not started is ever sent again.
        retries(retries: u32) => retries;
    }

    /// The time limits.
    pub fn timeouts(mut self, timeouts: Timeouts) -> RemoteChat {
        self.timeouts = timeouts;
        self.client = None;
        self
    }

    /// Names the model requests ask for (one of [`models`](Self::models)).
    pub fn model(mut self, name: impl Into<String>) -> RemoteChat {
        self.model = name.into();
        self
    }

    /// The model's name, as requests give it.
    pub fn model_name(&self) -> &str {
        &self.model
    }

    /// `base/v1/…`, whether or not the base URL ends in `/v1`.
    fn url(&self, path: &str) -> String {
        if self.base_url.ends_with("/v1") {
            format!("{}/{path}", self.base_url)
        } else {
            format!("{}/v1/{path}", self.base_url)
        }
    }

    fn client(&mut self) -> Result<reqwest::Client, RemoteError> {
        if let Some(client) = &self.client {
            return Ok(client.clone());
        }
        if self.base_url.starts_with("https:") && !cfg!(feature = "remote-tls") {
            return Err(RemoteError::Connect {
                url: self.base_url.clone(),
                reason: "https needs the `remote-tls` feature (tool-models or tool-use)".into(),
            });
        }
        let client = reqwest::Client::builder()
            .connect_timeout(self.timeouts.connect)
            .build()
            .map_err(|e| RemoteError::Connect {
                url: self.base_url.clone(),
                reason: e.to_string(),
            })?;
        self.client = Some(client.clone());
        Ok(client)
    }

    fn post(&self, client: &reqwest::Client, url: &str, body: &Value) -> reqwest::RequestBuilder {
        self.authorize(
            client
                .post(url)
                .header(reqwest::header::CONTENT_TYPE, "application/json")
                .body(body.to_string()),
        )
    }

    /// The API key and the extra headers, which every request carries.
    fn authorize(&self, mut request: reqwest::RequestBuilder) -> reqwest::RequestBuilder {
        if self.api == Api::Messages {
            // Anthropic's API wants its version named, and the key in its
            // own header.
            request = request.header("anthropic-version", "2023-06-01");
            if let Some(key) = &self.api_key {
                request = request.header("x-api-key", key);
            }
        } else if let Some(key) = &self.api_key {
            request = request.bearer_auth(key);
        }
        for (name, value) in &self.headers {
            request = request.header(name, value);
        }
        request
    }

    /// The engine's models (`GET /v1/models`).
    ///
    /// # Errors
    /// As [`respond_async`](Self::respond_async).
    pub async fn models_async(&mut self) -> Result<Vec<String>, RemoteError> {
        let client = self.client()?;
        let url = self.url("models");
        let request = self.authorize(client.get(&url));
        let response = tokio::time::timeout(self.timeouts.first_byte, request.send())
            .await
            .map_err(|_| RemoteError::Timeout {
                what: "the first byte",
                after: self.timeouts.first_byte,
            })?
            .map_err(|e| connect_error(&url, &e))?;
        let status = response.status();
        let body = answer_text(response).await?;
        if !status.is_success() {
            return Err(http_error(status, &body));
        }
        let json = Reading::new("model list", &body).json()?;
        Ok(json
            .get("data")
            .and_then(Value::as_array)
            .map(|models| {
                models
                    .iter()
                    .filter_map(|m| m.get("id").and_then(Value::as_str).map(str::to_owned))
                    .collect()
            })
            .unwrap_or_default())
    }

    /// [`models_async`](Self::models_async), blocking.
    ///
    /// # Errors
    /// As [`respond_async`](Self::respond_async), and
    /// [`RemoteError::InsideRuntime`] when called from async code.
    pub fn models(&mut self) -> Result<Vec<String>, RemoteError> {
        // Taken out so that `self` can be borrowed by the future.
        let runtime = self.take_runtime()?;
        let result = runtime.block_on(self.models_async());
        self.runtime = Some(runtime);
        result
    }

    /// Sends one turn and passes the answer to `out` as it arrives.
    ///
    /// # Errors
    /// Connection failures, HTTP errors (with the engine's own message),
    /// time-outs, error chunks and streams that stop early; a malformed call
    /// is not an error but an invalid call in the output.
    pub async fn respond_async<F>(
        &mut self,
        request: &TurnRequest<'_>,
        out: &mut F,
    ) -> Result<Turn, RemoteError>
    where
        F: FnMut(ModelDelta<'_>) + ?Sized,
    {
        let total = self.timeouts.total;
        let turn = tokio::time::timeout(total, self.turn(request, out));
        // Dropping the request closes its connection: the engine stops.
        let finished = match request.cancel {
            Some(token) => token.run_until_cancelled(turn).await,
            None => Some(turn.await),
        };
        match finished {
            Some(Ok(result)) => result,
            Some(Err(_)) => Err(RemoteError::Timeout {
                what: "the whole turn",
                after: total,
            }),
            None => Err(RemoteError::Cancelled),
        }
    }

    async fn turn<F>(&mut self, request: &TurnRequest<'_>, out: &mut F) -> Result<Turn, RemoteError>
    where
        F: FnMut(ModelDelta<'_>) + ?Sized,
    {
        if self.completions.is_some() {
            return self.completion_turn(request, out).await;
        }
        let (response, started) = self
            .post_turn(self.api.path(), |chat| {
                (chat.api).body(&chat.model, request, &chat.options, chat.stream)
            })
            .await?;
        let mut reader = self.api.reader();
        let mut text = String::new();
        let mut first: Option<Duration> = None;
        let mut emit =
            |events: Vec<StreamEvent>, text: &mut String, first: &mut Option<Duration>| {
                for event in events {
                    first.get_or_insert_with(|| started.elapsed());
                    if let StreamEvent::Content(s) = &event {
                        text.push_str(s);
                    }
                    out(ModelDelta::Parsed(event));
                }
            };
        if self.stream {
            let mut events = response.bytes_stream().eventsource();
            while let Some(event) = events.next().await {
                let event = event.map_err(|e| RemoteError::Interrupted(e.to_string()))?;
                emit(
                    reader.feed(&event.event, &event.data)?,
                    &mut text,
                    &mut first,
                );
                if reader.ended() {
                    break;
                }
            }
        } else {
            let body = answer_text(response).await?;
            emit(reader.feed_response(&body)?, &mut text, &mut first);
        }
        let (rest, completion) = reader.finish()?;
        emit(rest, &mut text, &mut first);
        Ok(finished_turn(text, started, first, completion.usage))
    }

    /// A turn in the raw-completions mode: text deltas, parsed by the agent.
    async fn completion_turn<F>(
        &mut self,
        request: &TurnRequest<'_>,
        out: &mut F,
    ) -> Result<Turn, RemoteError>
    where
        F: FnMut(ModelDelta<'_>) + ?Sized,
    {
        let (response, started) = self
            .post_turn("completions", |chat| match &chat.completions {
                Some(c) => c.body(&chat.model, request, &chat.options, chat.stream),
                None => Err(RemoteError::Template(
                    "not in the raw-completions mode".into(),
                )),
            })
            .await?;
        let mut text = String::new();
        let mut first: Option<Duration> = None;
        let mut usage = None;
        let mut finished = false;
        let mut take = |data: &str, text: &mut String| -> Result<(), RemoteError> {
            let piece = read_piece(data)?;
            if !piece.text.is_empty() {
                first.get_or_insert_with(|| started.elapsed());
                text.push_str(&piece.text);
                out(ModelDelta::Text(&piece.text));
            }
            finished |= piece.finish_reason.is_some();
            if piece.usage.is_some() {
                usage = piece.usage;
            }
            Ok(())
        };
        if self.stream {
            let mut events = response.bytes_stream().eventsource();
            let mut done = false;
            while let Some(event) = events.next().await {
                let event = event.map_err(|e| RemoteError::Interrupted(e.to_string()))?;
                let data = event.data.trim();
                if data == "[DONE]" {
                    done = true;
                    break;
                }
                if !data.is_empty() {
                    take(data, &mut text)?;
                }
            }
            if !done && !finished {
                return Err(RemoteError::Truncated {
                    received: format!("{} bytes of text had arrived", text.len()),
                });
            }
        } else {
            let body = answer_text(response).await?;
            take(&body, &mut text)?;
        }
        Ok(finished_turn(text, started, first, usage))
    }

    /// Posts one turn's body, built once the client is, to `path`: the
    /// answer (as [`send_with_retries`](Self::send_with_retries) gives it)
    /// and when it was sent, which the turn's timings count from.
    async fn post_turn(
        &mut self,
        path: &str,
        body: impl FnOnce(&Self) -> Result<Value, RemoteError>,
    ) -> Result<(reqwest::Response, Instant), RemoteError> {
        let client = self.client()?;
        let url = self.url(path);
        let body = body(self)?;
        let started = Instant::now();
        let response = self.send_with_retries(&client, &url, &body).await?;
        Ok((response, started))
    }

    /// Sends the request; a 429 or 503 is sent again (its body unread, so
    /// no answer has started) while retries are left.
    async fn send_with_retries(
        &self,
        client: &reqwest::Client,
        url: &str,
        body: &Value,
    ) -> Result<reqwest::Response, RemoteError> {
        let mut attempt = 0;
        loop {
            let sent = tokio::time::timeout(
                self.timeouts.first_byte,
                self.post(client, url, body).send(),
            )
            .await
            .map_err(|_| RemoteError::Timeout {
                what: "the first byte",
                after: self.timeouts.first_byte,
            })?;
            let response = sent.map_err(|e| connect_error(url, &e))?;
            let status = response.status();
            if status.is_success() {
                return Ok(response);
            }
            let retry = matches!(
                status,
                StatusCode::TOO_MANY_REQUESTS | StatusCode::SERVICE_UNAVAILABLE
            ) && attempt < self.retries;
            if retry {
                let wait = retry_after(&response)
                    .unwrap_or_else(|| Duration::from_millis(500 << attempt.min(6)));
                attempt += 1;
                drop(response);
                tokio::time::sleep(wait).await;
                continue;
            }
            let text = response.text().await.unwrap_or_default();
            return Err(http_error(status, &text));
        }
    }

    /// The runtime of the blocking calls, started on first use; the caller
    /// puts it back.
    fn take_runtime(&mut self) -> Result<tokio::runtime::Runtime, RemoteError> {
        if tokio::runtime::Handle::try_current().is_ok() {
            return Err(RemoteError::InsideRuntime);
        }
        match self.runtime.take() {
            Some(runtime) => Ok(runtime),
            None => tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .map_err(|e| RemoteError::Interrupted(format!("cannot start a runtime: {e}"))),
        }
    }
}

impl ChatModel for RemoteChat {
    fn model_name(&self) -> Option<String> {
        Some(self.model.clone()).filter(|m| !m.is_empty())
    }

    /// The template's format in the raw-completions mode (the agent parses
    /// the text); otherwise unused, since the engine parses.
    fn format(&self) -> Format {
        self.completions
            .as_ref()
            .map_or(Format::Hermes, |c| c.format)
    }

    /// The rendered prompt in the raw-completions mode.
    fn prompt(&self, request: &TurnRequest<'_>) -> Option<String> {
        self.completions.as_ref()?.render(request).ok()
    }

    fn respond(
        &mut self,
        request: &TurnRequest<'_>,
        out: &mut dyn FnMut(ModelDelta<'_>),
    ) -> Result<Turn, TurnError> {
        // Taken out so that `self` can be borrowed by the future.
        let runtime = self.take_runtime()?;
        let result = runtime.block_on(self.respond_async(request, out));
        self.runtime = Some(runtime);
        Ok(result?)
    }
}

/// The whole body of an answer.
async fn answer_text(response: reqwest::Response) -> Result<String, RemoteError> {
    response
        .text()
        .await
        .map_err(|e| RemoteError::Interrupted(e.to_string()))
}

/// A turn's text and statistics: the engine's token counts, and the time to
/// the first output as prefill.
fn finished_turn(
    text: String,
    started: Instant,
    first: Option<Duration>,
    usage: Option<Usage>,
) -> Turn {
    let elapsed = started.elapsed();
    let first = first.unwrap_or(elapsed);
    Turn {
        text,
        stats: TurnStats {
            prefill: first,
            decode: elapsed.saturating_sub(first),
            time_to_first_token: first,
            ..TurnStats::from(usage.unwrap_or_default())
        },
    }
}

/// `Retry-After` in seconds (dates are not worth honouring here), at most a minute.
fn retry_after(response: &reqwest::Response) -> Option<Duration> {
    let seconds: f64 = response
        .headers()
        .get(reqwest::header::RETRY_AFTER)?
        .to_str()
        .ok()?
        .trim()
        .parse()
        .ok()?;
    (seconds.is_finite() && seconds >= 0.0).then(|| Duration::from_secs_f64(seconds.min(60.0)))
}

fn connect_error(url: &str, e: &reqwest::Error) -> RemoteError {
    // reqwest's message names the URL; the chain says why (refused, DNS…).
    let mut reason = e.to_string();
    let mut source = std::error::Error::source(e);
    while let Some(s) = source {
        reason.push_str(": ");
        reason.push_str(&s.to_string());
        source = s.source();
    }
    RemoteError::Connect {
        url: url.to_owned(),
        reason,
    }
}

/// An HTTP error with the engine's own message when its body has one.
fn http_error(status: StatusCode, body: &str) -> RemoteError {
    let message = serde_json::from_str::<Value>(body)
        .ok()
        .and_then(|v| {
            let error = v.get("error")?;
            Some(match error {
                Value::String(s) => s.clone(),
                other => other
                    .get("message")
                    .and_then(Value::as_str)
                    .map_or_else(|| other.to_string(), str::to_owned),
            })
        })
        .unwrap_or_else(|| snippet(body.trim()));
    RemoteError::Http {
        status: status.as_u16(),
        message,
    }
}

impl AsyncChatModel for RemoteChat {
    fn model_name(&self) -> Option<String> {
        ChatModel::model_name(self)
    }

    /// As [`ChatModel::format`].
    fn format(&self) -> Format {
        ChatModel::format(self)
    }

    fn respond_async<'a>(
        &'a mut self,
        request: &'a TurnRequest<'a>,
        out: &'a mut (dyn FnMut(ModelDelta<'_>) + Send),
    ) -> TurnFuture<'a> {
        Box::pin(async move {
            RemoteChat::respond_async(self, request, out)
                .await
                .map_err(Into::into)
        })
    }
}
