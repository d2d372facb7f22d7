//! Errors as the OpenAI API shapes them: a status and
//! `{"error": {"message", "type", "param", "code"}}`.

use axum::http::{header, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use serde_json::{json, Value};

use crate::constrain::ConstrainError;
use crate::generate::GenerateError;
use crate::local::LocalChatError;
use crate::template::TemplateError;

/// An error answer: the request was refused or could not be served.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct ApiError {
    pub status: StatusCode,
    pub message: String,
    /// `invalid_request_error`, `authentication_error`, `server_error`…
    pub kind: &'static str,
    /// The request field at fault, when there is one.
    pub param: Option<String>,
    pub code: Option<&'static str>,
    /// Seconds, for 503.
    pub retry_after: Option<u64>,
}

impl ApiError {
    fn new(status: StatusCode, kind: &'static str, message: impl Into<String>) -> ApiError {
        ApiError {
            status,
            message: message.into(),
            kind,
            param: None,
            code: None,
            retry_after: None,
        }
    }

    /// The client's mistake (400).
    pub fn invalid(message: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::BAD_REQUEST, "invalid_request_error", message)
    }

    /// A mistake in one field (400).
    pub fn param(param: impl Into<String>, message: impl Into<String>) -> ApiError {
        ApiError {
            param: Some(param.into()),
            ..ApiError::invalid(message)
        }
    }

    pub fn not_found(message: impl Into<String>, code: &'static str) -> ApiError {
        ApiError {
            code: Some(code),
            ..ApiError::new(StatusCode::NOT_FOUND, "invalid_request_error", message)
        }
    }

    pub fn unauthorized(message: impl Into<String>) -> ApiError {
        ApiError {
            code: Some("invalid_api_key"),
            ..ApiError::new(StatusCode::UNAUTHORIZED, "authentication_error", message)
        }
    }

    pub fn too_large(limit: usize) -> ApiError {
        ApiError::new(
            StatusCode::PAYLOAD_TOO_LARGE,
            "invalid_request_error",
            format!("the request body is larger than the server's limit of {limit} bytes"),
        )
    }

    pub fn busy(queued: usize) -> ApiError {
        ApiError {
            retry_after: Some(1),
            code: Some("server_busy"),
            ..ApiError::new(
                StatusCode::SERVICE_UNAVAILABLE,
                "server_error",
                format!("the model is busy and {queued} requests are already waiting; retry later"),
            )
        }
    }

    /// The server's own failure (500).
    pub fn internal(message: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::INTERNAL_SERVER_ERROR, "server_error", message)
    }

    /// The body of the answer, also sent as an SSE `data:` line when the
    /// stream has already started.
    pub fn body(&self) -> Value {
        json!({"error": {
            "message": self.message,
            "type": self.kind,
            "param": self.param,
            "code": self.code,
        }})
    }

    /// The body as Anthropic's Messages API shapes errors:
    /// `{"type": "error", "error": {"type", "message"}}`, the type named
    /// after the status. The field at fault is in the message.
    pub fn anthropic_body(&self) -> Value {
        let kind = match self.status.as_u16() {
            400 => "invalid_request_error",
            401 => "authentication_error",
            403 => "permission_error",
            404 => "not_found_error",
            413 => "request_too_large",
            429 => "rate_limit_error",
            503 | 529 => "overloaded_error",
            _ => "api_error",
        };
        json!({"type": "error", "error": {"type": kind, "message": self.message}})
    }

    /// The answer in Anthropic's shape (see [`ApiError::anthropic_body`]).
    pub fn into_anthropic_response(self) -> Response {
        let body = self.anthropic_body();
        self.respond(body)
    }

    fn respond(self, body: Value) -> Response {
        let mut response = (self.status, axum::Json(body)).into_response();
        if let Some(secs) = self.retry_after {
            response
                .headers_mut()
                .insert(header::RETRY_AFTER, HeaderValue::from(secs));
        }
        response
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let body = self.body();
        self.respond(body)
    }
}

/// A request field that is not what the API takes: 400, naming it.
impl From<crate::wire::FieldError> for ApiError {
    fn from(e: crate::wire::FieldError) -> ApiError {
        if e.path.is_empty() {
            ApiError::invalid(e.message)
        } else {
            ApiError::param(e.path, e.message)
        }
    }
}

/// Which failures of a turn are the request's fault (400) and which the
/// server's (500).
impl From<LocalChatError> for ApiError {
    fn from(e: LocalChatError) -> ApiError {
        let message = e.to_string();
        match e {
            LocalChatError::Constrain(c) => match c {
                ConstrainError::Schema { .. } => ApiError::param("tools", message),
                ConstrainError::Choice(_) => ApiError::param("tool_choice", message),
                ConstrainError::Grammar(_) => ApiError::param("tools", message),
                _ => ApiError::internal(message),
            },
            LocalChatError::Template(t) => match t {
                TemplateError::Raised(_)
                | TemplateError::Render { .. }
                | TemplateError::Input(_)
                | TemplateError::LimitExceeded(_) => ApiError::param("messages", message),
                _ => ApiError::internal(message),
            },
            LocalChatError::Generate(g) => match g {
                GenerateError::ContextOverflow { .. } => ApiError {
                    code: Some("context_length_exceeded"),
                    ..ApiError::param("messages", message)
                },
                GenerateError::EmptyPrompt | GenerateError::InvalidOptions(_) => {
                    ApiError::invalid(message)
                }
                _ => ApiError::internal(message),
            },
            LocalChatError::NoTemplate(_)
            | LocalChatError::UnknownFormat(_)
            | LocalChatError::Model(_) => ApiError::internal(message),
        }
    }
}
