//! The writer: drains the request log's buffer in batches (what arrives within [`LINGER`] of
//! the first entry, up to [`BATCH`]), redacts each entry, and stores a batch with one binary
//! `COPY` ([`copy`]). It writes on a connection of its own, so a slow write never holds one a
//! request needs, and commits asynchronously (`synchronous_commit = off`), so its commits never
//! wait on the disk the money's commits wait on: a database crash may lose the last fraction of
//! a second of entries, never anything else. A batch it cannot store is counted as dropped and
//! logged. A batch for a day without a partition makes the partition and is written again.

use std::time::Duration;

use sqlx::postgres::PgPoolOptions;
use sqlx::{PgConnection, PgPool};
use tokio::sync::mpsc;

use super::copy::{self, Rows};
use super::{count_dropped, partitions, Entry};

/// The most entries one `COPY` writes.
pub const BATCH: usize = 500;

/// How long a batch gathers after its first entry: fewer, larger statements.
pub const LINGER: Duration = Duration::from_millis(200);

/// How long the writer waits for its connection before it drops a batch.
const ACQUIRE_TIMEOUT: Duration = Duration::from_secs(10);

/// The writer's own connection to the database of `main`, kept open, committing asynchronously.
pub fn connection(main: &PgPool) -> PgPool {
    let options = (*main.connect_options())
        .clone()
        .options([("synchronous_commit", "off")]);
    PgPoolOptions::new()
        .max_connections(1)
        .min_connections(1)
        .acquire_timeout(ACQUIRE_TIMEOUT)
        .connect_lazy_with(options)
}

/// Writes what reaches `buffer` until every sender is gone.
pub async fn run(pool: PgPool, mut buffer: mpsc::Receiver<Entry>) {
    let mut entries = Vec::with_capacity(BATCH);
    while buffer.recv_many(&mut entries, BATCH).await > 0 {
        tokio::time::sleep(LINGER).await;
        while entries.len() < BATCH {
            match buffer.try_recv() {
                Ok(entry) => entries.push(entry),
                Err(_) => break,
            }
        }
        let mut rows = Rows::default();
        entries.drain(..).for_each(|entry| rows.push(entry));
        let len = rows.len();
        if let Err(err) = write(&pool, rows).await {
            tracing::error!(error = %err, entries = len, "request log entries could not be written");
            count_dropped(len);
        }
    }
}

async fn write(pool: &PgPool, rows: Rows) -> sqlx::Result<()> {
    let days = rows.days();
    let (len, data) = (rows.len(), rows.finish());
    let mut conn = pool.acquire().await?;
    match store(&mut conn, &data).await {
        Err(err) if is_missing_partition(&err) => {
            let (first, last) = days;
            let days = (last - first).num_days() as i32 + 1;
            partitions::ensure(&mut conn, first, days).await?;
            store(&mut conn, &data).await
        }
        stored => stored,
    }?;
    metrics::counter!("kaadxpay_request_log_written_total").increment(len as u64);
    Ok(())
}

/// 23514: no partition of the table holds the row (or a check failed, which a retry repeats).
fn is_missing_partition(err: &sqlx::Error) -> bool {
    matches!(err, sqlx::Error::Database(db) if db.code().as_deref() == Some("23514"))
}

/// Sends the `COPY` `data` (one statement: all its rows or none are stored).
async fn store(conn: &mut PgConnection, data: &[u8]) -> sqlx::Result<()> {
    let mut copy = conn.copy_in_raw(copy::STATEMENT).await?;
    copy.send(data).await?;
    copy.finish().await?;
    Ok(())
}
