//! Approval thresholds (API.md §11): one amount per merchant and currency at or above which a
//! payout waits for a second member ([`super::approvals`]); set by owners and admins, each change
//! audited with its before and after.

use chrono::{DateTime, Utc};
use kaadxpay_types::ids::MerchantId;
use kaadxpay_types::{Permission, Role};
use serde_json::json;
use sqlx::{PgConnection, PgPool};

use super::money::{Amount, Currency};
use crate::contract::error::Error;
use crate::history::audit::{self, Action, Entry, ObjectType};
use crate::service::author::By;

/// Whether a payout of `amount` minor units of `currency` to `iban` needs approval: when,
/// with the merchant's other payouts to that account in that currency within [`WINDOW_HOURS`]
/// (but those `failed`, `rejected` or `cancelled`), it reaches the merchant's threshold for the
/// currency (no threshold: never), so that splitting a large payout never escapes approval.
/// IBANs are compared without spaces, in upper case.
///
/// Called in the payout's transaction after it locked the merchant's balance row in the
/// currency, which it holds until commit: a payout made at the same time waits there, then sees this
/// one's row (each statement reads what committed before it), so two halves made at once are
/// summed too.
pub async fn needs_approval(
    conn: &mut PgConnection,
    merchant_id: &MerchantId,
    currency: &str,
    amount: i64,
    iban: &str,
) -> sqlx::Result<bool> {
    let found = sqlx::query!(
        r#"SELECT t.amount AS threshold,
             (SELECT coalesce(sum(p.amount), 0) FROM payouts p
              WHERE p.merchant_id = t.merchant_id AND p.currency = t.currency
                AND upper(replace(p.destination ->> 'iban', ' ', '')) = upper(replace($3, ' ', ''))
                AND p.created_at > now() - make_interval(hours => $4)
                AND p.status NOT IN ('failed', 'rejected', 'cancelled'))::int8 AS "recent!"
           FROM approval_thresholds t WHERE t.merchant_id = $1 AND t.currency = $2"#,
        merchant_id.as_str(),
        currency,
        iban,
        WINDOW_HOURS,
    )
    .fetch_optional(conn)
    .await?;
    Ok(found.is_some_and(|found| amount.saturating_add(found.recent) >= found.threshold))
}

/// How far back payouts to the same account count together against the threshold.
const WINDOW_HOURS: i32 = 24;

/// A merchant's threshold for one currency.
#[derive(Debug, Clone)]
pub struct Threshold {
    pub currency: String,
    /// Minor units.
    pub amount: i64,
    pub updated_at: DateTime<Utc>,
}

/// The merchant's thresholds, by currency.
pub async fn thresholds(pool: &PgPool, merchant_id: &MerchantId) -> sqlx::Result<Vec<Threshold>> {
    sqlx::query_as!(
        Threshold,
        r#"SELECT currency, amount, updated_at AS "updated_at: DateTime<Utc>"
           FROM approval_thresholds WHERE merchant_id = $1 ORDER BY currency"#,
        merchant_id.as_str(),
    )
    .fetch_all(pool)
    .await
}

/// Sets the merchant's threshold for `currency` to `amount` (`None`: removes it, and no payout
/// in the currency needs approval), for a member whose `role` may manage thresholds, with its
/// `payout_threshold.changed` audit entry (before and after) in the same transaction.
pub async fn change_threshold(
    pool: &PgPool,
    merchant_id: &MerchantId,
    role: Option<Role>,
    by: &By,
    currency: Currency,
    amount: Option<Amount>,
) -> Result<(), Error> {
    if !role.is_some_and(|role| role.may(Permission::ManageThresholds)) {
        return Err(Error::Forbidden(
            "Only owners and admins may change the approval thresholds.",
        ));
    }
    let mut tx = pool.begin().await?;
    let before = sqlx::query_scalar!(
        "SELECT amount FROM approval_thresholds WHERE merchant_id = $1 AND currency = $2 \
         FOR UPDATE",
        merchant_id.as_str(),
        currency.code(),
    )
    .fetch_optional(&mut *tx)
    .await?;
    let after = amount.map(Amount::minor_units);
    match after {
        Some(amount) => {
            sqlx::query!(
                "INSERT INTO approval_thresholds (merchant_id, currency, amount) VALUES ($1, $2, $3) \
                 ON CONFLICT (merchant_id, currency) \
                 DO UPDATE SET amount = EXCLUDED.amount, updated_at = now()",
                merchant_id.as_str(),
                currency.code(),
                amount,
            )
            .execute(&mut *tx)
            .await?;
        }
        None => {
            sqlx::query!(
                "DELETE FROM approval_thresholds WHERE merchant_id = $1 AND currency = $2",
                merchant_id.as_str(),
                currency.code(),
            )
            .execute(&mut *tx)
            .await?;
        }
    }
    let entry = Entry::new(
        merchant_id,
        by,
        Action::PayoutThresholdChanged,
        ObjectType::PayoutThreshold,
        currency.code(),
    )
    .before(json!({ "currency": currency.code(), "amount": before }))
    .after(json!({ "currency": currency.code(), "amount": after }));
    audit::record(&mut tx, &entry).await?;
    tx.commit().await?;
    Ok(())
}
