//! Top-ups: money in from the partner (API.md §13). A merchant's funding account is our account
//! at the partner with the merchant's own reference; money the partner received with that
//! reference is credited to the merchant as a top-up, exactly once, whichever way we learn of it
//! (the partner's `transfer.received` webhook, reconciliation's listing of the day, both, at the
//! same time).
//!
//! Exactly once is a constraint, not a check: [`credit`] inserts the top-up under the UNIQUE
//! `partner_incoming_id` and writes its ledger journal and its event `top_up.received` in the
//! same transaction, only when that insert made a row. A second credit of the same incoming
//! transfer (a repeated webhook with another event id, a reconciliation run) inserts nothing, or,
//! racing the first, waits on the unique index until the first commits and then inserts nothing.
//! Money whose reference names no merchant credits nobody.

use chrono::{DateTime, Utc};
use kaadxpay_types::ids::{MerchantId, TopUpId};
use serde::Serialize;
use sqlx::{PgConnection, PgExecutor, PgPool};

use super::events::EventType;
use super::ledger::{self, Movement, Posting, Source};
use super::money::{Amount, Currency};
use super::partner_events::Applied;
use crate::contract::error::Error;
use crate::contract::pagination::{self, Page};
use crate::webhooks::publish;
use kaadxpay_partner::client::PartnerClient;
use kaadxpay_partner::wire::{IncomingEvent, IncomingTransfer};
use kaadxpay_partner_sim::test_mode::TestMode;

/// Money received from the partner for the merchant (API.md §13).
#[derive(Debug, Clone, Serialize, sqlx::FromRow, utoipa::ToSchema)]
pub struct TopUp {
    #[schema(value_type = String)]
    pub id: TopUpId,
    /// Always `top_up`.
    pub object: String,
    /// In minor units: what `available` grew by.
    pub amount: i64,
    #[schema(value_type = Currency)]
    pub currency: String,
    /// The partner's incoming transfer (`in_…`) it credits; each is credited once.
    pub partner_incoming_id: String,
    #[serde(serialize_with = "crate::contract::timestamp::rfc3339")]
    pub created_at: DateTime<Utc>,
}

pub const TOP_UP_COLUMNS: &str =
    "id, 'top_up' AS object, amount, currency, partner_incoming_id, created_at";

/// Our account at the partner that money for merchants is sent to: the same for every merchant,
/// told apart by the reference (`KAADXPAY_FUNDING_IBAN`, `KAADXPAY_FUNDING_ACCOUNT_HOLDER`).
#[derive(Debug, Clone)]
pub struct FundingDetails {
    pub iban: String,
    pub account_holder: String,
}

/// Where the merchant (or anyone for it) sends a bank transfer to top up its balance.
#[derive(Debug, Clone, Serialize, utoipa::ToSchema)]
pub struct FundingAccount {
    /// Always `funding_account`.
    pub object: String,
    /// The account to send the money to.
    pub iban: String,
    pub account_holder: String,
    /// What the transfer must carry as its reference: this merchant's alone.
    pub reference: String,
}

/// The reference that makes money sent to the funding account the merchant's.
async fn funding_reference(pool: &PgPool, merchant_id: &MerchantId) -> sqlx::Result<String> {
    sqlx::query_scalar!(
        "SELECT funding_reference FROM merchants WHERE id = $1",
        merchant_id.as_str(),
    )
    .fetch_one(pool)
    .await
}

/// The merchant's funding account.
pub async fn funding_account(
    pool: &PgPool,
    details: &FundingDetails,
    merchant_id: &MerchantId,
) -> sqlx::Result<FundingAccount> {
    let reference = funding_reference(pool, merchant_id).await?;
    Ok(FundingAccount {
        object: "funding_account".to_owned(),
        iban: details.iban.clone(),
        account_holder: details.account_holder.clone(),
        reference,
    })
}

