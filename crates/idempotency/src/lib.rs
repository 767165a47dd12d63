//! At most one effect per `(scope, Idempotency-Key)` (a scope is a merchant, or the platform's
//! support staff: [`Scope`]), with the key's record written in the
//! effect's own PostgreSQL transaction: an effect never exists without its record, nor a record
//! without its effect, and a retry replays the stored answer byte for byte.
//!
//! Two paths share one table (`schema.sql`):
//! - [`once`], the one-commit path, for effects that are local SQL: the record is inserted
//!   already completed, with the effect, under a transaction-scoped advisory lock that answers
//!   a duplicate `409` at once ([`Idempotency::execute_once`]);
//! - the two-phase path (feature `two-phase`), for effects that must outlive a transaction:
//!   the key is claimed under a lease in its own commit, and completed in the effect's
//!   transaction (`Idempotency::execute`).
//!
//! Statements are composed from fragments that bind their own values ([`statement`]), and an
//! effect's error tells the engine what to keep of it ([`Failure`]).

mod cache;
mod connections;
mod engine;
pub mod failpoints;
mod failure;
mod fingerprint;
pub mod key;
pub mod maintenance;
mod once;
mod outcomes;
mod request;
mod response;
mod scope;
mod statement;
#[cfg(feature = "two-phase")]
mod two_phase;

pub use engine::{Idempotency, Outcome, Reuse};
pub use failure::Failure;
pub use fingerprint::fingerprint;
pub use key::{IdempotencyKey, InvalidKey};
pub use once::{lock_key, Once, OnceTransaction, Ran, RunShapes};
pub use outcomes::{last_hours, Hour, Outcomes};
pub use request::IdempotentRequest;
pub use response::{Resource, StoredResponse};
pub use scope::Scope;
pub use statement::{Param, Shape, Statement};
#[cfg(feature = "two-phase")]
pub use two_phase::{Effected, Lease};
