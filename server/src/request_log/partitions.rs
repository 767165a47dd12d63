//! The request log's daily partitions (`request_log_YYYYMMDD`, one UTC day each): created ahead
//! of need, and dropped whole once the day is past the retention, so that purging costs a
//! `DROP TABLE` per day and never a scan or a `DELETE`.

use std::time::Duration;

use chrono::{NaiveDate, Utc};
use sqlx::{PgConnection, PgPool};

/// Days with a partition ready ahead of now, so that entries never wait for one (the writer
/// also makes a missing one, see [`super::writer`]).
const DAYS_AHEAD: i32 = 3;

/// How long a drop may wait for the table's lock before it gives up until the next run, so that
/// a long reader never makes the writer and every other reader queue behind the drop.
const LOCK_TIMEOUT: &str = "2s";

/// The partitions of the `days` UTC days from `first`, unless they exist.
pub async fn ensure(conn: &mut PgConnection, first: NaiveDate, days: i32) -> sqlx::Result<()> {
    sqlx::query!(
        "SELECT request_log_add_partitions($1, $2)",
        first as _,
        days,
    )
    .execute(conn)
    .await?;
    Ok(())
}

/// Drops the partitions of the days that ended `retention` ago or earlier; returns how many.
pub async fn purge(pool: &PgPool, retention: Duration) -> sqlx::Result<u64> {
    let old = sqlx::query_scalar!(
        r#"SELECT c.relname::text AS "relname!" FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
           WHERE i.inhparent = 'request_log'::regclass AND c.relname ~ '^request_log_[0-9]{8}$'
             AND to_date(substr(c.relname, 13), 'YYYYMMDD') + 1
                 <= (now() - make_interval(secs => $1)) AT TIME ZONE 'UTC'
           ORDER BY 1"#,
        retention.as_secs_f64(),
    )
    .fetch_all(pool)
    .await?;
    for table in &old {
        let mut tx = pool.begin().await?;
        sqlx::query(&format!("SET LOCAL lock_timeout = '{LOCK_TIMEOUT}'"))
            .execute(&mut *tx)
            .await?;
        // The name comes from the catalog and matched the pattern above.
        sqlx::query(&format!("DROP TABLE {table}"))
            .execute(&mut *tx)
            .await?;
        tx.commit().await?;
    }
    if !old.is_empty() {
        tracing::info!(event = "request_log.purged", days = ?old, "dropped request log days past their retention");
    }
    Ok(old.len() as u64)
}

/// What the purge worker runs: the coming days' partitions, then the purge.
pub async fn maintain(pool: &PgPool, retention: Duration) -> sqlx::Result<u64> {
    let mut conn = pool.acquire().await?;
    ensure(&mut conn, today(), DAYS_AHEAD).await?;
    drop(conn);
    purge(pool, retention).await
}

pub fn today() -> NaiveDate {
    Utc::now().date_naive()
}
