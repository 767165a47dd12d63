//! Words for the codes the backend stores and the console shows (statuses, verdicts,
//! reconciliation kinds, roles): in English the code itself, as the API and the QA suites
//! spell it; in Chinese a word. A code without a word is shown as it is.

use leptos_fluent::tr;

use crate::console::Role;

/// The word for a status, verdict, reconciliation item kind or action, or reversal state.
pub fn code_word(code: &str) -> String {
    match code {
        "pending_approval" => tr!("code-pending_approval"),
        "rejected" => tr!("code-rejected"),
        "pending" => tr!("code-pending"),
        "in_transit" => tr!("code-in_transit"),
        "paid" => tr!("code-paid"),
        "failed" => tr!("code-failed"),
        "reversed" => tr!("code-reversed"),
        "captured" => tr!("code-captured"),
        "cancelled" => tr!("code-cancelled"),
        "in_progress" => tr!("code-in_progress"),
        "completed" => tr!("code-completed"),
        "expired" => tr!("code-expired"),
        "running" => tr!("code-running"),
        "partial" => tr!("code-partial"),
        "attention" => tr!("code-attention"),
        "enabled" => tr!("code-enabled"),
        "disabled" => tr!("code-disabled"),
        "delivered" => tr!("code-delivered"),
        "new" => tr!("code-new"),
        "replayed" => tr!("code-replayed"),
        "mismatch" => tr!("code-mismatch"),
        "matched" => tr!("code-matched"),
        "duplicate" => tr!("code-duplicate"),
        "missing" => tr!("code-missing"),
        "unknown" => tr!("code-unknown"),
        "amount_mismatch" => tr!("code-amount_mismatch"),
        "status_mismatch" => tr!("code-status_mismatch"),
        "already_reversed" => tr!("code-already_reversed"),
        "claimed" => tr!("code-claimed"),
        "refused" => tr!("code-refused"),
        "resolved" => tr!("code-resolved"),
        "order_captured" => tr!("code-order_captured"),
        "payout" => tr!("code-payout"),
        "payout_returned" => tr!("code-payout_returned"),
        "refund" => tr!("code-refund"),
        "refund_returned" => tr!("code-refund_returned"),
        "top_up" => tr!("code-top_up"),
        "reservation" => tr!("code-reservation"),
        "reservation_released" => tr!("code-reservation_released"),
        "order" => tr!("code-order"),
        "reversal" => tr!("code-reversal"),
        other => other.to_owned(),
    }
}

/// The word for a member's role.
pub fn role_word(role: Role) -> String {
    match role {
        Role::Owner => tr!("role-owner"),
        Role::Admin => tr!("role-admin"),
        Role::Developer => tr!("role-developer"),
        Role::Finance => tr!("role-finance"),
        Role::Viewer => tr!("role-viewer"),
    }
}

/// The word for what a key's resource or a support search hit is: `key`, `payout`, `order`.
pub fn subject_word(kind: &str) -> String {
    match kind {
        "key" => tr!("subject-key"),
        "payout" => tr!("subject-payout"),
        "order" => tr!("subject-order"),
        other => other.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::code_word;
    use crate::console::{OrderStatus, PayoutStatus};
    use crate::i18n::{in_language, Lang};

    #[test]
    fn every_status_has_its_word_in_each_language() {
        let statuses = PayoutStatus::NAMES.into_iter().chain(OrderStatus::NAMES);
        for status in statuses {
            assert_eq!(in_language(Lang::En, || code_word(status)), status);
            let word = in_language(Lang::Zh, || code_word(status));
            assert!(
                word != status && !word.is_ascii(),
                "{status} has no Chinese word"
            );
        }
    }
}
