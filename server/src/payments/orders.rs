//! Orders: validated creation, the `pending → captured | cancelled` state machine, and the
//! balance credit that a capture makes exactly once however many requests race for it, and the
//! `order.captured` / `order.cancelled` event of each move, published in the move's transaction.

use std::collections::BTreeMap;

use chrono::{DateTime, Utc};
use serde::Serialize;
use sqlx::types::Json;
use sqlx::{PgConnection, PgPool};

use super::balance;
use super::money::{Amount, Currency};
use crate::http::body::{as_str, JsonBody};
use crate::http::error::ApiError;
use crate::http::list::Page;
use crate::ids::new_id;
use crate::webhooks::outbox::{self, EventType};

const MAX_DESCRIPTION_CHARS: usize = 1000;
const MAX_METADATA_KEYS: usize = 20;
const MAX_METADATA_KEY_CHARS: usize = 40;
const MAX_METADATA_VALUE_CHARS: usize = 500;

#[derive(Debug, Clone, Serialize, sqlx::FromRow, utoipa::ToSchema)]
pub struct Order {
    pub id: String,
    /// Always `order`.
    pub object: String,
    pub amount: i64,
    pub currency: String,
    /// `pending`, `captured` or `cancelled`.
    pub status: String,
    pub description: Option<String>,
    #[schema(value_type = BTreeMap<String, String>)]
    pub metadata: Json<BTreeMap<String, String>>,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
}

const ORDER_COLUMNS: &str =
    "id, 'order' AS object, amount, currency, status, description, metadata, created_at, updated_at";

/// A validated `POST /v1/orders` body.
pub struct NewOrder {
    amount: Amount,
    currency: Currency,
    description: Option<String>,
    metadata: BTreeMap<String, String>,
}

impl NewOrder {
    pub fn parse(body: &JsonBody) -> Result<Self, ApiError> {
        let fields = body.fields(&["amount", "currency", "description", "metadata"])?;
        Ok(Self {
            amount: Amount::parse("amount", fields.required("amount")?)?,
            currency: Currency::parse("currency", fields.required("currency")?)?,
            description: fields.optional_text("description", MAX_DESCRIPTION_CHARS)?,
            metadata: parse_metadata(fields.optional("metadata"))?,
        })
    }
}

fn parse_metadata(value: Option<&serde_json::Value>) -> Result<BTreeMap<String, String>, ApiError> {
    let Some(value) = value else {
        return Ok(BTreeMap::new());
    };
    let object = value
        .as_object()
        .ok_or_else(|| ApiError::invalid("metadata", "metadata must be an object of strings."))?;
    if object.len() > MAX_METADATA_KEYS {
        return Err(ApiError::invalid(
            "metadata",
            format!("metadata can have at most {MAX_METADATA_KEYS} keys."),
        ));
    }
    object
        .iter()
        .map(|(key, value)| {
            let param = format!("metadata[{key}]");
            let text = as_str(&param, value)?;
            if key.chars().count() > MAX_METADATA_KEY_CHARS || text.chars().count() > MAX_METADATA_VALUE_CHARS {
                return Err(ApiError::invalid(
                    &param,
                    format!("metadata keys are limited to {MAX_METADATA_KEY_CHARS} characters and values to {MAX_METADATA_VALUE_CHARS}."),
                ));
            }
            Ok((key.clone(), text.to_owned()))
        })
        .collect()
}

/// The states an order can be asked to move to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Target {
    Captured,
    Cancelled,
}

impl Target {
    pub fn parse(body: &JsonBody) -> Result<Self, ApiError> {
        let fields = body.fields(&["status"])?;
        match fields.required_str("status")? {
            "captured" => Ok(Self::Captured),
            "cancelled" => Ok(Self::Cancelled),
            _ => Err(ApiError::invalid(
                "status",
                "status must be `captured` or `cancelled`.",
            )),
        }
    }

    fn as_str(self) -> &'static str {
        match self {
            Self::Captured => "captured",
            Self::Cancelled => "cancelled",
        }
    }

    fn event_type(self) -> EventType {
        match self {
            Self::Captured => EventType::OrderCaptured,
            Self::Cancelled => EventType::OrderCancelled,
        }
    }
}

pub async fn insert(
    conn: &mut PgConnection,
    merchant_id: &str,
    order: &NewOrder,
) -> sqlx::Result<Order> {
    sqlx::query_as(&format!(
        "INSERT INTO orders (id, merchant_id, amount, currency, status, description, metadata) \
         VALUES ($1, $2, $3, $4, 'pending', $5, $6) RETURNING {ORDER_COLUMNS}"
    ))
    .bind(new_id("ord"))
    .bind(merchant_id)
    .bind(order.amount.minor_units())
    .bind(order.currency.code())
    .bind(&order.description)
    .bind(Json(&order.metadata))
    .fetch_one(conn)
    .await
}

pub async fn find(pool: &PgPool, merchant_id: &str, id: &str) -> sqlx::Result<Option<Order>> {
    sqlx::query_as(&format!(
        "SELECT {ORDER_COLUMNS} FROM orders WHERE merchant_id = $1 AND id = $2"
    ))
    .bind(merchant_id)
    .bind(id)
    .fetch_optional(pool)
    .await
}

pub async fn list(pool: &PgPool, merchant_id: &str, page: &Page) -> Result<Vec<Order>, ApiError> {
    page.check_cursor(pool, "orders", merchant_id).await?;
    Ok(sqlx::query_as(&format!(
        "SELECT {ORDER_COLUMNS} FROM orders WHERE merchant_id = $1 {}",
        Page::newest_first("orders")
    ))
    .bind(merchant_id)
    .bind(page.starting_after.as_deref())
    .bind(page.fetch_limit())
    .fetch_all(pool)
    .await?)
}

/// Moves a pending order to `target`; asking for the state it is already in changes nothing.
/// The row lock of the `UPDATE` serialises racing requests: one moves the order (and credits
/// the balance and publishes its event, in the same transaction), the others then find it
/// already moved and publish nothing.
pub async fn transition(
    pool: &PgPool,
    merchant_id: &str,
    id: &str,
    target: Target,
) -> Result<Order, ApiError> {
    let mut tx = pool.begin().await?;
    let moved: Option<Order> = sqlx::query_as(&format!(
        "UPDATE orders SET status = $3, updated_at = now() \
         WHERE merchant_id = $1 AND id = $2 AND status = 'pending' RETURNING {ORDER_COLUMNS}"
    ))
    .bind(merchant_id)
    .bind(id)
    .bind(target.as_str())
    .fetch_optional(&mut *tx)
    .await?;
    if let Some(order) = moved {
        if target == Target::Captured {
            balance::credit(&mut tx, merchant_id, &order.currency, order.amount).await?;
        }
        outbox::publish(&mut tx, merchant_id, target.event_type(), &order).await?;
        tx.commit().await?;
        return Ok(order);
    }
    drop(tx);
    let order = find(pool, merchant_id, id)
        .await?
        .ok_or(ApiError::ResourceMissing("order"))?;
    if order.status == target.as_str() {
        return Ok(order);
    }
    Err(ApiError::InvalidStateTransition(format!(
        "Order {id} is {}; it can no longer become {}.",
        order.status,
        target.as_str()
    )))
}
