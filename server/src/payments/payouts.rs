//! Payouts: validated creation that debits the balance in the same transaction (so the balance
//! never goes negative, whatever races), awaiting a second member's approval at or above the
//! merchant's threshold ([`super::thresholds`]), and the moves `pending → in_transit → paid`, `→ failed`
//! and `→ reversed` (both of which give the amount back). Every move is one conditional `UPDATE`,
//! so a move made twice (a webhook and a poll, two workers) happens once; the move's webhook
//! event is published in its transaction, so there is one event per move, never more or less.

use kaadxpay_types::ids::{MerchantId, PayoutId};
use std::time::Duration;

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use sqlx::types::Json;
use sqlx::{PgConnection, PgPool};

use super::fields::{BankAccount, Description};
use super::ledger::{self, Insufficient, Movement, Posting, Source};
use super::money::{Amount, Currency};
use super::thresholds;
pub use super::transfers::Mover;
use super::transfers::{self, partner_key};
use crate::contract::error::Error;
use crate::contract::pagination::{self, Filters, Page};
use crate::history::audit::{self, Action, Entry, ObjectType};
use crate::idempotency::{Once, Ran, Resource, StoredResponse};
use crate::payments::events::EventType;
use crate::service::commands::{created_row, Caller, Command};
use crate::service::kernel::Kernel;
use crate::webhooks::publish;
use kaadxpay_partner::wire::Destination;
use kaadxpay_types::PayoutStatus;

/// A payout as the API answers it and its webhook events carry it (API.md §4).
#[derive(Debug, Clone, Serialize, Deserialize, sqlx::FromRow, utoipa::ToSchema)]
pub struct Payout {
    #[schema(value_type = String)]
    pub id: PayoutId,
    /// Always `payout`.
    pub object: String,
    pub amount: i64,
    #[schema(value_type = Currency)]
    pub currency: String,
    #[sqlx(try_from = "String")]
    pub status: PayoutStatus,
    #[schema(value_type = BankAccount)]
    pub destination: Json<Destination>,
    pub description: Option<String>,
    pub idempotency_key: String,
    pub partner_transfer_id: Option<String>,
    pub failure_code: Option<String>,
    /// How many duplicate transfers of this payout reconciliation reversed (the payout itself
    /// stays `paid`).
    pub duplicates_reversed: i32,
    #[serde(serialize_with = "crate::contract::timestamp::rfc3339")]
    pub created_at: DateTime<Utc>,
    #[serde(serialize_with = "crate::contract::timestamp::rfc3339")]
    pub updated_at: DateTime<Utc>,
}

/// A payout as the domain keeps it: what the API shows of it, its merchant, and who made and
/// decided it, which the API never shows.
#[derive(Debug, Clone, Deserialize, sqlx::FromRow)]
pub struct PayoutRecord {
    #[sqlx(flatten)]
    #[serde(flatten)]
    pub payout: Payout,
    pub merchant_id: MerchantId,
    /// Whether it was created `pending_approval` (at or above the merchant's threshold).
    pub approval_required: bool,
    /// Who created it: `user` (by email) or `api_key` (by id); `None` before approvals existed.
    pub created_by_kind: Option<String>,
    pub created_by: Option<String>,
    /// The member it counts as made by, for four eyes (its creator, or the maker of the key
    /// that made it), by email; `None` for a key of `merchants create`.
    pub accountable: Option<String>,
    /// The member who approved or rejected it, and when.
    pub decided_by: Option<String>,
    pub decided_at: Option<DateTime<Utc>>,
}

pub const PAYOUT_COLUMNS: &str =
    "id, merchant_id, 'payout' AS object, amount, currency, status, destination, description, \
     idempotency_key, partner_transfer_id, failure_code, duplicates_reversed, created_at, updated_at, \
     approval_required, created_by_kind, created_by, accountable, decided_by, decided_at";

