//! The partner bank's boundary (API.md §4, §6, §7, §12): its answers, a payout's own transfer,
//! reconciliation and its reversals, and test mode's scenarios.

mod partner_answers;
mod payout_identity;
mod reconcile;
mod test_mode;
