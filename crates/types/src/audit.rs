//! What an audit log entry says (API.md §11): the [`AuditAction`] done, and the [`Actor`] who
//! did it (its [`ActorKind`] and its name), each stored and shown as its name.

use crate::ids::{ApiKeyId, ParseId};

/// What was done, named `<object>.<verb>`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum AuditAction {
    UserSignedIn,
    UserSignInFailed,
    MemberInvited,
    MemberJoined,
    MemberRoleChanged,
    MemberRemoved,
    MemberInvitationRevoked,
    ApiKeyCreated,
    ApiKeyRolled,
    ApiKeyRevoked,
    WebhookEndpointCreated,
    WebhookEndpointUpdated,
    WebhookEndpointDeleted,
    WebhookEndpointSecretRotated,
    TwoFactorEnrolled,
    TwoFactorReset,
    TwoFactorRequirementChanged,
    PayoutCreated,
    PayoutApproved,
    PayoutRejected,
    PayoutCancelled,
    RefundCreated,
    PayoutThresholdChanged,
    SupportViewed,
    OrderCaptured,
    OrderCancelled,
    WebhookEndpointTestSent,
    WebhookEndpointRecovered,
    EventRedelivered,
    ReconciliationRunStarted,
    TwoFactorStepUp,
    TwoFactorRecoveryCodeUsed,
}

status_names!(AuditAction, "an audit action", {
    UserSignedIn => "user.signed_in",
    UserSignInFailed => "user.sign_in_failed",
    MemberInvited => "member.invited",
    MemberJoined => "member.joined",
    MemberRoleChanged => "member.role_changed",
    MemberRemoved => "member.removed",
    MemberInvitationRevoked => "member.invitation_revoked",
    ApiKeyCreated => "api_key.created",
    ApiKeyRolled => "api_key.rolled",
    ApiKeyRevoked => "api_key.revoked",
    WebhookEndpointCreated => "webhook_endpoint.created",
    WebhookEndpointUpdated => "webhook_endpoint.updated",
    WebhookEndpointDeleted => "webhook_endpoint.deleted",
    WebhookEndpointSecretRotated => "webhook_endpoint.secret_rotated",
    TwoFactorEnrolled => "two_factor.enrolled",
    TwoFactorReset => "two_factor.reset",
    TwoFactorRequirementChanged => "two_factor.requirement_changed",
    PayoutCreated => "payout.created",
    PayoutApproved => "payout.approved",
    PayoutRejected => "payout.rejected",
    PayoutCancelled => "payout.cancelled",
    RefundCreated => "refund.created",
    PayoutThresholdChanged => "payout_threshold.changed",
    SupportViewed => "support.viewed",
    OrderCaptured => "order.captured",
    OrderCancelled => "order.cancelled",
    WebhookEndpointTestSent => "webhook_endpoint.test_sent",
    WebhookEndpointRecovered => "webhook_endpoint.recovered",
    EventRedelivered => "event.redelivered",
    ReconciliationRunStarted => "reconciliation.run_started",
    TwoFactorStepUp => "two_factor.step_up",
    TwoFactorRecoveryCodeUsed => "two_factor.recovery_code_used",
});

/// Who acted: a merchant's member, an API key, support staff, or an operator at the command line.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ActorKind {
    User,
    ApiKey,
    Support,
    Operator,
}

status_names!(ActorKind, "an actor's kind", {
    User => "user",
    ApiKey => "api_key",
    Support => "support",
    Operator => "operator",
});

/// Who acted, by name: what an audit entry and a payout's creator say of their author.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Actor {
    /// A merchant's member, by email.
    User(String),
    /// An API key, by id (`key_…`).
    ApiKey(ApiKeyId),
    /// Support staff, by email.
    Support(String),
    /// An operator at the command line (`kaadxpay users reset-two-factor`), by login name.
    Operator(String),
}

impl Actor {
    /// The actor of `kind` stored with `name`; an API key's name must be a key's id.
    pub fn named(kind: ActorKind, name: String) -> Result<Self, String> {
        Ok(match kind {
            ActorKind::User => Self::User(name),
            ActorKind::ApiKey => Self::ApiKey(
                ApiKeyId::parse(&name).ok_or_else(|| format!("{name:?} is no API key's id"))?,
            ),
            ActorKind::Support => Self::Support(name),
            ActorKind::Operator => Self::Operator(name),
        })
    }

    pub fn kind(&self) -> ActorKind {
        match self {
            Self::User(_) => ActorKind::User,
            Self::ApiKey(_) => ActorKind::ApiKey,
            Self::Support(_) => ActorKind::Support,
            Self::Operator(_) => ActorKind::Operator,
        }
    }

    /// Its email, key id or login name.
    pub fn name(&self) -> &str {
        match self {
            Self::User(name) | Self::Support(name) | Self::Operator(name) => name,
            Self::ApiKey(id) => id,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_action_is_object_dot_verb_and_reads_back_from_its_name_alone() {
        for action in AuditAction::ALL {
            let (object, verb) = action.as_str().split_once('.').unwrap();
            assert!(!object.is_empty() && !verb.is_empty());
            assert_eq!(AuditAction::try_from(action.to_string()), Ok(action));
        }
        assert_eq!(
            AuditAction::try_from("payout.deleted".to_owned()),
            Err(r#""payout.deleted" is not an audit action"#.to_owned())
        );
    }
}
