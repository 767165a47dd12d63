//! The partner bank's boundary (API.md §4, §6, §7, §12): its answers, a payout's own transfer,
//! reconciliation and its reversals, test mode's scenarios, and money in (§13).

mod partner_answers;
mod payout_identity;
mod reconcile;
mod test_mode;
mod top_ups;
