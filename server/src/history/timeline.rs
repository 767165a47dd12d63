//! Timelines: what happened to a key and to the payout or order it made, in time order, read
//! from the history the product already keeps (the request log, the key's record, the partner
//! calls, the partner's webhooks, the events sent to the merchant and their delivery attempts,
//! reconciliation items and reversals). Every query is scoped to one merchant. Read only.
//!
//! A moment is data (what happened, with its facts), never a sentence: the console writes it in
//! its reader's language, and the API gives it as it is, for programs.

use chrono::{DateTime, Utc};
use kaadxpay_types::ids::MerchantId;
use serde::Serialize;
use sqlx::types::Json;
use sqlx::PgPool;

use kaadxpay_types::{KeyStatus, Moment};

use crate::idempotency::record::KeyRecord;

/// One thing that happened.
#[derive(Debug, Clone, Serialize, utoipa::ToSchema)]
pub struct Entry {
    #[serde(serialize_with = "crate::contract::timestamp::rfc3339")]
    pub at: DateTime<Utc>,
    /// What happened: `moment` names it, its other fields are its facts.
    #[serde(flatten)]
    pub moment: Moment,
    /// The id of what it names (a request, event, delivery attempt, transfer or run), if any.
    pub reference: Option<String>,
    /// Milliseconds since the entry before it (0 for the first).
    pub after_ms: i64,
}

