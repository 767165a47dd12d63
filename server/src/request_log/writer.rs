//! The writer: drains the request log's buffer in batches (what arrives within [`LINGER`] of
//! the first entry, up to [`BATCH`]; a whole batch waiting goes at once), redacts each entry,
//! and stores a batch with one binary `COPY` ([`copy`]). It writes on a connection of its own,
//! so a slow write never holds one a request needs, and commits asynchronously
//! (`synchronous_commit = off`), so its commits never wait on the disk the money's commits wait
//! on: a database crash may lose the last fraction of a second of entries, never anything else.
//! A batch it cannot store is counted as dropped and logged. A batch for a day without a
//! partition makes the partition and is written again.

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
    let mut rows = Rows::default();
    while next_batch(&mut buffer, &mut entries).await {
        rows.clear();
        entries.drain(..).for_each(|entry| rows.push(entry));
        let len = rows.len();
        if let Err(err) = write(&pool, &mut rows).await {
            tracing::error!(error = %err, entries = len, "request log entries could not be written");
            count_dropped(len);
        }
    }
}

/// Fills `entries` with the next batch: what waits in `buffer`, and, unless that is a whole
/// batch already (the writer is behind: lingering would only put it further behind), what
/// arrives within [`LINGER`]. `false` once every sender is gone and nothing is left.
async fn next_batch<T>(buffer: &mut mpsc::Receiver<T>, entries: &mut Vec<T>) -> bool {
    if buffer.recv_many(entries, BATCH).await == 0 {
        return false;
    }
    if entries.len() < BATCH {
        tokio::time::sleep(LINGER).await;
        while entries.len() < BATCH {
            match buffer.try_recv() {
                Ok(entry) => entries.push(entry),
                Err(_) => break,
            }
        }
    }
    true
}

async fn write(pool: &PgPool, rows: &mut Rows) -> sqlx::Result<()> {
    let (len, days) = (rows.len(), rows.days());
    let data = rows.finish();
    let mut conn = pool.acquire().await?;
    match store(&mut conn, data).await {
        Err(err) if is_missing_partition(&err) => {
            let (first, last) = days;
            let days = (last - first).num_days() as i32 + 1;
            partitions::ensure(&mut conn, first, days).await?;
            store(&mut conn, data).await
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

#[cfg(test)]
mod tests {
    use super::*;

    /// On a paused clock: how long gathering the next batch took, and its size.
    async fn gathered(buffer: &mut mpsc::Receiver<u32>) -> (Duration, usize) {
        let started = tokio::time::Instant::now();
        let mut entries = Vec::new();
        assert!(next_batch(buffer, &mut entries).await);
        (started.elapsed(), entries.len())
    }

    #[tokio::test(start_paused = true)]
    async fn a_whole_batch_waiting_is_written_at_once_and_a_partial_one_lingers() {
        let (sender, mut buffer) = mpsc::channel(3 * BATCH);
        for entry in 0..(2 * BATCH + 1) as u32 {
            sender.try_send(entry).unwrap();
        }
        assert_eq!(gathered(&mut buffer).await, (Duration::ZERO, BATCH));
        assert_eq!(gathered(&mut buffer).await, (Duration::ZERO, BATCH));
        assert_eq!(gathered(&mut buffer).await, (LINGER, 1));
        drop(sender);
        assert!(!next_batch(&mut buffer, &mut Vec::new()).await);
    }
}
