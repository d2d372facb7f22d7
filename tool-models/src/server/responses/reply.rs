//! The Responses API's answer: the parser's events become output items and
//! the stream's events, and the whole response is those same items, so
//! that streamed and non-streamed answers agree by construction.

use crate::chat::Usage;
use crate::parse::StreamEvent;
use crate::server::error::ApiError;
use crate::server::ids::{call_id, random_id, unix_time};
use crate::server::request::Finish;
use crate::wire::responses::{
    Content, ContentPart, CreateResponse, FunctionCall, IncompleteDetails, InputTokensDetails,
    Item, ItemStatus, MessageItem, OutputTokensDetails, ReasoningItem, Response, ResponseEvent,
    ResponseStatus, ResponseUsage, Role, Sequenced, TextConfig, ToolChoiceMode, ToolChoiceParam,
};

/// The item being written: text, reasoning, or a call.
#[derive(Debug)]
enum Open {
    Text {
        id: String,
        text: String,
    },
    Reasoning {
        id: String,
        text: String,
    },
    Call {
        /// The parser's index, to match its later events.
        parser_index: usize,
        id: String,
        call_id: String,
        name: String,
        arguments: String,
    },
}

/// Turns parser events into the stream's events, numbered, and keeps the
/// output they add up to.
#[derive(Debug)]
pub(crate) struct Assembler {
    /// The response as it began: id, model and the request's echoed fields.
    base: Response,
    output: Vec<Item>,
    open: Option<Open>,
    next_sequence: u64,
    /// The whole response, once closed.
    done: Option<Response>,
}

impl Assembler {
    /// An answer to `request`, from `model`.
    pub fn new(model: &str, request: &CreateResponse) -> Assembler {
        let base = Response {
            id: random_id("resp_", 24),
            object: "response".into(),
            created_at: unix_time(),
            status: Some(ResponseStatus::InProgress),
            error: None,
            incomplete_details: None,
            instructions: request.instructions.clone(),
            max_output_tokens: request.max_output_tokens,
            model: model.to_owned(),
            output: Vec::new(),
            parallel_tool_calls: request.parallel_tool_calls.unwrap_or(true),
            previous_response_id: request.previous_response_id.clone(),
            reasoning: request.reasoning.clone(),
            store: request.store != Some(false),
            temperature: request.temperature,
            text: request.text.clone().unwrap_or_else(|| TextConfig {
                format: Some(crate::wire::responses::TextFormat::Text),
                verbosity: None,
            }),
            tool_choice: request
                .tool_choice
                .clone()
                .unwrap_or(ToolChoiceParam::Mode(ToolChoiceMode::Auto)),
            tools: request.tools.clone(),
            top_p: request.top_p,
            truncation: Some("disabled".into()),
            usage: None,
            user: request.user.clone(),
            metadata: request.metadata.clone().unwrap_or_default(),
        };
        Assembler {
            base,
            output: Vec::new(),
            open: None,
            next_sequence: 0,
            done: None,
        }
    }

    fn sequenced(&mut self, event: ResponseEvent) -> Sequenced {
        let sequence_number = self.next_sequence;
        self.next_sequence += 1;
        Sequenced {
            sequence_number,
            event,
        }
    }

    fn number(&mut self, events: Vec<ResponseEvent>) -> Vec<Sequenced> {
        events.into_iter().map(|e| self.sequenced(e)).collect()
    }

    /// `response.created` and `response.in_progress`.
    pub fn opening(&mut self) -> Vec<Sequenced> {
        let response = self.base.clone();
        self.number(vec![
            ResponseEvent::Created {
                response: response.clone(),
            },
            ResponseEvent::InProgress { response },
        ])
    }

