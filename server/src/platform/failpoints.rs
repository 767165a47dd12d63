//! Fail points for crash and fault tests: the idempotency engine's mechanism
//! ([`kaadxpay_idempotency::failpoints`], compiled in with the feature `failpoints`), a point
//! configured to `return` answering as an internal error.

pub use kaadxpay_idempotency::failpoints::pause;

use crate::contract::error::Error;

/// Evaluates the fail point `name`: `Err` when it is configured to `return`.
pub fn check(name: &'static str) -> Result<(), Error> {
    kaadxpay_idempotency::failpoints::check(name).map_err(Error::Internal)
}