/// `POST /v1/payouts`: pay part of the balance out to a bank account. Holding one means its
/// body was valid.
#[derive(Debug, Clone, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct CreatePayout {
    pub amount: Amount,
    pub currency: Currency,
    pub destination: BankAccount,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<Description>,
}

impl Command for CreatePayout {
    const ENDPOINT: &'static str = "POST /v1/payouts";

    /// A transaction of several statements: the debit (whose refusal is recorded as the
    /// key's answer), the authorisation (at or above the threshold, the payout awaits
    /// approval), the payout and its events, then the record.
    async fn apply(&self, once: Once, caller: &Caller<'_>) -> Result<Ran, Error> {
        let once = once.renders_from("payouts", PAYOUT_COLUMNS);
        once.transaction(async |conn| {
            let payout = create(conn, caller, self).await?;
            let made = serde_json::json!({
                "amount": payout.amount,
                "currency": payout.currency,
                "status": payout.status,
            });
            let entry = Entry::new(
                caller.merchant_id,
                caller.by,
                Action::PayoutCreated,
                ObjectType::Payout,
                payout.id.as_str(),
            );
            audit::record(conn, &entry.after(made)).await?;
            Ok(StoredResponse::created(
                "/v1/payouts",
                "payout",
                &payout.id,
                &payout,
            ))
        })
        .await
    }

    /// The payout as its creation answered: a new payout's later moves change only its status,
    /// transfer, failure, reversed duplicates and `updated_at`.
    async fn render(
        state: &Kernel,
        merchant_id: &MerchantId,
        resource: Resource,
    ) -> Result<StoredResponse, Error> {
        let id = PayoutId::from(resource.id.as_str());
        let record: PayoutRecord =
            created_row(&resource, find(&state.pool, merchant_id, &id)).await?;
        let mut payout = record.payout;
        payout.status = PayoutStatus::at_creation(record.approval_required);
        payout.partner_transfer_id = None;
        payout.failure_code = None;
        payout.duplicates_reversed = 0;
        payout.updated_at = payout.created_at;
        Ok(StoredResponse::created(
            "/v1/payouts",
            "payout",
            &payout.id,
            &payout,
        ))
    }
}

/// Debits the balance and creates the payout for `caller`, inside `conn`'s transaction: queued
/// for execution, or, at or above the merchant's threshold for its currency, awaiting approval
/// (its amount reserved, and no worker takes it).
pub async fn create(
    conn: &mut PgConnection,
    caller: &Caller<'_>,
    payout: &CreatePayout,
) -> Result<Payout, Error> {
    let (merchant_id, idempotency_key) = (caller.merchant_id, caller.key.as_str());
    let (currency, amount) = (payout.currency.code(), payout.amount.minor_units());
    // The balance row's lock, held until commit, puts this payout after every other of the
    // merchant's in the currency, so that the threshold's sum below sees them.
    let available = sqlx::query_scalar!(
        "SELECT available FROM balances WHERE merchant_id = $1 AND currency = $2 FOR UPDATE",
        merchant_id.as_str(),
        currency,
    )
    .fetch_optional(&mut *conn)
    .await?;
    let insufficient = || Error::InsufficientFunds(currency.to_owned());
    if available.is_none_or(|available| available < amount) {
        return Err(insufficient());
    }
    let awaits_approval = thresholds::needs_approval(
        &mut *conn,
        merchant_id,
        currency,
        amount,
        payout.destination.iban.as_str(),
    )
    .await?;
    let id = PayoutId::new();
    let posting = Posting {
        merchant_id,
        currency,
        amount,
        movement: if awaits_approval {
            Movement::Reservation
        } else {
            Movement::Payout
        },
        source: Source::payout(&id),
    };
    ledger::post(&mut *conn, &posting)
        .await?
        .map_err(|Insufficient| insufficient())?;
    let status = PayoutStatus::at_creation(awaits_approval);
    let created: Payout = sqlx::query_as(&format!(
        "INSERT INTO payouts (id, merchant_id, amount, currency, status, destination, description, \
           idempotency_key, partner_key, next_attempt_at, approval_required, created_by_kind, \
           created_by, accountable) \
         VALUES ($1, $2, $3, $4, $9, $5, $6, $7, $8, CASE WHEN $10 THEN NULL ELSE now() END, $10, \
           $11, $12, $13) RETURNING {PAYOUT_COLUMNS}"
    ))
    .bind(&id)
    .bind(merchant_id)
    .bind(payout.amount.minor_units())
    .bind(payout.currency.code())
    .bind(Json(Destination::from(payout.destination.clone())))
    .bind(payout.description.as_ref().map(Description::as_str))
    .bind(idempotency_key)
    .bind(partner_key(&id, idempotency_key))
    .bind(status.as_str())
    .bind(awaits_approval)
    .bind(caller.by.actor.kind().as_str())
    .bind(caller.by.actor.name())
    .bind(caller.maker.map(|maker| &maker.email))
    .fetch_one(&mut *conn)
    .await?;
    publish(&mut *conn, merchant_id, EventType::PayoutCreated, &created).await?;
    if awaits_approval {
        publish(
            conn,
            merchant_id,
            EventType::PayoutPendingApproval,
            &created,
        )
        .await?;
    }
    Ok(created)
}

