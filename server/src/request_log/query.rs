//! Reading the request log back, always within one merchant: [`list`] (newest first, with
//! [`Filters`], a page at a time) for `GET /v1/requests` and the timelines that show a key's
//! attempts, and [`find`] for one request.

use chrono::{DateTime, Utc};
use kaadxpay_types::ids::MerchantId;
use serde::Serialize;
use sqlx::PgPool;

use crate::contract::error::Error;
use crate::contract::pagination::Page;

/// One logged request, as the API shows it (API.md §12).
#[derive(Debug, Clone, Serialize, sqlx::FromRow, utoipa::ToSchema)]
pub struct LoggedRequest {
    /// The server's own id for the request, sent in its answer's `X-Request-Id`.
    #[schema(example = "req_6f1Xb2kQ9mZ3pL8sT0vW4yA7")]
    pub id: String,
    /// Always `request`.
    pub object: String,
    #[serde(serialize_with = "crate::contract::timestamp::rfc3339")]
    pub created_at: DateTime<Utc>,
    pub method: String,
    /// The route template with its method.
    #[schema(example = "POST /v1/orders")]
    pub route: String,
    /// The path and query string, redacted.
    pub path: String,
    pub idempotency_key: Option<String>,
    /// The engine's verdict on the key (`new`, `replayed`, `in_progress`, `mismatch`), null
    /// for requests that did not pass through it.
    pub verdict: Option<String>,
    pub status: i16,
    /// The error's `code` when the answer was an error.
    pub error_code: Option<String>,
    pub latency_ms: f64,
    /// The API key's visible prefix (its first 12 characters).
    pub api_key_id: Option<String>,
    /// The console user, for a console action.
    pub user: Option<String>,
    pub client_address: Option<String>,
    /// The first 8 KiB, with secrets replaced and IBANs masked but their last 4.
    pub request_body: Option<String>,
    /// The first 8 KiB, with secrets replaced and IBANs masked but their last 4.
    pub response_body: Option<String>,
    /// The `X-Request-Id` the client sent, if any.
    pub client_request_id: Option<String>,
}

pub const COLUMNS: &str =
    "id, 'request' AS object, created_at, method, route, path, idempotency_key, \
     verdict, status, error_code, round(latency_ms::numeric, 3)::float8 AS latency_ms, api_key_id, \
     user_id AS \"user\", client_address, request_body, response_body, client_request_id";

pub use kaadxpay_types::Verdict;

pub use kaadxpay_types::Door;

/// The condition that holds for the requests that came through `door`.
fn door_condition(door: Door) -> &'static str {
    match door {
        Door::Api => " AND api_key_id IS NOT NULL",
        Door::Console => " AND user_id IS NOT NULL",
    }
}

/// A status filter as typed: an HTTP status, 100 to 599.
pub fn status_filter(text: &str) -> Result<i16, Error> {
    text.parse()
        .ok()
        .filter(|status| (100..=599).contains(status))
        .ok_or_else(|| Error::invalid("status", "status must be an HTTP status, 100 to 599."))
}

/// A verdict filter as typed.
pub fn verdict_filter(text: &str) -> Result<Verdict, Error> {
    Verdict::try_from(text.to_owned()).map_err(|_| {
        Error::invalid(
            "verdict",
            "verdict must be new, replayed, in_progress or mismatch.",
        )
    })
}

/// Which requests a list shows; each filter that is set must hold.
#[derive(Debug, Default)]
pub struct Filters {
    pub idempotency_key: Option<String>,
    pub status: Option<i16>,
    /// A route template with its method, e.g. `POST /v1/orders`.
    pub route: Option<String>,
    pub verdict: Option<Verdict>,
    pub created_gte: Option<DateTime<Utc>>,
    pub created_lte: Option<DateTime<Utc>>,
    /// Text found in the request's id or in the id the client sent.
    pub search: Option<String>,
    /// The door it came through.
    pub door: Option<Door>,
}

/// The merchant's requests that pass `filters`, newest first, a page at a time (one more than
/// the page, see [`Page::fetch_limit`]). Only the filters that are set reach the statement, so
/// that each can use its index and the date range prunes partitions.
pub async fn list(
    pool: &PgPool,
    merchant_id: &MerchantId,
    filters: &Filters,
    page: &Page,
) -> Result<Vec<LoggedRequest>, Error> {
    page.check_cursor(pool, "request_log", merchant_id).await?;
    let mut sql = format!("SELECT {COLUMNS} FROM request_log WHERE merchant_id = $1");
    let mut parameter = 3;
    let mut condition = |is_set: bool, template: &str| {
        if is_set {
            parameter += 1;
            sql.push_str(" AND ");
            sql.push_str(&template.replace('?', &format!("${parameter}")));
        }
    };
    condition(filters.idempotency_key.is_some(), "idempotency_key = ?");
    condition(filters.status.is_some(), "status = ?");
    condition(filters.route.is_some(), "route = ?");
    condition(filters.verdict.is_some(), "verdict = ?");
    condition(filters.created_gte.is_some(), "created_at >= ?");
    condition(filters.created_lte.is_some(), "created_at <= ?");
    condition(
        filters.search.is_some(),
        "(strpos(id, ?) > 0 OR strpos(client_request_id, ?) > 0)",
    );
    sql.push_str(filters.door.map_or("", door_condition));
    sql.push(' ');
    sql.push_str(&Page::newest_first("request_log"));
    let query = sqlx::query_as(&sql)
        .bind(merchant_id)
        .bind(page.starting_after.as_deref())
        .bind(page.fetch_limit());
    let query = match &filters.idempotency_key {
        Some(key) => query.bind(key),
        None => query,
    };
    let query = match filters.status {
        Some(status) => query.bind(status),
        None => query,
    };
    let query = match &filters.route {
        Some(route) => query.bind(route),
        None => query,
    };
    let query = match filters.verdict {
        Some(verdict) => query.bind(verdict.as_str()),
        None => query,
    };
    let query = match filters.created_gte {
        Some(at) => query.bind(at),
        None => query,
    };
    let query = match filters.created_lte {
        Some(at) => query.bind(at),
        None => query,
    };
    let query = match &filters.search {
        Some(text) => query.bind(text),
        None => query,
    };
    Ok(query.fetch_all(pool).await?)
}

/// One of the merchant's requests.
pub async fn find(
    pool: &PgPool,
    merchant_id: &MerchantId,
    id: &str,
) -> Result<Option<LoggedRequest>, Error> {
    Ok(sqlx::query_as(&format!(
        "SELECT {COLUMNS} FROM request_log WHERE merchant_id = $1 AND id = $2"
    ))
    .bind(merchant_id)
    .bind(id)
    .fetch_optional(pool)
    .await?)
}
