//! Why a request was refused: the [`ErrorCode`] an error body carries (API.md §4), and the one
//! the console alone gives.

use serde::{Deserialize, Serialize};

/// The `code` of an error: every code the contract answers, and `not_allowed`, the console's
/// refusal of what only support staff may do outside test mode. A refusal crosses to the
/// console as one of these; a stored body with any other code is a failure, not a refusal.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ErrorCode {
    InvalidRequest,
    IdempotencyKeyMissing,
    IdempotencyKeyInvalid,
    Unauthorized,
    InvalidSignature,
    InsufficientFunds,
    Forbidden,
    ResourceMissing,
    MethodNotAllowed,
    RequestTimeout,
    IdempotencyRequestInProgress,
    InvalidStateTransition,
    AmountExceedsRefundable,
    RequestTooLarge,
    IdempotencyKeyReused,
    InternalError,
    ServiceUnavailable,
    NotAllowed,
}

status_names!(ErrorCode, "an error code", {
    InvalidRequest => "invalid_request",
    IdempotencyKeyMissing => "idempotency_key_missing",
    IdempotencyKeyInvalid => "idempotency_key_invalid",
    Unauthorized => "unauthorized",
    InvalidSignature => "invalid_signature",
    InsufficientFunds => "insufficient_funds",
    Forbidden => "forbidden",
    ResourceMissing => "resource_missing",
    MethodNotAllowed => "method_not_allowed",
    RequestTimeout => "request_timeout",
    IdempotencyRequestInProgress => "idempotency_request_in_progress",
    InvalidStateTransition => "invalid_state_transition",
    AmountExceedsRefundable => "amount_exceeds_refundable",
    RequestTooLarge => "request_too_large",
    IdempotencyKeyReused => "idempotency_key_reused",
    InternalError => "internal_error",
    ServiceUnavailable => "service_unavailable",
    NotAllowed => "not_allowed",
});

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_code_is_written_as_its_name() {
        for code in ErrorCode::ALL {
            assert_eq!(
                serde_json::to_value(code).unwrap(),
                serde_json::json!(code.as_str())
            );
            assert_eq!(ErrorCode::try_from(code.as_str().to_owned()), Ok(code));
        }
        assert!(ErrorCode::try_from("no_such_code".to_owned()).is_err());
    }
}
