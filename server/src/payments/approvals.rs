//! A second pair of eyes on large payouts (maker-checker, API.md §4 and §11): a merchant's owner
//! or admin sets a threshold per currency ([`super::thresholds`]); a payout at or above it is
//! created `pending_approval` (in the creation's transaction: its amount moves from
//! `available` to `reserved` on the ledger, and no worker takes it) and moves on only when a member who may create
//! payouts and did not create this one ([`may_decide`]) approves it (`pending`, and the worker
//! pays it) or rejects it (`rejected`, the reservation released back to `available`). Each decision is a command
//! ([`ApprovePayout`], [`RejectPayout`]) run under an Idempotency-Key, and its effect is one
//! conditional `UPDATE … WHERE status = 'pending_approval'` with its event, its audit entry and
//! its ledger journal (the reservation out to the partner, or back) in the same transaction: two approvers at once, or an approval
//! racing a rejection, make one outcome. API keys never decide (`403 forbidden`). Four eyes are
//! two people: a payout counts as made by its `accountable` member (its creator, or the maker of
//! the key that made it), who may not decide on it, but may cancel it while it awaits approval
//! ([`CancelPayout`]: `cancelled`, the amount credited back; owners and admins may too).

use kaadxpay_types::ids::PayoutId;
use kaadxpay_types::{Permission, Role};
use serde::Serialize;
use serde_json::json;
use sqlx::PgConnection;

use super::ledger::{self, Movement, Posting, Source};
use super::payouts::{Payout, PAYOUT_COLUMNS};
use crate::contract::error::Error;
use crate::history::audit::{self, Action, Entry, ObjectType};
use crate::idempotency::{Once, Ran, Resource, StoredResponse};
use crate::payments::events::EventType;
use crate::service::author::Actor;
use crate::service::author::Maker;
use crate::service::commands::{Caller, Command};
use crate::webhooks::publish;
use kaadxpay_types::PayoutStatus;

/// What an API key is told on `POST /v1/payouts/{id}/approve` and `/reject`.
pub const NOT_FOR_API_KEYS: &str = "Payouts are approved or rejected by a member in the console, \
     never by an API key: ask a member who may create payouts and did not create this one.";

/// Why someone may not approve, reject or cancel a payout.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NotADecider {
    /// Not a member whose role may create payouts (an API key, support staff, a developer or
    /// a viewer).
    Role,
    /// The payout counts as this member's (made by them or by a key of theirs): another member
    /// must decide.
    OwnPayout,
    /// Cancelling is for the payout's own member, an owner or an admin.
    NotTheCreator,
}

impl From<NotADecider> for Error {
    fn from(refusal: NotADecider) -> Self {
        Error::Forbidden(match refusal {
            NotADecider::Role => NOT_FOR_API_KEYS,
            NotADecider::OwnPayout => {
                "This payout counts as yours (you or a key of yours made it): another member must approve or reject it."
            }
            NotADecider::NotTheCreator => {
                "Only the member who made this payout (or whose key made it), an owner or an admin may cancel it."
            }
        })
    }
}

/// Whether `actor`, a member with `role`, may approve or reject a payout that counts as made by
/// `accountable`: a member (not an API key, not support staff) whose role may create payouts,
/// and not the payout's own member.
pub fn may_decide(
    role: Option<Role>,
    actor: &Actor,
    accountable: Option<&str>,
) -> Result<(), NotADecider> {
    let Actor::User(email) = actor else {
        return Err(NotADecider::Role);
    };
    if !role.is_some_and(|role| role.may(Permission::CreatePayouts)) {
        return Err(NotADecider::Role);
    }
    if accountable == Some(email.as_str()) {
        return Err(NotADecider::OwnPayout);
    }
    Ok(())
}

/// Whether `maker` (the member a request answers to; `None` for a key of `merchants create`)
/// may cancel any payout awaiting approval, not only its own: an owner or an admin, or a key
/// bounded by no role.
fn cancels_any(maker: Option<&Maker>) -> bool {
    maker
        .and_then(|maker| maker.role)
        .is_none_or(|role| matches!(role, Role::Owner | Role::Admin))
}

/// Whether `maker` may cancel a payout awaiting approval that counts as `accountable`'s: its own
/// member, or one who [cancels any](cancels_any).
pub fn may_cancel(maker: Option<&Maker>, accountable: Option<&str>) -> Result<(), NotADecider> {
    let own = maker.is_some_and(|maker| Some(maker.email.as_str()) == accountable);
    match cancels_any(maker) || own {
        true => Ok(()),
        false => Err(NotADecider::NotTheCreator),
    }
}

/// A decision on a payout awaiting approval.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Decision {
    Approve,
    Reject,
    Cancel,
}

impl Decision {
    fn to(self) -> PayoutStatus {
        match self {
            Decision::Approve => PayoutStatus::Pending,
            Decision::Reject => PayoutStatus::Rejected,
            Decision::Cancel => PayoutStatus::Cancelled,
        }
    }

