//! What one POST asks of the engine, and the key's record as a statement found it.

use crate::scope::Scope;
use std::fmt;
use std::time::Duration;

use uuid::Uuid;

use crate::key::IdempotencyKey;

/// What one POST asks of the engine.
pub struct IdempotentRequest<'a> {
    /// Whose keys the key is among.
    pub scope: Scope<'a>,
    pub key: &'a IdempotencyKey,
    /// The method and route template, e.g. `POST /v1/orders`.
    pub endpoint: &'static str,
    /// What makes two requests with one key the same request: the command's
    /// [`fingerprint`](crate::fingerprint).
    pub request_hash: &'a [u8],
    pub request_id: &'a str,
}

/// A record as a statement found it: one value of PostgreSQL's anonymous `record` type, made by
/// the function `idempotency_found` (migrations), which [`found_call`] calls; `NULL` when the
/// statement found none. One column rather than one per field, and made by a function rather
/// than by the statement's own expressions, because PostgreSQL initialises each column and each
/// expression of a statement's plan on every execution, whether a record is found or not: as
/// thirteen columns read by thirteen expressions, the record cost a new key's statement, which
/// finds none, 63,000 of its 615,000 instructions. The fields are decoded in the function's
/// order.
#[derive(sqlx::Type)]
#[sqlx(type_name = "record", no_pg_array)]
pub struct FoundRecord {
    endpoint: String,
    request_hash: Vec<u8>,
    status: String,
    lease_token: Option<Uuid>,
    lease_live: bool,
    expired: bool,
    /// Seconds until the record expires (the TTL after `created_at`), by the statement's clock.
    remaining: f64,
    response_status: Option<i16>,
    response_location: Option<String>,
    response_body: Option<Vec<u8>>,
    resource_type: Option<String>,
    resource_id: Option<String>,
    /// The resource's row, read with the record when the statement names its table (the
    /// two-phase path's statements do not).
    resource_row: Option<sqlx::types::Json<serde_json::Value>>,
}

/// The [`FoundRecord`] of the `idempotency_keys` row in scope as `k`, its expiry by the TTL
/// `ttl` (seconds), with the row of its resource in table `resource` (its columns `columns`;
/// both text, `NULL` for none).
pub(crate) fn found_call(
    ttl: impl fmt::Display,
    resource: impl fmt::Display,
    columns: impl fmt::Display,
) -> impl fmt::Display {
    fmt::from_fn(move |f| write!(f, "idempotency_found(k, {ttl}, {resource}, {columns})"))
}

impl FoundRecord {
    pub(crate) fn existing(self) -> ExistingRecord {
        ExistingRecord {
            endpoint: self.endpoint,
            request_hash: self.request_hash,
            status: self.status,
            lease_token: self.lease_token,
            lease_live: self.lease_live,
            expired: self.expired,
            remaining: Duration::from_secs_f64(self.remaining.max(0.0)),
            response_status: self.response_status,
            response_location: self.response_location,
            response_body: self.response_body,
            resource: self.resource_type.zip(self.resource_id),
            resource_row: self.resource_row.map(|row| row.0),
        }
    }
}

pub struct ExistingRecord {
    pub(crate) endpoint: String,
    pub(crate) request_hash: Vec<u8>,
    pub(crate) status: String,
    /// The two-phase path's lease, which a take-over must still find; none on a record of
    /// the one-commit path.
    #[cfg_attr(not(feature = "two-phase"), allow(dead_code))]
    pub(crate) lease_token: Option<Uuid>,
    #[cfg_attr(not(feature = "two-phase"), allow(dead_code))]
    pub(crate) lease_live: bool,
    pub(crate) expired: bool,
    pub(crate) remaining: Duration,
    pub(crate) response_status: Option<i16>,
    pub(crate) response_location: Option<String>,
    pub(crate) response_body: Option<Vec<u8>>,
    /// The kind and id of the resource the completed request made or acted on.
    pub(crate) resource: Option<(String, String)>,
    /// Its row, when the statement read it with the record.
    pub(crate) resource_row: Option<serde_json::Value>,
}

impl ExistingRecord {
    /// Whether `request` may write its record over this one: it expired, or it is `request`'s
    /// own, failed by the two-phase path (a failed record of another request is a mismatch).
    pub(crate) fn replaceable_by(&self, request: &IdempotentRequest<'_>) -> bool {
        self.expired
            || (self.status == "failed"
                && self.endpoint == request.endpoint
                && self.request_hash == request.request_hash)
    }
}
