//! The partner's webhooks, applied exactly once: the event id goes into `partner_events` under
//! its primary key in the same transaction as the payout move it causes, so a repeated or
//! concurrent delivery of one event finds it there and changes nothing.

use sqlx::PgPool;

use super::payouts;
use crate::partner::wire::PartnerEvent;

/// What became of one delivery of a partner event.
#[derive(Debug, PartialEq, Eq)]
pub enum Applied {
    /// First delivery: recorded, and the payout moved if the event moves it.
    New,
    /// Seen before: nothing changed.
    Duplicate,
}

pub async fn apply(pool: &PgPool, event: &PartnerEvent) -> sqlx::Result<Applied> {
    let transfer = &event.data.transfer;
    let mut tx = pool.begin().await?;
    let payout: Option<(String, String)> =
        sqlx::query_as("SELECT id, merchant_id FROM payouts WHERE id = $1")
            .bind(&transfer.reference)
            .fetch_optional(&mut *tx)
            .await?;
    let (payout_id, merchant_id) = payout.unzip();
    let inserted = sqlx::query(
        "INSERT INTO partner_events (event_id, event_type, transfer_id, merchant_id, payout_id) \
         VALUES ($1, $2, $3, $4, $5) ON CONFLICT (event_id) DO NOTHING",
    )
    .bind(&event.event_id)
    .bind(&event.event_type)
    .bind(&transfer.id)
    .bind(&merchant_id)
    .bind(&payout_id)
    .execute(&mut *tx)
    .await?;
    if inserted.rows_affected() == 0 {
        return Ok(Applied::Duplicate);
    }
    if let Some(payout_id) = &payout_id {
        match event.event_type.as_str() {
            "transfer.paid" => {
                payouts::mark_paid(&mut tx, payout_id, &transfer.id).await?;
            }
            "transfer.failed" => {
                payouts::mark_failed(&mut tx, payout_id, Some(&transfer.id), "partner_failed")
                    .await?;
            }
            "transfer.reversed" => {
                payouts::mark_reversed(&mut tx, payout_id).await?;
            }
            other => tracing::warn!(
                event_type = other,
                "ignoring a partner event of an unknown type"
            ),
        }
    } else {
        tracing::warn!(
            transfer_id = transfer.id,
            reference = transfer.reference,
            "a partner event about a transfer we never asked for"
        );
    }
    tx.commit().await?;
    Ok(Applied::New)
}
