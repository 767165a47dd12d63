//! Webhook endpoints: a merchant's URLs with the event types each subscribes to and its signing
//! secret (shown once, when created). An endpoint stops receiving when it is deleted or when it
//! answers `410 Gone` (disabled); its pending deliveries stop with it, its history stays.

use chrono::{DateTime, Utc};
use reqwest::Url;
use serde::Serialize;
use sqlx::{PgConnection, PgPool};

use super::destination;
use super::outbox::EventType;
use super::signature;
use crate::http::body::{as_str, JsonBody};
use crate::http::error::ApiError;
use crate::http::list::Page;
use crate::ids::new_id;

/// Subscribes to every event type.
const ALL_EVENTS: &str = "*";

#[derive(Debug, Serialize, sqlx::FromRow, utoipa::ToSchema)]
pub struct Endpoint {
    pub id: String,
    /// Always `webhook_endpoint`.
    pub object: String,
    pub url: String,
    /// Event types it receives; `*` is all of them.
    pub events: Vec<String>,
    /// `enabled`, or `disabled` after it answered `410 Gone`.
    pub status: String,
    /// The signing secret, in the answer to its creation only.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub secret: Option<String>,
    pub created_at: DateTime<Utc>,
    pub disabled_at: Option<DateTime<Utc>>,
}

const ENDPOINT_COLUMNS: &str = "id, 'webhook_endpoint' AS object, url, events, \
    CASE WHEN disabled_at IS NULL THEN 'enabled' ELSE 'disabled' END AS status, \
    created_at, disabled_at";

/// A validated `POST /v1/webhook-endpoints` body.
pub struct NewEndpoint {
    /// As the merchant wrote it, which is what is stored and shown.
    url: String,
    /// As the sender reads it (see [`destination::parse`]).
    destination: Url,
    events: Vec<String>,
}

impl NewEndpoint {
    pub fn destination(&self) -> &Url {
        &self.destination
    }

    pub fn parse(body: &JsonBody) -> Result<Self, ApiError> {
        let fields = body.fields(&["url", "events"])?;
        let url = fields.required_str("url")?;
        let destination = destination::parse(url).ok_or_else(|| {
            ApiError::invalid("url", "url must be an absolute http:// or https:// URL.")
        })?;
        Ok(Self {
            url: url.to_owned(),
            destination,
            events: parse_events(fields.optional("events"))?,
        })
    }
}

fn parse_events(value: Option<&serde_json::Value>) -> Result<Vec<String>, ApiError> {
    let Some(value) = value else {
        return Ok(vec![ALL_EVENTS.to_owned()]);
    };
    let names = value
        .as_array()
        .filter(|names| !names.is_empty())
        .ok_or_else(|| {
            ApiError::invalid("events", "events must be a non-empty array of event types.")
        })?;
    let mut events: Vec<String> = Vec::with_capacity(names.len());
    for (index, name) in names.iter().enumerate() {
        let param = format!("events[{index}]");
        let name = as_str(&param, name)?;
        if name != ALL_EVENTS && EventType::parse(name).is_none() {
            let known: Vec<&str> = EventType::ALL.iter().map(|kind| kind.as_str()).collect();
            return Err(ApiError::invalid(
                &param,
                format!(
                    "Unknown event type {name}; use `*` or one of {}.",
                    known.join(", ")
                ),
            ));
        }
        if !events.iter().any(|seen| seen == name) {
            events.push(name.to_owned());
        }
    }
    Ok(events)
}

/// Creates the endpoint with a new secret; the answer is the only one that carries it.
pub async fn insert(
    conn: &mut PgConnection,
    merchant_id: &str,
    endpoint: &NewEndpoint,
) -> sqlx::Result<Endpoint> {
    sqlx::query_as(&format!(
        "INSERT INTO webhook_endpoints (id, merchant_id, url, events, secret) \
         VALUES ($1, $2, $3, $4, $5) RETURNING {ENDPOINT_COLUMNS}, secret"
    ))
    .bind(new_id("whe"))
    .bind(merchant_id)
    .bind(&endpoint.url)
    .bind(&endpoint.events)
    .bind(signature::new_secret())
    .fetch_one(conn)
    .await
}

pub async fn find(pool: &PgPool, merchant_id: &str, id: &str) -> sqlx::Result<Option<Endpoint>> {
    sqlx::query_as(&format!(
        "SELECT {ENDPOINT_COLUMNS}, NULL::text AS secret FROM webhook_endpoints \
         WHERE merchant_id = $1 AND id = $2 AND deleted_at IS NULL"
    ))
    .bind(merchant_id)
    .bind(id)
    .fetch_optional(pool)
    .await
}

/// The merchant's endpoints that are not deleted, newest first.
pub async fn list(
    pool: &PgPool,
    merchant_id: &str,
    page: &Page,
) -> Result<Vec<Endpoint>, ApiError> {
    page.check_cursor(pool, "webhook_endpoints", merchant_id)
        .await?;
    Ok(sqlx::query_as(&format!(
        "SELECT {ENDPOINT_COLUMNS}, NULL::text AS secret FROM webhook_endpoints \
         WHERE merchant_id = $1 AND deleted_at IS NULL {}",
        Page::newest_first("webhook_endpoints")
    ))
    .bind(merchant_id)
    .bind(page.starting_after.as_deref())
    .bind(page.fetch_limit())
    .fetch_all(pool)
    .await?)
}

/// Deletes the endpoint and stops its pending deliveries; `false` when there is no such endpoint.
pub async fn delete(pool: &PgPool, merchant_id: &str, id: &str) -> sqlx::Result<bool> {
    let mut tx = pool.begin().await?;
    let deleted = sqlx::query(
        "UPDATE webhook_endpoints SET deleted_at = now() \
         WHERE merchant_id = $1 AND id = $2 AND deleted_at IS NULL",
    )
    .bind(merchant_id)
    .bind(id)
    .execute(&mut *tx)
    .await?
    .rows_affected()
        == 1;
    if deleted {
        stop_deliveries(&mut tx, merchant_id, id).await?;
        tx.commit().await?;
    }
    Ok(deleted)
}

/// Disables the endpoint (it answered `410 Gone`) and stops its pending deliveries.
pub async fn disable(conn: &mut PgConnection, merchant_id: &str, id: &str) -> sqlx::Result<()> {
    sqlx::query(
        "UPDATE webhook_endpoints SET disabled_at = coalesce(disabled_at, now()) \
         WHERE merchant_id = $1 AND id = $2",
    )
    .bind(merchant_id)
    .bind(id)
    .execute(&mut *conn)
    .await?;
    stop_deliveries(conn, merchant_id, id).await
}

async fn stop_deliveries(
    conn: &mut PgConnection,
    merchant_id: &str,
    endpoint_id: &str,
) -> sqlx::Result<()> {
    sqlx::query(
        "UPDATE webhook_deliveries SET status = 'disabled', lease_token = NULL, locked_until = NULL, \
           updated_at = now() \
         WHERE merchant_id = $1 AND endpoint_id = $2 AND status = 'pending'",
    )
    .bind(merchant_id)
    .bind(endpoint_id)
    .execute(conn)
    .await?;
    Ok(())
}
