//! Words for the codes the backend stores and the console shows (statuses, verdicts,
//! reconciliation kinds, roles): in English the code itself, as the API and the QA suites
//! spell it; in Chinese a word. A code without a word is shown as it is.

use leptos_fluent::tr;

use crate::console::{ObjectType, Role};
use crate::i18n::Lang;

/// The word for a status, verdict, reconciliation item kind or action, or reversal state.
pub fn code_word(code: &str) -> String {
    match code {
        "pending_approval" => tr!("code-pending_approval"),
        "rejected" => tr!("code-rejected"),
        "pending" => tr!("code-pending"),
        "in_transit" => tr!("code-in_transit"),
        "paid" => tr!("code-paid"),
        "succeeded" => tr!("code-succeeded"),
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
        "unknown_incoming" => tr!("code-unknown_incoming"),
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
        "accepted" => tr!("code-accepted"),
        "api" => tr!("code-api"),
        "console" => tr!("code-console"),
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

/// The word for what an audit log entry records (`member.role_changed`).
pub fn audit_action_word(action: &str) -> String {
    match action {
        "user.signed_in" => tr!("action-user-signed_in"),
        "user.sign_in_failed" => tr!("action-user-sign_in_failed"),
        "member.invited" => tr!("action-member-invited"),
        "member.joined" => tr!("action-member-joined"),
        "member.role_changed" => tr!("action-member-role_changed"),
        "member.removed" => tr!("action-member-removed"),
        "member.invitation_revoked" => tr!("action-member-invitation_revoked"),
        "api_key.created" => tr!("action-api_key-created"),
        "api_key.rolled" => tr!("action-api_key-rolled"),
        "api_key.revoked" => tr!("action-api_key-revoked"),
        "webhook_endpoint.created" => tr!("action-webhook_endpoint-created"),
        "webhook_endpoint.updated" => tr!("action-webhook_endpoint-updated"),
        "webhook_endpoint.deleted" => tr!("action-webhook_endpoint-deleted"),
        "webhook_endpoint.secret_rotated" => tr!("action-webhook_endpoint-secret_rotated"),
        "two_factor.enrolled" => tr!("action-two_factor-enrolled"),
        "two_factor.reset" => tr!("action-two_factor-reset"),
        "two_factor.requirement_changed" => tr!("action-two_factor-requirement_changed"),
        "payout.created" => tr!("action-payout-created"),
        "payout.approved" => tr!("action-payout-approved"),
        "payout.rejected" => tr!("action-payout-rejected"),
        "payout.cancelled" => tr!("action-payout-cancelled"),
        "refund.created" => tr!("action-refund-created"),
        "payout_threshold.changed" => tr!("action-payout_threshold-changed"),
        "support.viewed" => tr!("action-support-viewed"),
        "order.captured" => tr!("action-order-captured"),
        "order.cancelled" => tr!("action-order-cancelled"),
        "webhook_endpoint.test_sent" => tr!("action-webhook_endpoint-test_sent"),
        "webhook_endpoint.recovered" => tr!("action-webhook_endpoint-recovered"),
        "event.redelivered" => tr!("action-event-redelivered"),
        "reconciliation.run_started" => tr!("action-reconciliation-run_started"),
        "two_factor.step_up" => tr!("action-two_factor-step_up"),
        "two_factor.recovery_code_used" => tr!("action-two_factor-recovery_code_used"),
        other => other.to_owned(),
    }
}

/// The word for the kind of object an audit log entry is about (`webhook_endpoint`), or a
/// statement item's source (`top_up`).
pub fn object_word(kind: ObjectType) -> String {
    match kind {
        ObjectType::User => tr!("object-user"),
        ObjectType::Member => tr!("object-member"),
        ObjectType::Invitation => tr!("object-invitation"),
        ObjectType::ApiKey => tr!("object-api_key"),
        ObjectType::IdempotencyKey => tr!("object-idempotency_key"),
        ObjectType::WebhookEndpoint => tr!("object-webhook_endpoint"),
        ObjectType::Event => tr!("object-event"),
        ObjectType::Payout => tr!("object-payout"),
        ObjectType::PayoutThreshold => tr!("object-payout_threshold"),
        ObjectType::Order => tr!("object-order"),
        ObjectType::Refund => tr!("object-refund"),
        ObjectType::TopUp => tr!("object-top_up"),
        ObjectType::Reversal => tr!("object-reversal"),
        ObjectType::Merchant => tr!("object-merchant"),
        ObjectType::ReconciliationRun => tr!("object-reconciliation_run"),
    }
}

/// The word for an idempotency record's recovery point (`started`, `finished`).
pub fn recovery_point_word(point: &str) -> String {
    match point {
        "started" => tr!("recovery-point-started"),
        "finished" => tr!("recovery-point-finished"),
        other => other.to_owned(),
    }
}

/// The word for a call to the partner bank (`create`, `status`, `listing`).
pub fn partner_call_word(call: &str) -> String {
    match call {
        "create" => tr!("partner-call-create"),
        "status" => tr!("partner-call-status"),
        "listing" => tr!("partner-call-listing"),
        other => other.to_owned(),
    }
}

/// The word for what reconciliation did about a duplicate transfer (`reversed`, `refused`, ...)
/// or about its reversal: "reversed" here is a duplicate taken back, not a payout returned.
pub fn reconciliation_action_word(action: &str) -> String {
    match action {
        "reversed" => tr!("reconciliation-action-reversed"),
        "already_reversed" => tr!("reconciliation-action-already_reversed"),
        "refused" => tr!("reconciliation-action-refused"),
        "failed" => tr!("reconciliation-action-failed"),
        "in_progress" => tr!("reconciliation-action-in_progress"),
        "resolved" => tr!("reconciliation-action-resolved"),
        "not_reversed" => tr!("reconciliation-action-not_reversed"),
        "claimed" => tr!("reconciliation-action-claimed"),
        "pending" => tr!("reconciliation-action-pending"),
        other => other.to_owned(),
    }
}

/// The word for why the partner gave no useful answer, or why a reversal was not made
/// (`timeout`, `not_reversible`, `own_transfer`, ...).
pub fn partner_problem_word(problem: &str) -> String {
    match problem {
        "own_transfer" => tr!("partner-problem-own_transfer"),
        "not_reversible" => tr!("partner-problem-not_reversible"),
        "timeout" => tr!("partner-problem-timeout"),
        "connection" => tr!("partner-problem-connection"),
        "bad_answer" => tr!("partner-problem-bad_answer"),
        "unprocessable" => tr!("partner-problem-unprocessable"),
        "in_flight" => tr!("partner-problem-in_flight"),
        "server_error" => tr!("partner-problem-server_error"),
        "client_error" => tr!("partner-problem-client_error"),
        "refused" => tr!("partner-problem-refused"),
        "account_closed" => tr!("partner-problem-account_closed"),
        other => other.to_owned(),
    }
}

/// What the partner answered a call, as the payout worker recorded it (`transfer tr_1 paid`,
/// `refused: account_closed`, `timeout: …`), in words. In English it is the record as it is;
/// elsewhere a transport error's own text (the HTTP client's English) gives way to its word.
pub fn partner_answer(answer: &str) -> String {
    let words: Vec<&str> = answer.split(' ').collect();
    if let ["transfer", transfer, status] = words.as_slice() {
        return tr!("partner-answer-transfer", {"transfer" => *transfer, "status" => code_word(status)});
    }
    let is_code =
        |text: &str| !text.is_empty() && text.bytes().all(|b| b.is_ascii_lowercase() || b == b'_');
    let Some((problem, detail)) = answer
        .split_once(": ")
        .filter(|(problem, _)| is_code(problem))
    else {
        return answer.to_owned();
    };
    let detail = if is_code(detail) {
        partner_problem_word(detail)
    } else if Lang::current() == Lang::En {
        detail.to_owned()
    } else {
        return partner_problem_word(problem);
    };
    tr!("partner-answer-problem", {"problem" => partner_problem_word(problem), "detail" => detail})
}

/// The word for one of the API's error codes (`insufficient_funds`), as the request log and
/// timelines show them.
pub fn error_code_word(code: &str) -> String {
    match code {
        "unauthorized" => tr!("error-unauthorized"),
        "forbidden" => tr!("error-forbidden"),
        "invalid_request" => tr!("error-invalid_request"),
        "idempotency_key_missing" => tr!("error-idempotency_key_missing"),
        "idempotency_key_invalid" => tr!("error-idempotency_key_invalid"),
        "idempotency_request_in_progress" => tr!("error-idempotency_request_in_progress"),
        "idempotency_key_reused" => tr!("error-idempotency_key_reused"),
        "resource_missing" => tr!("error-resource_missing"),
        "invalid_state_transition" => tr!("error-invalid_state_transition"),
        "insufficient_funds" => tr!("error-insufficient_funds"),
        "amount_exceeds_refundable" => tr!("error-amount_exceeds_refundable"),
        "method_not_allowed" => tr!("error-method_not_allowed"),
        "request_too_large" => tr!("error-request_too_large"),
        "request_timeout" => tr!("error-request_timeout"),
        "service_unavailable" => tr!("error-service_unavailable"),
        "internal_error" => tr!("error-internal_error"),
        "invalid_signature" => tr!("error-invalid_signature"),
        "not_allowed" => tr!("error-not_allowed"),
        other => other.to_owned(),
    }
}

/// What is wrong with how `word` writes `code`, if anything: in English it must be the code
/// itself, in Chinese a word with no English in it (but "Webhook", which the glossary keeps).
/// For the tests of every word list, here and in the server's (which has the lists of its
/// types: audit actions, partner calls).
pub fn missing_word(code: &str, word: fn(&str) -> String) -> Option<String> {
    let english = crate::i18n::in_language(Lang::En, || word(code));
    let chinese = crate::i18n::in_language(Lang::Zh, || word(code));
    if english != code {
        return Some(format!("{code} is {english:?} in English"));
    }
    let latin = chinese
        .replace("Webhook", "")
        .contains(|c: char| c.is_ascii_lowercase());
    latin.then(|| format!("{code} has no Chinese word (shows {chinese:?})"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::console::{
        BalanceTransactionType, DeliveryStatus, EndpointStatus, ErrorCode, ItemKind, KeyStatus,
        OrderStatus, PayoutStatus, RefundStatus, ReversalAction, RunStatus, Verdict,
    };
    use crate::i18n::in_language;

    /// Codes that no type of ours lists (the server's tests check the lists it has: audit
    /// actions, partner calls): a key record's recovery points, and why a reversal was not made
    /// or the partner gave no useful answer.
    const RECOVERY_POINTS: [&str; 2] = ["started", "finished"];
    /// A transfer's status at the partner (`kaadxpay_partner::wire::TransferStatus`).
    const TRANSFER_STATUSES: [&str; 4] = ["accepted", "paid", "failed", "reversed"];
    const PARTNER_PROBLEMS: [&str; 11] = [
        "own_transfer",
        "not_reversible",
        "timeout",
        "connection",
        "bad_answer",
        "unprocessable",
        "in_flight",
        "server_error",
        "client_error",
        "refused",
        "account_closed",
    ];

    fn assert_words(code: &str, word: fn(&str) -> String) {
        assert_eq!(missing_word(code, word), None);
    }

    #[test]
    fn every_code_shown_has_its_word_in_each_language() {
        for code in ObjectType::NAMES {
            assert_words(code, |name| {
                object_word(ObjectType::try_from(name.to_owned()).unwrap())
            });
        }
        for code in RECOVERY_POINTS {
            assert_words(code, recovery_point_word);
        }
        for code in TRANSFER_STATUSES {
            assert_words(code, code_word);
        }
        for code in ErrorCode::NAMES {
            assert_words(code, error_code_word);
        }
        for code in ReversalAction::NAMES {
            assert_words(code, reconciliation_action_word);
        }
        for code in PARTNER_PROBLEMS {
            assert_words(code, partner_problem_word);
        }
    }

    #[test]
    fn a_partners_answer_is_written_in_words() {
        let answers = [
            "transfer tr_1 paid",
            "refused: account_closed",
            "timeout: error sending request",
        ];
        for answer in answers {
            assert_eq!(in_language(Lang::En, || partner_answer(answer)), answer);
        }
        let chinese = answers.map(|answer| in_language(Lang::Zh, || partner_answer(answer)));
        assert_eq!(
            chinese,
            ["转账 tr_1，状态：已支付", "被拒绝：账户已关闭", "超时"].map(str::to_owned)
        );
    }

    #[test]
    fn every_status_has_its_word_in_each_language() {
        let statuses = (PayoutStatus::NAMES.into_iter())
            .chain(OrderStatus::NAMES)
            .chain(RefundStatus::NAMES)
            .chain(KeyStatus::NAMES)
            .chain(EndpointStatus::NAMES)
            .chain(DeliveryStatus::NAMES)
            .chain(RunStatus::NAMES)
            .chain(Verdict::NAMES)
            .chain(ItemKind::NAMES)
            .chain(BalanceTransactionType::NAMES);
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
