//! Fail points (the `fail` crate, compiled in with the feature `failpoints` and configured by
//! the `FAILPOINTS` environment variable), for crash and fault tests. A build without the
//! feature has none.
//!
//! A pause *inside a statement* (with the statement's locks held) is configured as
//! `return(ms)` on a point read by [`pause`]: the statement itself sleeps that long.
//!
//! `sleep(ms)` blocks its thread, so on a multi-threaded runtime [`check`] evaluates the point
//! in `block_in_place`: the other requests keep being served while one sleeps at the point.

/// Evaluates the fail point `name`: `Err` when it is configured to `return`.
pub fn check(name: &'static str) -> anyhow::Result<()> {
    #[cfg(feature = "failpoints")]
    {
        let evaluate = || {
            fail::fail_point!(name, |_| Err(anyhow::anyhow!("fail point {name}")));
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

/// How long the statement at fail point `name` sleeps before its writes: `return(ms)` there, or
/// nothing (always, without the feature).
pub fn pause(name: &'static str) -> std::time::Duration {
    #[cfg(feature = "failpoints")]
    {
        let configured = || {
            fail::fail_point!(name, |ms: Option<String>| ms
                .and_then(|ms| ms.parse().ok())
                .map(std::time::Duration::from_millis));
            None
        };
        configured().unwrap_or_default()
    }
    #[cfg(not(feature = "failpoints"))]
    {
        let _ = name;
        std::time::Duration::ZERO
    }
}

/// Whether the fail point `name` is configured at all (never, without the feature): an effect
/// takes the shape that can stop at it only then.
pub fn configured(name: &str) -> bool {
    #[cfg(feature = "failpoints")]
    {
        fail::list().iter().any(|(point, _)| point == name)
    }
    #[cfg(not(feature = "failpoints"))]
    {
        let _ = name;
        false
    }
}
