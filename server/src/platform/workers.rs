//! The loop every background worker runs in: its job, every interval, for ever; a failed run is
//! logged and the next one tries again. The first run is at once ([`every`]) or one interval
//! after start ([`every_after_one_interval`]).

use std::fmt::Debug;
use std::future::Future;
use std::time::Duration;

pub async fn every<F, Fut, T, E>(interval: Duration, name: &'static str, job: F)
where
    F: Fn() -> Fut,
    Fut: Future<Output = Result<T, E>>,
    E: Debug,
{
    let mut ticker = tokio::time::interval(interval);
    ticker.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        ticker.tick().await;
        if let Err(err) = job().await {
            tracing::error!(worker = name, error = ?err, "worker run failed");
        }
    }
}

/// [`every`], starting one interval after it is called rather than at once.
pub async fn every_after_one_interval<F, Fut, T, E>(interval: Duration, name: &'static str, job: F)
where
    F: Fn() -> Fut,
    Fut: Future<Output = Result<T, E>>,
    E: Debug,
{
    tokio::time::sleep(interval).await;
    every(interval, name, job).await
}
