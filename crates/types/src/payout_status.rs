//! Where a payout stands (API.md §4), and the moves between its states: a payout at or above
//! its merchant's approval threshold starts `pending_approval` and moves to `pending` when
//! another member approves it, or to `rejected` (its amount comes back), or to `cancelled` by its
//! creator (its amount comes back too); a payout is `pending`
//! until the partner accepts its transfer (`in_transit`) or says it is `paid`; it `failed` (its
//! amount comes back) only before it was paid; it is `reversed` (its amount comes back) when its
//! own transfer returns, from any state but the final ones. Stored and shown as its snake_case
//! name.

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum PayoutStatus {
    PendingApproval,
    Rejected,
    Cancelled,
    Pending,
    InTransit,
    Paid,
    Failed,
    Reversed,
}

status_names!(PayoutStatus, "a payout status", {
    PendingApproval => "pending_approval",
    Rejected => "rejected",
    Cancelled => "cancelled",
    Pending => "pending",
    InTransit => "in_transit",
    Paid => "paid",
    Failed => "failed",
    Reversed => "reversed",
});

impl PayoutStatus {
    /// The state a payout is created in: `pending_approval` when it awaits approval, else
    /// `pending`.
    pub fn at_creation(awaits_approval: bool) -> Self {
        match awaits_approval {
            true => Self::PendingApproval,
            false => Self::Pending,
        }
    }

    /// Whether a payout in this state may move to `to`.
    pub fn may_become(self, to: Self) -> bool {
        use PayoutStatus::*;
        matches!(
            (self, to),
            (PendingApproval, Pending | Rejected | Cancelled)
                | (Pending, InTransit | Paid | Failed | Reversed)
                | (InTransit, Paid | Failed | Reversed)
                | (Paid, Reversed)
        )
    }

    /// The states a payout may move to `to` from, by name, as a statement binds them.
    pub fn names_of_states_before(to: Self) -> Vec<&'static str> {
        crate::names_of_states_before(&Self::ALL, to, Self::may_become, Self::as_str)
    }

    /// Whether the partner may have been sent the payout's money by now.
    pub fn may_have_left(self) -> bool {
        matches!(self, Self::InTransit | Self::Paid | Self::Reversed)
    }
}

#[cfg(test)]
mod tests {
    use super::PayoutStatus::{self, *};

    #[test]
    fn each_move_starts_where_the_contract_allows() {
        assert_eq!(PayoutStatus::names_of_states_before(InTransit), ["pending"]);
        assert_eq!(
            PayoutStatus::names_of_states_before(Paid),
            ["pending", "in_transit"]
        );
        assert_eq!(
            PayoutStatus::names_of_states_before(Failed),
            ["pending", "in_transit"]
        );
        assert_eq!(
            PayoutStatus::names_of_states_before(Reversed),
            ["pending", "in_transit", "paid"]
        );
        assert_eq!(
            PayoutStatus::names_of_states_before(Pending),
            ["pending_approval"]
        );
        assert_eq!(
            PayoutStatus::names_of_states_before(Rejected),
            ["pending_approval"]
        );
        assert!(PayoutStatus::names_of_states_before(PendingApproval).is_empty());
        for end in [Failed, Reversed, Rejected] {
            assert!(PayoutStatus::ALL.iter().all(|to| !end.may_become(*to)));
        }
    }

    #[test]
    fn names_read_back_as_their_status() {
        for status in PayoutStatus::ALL {
            assert_eq!(PayoutStatus::try_from(status.to_string()), Ok(status));
            assert_eq!(serde_json::to_value(status).unwrap(), status.as_str());
        }
        assert!(PayoutStatus::try_from("lost".to_owned()).is_err());
    }
}
