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

/// One batch of the purge: the thousand records made first among those older than the TTL
/// (`$1`, seconds), found in the creation index (in its order, so the scan stops after them
/// however large the table: without the order, a large table's plan flips to a scan of the
/// whole heap), deleted by their row address. The expiry is checked again on the row deleted,
/// so that a record taken over meanwhile (a new version under its new owner) is never deleted.
pub const PURGE_BATCH: &str = "DELETE FROM idempotency_keys WHERE ctid = ANY (ARRAY( \
       SELECT ctid FROM idempotency_keys WHERE created_at <= now() - make_interval(secs => $1) \
       ORDER BY created_at LIMIT 1000)) \
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
