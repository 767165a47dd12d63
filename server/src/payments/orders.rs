//! Orders: validated creation, the `pending → captured | cancelled` state machine, and the
//! balance credit that a capture makes exactly once however many requests race for it, and the
//! `order.captured` / `order.cancelled` event of each move, published in the move's transaction.
//! A captured order's `amount_refunded` is kept by [`super::refunds`].

use kaadxpay_types::ids::{MerchantId, OrderId};
use std::collections::BTreeMap;

use chrono::{DateTime, SubsecRound, Utc};
use serde::{Deserialize, Serialize};
use serde_json::json;
use serde_json::value::RawValue;
use sqlx::types::Json;
use sqlx::PgPool;

use super::fields::{Description, Metadata};
use super::ledger::{self, Movement, Posting, Source};
use super::money::{Amount, Currency};
use crate::contract::error::Error;
use crate::contract::pagination::{self, Filters, Page};
use crate::history::audit::{self, Action, Entry, ObjectType};
use crate::idempotency::{Once, Ran, Resource, RunShapes, StoredResponse};
use crate::payments::events::EventType;
use crate::service::author::By;
use crate::service::commands::{created_row, Caller, Command};
use crate::service::kernel::Kernel;
use crate::webhooks::outbox::{self, NewEvent};
use kaadxpay_types::OrderStatus;

#[derive(Debug, Clone, Serialize, Deserialize, sqlx::FromRow, utoipa::ToSchema)]
pub struct Order {
    #[schema(value_type = String)]
    pub id: OrderId,
    /// Always `order`.
    pub object: String,
    pub amount: i64,
    /// How much of it refunds that did not fail took back (minor units, `0` to `amount`).
    pub amount_refunded: i64,
    #[schema(value_type = Currency)]
    pub currency: String,
    #[sqlx(try_from = "String")]
    pub status: OrderStatus,
    pub description: Option<String>,
    #[schema(value_type = BTreeMap<String, String>)]
    pub metadata: Json<BTreeMap<String, String>>,
    #[serde(serialize_with = "crate::contract::timestamp::rfc3339")]
    pub created_at: DateTime<Utc>,
    #[serde(serialize_with = "crate::contract::timestamp::rfc3339")]
    pub updated_at: DateTime<Utc>,
}

pub const ORDER_COLUMNS: &str =
    "id, 'order' AS object, amount, amount_refunded, currency, status, description, metadata, created_at, updated_at";

/// `POST /v1/orders`: a pending order. Holding one means its body was valid.
#[derive(Debug, Clone, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct CreateOrder {
    pub amount: Amount,
    pub currency: Currency,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<Description>,
    /// String pairs kept on the order for the merchant.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<Metadata>,
}

impl Command for CreateOrder {
    const ENDPOINT: &'static str = "POST /v1/orders";

    /// One statement records the key, inserts the order and publishes `order.created` with its
    /// deliveries: the order, its answer and its event are made here, and the statement only
    /// writes them, each write depending on the record's.
    async fn apply(&self, once: Once, _caller: &Caller<'_>) -> Result<Ran, Error> {
        let order = self.pending_order();
        let response = StoredResponse::created("/v1/orders", "order", &order.id, &order);
        // The event shows the order as the answer does: its bytes, not a second serialisation.
        let shown: &RawValue = serde_json::from_slice(&response.body)
            .map_err(|err| anyhow::anyhow!("an answer is not JSON: {err}"))?;
        let event = NewEvent::of(EventType::OrderCreated, &shown);
        let once = once
            .before_commit("order.before_commit")
            .renders_from("orders", ORDER_COLUMNS);
        static SHAPES: RunShapes = RunShapes::new();
        once.run(&SHAPES, &response, |statement, merchant| {
            let id = statement.bind(&order.id);
            let amount = statement.bind(order.amount);
            let currency = statement.bind(&order.currency);
            let description = statement.bind(&order.description);
            let metadata = statement.bind(&order.metadata);
            let at = statement.bind(order.created_at);
            statement.push(format_args!(
                ", new_order AS ( \
                   INSERT INTO orders (id, merchant_id, amount, currency, status, description, \
                     metadata, created_at, updated_at) \
                   SELECT {id}, {merchant}, {amount}, {currency}, 'pending', {description}, \
                     {metadata}, {at}, {at} FROM recorded RETURNING 1)"
            ));
            outbox::publishing(statement, "new_order", merchant, &event);
        })
        .await
    }

    async fn render(
        state: &Kernel,
        merchant_id: &MerchantId,
        resource: Resource,
    ) -> Result<StoredResponse, Error> {
        let id = OrderId::from(resource.id.as_str());
        let order = created_row(&resource, find(&state.pool, merchant_id, &id)).await?;
        let order = Self::as_created(order);
        Ok(StoredResponse::created(
            "/v1/orders",
            "order",
            &order.id,
            &order,
        ))
    }
}