/// Test mode only: makes the simulator receive `amount` of `currency` for the merchant, with its
/// reference, as a sender's bank transfer would (the console's "Simulate incoming transfer"). The
/// top-up lands when the simulator's `transfer.received` arrives, a moment later, through the
/// same path as any money in. Outside test mode it is `403 forbidden` and nothing is sent.
pub async fn simulate_incoming(
    pool: &PgPool,
    partner: &PartnerClient,
    test_mode: &TestMode,
    merchant_id: &MerchantId,
    amount: Amount,
    currency: Currency,
) -> Result<IncomingTransfer, Error> {
    if !test_mode.is_on().await {
        return Err(Error::Forbidden(
            "Money can be made to arrive only in test mode: send a real bank transfer instead.",
        ));
    }
    let reference = funding_reference(pool, merchant_id).await?;
    partner
        .simulate_incoming(amount.minor_units(), currency.code(), &reference)
        .await
        .map_err(|err| {
            tracing::warn!(error = %err, "the simulator did not take the incoming transfer");
            Error::ServiceUnavailable
        })
}

/// A reference as banks pass it on: senders add spaces, dashes and lower case.
pub fn normalise_reference(reference: &str) -> String {
    reference
        .chars()
        .filter(char::is_ascii_alphanumeric)
        .map(|c| c.to_ascii_uppercase())
        .collect()
}

/// The merchant whose funding reference `reference` is, as a sender wrote it.
pub async fn merchant_of(
    db: impl PgExecutor<'_>,
    reference: &str,
) -> sqlx::Result<Option<MerchantId>> {
    sqlx::query_scalar!(
        r#"SELECT id AS "id: MerchantId" FROM merchants WHERE funding_reference = $1"#,
        normalise_reference(reference),
    )
    .fetch_optional(db)
    .await
}

/// Which way the incoming transfer was learnt of.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Via {
    Webhook,
    Reconciliation,
}

impl Via {
    fn as_str(self) -> &'static str {
        match self {
            Self::Webhook => "webhook",
            Self::Reconciliation => "reconciliation",
        }
    }
}

/// What crediting an incoming transfer did.
#[derive(Debug, Clone)]
pub enum Credit {
    /// Credited now, to this merchant.
    Credited(MerchantId, TopUp),
    /// Credited before (by either way): nothing changed.
    AlreadyCredited,
    /// Its reference is no merchant's: nobody was credited.
    UnknownReference,
}

/// An incoming transfer that cannot be credited as the partner describes it: why.
#[derive(Debug, thiserror::Error)]
#[error("the incoming transfer {id} cannot be credited: {why}")]
pub struct Unusable {
    pub id: String,
    pub why: String,
}

/// Checks what the partner says arrived: an amount and a currency the ledger takes.
pub fn check(incoming: &IncomingTransfer) -> Result<(), Unusable> {
    let unusable = |why: String| Unusable {
        id: incoming.id.clone(),
        why,
    };
    Amount::try_from(incoming.amount).map_err(|why| unusable(format!("amount {why}")))?;
    Currency::try_from(incoming.currency.clone())
        .map_err(|why| unusable(format!("currency {why}")))?;
    if !incoming.id.starts_with("in_") {
        return Err(unusable(
            "its id is not an incoming transfer's (`in_…`)".into(),
        ));
    }
    Ok(())
}

/// Credits `incoming` to the merchant whose funding reference it carries, in `conn`'s
/// transaction: the top-up, its ledger journal (`top_up`, from the partner to `available`) and
/// its event `top_up.received`, all or nothing, once per incoming transfer ever (see the
/// module). The caller has [`check`]ed it.
pub async fn credit(
    conn: &mut PgConnection,
    incoming: &IncomingTransfer,
    via: Via,
) -> sqlx::Result<Credit> {
    let Some(merchant_id) = merchant_of(&mut *conn, &incoming.reference).await? else {
        return Ok(Credit::UnknownReference);
    };
    let top_up = sqlx::query_as::<_, TopUp>(&format!(
        "INSERT INTO top_ups (id, merchant_id, amount, currency, partner_incoming_id, reference, \
           received_at, credited_by) \
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8) \
         ON CONFLICT (partner_incoming_id) DO NOTHING \
         RETURNING {TOP_UP_COLUMNS}"
    ))
    .bind(TopUpId::new())
    .bind(&merchant_id)
    .bind(incoming.amount)
    .bind(&incoming.currency)
    .bind(&incoming.id)
    .bind(&incoming.reference)
    .bind(incoming.received_at)
    .bind(via.as_str())
    .fetch_optional(&mut *conn)
    .await?;
    let Some(top_up) = top_up else {
        return Ok(Credit::AlreadyCredited);
    };
    let posting = Posting {
        merchant_id: &merchant_id,
        currency: &top_up.currency,
        amount: top_up.amount,
        movement: Movement::TopUp,
        source: Source::top_up(&top_up.id),
    };
    ledger::post_credit(&mut *conn, &posting).await?;
    publish(&mut *conn, &merchant_id, EventType::TopUpReceived, &top_up).await?;
    Ok(Credit::Credited(merchant_id, top_up))
}

