//! The ceiling: the fixed reference SQL for one new-key request (`reference_new_key.sql`, on
//! the fixed tables of `reference_schema.sql`) run by `pgbench` at the wrk run's concurrency,
//! on the same database. Each transaction's latency is read from pgbench's per-transaction log.

use std::path::Path;
use std::process::Command;
use std::time::Duration;

use anyhow::Context;
use sha2::{Digest, Sha256};

use crate::load::Load;
use crate::stack::Stack;
use crate::tools;

const SCHEMA: &str = include_str!("reference_schema.sql");
const SCRIPT: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/benches/idempotency/reference_new_key.sql"
);

pub async fn run(
    pgbench: &Path,
    stack: &Stack,
    clients: usize,
    duration: Duration,
) -> anyhow::Result<Load> {
    sqlx::raw_sql(SCHEMA).execute(&stack.pool).await?;
    let api_key = "sk_test_reference";
    let merchant = "mer_reference";
    sqlx::query(
        "INSERT INTO reference.merchants (id, name, api_key_hash) VALUES ($1, $1, sha256($2))",
    )
    .bind(merchant)
    .bind(api_key.as_bytes())
    .execute(&stack.pool)
    .await?;
    let logs = std::env::temp_dir().join(format!("kaadxpay-pgbench-{}", std::process::id()));
    std::fs::create_dir_all(&logs)?;
    let output = tools::run(
        Command::new(pgbench)
            .args([
                "-n",
                "-M",
                "prepared",
                "-c",
                &clients.to_string(),
                "-j",
                "2",
            ])
            .args(["-T", &duration.as_secs().to_string(), "-f", SCRIPT])
            .arg("-D")
            .arg(format!("api_key_hash={}", hex(api_key)))
            .arg("-D")
            .arg(format!("merchant={merchant}"))
            .arg("-D")
            .arg(format!("request_hash={}", hex("POST /v1/orders {}")))
            .arg("-l")
            .arg("--log-prefix")
            .arg(logs.join("tx"))
            .arg(&stack.db_url),
    )?;
    let latencies = read_logs(&logs)?;
    let _ = std::fs::remove_dir_all(&logs);
    let failed = output
        .lines()
        .find_map(|line| line.strip_prefix("number of failed transactions: "))
        .and_then(|rest| rest.split_whitespace().next()?.parse().ok())
        .unwrap_or(0);
    Ok(Load::from_latencies(latencies, failed, duration))
}

fn hex(text: &str) -> String {
    Sha256::digest(text.as_bytes())
        .iter()
        .map(|byte| format!("{byte:02x}"))
        .collect()
}

/// Latencies from pgbench's logs: `client transaction latency_us script epoch epoch_us` lines.
fn read_logs(dir: &Path) -> anyhow::Result<Vec<Duration>> {
    let mut latencies = Vec::new();
    for entry in std::fs::read_dir(dir)? {
        let text = std::fs::read_to_string(entry?.path())?;
        for line in text.lines() {
            let micros: u64 = line
                .split_whitespace()
                .nth(2)
                .and_then(|field| field.parse().ok())
                .with_context(|| format!("unexpected pgbench log line `{line}`"))?;
            latencies.push(Duration::from_micros(micros));
        }
    }
    Ok(latencies)
}
