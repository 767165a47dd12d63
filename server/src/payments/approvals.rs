//! A second pair of eyes on large payouts (maker-checker, API.md §4 and §11): a merchant's owner
//! or admin sets a threshold per currency ([`super::thresholds`]); a payout at or above it is
//! created `pending_approval` (in the creation's transaction: its amount is
//! debited, so reserved, and no worker takes it) and moves on only when a member who may create
//! payouts and did not create this one ([`may_decide`]) approves it (`pending`, and the worker
//! pays it) or rejects it (`rejected`, the amount credited back). Each decision is a command
//! ([`ApprovePayout`], [`RejectPayout`]) run under an Idempotency-Key, and its effect is one
//! conditional `UPDATE … WHERE status = 'pending_approval'` with its event, its audit entry and
//! (for a rejection) the credit in the same transaction: two approvers at once, or an approval
//! racing a rejection, make one outcome. API keys never decide (`403 forbidden`).

use kaadxpay_types::ids::PayoutId;
use kaadxpay_types::{Permission, Role};
use serde::Serialize;
use serde_json::json;
use sqlx::PgConnection;

use super::balance;
use super::payout_status::PayoutStatus;
use super::payouts::{Payout, PAYOUT_COLUMNS};
use crate::contract::error::Error;
use crate::history::audit::{self, Action, Actor, Entry};
use crate::idempotency::{Once, Ran, Resource, StoredResponse};
use crate::service::commands::{Caller, Command};
use crate::webhooks::{publish, EventType};

/// What an API key is told on `POST /v1/payouts/{id}/approve` and `/reject`.
pub const NOT_FOR_API_KEYS: &str = "Payouts are approved or rejected by a member in the console, \
     never by an API key: ask a member who may create payouts and did not create this one.";

/// Why someone may not approve or reject a payout.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NotADecider {
    /// Not a member whose role may create payouts (an API key, support staff, a developer or
    /// a viewer).
    Role,
    /// The member created this payout: another member must decide.
    OwnPayout,
}

impl From<NotADecider> for Error {
    fn from(refusal: NotADecider) -> Self {
        Error::Forbidden(match refusal {
            NotADecider::Role => NOT_FOR_API_KEYS,
            NotADecider::OwnPayout => {
                "You created this payout: another member must approve or reject it."
            }
        })
    }
}

/// Whether `actor`, a member with `role`, may approve or reject a payout that `creator` (its
/// `created_by_kind` and `created_by`) created: a member (not an API key, not support staff)
/// whose role may create payouts, and not the payout's creator.
pub fn may_decide(
    role: Option<Role>,
    actor: &Actor,
    creator: (Option<&str>, Option<&str>),
) -> Result<(), NotADecider> {
    let Actor::User(email) = actor else {
        return Err(NotADecider::Role);
    };
    if !role.is_some_and(|role| role.may(Permission::CreatePayouts)) {
        return Err(NotADecider::Role);
    }
    if creator == (Some(actor.kind()), Some(email.as_str())) {
        return Err(NotADecider::OwnPayout);
    }
    Ok(())
}

/// A decision on a payout awaiting approval.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Decision {
    Approve,
    Reject,
}

impl Decision {
    fn to(self) -> PayoutStatus {
        match self {
            Decision::Approve => PayoutStatus::Pending,
            Decision::Reject => PayoutStatus::Rejected,
        }
    }

    fn event(self) -> EventType {
        match self {
            Decision::Approve => EventType::PayoutApproved,
            Decision::Reject => EventType::PayoutRejected,
        }
    }

    fn action(self) -> Action {
        match self {
            Decision::Approve => Action::PayoutApproved,
            Decision::Reject => Action::PayoutRejected,
        }
    }
}

/// `POST /v1/payouts/{id}/approve`: the payout goes on to `pending`, and the worker pays it.
/// The payout is part of what makes two requests the same request (one route template).
#[derive(Debug, Clone, Serialize)]
pub struct ApprovePayout {
    pub payout_id: PayoutId,
}

/// `POST /v1/payouts/{id}/reject`: the payout is `rejected` and its amount credited back.
#[derive(Debug, Clone, Serialize)]
pub struct RejectPayout {
    pub payout_id: PayoutId,
}

impl Command for ApprovePayout {
    const ENDPOINT: &'static str = "POST /v1/payouts/{id}/approve";

    async fn apply(&self, once: Once, caller: &Caller<'_>) -> Result<Ran, Error> {
        once.transaction(async |conn| {
            decide(conn, caller, &self.payout_id, Decision::Approve).await
        })
        .await
    }
}

impl Command for RejectPayout {
    const ENDPOINT: &'static str = "POST /v1/payouts/{id}/reject";