    fn event(self) -> EventType {
        match self {
            Decision::Approve => EventType::PayoutApproved,
            Decision::Reject => EventType::PayoutRejected,
            Decision::Cancel => EventType::PayoutCancelled,
        }
    }

    fn action(self) -> Action {
        match self {
            Decision::Approve => Action::PayoutApproved,
            Decision::Reject => Action::PayoutRejected,
            Decision::Cancel => Action::PayoutCancelled,
        }
    }

    /// Where the reserved amount goes: out to the partner (the payout proceeds), or back to
    /// `available`.
    fn movement(self) -> Movement {
        match self {
            Decision::Approve => Movement::PayoutApproved,
            Decision::Reject | Decision::Cancel => Movement::ReservationReleased,
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

/// `POST /v1/payouts/{id}/cancel`: the payout awaiting approval is `cancelled` and its amount
/// credited back, by its own member, an owner or an admin.
#[derive(Debug, Clone, Serialize)]
pub struct CancelPayout {
    pub payout_id: PayoutId,
}

impl Command for CancelPayout {
    const ENDPOINT: &'static str = "POST /v1/payouts/{id}/cancel";

    async fn apply(&self, once: Once, caller: &Caller<'_>) -> Result<Ran, Error> {
        once.transaction(async |conn| decide(conn, caller, &self.payout_id, Decision::Cancel).await)
            .await
    }
}

/// Makes `decision` on the payout in `conn`'s transaction: one conditional `UPDATE` from
/// `pending_approval` (an approval or rejection never by the payout's own member, a cancellation
/// only by them, an owner or an admin), then its event, its audit entry and, for a rejection or
/// a cancellation, the credit. A payout that is no longer awaiting approval is `409`.
async fn decide(
    conn: &mut PgConnection,
    caller: &Caller<'_>,
    payout_id: &PayoutId,
    decision: Decision,
) -> Result<StoredResponse, Error> {
    let merchant_id = caller.merchant_id;
    let to = decision.to();
    let member = caller.maker.map(|maker| maker.email.as_str());
    let decided: Option<Payout> = sqlx::query_as(&format!(
        "UPDATE payouts SET status = $3::text, decided_by = $4::text, decided_at = now(), \
           updated_at = now(), next_attempt_at = CASE WHEN $3::text = 'pending' THEN now() END \
         WHERE merchant_id = $1 AND id = $2 AND status = ANY($6) \
           AND CASE WHEN $3::text = 'cancelled' THEN $7 OR accountable = $5::text \
             ELSE accountable IS DISTINCT FROM $5::text END \
         RETURNING {PAYOUT_COLUMNS}"
    ))
    .bind(merchant_id)
    .bind(payout_id)
    .bind(to.as_str())
    .bind(caller.by.actor.name())
    .bind(member)
    .bind(PayoutStatus::names_of_states_before(to))
    .bind(cancels_any(caller.maker))
    .fetch_optional(&mut *conn)
    .await?;
    let Some(payout) = decided else {
        return Err(not_decided(conn, caller, payout_id, decision).await?);
    };
    publish(&mut *conn, merchant_id, decision.event(), &payout).await?;
    let posting = Posting {
        merchant_id,
        currency: &payout.currency,
        amount: payout.amount,
        movement: decision.movement(),
        source: Source::payout(&payout.id),
    };
    ledger::post_credit(conn, &posting).await?;
    let entry = Entry::new(
        merchant_id,
        caller.by,
        decision.action(),
        ObjectType::Payout,
        payout.id.as_str(),
    )
    .before(json!({ "status": PayoutStatus::PendingApproval }))
    .after(
        json!({ "status": payout.status, "amount": payout.amount, "currency": payout.currency }),
    );
    audit::record(conn, &entry).await?;
    let resource = Resource::new("payout", payout.id.to_string());
    Ok(StoredResponse::ok(&payout, resource))
}

/// Why a decision changed nothing: no such payout, its own member deciding (or another member
/// cancelling), or it is no longer awaiting approval.
async fn not_decided(
    conn: &mut PgConnection,
    caller: &Caller<'_>,
    payout_id: &PayoutId,
    decision: Decision,
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
        return Ok(match decision {
            Decision::Cancel => NotADecider::NotTheCreator,
            Decision::Approve | Decision::Reject => NotADecider::OwnPayout,
        }
        .into());
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
        let made_by_maker = Some("maker@shop.test");
        let made_by_key_of_nobody = None;
        for role in [Role::Owner, Role::Admin, Role::Finance] {
            assert_eq!(may_decide(Some(role), &checker, made_by_maker), Ok(()));
            assert_eq!(
                may_decide(Some(role), &maker, made_by_key_of_nobody),
                Ok(())
            );
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
        let key = Actor::ApiKey("key_2".into());
        let support = Actor::Support("support@kaadxpay.test".to_owned());
        for actor in [key, support] {
            assert_eq!(
                may_decide(Some(Role::Owner), &actor, made_by_maker),
                Err(NotADecider::Role)
            );
        }
    }
}
