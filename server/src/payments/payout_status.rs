//! Where a payout stands (API.md §4), and the moves between its states: a payout at or above
//! its merchant's approval threshold starts `pending_approval` and moves to `pending` when
//! another member approves it, or to `rejected` (its amount comes back); a payout is `pending`
//! until the partner accepts its transfer (`in_transit`) or says it is `paid`; it `failed` (its
//! amount comes back) only before it was paid; it is `reversed` (its amount comes back) when its
//! own transfer returns, from any state but the final ones. Stored and shown as its snake_case
//! name.

use serde::Serialize;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum PayoutStatus {
    PendingApproval,
    Rejected,
    Pending,
    InTransit,
    Paid,
    Failed,
    Reversed,
}

impl PayoutStatus {
    pub const ALL: [Self; 7] = [
        Self::PendingApproval,
        Self::Rejected,
        Self::Pending,
        Self::InTransit,
        Self::Paid,
        Self::Failed,
        Self::Reversed,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Self::PendingApproval => "pending_approval",
            Self::Rejected => "rejected",
            Self::Pending => "pending",
            Self::InTransit => "in_transit",
            Self::Paid => "paid",
            Self::Failed => "failed",
            Self::Reversed => "reversed",
        }
    }

    /// Whether a payout in this state may move to `to`.
    pub fn may_become(self, to: Self) -> bool {
        use PayoutStatus::*;
        matches!(
            (self, to),
            (PendingApproval, Pending | Rejected)
                | (Pending, InTransit | Paid | Failed | Reversed)
                | (InTransit, Paid | Failed | Reversed)
                | (Paid, Reversed)
        )
    }

    /// The states a payout may move to `to` from, by name, as a statement binds them.
    pub fn names_of_states_before(to: Self) -> Vec<&'static str> {
        Self::ALL
            .into_iter()
            .filter(|from| from.may_become(to))
            .map(Self::as_str)
            .collect()
    }

    /// Whether the partner may have been sent the payout's money by now.
    pub fn may_have_left(self) -> bool {
        matches!(self, Self::InTransit | Self::Paid | Self::Reversed)
    }
}

impl TryFrom<String> for PayoutStatus {
    type Error = String;

    fn try_from(name: String) -> Result<Self, String> {
        Self::ALL
            .into_iter()
            .find(|status| status.as_str() == name)
            .ok_or_else(|| format!("{name:?} is not a payout status"))
    }
}

impl std::fmt::Display for PayoutStatus {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
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
        }
        assert!(PayoutStatus::try_from("lost".to_owned()).is_err());
    }
}
