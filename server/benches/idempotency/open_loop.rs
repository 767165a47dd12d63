//! Open-loop load: new-key `POST /v1/orders` sent on a fixed schedule (one every 1/rate
//! seconds), whatever the earlier ones are doing. A request's latency
//! counts from its intended send time, so a stall of the server (or of this generator) shows
//! up in the percentiles instead of silently lowering the rate (no coordinated omission).
//! Answers are kept apart by kind: created (`201`), shed (`503`), anything else.
//!
//! Requests go out on at most [`CONNECTIONS`] keep-alive connections, as a fleet of clients
//! would send them, not one new connection per request; a request waits for a free one. Each
//! connection is a task of its own writing prebuilt bytes ([`crate::http1`]), with no client
//! library, pool or task per request in between, so that one core keeps a schedule of several
//! thousand requests a second. Its
//! send lag, from its intended send time to its actual send (a connection free and this
//! generator scheduled), tells whether the generator kept its schedule: when it did not, the
//! run measured the generator, and its rows say so instead of giving figures.
//!
//! Written here because no installable tool does this with a unique header per request:
//! wrk2 is not packaged in Debian, oha sends the same headers on every request, and
//! autocannon's `-R` lets each connection send a per-second budget back to back and times
//! requests from their actual send.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use tokio::task::JoinSet;
use tokio::time::Instant;

use crate::http1;
use crate::load::Load;
use crate::stack::Stack;

/// Keep-alive connections the open loop sends on, at most.
pub const CONNECTIONS: usize = 64;

/// The send lag p99 above which a run says the generator lagged.
pub const MAX_SEND_LAG: Duration = Duration::from_millis(2);

pub struct OpenLoop {
    /// Latencies of the `201` answers.
    pub created: Vec<Duration>,
    /// Latencies of the `503` answers (shed or out of database connections).
    pub shed: Vec<Duration>,
    /// Other answers, and requests without one within 10 s.
    pub failed: Vec<Duration>,
    /// Per request, from its intended send time to its actual send.
    pub send_lags: Vec<Duration>,
    /// From the first intended send to the last answer.
    pub elapsed: Duration,
}

impl OpenLoop {
    /// Every request, a non-`201` counted as an error.
    pub fn all(&self) -> Load {
        let latencies = [&self.created, &self.shed, &self.failed]
            .into_iter()
            .flatten()
            .copied()
            .collect();
        Load::from_latencies(
            latencies,
            (self.shed.len() + self.failed.len()) as u64,
            self.elapsed,
        )
    }

    /// The created orders only: their rate is the goodput.
    pub fn created(&self) -> Load {
        Load::from_latencies(self.created.clone(), 0, self.elapsed)
    }

    pub fn shed(&self) -> Load {
        Load::from_latencies(self.shed.clone(), 0, self.elapsed)
    }

    /// The send lag's p99 when it is over [`MAX_SEND_LAG`]: the run measured the generator.
    pub fn lagged(&self) -> Option<Duration> {
        let lag = Load::from_latencies(self.send_lags.clone(), 0, self.elapsed).p99;
        (lag > MAX_SEND_LAG).then_some(lag)
    }
}

/// Sends `rate` requests a second for `duration`, keys `<prefix>-<n>`: each of
/// [`CONNECTIONS`] connection tasks takes the next request of the schedule when it is free,
/// waits for its time and sends it ([`http1`], the request's bytes made before its time).
pub async fn run(
    stack: &Stack,
    prefix: &str,
    rate: u32,
    duration: Duration,
) -> anyhow::Result<OpenLoop> {
    let total = rate as u64 * duration.as_secs();
    let interval = Duration::from_secs(1) / rate.max(1);
    let start = Instant::now() + Duration::from_millis(100);
    let next = Arc::new(AtomicU64::new(0));
    let order = stack.raw_order();
    let mut connections = JoinSet::new();
    for _ in 0..CONNECTIONS {
        let (next, order, prefix) = (next.clone(), order.clone(), prefix.to_owned());
        connections.spawn(async move {
            let mut connection = http1::Connection::new(&order.address);
            let mut sent = Vec::new();
            loop {
                let n = next.fetch_add(1, Ordering::Relaxed);
                if n >= total {
                    return sent;
                }
                let intended = start + interval * n as u32;
                let bytes = order.bytes(&format!("{prefix}-{n}"));
                tokio::time::sleep_until(intended).await;
                let lag = intended.elapsed();
                let status = connection.exchange(&bytes, Duration::from_secs(10)).await;
                sent.push((intended.elapsed(), lag, status.unwrap_or(0)));
            }
        });
    }
    let mut outcome = OpenLoop {
        created: Vec::new(),
        shed: Vec::new(),
        failed: Vec::new(),
        send_lags: Vec::with_capacity(total as usize),
        elapsed: Duration::ZERO,
    };
    while let Some(sent) = connections.join_next().await {
        for (latency, lag, status) in sent? {
            outcome.send_lags.push(lag);
            match status {
                201 => outcome.created.push(latency),
                503 => outcome.shed.push(latency),
                _ => outcome.failed.push(latency),
            }
        }
    }
    outcome.elapsed = start.elapsed();
    Ok(outcome)
}