    /// The events one parser event makes (none when it adds nothing).
    pub fn event(&mut self, event: StreamEvent) -> Vec<Sequenced> {
        let mut out = Vec::new();
        match event {
            StreamEvent::Content(text) => self.text(text, &mut out),
            // Nothing the model wrote is lost: an unreadable call reaches
            // the client as the text it was.
            StreamEvent::InvalidToolCall(invalid) => {
                self.text(invalid.raw_arguments.unwrap_or_default(), &mut out)
            }
            StreamEvent::Reasoning(text) => self.reasoning(text, &mut out),
            StreamEvent::ToolCallStart { index, name, .. } => {
                self.start_call(index, name, &mut out)
            }
            StreamEvent::ToolCallArguments { index, delta } => {
                self.arguments(index, delta, &mut out)
            }
            StreamEvent::ToolCallEnd { index, call } => {
                if !matches!(&self.open, Some(Open::Call { parser_index, .. }) if *parser_index == index)
                {
                    self.start_call(index, call.name.clone(), &mut out);
                }
                // A parser that gave no pieces still gives the whole call.
                if matches!(&self.open, Some(Open::Call { arguments, .. }) if arguments.is_empty())
                {
                    let whole = match &call.arguments {
                        serde_json::Value::Object(o) if o.is_empty() => String::new(),
                        _ => call.arguments_text(),
                    };
                    self.arguments(index, whole, &mut out);
                }
                self.close(ItemStatus::Completed, &mut out);
            }
        }
        self.number(out)
    }

    fn text(&mut self, text: String, out: &mut Vec<ResponseEvent>) {
        if text.is_empty() {
            return;
        }
        if !matches!(self.open, Some(Open::Text { .. })) {
            self.close(ItemStatus::Completed, out);
            let id = random_id("msg_", 24);
            out.push(self.added(Item::Message(message(&id, String::new(), true))));
            out.push(ResponseEvent::ContentPartAdded {
                item_id: id.clone(),
                output_index: self.output.len(),
                content_index: 0,
                part: output_text(String::new()),
            });
            self.open = Some(Open::Text {
                id,
                text: String::new(),
            });
        }
        let output_index = self.output.len();
        if let Some(Open::Text { id, text: all }) = &mut self.open {
            all.push_str(&text);
            out.push(ResponseEvent::OutputTextDelta {
                item_id: id.clone(),
                output_index,
                content_index: 0,
                delta: text,
                logprobs: Vec::new(),
            });
        }
    }

    fn reasoning(&mut self, text: String, out: &mut Vec<ResponseEvent>) {
        if text.is_empty() {
            return;
        }
        if !matches!(self.open, Some(Open::Reasoning { .. })) {
            self.close(ItemStatus::Completed, out);
            let id = random_id("rs_", 24);
            out.push(self.added(Item::Reasoning(reasoning(&id, String::new(), true))));
            out.push(ResponseEvent::ContentPartAdded {
                item_id: id.clone(),
                output_index: self.output.len(),
                content_index: 0,
                part: ContentPart::ReasoningText {
                    text: String::new(),
                },
            });
            self.open = Some(Open::Reasoning {
                id,
                text: String::new(),
            });
        }
        let output_index = self.output.len();
        if let Some(Open::Reasoning { id, text: all }) = &mut self.open {
            all.push_str(&text);
            out.push(ResponseEvent::ReasoningTextDelta {
                item_id: id.clone(),
                output_index,
                content_index: 0,
                delta: text,
            });
        }
    }

    fn start_call(&mut self, parser_index: usize, name: String, out: &mut Vec<ResponseEvent>) {
        self.close(ItemStatus::Completed, out);
        let open = Open::Call {
            parser_index,
            id: random_id("fc_", 24),
            // Templates keep this id; Mistral's take only nine letters or
            // digits.
            call_id: call_id(),
            name,
            arguments: String::new(),
        };
        out.push(self.added(item(&open, ItemStatus::InProgress)));
        self.open = Some(open);
    }

    fn arguments(&mut self, index: usize, delta: String, out: &mut Vec<ResponseEvent>) {
        if delta.is_empty() {
            return;
        }
        let output_index = self.output.len();
        if let Some(Open::Call {
            parser_index,
            id,
            arguments,
            ..
        }) = &mut self.open
        {
            if *parser_index == index {
                arguments.push_str(&delta);
                out.push(ResponseEvent::FunctionCallArgumentsDelta {
                    item_id: id.clone(),
                    output_index,
                    delta,
                });
            }
        }
    }

