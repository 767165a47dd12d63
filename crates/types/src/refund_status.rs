//! Where a refund stands (API.md §13): `pending` when made (its amount already left
//! `available`), `in_transit` once the partner accepted its transfer, `succeeded` when the
//! partner paid it, or `failed` (its amount comes back, and may be refunded again) when no
//! transfer of it can exist, its transfer failed, or its transfer came back. Stored and shown as
//! its snake_case name.
//!
//! A refund's transfer goes through the same partner path as a payout's (the worker, the
//! partner's webhooks, reconciliation), which judge a transfer by payout states:
//! [`RefundStatus::transfer_stage`] says which one a refund's state means.

use serde::{Deserialize, Serialize};

use crate::PayoutStatus;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum RefundStatus {
    Pending,
    InTransit,
    Succeeded,
    Failed,
}

status_names!(RefundStatus, "a refund status", {
    Pending => "pending",
    InTransit => "in_transit",
    Succeeded => "succeeded",
    Failed => "failed",
});

impl RefundStatus {
    /// Whether a refund in this state may move to `to`: a failure only before it succeeded (a
    /// succeeded refund fails only when its own transfer comes back, which
    /// [`RefundStatus::returned_from`] allows).
    pub fn may_become(self, to: Self) -> bool {
        use RefundStatus::*;
        matches!(
            (self, to),
            (Pending, InTransit | Succeeded | Failed) | (InTransit, Succeeded | Failed)
        )
    }

    /// The states a refund may move to `to` from, by name, as a statement binds them.
    pub fn names_of_states_before(to: Self) -> Vec<&'static str> {
        crate::names_of_states_before(&Self::ALL, to, Self::may_become, Self::as_str)
    }

    /// The states a refund whose own transfer came back (the partner reversed it) fails from:
    /// any but `failed`.
    pub fn returned_from() -> Vec<&'static str> {
        Self::ALL
            .into_iter()
            .filter(|from| *from != Self::Failed)
            .map(Self::as_str)
            .collect()
    }

    /// What this state says of the refund's transfer, as the payout state that says the same
    /// (`succeeded` is `paid`): the partner path judges payouts' and refunds' transfers alike.
    pub fn transfer_stage(self) -> PayoutStatus {
        match self {
            Self::Pending => PayoutStatus::Pending,
            Self::InTransit => PayoutStatus::InTransit,
            Self::Succeeded => PayoutStatus::Paid,
            Self::Failed => PayoutStatus::Failed,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::RefundStatus::{self, *};

    #[test]
    fn each_move_starts_where_the_contract_allows() {
        let before = |to| RefundStatus::names_of_states_before(to).join(",");
        assert_eq!(before(InTransit), "pending");
        assert_eq!(before(Succeeded), "pending,in_transit");
        assert_eq!(before(Failed), "pending,in_transit");
        let returned = RefundStatus::returned_from().join(",");
        assert_eq!(returned, "pending,in_transit,succeeded");
        assert!(RefundStatus::ALL.iter().all(|to| !Failed.may_become(*to)));
        assert_eq!(Succeeded.transfer_stage(), crate::PayoutStatus::Paid);
        assert_eq!(serde_json::to_value(InTransit).unwrap(), "in_transit");
    }
}
