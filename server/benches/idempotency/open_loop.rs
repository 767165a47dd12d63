//! Open-loop load: new-key `POST /v1/orders` sent on a fixed schedule (one every 1/rate
//! seconds), whatever the earlier ones are doing. A request's latency
//! counts from its intended send time, so a stall of the server (or of this generator) shows
//! up in the percentiles instead of silently lowering the rate (no coordinated omission).
//! Answers are kept apart by kind: created (`201`), shed (`503`), anything else.
//!
//! Requests go out on at most [`connections`] keep-alive connections, as a fleet of clients
//! would send them, not one new connection per request; a request waits for a free one. A
//! connection takes the next request as it falls due, seen by itself or by a pacer that never
//! sleeps ([`crate::schedule`]); each connection is a task of its own writing the request's bytes
//! ([`crate::http1`]), with no client library, pool, sleep or task per request in between, so
//! that one core keeps a schedule of several thousand requests a second. Its send lag, from its
//! intended send time to its actual send (a connection free and this generator scheduled),
//! tells whether the generator kept its schedule: when it did not, the run measured the
//! generator, and its rows say so instead of giving figures.
//!
//! Written here because no installable tool does this with a unique header per request:
//! wrk2 is not packaged in Debian, oha sends the same headers on every request, and
//! autocannon's `-R` lets each connection send a per-second budget back to back and times
//! requests from their actual send.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use tokio::task::JoinSet;

use crate::http1;
use crate::load::Load;
use crate::pinning;
use crate::report;
use crate::schedule::{Pacer, Schedule, Stalls};
use crate::stack::{RawOrder, Stack};
use crate::stalls::Generator;
use crate::upkeep::Upkeep;

/// Keep-alive connections the open loop sends on, at most: enough for twice the capacity
/// through a stall of the server's core of 150 ms (at 256, a run at 6,000 req/s had every
/// connection busy and its requests waiting for one), as many clients would not wait.
const MOST_CONNECTIONS: usize = 1024;

/// The connections the open loop sends on: [`MOST_CONNECTIONS`], or a quarter of the open files
/// this process may have (the servers it starts inherit the limit, and a server out of file
/// descriptors stops accepting for a second).
pub fn connections() -> usize {
    let soft_limit = std::fs::read_to_string("/proc/self/limits")
        .ok()
        .and_then(|limits| {
            let line = limits.lines().find(|l| l.starts_with("Max open files"))?;
            line.split_whitespace().nth(3)?.parse::<usize>().ok()
        })
        .unwrap_or(1024);
    MOST_CONNECTIONS.min(soft_limit / 4).max(16)
}

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
    /// What else ran on the server's core meanwhile ([`Upkeep`]).
    pub meanwhile: String,
    /// What kept the generator from its schedule ([`Generator`]).
    pub generator: String,
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
        let lag = self.send_lag_p99();
        (lag > MAX_SEND_LAG).then_some(lag)
    }

    fn send_lag_p99(&self) -> Duration {
        Load::from_latencies(self.send_lags.clone(), 0, self.elapsed).p99
    }
}

/// Sends `rate` requests a second for `duration`, keys `<prefix>-<n>`: each of [`connections`]
/// connection tasks takes the next request when it is free and the request due
/// ([`Pacer::next`]; a pacer task wakes the idle ones, [`Pacer::pace`]), writes it into its own
/// buffer and sends it ([`http1`]): no sleep, task or allocation per request (only the answer's
/// timeout, which does not fire). The pacer and the connections run on a single-threaded
/// runtime of their own, on a blocking thread of the bench's runtime: the generators share one
/// core, where two worker threads would only take turns on it and steal each other's tasks.
pub async fn run(
    stack: &Stack,
    prefix: &str,
    rate: u32,
    duration: Duration,
) -> anyhow::Result<OpenLoop> {
    let order = stack.raw_order();
    let prefix = prefix.to_owned();
    let core = pinning::system_cpu();
    let before = Upkeep::read(&stack.pool, &core).await?;
    let mut outcome = tokio::task::spawn_blocking(move || {
        let generator_core = pinning::generator_cpu();
        let generator_before = Generator::read(&generator_core)?;
        let connections = connections();
        let (mut outcome, stalls, busiest) = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()?
            .block_on(send(order, prefix, rate, duration, connections))?;
        let generator = Generator::read(&generator_core)?;
        outcome.generator = format!(
            "send lag p99 {}; {}",
            report::millis(outcome.send_lag_p99()),
            generator.since(&generator_before, stalls, busiest, connections)?
        );
        anyhow::Ok(outcome)
    })
    .await??;
    outcome.meanwhile = Upkeep::read(&stack.pool, &core).await?.since(&before)?;
    Ok(outcome)
}

/// [`run`]'s requests on at most `connections`, on the runtime they run on; with the pacer's
/// stalls and the most connections busy at once.
async fn send(
    order: RawOrder,
    prefix: String,
    rate: u32,
    duration: Duration,
    connections: usize,
) -> anyhow::Result<(OpenLoop, Stalls, usize)> {
    let pacer = Arc::new(Pacer::new(Schedule::new(
        Instant::now() + Duration::from_millis(100),
        rate,
        duration,
    )));
    let total = pacer.schedule().total();
    let busy = Arc::new([AtomicUsize::new(0), AtomicUsize::new(0)]);
    let mut tasks = JoinSet::new();
    for _ in 0..connections {
        let (pacer, busy) = (pacer.clone(), busy.clone());
        let (order, prefix) = (order.clone(), prefix.clone());
        tasks.spawn(async move {
            let mut connection = http1::Connection::new(&order.address);
            let mut request = Vec::with_capacity(512);
            let mut sent = Vec::with_capacity(2 * total as usize / connections + 16);
            while let Some(n) = pacer.next().await {
                order.write(&mut request, format_args!("{prefix}-{n}"));
                let intended = pacer.schedule().intended(n);
                let lag = intended.elapsed();
                let [now_busy, busiest] = &*busy;
                busiest.fetch_max(
                    now_busy.fetch_add(1, Ordering::Relaxed) + 1,
                    Ordering::Relaxed,
                );
                let status = connection.exchange(&request, Duration::from_secs(10)).await;
                now_busy.fetch_sub(1, Ordering::Relaxed);
                sent.push((intended.elapsed(), lag, status.unwrap_or(0)));
            }
            sent
        });
    }
    let pacing = {
        let pacer = pacer.clone();
        tokio::spawn(async move { pacer.pace(connections).await })
    };
    let mut outcome = OpenLoop {
        created: Vec::new(),
        shed: Vec::new(),
        failed: Vec::new(),
        send_lags: Vec::with_capacity(total as usize),
        elapsed: Duration::ZERO,
        meanwhile: String::new(),
        generator: String::new(),
    };
    while let Some(sent) = tasks.join_next().await {
        for (latency, lag, status) in sent? {
            outcome.send_lags.push(lag);
            match status {
                201 => outcome.created.push(latency),
                503 => outcome.shed.push(latency),
                _ => outcome.failed.push(latency),
            }
        }
    }
    outcome.elapsed = pacer.schedule().start().elapsed();
    let stalls = pacing.await?;
    Ok((outcome, stalls, busy[1].load(Ordering::Relaxed)))
}
