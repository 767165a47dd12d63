//! The idempotency benchmark: `cargo bench -p server --bench idempotency` (see the README,
//! "Benchmark"). In one run it starts a durable embedded PostgreSQL and the real `kaadxpay
//! serve` on it, then measures, side by side:
//!
//! - new-key `POST /v1/orders` at a fixed concurrency (wrk), against the same SQL through
//!   pgbench at that concurrency (the database's ceiling);
//! - replays of completed keys (wrk);
//! - p99 at fixed arrival rates (open loop);
//! - bytes per idempotency record and the duplicate check.
//!
//! `BENCH_SECONDS` (default 20) and `BENCH_CONNECTIONS` (default 32) shorten or widen a run.
//! The targets of the issue are reported, not asserted: this is a measurement, not a test.

mod database;
mod load;
mod open_loop;
mod pgbench;
mod stack;
mod tools;
mod wrk;

use std::time::Duration;

use futures::StreamExt;

use load::{ms, Load};
use stack::Stack;

const REPLAY_KEYS: usize = 1000;
const OPEN_LOOP_RATES: [u32; 2] = [150, 750];

fn setting(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|value| value.parse().ok())
        .unwrap_or(default)
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let seconds = setting("BENCH_SECONDS", 20);
    let connections = setting("BENCH_CONNECTIONS", 32) as usize;
    let duration = Duration::from_secs(seconds);
    let wrk = tools::wrk()?;
    let stack = Stack::start().await?;
    let result = match tools::pgbench(&stack.pool).await {
        Ok(pgbench) => measure(&stack, &wrk, &pgbench, connections, duration).await,
        Err(error) => Err(error),
    };
    stack.stop().await;
    result
}

async fn measure(
    stack: &Stack,
    wrk: &std::path::Path,
    pgbench: &std::path::Path,
    connections: usize,
    duration: Duration,
) -> anyhow::Result<()> {
    eprintln!(
        "kaadxpay at {}, {connections} connections, {}s per run",
        stack.base_url,
        duration.as_secs()
    );
    eprintln!("new keys (wrk)...");
    let new_keys = wrk::run(
        wrk,
        stack,
        wrk::Mode::New { prefix: "new" },
        connections,
        duration,
    )?;
    eprintln!("seeding {REPLAY_KEYS} keys to replay...");
    seed_replay_keys(stack, "replay").await?;
    eprintln!("replays (wrk)...");
    let replays = wrk::run(
        wrk,
        stack,
        wrk::Mode::Replay {
            prefix: "replay",
            count: REPLAY_KEYS,
        },
        connections,
        duration,
    )?;
    let mut open = Vec::new();
    for rate in OPEN_LOOP_RATES {
        eprintln!("open loop at {rate} requests/s...");
        open.push((rate, open_loop::run(stack, rate, duration).await?));
    }
    let footprint = database::footprint(&stack.pool).await?;
    let duplicates = database::duplicates(&stack.pool, &stack.merchant.merchant_id).await?;
    eprintln!("the same SQL through pgbench...");
    let ceiling = pgbench::run(pgbench, stack, connections, duration).await?;

    println!();
    println!(
        "{:<44} {:>9} {:>7} {:>8} {:>8} {:>8}",
        "", "req/s", "errors", "p50 ms", "p99 ms", "p99.9 ms"
    );
    let row = |name: &str, load: &Load| {
        println!(
            "{name:<44} {:>9.0} {:>7} {:>8.2} {:>8.2} {:>8.2}",
            load.throughput(),
            load.errors,
            ms(load.p50),
            ms(load.p99),
            ms(load.p999)
        );
    };
    row(
        &format!("new-key POST /v1/orders, {connections} conns (wrk)"),
        &new_keys,
    );
    row(
        &format!("same SQL, {connections} clients (pgbench)"),
        &ceiling,
    );
    row(
        &format!("replay of completed keys, {connections} conns (wrk)"),
        &replays,
    );
    for (rate, load) in &open {
        row(&format!("new-key at {rate} req/s, open loop"), load);
    }
    println!();
    let app_vs_db = new_keys.throughput() / ceiling.throughput();
    let replay_vs_new = replays.throughput() / new_keys.throughput();
    println!(
        "bytes per idempotency record (indexes included): {:.0} over {} records",
        footprint.bytes_per_record, footprint.records
    );
    println!(
        "orders {}, completed keys {}, in-progress keys {}, failed keys {}, duplicates {}",
        duplicates.orders,
        duplicates.completed_keys,
        duplicates.in_progress_keys,
        duplicates.failed_keys,
        duplicates.duplicates
    );
    println!();
    println!("targets (issue 2):");
    let verdict = |met: bool| if met { "met" } else { "MISSED" };
    println!(
        "  new-key throughput >= 80 % of pgbench: {:.0} %  {}",
        app_vs_db * 100.0,
        verdict(app_vs_db >= 0.8)
    );
    if let Some((_, at_750)) = open.iter().find(|(rate, _)| *rate == 750) {
        println!(
            "  p99 < 8 ms at 750 req/s:              {:.2} ms  {}",
            ms(at_750.p99),
            verdict(at_750.p99 < Duration::from_millis(8))
        );
    }
    println!(
        "  replay throughput >= 3x new-key:       {:.2}x  {}",
        replay_vs_new,
        verdict(replay_vs_new >= 3.0)
    );
    println!(
        "  zero duplicates:                       {}  {}",
        duplicates.duplicates,
        verdict(duplicates.duplicates == 0 && duplicates.orders == duplicates.completed_keys)
    );
    Ok(())
}

/// Completes `<prefix>-1 ..= <prefix>-REPLAY_KEYS`, a few requests at a time.
async fn seed_replay_keys(stack: &Stack, prefix: &str) -> anyhow::Result<()> {
    let client = reqwest::Client::new();
    let statuses: Vec<_> = futures::stream::iter(1..=REPLAY_KEYS)
        .map(|n| stack.post_order(&client, &format!("{prefix}-{n}")).send())
        .buffer_unordered(8)
        .collect()
        .await;
    for status in statuses {
        anyhow::ensure!(status?.status() == 201, "a replay key was not created");
    }
    Ok(())
}
