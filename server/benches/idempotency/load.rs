//! What one load run measured, in a form every driver (wrk, pgbench, the open loop) shares.

use std::time::Duration;

#[derive(Debug, Clone)]
pub struct Load {
    /// Requests (or transactions) that completed, successful or not.
    pub requests: u64,
    /// Of those, the ones that did not get the expected answer.
    pub errors: u64,
    pub elapsed: Duration,
    pub p50: Duration,
    pub p99: Duration,
    pub p999: Duration,
}

impl Load {
    pub fn throughput(&self) -> f64 {
        self.requests.saturating_sub(self.errors) as f64 / self.elapsed.as_secs_f64()
    }

    /// From individual latencies, in any order.
    pub fn from_latencies(mut latencies: Vec<Duration>, errors: u64, elapsed: Duration) -> Self {
        latencies.sort_unstable();
        let percentile = |p: f64| {
            let rank = ((p / 100.0) * latencies.len() as f64).ceil() as usize;
            latencies
                .get(
                    rank.saturating_sub(1)
                        .min(latencies.len().saturating_sub(1)),
                )
                .copied()
                .unwrap_or_default()
        };
        Self {
            requests: latencies.len() as u64,
            errors,
            elapsed,
            p50: percentile(50.0),
            p99: percentile(99.0),
            p999: percentile(99.9),
        }
    }
}

/// Milliseconds, for printing.
pub fn ms(duration: Duration) -> f64 {
    duration.as_secs_f64() * 1000.0
}
