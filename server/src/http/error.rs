//! The API's errors: one enum for every answer that is not a success, mapped to the contract's
//! `{"error": {"code", "message", "param"?}}` body and status. Internal causes are logged with
//! their chain and never sent to clients.

use axum::http::{header, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use serde_json::json;

#[derive(Debug, thiserror::Error)]
pub enum ApiError {
    #[error(
        "Provide a valid API key in the Authorization header: `Authorization: Bearer sk_test_...`."
    )]
    Unauthorized,
    #[error("{message}")]
    InvalidRequest {
        message: String,
        param: Option<String>,
    },
    #[error("This endpoint requires an Idempotency-Key header: a unique string of 1 to 255 visible ASCII characters per intended operation.")]
    IdempotencyKeyMissing,
    #[error("{0}")]
    IdempotencyKeyInvalid(String),
    #[error(
        "A request with this Idempotency-Key is still being processed; retry after it completes."
    )]
    IdempotencyRequestInProgress,
    #[error("Idempotency-Key reused with different request body")]
    IdempotencyKeyReusedBody,
    #[error("Idempotency-Key reused with different endpoint")]
    IdempotencyKeyReusedEndpoint,
    #[error("Unrecognized request URL {0}; see /openapi.json for the routes.")]
    UnknownRoute(String),
    #[error("No such {0}.")]
    ResourceMissing(&'static str),
    #[error("{0}")]
    InvalidStateTransition(String),
    #[error("The available {0} balance is lower than the payout amount.")]
    InsufficientFunds(String),
    #[error("The service is busy or cannot reach its database right now; retry after the Retry-After delay (with the same Idempotency-Key).")]
    ServiceUnavailable,
    #[error(
        "The request body is larger than the limit of {} bytes.",
        super::body::MAX_BODY_BYTES
    )]
    RequestTooLarge,
    #[error(
        "Something went wrong on our side; it is safe to retry with the same Idempotency-Key."
    )]
    Internal(#[source] anyhow::Error),
}

impl ApiError {
    pub fn invalid(param: &str, message: impl Into<String>) -> Self {
        Self::InvalidRequest {
            message: message.into(),
            param: Some(param.to_owned()),
        }
    }

    pub fn invalid_body(message: impl Into<String>) -> Self {
        Self::InvalidRequest {
            message: message.into(),
            param: None,
        }
    }

    pub fn status(&self) -> StatusCode {
        match self {
            Self::Unauthorized => StatusCode::UNAUTHORIZED,
            Self::InvalidRequest { .. }
            | Self::IdempotencyKeyMissing
            | Self::IdempotencyKeyInvalid(_) => StatusCode::BAD_REQUEST,
            Self::IdempotencyRequestInProgress | Self::InvalidStateTransition(_) => {
                StatusCode::CONFLICT
            }
            Self::IdempotencyKeyReusedBody | Self::IdempotencyKeyReusedEndpoint => {
                StatusCode::UNPROCESSABLE_ENTITY
            }
            Self::ResourceMissing(_) | Self::UnknownRoute(_) => StatusCode::NOT_FOUND,
            Self::InsufficientFunds(_) => StatusCode::PAYMENT_REQUIRED,
            Self::RequestTooLarge => StatusCode::PAYLOAD_TOO_LARGE,
            Self::ServiceUnavailable => StatusCode::SERVICE_UNAVAILABLE,
            Self::Internal(_) => StatusCode::INTERNAL_SERVER_ERROR,
        }
    }

    pub fn code(&self) -> &'static str {
        match self {
            Self::Unauthorized => "unauthorized",
            Self::InvalidRequest { .. } => "invalid_request",
            Self::IdempotencyKeyMissing => "idempotency_key_missing",
            Self::IdempotencyKeyInvalid(_) => "idempotency_key_invalid",
            Self::IdempotencyRequestInProgress => "idempotency_request_in_progress",
            Self::IdempotencyKeyReusedBody | Self::IdempotencyKeyReusedEndpoint => {
                "idempotency_key_reused"
            }
            Self::ResourceMissing(_) | Self::UnknownRoute(_) => "resource_missing",
            Self::InvalidStateTransition(_) => "invalid_state_transition",
            Self::InsufficientFunds(_) => "insufficient_funds",
            Self::RequestTooLarge => "request_too_large",
            Self::ServiceUnavailable => "service_unavailable",
            Self::Internal(_) => "internal_error",
        }
    }

    /// A definitive answer is part of the request's outcome: the idempotency engine stores it
    /// and replays it. Anything else (a fault on our side) leaves the key free to retry.
    pub fn is_definitive(&self) -> bool {
        !matches!(
            self,
            Self::Internal(_) | Self::IdempotencyRequestInProgress | Self::ServiceUnavailable
        )
    }

    /// The exact bytes of the error body, so that a stored error replays byte for byte.
    pub fn body_bytes(&self) -> Vec<u8> {
        let mut error = json!({"code": self.code(), "message": self.to_string()});
        if let Self::InvalidRequest {
            param: Some(param), ..
        } = self
        {
            error["param"] = json!(param);
        }
        serde_json::to_vec(&json!({ "error": error })).expect("a JSON value serialises")
    }
}

impl From<sqlx::Error> for ApiError {
    /// No connection within the acquire timeout, or a connection that broke, is an outage the
    /// client should wait out (`503`); anything else is a fault of ours (`500`).
    fn from(err: sqlx::Error) -> Self {
        match err {
            sqlx::Error::PoolTimedOut | sqlx::Error::PoolClosed | sqlx::Error::Io(_) => {
                tracing::warn!(error = %err, "the database is out of reach");
                Self::ServiceUnavailable
            }
            other => Self::Internal(other.into()),
        }
    }
}

impl From<anyhow::Error> for ApiError {
    fn from(err: anyhow::Error) -> Self {
        Self::Internal(err)
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        if let Self::Internal(cause) = &self {
            tracing::error!(error = ?cause, "internal error");
        }
        let mut response = (
            self.status(),
            [(header::CONTENT_TYPE, "application/json")],
            self.body_bytes(),
        )
            .into_response();
        let retry_after = match self {
            Self::IdempotencyRequestInProgress => Some("2"),
            Self::ServiceUnavailable => Some("1"),
            _ => None,
        };
        if let Some(seconds) = retry_after {
            response
                .headers_mut()
                .insert(header::RETRY_AFTER, HeaderValue::from_static(seconds));
        }
        response
    }
}

pub type ApiResult<T> = Result<T, ApiError>;

/// The answer to a request whose handler panicked: a bug, so `500 internal_error`, with the
/// panic's message logged (in the request's span, with its id) and never sent. A key the
/// request had claimed is marked `failed` as its guard unwinds, so a retry executes it.
pub fn panic_response(panic: Box<dyn std::any::Any + Send + 'static>) -> Response {
    let message = panic
        .downcast_ref::<String>()
        .map(String::as_str)
        .or_else(|| panic.downcast_ref::<&str>().copied())
        .unwrap_or("a panic without a message");
    ApiError::Internal(anyhow::anyhow!("a handler panicked: {message}")).into_response()
}
