//! The contract's errors: one enum for every outcome that is not a success, each with its
//! `code`, its status and the `{"error": {"code", "message", "param"?}}` body that carries it.
//! The domain and the engine return it; the adapters render it (the HTTP adapter as a response,
//! the console as a page). Internal causes are logged, never sent to clients.

use kaadxpay_idempotency::key::InvalidKey;
use kaadxpay_idempotency::Reuse;
use kaadxpay_idempotency::{Failure, StoredResponse};
use kaadxpay_types::ErrorCode;
use serde::Serialize;
use serde_json::Value;

#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error(
        "Provide a valid API key in the Authorization header: `Authorization: Bearer sk_test_...`."
    )]
    Unauthorized,
    /// The caller may not do this (a read-only API key writing); the sentence says why.
    #[error("{0}")]
    Forbidden(&'static str),
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
    /// A signed request (the partner bank's webhook) whose signature is forged or stale.
    #[error("Refused: {0}.")]
    InvalidSignature(String),
    #[error("Idempotency-Key reused with different request body")]
    IdempotencyKeyReusedBody,
    #[error("Idempotency-Key reused with different endpoint")]
    IdempotencyKeyReusedEndpoint,
    #[error("Unrecognized request URL {0}; see /openapi.json for the routes.")]
    UnknownRoute(String),
    #[error("No such {0}.")]
    ResourceMissing(&'static str),
    #[error("{method} is not allowed on {path}; the `Allow` header lists the methods that are (see /openapi.json).")]
    MethodNotAllowed { method: String, path: String },
    #[error("{0}")]
    InvalidStateTransition(String),
    #[error("The available {0} balance is lower than the payout amount.")]
    InsufficientFunds(String),
    #[error("The available {0} balance is lower than the refund amount.")]
    InsufficientFundsForRefund(String),
    /// A refund of more than is left to refund of its order (or of an order with nothing
    /// left); the sentence says how much is left. Its `param` is `amount`.
    #[error("{0}")]
    AmountExceedsRefundable(String),
    #[error("The service is busy or cannot reach its database right now; retry after the Retry-After delay (with the same Idempotency-Key).")]
    ServiceUnavailable,
    #[error("The request body is larger than the limit of {0} bytes.")]
    RequestTooLarge(usize),
    #[error("The request body arrived too slowly; send the request again, in full (with the same Idempotency-Key).")]
    RequestTimeout,
    #[error(
        "Something went wrong on our side; it is safe to retry with the same Idempotency-Key."
    )]
    Internal(#[source] anyhow::Error),
}

/// Every `(status, code)` an error answer can have, for the OpenAPI document's code enums; the
/// unit tests check that it is exactly what [`Error::status`] and [`Error::code`] give.
pub const CODES: [(u16, ErrorCode); 17] = [
    (400, ErrorCode::InvalidRequest),
    (400, ErrorCode::IdempotencyKeyMissing),
    (400, ErrorCode::IdempotencyKeyInvalid),
    (401, ErrorCode::Unauthorized),
    (401, ErrorCode::InvalidSignature),
    (402, ErrorCode::InsufficientFunds),
    (403, ErrorCode::Forbidden),
    (404, ErrorCode::ResourceMissing),
    (405, ErrorCode::MethodNotAllowed),
    (408, ErrorCode::RequestTimeout),
    (409, ErrorCode::IdempotencyRequestInProgress),
    (409, ErrorCode::InvalidStateTransition),
    (409, ErrorCode::AmountExceedsRefundable),
    (413, ErrorCode::RequestTooLarge),
    (422, ErrorCode::IdempotencyKeyReused),
    (500, ErrorCode::InternalError),
    (503, ErrorCode::ServiceUnavailable),
];

impl Error {
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

