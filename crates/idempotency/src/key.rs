//! The `Idempotency-Key` header: the key itself, and its rule, are `kaadxpay-types`' (shared
//! with the console, which reads keys from its forms and addresses by the same rule).

pub use kaadxpay_types::idempotency_key::{IdempotencyKey, InvalidKey, MAX_LEN};

pub const HEADER: &str = "idempotency-key";
