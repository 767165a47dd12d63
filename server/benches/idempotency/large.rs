//! Cost as the table grows (`BENCH_LARGE=1`, off by default: it takes minutes): the real
//! `idempotency_keys` pre-filled with [`RECORDS`] records generated in SQL
//! (`large_table_fill.sql`, a day of keys and one hour more, that hour expired), vacuumed and
//! analysed as autovacuum would have left it, then the new-key run and the write window again,
//! the purge of the expired hour batch by batch with the server's own statement
//! ([`PURGE_BATCH`]), each batch timed, and the table's size per million records.

use std::path::Path;
use std::time::Duration;

use server::idempotency::maintenance::PURGE_BATCH;
use tokio::time::Instant;

use crate::load::Load;
use crate::report::{self, Table};
use crate::stack::{Keyed, Stack};
use crate::writes::{self, Writes};
use crate::{wrk, wrk_with_cpu};

const FILL: &str = include_str!("large_table_fill.sql");
const RECORDS: i64 = 10_000_000;
/// Records per fill statement.
const BATCH: i64 = 1_000_000;
/// The records' time to live, as the fill has them and `serve` has it by default.
const TTL: Duration = Duration::from_secs(24 * 3600);
/// Rows the purge deletes per batch (`LIMIT` in [`PURGE_BATCH`]); a smaller one was the last.
const PURGE_ROWS: u64 = 1000;

pub struct Large {
    fill: Duration,
    new_keys: Load,
    writes: Writes,
    purged: u64,
    purge: Duration,
    slowest_batch: Duration,
    batches: usize,
    records: i64,
    bytes: i64,
}

pub async fn run(
    stack: &Stack,
    wrk: &Path,
    connections: usize,
    duration: Duration,
) -> anyhow::Result<Large> {
    eprintln!("large table: filling idempotency_keys with {RECORDS} records (minutes)...");
    let started = Instant::now();
    for first in (1..=RECORDS).step_by(BATCH as usize) {
        sqlx::query(FILL)
            .bind(first)
            .bind((first + BATCH - 1).min(RECORDS))
            .bind(RECORDS)
            .execute(&stack.pool)
            .await?;
        eprintln!("  {} records, {:.0?}", first + BATCH - 1, started.elapsed());
    }
    sqlx::query("VACUUM (ANALYZE) idempotency_keys")
        .execute(&stack.pool)
        .await?;
    let fill = started.elapsed();
    eprintln!("large table: new keys (wrk)...");
    let mode = wrk::Mode::New { prefix: "large" };
    let (new_keys, _) =
        wrk_with_cpu(stack, &stack.server, wrk, mode, connections, duration).await?;
    eprintln!("large table: commits and WAL per new key...");
    let writes = writes::measure(stack, "large-writes", Keyed::Order).await?;
    eprintln!("large table: purging the expired hour...");
    let (mut purged, mut batches, mut slowest_batch) = (0, 0, Duration::ZERO);
    let purging = Instant::now();
    loop {
        let batch = Instant::now();
        let deleted = sqlx::query(PURGE_BATCH)
            .bind(TTL.as_secs_f64())
            .execute(&stack.pool)
            .await?
            .rows_affected();
        slowest_batch = slowest_batch.max(batch.elapsed());
        purged += deleted;
        batches += 1;
        if deleted < PURGE_ROWS {
            break;
        }
    }
    let purge = purging.elapsed();
    let (records, bytes): (i64, i64) = sqlx::query_as(
        "SELECT (SELECT count(*) FROM idempotency_keys), \
           pg_total_relation_size('idempotency_keys')",
    )
    .fetch_one(&stack.pool)
    .await?;
    Ok(Large {
        fill,
        new_keys,
        writes,
        purged,
        purge,
        slowest_batch,
        batches,
        records,
        bytes,
    })
}

impl Large {
    /// Its rows, beside the empty table's `new_keys` and `writes`.
    pub fn rows(&self, table: &mut Table, new_keys: &Load, writes: &Writes) {
        table.fact(
            format!("{RECORDS} records: fill, in SQL"),
            format!(
                "{:.0?} (large_table_fill.sql, then VACUUM ANALYZE)",
                self.fill
            ),
        );
        table.fact(
            format!("{RECORDS} records: new keys (wrk)"),
            report::load(&self.new_keys),
        );
        let share = self.new_keys.throughput() / new_keys.throughput();
        table.target(
            format!("{RECORDS} records: new-key throughput / empty table"),
            format!("{:.0} %", share * 100.0),
            ">= 90 %",
            share >= 0.9,
        );
        let wal = self.writes.wal_bytes / writes.wal_bytes.max(1.0);
        table.target(
            format!("{RECORDS} records: WAL per new key / empty table"),
            format!(
                "{:.0} / {:.0} bytes = {wal:.2}x",
                self.writes.wal_bytes, writes.wal_bytes
            ),
            "<= 1.5x",
            wal <= 1.5,
        );
        table.target(
            "purge of the expired hour (PURGE_BATCH, batch by batch)",
            format!(
                "{:.2} s, {} records in {} batches",
                self.purge.as_secs_f64(),
                self.purged,
                self.batches
            ),
            "<= 2 s",
            self.purge <= Duration::from_secs(2),
        );
        table.target(
            "purge: slowest batch",
            report::millis(self.slowest_batch),
            "<= 100 ms",
            self.slowest_batch <= Duration::from_millis(100),
        );
        let per_million = self.bytes as f64 / 1e9 / (self.records as f64 / 1e6).max(1e-9);
        table.target(
            "storage per million daily keys (pg_total_relation_size)",
            format!(
                "{per_million:.3} GB ({:.2} GB, {} records)",
                self.bytes as f64 / 1e9,
                self.records
            ),
            "<= 0.35 GB",
            per_million <= 0.35,
        );
    }
}
