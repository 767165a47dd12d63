//! Errors as HTTP answers: the contract's status, the JSON error body, `Kaadxpay-Should-Retry`
//! and, for the errors worth waiting out, `Retry-After`. Internal causes are logged here, in the request's span, with
//! their chain.

use axum::http::{header, HeaderName, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};

use crate::contract::error::Error;

/// On every error answer: whether the same request may be sent again (API.md §14).
pub const SHOULD_RETRY: HeaderName = HeaderName::from_static("kaadxpay-should-retry");

impl IntoResponse for Error {
    fn into_response(self) -> Response {
        if let Self::Internal(cause) = &self {
            tracing::error!(error = ?cause, "internal error");
        }
        let mut response = (
            status_code(self.status()),
            [(header::CONTENT_TYPE, "application/json")],
            self.body_bytes(),
        )
            .into_response();
        say_whether_to_retry(&mut response, self.should_retry());
        if let Some(seconds) = self.retry_after_seconds() {
            response
                .headers_mut()
                .insert(header::RETRY_AFTER, HeaderValue::from(seconds));
        }
        response
    }
}

/// Sets `Kaadxpay-Should-Retry` on an error answer.
pub fn say_whether_to_retry(response: &mut Response, should_retry: bool) {
    response.headers_mut().insert(
        SHOULD_RETRY,
        HeaderValue::from_static(if should_retry { "true" } else { "false" }),
    );
}

/// A status number as the HTTP type (the numbers come from our own tables, so they are valid).
pub fn status_code(status: u16) -> StatusCode {
    StatusCode::from_u16(status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR)
}

pub type ApiResult<T> = Result<T, Error>;

/// The answer to a request whose handler panicked: a bug, so `500 internal_error`, with the
/// panic's message logged (in the request's span, with its id) and never sent. A key the
/// request had claimed is marked `failed` as its guard unwinds, so a retry executes it.
pub fn panic_response(panic: Box<dyn std::any::Any + Send + 'static>) -> Response {
    let message = panic
        .downcast_ref::<String>()
        .map(String::as_str)
        .or_else(|| panic.downcast_ref::<&str>().copied())
        .unwrap_or("a panic without a message");
    Error::Internal(anyhow::anyhow!("a handler panicked: {message}")).into_response()
}