/// Credits `incoming` in a transaction of its own (see [`credit`]).
pub async fn credit_once(
    pool: &PgPool,
    incoming: &IncomingTransfer,
    via: Via,
) -> sqlx::Result<Credit> {
    let mut tx = pool.begin().await?;
    let credit = credit(&mut tx, incoming, via).await?;
    tx.commit().await?;
    Ok(credit)
}

/// Applies a `transfer.received` webhook once per event id, in one transaction: the event goes
/// into `partner_events` under its primary key (as every partner event does) and the incoming
/// transfer is credited (see [`credit`]). A repeated event changes nothing; a new event about an
/// incoming transfer already credited, or whose reference is no merchant's, is recorded and
/// credits nothing.
pub async fn apply_event(pool: &PgPool, event: &IncomingEvent) -> sqlx::Result<Applied> {
    let incoming = &event.data;
    let mut tx = pool.begin().await?;
    let inserted = sqlx::query!(
        "INSERT INTO partner_events (event_id, event_type, transfer_id, merchant_id) \
         SELECT $1, $2, $3, (SELECT id FROM merchants WHERE funding_reference = $4) \
         ON CONFLICT (event_id) DO NOTHING",
        event.event_id,
        event.event_type,
        incoming.id,
        normalise_reference(&incoming.reference),
    )
    .execute(&mut *tx)
    .await?;
    if inserted.rows_affected() == 0 {
        return Ok(Applied::Duplicate);
    }
    match credit(&mut tx, incoming, Via::Webhook).await? {
        Credit::Credited(merchant_id, top_up) => tracing::info!(
            event = "top_up.credited",
            %merchant_id,
            top_up_id = %top_up.id,
            incoming_id = incoming.id,
            "credited money received by webhook"
        ),
        Credit::AlreadyCredited => tracing::info!(
            incoming_id = incoming.id,
            "a transfer.received about money already credited: nothing changes"
        ),
        Credit::UnknownReference => tracing::warn!(
            incoming_id = incoming.id,
            reference = incoming.reference,
            "money received with a reference that is no merchant's: nobody is credited"
        ),
    }
    tx.commit().await?;
    Ok(Applied::New)
}

/// One of the merchant's top-ups.
pub async fn find(
    pool: &PgPool,
    merchant_id: &MerchantId,
    id: &TopUpId,
) -> sqlx::Result<Option<TopUp>> {
    pagination::own(pool, "top_ups", TOP_UP_COLUMNS, merchant_id, id).await
}

/// The merchant's top-ups, newest first, a page at a time (one row beyond it, for
/// [`pagination::List::from_rows`]).
pub async fn list(
    pool: &PgPool,
    merchant_id: &MerchantId,
    page: &Page,
) -> Result<Vec<TopUp>, Error> {
    pagination::newest(pool, "top_ups", TOP_UP_COLUMNS, merchant_id, page).await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn references_are_compared_as_banks_mangle_them() {
        assert_eq!(normalise_reference(" kxp-1a2b 3c4d "), "KXP1A2B3C4D");
        assert_eq!(normalise_reference("KXP1A2B3C4D"), "KXP1A2B3C4D");
        assert_eq!(normalise_reference("—"), "");
    }
}
