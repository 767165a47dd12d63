//! Refunds (API.md §13): money back to a captured order's customer. Creating one is a keyed
//! command whose checks run in the contract's order inside its transaction, each refusal
//! definitive (recorded and replayed): the order must be `captured` (`409
//! invalid_state_transition`), the amount (by default what is left) must fit in what is left to
//! refund (`409 amount_exceeds_refundable`, `param` `amount`), and the `available` balance must
//! bear it (`402 insufficient_funds`).
//!
//! The refundable invariant is one conditional `UPDATE` of the order (`amount_refunded + amount
//! <= amount`): its row lock serialises racing refunds of an order, each of which sees the
//! others' committed sums, so however many race, with any keys, their sum never exceeds the
//! captured amount. A failed refund gives its amount back to the order and to `available` in
//! the transaction of its failure (and may then be refunded again).
//!
//! After creation a refund is a transfer like a payout's: the payout worker carries it to the
//! partner (see `payments::outgoing`), and the partner's webhooks and reconciliation move it. Its moves
//! are conditional `UPDATE`s as payouts' are, each with its event in the same transaction.

use kaadxpay_types::ids::{MerchantId, OrderId, RefundId};

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use sqlx::types::Json;
use sqlx::{PgConnection, PgPool};

use super::fields::{BankAccount, Description};
use super::ledger::{self, Insufficient, Movement, Posting, Source};
use super::money::Amount;
use super::transfers::{self, partner_key, Mover, To};
use crate::contract::error::Error;
use crate::contract::pagination::Page;
use crate::history::audit::{self, Action, Entry, ObjectType};
use crate::idempotency::{Once, Ran, Resource, StoredResponse};
use crate::payments::events::EventType;
use crate::service::commands::{created_row, Caller, Command};
use crate::service::kernel::Kernel;
use crate::webhooks::publish;
use kaadxpay_partner::wire::Destination;
use kaadxpay_types::{OrderStatus, RefundStatus};

/// Why a refund is made, when the merchant says.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum Reason {
    RequestedByCustomer,
    Duplicate,
    Fraudulent,
}

impl Reason {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::RequestedByCustomer => "requested_by_customer",
            Self::Duplicate => "duplicate",
            Self::Fraudulent => "fraudulent",
        }
    }
}

/// A refund as the API answers it and its webhook events carry it (API.md §13).
#[derive(Debug, Clone, Serialize, Deserialize, sqlx::FromRow, utoipa::ToSchema)]
pub struct Refund {
    #[schema(value_type = String)]
    pub id: RefundId,
    /// Always `refund`.
    pub object: String,
    /// The order refunded (`ord_…`).
    #[schema(value_type = String, pattern = "^ord_[0-9A-Za-z]+$")]
    pub order: OrderId,
    pub amount: i64,
    #[schema(value_type = crate::payments::money::Currency)]
    pub currency: String,
    #[sqlx(try_from = "String")]
    pub status: RefundStatus,
    #[schema(value_type = BankAccount)]
    pub destination: Json<Destination>,
    /// `requested_by_customer`, `duplicate` or `fraudulent`, when given.
    #[schema(value_type = Option<Reason>)]
    pub reason: Option<String>,
    pub description: Option<String>,
    /// Why it failed (`partner_failed`, `partner_reversed`, or the partner's refusal code).
    pub failure_code: Option<String>,
    pub idempotency_key: String,
    #[serde(serialize_with = "crate::contract::timestamp::rfc3339")]
    pub created_at: DateTime<Utc>,
    #[serde(serialize_with = "crate::contract::timestamp::rfc3339")]
    pub updated_at: DateTime<Utc>,
}

/// A refund as the domain keeps it: what the API shows, its merchant, and its transfer.
#[derive(Debug, Clone, Deserialize, sqlx::FromRow)]
pub struct RefundRecord {
    #[sqlx(flatten)]
    #[serde(flatten)]
    pub refund: Refund,
    pub merchant_id: MerchantId,
    pub partner_transfer_id: Option<String>,
    pub duplicates_reversed: i32,
}

pub const REFUND_COLUMNS: &str =
    "id, merchant_id, 'refund' AS object, order_id AS order, amount, currency, status, \
     destination, reason, description, failure_code, idempotency_key, created_at, updated_at, \
     partner_transfer_id, duplicates_reversed";

