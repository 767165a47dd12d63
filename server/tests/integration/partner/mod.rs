//! The partner bank's boundary (API.md §4, §6, §7, §12, §13): its answers, a payout's own
//! transfer, reconciliation and its reversals, test mode's scenarios, refunds on that path, and
//! money in.

mod partner_answers;
mod payout_identity;
mod reconcile;
mod refunds;
mod test_mode;
mod top_ups;
