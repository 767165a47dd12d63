//! Open-loop load: new-key `POST /v1/orders` sent on a fixed schedule (one every 1/rate
//! seconds), each on its own task, whatever the earlier ones are doing. A request's latency
//! counts from its intended send time, so a stall of the server (or of this generator) shows
//! up in the percentiles instead of silently lowering the rate (no coordinated omission).
//!
//! Written here because no installable tool does this with a unique header per request:
//! wrk2 is not packaged in Debian, oha sends the same headers on every request, and
//! autocannon's `-R` lets each connection send a per-second budget back to back and times
//! requests from their actual send.

use std::time::Duration;

use tokio::time::Instant;

use crate::load::Load;
use crate::stack::Stack;

pub async fn run(stack: &Stack, rate: u32, duration: Duration) -> anyhow::Result<Load> {
    let client = reqwest::Client::builder()
        .pool_max_idle_per_host(1024)
        .timeout(Duration::from_secs(10))
        .build()?;
    let total = rate as u64 * duration.as_secs();
    let interval = Duration::from_secs(1) / rate;
    let start = Instant::now() + Duration::from_millis(100);
    let mut requests = Vec::with_capacity(total as usize);
    for n in 0..total {
        let intended = start + interval * n as u32;
        tokio::time::sleep_until(intended).await;
        let request = stack
            .post_order(&client, &format!("open-{rate}-{n}"))
            .send();
        requests.push(tokio::spawn(async move {
            let created = matches!(request.await, Ok(response) if response.status() == 201);
            (intended.elapsed(), created)
        }));
    }
    let mut latencies = Vec::with_capacity(requests.len());
    let mut errors = 0;
    for request in requests {
        let (latency, created) = request.await?;
        latencies.push(latency);
        errors += u64::from(!created);
    }
    Ok(Load::from_latencies(latencies, errors, start.elapsed()))
}
