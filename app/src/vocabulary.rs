//! Words for the codes the backend stores and the console shows (statuses, verdicts,
//! reconciliation kinds, roles): in English the code itself, as the API and the QA suites
//! spell it; in Chinese a word. A code without a word is shown as it is.

use leptos_fluent::tr;

use crate::console::{
    AuditAction, ErrorCode, ObjectType, PartnerCall, RecoveryPoint, ReversalAction, Role,
    SubjectKind,
};
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

/// The word for what a key's resource or a support search hit is: a key, payout or order.
pub fn subject_word(kind: SubjectKind) -> String {
    match kind {
        SubjectKind::Key => tr!("subject-key"),
        SubjectKind::Payout => tr!("subject-payout"),
        SubjectKind::Order => tr!("subject-order"),
    }
}

/// The word for what an audit log entry records (`member.role_changed`).
pub fn audit_action_word(action: AuditAction) -> String {
    match action {
        AuditAction::UserSignedIn => tr!("action-user-signed_in"),
        AuditAction::UserSignInFailed => tr!("action-user-sign_in_failed"),
        AuditAction::MemberInvited => tr!("action-member-invited"),
        AuditAction::MemberJoined => tr!("action-member-joined"),
        AuditAction::MemberRoleChanged => tr!("action-member-role_changed"),
        AuditAction::MemberRemoved => tr!("action-member-removed"),
        AuditAction::MemberInvitationRevoked => tr!("action-member-invitation_revoked"),
        AuditAction::ApiKeyCreated => tr!("action-api_key-created"),
        AuditAction::ApiKeyRolled => tr!("action-api_key-rolled"),
        AuditAction::ApiKeyRevoked => tr!("action-api_key-revoked"),
        AuditAction::WebhookEndpointCreated => tr!("action-webhook_endpoint-created"),
        AuditAction::WebhookEndpointUpdated => tr!("action-webhook_endpoint-updated"),
        AuditAction::WebhookEndpointDeleted => tr!("action-webhook_endpoint-deleted"),
        AuditAction::WebhookEndpointSecretRotated => tr!("action-webhook_endpoint-secret_rotated"),
        AuditAction::TwoFactorEnrolled => tr!("action-two_factor-enrolled"),
        AuditAction::TwoFactorReset => tr!("action-two_factor-reset"),
        AuditAction::TwoFactorRequirementChanged => tr!("action-two_factor-requirement_changed"),
        AuditAction::PayoutCreated => tr!("action-payout-created"),
        AuditAction::PayoutApproved => tr!("action-payout-approved"),
        AuditAction::PayoutRejected => tr!("action-payout-rejected"),
        AuditAction::PayoutCancelled => tr!("action-payout-cancelled"),
        AuditAction::RefundCreated => tr!("action-refund-created"),
        AuditAction::PayoutThresholdChanged => tr!("action-payout_threshold-changed"),
        AuditAction::SupportViewed => tr!("action-support-viewed"),
        AuditAction::OrderCaptured => tr!("action-order-captured"),
        AuditAction::OrderCancelled => tr!("action-order-cancelled"),
        AuditAction::WebhookEndpointTestSent => tr!("action-webhook_endpoint-test_sent"),
        AuditAction::WebhookEndpointRecovered => tr!("action-webhook_endpoint-recovered"),
        AuditAction::EventRedelivered => tr!("action-event-redelivered"),
        AuditAction::ReconciliationRunStarted => tr!("action-reconciliation-run_started"),
        AuditAction::TwoFactorStepUp => tr!("action-two_factor-step_up"),
        AuditAction::TwoFactorRecoveryCodeUsed => tr!("action-two_factor-recovery_code_used"),
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

/// The word for an idempotency record's recovery point.
pub fn recovery_point_word(point: RecoveryPoint) -> String {
    match point {
        RecoveryPoint::Started => tr!("recovery-point-started"),
        RecoveryPoint::Finished => tr!("recovery-point-finished"),
    }
}

/// The word for a call to the partner bank (`create`, `status`, `listing`).
pub fn partner_call_word(call: PartnerCall) -> String {
    match call {
        PartnerCall::Create => tr!("partner-call-create"),
        PartnerCall::Status => tr!("partner-call-status"),
        PartnerCall::Listing => tr!("partner-call-listing"),
    }
}

/// The word for what reconciliation did about a duplicate transfer (`reversed`, `refused`, ...)
/// or about its reversal: "reversed" here is a duplicate taken back, not a payout returned.
pub fn reconciliation_action_word(action: ReversalAction) -> String {
    match action {
        ReversalAction::Reversed => tr!("reconciliation-action-reversed"),
        ReversalAction::AlreadyReversed => tr!("reconciliation-action-already_reversed"),
        ReversalAction::Refused => tr!("reconciliation-action-refused"),
        ReversalAction::Failed => tr!("reconciliation-action-failed"),
        ReversalAction::InProgress => tr!("reconciliation-action-in_progress"),
        ReversalAction::Resolved => tr!("reconciliation-action-resolved"),
        ReversalAction::NotReversed => tr!("reconciliation-action-not_reversed"),
        ReversalAction::Claimed => tr!("reconciliation-action-claimed"),
        ReversalAction::Pending => tr!("reconciliation-action-pending"),
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

/// The word for one of the API's error codes as the request log and
/// timelines show them.
pub fn error_code_word(code: ErrorCode) -> String {
    match code {
        ErrorCode::Unauthorized => tr!("error-unauthorized"),
        ErrorCode::Forbidden => tr!("error-forbidden"),
        ErrorCode::InvalidRequest => tr!("error-invalid_request"),
        ErrorCode::IdempotencyKeyMissing => tr!("error-idempotency_key_missing"),
        ErrorCode::IdempotencyKeyInvalid => tr!("error-idempotency_key_invalid"),
        ErrorCode::IdempotencyRequestInProgress => tr!("error-idempotency_request_in_progress"),
        ErrorCode::IdempotencyKeyReused => tr!("error-idempotency_key_reused"),
        ErrorCode::ResourceMissing => tr!("error-resource_missing"),
        ErrorCode::InvalidStateTransition => tr!("error-invalid_state_transition"),
        ErrorCode::InsufficientFunds => tr!("error-insufficient_funds"),
        ErrorCode::AmountExceedsRefundable => tr!("error-amount_exceeds_refundable"),
        ErrorCode::MethodNotAllowed => tr!("error-method_not_allowed"),
        ErrorCode::RequestTooLarge => tr!("error-request_too_large"),
        ErrorCode::RequestTimeout => tr!("error-request_timeout"),
        ErrorCode::ServiceUnavailable => tr!("error-service_unavailable"),
        ErrorCode::InternalError => tr!("error-internal_error"),
        ErrorCode::InvalidSignature => tr!("error-invalid_signature"),
        ErrorCode::NotAllowed => tr!("error-not_allowed"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::console::{
        BalanceTransactionType, DeliveryStatus, EndpointStatus, ItemKind, KeyStatus, OrderStatus,
        PayoutStatus, RefundStatus, RunStatus, Verdict,
    };
    use crate::i18n::in_language;

    /// Codes that no type of ours lists: why a reversal was not made or the partner gave no
    /// useful answer.
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

    /// What is wrong with how `word` writes `code`, if anything: in English it must be the code
    /// itself, in Chinese a word with no English in it (but "Webhook", which the glossary keeps).
    fn missing_word(code: &str, word: impl Fn(&str) -> String) -> Option<String> {
        let english = in_language(Lang::En, || word(code));
        let chinese = in_language(Lang::Zh, || word(code));
        if english != code {
            return Some(format!("{code} is {english:?} in English"));
        }
        let latin = chinese
            .replace("Webhook", "")
            .contains(|c: char| c.is_ascii_lowercase());
        latin.then(|| format!("{code} has no Chinese word (shows {chinese:?})"))
    }

    fn assert_words(code: &str, word: fn(&str) -> String) {
        assert_eq!(missing_word(code, word), None);
    }

    /// Every one of `names` has its word, read back as its type.
    fn assert_typed_words<T: TryFrom<String>>(names: &[&str], word: fn(T) -> String) {
        for name in names {
            let typed = |name: &str| word(T::try_from(name.to_owned()).ok().unwrap());
            assert_eq!(missing_word(name, typed), None);
        }
    }

    #[test]
    fn every_code_shown_has_its_word_in_each_language() {
        assert_typed_words(&ObjectType::NAMES, object_word);
        assert_typed_words(&RecoveryPoint::NAMES, recovery_point_word);
        assert_typed_words(&AuditAction::NAMES, audit_action_word);
        assert_typed_words(&ErrorCode::NAMES, error_code_word);
        for code in TRANSFER_STATUSES {
            assert_words(code, code_word);
        }
        assert_typed_words(&ReversalAction::NAMES, reconciliation_action_word);
        assert_typed_words(&PartnerCall::NAMES, partner_call_word);
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