pub async fn find(
    pool: &PgPool,
    merchant_id: &MerchantId,
    id: &PayoutId,
) -> sqlx::Result<Option<PayoutRecord>> {
    sqlx::query_as(&format!(
        "SELECT {PAYOUT_COLUMNS} FROM payouts WHERE merchant_id = $1 AND id = $2"
    ))
    .bind(merchant_id)
    .bind(id)
    .fetch_optional(pool)
    .await
}

/// The merchant's payouts awaiting approval, oldest first (the approvers' queue).
pub async fn awaiting_approval(
    pool: &PgPool,
    merchant_id: &MerchantId,
) -> sqlx::Result<Vec<PayoutRecord>> {
    sqlx::query_as(&format!(
        "SELECT {PAYOUT_COLUMNS} FROM payouts \
         WHERE merchant_id = $1 AND status = 'pending_approval' ORDER BY created_at, id"
    ))
    .bind(merchant_id)
    .fetch_all(pool)
    .await
}

/// The merchant's payouts that pass `filters`, newest first, a page at a time.
pub async fn list(
    pool: &PgPool,
    merchant_id: &MerchantId,
    filters: &Filters,
    page: &Page,
) -> Result<Vec<Payout>, Error> {
    pagination::filtered(pool, "payouts", PAYOUT_COLUMNS, merchant_id, filters, page).await
}

/// A move of a payout's status, made only from the states that may move to it
/// ([`PayoutStatus::may_become`]) and only about the payout's own transfer.
struct Move<'a> {
    to: PayoutStatus,
    event: EventType,
    transfer_id: Option<&'a str>,
    failure_code: Option<&'a str>,
    /// When the payout is next due for the worker (`None`: never again).
    next_attempt_in: Option<Duration>,
    /// The amount goes back to the balance with the move (the money did not leave, or returned).
    credit: bool,
}

impl<'a> Move<'a> {
    /// The move to `to`, published as `event`, about the transfer `transfer_id`: no failure
    /// code, never due for the worker again, and the amount back to the balance when `to` is
    /// `failed` or `reversed` (the money did not leave, or returned).
    fn new(to: PayoutStatus, event: EventType, transfer_id: Option<&'a str>) -> Self {
        Move {
            to,
            event,
            transfer_id,
            failure_code: None,
            next_attempt_in: None,
            credit: matches!(to, PayoutStatus::Failed | PayoutStatus::Reversed),
        }
    }
}

