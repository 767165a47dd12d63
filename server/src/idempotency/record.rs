//! The live view of one idempotency record, as `GET /v1/idempotency-keys/{key}` serves it and
//! the console shows it. A record expires the TTL after its `created_at` and reads as `expired`
//! until it is purged. What the one-commit path does not store reads as it would have been:
//! recovery point `finished`, one attempt, `updated_at` at `created_at`.
//! A key with no record whose one-commit request is executing (its advisory lock is held, see
//! `super::once`) reads as `in_progress`; what it asks is not known until it commits, so its
//! `endpoint` and `request_hash` are empty.

use kaadxpay_types::ids::MerchantId;
use std::time::Duration;

use chrono::{DateTime, Utc};
use serde::Serialize;
use sqlx::PgPool;

use super::Scope;

#[derive(Debug, Serialize, utoipa::ToSchema)]
pub struct ResourceLink {
    #[serde(rename = "type")]
    pub kind: String,
    pub id: String,
}

#[derive(Debug, Serialize, utoipa::ToSchema)]
pub struct KeyRecord {
    /// Always `idempotency_key`.
    pub object: &'static str,
    pub key: String,
    #[schema(schema_with = key_statuses)]
    pub status: String,
    pub endpoint: String,
    pub request_hash: String,
    pub response_status: Option<u16>,
    pub resource: Option<ResourceLink>,
    pub recovery_point: String,
    pub error: Option<String>,
    pub attempts: i32,
    #[serde(serialize_with = "crate::contract::timestamp::rfc3339")]
    pub created_at: DateTime<Utc>,
    #[serde(serialize_with = "crate::contract::timestamp::rfc3339")]
    pub updated_at: DateTime<Utc>,
    #[serde(serialize_with = "crate::contract::timestamp::rfc3339")]
    pub expires_at: DateTime<Utc>,
    /// The stored response's bytes: shown by the console, not part of the API's record. None
    /// for a `201` of the one-commit path, recorded as a reference to its resource.
    #[serde(skip)]
    pub response_body: Option<Vec<u8>>,
}

fn key_statuses() -> utoipa::openapi::schema::Object {
    crate::contract::schema::one_of(
        &["in_progress", "completed", "failed", "expired"],
        "`in_progress`, `completed`, `failed` or `expired`.",
    )
}

struct Row {
    key: String,
    status: String,
    expired: bool,
    endpoint: String,
    request_hash: Vec<u8>,
    response_status: Option<i16>,
    resource_type: Option<String>,
    resource_id: Option<String>,
    recovery_point: String,
    error: Option<String>,
    attempts: i32,
    created_at: DateTime<Utc>,
    updated_at: DateTime<Utc>,
    expires_at: DateTime<Utc>,
    response_body: Option<Vec<u8>>,
}

/// The caller's record of `key` in `engine`, or the request executing it; `None` when there is
/// neither.
pub async fn find(
    engine: &super::Idempotency,
    merchant_id: &MerchantId,
    key: &str,
) -> sqlx::Result<Option<KeyRecord>> {
    match recorded(engine.pool(), merchant_id, key, engine.ttl()).await? {
        Some(record) => Ok(Some(record)),
        None => executing(engine.pool(), merchant_id, key).await,
    }
}

/// The key as its one-commit request executes: since when its lock has been held, if it is.
async fn executing(
    pool: &PgPool,
    merchant_id: &MerchantId,
    key: &str,
) -> sqlx::Result<Option<KeyRecord>> {
    let lock = super::lock_key(Scope::Merchant(merchant_id), key) as u64;
    let since = sqlx::query_scalar!(
        r#"SELECT coalesce(a.xact_start, now()) AS "since!: DateTime<Utc>"
           FROM pg_locks l LEFT JOIN pg_stat_activity a ON a.pid = l.pid
           WHERE l.locktype = 'advisory' AND l.granted AND l.objsubid = 1
             AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())
             AND l.classid::int8 = $1 AND l.objid::int8 = $2
           LIMIT 1"#,
        (lock >> 32) as i64,
        (lock & 0xFFFF_FFFF) as i64,
    )
    .fetch_optional(pool)
    .await?;
    Ok(since.map(|since| KeyRecord {
        object: "idempotency_key",
        key: key.to_owned(),
        status: "in_progress".to_owned(),
        endpoint: String::new(),
        request_hash: String::new(),
        response_status: None,
        resource: None,
        recovery_point: "started".to_owned(),
        error: None,
        attempts: 1,
        created_at: since,
        updated_at: since,
        expires_at: since,
        response_body: None,
    }))
}

async fn recorded(
    pool: &PgPool,
    merchant_id: &MerchantId,
    key: &str,
    ttl: Duration,
) -> sqlx::Result<Option<KeyRecord>> {
    let row = sqlx::query_as!(
        Row,
        r#"SELECT key, status::text AS "status!", created_at + make_interval(secs => $3) <= now() AS "expired!",
             endpoint::text AS "endpoint!", request_hash, response_status, resource_type, resource_id,
             coalesce(recovery_point, 'finished') AS "recovery_point!", error,
             coalesce(attempts, 1) AS "attempts!", created_at AS "created_at: DateTime<Utc>",
             coalesce(updated_at, created_at) AS "updated_at!: DateTime<Utc>",
             created_at + make_interval(secs => $3) AS "expires_at!: DateTime<Utc>", response_body
           FROM idempotency_keys WHERE merchant_id = $1 AND key = $2"#,
        merchant_id.as_str(),
        key,
        ttl.as_secs_f64(),
    )
    .fetch_optional(pool)
    .await?;
    Ok(row.map(|row| KeyRecord {
        object: "idempotency_key",
        key: row.key,
        status: if row.expired {
            "expired".into()
        } else {
            row.status
        },
        endpoint: row.endpoint,
        request_hash: hex::encode(row.request_hash),
        response_status: row.response_status.map(|status| status as u16),
        resource: row
            .resource_type
            .zip(row.resource_id)
            .map(|(kind, id)| ResourceLink { kind, id }),
        recovery_point: row.recovery_point,
        error: row.error,
        attempts: row.attempts,
        created_at: row.created_at,
        updated_at: row.updated_at,
        expires_at: row.expires_at,
        response_body: row.response_body,
    }))
}
