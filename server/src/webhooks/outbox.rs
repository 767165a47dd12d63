//! The transactional outbox: [`publish`] writes an event and one pending delivery per
//! subscribed endpoint on the caller's connection, inside the caller's transaction, so that an
//! event exists exactly when the change it reports was committed; [`publishing`] does the same
//! inside a larger statement. The dispatcher sends later. What the events are is the domain's
//! (`payments::events`).

use kaadxpay_types::ids::MerchantId;
use std::fmt;
use std::sync::LazyLock;

use chrono::{DateTime, SubsecRound, Utc};
use kaadxpay_idempotency::{Param, Statement};
use serde::Serialize;
use serde_json::value::RawValue;
use sqlx::types::Json;
use sqlx::PgConnection;
use uuid::Uuid;

use crate::payments::events::EventType;

/// The body of every attempt: `{"event_id", "event_type", "created_at", "data": {"object"}}`.
#[derive(Serialize)]
struct Envelope<'a, T: Serialize> {
    event_id: Uuid,
    event_type: &'static str,
    #[serde(serialize_with = "crate::contract::timestamp::rfc3339")]
    created_at: DateTime<Utc>,
    data: Data<'a, T>,
    /// Marks an event sent by `POST …/test` (absent otherwise).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    test: bool,
}

#[derive(Serialize)]
struct Data<'a, T: Serialize> {
    object: &'a T,
}

/// An event about to be written: its id, its instant and the body every attempt will send.
pub struct NewEvent {
    pub id: Uuid,
    pub event_type: EventType,
    pub created_at: DateTime<Utc>,
    /// The body, serialised once: an object already serialised (the answer's bytes) is
    /// written into it as it is ([`RawValue`]).
    pub payload: Box<RawValue>,
}

impl NewEvent {
    /// That `event_type` happened to `object`, now.
    pub fn of(event_type: EventType, object: &impl Serialize) -> Self {
        Self::made(event_type, object, false)
    }

    /// [`NewEvent::of`], its body marked `"test": true`.
    pub fn test(event_type: EventType, object: &impl Serialize) -> Self {
        Self::made(event_type, object, true)
    }

    fn made(event_type: EventType, object: &impl Serialize, test: bool) -> Self {
        let id = Uuid::new_v4();
        // PostgreSQL keeps microseconds: the body and the column then say the same instant.
        let created_at = Utc::now().trunc_subsecs(6);
        let envelope = Envelope {
            event_id: id,
            event_type: event_type.as_str(),
            created_at,
            data: Data { object },
            test,
        };
        Self {
            id,
            event_type,
            created_at,
            payload: serde_json::value::to_raw_value(&envelope).expect("an event serialises"),
        }
    }
}

/// The CTEs (preceded by `, `) that publish `event` once for each row of the CTE `gate` (none
/// when `gate` is empty) for the merchant whose id is `merchant`: `new_event` writes the event,
/// and `new_deliveries` its pending deliveries.
pub fn publishing(statement: &mut Statement, gate: &str, merchant: Param, event: &NewEvent) {
    let id = statement.bind(event.id);
    let kind = statement.bind(event.event_type.as_str());
    let payload = statement.bind(Json(&*event.payload));
    let at = statement.bind(event.created_at);
    statement.push(format_args!(
        ", new_event AS ( \
           INSERT INTO events (id, merchant_id, event_type, payload, created_at) \
           SELECT {id}, {merchant}, {kind}, {payload}, {at} FROM {gate} \
           RETURNING id, merchant_id, event_type), \
         new_deliveries AS ({})",
        deliveries_of("new_event e")
    ));
}

/// A pending delivery of each event of `events` (a relation aliased `e`) to each live endpoint
/// of its merchant that subscribes to its type.
fn deliveries_of(events: &str) -> impl fmt::Display + '_ {
    fmt::from_fn(move |f| {
        write!(
            f,
            "INSERT INTO webhook_deliveries (id, merchant_id, event_id, endpoint_id, status) \
             SELECT gen_random_uuid(), w.merchant_id, e.id, w.id, 'pending' \
             FROM {events} JOIN webhook_endpoints w ON w.merchant_id = e.merchant_id \
             WHERE w.disabled_at IS NULL AND w.deleted_at IS NULL \
               AND ('*' = ANY (w.events) OR e.event_type = ANY (w.events)) \
             RETURNING 1"
        )
    })
}

/// Records that `event_type` happened to `object`, in the caller's transaction, with a
/// pending delivery for each of the merchant's live endpoints that subscribe to it: one
/// statement.
pub async fn publish(
    conn: &mut PgConnection,
    merchant_id: &MerchantId,
    event_type: EventType,
    object: &impl Serialize,
) -> sqlx::Result<Uuid> {
    let event = NewEvent::of(event_type, object);
    let mut statement = Statement::new();
    let merchant = statement.bind(merchant_id);
    statement.push("WITH one AS (SELECT 1)");
    publishing(&mut statement, "one", merchant, &event);
    statement.push(" SELECT 1");
    statement.query()?.execute(conn).await?;
    Ok(event.id)
}

/// Makes a new pending delivery of the event to each live endpoint subscribed to its type;
/// returns how many. Used when an event is redelivered.
pub async fn enqueue(
    conn: &mut PgConnection,
    merchant_id: &MerchantId,
    event_id: Uuid,
) -> sqlx::Result<u64> {
    static STATEMENT: LazyLock<String> = LazyLock::new(|| {
        deliveries_of(
            "(SELECT id, merchant_id, event_type FROM events WHERE merchant_id = $1 AND id = $2) e",
        )
        .to_string()
    });
    Ok(sqlx::query(&STATEMENT)
        .bind(merchant_id)
        .bind(event_id)
        .execute(conn)
        .await?
        .rows_affected())
}
