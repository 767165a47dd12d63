//! The sweeper, which marks `in_progress` records whose lease ran out (their process died) as
//! `failed` so that a retry takes them over, and the purge, which deletes records past their
//! expiry (the TTL after `created_at`). Both run as workers inside the server and as one-shot
//! commands.

use std::time::Duration;

use sqlx::PgPool;

/// Marks abandoned records failed; returns how many.
pub async fn sweep(pool: PgPool) -> sqlx::Result<u64> {
    let swept = sqlx::query(
        "UPDATE idempotency_keys SET status = 'failed', locked_until = NULL, updated_at = now(), \
           error = 'The process handling this request stopped before it finished; a retry resumes it.' \
         WHERE status = 'in_progress' AND locked_until <= now()",
    )
    .execute(&pool)
    .await?
    .rows_affected();
    if swept > 0 {
        tracing::info!(
            event = "idempotency.swept",
            records = swept,
            "marked abandoned records failed"
        );
    }
    Ok(swept)
}

/// One batch of the purge: the first thousand records, in the creation index's order, among
/// those older than the TTL (`$1`, seconds), deleted by their row address. The index holds the
/// minute each record was made (in posting lists: its records share the key), so the batch
/// walks it in its order, the minute then the row's address, through the minutes that began
/// before the expiry and stops after a thousand (without the order, a large table's plan flips
/// to a scan of the whole heap), keeping only the records whose own `created_at` is past it:
/// those of the minute the expiry falls in are read, and the younger ones kept. The expiry is
/// checked again on the row deleted, so that a record taken over meanwhile (a new version under
/// its new owner) is never deleted.
pub const PURGE_BATCH: &str = "DELETE FROM idempotency_keys WHERE ctid = ANY (ARRAY( \
       SELECT ctid FROM idempotency_keys \
       WHERE date_bin('1 minute', created_at, TIMESTAMPTZ '2000-01-01 00:00:00+00') \
           <= now() - make_interval(secs => $1) \
         AND created_at <= now() - make_interval(secs => $1) \
       ORDER BY date_bin('1 minute', created_at, TIMESTAMPTZ '2000-01-01 00:00:00+00') LIMIT 1000)) \
     AND created_at <= now() - make_interval(secs => $1)";

/// Deletes the records older than `ttl` in batches, so a large backlog never holds long locks;
/// returns how many.
pub async fn purge(pool: PgPool, ttl: Duration) -> sqlx::Result<u64> {
    let mut purged = 0;
    loop {
        let batch = sqlx::query(PURGE_BATCH)
            .bind(ttl.as_secs_f64())
            .execute(&pool)
            .await?
            .rows_affected();
        purged += batch;
        if batch < 1000 {
            break;
        }
    }
    if purged > 0 {
        tracing::info!(
            event = "idempotency.purged",
            records = purged,
            "deleted expired records"
        );
    }
    Ok(purged)
}
