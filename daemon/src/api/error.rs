//! The API's one error type: a status, a stable code and a message for a person, rendered as
//! `{"error":{"code","message"}}`. Detail meant for the log (`internal`) stays in the log
//! (dropshot's `HttpError { external_message, internal_message }`).

use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::Json;

use crate::browser::SessionError;
use crate::channel_id::InvalidChannelId;
use crate::channels::ChannelError;
use crate::providers::ProviderErrorKind;

/// The body of every error answer (documented in the OpenAPI document).
#[derive(Debug, serde::Serialize, utoipa::ToSchema)]
pub struct ErrorBody {
    pub error: ErrorDetail,
}

/// `{"code","message"}` of an error answer.
#[derive(Debug, serde::Serialize, utoipa::ToSchema)]
pub struct ErrorDetail {
    /// Stable, snake_case.
    pub code: String,
    /// For a person: what happened and what to do.
    pub message: String,
}

/// An error answer.
#[derive(Debug)]
pub struct ApiError {
    pub status: StatusCode,
    pub code: &'static str,
    /// For the person reading the answer.
    pub message: String,
    /// For the log only (engine and database text).
    pub internal: Option<String>,
}

impl ApiError {
    pub fn new(status: StatusCode, code: &'static str, message: impl Into<String>) -> Self {
        Self {
            status,
            code,
            message: message.into(),
            internal: None,
        }
    }

    /// A 503 whose cause (`internal`) goes to the log, not to the caller.
    pub fn internal(code: &'static str, message: impl Into<String>, internal: String) -> Self {
        Self {
            status: StatusCode::SERVICE_UNAVAILABLE,
            code,
            message: message.into(),
            internal: Some(internal),
        }
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        if self.status.is_server_error() || self.internal.is_some() {
            tracing::warn!(event = "api_error", code = self.code, message = %self.message, internal = self.internal.as_deref().unwrap_or(""));
        }
        let body = ErrorBody {
            error: ErrorDetail {
                code: self.code.to_string(),
                message: self.message,
            },
        };
        (self.status, Json(body)).into_response()
    }
}

impl From<InvalidChannelId> for ApiError {
    fn from(error: InvalidChannelId) -> Self {
        ApiError::new(StatusCode::BAD_REQUEST, "bad_channel_id", error.to_string())
    }
}

impl From<ChannelError> for ApiError {
    fn from(error: ChannelError) -> Self {
        let (status, code) = match &error {
            ChannelError::ModeUnavailable { .. } => (StatusCode::CONFLICT, "mode_unavailable"),
            ChannelError::HostProfile(_) => (StatusCode::CONFLICT, "host_mode"),
            ChannelError::UnknownChannel(_) => (StatusCode::NOT_FOUND, "unknown_channel"),
            ChannelError::CaseClash { .. } => (StatusCode::CONFLICT, "channel_id_case_clash"),
            ChannelError::State(_) => (StatusCode::SERVICE_UNAVAILABLE, "state_unavailable"),
            ChannelError::Provider(provider) => match provider.kind {
                ProviderErrorKind::Unavailable => {
                    (StatusCode::SERVICE_UNAVAILABLE, "browser_unavailable")
                }
                ProviderErrorKind::Refused => (StatusCode::CONFLICT, "refused"),
                // The client's environment (no Chrome of theirs answers), not a server fault.
                ProviderErrorKind::HostBrowserNotFound => {
                    (StatusCode::CONFLICT, "host_browser_not_found")
                }
                ProviderErrorKind::Failed => (StatusCode::BAD_GATEWAY, "browser_failed"),
            },
            ChannelError::Session(session) => return session_error(session),
        };
        let internal = match &error {
            ChannelError::Provider(provider) => provider.detail(),
            ChannelError::State(state) => Some(state.to_string()),
            _ => None,
        };
        ApiError {
            internal,
            ..ApiError::new(status, code, error.to_string())
        }
    }
}

fn session_error(error: &SessionError) -> ApiError {
    let status = match error {
        SessionError::BadUrl(_) => StatusCode::BAD_REQUEST,
        SessionError::UnknownTab(_) => StatusCode::NOT_FOUND,
        SessionError::NotYours { .. } => StatusCode::FORBIDDEN,
        SessionError::Navigation { .. } => StatusCode::BAD_GATEWAY,
        _ => StatusCode::BAD_GATEWAY,
    };
    ApiError::new(status, error.code(), error.to_string())
}

impl From<SessionError> for ApiError {
    fn from(error: SessionError) -> Self {
        session_error(&error)
    }
}

impl From<axum::extract::rejection::JsonRejection> for ApiError {
    fn from(rejection: axum::extract::rejection::JsonRejection) -> Self {
        ApiError::new(rejection.status(), "bad_request", rejection.body_text())
    }
}

/// `Json` whose rejections answer in the API's error shape.
#[derive(Debug, axum::extract::FromRequest)]
#[from_request(via(axum::Json), rejection(ApiError))]
pub struct ApiJson<T>(pub T);