/// The body of `POST /v1/orders/{id}/refunds`. Holding one means it was valid.
#[derive(Debug, Clone, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct RefundParameters {
    /// Minor units; by default what is left to refund of the order.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<Amount>)]
    pub amount: Option<Amount>,
    /// The customer's account the money goes back to.
    pub destination: BankAccount,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<Reason>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<Description>,
}

/// `POST /v1/orders/{id}/refunds`: refund (part of) a captured order. The order is part of
/// what makes two requests with one key the same request.
#[derive(Debug, Clone, Serialize)]
pub struct CreateRefund {
    pub order_id: OrderId,
    #[serde(flatten)]
    pub refund: RefundParameters,
}

impl Command for CreateRefund {
    const ENDPOINT: &'static str = "POST /v1/orders/{id}/refunds";

    /// One transaction: the order's refundable amount, the ledger's debit, the refund queued
    /// for the partner with its event and audit entry, then the record. A refusal rolls all of
    /// it back and is recorded as the key's answer.
    async fn apply(&self, once: Once, caller: &Caller<'_>) -> Result<Ran, Error> {
        let once = once.renders_from("refunds", REFUND_COLUMNS);
        once.transaction(async |conn| {
            let refund = create(conn, caller, self).await?;
            let made = serde_json::json!({
                "order": refund.order,
                "amount": refund.amount,
                "currency": refund.currency,
                "status": refund.status,
            });
            let entry = Entry::new(
                caller.merchant_id,
                caller.by,
                Action::RefundCreated,
                ObjectType::Refund,
                refund.id.as_str(),
            );
            audit::record(conn, &entry.after(made)).await?;
            Ok(refund.created())
        })
        .await
    }

    /// The refund as its creation answered: later moves change only its status, failure code
    /// and `updated_at`.
    async fn render(
        state: &Kernel,
        merchant_id: &MerchantId,
        resource: Resource,
    ) -> Result<StoredResponse, Error> {
        let id = RefundId::from(resource.id.as_str());
        let RefundRecord { refund, .. } =
            created_row(&resource, find(&state.pool, merchant_id, &id)).await?;
        let as_created = Refund {
            status: RefundStatus::Pending,
            failure_code: None,
            updated_at: refund.created_at,
            ..refund
        };
        Ok(as_created.created())
    }
}

impl Refund {
    /// The `201` that creates it.
    fn created(&self) -> StoredResponse {
        StoredResponse::created("/v1/refunds", "refund", &self.id, self)
    }
}

/// The order's figures a refund is checked against.
struct Refundable {
    status: String,
    left: i64,
}

