//! The background workers' loop: each worker of `serve` (sweeper, purge, webhook dispatcher)
//! is a job run at a fixed interval, its failures logged and the next run tried all the same.

use std::time::Duration;

/// Runs `job` every `interval` for ever, logging its failures.
pub async fn every<F, Fut>(interval: Duration, name: &'static str, job: F)
where
    F: Fn() -> Fut,
    Fut: std::future::Future<Output = sqlx::Result<u64>>,
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
