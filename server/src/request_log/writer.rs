//! The writer: drains the request log's buffer in batches (what arrives within [`LINGER`] of
//! the first entry, up to [`BATCH`]), redacts each entry, and stores a batch with one multi-row
//! `INSERT … UNNEST`. It writes on a connection of its own, so a slow write never holds one a
//! request needs, and commits asynchronously (`synchronous_commit = off`), so its commits never
//! wait on the disk the money's commits wait on: a database crash may lose the last fraction of
//! a second of entries, never anything else. A batch it cannot store is counted as dropped and
//! logged. A batch for a day without a partition makes the partition and is written again.

use std::time::Duration;

use chrono::{DateTime, NaiveDate, Utc};
use sqlx::postgres::PgPoolOptions;
use sqlx::{PgConnection, PgPool};
use tokio::sync::mpsc;

use super::{count_dropped, partitions, redact, Entry};

/// The most entries one statement writes.
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
        let batch = Batch::from(entries.drain(..));
        if let Err(err) = write(&pool, &batch).await {
            tracing::error!(error = %err, entries = batch.ids.len(), "request log entries could not be written");
            count_dropped(batch.ids.len());
        }
    }
}

async fn write(pool: &PgPool, batch: &Batch) -> sqlx::Result<()> {
    let mut conn = pool.acquire().await?;
    match insert(&mut conn, batch).await {
        Err(err) if is_missing_partition(&err) => {
            let (first, last) = batch.days();
            let days = (last - first).num_days() as i32 + 1;
            partitions::ensure(&mut conn, first, days).await?;
            insert(&mut conn, batch).await
        }
        written => written,
    }
}

/// 23514: no partition of the table holds the row (or a check failed, which a retry repeats).
fn is_missing_partition(err: &sqlx::Error) -> bool {
    matches!(err, sqlx::Error::Database(db) if db.code().as_deref() == Some("23514"))
}

async fn insert(conn: &mut PgConnection, batch: &Batch) -> sqlx::Result<()> {
    sqlx::query!(
        "INSERT INTO request_log (id, created_at, merchant_id, api_key_id, user_id, \
           method, route, path, idempotency_key, verdict, status, error_code, latency_ms, \
           client_address, request_body, response_body, client_request_id) \
         SELECT * FROM UNNEST($1::text[], $2::timestamptz[], $3::text[], $4::text[], $5::text[], \
           $6::text[], $7::text[], $8::text[], $9::text[], $10::text[], $11::int2[], $12::text[], \
           $13::float8[], $14::text[], $15::text[], $16::text[], $17::text[])",
        &batch.ids,
        &batch.created_at as &[DateTime<Utc>],
        &batch.merchant_ids,
        &batch.api_key_ids as &[Option<String>],
        &batch.user_ids as &[Option<String>],
        &batch.methods,
        &batch.routes,
        &batch.paths,
        &batch.idempotency_keys as &[Option<String>],
        &batch.verdicts as &[Option<String>],
        &batch.statuses,
        &batch.error_codes as &[Option<String>],
        &batch.latencies_ms,
        &batch.client_addresses as &[Option<String>],
        &batch.request_bodies as &[Option<String>],
        &batch.response_bodies as &[Option<String>],
        &batch.client_request_ids as &[Option<String>],
    )
    .execute(conn)
    .await?;
    metrics::counter!("kaadxpay_request_log_written_total").increment(batch.ids.len() as u64);
    Ok(())
}

/// Entries as columns, redacted, ready to bind.
#[derive(Default)]
struct Batch {
    ids: Vec<String>,
    created_at: Vec<DateTime<Utc>>,
    merchant_ids: Vec<String>,
    api_key_ids: Vec<Option<String>>,
    user_ids: Vec<Option<String>>,
    methods: Vec<String>,
    routes: Vec<String>,
    paths: Vec<String>,
    idempotency_keys: Vec<Option<String>>,
    verdicts: Vec<Option<String>>,
    statuses: Vec<i16>,
    error_codes: Vec<Option<String>>,
    latencies_ms: Vec<f64>,
    client_addresses: Vec<Option<String>>,
    request_bodies: Vec<Option<String>>,
    response_bodies: Vec<Option<String>>,
    client_request_ids: Vec<Option<String>>,
}

impl Batch {
    /// The first and last UTC days of the batch's entries.
    fn days(&self) -> (NaiveDate, NaiveDate) {
        let days = self.created_at.iter().map(DateTime::date_naive);
        let first = days.clone().min().unwrap_or_else(partitions::today);
        (first, days.max().unwrap_or(first))
    }
}

impl<I: Iterator<Item = Entry>> From<I> for Batch {
    fn from(entries: I) -> Self {
        let mut batch = Self::default();
        for entry in entries {
            let text = |value: Option<String>| value.map(|value| redact::text(value.as_bytes()));
            let body = |bytes: &[u8]| (!bytes.is_empty()).then(|| redact::text(bytes));
            batch.error_codes.push(
                (entry.status >= 400)
                    .then(|| error_code(&entry.response_body))
                    .flatten(),
            );
            batch.ids.push(entry.id);
            batch.created_at.push(entry.created_at);
            batch.merchant_ids.push(entry.merchant_id);
            batch.api_key_ids.push(entry.api_key_id);
            batch.user_ids.push(entry.user_id);
            batch.methods.push(entry.method);
            batch.routes.push(entry.route);
            batch.paths.push(redact::text(entry.path.as_bytes()));
            batch.idempotency_keys.push(text(entry.idempotency_key));
            batch.verdicts.push(entry.verdict);
            batch
                .statuses
                .push(i16::try_from(entry.status).unwrap_or(i16::MAX));
            batch
                .latencies_ms
                .push(entry.latency.as_secs_f64() * 1000.0);
            batch
                .client_addresses
                .push(entry.client_address.map(|address| address.to_string()));
            batch.request_bodies.push(body(&entry.request_body[..]));
            batch.response_bodies.push(body(&entry.response_body[..]));
            batch.client_request_ids.push(text(entry.client_request_id));
        }
        batch
    }
}

/// The `error.code` of an error body.
fn error_code(body: &[u8]) -> Option<String> {
    let body: serde_json::Value = serde_json::from_slice(body).ok()?;
    Some(body["error"]["code"].as_str()?.to_owned())
}
