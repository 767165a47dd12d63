//! Closed-loop load with `wrk` at a fixed number of connections: new keys (every request a
//! fresh `Idempotency-Key`) or replays (cycling over keys already completed). The keys are
//! made by `post_orders.lua`, whose `done` callback prints the figures this module parses.

use std::path::Path;
use std::process::Command;
use std::time::Duration;

use crate::load::Load;
use crate::stack::{Server, Stack};
use crate::tools;

const SCRIPT: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/benches/idempotency/post_orders.lua"
);

pub enum Mode<'a> {
    /// Fresh keys `<prefix>-<thread>-<n>`.
    New { prefix: &'a str },
    /// The completed keys `<prefix>-1 ..= <prefix>-<count>`.
    Replay { prefix: &'a str, count: usize },
}

pub fn run(
    wrk: &Path,
    stack: &Stack,
    server: &Server,
    mode: Mode<'_>,
    connections: usize,
    duration: Duration,
) -> anyhow::Result<Load> {
    let (prefix, mode, count) = match mode {
        Mode::New { prefix } => (prefix, "new", 0),
        Mode::Replay { prefix, count } => (prefix, "replay", count),
    };
    let output = tools::run(
        Command::new(wrk)
            .args(["-t", "2", "-c", &connections.to_string()])
            .args([
                "-d",
                &format!("{}s", duration.as_secs()),
                "--timeout",
                "10s",
            ])
            .args([
                "-s",
                SCRIPT,
                &format!("{}/v1/orders", server.base_url),
                "--",
            ])
            .args([&stack.merchant.api_key, prefix, mode, &count.to_string()]),
    )?;
    let field = |key| tools::field(&output, "WRK", key);
    let micros = |key| field(key).map(|us| Duration::from_micros(us as u64));
    let errors = ["non_2xx", "connect", "read", "write", "timeout"]
        .into_iter()
        .map(field)
        .sum::<anyhow::Result<f64>>()?;
    Ok(Load {
        requests: field("requests")? as u64,
        errors: errors as u64,
        elapsed: micros("duration_us")?,
        p50: micros("p50")?,
        p99: micros("p99")?,
        p999: micros("p999")?,
    })
}