    fn added(&self, item: Item) -> ResponseEvent {
        ResponseEvent::OutputItemAdded {
            output_index: self.output.len(),
            item,
        }
    }

    /// Ends the item being written, if any: its `done` events, and it joins
    /// the output.
    fn close(&mut self, status: ItemStatus, out: &mut Vec<ResponseEvent>) {
        let Some(open) = self.open.take() else {
            return;
        };
        let output_index = self.output.len();
        match &open {
            Open::Text { id, text } => {
                out.push(ResponseEvent::OutputTextDone {
                    item_id: id.clone(),
                    output_index,
                    content_index: 0,
                    text: text.clone(),
                    logprobs: Vec::new(),
                });
                out.push(ResponseEvent::ContentPartDone {
                    item_id: id.clone(),
                    output_index,
                    content_index: 0,
                    part: output_text(text.clone()),
                });
            }
            Open::Reasoning { id, text } => {
                out.push(ResponseEvent::ReasoningTextDone {
                    item_id: id.clone(),
                    output_index,
                    content_index: 0,
                    text: text.clone(),
                });
                out.push(ResponseEvent::ContentPartDone {
                    item_id: id.clone(),
                    output_index,
                    content_index: 0,
                    part: ContentPart::ReasoningText { text: text.clone() },
                });
            }
            Open::Call { id, arguments, .. } => {
                out.push(ResponseEvent::FunctionCallArgumentsDone {
                    item_id: id.clone(),
                    output_index,
                    arguments: arguments.clone(),
                });
            }
        }
        let done = item(&open, status);
        out.push(ResponseEvent::OutputItemDone {
            output_index,
            item: done.clone(),
        });
        self.output.push(done);
    }

    /// The end: the open item closes, and the whole response goes out as
    /// `response.completed`, or `response.incomplete` when the token limit
    /// cut it short.
    pub fn closing(&mut self, finish: Finish, usage: Usage) -> Vec<Sequenced> {
        let cut = finish == Finish::Length;
        let mut out = Vec::new();
        self.close(
            if cut {
                ItemStatus::Incomplete
            } else {
                ItemStatus::Completed
            },
            &mut out,
        );
        let response = Response {
            status: Some(if cut {
                ResponseStatus::Incomplete
            } else {
                ResponseStatus::Completed
            }),
            incomplete_details: cut.then(|| IncompleteDetails {
                reason: "max_output_tokens".into(),
            }),
            output: self.output.clone(),
            usage: Some(response_usage(usage)),
            ..self.base.clone()
        };
        self.done = Some(response.clone());
        out.push(if cut {
            ResponseEvent::Incomplete { response }
        } else {
            ResponseEvent::Completed { response }
        });
        self.number(out)
    }

    /// The whole response, once [`closing`](Self::closing) has run.
    pub fn response(&self) -> Option<&Response> {
        self.done.as_ref()
    }

    /// Too late for a status code: an `error` event ends the stream.
    pub fn failure(&mut self, error: &ApiError) -> Vec<Sequenced> {
        let event = ResponseEvent::Error {
            code: Some(error.code.unwrap_or(error.kind).to_owned()),
            message: error.message.clone(),
            param: error.param.clone(),
        };
        vec![self.sequenced(event)]
    }
}

fn output_text(text: String) -> ContentPart {
    ContentPart::OutputText {
        text,
        annotations: Vec::new(),
    }
}

/// A message item; `begun` is the `output_item.added` form (no part yet).
fn message(id: &str, text: String, begun: bool) -> MessageItem {
    MessageItem {
        id: Some(id.to_owned()),
        role: Role::Assistant,
        content: Content::Parts(if begun {
            Vec::new()
        } else {
            vec![output_text(text)]
        }),
        status: Some(ItemStatus::InProgress),
    }
}

fn reasoning(id: &str, text: String, begun: bool) -> ReasoningItem {
    ReasoningItem {
        id: Some(id.to_owned()),
        summary: Vec::new(),
        content: Some(if begun {
            Vec::new()
        } else {
            vec![ContentPart::ReasoningText { text }]
        }),
        encrypted_content: None,
        status: Some(ItemStatus::InProgress),
    }
}

