//! One attempt of a call, as the client reports it: when it ran and what came back.

use std::time::{Duration, SystemTime};

/// One HTTP attempt of a call.
#[derive(Debug, Clone)]
pub struct Attempt {
    pub started_at: SystemTime,
    pub finished_at: SystemTime,
    pub result: AttemptResult,
}

/// What one attempt got.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AttemptResult {
    /// An HTTP answer: its status, the `error.code` of its body, its `Retry-After`, and its
    /// `Kaadxpay-Should-Retry` (API.md §14), which every error answer of the service carries.
    Answered {
        status: u16,
        code: Option<String>,
        retry_after: Option<Duration>,
        should_retry: Option<bool>,
    },
    /// No answer within the attempt timeout.
    Timeout,
    /// The connection could not be made, or broke before the whole answer came.
    Connection(String),
}

impl AttemptResult {
    pub(crate) fn from_error(err: &reqwest::Error) -> Self {
        if err.is_timeout() {
            Self::Timeout
        } else {
            // The innermost cause says what happened ("connection reset by peer", …).
            let mut cause: &dyn std::error::Error = err;
            while let Some(source) = cause.source() {
                cause = source;
            }
            Self::Connection(cause.to_string())
        }
    }

    /// Whether the call must be tried again: no answer, or an answer whose
    /// `Kaadxpay-Should-Retry` says so. An answer without the header (one a proxy made) is
    /// retried when it is `408`, `409 idempotency_request_in_progress` or `5xx` (§14).
    pub fn is_retryable(&self) -> bool {
        match self {
            Self::Timeout | Self::Connection(_) => true,
            Self::Answered {
                status,
                code,
                should_retry,
                ..
            } => should_retry.unwrap_or_else(|| {
                *status == 408
                    || *status >= 500
                    || (*status == 409
                        && code.as_deref() == Some("idempotency_request_in_progress"))
            }),
        }
    }

    /// The answer's `Retry-After`, if it had one.
    pub fn retry_after(&self) -> Option<Duration> {
        match self {
            Self::Answered { retry_after, .. } => *retry_after,
            _ => None,
        }
    }
}