    /// The status code the contract gives this error (a number: what it means on the wire is
    /// the adapters' business, and a stored refusal replays it).
    pub fn status(&self) -> u16 {
        match self {
            Self::Unauthorized | Self::InvalidSignature(_) => 401,
            Self::Forbidden(_) => 403,
            Self::InvalidRequest { .. }
            | Self::IdempotencyKeyMissing
            | Self::IdempotencyKeyInvalid(_) => 400,
            Self::IdempotencyRequestInProgress
            | Self::InvalidStateTransition(_)
            | Self::AmountExceedsRefundable(_) => 409,
            Self::IdempotencyKeyReusedBody | Self::IdempotencyKeyReusedEndpoint => 422,
            Self::ResourceMissing(_) | Self::UnknownRoute(_) => 404,
            Self::InsufficientFunds(_) | Self::InsufficientFundsForRefund(_) => 402,
            Self::MethodNotAllowed { .. } => 405,
            Self::RequestTimeout => 408,
            Self::RequestTooLarge(_) => 413,
            Self::ServiceUnavailable => 503,
            Self::Internal(_) => 500,
        }
    }

    /// How many seconds a client should wait before retrying, for the errors that say so.
    pub fn retry_after_seconds(&self) -> Option<u32> {
        match self {
            Self::IdempotencyRequestInProgress => Some(2),
            Self::ServiceUnavailable => Some(1),
            _ => None,
        }
    }

    pub fn code(&self) -> ErrorCode {
        match self {
            Self::Unauthorized => ErrorCode::Unauthorized,
            Self::InvalidSignature(_) => ErrorCode::InvalidSignature,
            Self::Forbidden(_) => ErrorCode::Forbidden,
            Self::InvalidRequest { .. } => ErrorCode::InvalidRequest,
            Self::IdempotencyKeyMissing => ErrorCode::IdempotencyKeyMissing,
            Self::IdempotencyKeyInvalid(_) => ErrorCode::IdempotencyKeyInvalid,
            Self::IdempotencyRequestInProgress => ErrorCode::IdempotencyRequestInProgress,
            Self::IdempotencyKeyReusedBody | Self::IdempotencyKeyReusedEndpoint => {
                ErrorCode::IdempotencyKeyReused
            }
            Self::ResourceMissing(_) | Self::UnknownRoute(_) => ErrorCode::ResourceMissing,
            Self::InvalidStateTransition(_) => ErrorCode::InvalidStateTransition,
            Self::InsufficientFunds(_) | Self::InsufficientFundsForRefund(_) => {
                ErrorCode::InsufficientFunds
            }
            Self::AmountExceedsRefundable(_) => ErrorCode::AmountExceedsRefundable,
            Self::MethodNotAllowed { .. } => ErrorCode::MethodNotAllowed,
            Self::RequestTooLarge(_) => ErrorCode::RequestTooLarge,
            Self::RequestTimeout => ErrorCode::RequestTimeout,
            Self::ServiceUnavailable => ErrorCode::ServiceUnavailable,
            Self::Internal(_) => ErrorCode::InternalError,
        }
    }

    /// Whether sending the same request again may succeed (`Kaadxpay-Should-Retry`).
    pub fn should_retry(&self) -> bool {
        should_retry(self.status(), self.code().as_str())
    }

    /// A definitive answer is part of the request's outcome: the idempotency engine stores it
    /// and replays it. Anything else (a fault on our side) leaves the key free to retry.
    pub fn is_definitive(&self) -> bool {
        !matches!(
            self,
            Self::Internal(_) | Self::IdempotencyRequestInProgress | Self::ServiceUnavailable
        )
    }

    /// The field the error is about, when it names one.
    pub fn param(&self) -> Option<&str> {
        match self {
            Self::InvalidRequest { param, .. } => param.as_deref(),
            Self::AmountExceedsRefundable(_) => Some("amount"),
            _ => None,
        }
    }

    /// The exact bytes of the error body, so that a stored error replays byte for byte:
    /// `{"error":{"code":…,"message":…,"param":…}}`, `param` only when there is one.
    pub fn body_bytes(&self) -> Vec<u8> {
        #[derive(Serialize)]
        struct Body<'a> {
            error: Fields<'a>,
        }
        #[derive(Serialize)]
        struct Fields<'a> {
            code: &'a str,
            message: String,
            #[serde(skip_serializing_if = "Option::is_none")]
            param: Option<&'a str>,
        }
        let body = Body {
            error: Fields {
                code: self.code().as_str(),
                message: self.to_string(),
                param: self.param(),
            },
        };
        serde_json::to_vec(&body).expect("an error body serialises")
    }
}