/// Refunds the order for `caller` inside `conn`'s transaction (see the module for the checks
/// and their order).
pub async fn create(
    conn: &mut PgConnection,
    caller: &Caller<'_>,
    command: &CreateRefund,
) -> Result<Refund, Error> {
    let merchant_id = caller.merchant_id;
    let order_id = &command.order_id;
    let amount = match command.refund.amount {
        Some(amount) => amount.minor_units(),
        // What is left now; the conditional update below still decides.
        None => match refundable(&mut *conn, merchant_id, order_id).await? {
            Some(order) if order.status == OrderStatus::Captured.as_str() => order.left,
            Some(order) => return Err(not_captured(order_id, &order.status)),
            None => return Err(Error::ResourceMissing("order")),
        },
    };
    // The invariant, in one statement: the order's row lock orders racing refunds, and each
    // sees what the others committed.
    let currency = sqlx::query_scalar!(
        "UPDATE orders SET amount_refunded = amount_refunded + $3::int8, updated_at = now() \
         WHERE merchant_id = $1 AND id = $2 AND status = 'captured' AND $3::int8 > 0 \
           AND amount_refunded + $3::int8 <= amount \
         RETURNING currency",
        merchant_id.as_str(),
        order_id.as_str(),
        amount,
    )
    .fetch_optional(&mut *conn)
    .await?;
    let Some(currency) = currency else {
        return Err(match refundable(&mut *conn, merchant_id, order_id).await? {
            None => Error::ResourceMissing("order"),
            Some(order) if order.status != OrderStatus::Captured.as_str() => {
                not_captured(order_id, &order.status)
            }
            Some(order) => Error::AmountExceedsRefundable(format!(
                "Order {order_id} has {} (minor units) left to refund; a refund may not exceed it.",
                order.left
            )),
        });
    };
    let id = RefundId::new();
    let posting = Posting {
        merchant_id,
        currency: &currency,
        amount,
        movement: Movement::Refund,
        source: Source::refund(&id),
    };
    ledger::post(&mut *conn, &posting)
        .await?
        .map_err(|Insufficient| Error::InsufficientFundsForRefund(currency.clone()))?;
    let parameters = &command.refund;
    let created: Refund = sqlx::query_as(&format!(
        "INSERT INTO refunds (id, merchant_id, order_id, amount, currency, status, destination, \
           reason, description, idempotency_key, partner_key, next_attempt_at, created_by_kind, \
           created_by) \
         VALUES ($1, $2, $3, $4, $5, 'pending', $6, $7, $8, $9, $10, now(), $11, $12) \
         RETURNING {REFUND_COLUMNS}"
    ))
    .bind(&id)
    .bind(merchant_id)
    .bind(order_id)
    .bind(amount)
    .bind(&currency)
    .bind(Json(Destination::from(parameters.destination.clone())))
    .bind(parameters.reason.map(Reason::as_str))
    .bind(parameters.description.as_ref().map(Description::as_str))
    .bind(caller.key.as_str())
    .bind(partner_key(&id, caller.key.as_str()))
    .bind(caller.by.actor.kind().as_str())
    .bind(caller.by.actor.name())
    .fetch_one(&mut *conn)
    .await?;
    publish(conn, merchant_id, EventType::RefundCreated, &created).await?;
    Ok(created)
}

async fn refundable(
    conn: &mut PgConnection,
    merchant_id: &MerchantId,
    order_id: &OrderId,
) -> sqlx::Result<Option<Refundable>> {
    sqlx::query_as!(
        Refundable,
        r#"SELECT status, amount - amount_refunded AS "left!" FROM orders
           WHERE merchant_id = $1 AND id = $2"#,
        merchant_id.as_str(),
        order_id.as_str(),
    )
    .fetch_optional(conn)
    .await
}

fn not_captured(order_id: &OrderId, status: &str) -> Error {
    Error::InvalidStateTransition(format!(
        "Order {order_id} is {status}; only a captured order can be refunded."
    ))
}

/// One of the merchant's refunds.
pub async fn find(
    pool: &PgPool,
    merchant_id: &MerchantId,
    id: &RefundId,
) -> sqlx::Result<Option<RefundRecord>> {
    let query = format!("SELECT {REFUND_COLUMNS} FROM refunds WHERE merchant_id = $1 AND id = $2");
    let found = sqlx::query_as(&query).bind(merchant_id).bind(id);
    found.fetch_optional(pool).await
}

/// The order each of `ids` gives money back for (a refund that is none is left out).
pub async fn orders_of(
    pool: &PgPool,
    ids: &[&RefundId],
) -> sqlx::Result<std::collections::HashMap<RefundId, OrderId>> {
    let ids: Vec<&str> = ids.iter().map(|id| id.as_str()).collect();
    let rows: Vec<(RefundId, OrderId)> =
        sqlx::query_as("SELECT id, order_id FROM refunds WHERE id = ANY($1)")
            .bind(ids)
            .fetch_all(pool)
            .await?;
    Ok(rows.into_iter().collect())
}

/// The merchant's refunds (of `order` only, when given), newest first, a page at a time (one
/// row beyond it, for `List::from_rows`); a cursor that names none of the merchant's refunds is
/// refused.
pub async fn list(
    pool: &PgPool,
    merchant_id: &MerchantId,
    order: Option<&OrderId>,
    page: &Page,
) -> Result<Vec<Refund>, Error> {
    page.check_cursor(pool, "refunds", merchant_id).await?;
    let (after, limit) = (page.starting_after.as_deref(), page.fetch_limit());
    let page_of = Page::newest_first("refunds");
    let query = format!(
        "SELECT {REFUND_COLUMNS} FROM refunds WHERE merchant_id = $1 \
           AND ($4::text IS NULL OR order_id = $4) {page_of}"
    );
    let listed = sqlx::query_as(&query)
        .bind(merchant_id)
        .bind(after)
        .bind(limit);
    Ok(listed
        .bind(order.map(OrderId::as_str))
        .fetch_all(pool)
        .await?)
}

