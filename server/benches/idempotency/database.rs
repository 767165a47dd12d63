//! What the run left in the database: bytes per idempotency record (heap, indexes, TOAST), the
//! bytes all a new order writes, the duplicate check (every order has exactly one completed key,
//! and every completed key one order), keys left in progress, and the statement count of
//! `pg_stat_statements`.

use sqlx::PgPool;

pub struct Footprint {
    pub records: i64,
    /// Per record: the table's main fork, its indexes, and its TOAST table with its index.
    pub heap: f64,
    pub indexes: f64,
    pub toast: f64,
}

impl Footprint {
    pub fn total(&self) -> f64 {
        self.heap + self.indexes + self.toast
    }
}

/// Sizes over rows as the run left the table: including the dead row versions the completing
/// `UPDATE`s leave until they are pruned or vacuumed.
pub async fn footprint(pool: &PgPool) -> sqlx::Result<Footprint> {
    let (records, heap, indexes, toast): (i64, i64, i64, i64) = sqlx::query_as(
        "SELECT (SELECT count(*) FROM idempotency_keys), \
           pg_relation_size(c.oid), pg_indexes_size(c.oid), \
           coalesce(pg_total_relation_size(nullif(c.reltoastrelid, 0)), 0) \
         FROM pg_class c WHERE c.oid = 'idempotency_keys'::regclass",
    )
    .fetch_one(pool)
    .await?;
    let per_record = |bytes: i64| bytes as f64 / records.max(1) as f64;
    Ok(Footprint {
        records,
        heap: per_record(heap),
        indexes: per_record(indexes),
        toast: per_record(toast),
    })
}

/// The size of the tables a new order writes (the order, its event, its deliveries and the
/// key's record, each with its indexes and TOAST), and the orders made so far.
pub async fn effect_size(pool: &PgPool) -> sqlx::Result<(i64, i64)> {
    sqlx::query_as(
        "SELECT (SELECT sum(pg_total_relation_size(t::regclass))::bigint FROM unnest( \
             ARRAY['orders', 'events', 'webhook_deliveries', 'idempotency_keys']) t), \
           (SELECT count(*) FROM orders)",
    )
    .fetch_one(pool)
    .await
}

/// Records whose key starts with `prefix` that are still `in_progress`.
pub async fn in_progress(pool: &PgPool, prefix: &str) -> sqlx::Result<i64> {
    sqlx::query_scalar(
        "SELECT count(*) FROM idempotency_keys WHERE status = 'in_progress' AND starts_with(key, $1)",
    )
    .bind(prefix)
    .fetch_one(pool)
    .await
}

/// Statements executed in this database so far, as `pg_stat_statements` counts them
/// (`BEGIN` and `COMMIT` included).
pub async fn statement_calls(pool: &PgPool) -> sqlx::Result<i64> {
    sqlx::query_scalar(
        "SELECT coalesce(sum(calls), 0)::bigint FROM pg_stat_statements \
         WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database())",
    )
    .fetch_one(pool)
    .await
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
           (SELECT count(*) FROM idempotency_keys WHERE merchant_id = $1 AND endpoint = 'POST /v1/orders' AND status = 'completed'), \
           (SELECT count(*) FROM idempotency_keys WHERE merchant_id = $1 AND endpoint = 'POST /v1/orders' AND status = 'in_progress'), \
           (SELECT count(*) FROM idempotency_keys WHERE merchant_id = $1 AND endpoint = 'POST /v1/orders' AND status = 'failed'), \
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