/// Makes `change` if the payout is in one of its `from` states, its transfer (if it has one
/// yet) is `change.transfer_id`, and `mover` still holds the job when it is a worker; publishes
/// its event and credits the balance in the same transaction when the move gives the money
/// back. Returns the moved payout, or `None` when there was nothing to do.
async fn apply(
    conn: &mut PgConnection,
    id: &str,
    mover: Mover,
    change: Move<'_>,
) -> sqlx::Result<Option<PayoutRecord>> {
    let moved: Option<PayoutRecord> = transfers::Move {
        from: PayoutStatus::names_of_states_before(change.to),
        to: change.to.as_str(),
        transfer_id: change.transfer_id,
        failure_code: change.failure_code,
        next_attempt_in: change.next_attempt_in,
    }
    .make(&mut *conn, ("payouts", PAYOUT_COLUMNS), id, mover)
    .await?;
    if let Some(record) = &moved {
        let (merchant_id, payout) = (&record.merchant_id, &record.payout);
        publish(&mut *conn, merchant_id, change.event, payout).await?;
        if change.credit {
            let posting = Posting {
                merchant_id,
                currency: &payout.currency,
                amount: payout.amount,
                movement: Movement::PayoutReturned,
                source: if change.to == PayoutStatus::Reversed {
                    Source::reversal(&payout.id)
                } else {
                    Source::payout(&payout.id)
                },
            };
            ledger::post_credit(conn, &posting).await?;
        }
    }
    Ok(moved)
}

/// The partner accepted the transfer; the worker polls it again after `poll_in`.
pub async fn mark_in_transit(
    conn: &mut PgConnection,
    id: &PayoutId,
    mover: Mover,
    transfer_id: &str,
    poll_in: Duration,
) -> sqlx::Result<Option<PayoutRecord>> {
    let change = Move::new(
        PayoutStatus::InTransit,
        EventType::PayoutInTransit,
        Some(transfer_id),
    );
    let change = Move {
        next_attempt_in: Some(poll_in),
        ..change
    };
    apply(conn, id, mover, change).await
}

pub async fn mark_paid(
    conn: &mut PgConnection,
    id: &PayoutId,
    mover: Mover,
    transfer_id: &str,
) -> sqlx::Result<Option<PayoutRecord>> {
    let change = Move::new(PayoutStatus::Paid, EventType::PayoutPaid, Some(transfer_id));
    apply(conn, id, mover, change).await
}

/// The payout failed for good: its amount returns to the balance, in the same transaction.
pub async fn mark_failed(
    conn: &mut PgConnection,
    id: &PayoutId,
    mover: Mover,
    transfer_id: Option<&str>,
    failure_code: &str,
) -> sqlx::Result<Option<PayoutRecord>> {
    let change = Move::new(PayoutStatus::Failed, EventType::PayoutFailed, transfer_id);
    let change = Move {
        failure_code: Some(failure_code),
        ..change
    };
    apply(conn, id, mover, change).await
}

/// The payout's own transfer came back (the partner reversed it): the payout is `reversed` and
/// its amount returns to the balance, once, whichever of the webhook and the poll sees it first.
/// From `pending` or `in_transit` too, when the steps before were never seen.
pub async fn mark_reversed(
    conn: &mut PgConnection,
    id: &PayoutId,
    mover: Mover,
    transfer_id: &str,
) -> sqlx::Result<Option<PayoutRecord>> {
    let change = Move::new(
        PayoutStatus::Reversed,
        EventType::PayoutReversed,
        Some(transfer_id),
    );
    apply(conn, id, mover, change).await
}

/// Reconciliation reversed a duplicate transfer of the payout: the payout stays as it is (its
/// own transfer went out once) and counts the reversal.
pub async fn mark_duplicate_reversed(conn: &mut PgConnection, id: &PayoutId) -> sqlx::Result<()> {
    transfers::count_duplicate_reversed(conn, "payouts", id).await
}