/// How a move gives the amount back.
#[derive(Clone, Copy)]
enum Returned {
    /// No transfer of it was made, or its transfer failed.
    Failed,
    /// Its own transfer came back.
    Reversed,
}

/// The move to `to` from the states before it, about `transfer_id`, never due again.
fn moving(to: RefundStatus, transfer_id: Option<&str>) -> transfers::Move<'_> {
    transfers::Move {
        from: RefundStatus::names_of_states_before(to),
        to: to.as_str(),
        transfer_id,
        failure_code: None,
        next_attempt_in: None,
    }
}

/// Moves the refund as the partner's answer `to` says, if it may (see `transfers::Move::make`):
/// `in_transit` (no event) when the partner accepted its transfer; `succeeded` when it paid it;
/// `failed` when no transfer of it exists or its transfer failed, or (`partner_reversed`, from
/// any state but `failed`) when its own transfer came back, the customer not having the money.
/// A failure gives the amount back to the order's refundable amount and to `available` (then
/// it may be refunded again), in the same transaction. Returns the moved refund, or `None`.
pub async fn mark(
    conn: &mut PgConnection,
    id: &RefundId,
    mover: Mover,
    to: To<'_>,
) -> sqlx::Result<Option<RefundRecord>> {
    use RefundStatus::*;
    let failed = Some(EventType::RefundFailed);
    let (change, event, returned) = match to {
        To::InTransit(transfer, poll_in) => {
            let due = Some(poll_in);
            let change = moving(InTransit, Some(transfer));
            (
                transfers::Move {
                    next_attempt_in: due,
                    ..change
                },
                None,
                None,
            )
        }
        To::Paid(transfer) => {
            let change = moving(Succeeded, Some(transfer));
            (change, Some(EventType::RefundSucceeded), None)
        }
        To::Failed(transfer, code) => {
            let change = moving(Failed, transfer);
            let change = transfers::Move {
                failure_code: Some(code),
                ..change
            };
            (change, failed, Some(Returned::Failed))
        }
        To::Reversed(transfer) => {
            let (from, code) = (RefundStatus::returned_from(), Some("partner_reversed"));
            let change = moving(Failed, Some(transfer));
            let change = transfers::Move {
                from,
                failure_code: code,
                ..change
            };
            (change, failed, Some(Returned::Reversed))
        }
    };
    let table = ("refunds", REFUND_COLUMNS);
    let Some(record) = change
        .make::<RefundRecord>(&mut *conn, table, id, mover)
        .await?
    else {
        return Ok(None);
    };
    let (merchant_id, refund) = (&record.merchant_id, &record.refund);
    if let Some(event) = event {
        publish(&mut *conn, merchant_id, event, refund).await?;
    }
    if let Some(returned) = returned {
        // The order first, then the balance: the order a refund's creation locks them in.
        sqlx::query!(
            "UPDATE orders SET amount_refunded = amount_refunded - $3, updated_at = now() \
             WHERE merchant_id = $1 AND id = $2",
            merchant_id.as_str(),
            refund.order.as_str(),
            refund.amount,
        )
        .execute(&mut *conn)
        .await?;
        let posting = Posting {
            merchant_id,
            currency: &refund.currency,
            amount: refund.amount,
            movement: Movement::RefundReturned,
            source: match returned {
                Returned::Failed => Source::refund(&refund.id),
                Returned::Reversed => Source::reversal(&refund.id),
            },
        };
        ledger::post_credit(conn, &posting).await?;
    }
    Ok(Some(record))
}

/// Reconciliation reversed a duplicate transfer of the refund: the refund stays as it is and
/// counts the reversal.
pub async fn mark_duplicate_reversed(conn: &mut PgConnection, id: &RefundId) -> sqlx::Result<()> {
    transfers::count_duplicate_reversed(conn, "refunds", id).await
}