/// The open item as an output item, with `status`.
fn item(open: &Open, status: ItemStatus) -> Item {
    match open {
        Open::Text { id, text } => Item::Message(MessageItem {
            status: Some(status),
            ..message(id, text.clone(), false)
        }),
        Open::Reasoning { id, text } => Item::Reasoning(ReasoningItem {
            status: Some(status),
            ..reasoning(id, text.clone(), false)
        }),
        Open::Call {
            id,
            call_id,
            name,
            arguments,
            ..
        } => Item::FunctionCall(FunctionCall {
            id: Some(id.clone()),
            call_id: call_id.clone(),
            name: name.clone(),
            arguments: arguments.clone(),
            status: Some(status),
        }),
    }
}

/// `usage` as the Responses API counts it.
fn response_usage(usage: Usage) -> ResponseUsage {
    let count = |n: usize| n as u64;
    ResponseUsage {
        input_tokens: count(usage.prompt_tokens),
        input_tokens_details: InputTokensDetails {
            cached_tokens: count(usage.cached_tokens.unwrap_or(0)),
            cache_write_tokens: 0,
        },
        output_tokens: count(usage.completion_tokens),
        output_tokens_details: OutputTokensDetails::default(),
        total_tokens: count(usage.prompt_tokens + usage.completion_tokens),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::server::test_events::{call_end, call_piece, call_start};
    use serde_json::json;
    use tool_runtime::{InvalidToolCall, ToolCall};

    fn kinds(events: &[Sequenced]) -> Vec<&'static str> {
        events.iter().map(|e| e.event.kind()).collect()
    }

    fn run(events: Vec<StreamEvent>, finish: Finish) -> (Vec<Sequenced>, Response) {
        let mut a = Assembler::new("m", &CreateResponse::default());
        let mut all = a.opening();
        for e in events {
            all.extend(a.event(e));
        }
        all.extend(a.closing(
            finish,
            Usage {
                prompt_tokens: 10,
                completion_tokens: 4,
                cached_tokens: Some(6),
            },
        ));
        (all, a.response().unwrap().clone())
    }

    fn call_events(index: usize, name: &str, pieces: &[&str]) -> Vec<StreamEvent> {
        let mut events = vec![call_start(index, name)];
        events.extend(pieces.iter().map(|p| call_piece(index, p)));
        let whole: String = pieces.concat();
        events.push(call_end(index, name, serde_json::from_str(&whole).unwrap()));
        events
    }

    #[test]
    fn events_come_in_the_apis_order_numbered_from_zero() {
        let mut events = vec![
            StreamEvent::Reasoning("Think.".into()),
            StreamEvent::Content("Let me ".into()),
            StreamEvent::Content("check.".into()),
        ];
        events.extend(call_events(0, "f", &["{\"a\":", "1}"]));
        events.extend(call_events(1, "g", &["{}"]));
        let (all, response) = run(events, Finish::ToolCalls);
        assert_eq!(
            kinds(&all),
            [
                "response.created",
                "response.in_progress",
                "response.output_item.added",
                "response.content_part.added",
                "response.reasoning_text.delta",
                "response.reasoning_text.done",
                "response.content_part.done",
                "response.output_item.done",
                "response.output_item.added",
                "response.content_part.added",
                "response.output_text.delta",
                "response.output_text.delta",
                "response.output_text.done",
                "response.content_part.done",
                "response.output_item.done",
                "response.output_item.added",
                "response.function_call_arguments.delta",
                "response.function_call_arguments.delta",
                "response.function_call_arguments.done",
                "response.output_item.done",
                "response.output_item.added",
                "response.function_call_arguments.delta",
                "response.function_call_arguments.done",
                "response.output_item.done",
                "response.completed",
            ]
        );
        let numbers: Vec<u64> = all.iter().map(|e| e.sequence_number).collect();
        assert_eq!(numbers, (0..all.len() as u64).collect::<Vec<_>>());
        assert_eq!(response.status, Some(ResponseStatus::Completed));
        assert_eq!(response.output.len(), 4);
        assert_eq!(response.output_text(), "Let me check.");
        let Item::FunctionCall(call) = &response.output[2] else {
            panic!("{response:?}")
        };
        assert_eq!(call.arguments, "{\"a\":1}");
        assert_eq!(call.call_id.len(), 9);
        assert_eq!(call.status, Some(ItemStatus::Completed));
        let usage = response.usage.unwrap();
        assert_eq!(
            (usage.input_tokens, usage.output_tokens, usage.total_tokens),
            (10, 4, 14)
        );
        assert_eq!(usage.input_tokens_details.cached_tokens, 6);
        // The streamed `done` items are the response's items, and the first
        // events carry the same response id.
        let done: Vec<&Item> = all
            .iter()
            .filter_map(|e| match &e.event {
                ResponseEvent::OutputItemDone { item, .. } => Some(item),
                _ => None,
            })
            .collect();
        assert_eq!(done, response.output.iter().collect::<Vec<_>>());
        let ResponseEvent::Created { response: first } = &all[0].event else {
            panic!()
        };
        assert_eq!(first.id, response.id);
        assert_eq!(first.status, Some(ResponseStatus::InProgress));
    }

    #[test]
    fn streamed_pieces_add_up_to_the_arguments_and_indexes_match() {
        let (all, response) = run(
            call_events(0, "f", &["{\"a\"", ":", "\"x\"}"]),
            Finish::ToolCalls,
        );
        let mut joined = String::new();
        for e in &all {
            if let ResponseEvent::FunctionCallArgumentsDelta {
                delta,
                output_index,
                ..
            } = &e.event
            {
                assert_eq!(*output_index, 0);
                joined.push_str(delta);
            }
        }
        let Item::FunctionCall(call) = &response.output[0] else {
            panic!()
        };
        assert_eq!(joined, call.arguments);
        assert_eq!(
            serde_json::from_str::<serde_json::Value>(&joined).unwrap(),
            json!({"a": "x"})
        );
    }

    #[test]
    fn the_token_limit_makes_an_incomplete_response() {
        let (all, response) = run(vec![StreamEvent::Content("Par".into())], Finish::Length);
        assert_eq!(kinds(&all).last(), Some(&"response.incomplete"));
        assert_eq!(response.status, Some(ResponseStatus::Incomplete));
        assert_eq!(
            response.incomplete_details.unwrap().reason,
            "max_output_tokens"
        );
        let Item::Message(m) = &response.output[0] else {
            panic!()
        };
        assert_eq!(m.status, Some(ItemStatus::Incomplete));
    }

    #[test]
    fn whole_calls_and_invalid_ones_are_not_lost() {
        let events = vec![
            StreamEvent::InvalidToolCall(InvalidToolCall {
                id: None,
                name: None,
                raw_arguments: Some("{oops".into()),
                error: "not JSON".into(),
            }),
            // A call with no pieces before its end.
            StreamEvent::ToolCallEnd {
                index: 3,
                call: ToolCall::new("x", "f", json!({"a": 1})),
            },
        ];
        let (_, response) = run(events, Finish::ToolCalls);
        assert_eq!(response.output_text(), "{oops");
        let Item::FunctionCall(call) = &response.output[1] else {
            panic!()
        };
        assert_eq!(
            (call.name.as_str(), call.arguments.as_str()),
            ("f", "{\"a\":1}")
        );
    }

    #[test]
    fn a_failure_is_one_error_event() {
        let mut a = Assembler::new("m", &CreateResponse::default());
        let opening = a.opening();
        let events = a.failure(&ApiError::internal("boom"));
        assert_eq!(events.len(), 1);
        assert_eq!(events[0].sequence_number, opening.len() as u64);
        let json = serde_json::to_value(&events[0]).unwrap();
        assert_eq!(json["type"], "error");
        assert_eq!(json["message"], "boom");
        assert_eq!(json["code"], "server_error");
    }
}
