//! What the engine must know of an effect's error: whether it is a definitive refusal, kept as
//! the key's answer, or a fault, after which nothing is kept and a retry executes again.

use crate::response::StoredResponse;

/// An effect's error. Database errors and internal causes convert into it; the engine asks it
/// what to keep.
pub trait Failure: From<sqlx::Error> + From<anyhow::Error> + std::fmt::Display {
    /// The answer the key keeps for good when this error is a definitive refusal (a `4xx` that
    /// a retry would get again); `None` for a fault.
    fn refusal(&self) -> Option<StoredResponse>;

    /// Whether this is a fault of ours whose cause must not be shown (it is logged): a record
    /// it leaves failed says only that an error on our side interrupted the request.
    fn is_internal(&self) -> bool;

    /// The fault of a request whose connection broke under it, again on its one retry.
    fn unavailable() -> Self;
}
