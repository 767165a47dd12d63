//! The loop every background worker runs in: its job, every interval, for ever; a failed run is
//! logged and the next one tries again.

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