impl From<sqlx::Error> for Error {
    /// No connection within the acquire timeout, a connection that broke, or a database that is
    /// shutting down, starting up or read-only (a failover in progress) is an outage the client
    /// should wait out (`503`); text the database cannot store is the request's fault (`400`;
    /// the door refuses it first, naming the parameter, so this is a backstop); anything else is
    /// a fault of ours (`500`).
    fn from(err: sqlx::Error) -> Self {
        if is_outage(&err) {
            tracing::warn!(error = %err, "the database is out of reach");
            return Self::ServiceUnavailable;
        }
        if is_unstorable_text(&err) {
            tracing::warn!(error = %err, "the database refused the request's text");
            return Self::invalid_body(
                "The request holds text that cannot be stored (the NUL character, U+0000).",
            );
        }
        Self::Internal(err.into())
    }
}

impl From<anyhow::Error> for Error {
    fn from(err: anyhow::Error) -> Self {
        Self::Internal(err)
    }
}

impl From<InvalidKey> for Error {
    fn from(InvalidKey(why): InvalidKey) -> Self {
        Self::IdempotencyKeyInvalid(why)
    }
}

impl From<Reuse> for Error {
    fn from(reuse: Reuse) -> Self {
        match reuse {
            Reuse::Endpoint => Self::IdempotencyKeyReusedEndpoint,
            Reuse::Body => Self::IdempotencyKeyReusedBody,
        }
    }
}

/// What the idempotency engine keeps of an error: a definitive one is the key's answer for
/// good, replayed byte for byte; a fault keeps nothing.
impl Failure for Error {
    fn refusal(&self) -> Option<StoredResponse> {
        self.is_definitive().then(|| StoredResponse {
            status: self.status(),
            location: None,
            body: self.body_bytes(),
            resource: None,
            renders_again: false,
        })
    }

    fn is_internal(&self) -> bool {
        matches!(self, Self::Internal(_))
    }

    fn unavailable() -> Self {
        Self::ServiceUnavailable
    }
}

/// Whether a client should send the same request (same key, same body) again after an error
/// answer of `status` with `code`, the `Kaadxpay-Should-Retry` header (API.md §14): yes for a
/// body that came too slowly, a key whose first request is still in progress, and any fault of
/// ours; never for an answer about the request itself (a business refusal, a bad request).
pub fn should_retry(status: u16, code: &str) -> bool {
    status == 408
        || status >= 500
        || (status == 409 && code == ErrorCode::IdempotencyRequestInProgress.as_str())
}

/// The code and `param` of a stored refusal (a `4xx` answer), read from its error body.
pub fn stored_refusal(stored: &StoredResponse) -> Option<(String, Option<String>)> {
    if !(400..500).contains(&stored.status) {
        return None;
    }
    let body: Value = serde_json::from_slice(&stored.body).ok()?;
    let code = body["error"]["code"].as_str()?.to_owned();
    Some((code, body["error"]["param"].as_str().map(str::to_owned)))
}

/// Whether `err` is the database refusing text it cannot store: 22021 (a NUL in text), 22P05
/// (`\u0000` in JSON).
fn is_unstorable_text(err: &sqlx::Error) -> bool {
    matches!(err, sqlx::Error::Database(db)
        if db.code().is_some_and(|code| matches!(code.as_ref(), "22021" | "22P05")))
}

