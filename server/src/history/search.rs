//! Support's search across merchants: the payouts, orders and idempotency keys that any
//! identifier leads to (API.md §9): an id, a partner transfer id, an end-to-end key
//! (`kxp-…`), a request id, or the id of an event, a delivery or a delivery attempt about one of
//! them; a key also by its prefix or its merchant. A refund's identifiers lead to the order it
//! refunds, whose timeline has its moments. Read only, at most 100 hits, newest first.
//! Only merchants' keys: the keys support staff use together (running reconciliation now) are
//! no merchant's, and their runs are on `/reconciliation`.

use std::time::Duration;

use chrono::{DateTime, Utc};
use sqlx::PgPool;

/// What a hit is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Payout,
    Order,
    Key,
}

/// One thing found: its merchant, its id (a key's name for a key), a line about it (an amount,
/// or a key's endpoint), its status and when it was made.
#[derive(Debug, Clone)]
pub struct Hit {
    pub kind: Kind,
    pub merchant_id: String,
    pub name: String,
    pub detail: String,
    pub status: String,
    pub created_at: DateTime<Utc>,
}

/// What `text` leads to, with the given status (`""` for any) and made from `from` to `to`
/// (`YYYY-MM-DD`, inclusive; `""` for no bound); keys expire `key_ttl` after they were made.
pub async fn across_merchants(
    pool: &PgPool,
    key_ttl: Duration,
    text: &str,
    status: &str,
    from: &str,
    to: &str,
) -> sqlx::Result<Vec<Hit>> {
    let text = text.trim();
    // The payouts, orders and keys any identifier leads to ($1 the text, $5 the text as a UUID
    // for events, deliveries and delivery attempts), filtered by status ($2) and creation date
    // ($3, $4); a key expires `$6` seconds after it was made.
    let rows = sqlx::query!(
        "\
        WITH sent_ids AS ( \
          SELECT merchant_id, id FROM outgoing_transfers \
          WHERE id = $1 OR partner_transfer_id = $1 OR partner_key = $1 \
          UNION SELECT merchant_id, transfer_of FROM partner_events \
          WHERE transfer_id = $1 AND transfer_of IS NOT NULL \
          UNION SELECT merchant_id, transfer_of FROM reconciliation_items \
          WHERE transfer_id = $1 AND transfer_of IS NOT NULL AND merchant_id IS NOT NULL \
          UNION SELECT merchant_id, transfer_of FROM partner_reversals WHERE transfer_id = $1), \
        about AS ( \
          SELECT merchant_id, split_part(event_type, '.', 1) AS kind, \
            payload->'data'->'object'->>'id' AS id \
          FROM events \
          WHERE id = $5 \
             OR id = (SELECT event_id FROM webhook_deliveries WHERE id = $5) \
             OR id = (SELECT d.event_id FROM webhook_attempts a \
                      JOIN webhook_deliveries d ON d.id = a.delivery_id WHERE a.id = $5)), \
        hits AS ( \
          SELECT 'payout' AS kind, merchant_id, id AS name, amount || ' ' || currency AS detail, \
            status, created_at \
          FROM payouts \
          WHERE (merchant_id, id) IN (SELECT merchant_id, id FROM sent_ids \
                                      UNION SELECT merchant_id, id FROM about WHERE kind = 'payout') \
          UNION ALL \
          SELECT 'order', merchant_id, id, amount || ' ' || currency, status, created_at \
          FROM orders \
          WHERE id = $1 OR (merchant_id, id) IN (SELECT merchant_id, id FROM about WHERE kind = 'order') \
             OR (merchant_id, id) IN (SELECT merchant_id, order_id FROM refunds \
                                      WHERE (merchant_id, id) IN (SELECT merchant_id, id FROM sent_ids \
                                        UNION SELECT merchant_id, id FROM about WHERE kind = 'refund')) \
          UNION ALL \
          SELECT 'key', merchant_id, key, endpoint::text, \
            CASE WHEN created_at + make_interval(secs => $6) <= now() THEN 'expired' ELSE status::text END, \
            created_at \
          FROM idempotency_keys \
          WHERE merchant_id IN (SELECT id FROM merchants) \
            AND ($1 = '' OR key = $1 OR merchant_id = $1 \
             OR key LIKE replace(replace($1, '%', '\\%'), '_', '\\_') || '%' \
             OR (merchant_id, key) IN (SELECT merchant_id, idempotency_key FROM request_log WHERE id = $1))) \
        SELECT kind AS \"kind!\", merchant_id AS \"merchant_id!\", name AS \"name!\", \
          detail AS \"detail!\", status AS \"status!\", \
          created_at AS \"created_at!: DateTime<Utc>\" FROM hits \
        WHERE ($2 = '' OR status = $2) \
          AND ($3 = '' OR created_at >= $3::date) \
          AND ($4 = '' OR created_at < $4::date + 1) \
        ORDER BY created_at DESC LIMIT 100",
        text,
        status,
        from,
        to,
        uuid::Uuid::parse_str(text).ok(),
        key_ttl.as_secs_f64(),
    )
    .fetch_all(pool)
    .await?;
    Ok(rows
        .into_iter()
        .map(|row| Hit {
            kind: match &row.kind[..] {
                "payout" => Kind::Payout,
                "order" => Kind::Order,
                _ => Kind::Key,
            },
            merchant_id: row.merchant_id,
            name: row.name,
            detail: row.detail,
            status: row.status,
            created_at: row.created_at,
        })
        .collect())
}
