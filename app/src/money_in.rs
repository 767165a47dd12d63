//! The console's money-in area (API.md §9, §13): what `/balance/add-funds` needs from the
//! backend, an area trait of its own beside [`crate::console::Console`]. The server implements
//! it over the same domain as `GET /v1/funding-account` and `GET /v1/top-ups` and puts it into
//! each request's Leptos context.

use std::sync::Arc;

use async_trait::async_trait;
use chrono::{DateTime, Utc};
use kaadxpay_types::ids::MerchantId;
use kaadxpay_types::Money;
use leptos::prelude::expect_context;

use crate::console::ConsoleResult;

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
    /// `tu_…`.
    pub id: String,
    pub money: Money,
    /// The partner's incoming transfer (`in_…`).
    pub partner_incoming_id: String,
    pub created_at: DateTime<Utc>,
}

/// Where the "Add funds" page is, and where its form goes.
pub const ADD_FUNDS: &str = "/balance/add-funds";

/// How many top-ups the page lists, newest first.
pub const RECENT_TOP_UPS: i64 = 20;

#[async_trait]
pub trait MoneyIn: Send + Sync + 'static {
    /// The merchant's funding account: our account at the partner, with its reference.
    async fn funding_account(&self, merchant_id: &MerchantId) -> ConsoleResult<FundingAccountView>;
    /// The merchant's latest top-ups ([`RECENT_TOP_UPS`]), newest first.
    async fn recent_top_ups(&self, merchant_id: &MerchantId) -> ConsoleResult<Vec<TopUpRow>>;
    /// Whether money can be made to arrive here (test mode: the partner is the simulator).
    async fn can_simulate(&self) -> bool;
}

/// The request's money-in backend.
pub fn money_in() -> Arc<dyn MoneyIn> {
    expect_context::<Arc<dyn MoneyIn>>()
}
