//! Events as the API shows them: the list, and one event with each of its deliveries (one per
//! endpoint it was sent to, plus one per redelivery) and every attempt of each.

use chrono::{DateTime, Utc};
use kaadxpay_types::ids::MerchantId;
use serde::Serialize;
use serde_json::Value;
use sqlx::types::Json;
use sqlx::{PgConnection, PgPool};
use uuid::Uuid;

use super::outbox;
use crate::contract::error::Error;
use crate::contract::pagination::{Filters, Page};
use crate::contract::schema::one_of;
use crate::history::audit::{self, Action, Entry, ObjectType};
use crate::idempotency::{Once, Ran, Resource, StoredResponse};
use crate::service::commands::{Caller, Command};
use crate::service::kernel::Kernel;

#[derive(Debug, Serialize, utoipa::ToSchema)]
pub struct Event {
    #[schema(value_type = String)]
    pub id: Uuid,
    /// Always `event`.
    pub object: &'static str,
    #[schema(value_type = crate::payments::events::KnownEventType)]
    pub event_type: String,
    #[serde(serialize_with = "crate::contract::timestamp::rfc3339")]
    pub created_at: DateTime<Utc>,
    /// `{"object": {...}}`, as in the body sent to endpoints.
    #[schema(value_type = EventData)]
    pub data: Value,
    /// `true` for a test event (`POST /v1/webhook-endpoints/{id}/test`), whose data is made up.
    pub test: bool,
    /// In `GET /v1/events/{event_id}` only.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(nullable = false)]
    pub deliveries: Option<Vec<Delivery>>,
}

/// An event's `data`: the object it reports, as the API shows it at the moment of the event.
#[derive(Serialize, utoipa::ToSchema)]
#[allow(dead_code)] // a schema only: the data is stored JSON, written by the outbox
pub struct EventData {
    object: ReportedObject,
}

#[derive(Serialize, utoipa::ToSchema)]
#[serde(untagged)]
#[allow(dead_code)]
enum ReportedObject {
    Order(crate::payments::orders::Order),
    Payout(Box<crate::payments::payouts::Payout>),
    Refund(Box<crate::payments::refunds::Refund>),
    TopUp(crate::payments::top_ups::TopUp),
}

#[derive(Debug, Serialize, utoipa::ToSchema)]
pub struct Delivery {
    #[schema(value_type = String)]
    pub id: Uuid,
    pub endpoint_id: String,
    pub url: String,
    #[schema(schema_with = delivery_statuses)]
    pub status: String,
    pub attempt_count: i32,
    /// When the next attempt is due, while `pending`.
    #[serde(serialize_with = "crate::contract::timestamp::rfc3339_option")]
    pub next_attempt_at: Option<DateTime<Utc>>,
    pub attempts: Vec<Attempt>,
}

fn delivery_statuses() -> utoipa::openapi::schema::Object {
    one_of(
        &["pending", "delivered", "failed", "disabled"],
        "`pending`, `delivered`, `failed` (retries exhausted) or `disabled` (endpoint gone).",
    )
}

#[derive(Debug, Serialize, utoipa::ToSchema)]
pub struct Attempt {
    /// The `kaadxpay-delivery-id` header this attempt carried.
    #[schema(value_type = String)]
    pub delivery_id: Uuid,
    #[serde(skip)]
    pub delivery: Uuid,
    /// The endpoint's HTTP status; none when no answer came (timeout, refused connection).
    pub status_code: Option<i16>,
    pub latency_ms: i32,
    pub error: Option<String>,
    #[serde(serialize_with = "crate::contract::timestamp::rfc3339")]
    pub at: DateTime<Utc>,
}

#[derive(sqlx::FromRow)]
struct EventRow {
    id: Uuid,
    event_type: String,
    created_at: DateTime<Utc>,
    data: Json<Value>,
    test: bool,
}

impl From<EventRow> for Event {
    fn from(row: EventRow) -> Self {
        Self {
            id: row.id,
            object: "event",
            event_type: row.event_type,
            created_at: row.created_at,
            data: row.data.0,
            test: row.test,
            deliveries: None,
        }
    }
}

/// A test event says so in its body (`"test": true`); no other event has the field.
const EVENT_COLUMNS: &str = "id, event_type, created_at, payload -> 'data' AS data, \
    coalesce((payload -> 'test')::boolean, false) AS test";

/// An event id from a path: anything that is not a UUID names no event.
pub fn parse_id(id: &str) -> Result<Uuid, Error> {
    Uuid::parse_str(id).map_err(|_| Error::ResourceMissing("event"))
}

