//! At most one effect per `(merchant, Idempotency-Key)`, with the key's record written in the
//! effect's own PostgreSQL transaction: an effect never exists without its record, nor a record
//! without its effect, and a retry replays the stored answer byte for byte.
//!
//! Two paths share one table (`schema.sql`):
//! - [`once`], the one-commit path, for effects that are local SQL: the record is inserted
//!   already completed, with the effect, under a transaction-scoped advisory lock that answers
//!   a duplicate `409` at once ([`Idempotency::execute_once`]);
//! - [`engine`]'s two-phase path, for effects that must outlive a transaction: the key is
//!   claimed under a lease in its own commit, and completed in the effect's transaction
//!   ([`Idempotency::execute`]).
//!
//! Statements are composed from fragments that bind their own values ([`statement`]), and an
//! effect's error tells the engine what to keep of it ([`Failure`]).

pub mod cache;
pub mod engine;
pub mod failpoints;
pub mod failure;
pub mod fingerprint;
pub mod key;
pub mod maintenance;
pub mod once;
pub mod outcomes;
pub mod request;
pub mod response;
pub mod statement;

pub use engine::{Effected, Idempotency, Lease, Outcome, Reuse};
pub use failure::Failure;
pub use key::IdempotencyKey;
pub use once::{Once, Ran};
pub use request::IdempotentRequest;
pub use response::{Resource, StoredResponse};
pub use statement::{Param, Statement};
