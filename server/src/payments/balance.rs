//! The balance (API.md §13): per currency, what the merchant may pay out or refund
//! (`available`) and what payouts awaiting approval hold back (`reserved`). Each is the sum of
//! its ledger account's entries, kept as one row per (merchant, currency) that only
//! [`super::ledger::post`] changes, in the transaction of the change it reflects; `CHECK`s make
//! an overdraft impossible.

use kaadxpay_types::ids::MerchantId;
use serde::Serialize;
use sqlx::PgPool;

/// An amount of one currency.
#[derive(Debug, Serialize, utoipa::ToSchema)]
pub struct Available {
    #[schema(value_type = crate::payments::money::Currency)]
    pub currency: String,
    pub amount: i64,
}

#[derive(Debug, Serialize, utoipa::ToSchema)]
pub struct Balance {
    /// Always `balance`.
    pub object: &'static str,
    /// What may be paid out or refunded, per currency the merchant has had money in.
    pub available: Vec<Available>,
    /// What payouts awaiting approval hold back, in the same currencies.
    pub reserved: Vec<Available>,
}

pub async fn of_merchant(pool: &PgPool, merchant_id: &MerchantId) -> sqlx::Result<Balance> {
    let rows = sqlx::query!(
        "SELECT currency, available, reserved FROM balances WHERE merchant_id = $1 ORDER BY currency",
        merchant_id.as_str(),
    )
    .fetch_all(pool)
    .await?;
    let (mut available, mut reserved) = (Vec::new(), Vec::new());
    for row in rows {
        reserved.push(Available {
            currency: row.currency.clone(),
            amount: row.reserved,
        });
        available.push(Available {
            currency: row.currency,
            amount: row.available,
        });
    }
    Ok(Balance {
        object: "balance",
        available,
        reserved,
    })
}
