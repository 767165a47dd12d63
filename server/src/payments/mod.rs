//! The payments domain: money, orders and the balance.

pub mod approvals;
pub mod balance;
pub mod executor;
pub mod fields;
pub mod money;
pub mod order_status;
pub mod orders;
pub mod partner_calls;
pub mod partner_events;
pub mod payout_status;
pub mod payouts;
pub mod thresholds;
