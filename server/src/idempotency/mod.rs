//! The idempotency engine: every `POST` under `/v1` has its effect at most once per
//! `(merchant, Idempotency-Key)`. See `engine` for the claim / execute / complete protocol.

pub mod cache;
pub mod engine;
pub mod fingerprint;
pub mod key;
pub mod maintenance;
pub mod once;
pub mod outcomes;
pub mod record;
pub mod request;
pub mod response;

pub use engine::{Effected, EngineError, Idempotency, Lease, Outcome, Reuse};
pub use key::IdempotencyKey;
pub use once::{Once, Ran};
pub use request::IdempotentRequest;
pub use response::{Resource, StoredResponse};
