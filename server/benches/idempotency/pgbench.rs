//! The references, run by `pgbench` at the wrk run's concurrency on the same database: the
//! ceiling, the fixed reference SQL for one new-key request (`reference_new_key.sql`, on the
//! fixed tables of `reference_schema.sql`), and the bare effect, the order, its event and its
//! deliveries with no idempotency at all (`bare_effect.sql`, on the fixed tables of
//! `bare_effect_schema.sql`). Each transaction's latency is read from pgbench's
//! per-transaction log.

use std::path::Path;
use std::process::Command;
use std::time::Duration;

use anyhow::Context;
use sha2::{Digest, Sha256};

use crate::load::Load;
use crate::stack::Stack;
use crate::tools;

const SCHEMAS: [&str; 2] = [
    include_str!("reference_schema.sql"),
    include_str!("bare_effect_schema.sql"),
];
const API_KEY: &str = "sk_test_reference";
const MERCHANT: &str = "mer_reference";

/// A fixed pgbench script.
#[derive(Clone, Copy)]
pub enum Script {
    /// `reference_new_key.sql`: the playbook's two-commit pattern.
    Reference,
    /// `bare_effect.sql`: the effect alone.
    BareEffect,
}

impl Script {
    fn path(self) -> &'static str {
        match self {
            Self::Reference => concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/benches/idempotency/reference_new_key.sql"
            ),
            Self::BareEffect => concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/benches/idempotency/bare_effect.sql"
            ),
        }
    }
}

/// Creates the fixed tables of both scripts and their merchant, once per database.
pub async fn prepare(stack: &Stack) -> anyhow::Result<()> {
    for schema in SCHEMAS {
        sqlx::raw_sql(schema).execute(&stack.pool).await?;
    }
    sqlx::query(
        "INSERT INTO reference.merchants (id, name, api_key_hash) VALUES ($1, $1, sha256($2))",
    )
    .bind(MERCHANT)
    .bind(API_KEY.as_bytes())
    .execute(&stack.pool)
    .await?;
    Ok(())
}

/// Runs `script` with `clients` clients for `duration`, once [`prepare`]d.
pub fn run(
    pgbench: &Path,
    stack: &Stack,
    script: Script,
    clients: usize,
    duration: Duration,
) -> anyhow::Result<Load> {
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
            .args(["-T", &duration.as_secs().to_string(), "-f", script.path()])
            .arg("-D")
            .arg(format!("api_key_hash={}", hex(API_KEY)))
            .arg("-D")
            .arg(format!("merchant={MERCHANT}"))
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
