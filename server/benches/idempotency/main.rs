//! The idempotency benchmark: `cargo bench -p server --bench idempotency` (see the README,
//! "Benchmark"). In one run it starts a durable embedded PostgreSQL and the real `kaadxpay
//! serve` on it, then measures, side by side:
//!
//! - new-key `POST /v1/orders` at a fixed concurrency (wrk), against the fixed reference SQL
//!   through pgbench at that concurrency (the database's ceiling);
//! - replays of completed keys (wrk);
//! - per request: the server's CPU time, and round trips and statements to PostgreSQL;
//! - the request log's cost: the new-key run again on a second server with the log off;
//! - p99 at 150 req/s (open loop), and overload: open loops at half and twice the closed-loop
//!   capacity, with shed answers, admitted latency and keys left in progress;
//! - bytes per idempotency record and the duplicate check.
//!
//! `BENCH_SECONDS` (default 20) and `BENCH_CONNECTIONS` (default 32) shorten or widen a run.
//! The targets of the issue are reported as `met` or `MISSED` in one table, never asserted:
//! this is a measurement, not a test.

mod costs;
mod counting_proxy;
mod database;
mod load;
mod open_loop;
mod pgbench;
mod report;
mod seed;
mod stack;
mod tools;
mod wrk;

use std::time::Duration;

use load::{ms, Load};
use report::Table;
use stack::{Server, Stack};

/// The fixed arrival rate of the seed's p99 figure.
const STEADY_RATE: u32 = 150;

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
    let table = result?;
    println!();
    print!("{}", table.render());
    Ok(())
}

/// A wrk run against `server` with its CPU time over it, per request answered as asked (a
/// shed `503` costs a little CPU too, and is counted in the figure of those that made a key).
async fn wrk_with_cpu(
    stack: &Stack,
    server: &Server,
    wrk: &std::path::Path,
    mode: wrk::Mode<'_>,
    connections: usize,
    duration: Duration,
) -> anyhow::Result<(Load, Duration)> {
    let before = costs::cpu_time(server.pid())?;
    let load = wrk::run(wrk, stack, server, mode, connections, duration)?;
    let used = costs::cpu_time(server.pid())? - before;
    let per_request = used / load.requests.saturating_sub(load.errors).max(1) as u32;
    Ok((load, per_request))
}

