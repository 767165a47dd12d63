//! The payments domain: money, orders, payouts and refunds (and the partner path they share),
//! the ledger and the balance, and the events they raise
//! (the statuses of payouts and orders are
//! `kaadxpay-types`', which the console shares).

pub mod approvals;
pub mod balance;
pub mod events;
pub mod executor;
pub mod fields;
pub mod ledger;
pub mod money;
pub mod orders;
pub mod outgoing;
pub mod partner_calls;
pub mod partner_events;
pub mod payouts;
pub mod refunds;
pub mod samples;
pub mod statement;
pub mod thresholds;
pub mod top_ups;
pub mod transfers;