    async fn apply(&self, once: Once, caller: &Caller<'_>) -> Result<Ran, Error> {
        once.transaction(async |conn| decide(conn, caller, &self.payout_id, Decision::Reject).await)
            .await
    }
}

/// Makes `decision` on the payout in `conn`'s transaction: one conditional `UPDATE` from
/// `pending_approval` (never by its creator), then its event, its audit entry and, for a
/// rejection, the credit. A payout that is no longer awaiting approval is `409`.
async fn decide(
    conn: &mut PgConnection,
    caller: &Caller<'_>,
    payout_id: &PayoutId,
    decision: Decision,
) -> Result<StoredResponse, Error> {
    let merchant_id = caller.merchant_id;
    let to = decision.to();
    let decided: Option<Payout> = sqlx::query_as(&format!(
        "UPDATE payouts SET status = $3::text, decided_by = $4::text, decided_at = now(), \
           updated_at = now(), next_attempt_at = CASE WHEN $3::text = 'pending' THEN now() END \
         WHERE merchant_id = $1 AND id = $2 AND status = ANY($6) \
           AND (created_by_kind, created_by) IS DISTINCT FROM ($5::text, $4::text) \
         RETURNING {PAYOUT_COLUMNS}"
    ))
    .bind(merchant_id)
    .bind(payout_id)
    .bind(to.as_str())
    .bind(caller.by.actor.name())
    .bind(caller.by.actor.kind())
    .bind(PayoutStatus::names_of_states_before(to))
    .fetch_optional(&mut *conn)
    .await?;
    let Some(payout) = decided else {
        return Err(not_decided(conn, caller, payout_id).await?);
    };
    publish(&mut *conn, merchant_id, decision.event(), &payout).await?;
    if decision == Decision::Reject {
        balance::credit(conn, merchant_id, &payout.currency, payout.amount).await?;
    }
    let entry = Entry::new(
        merchant_id,
        caller.by,
        decision.action(),
        "payout",
        payout.id.as_str(),
    )
    .before(json!({ "status": PayoutStatus::PendingApproval }))
    .after(
        json!({ "status": payout.status, "amount": payout.amount, "currency": payout.currency }),
    );
    audit::record(conn, &entry).await?;
    let resource = Resource {
        kind: "payout".to_owned(),
        id: payout.id.to_string(),
    };
    Ok(StoredResponse::ok(&payout, resource))
}

/// The creator of `payout`, as [`may_decide`] reads it.
pub fn creator(payout: &Payout) -> (Option<&str>, Option<&str>) {
    (
        payout.created_by_kind.as_deref(),
        payout.created_by.as_deref(),
    )
}

/// Why a decision changed nothing: no such payout, its creator deciding, or it is no longer
/// awaiting approval.
async fn not_decided(
    conn: &mut PgConnection,
    caller: &Caller<'_>,
    payout_id: &PayoutId,
) -> Result<Error, Error> {
    let payout: Option<Payout> = sqlx::query_as(&format!(
        "SELECT {PAYOUT_COLUMNS} FROM payouts WHERE merchant_id = $1 AND id = $2"
    ))
    .bind(caller.merchant_id)
    .bind(payout_id)
    .fetch_optional(conn)
    .await?;
    let Some(payout) = payout else {
        return Ok(Error::ResourceMissing("payout"));
    };
    if payout.status == PayoutStatus::PendingApproval {
        return Ok(NotADecider::OwnPayout.into());
    }
    Ok(Error::InvalidStateTransition(format!(
        "This payout is not awaiting approval: it is {}.",
        payout.status
    )))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_member_who_may_create_payouts_decides_on_anothers_payout_only() {
        let maker = Actor::User("maker@shop.test".to_owned());
        let checker = Actor::User("checker@shop.test".to_owned());
        let made_by_maker = (Some("user"), Some("maker@shop.test"));
        let made_by_key = (Some("api_key"), Some("key_1"));
        for role in [Role::Owner, Role::Admin, Role::Finance] {
            assert_eq!(may_decide(Some(role), &checker, made_by_maker), Ok(()));
            assert_eq!(may_decide(Some(role), &maker, made_by_key), Ok(()));
            assert_eq!(
                may_decide(Some(role), &maker, made_by_maker),
                Err(NotADecider::OwnPayout)
            );
        }
        for role in [Some(Role::Developer), Some(Role::Viewer), None] {
            assert_eq!(
                may_decide(role, &checker, made_by_maker),
                Err(NotADecider::Role)
            );
        }
        let key = Actor::ApiKey("key_2".to_owned());
        let support = Actor::Support("support@kaadxpay.test".to_owned());
        for actor in [key, support] {
            assert_eq!(
                may_decide(Some(Role::Owner), &actor, made_by_maker),
                Err(NotADecider::Role)
            );
        }
    }
}
