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
    /// An HTTP answer: its status, the `error.code` of its body, and its `Retry-After`.
    Answered {
        status: u16,
        code: Option<String>,
        retry_after: Option<Duration>,
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

    /// Whether the call must be tried again: no answer, a `5xx`, a `429`, or a `409` saying
    /// that the first attempt with this key is still running.
    pub fn is_retryable(&self) -> bool {
        match self {
            Self::Timeout | Self::Connection(_) => true,
            Self::Answered { status, code, .. } => {
                *status >= 500
                    || *status == 429
                    || (*status == 409
                        && code.as_deref() == Some("idempotency_request_in_progress"))
            }
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