/// A payout or an order: the resources whose life a timeline follows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Resource<'a> {
    Payout(&'a str),
    Order(&'a str),
}

/// A moment as read from the history, before it is put in order.
struct Row {
    at: DateTime<Utc>,
    moment: Json<Moment>,
    reference: Option<String>,
}

/// The requests that came with `key`, the record's state, and the life of what it made.
pub async fn of_key(
    pool: &PgPool,
    merchant_id: &MerchantId,
    record: &KeyRecord,
) -> sqlx::Result<Vec<Entry>> {
    // Read back typed, as every moment's codes are: one that is none of ours fails the timeline.
    let status = KeyStatus::try_from(record.status.clone())
        .map_err(|unknown| sqlx::Error::Decode(unknown.into()))?;
    let mut rows = requests(pool, merchant_id, &record.key).await?;
    let moment = |at, moment| Row {
        at,
        moment: Json(moment),
        reference: None,
    };
    rows.push(moment(
        record.created_at,
        Moment::RecordStored {
            endpoint: record.endpoint.clone(),
        },
    ));
    if record.updated_at > record.created_at {
        rows.push(moment(
            record.updated_at,
            Moment::RecordChanged {
                status,
                error: record.error.clone(),
            },
        ));
    }
    if status == KeyStatus::Expired {
        rows.push(moment(
            record.expires_at,
            Moment::RecordChanged {
                status,
                error: None,
            },
        ));
    }
    let resource = record
        .resource
        .as_ref()
        .and_then(|link| match &link.kind[..] {
            "payout" => Some(Resource::Payout(&link.id)),
            "order" => Some(Resource::Order(&link.id)),
            _ => None,
        });
    if let Some(resource) = resource {
        rows.extend(life(pool, merchant_id, resource).await?);
    }
    Ok(in_order(rows))
}

/// The requests that came with the resource's key and the resource's life; `None` when the
/// merchant has no such resource.
pub async fn of_resource(
    pool: &PgPool,
    merchant_id: &MerchantId,
    resource: Resource<'_>,
) -> sqlx::Result<Option<Vec<Entry>>> {
    let mut rows = life(pool, merchant_id, resource).await?;
    if rows.is_empty() {
        return Ok(None);
    }
    let key: Option<String> = match resource {
        Resource::Payout(id) => {
            sqlx::query_scalar!(
                "SELECT idempotency_key FROM payouts WHERE merchant_id = $1 AND id = $2",
                merchant_id.as_str(),
                id,
            )
            .fetch_optional(pool)
            .await?
        }
        Resource::Order(id) => {
            sqlx::query_scalar!(
                "SELECT key FROM idempotency_keys WHERE merchant_id = $1 AND resource_id = $2",
                merchant_id.as_str(),
                id,
            )
            .fetch_optional(pool)
            .await?
        }
    };
    if let Some(key) = key {
        rows.extend(requests(pool, merchant_id, &key).await?);
    }
    Ok(Some(in_order(rows)))
}

/// The request log's entries for one key.
async fn requests(pool: &PgPool, merchant_id: &MerchantId, key: &str) -> sqlx::Result<Vec<Row>> {
    sqlx::query_as!(
        Row,
        r#"SELECT created_at AS "at!: DateTime<Utc>",
             jsonb_build_object('moment', 'request', 'route', route,
               'status', status, 'verdict', verdict, 'error_code', error_code,
               'latency_ms', round(latency_ms::numeric, 1)) AS "moment!: Json<Moment>",
             id AS "reference?"
           FROM request_log WHERE merchant_id = $1 AND idempotency_key = $2"#,
        merchant_id.as_str(),
        key,
    )
    .fetch_all(pool)
    .await
}

/// A resource's own moments (payouts: the partner calls and webhooks, reconciliation and
/// reversals), then the events sent about it and each delivery attempt.
async fn life(
    pool: &PgPool,
    merchant_id: &MerchantId,
    resource: Resource<'_>,
) -> sqlx::Result<Vec<Row>> {
    // The resource's creation comes first (its row is what the events are found from).
    let (mut rows, id) = match resource {
        Resource::Payout(id) => {
            let rows = sqlx::query_as!(
                Row,
                "\
                SELECT created_at AS \"at!: DateTime<Utc>\", \
                  jsonb_build_object('moment', 'payout_created', 'amount', amount, \
                  'currency', currency, 'partner_key', partner_key) AS \"moment!: Json<Moment>\", \
                  id AS \"reference?\" \
                FROM payouts WHERE merchant_id = $1 AND id = $2 \
                UNION ALL \
                SELECT at, jsonb_build_object('moment', 'partner_call', 'call', call, \
                  'partner_key', partner_key, 'answer', answer, 'latency_ms', latency_ms), NULL \
                FROM partner_calls WHERE merchant_id = $1 AND transfer_of = $2 \
                UNION ALL \
                SELECT received_at, jsonb_build_object('moment', 'partner_webhook', \
                  'event_type', event_type, 'transfer_id', transfer_id), event_id \
                FROM partner_events WHERE merchant_id = $1 AND transfer_of = $2 \
                UNION ALL \
                SELECT r.created_at, jsonb_build_object('moment', 'reconciliation', 'run_date', r.run_date, \
                  'item', i.kind, 'action', i.action, 'transfer_id', i.transfer_id), r.id \
                FROM reconciliation_items i JOIN reconciliation_runs r ON r.id = i.run_id \
                WHERE i.merchant_id = $1 AND i.transfer_of = $2 \
                UNION ALL \
                SELECT coalesce(reversed_at, created_at), jsonb_build_object('moment', 'reversal', \
                  'transfer_id', transfer_id, 'state', state), transfer_id \
                FROM partner_reversals WHERE merchant_id = $1 AND transfer_of = $2 \
                ORDER BY 1",
                merchant_id.as_str(),
                id,
            )
            .fetch_all(pool)
            .await?;
            (rows, id)
        }
        Resource::Order(id) => {
            let rows = sqlx::query_as!(
                Row,
                "\
                SELECT created_at AS \"at!: DateTime<Utc>\", \
                  jsonb_build_object('moment', 'order_created', 'amount', amount, \
                  'currency', currency) AS \"moment!: Json<Moment>\", id AS \"reference?\" \
                FROM orders WHERE merchant_id = $1 AND id = $2",
                merchant_id.as_str(),
                id,
            )
            .fetch_all(pool)
            .await?;
            (rows, id)
        }
    };
    if let Some(created) = rows.first().map(|row| row.at) {
        // Events about the object, and about an order's refunds (which name it as `order`),
        // from its creation on, so the merchant's index bounds the scan, and every attempt to
        // deliver them.
        let events = sqlx::query_as!(
            Row,
            "\
            WITH about AS ( \
              SELECT id, event_type, created_at FROM events \
              WHERE merchant_id = $1 AND created_at >= $3 \
                AND (payload->'data'->'object'->>'id' = $2 \
                     OR payload->'data'->'object'->>'order' = $2)) \
            SELECT created_at AS \"at!: DateTime<Utc>\", \
              jsonb_build_object('moment', 'event_sent', 'event_type', event_type) \
                AS \"moment!: Json<Moment>\", \
              id::text AS \"reference?\" FROM about \
            UNION ALL \
            SELECT a.at, jsonb_build_object('moment', 'delivery', 'event_type', about.event_type, \
              'url', e.url, 'status_code', a.status_code, 'error', a.error, 'latency_ms', a.latency_ms), \
              a.id::text \
            FROM about JOIN webhook_deliveries d ON d.event_id = about.id \
              JOIN webhook_attempts a ON a.delivery_id = d.id \
              JOIN webhook_endpoints e ON e.id = d.endpoint_id",
            merchant_id.as_str(),
            id,
            created as _,
        )
        .fetch_all(pool)
        .await?;
        rows.extend(events);
    }
    Ok(rows)
}

/// Sorted by time, with the time since the entry before.
fn in_order(mut rows: Vec<Row>) -> Vec<Entry> {
    rows.sort_by_key(|row| row.at);
    let mut previous = rows.first().map(|row| row.at);
    rows.into_iter()
        .map(
            |Row {
                 at,
                 moment: Json(moment),
                 reference,
             }| {
                let after_ms = previous.map_or(0, |before| (at - before).num_milliseconds());
                previous = Some(at);
                Entry {
                    at,
                    moment,
                    reference,
                    after_ms,
                }
            },
        )
        .collect()
}
