//! The statement (API.md §13): one item per change of a merchant's `available` balance, with
//! the balance after it, newest first. Items are written by [`super::ledger::post`] with the
//! journal they show, so a replayed request (which posts nothing) adds none.

use chrono::{DateTime, TimeDelta, Utc};
use kaadxpay_types::ids::MerchantId;
use serde::Serialize;
use sqlx::PgPool;

use crate::contract::error::Error;
use crate::contract::pagination::{Filters, Page};
use kaadxpay_types::BalanceTransactionType;

/// What a statement item is about.
#[derive(Debug, Clone, Serialize, sqlx::FromRow, utoipa::ToSchema)]
pub struct ItemSource {
    /// `order`, `payout`, `refund`, `top_up` or `reversal` (the partner returned the transfer
    /// of the payout or refund `id`).
    #[sqlx(rename = "source_type")]
    #[serde(rename = "type")]
    #[schema(rename = "type")]
    pub kind: String,
    #[sqlx(rename = "source_id")]
    pub id: String,
}

/// One change of the `available` balance.
#[derive(Debug, Clone, Serialize, sqlx::FromRow, utoipa::ToSchema)]
pub struct BalanceTransaction {
    /// `btx_…`.
    pub id: String,
    /// Always `balance_transaction`.
    pub object: String,
    /// `order_captured`, `payout`, `payout_returned`, `refund`, `refund_returned`, `top_up`,
    /// `reservation` or `reservation_released`.
    #[sqlx(rename = "type")]
    #[serde(rename = "type")]
    #[schema(rename = "type")]
    pub kind: String,
    /// Signed minor units: what `available` changed by.
    pub amount: i64,
    #[schema(value_type = crate::payments::money::Currency)]
    pub currency: String,
    /// The `available` balance in this currency after it.
    pub balance_after: i64,
    #[sqlx(flatten)]
    pub source: ItemSource,
    #[serde(serialize_with = "crate::contract::timestamp::rfc3339")]
    pub created_at: DateTime<Utc>,
}

pub const ITEM_COLUMNS: &str = "id, 'balance_transaction' AS object, type, amount, currency, \
     balance_after, source_type, source_id, created_at";

/// Which items a statement shows; each filter that is set must hold.
#[derive(Debug, Clone, Default)]
pub struct StatementFilters {
    pub currency: Option<String>,
    /// One of [`BalanceTransactionType::NAMES`].
    pub kind: Option<String>,
    pub created_gte: Option<DateTime<Utc>>,
    pub created_lte: Option<DateTime<Utc>>,
}

impl StatementFilters {
    /// A console list's filters: its status is the type, its days (UTC, inclusive) the period.
    pub fn of_list(filters: &Filters) -> Result<Self, Error> {
        let (start, end) = filters.period();
        Ok(Self {
            currency: None,
            kind: filters.status.clone().map(Self::kind).transpose()?,
            created_gte: start,
            // The period's end is the first instant after it; PostgreSQL keeps microseconds.
            created_lte: end.map(|end| end - TimeDelta::microseconds(1)),
        })
    }

    /// A `type` filter as typed: one of the statement's types, else `400` naming `type`.
    pub fn kind(text: String) -> Result<String, Error> {
        BalanceTransactionType::try_from(text)
            .map(|kind| kind.as_str().to_owned())
            .map_err(|_| {
                Error::invalid(
                    "type",
                    format!(
                        "type must be one of {}.",
                        BalanceTransactionType::NAMES.join(", ")
                    ),
                )
            })
    }
}

/// The merchant's statement items that pass `filters`, newest first, a page at a time (one row
/// beyond it, for [`crate::contract::pagination::List::from_rows`]).
pub async fn list(
    pool: &PgPool,
    merchant_id: &MerchantId,
    filters: &StatementFilters,
    page: &Page,
) -> Result<Vec<BalanceTransaction>, Error> {
    const TABLE: &str = "balance_transactions";
    page.check_cursor(pool, TABLE, merchant_id).await?;
    Ok(sqlx::query_as(&format!(
        "SELECT {ITEM_COLUMNS} FROM {TABLE} WHERE merchant_id = $1 \
           AND ($4::text IS NULL OR currency = $4) AND ($5::text IS NULL OR type = $5) \
           AND ($6::timestamptz IS NULL OR created_at >= $6) \
           AND ($7::timestamptz IS NULL OR created_at <= $7) {}",
        Page::newest_first(TABLE)
    ))
    .bind(merchant_id)
    .bind(page.starting_after.as_deref())
    .bind(page.fetch_limit())
    .bind(filters.currency.as_deref())
    .bind(filters.kind.as_deref())
    .bind(filters.created_gte)
    .bind(filters.created_lte)
    .fetch_all(pool)
    .await?)
}