async fn measure(
    stack: &Stack,
    wrk: &std::path::Path,
    pgbench: &std::path::Path,
    connections: usize,
    duration: Duration,
) -> anyhow::Result<Table> {
    eprintln!(
        "kaadxpay at {}, {connections} connections, {}s per run",
        stack.base_url,
        duration.as_secs()
    );
    eprintln!("new keys (wrk)...");
    let new_mode = wrk::Mode::New { prefix: "new" };
    let (new_keys, cpu_new) =
        wrk_with_cpu(stack, &stack.server, wrk, new_mode, connections, duration).await?;
    // The same load on a second server whose request log is off, right after, on one database.
    eprintln!("new keys with the request log off (wrk, a second server)...");
    let unlogged = Server::start_with(&stack.db_url, &[("KAADXPAY_REQUEST_LOG", "off")]).await?;
    let unlogged_mode = wrk::Mode::New { prefix: "unlogged" };
    let (new_keys_unlogged, cpu_new_unlogged) =
        wrk_with_cpu(stack, &unlogged, wrk, unlogged_mode, connections, duration).await?;
    drop(unlogged);
    // Right after the engine's run, so that both see the same machine as nearly as can be.
    eprintln!("the reference SQL through pgbench...");
    let ceiling = pgbench::run(pgbench, stack, connections, duration).await?;
    eprintln!("seeding {} keys to replay...", seed::REPLAY_KEYS);
    let replay_keys = seed::seed_replay_keys(stack, "replay").await?;
    eprintln!("replays (wrk)...");
    let replay_mode = wrk::Mode::Replay {
        prefix: "replay",
        count: replay_keys.len(),
    };
    let (replays, cpu_replay) = wrk_with_cpu(
        stack,
        &stack.server,
        wrk,
        replay_mode,
        connections,
        duration,
    )
    .await?;
    eprintln!("round trips per request (a second server behind a counting proxy)...");
    let trips = costs::round_trips(stack, &replay_keys).await?;
    eprintln!("open loop at {STEADY_RATE} requests/s...");
    let steady = open_loop::run(stack, "steady", STEADY_RATE, duration).await?;

    let capacity = new_keys.throughput();
    let half_rate = (capacity / 2.0).round().max(1.0) as u32;
    let double_rate = (capacity * 2.0).round().max(1.0) as u32;
    eprintln!("open loop at half the capacity, {half_rate} requests/s...");
    let half = open_loop::run(stack, "half", half_rate, duration).await?;
    eprintln!("open loop at twice the capacity, {double_rate} requests/s...");
    let double = open_loop::run(stack, "overload", double_rate, duration).await?;
    tokio::time::sleep(Duration::from_secs(1)).await;
    let left_in_progress = database::in_progress(&stack.pool, "overload-").await?;

    let footprint = database::footprint(&stack.pool).await?;
    let duplicates = database::duplicates(&stack.pool, &stack.merchant.merchant_id).await?;

    let mut table = Table::default();
    table.fact(
        format!("new keys, {connections} conns (wrk)"),
        report::load(&new_keys),
    );
    table.fact(
        format!("reference SQL, {connections} clients (pgbench)"),
        report::load(&ceiling),
    );
    table.fact(
        format!("replays, {connections} conns (wrk)"),
        report::load(&replays),
    );
    table.fact(
        format!("new keys, request log off, {connections} conns (wrk)"),
        report::load(&new_keys_unlogged),
    );
    let share = new_keys.throughput() / ceiling.throughput();
    table.target(
        "new-key throughput / reference",
        format!("{:.0} %", share * 100.0),
        ">= 90 %",
        share >= 0.9,
    );
    let replay_ratio = replays.throughput() / new_keys.throughput();
    table.target(
        "replay throughput / new-key",
        format!("{replay_ratio:.2}x"),
        ">= 5x",
        replay_ratio >= 5.0,
    );
    let steady_all = steady.all();
    table.target(
        format!("p99 at {STEADY_RATE} req/s, open loop"),
        format!(
            "{} ({})",
            report::millis(steady_all.p99),
            report::load(&steady_all)
        ),
        "< 8 ms",
        steady_all.p99 < Duration::from_millis(8) && steady_all.errors == 0,
    );
    for (name, per_request, limit) in [
        ("new key", &trips.new_key, 3.0),
        ("replay", &trips.replay, 2.0),
    ] {
        table.target(
            format!("round trips per {name} (counting proxy)"),
            format!(
                "{:.2} ({} errors)",
                per_request.round_trips, per_request.errors
            ),
            format!("<= {limit}"),
            per_request.round_trips <= limit,
        );
        table.fact(
            format!("statements per {name} (pg_stat_statements)"),
            per_request
                .statements
                .map_or("not preloaded".into(), |n| format!("{n:.2}")),
        );
    }
    for (name, cpu, limit) in [("new key", cpu_new, 250), ("replay", cpu_replay, 100)] {
        table.target(
            format!("server CPU per {name} (/proc utime+stime)"),
            format!("{} µs", cpu.as_micros()),
            format!("<= {limit} µs"),
            cpu <= Duration::from_micros(limit),
        );
    }
    let log_cpu = cpu_new.as_secs_f64() / cpu_new_unlogged.as_secs_f64().max(1e-9);
    table.target(
        "request log: server CPU per new key, on / off",
        format!(
            "{} / {} µs = {:+.0} %",
            cpu_new.as_micros(),
            cpu_new_unlogged.as_micros(),
            (log_cpu - 1.0) * 100.0
        ),
        "<= +10 %",
        log_cpu <= 1.10,
    );
    table.fact(
        "request log: new-key throughput, on / off",
        format!(
            "{:.0} / {:.0} req/s = {:.0} %",
            new_keys.throughput(),
            new_keys_unlogged.throughput(),
            new_keys.throughput() / new_keys_unlogged.throughput().max(1e-9) * 100.0
        ),
    );
    table.target(
        "bytes per idempotency record",
        format!(
            "{:.0} (heap {:.0}, indexes {:.0}, TOAST {:.0}; {} records)",
            footprint.total(),
            footprint.heap,
            footprint.indexes,
            footprint.toast,
            footprint.records
        ),
        "<= 400",
        footprint.total() <= 400.0,
    );

    table.fact(
        "overload: closed-loop capacity",
        format!("{capacity:.0} req/s (the new-key wrk run)"),
    );
    let half_all = half.all();
    table.fact(
        format!("half load, {half_rate} req/s, open loop"),
        report::load(&half_all),
    );
    let created = double.created();
    let shed = double.shed();
    table.fact(
        format!("2x load, {double_rate} req/s, open loop"),
        format!(
            "{} created, {} shed (503), {} other errors",
            double.created.len(),
            double.shed.len(),
            double.failed.len()
        ),
    );
    let goodput = created.throughput() / capacity;
    table.target(
        "2x load: goodput / capacity",
        format!(
            "{:.0} req/s = {:.0} %",
            created.throughput(),
            goodput * 100.0
        ),
        ">= 90 %",
        goodput >= 0.9,
    );
    table.target(
        "2x load: shed answers p99",
        if double.shed.is_empty() {
            "none shed".into()
        } else {
            report::millis(shed.p99)
        },
        "< 50 ms",
        shed.p99 < Duration::from_millis(50),
    );
    let stretch = ms(created.p99) / ms(half_all.p99).max(0.001);
    table.target(
        "2x load: admitted p99 / half-load p99",
        format!(
            "{} / {} = {stretch:.1}x",
            report::millis(created.p99),
            report::millis(half_all.p99)
        ),
        "<= 3x",
        stretch <= 3.0,
    );
    table.target(
        "2x load: keys in_progress 1 s after",
        left_in_progress.to_string(),
        "0",
        left_in_progress == 0,
    );
    table.target(
        "duplicates (orders vs completed keys)",
        format!(
            "{} ({} orders, {} completed, {} in progress, {} failed keys)",
            duplicates.duplicates,
            duplicates.orders,
            duplicates.completed_keys,
            duplicates.in_progress_keys,
            duplicates.failed_keys
        ),
        "0",
        duplicates.duplicates == 0 && duplicates.orders == duplicates.completed_keys,
    );
    Ok(table)
}