/// The merchant's events, newest first: those made in `filters`' days, and, with a status, those
/// with a delivery in that status (`pending`, `delivered`, `failed`, `disabled`).
pub async fn list(
    pool: &PgPool,
    merchant_id: &MerchantId,
    filters: &Filters,
    page: &Page,
) -> Result<Vec<Event>, Error> {
    page.check_cursor(pool, "events", merchant_id).await?;
    let cursor = page.starting_after.as_deref().map(parse_id).transpose()?;
    let (start, end) = filters.period();
    let rows: Vec<EventRow> = sqlx::query_as(&format!(
        "SELECT {EVENT_COLUMNS} FROM events WHERE merchant_id = $1 \
           AND ($4::text IS NULL OR EXISTS (SELECT 1 FROM webhook_deliveries d \
                WHERE d.merchant_id = $1 AND d.event_id = events.id AND d.status = $4)) \
           AND ($5::timestamptz IS NULL OR created_at >= $5) \
           AND ($6::timestamptz IS NULL OR created_at < $6) {}",
        Page::newest_first("events")
    ))
    .bind(merchant_id)
    .bind(cursor)
    .bind(page.fetch_limit())
    .bind(filters.status.as_deref())
    .bind(start)
    .bind(end)
    .fetch_all(pool)
    .await?;
    Ok(rows.into_iter().map(Event::from).collect())
}

/// One of the merchant's events with its deliveries and their attempts.
pub async fn find(
    conn: &mut PgConnection,
    merchant_id: &MerchantId,
    id: Uuid,
) -> sqlx::Result<Option<Event>> {
    let row: Option<EventRow> = sqlx::query_as(&format!(
        "SELECT {EVENT_COLUMNS} FROM events WHERE merchant_id = $1 AND id = $2"
    ))
    .bind(merchant_id)
    .bind(id)
    .fetch_optional(&mut *conn)
    .await?;
    let Some(row) = row else { return Ok(None) };
    let mut deliveries: Vec<Delivery> = sqlx::query!(
        r#"SELECT d.id, d.endpoint_id, w.url, d.status, d.attempts AS attempt_count,
             CASE WHEN d.status = 'pending' THEN d.next_attempt_at END
               AS "next_attempt_at: DateTime<Utc>"
           FROM webhook_deliveries d JOIN webhook_endpoints w ON w.id = d.endpoint_id
           WHERE d.merchant_id = $1 AND d.event_id = $2 ORDER BY d.created_at, d.id"#,
        merchant_id.as_str(),
        id,
    )
    .fetch_all(&mut *conn)
    .await?
    .into_iter()
    .map(|delivery| Delivery {
        id: delivery.id,
        endpoint_id: delivery.endpoint_id,
        url: delivery.url,
        status: delivery.status,
        attempt_count: delivery.attempt_count,
        next_attempt_at: delivery.next_attempt_at,
        attempts: Vec::new(),
    })
    .collect();
    let attempts = sqlx::query_as!(
        Attempt,
        r#"SELECT a.id AS delivery_id, a.delivery_id AS delivery, a.status_code, a.latency_ms,
             a.error, a.at AS "at: DateTime<Utc>"
           FROM webhook_attempts a JOIN webhook_deliveries d ON d.id = a.delivery_id
           WHERE d.merchant_id = $1 AND d.event_id = $2 ORDER BY a.at, a.id"#,
        merchant_id.as_str(),
        id,
    )
    .fetch_all(&mut *conn)
    .await?;
    for attempt in attempts {
        if let Some(delivery) = deliveries.iter_mut().find(|d| d.id == attempt.delivery) {
            delivery.attempts.push(attempt);
        }
    }
    let mut event = Event::from(row);
    event.deliveries = Some(deliveries);
    Ok(Some(event))
}

pub async fn exists(pool: &PgPool, merchant_id: &MerchantId, id: Uuid) -> sqlx::Result<bool> {
    sqlx::query_scalar!(
        r#"SELECT EXISTS (SELECT 1 FROM events WHERE merchant_id = $1 AND id = $2) AS "exists!""#,
        merchant_id.as_str(),
        id,
    )
    .fetch_one(pool)
    .await
}

/// `POST /v1/events/{event_id}/redeliver`: send the event again, as a new delivery to each
/// live endpoint subscribed to it. The event is part of what makes two requests the same
/// request, since the route template is the same for every event.
#[derive(Debug, Clone, Copy, Serialize)]
pub struct RedeliverEvent {
    pub event_id: Uuid,
}

impl Command for RedeliverEvent {
    const ENDPOINT: &'static str = "POST /v1/events/{event_id}/redeliver";

    /// An event the merchant does not have is a `404` that leaves no record.
    async fn check(&self, state: &Kernel, merchant_id: &MerchantId) -> Result<(), Error> {
        if exists(&state.pool, merchant_id, self.event_id).await? {
            Ok(())
        } else {
            Err(Error::ResourceMissing("event"))
        }
    }

    /// A transaction of several statements: the new deliveries, the audit entry, the event as
    /// it now stands (the answer), then the record.
    async fn apply(&self, once: Once, caller: &Caller<'_>) -> Result<Ran, Error> {
        once.transaction(async |conn| {
            outbox::enqueue(conn, caller.merchant_id, self.event_id).await?;
            let event_id = self.event_id.to_string();
            let entry = Entry::new(
                caller.merchant_id,
                caller.by,
                Action::EventRedelivered,
                ObjectType::Event,
                &event_id,
            );
            audit::record(conn, &entry).await?;
            let event = find(conn, caller.merchant_id, self.event_id)
                .await?
                .ok_or(Error::ResourceMissing("event"))?;
            let resource = Resource::new("event", self.event_id.to_string());
            Ok(StoredResponse::ok(&event, resource))
        })
        .await
    }
}
