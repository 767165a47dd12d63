//! The transactional outbox: [`publish`] writes an event and one pending delivery per
//! subscribed endpoint on the caller's connection, inside the caller's transaction, so that an
//! event exists exactly when the change it reports was committed. The dispatcher sends later.

use chrono::{DateTime, SubsecRound, Utc};
use serde::Serialize;
use sqlx::types::Json;
use sqlx::PgConnection;
use uuid::Uuid;

/// What happened; its name (`order.created`, ...) is the `event_type` merchants see.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EventType {
    OrderCreated,
    OrderCaptured,
    OrderCancelled,
    PayoutCreated,
    PayoutInTransit,
    PayoutPaid,
    PayoutFailed,
    PayoutReversed,
}

impl EventType {
    pub const ALL: [EventType; 8] = [
        Self::OrderCreated,
        Self::OrderCaptured,
        Self::OrderCancelled,
        Self::PayoutCreated,
        Self::PayoutInTransit,
        Self::PayoutPaid,
        Self::PayoutFailed,
        Self::PayoutReversed,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Self::OrderCreated => "order.created",
            Self::OrderCaptured => "order.captured",
            Self::OrderCancelled => "order.cancelled",
            Self::PayoutCreated => "payout.created",
            Self::PayoutInTransit => "payout.in_transit",
            Self::PayoutPaid => "payout.paid",
            Self::PayoutFailed => "payout.failed",
            Self::PayoutReversed => "payout.reversed",
        }
    }

    pub fn parse(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|kind| kind.as_str() == name)
    }
}

/// The body of every attempt: `{"event_id", "event_type", "created_at", "data": {"object"}}`.
#[derive(Serialize)]
struct Envelope<'a, T: Serialize> {
    event_id: Uuid,
    event_type: &'static str,
    created_at: DateTime<Utc>,
    data: Data<'a, T>,
}

#[derive(Serialize)]
struct Data<'a, T: Serialize> {
    object: &'a T,
}

/// Records that `event_type` happened to `object`, in the caller's transaction, with a
/// pending delivery for each of the merchant's live endpoints that subscribe to it.
pub async fn publish(
    conn: &mut PgConnection,
    merchant_id: &str,
    event_type: EventType,
    object: &impl Serialize,
) -> sqlx::Result<Uuid> {
    let event_id = Uuid::new_v4();
    // PostgreSQL keeps microseconds: the body and the column then say the same instant.
    let created_at = Utc::now().trunc_subsecs(6);
    let envelope = Envelope {
        event_id,
        event_type: event_type.as_str(),
        created_at,
        data: Data { object },
    };
    sqlx::query(
        "INSERT INTO events (id, merchant_id, event_type, payload, created_at) \
         VALUES ($1, $2, $3, $4, $5)",
    )
    .bind(event_id)
    .bind(merchant_id)
    .bind(event_type.as_str())
    .bind(Json(&envelope))
    .bind(created_at)
    .execute(&mut *conn)
    .await?;
    enqueue(conn, merchant_id, event_id).await?;
    Ok(event_id)
}

/// Makes a new pending delivery of the event to each live endpoint subscribed to its type;
/// returns how many. Used when the event is published and when it is redelivered.
pub async fn enqueue(
    conn: &mut PgConnection,
    merchant_id: &str,
    event_id: Uuid,
) -> sqlx::Result<u64> {
    Ok(sqlx::query(
        "INSERT INTO webhook_deliveries (id, merchant_id, event_id, endpoint_id, status) \
         SELECT gen_random_uuid(), w.merchant_id, e.id, w.id, 'pending' \
         FROM events e JOIN webhook_endpoints w ON w.merchant_id = e.merchant_id \
         WHERE e.merchant_id = $1 AND e.id = $2 \
           AND w.disabled_at IS NULL AND w.deleted_at IS NULL \
           AND ('*' = ANY (w.events) OR e.event_type = ANY (w.events))",
    )
    .bind(merchant_id)
    .bind(event_id)
    .execute(conn)
    .await?
    .rows_affected())
}
