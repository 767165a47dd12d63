//! What the run left in the database: bytes per idempotency record, indexes included, and the
//! duplicate check (every order has exactly one completed key, and every completed key one order).

use sqlx::PgPool;

pub struct Footprint {
    pub records: i64,
    pub bytes_per_record: f64,
}

/// `pg_total_relation_size` (heap, TOAST, indexes) over the rows, as the run left the table:
/// including the dead row versions the completing `UPDATE`s leave until autovacuum reuses them.
pub async fn footprint(pool: &PgPool) -> sqlx::Result<Footprint> {
    let (records, bytes): (i64, i64) = sqlx::query_as(
        "SELECT count(*), pg_total_relation_size('idempotency_keys') FROM idempotency_keys",
    )
    .fetch_one(pool)
    .await?;
    Ok(Footprint {
        records,
        bytes_per_record: bytes as f64 / records.max(1) as f64,
    })
}

pub struct Duplicates {
    pub orders: i64,
    pub completed_keys: i64,
    /// Keys left `in_progress` (claimed, then the request was cut off when a load run stopped).
    pub in_progress_keys: i64,
    pub failed_keys: i64,
    /// Orders no completed key points at, plus keys pointing at an order twice: must be 0.
    pub duplicates: i64,
}

pub async fn duplicates(pool: &PgPool, merchant_id: &str) -> sqlx::Result<Duplicates> {
    let (orders, completed_keys, in_progress_keys, failed_keys, duplicates) =
        sqlx::query_as::<_, (i64, i64, i64, i64, i64)>(
        "SELECT \
           (SELECT count(*) FROM orders WHERE merchant_id = $1), \
           (SELECT count(*) FROM idempotency_keys WHERE merchant_id = $1 AND status = 'completed'), \
           (SELECT count(*) FROM idempotency_keys WHERE merchant_id = $1 AND status = 'in_progress'), \
           (SELECT count(*) FROM idempotency_keys WHERE merchant_id = $1 AND status = 'failed'), \
           (SELECT count(*) FROM orders o WHERE merchant_id = $1 AND NOT EXISTS \
              (SELECT 1 FROM idempotency_keys k \
               WHERE k.merchant_id = o.merchant_id AND k.resource_id = o.id AND k.status = 'completed')) \
           + (SELECT count(*) - count(DISTINCT resource_id) FROM idempotency_keys \
              WHERE merchant_id = $1 AND resource_type = 'order')",
    )
    .bind(merchant_id)
    .fetch_one(pool)
    .await?;
    Ok(Duplicates {
        orders,
        completed_keys,
        in_progress_keys,
        failed_keys,
        duplicates,
    })
}
