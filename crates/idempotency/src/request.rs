//! What one POST asks of the engine, and the key's record as a statement found it.

use crate::scope::Scope;
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

/// A record as a statement found it: every column `NULL` when it found none.
#[derive(sqlx::FromRow)]
pub struct FoundRecord {
    endpoint: Option<String>,
    request_hash: Option<Vec<u8>>,
    status: Option<String>,
    lease_token: Option<Uuid>,
    lease_live: Option<bool>,
    expired: Option<bool>,
    /// Seconds until the record expires (the TTL after `created_at`), by the statement's clock.
    remaining: Option<f64>,
    response_status: Option<i16>,
    response_location: Option<String>,
    response_body: Option<Vec<u8>>,
    resource_type: Option<String>,
    resource_id: Option<String>,
    /// The resource's row, read with the record when the statement names its table (the
    /// two-phase path's statements do not).
    #[sqlx(default)]
    resource_row: Option<sqlx::types::Json<serde_json::Value>>,
}

impl FoundRecord {
    pub(crate) fn existing(self) -> Option<ExistingRecord> {
        Some(ExistingRecord {
            endpoint: self.endpoint?,
            request_hash: self.request_hash?,
            status: self.status?,
            lease_token: self.lease_token,
            lease_live: self.lease_live?,
            expired: self.expired?,
            remaining: Duration::from_secs_f64(self.remaining?.max(0.0)),
            response_status: self.response_status,
            response_location: self.response_location,
            response_body: self.response_body,
            resource: self.resource_type.zip(self.resource_id),
            resource_row: self.resource_row.map(|row| row.0),
        })
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
