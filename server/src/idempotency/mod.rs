//! The idempotency engine, a crate of its own ([`kaadxpay_idempotency`]): every `POST` under
//! `/v1` has its effect at most once per `(merchant, Idempotency-Key)`, and "Run reconciliation
//! now" once per `(scope, key)`, a scope being a merchant or support staff together
//! ([`Scope`]). This module gives it the contract's error ([`crate::contract::error::Error`],
//! the engine's `Failure`), keeps the key's record as the API shows it ([`record`]), and seals
//! the answers that show a secret ([`sealed`]).

pub mod record;
pub mod sealed;

pub use kaadxpay_idempotency::{
    fingerprint, key, last_hours, lock_key, maintenance, Idempotency, IdempotencyKey,
    IdempotentRequest, Once, Ran, Resource, RunShapes, Scope, StoredResponse,
};

/// What became of a request that carried a key, its faults as the contract's errors.
pub type Outcome = kaadxpay_idempotency::Outcome<crate::contract::error::Error>;
