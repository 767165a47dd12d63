//! The partner's webhooks, applied exactly once: the event id goes into `partner_events` under
//! its primary key in the same transaction as the payout move it causes, so a repeated or
//! concurrent delivery of one event finds it there and changes nothing (a repeated one is
//! answered before the partner is asked anything).
//!
//! Payouts' and refunds' transfers alike (`outgoing_transfers`; a refund's transfer paid makes
//! it `succeeded`, failed or returned makes it `failed`).
//!
//! An event moves a payout only when it is about the payout's own transfer: the one the payout
//! recorded, or, while it has recorded none yet (its create answer was lost), the earliest
//! transfer the partner made with the payout's end-to-end key, which is reconciliation's rule
//! too. That is resolved before the event is applied, by asking the partner for its transfers of
//! every day from the day before the payout was made to the transfer's day (all the transfers
//! made with its key are among them). When the partner cannot answer, or does not list the
//! event's transfer yet, the event is not recorded and the webhook answers `503`: the partner
//! sends it again later, when it can be told. An event about any other transfer (a duplicate
//! made by a partner that ignores keys) is recorded and moves nothing: reconciliation deals with
//! duplicates.

use chrono::{DateTime, Days, Utc};
use kaadxpay_types::ids::MerchantId;
use sqlx::PgPool;

use super::outgoing::{Mover, Outgoing, To, TransferOf};
use kaadxpay_partner::client::{PartnerClient, PartnerError};
use kaadxpay_partner::wire::{PartnerEvent, Transfer};

/// What became of one delivery of a partner event.
#[derive(Debug, PartialEq, Eq)]
pub enum Applied {
    /// First delivery: recorded, and the payout moved if the event moves it.
    New,
    /// Seen before: nothing changed.
    Duplicate,
}

#[derive(Debug, thiserror::Error)]
pub enum EventError {
    #[error(transparent)]
    Database(#[from] sqlx::Error),
    /// Whose transfer the event is about cannot be told now: why.
    #[error("cannot tell whether the transfer is the payout's own: {0}")]
    Unresolved(String),
}

/// The payout or refund whose transfer an event names, as sent.
struct SentOfEvent {
    of: TransferOf,
    merchant_id: MerchantId,
    partner_key: String,
    partner_transfer_id: Option<String>,
    created_at: DateTime<Utc>,
}

pub async fn apply(
    pool: &PgPool,
    partner: &PartnerClient,
    event: &PartnerEvent,
) -> Result<Applied, EventError> {
    let transfer = &event.data.transfer;
    // A repeated event needs no answer from the partner (the insert below settles a race).
    let seen = sqlx::query_scalar!(
        r#"SELECT EXISTS (SELECT 1 FROM partner_events WHERE event_id = $1) AS "seen!""#,
        event.event_id,
    )
    .fetch_one(pool)
    .await?;
    if seen {
        return Ok(Applied::Duplicate);
    }
    let sent = sqlx::query_as!(
        SentOfEvent,
        r#"SELECT id AS "of!: TransferOf", merchant_id AS "merchant_id!: MerchantId",
             partner_key AS "partner_key!", partner_transfer_id,
             created_at AS "created_at!: DateTime<Utc>"
           FROM outgoing_transfers WHERE id = $1"#,
        transfer.reference,
    )
    .fetch_optional(pool)
    .await?;
    let own = match &sent {
        Some(sent) => is_own_transfer(partner, sent, transfer).await?,
        None => false,
    };
    let mut tx = pool.begin().await?;
    let inserted = sqlx::query!(
        "INSERT INTO partner_events (event_id, event_type, transfer_id, merchant_id, transfer_of) \
         VALUES ($1, $2, $3, $4, $5) ON CONFLICT (event_id) DO NOTHING",
        event.event_id,
        event.event_type,
        transfer.id,
        sent.as_ref().map(|sent| sent.merchant_id.as_str()),
        sent.as_ref().map(|sent| &sent.of) as _,
    )
    .execute(&mut *tx)
    .await?;
    if inserted.rows_affected() == 0 {
        return Ok(Applied::Duplicate);
    }
    match sent {
        Some(sent) if own => {
            let id = transfer.id.as_str();
            let to = match event.event_type.as_str() {
                "transfer.paid" => Some(To::Paid(id)),
                "transfer.failed" => Some(To::Failed(Some(id), "partner_failed")),
                "transfer.reversed" => Some(To::Reversed(id)),
                other => {
                    tracing::warn!(
                        event_type = other,
                        "ignoring a partner event of an unknown type"
                    );
                    None
                }
            };
            if let Some(to) = to {
                sent.of.mark(&mut tx, Mover::Webhook, to).await?;
            }
        }
        Some(sent) => tracing::warn!(
            transfer_id = transfer.id,
            transfer_of = %sent.of,
            event_type = event.event_type,
            "a partner event about a transfer that is not its payout's or refund's own: that does not move"
        ),
        None => tracing::warn!(
            transfer_id = transfer.id,
            reference = transfer.reference,
            "a partner event about a transfer we never asked for"
        ),
    }
    tx.commit().await?;
    Ok(Applied::New)
}

/// Whether `transfer` is `sent`'s own transfer (see the module's rule).
async fn is_own_transfer(
    partner: &PartnerClient,
    sent: &SentOfEvent,
    transfer: &Transfer,
) -> Result<bool, EventError> {
    if let Some(own) = &sent.partner_transfer_id {
        return Ok(*own == transfer.id);
    }
    if transfer.idempotency_key != sent.partner_key {
        return Ok(false);
    }
    let made_with_key = transfers_with_key(
        partner,
        &sent.partner_key,
        sent.created_at.min(transfer.created_at),
        transfer.created_at,
    )
    .await
    .map_err(|err| EventError::Unresolved(err.to_string()))?;
    if !made_with_key.iter().any(|listed| listed.id == transfer.id) {
        return Err(EventError::Unresolved(format!(
            "the partner does not list transfer {} yet",
            transfer.id
        )));
    }
    Ok(made_with_key
        .first()
        .is_some_and(|earliest| earliest.id == transfer.id))
}

/// Every transfer the partner made with the end-to-end `key` between `from` and `to`, oldest
/// first (the first is the payout's own unless it recorded another), each once however many
/// day listings show it: the partner's listings of every day from the day before `from` (its
/// clock may differ from ours by a little) to `to`'s day.
pub async fn transfers_with_key(
    partner: &PartnerClient,
    key: &str,
    from: DateTime<Utc>,
    to: DateTime<Utc>,
) -> Result<Vec<Transfer>, PartnerError> {
    let (first_day, last_day) = (from.date_naive() - Days::new(1), to.date_naive());
    let mut made_with_key: Vec<Transfer> = Vec::new();
    for date in first_day.iter_days().take_while(|date| *date <= last_day) {
        for listed in partner.transfers_on(date).await? {
            if listed.idempotency_key == key
                && !made_with_key.iter().any(|made| made.id == listed.id)
            {
                made_with_key.push(listed);
            }
        }
    }
    // Stable: transfers made at the same instant stay in the partner's order, as in
    // reconciliation.
    made_with_key.sort_by_key(|made| made.created_at);
    Ok(made_with_key)
}