/// Whether `err` says the database is out of reach for now rather than that the statement is
/// wrong: no connection in time, a broken connection, or a server that is shutting down,
/// starting up, or read-only (a standby that a failover has not promoted yet). Such a request
/// may be retried once the database is back.
pub fn is_outage(err: &sqlx::Error) -> bool {
    match err {
        sqlx::Error::PoolTimedOut
        | sqlx::Error::PoolClosed
        | sqlx::Error::Io(_)
        | sqlx::Error::Tls(_)
        | sqlx::Error::Protocol(_)
        | sqlx::Error::WorkerCrashed => true,
        sqlx::Error::Database(db) => db.code().is_some_and(|code| {
            // 08: connection exception; 57P01-57P03: admin shutdown, crash shutdown, cannot
            // connect now; 25006: read-only transaction; 53300: too many connections.
            code.starts_with("08")
                || matches!(
                    code.as_ref(),
                    "57P01" | "57P02" | "57P03" | "25006" | "53300"
                )
        }),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every error the contract has, with whether a client should send it again.
    fn every_error() -> Vec<(Error, bool)> {
        vec![
            (Error::Unauthorized, false),
            (Error::Forbidden("read-only"), false),
            (Error::invalid("amount", "too small"), false),
            (Error::IdempotencyKeyMissing, false),
            (Error::IdempotencyKeyInvalid("empty".into()), false),
            (Error::IdempotencyRequestInProgress, true),
            (Error::InvalidSignature("stale".into()), false),
            (Error::IdempotencyKeyReusedBody, false),
            (Error::IdempotencyKeyReusedEndpoint, false),
            (Error::UnknownRoute("/v1/nothing".into()), false),
            (Error::ResourceMissing("order"), false),
            (
                Error::MethodNotAllowed {
                    method: "PATCH".into(),
                    path: "/v1/orders".into(),
                },
                false,
            ),
            (Error::InvalidStateTransition("captured".into()), false),
            (Error::InsufficientFunds("EUR".into()), false),
            (Error::InsufficientFundsForRefund("EUR".into()), false),
            (Error::AmountExceedsRefundable("100 left".into()), false),
            (Error::ServiceUnavailable, true),
            (Error::RequestTooLarge(65536), false),
            (Error::RequestTimeout, true),
            (Error::Internal(anyhow::anyhow!("a bug")), true),
        ]
    }

    #[test]
    fn should_retry_is_true_exactly_for_408_409_in_progress_and_5xx() {
        for (error, expected) in every_error() {
            assert_eq!(
                error.should_retry(),
                expected,
                "{} {}",
                error.status(),
                error.code()
            );
        }
        assert!(!should_retry(409, "invalid_state_transition"));
        assert!(should_retry(502, "anything"));
    }

    /// Stored errors replay byte for byte, and new ones must read the same: each error's body is
    /// the bytes the body built as a `serde_json::Value` gave (keys in order, `param` only
    /// when there is one).
    #[test]
    fn an_errors_body_is_the_bytes_it_always_was() {
        for (error, _) in every_error() {
            let mut fields = serde_json::json!({
                "code": error.code().as_str(),
                "message": error.to_string(),
            });
            if let Some(param) = error.param() {
                fields["param"] = serde_json::json!(param);
            }
            let expected = serde_json::to_vec(&serde_json::json!({ "error": fields })).unwrap();
            assert_eq!(
                String::from_utf8(error.body_bytes()).unwrap(),
                String::from_utf8(expected).unwrap()
            );
        }
        assert_eq!(
            Error::invalid("amount", "too \"small\"").body_bytes(),
            br#"{"error":{"code":"invalid_request","message":"too \"small\"","param":"amount"}}"#
        );
    }

    #[test]
    fn the_table_of_codes_is_exactly_what_the_errors_answer() {
        let answered: std::collections::BTreeSet<(u16, &str)> = every_error()
            .iter()
            .map(|(error, _)| (error.status(), error.code().as_str()))
            .collect();
        let listed: std::collections::BTreeSet<(u16, &str)> = CODES
            .into_iter()
            .map(|(status, code)| (status, code.as_str()))
            .collect();
        assert_eq!(answered, listed);
    }

    /// The console's codes are the contract's and `not_allowed`, its own: none left out.
    #[test]
    fn every_error_code_but_the_consoles_own_is_the_contracts() {
        let contract: Vec<ErrorCode> = CODES.iter().map(|&(_, code)| code).collect();
        let others: Vec<ErrorCode> = ErrorCode::ALL
            .into_iter()
            .filter(|code| !contract.contains(code))
            .collect();
        assert_eq!(others, [ErrorCode::NotAllowed]);
    }
}
