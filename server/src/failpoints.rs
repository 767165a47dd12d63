//! Fail points (the `fail` crate, compiled in with the `failpoints` feature and configured by
//! the `FAILPOINTS` environment variable), for crash and fault tests. A build without the
//! feature has none.
//!
//! `sleep(ms)` blocks its thread, so on a multi-threaded runtime the point is evaluated in
//! `block_in_place`: the other requests keep being served while one sleeps at the point.

use crate::error::Error;

/// Evaluates the fail point `name`: `Err` when it is configured to `return`.
pub fn check(name: &'static str) -> Result<(), Error> {
    #[cfg(feature = "failpoints")]
    {
        let evaluate = || {
            fail::fail_point!(name, |_| Err(Error::Internal(anyhow::anyhow!(
                "fail point {name}"
            ))));
            Ok(())
        };
        match tokio::runtime::Handle::current().runtime_flavor() {
            tokio::runtime::RuntimeFlavor::MultiThread => tokio::task::block_in_place(evaluate),
            _ => evaluate(),
        }
    }
    #[cfg(not(feature = "failpoints"))]
    {
        let _ = name;
        Ok(())
    }
}
