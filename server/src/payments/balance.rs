//! The balance: per currency, captured orders minus payouts that are neither failed nor
//! reversed (a reversed payout's own transfer came back, and so did its money). It is kept as
//! one row per (merchant, currency), changed only inside the transaction of the change it
//! reflects, and a `CHECK (available >= 0)` makes an overdraft impossible.

use kaadxpay_types::ids::MerchantId;
use serde::Serialize;
use sqlx::{PgConnection, PgPool};

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
    pub available: Vec<Available>,
}

pub async fn credit(
    conn: &mut PgConnection,
    merchant_id: &MerchantId,
    currency: &str,
    amount: i64,
) -> sqlx::Result<()> {
    sqlx::query!(
        "INSERT INTO balances (merchant_id, currency, available) VALUES ($1, $2, $3) \
         ON CONFLICT (merchant_id, currency) \
         DO UPDATE SET available = balances.available + EXCLUDED.available, updated_at = now()",
        merchant_id.as_str(),
        currency,
        amount,
    )
    .execute(conn)
    .await?;
    Ok(())
}

pub async fn of_merchant(pool: &PgPool, merchant_id: &MerchantId) -> sqlx::Result<Balance> {
    let available = sqlx::query_as!(
        Available,
        "SELECT currency, available AS amount FROM balances WHERE merchant_id = $1 ORDER BY currency",
        merchant_id.as_str(),
    )
    .fetch_all(pool)
    .await?;
    Ok(Balance {
        object: "balance",
        available,
    })
}
