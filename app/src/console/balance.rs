//! A merchant's money: the dashboard's overview, the balance and the statement.

use async_trait::async_trait;

use super::*;

/// One item of the merchant's statement: a change of its `available` balance.
#[derive(Debug, Clone)]
pub struct StatementRow {
    pub id: BalanceTransactionId,
    pub kind: BalanceTransactionType,
    /// Signed: what `available` changed by.
    pub money: Money,
    pub balance_after: Money,
    /// What changed it: an order, payout, refund, top-up or reversal.
    pub source: ObjectRef,
    pub created_at: DateTime<Utc>,
}

impl Listed for StatementRow {
    type Id = BalanceTransactionId;
}

/// The merchant's balance: what is available and what is reserved, per currency.
#[derive(Debug, Clone)]
pub struct BalanceView {
    pub available: Vec<Money>,
    pub reserved: Vec<Money>,
}

/// Idempotency outcomes in one hour of the last 24.
#[derive(Debug, Clone, Default)]
pub struct HourOutcomes {
    /// `HH:00`, UTC.
    pub hour: String,
    pub new: i64,
    pub replayed: i64,
    pub in_progress: i64,
    pub mismatch: i64,
}

#[derive(Debug, Clone)]
pub struct Overview {
    pub balances: Vec<Money>,
    pub payouts: Vec<PayoutRow>,
    pub orders: Vec<OrderRow>,
    /// Oldest hour first, 24 of them.
    pub outcomes: Vec<HourOutcomes>,
}

/// A merchant's money: the dashboard's overview, the balance and the statement.
#[async_trait]
pub trait BalanceConsole: Send + Sync {
    async fn overview(&self, merchant_id: &MerchantId) -> ConsoleResult<Overview>;
    /// The merchant's balance, available and reserved.
    async fn balance(&self, merchant_id: &MerchantId) -> ConsoleResult<BalanceView>;
    /// The merchant's statement items that pass `filter` (their type as the status, their
    /// days), newest first; a refusal names a filter that cannot be read.
    async fn statement(
        &self,
        merchant_id: &MerchantId,
        filter: &ListFilter<BalanceTransactionType>,
        starting_after: Option<BalanceTransactionId>,
    ) -> ConsoleResult<Page<StatementRow>>;
}