impl CreateOrder {
    /// The order as this command's answer showed it: a new order changes only its status and
    /// `updated_at` later.
    fn as_created(mut order: Order) -> Order {
        order.status = OrderStatus::Pending;
        order.amount_refunded = 0;
        order.updated_at = order.created_at;
        order
    }

    /// The order this command creates, as it will be stored (PostgreSQL keeps microseconds).
    fn pending_order(&self) -> Order {
        let now = Utc::now().trunc_subsecs(6);
        Order {
            id: OrderId::new(),
            object: "order".to_owned(),
            amount: self.amount.minor_units(),
            amount_refunded: 0,
            currency: self.currency.code().to_owned(),
            status: OrderStatus::Pending,
            description: self.description.as_ref().map(|d| d.as_str().to_owned()),
            metadata: Json(self.metadata.clone().unwrap_or_default().into()),
            created_at: now,
            updated_at: now,
        }
    }
}

/// `PUT /v1/orders/{id}`: move a pending order to `status`.
#[derive(Debug, Clone, Copy, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct UpdateOrder {
    pub status: Target,
}

/// The states an order can be asked to move to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum Target {
    Captured,
    Cancelled,
}

/// The status an order is asked to move to, as a move: `pending` is none.
impl TryFrom<OrderStatus> for Target {
    type Error = OrderStatus;

    fn try_from(status: OrderStatus) -> Result<Self, OrderStatus> {
        match status {
            OrderStatus::Captured => Ok(Self::Captured),
            OrderStatus::Cancelled => Ok(Self::Cancelled),
            OrderStatus::Pending => Err(status),
        }
    }
}

impl Target {
    fn status(self) -> OrderStatus {
        match self {
            Self::Captured => OrderStatus::Captured,
            Self::Cancelled => OrderStatus::Cancelled,
        }
    }

    fn event_type(self) -> EventType {
        match self {
            Self::Captured => EventType::OrderCaptured,
            Self::Cancelled => EventType::OrderCancelled,
        }
    }

    fn action(self) -> Action {
        match self {
            Self::Captured => Action::OrderCaptured,
            Self::Cancelled => Action::OrderCancelled,
        }
    }
}

pub async fn find(
    pool: &PgPool,
    merchant_id: &MerchantId,
    id: &OrderId,
) -> sqlx::Result<Option<Order>> {
    sqlx::query_as(&format!(
        "SELECT {ORDER_COLUMNS} FROM orders WHERE merchant_id = $1 AND id = $2"
    ))
    .bind(merchant_id)
    .bind(id)
    .fetch_optional(pool)
    .await
}

/// The merchant's orders that pass `filters`, newest first, a page at a time.
pub async fn list(
    pool: &PgPool,
    merchant_id: &MerchantId,
    filters: &Filters,
    page: &Page,
) -> Result<Vec<Order>, Error> {
    pagination::filtered(pool, "orders", ORDER_COLUMNS, merchant_id, filters, page).await
}

/// Moves a pending order to `target` for `by`; asking for the state it is already in changes
/// nothing. The row lock of the `UPDATE` serialises racing requests: one moves the order (and
/// posts the credit to the ledger, publishes its event and writes its audit entry, in the same
/// transaction), the others then find it already moved and publish and record nothing.
pub async fn transition(
    pool: &PgPool,
    merchant_id: &MerchantId,
    id: &OrderId,
    target: Target,
    by: &By,
) -> Result<Order, Error> {
    let mut tx = pool.begin().await?;
    let moved: Option<Order> = sqlx::query_as(&format!(
        "UPDATE orders SET status = $3, updated_at = now() \
         WHERE merchant_id = $1 AND id = $2 AND status = 'pending' RETURNING {ORDER_COLUMNS}"
    ))
    .bind(merchant_id)
    .bind(id)
    .bind(target.status().as_str())
    .fetch_optional(&mut *tx)
    .await?;
    if let Some(order) = moved {
        if target == Target::Captured {
            let posting = Posting {
                merchant_id,
                currency: &order.currency,
                amount: order.amount,
                movement: Movement::OrderCaptured,
                source: Source::order(&order.id),
            };
            ledger::post_credit(&mut tx, &posting).await?;
        }
        outbox::publish(&mut tx, merchant_id, target.event_type(), &order).await?;
        let entry = Entry::new(
            merchant_id,
            by,
            target.action(),
            ObjectType::Order,
            &order.id,
        )
        .before(json!({"status": OrderStatus::Pending.as_str()}))
        .after(json!({
            "status": order.status.as_str(),
            "amount": order.amount,
            "currency": order.currency,
        }));
        audit::record(&mut tx, &entry).await?;
        tx.commit().await?;
        return Ok(order);
    }
    drop(tx);
    let order = find(pool, merchant_id, id)
        .await?
        .ok_or(Error::ResourceMissing("order"))?;
    if order.status == target.status() {
        return Ok(order);
    }
    Err(Error::InvalidStateTransition(format!(
        "Order {id} is {}; it can no longer become {}.",
        order.status,
        target.status()
    )))
}
