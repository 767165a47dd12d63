//! Money in (API.md §9, §13): what `/balance/add-funds` ("Add funds") shows, over the same
//! domain as `GET /v1/funding-account` and `GET /v1/top-ups`.

use async_trait::async_trait;
use kaadxpay_types::ids::TopUpId;

use super::*;

/// Where the "Add funds" page is, and where its form ("Simulate incoming transfer") goes.
pub const ADD_FUNDS: &str = "/balance/add-funds";

/// How many top-ups the page lists, newest first.
pub const RECENT_TOP_UPS: i64 = 20;

/// Where the merchant sends a bank transfer to top up its balance.
#[derive(Debug, Clone)]
pub struct FundingAccountView {
    pub iban: String,
    pub account_holder: String,
    /// The merchant's own reference: the transfer must carry it.
    pub reference: String,
}

/// Money received for the merchant, credited once.
#[derive(Debug, Clone)]
pub struct TopUpRow {
    pub id: TopUpId,
    pub money: Money,
    /// The partner's incoming transfer (`in_…`).
    pub partner_incoming_id: String,
    pub created_at: DateTime<Utc>,
}

/// Money in: the funding account, the top-ups, and whether money can be made to arrive.
#[async_trait]
pub trait MoneyInConsole: Send + Sync {
    /// The merchant's funding account: our account at the partner, with its reference.
    async fn funding_account(&self, merchant_id: &MerchantId) -> ConsoleResult<FundingAccountView>;
    /// The merchant's latest top-ups ([`RECENT_TOP_UPS`]), newest first.
    async fn recent_top_ups(&self, merchant_id: &MerchantId) -> ConsoleResult<Vec<TopUpRow>>;
    /// Whether money can be made to arrive (test mode: the partner is the simulator).
    async fn can_simulate(&self) -> bool;
}
