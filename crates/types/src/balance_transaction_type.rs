//! What changed a merchant's `available` balance (API.md §13): the `type` of a statement item,
//! and the words of the statement's filter. The ledger's movements that touch `available` are
//! exactly these (the server's `payments::ledger` checks it).

use serde::Serialize;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum BalanceTransactionType {
    OrderCaptured,
    Payout,
    PayoutReturned,
    Refund,
    RefundReturned,
    TopUp,
    Reservation,
    ReservationReleased,
}

status_names!(BalanceTransactionType, "a balance transaction type", {
    OrderCaptured => "order_captured",
    Payout => "payout",
    PayoutReturned => "payout_returned",
    Refund => "refund",
    RefundReturned => "refund_returned",
    TopUp => "top_up",
    Reservation => "reservation",
    ReservationReleased => "reservation_released",
});

#[cfg(test)]
mod tests {
    use super::BalanceTransactionType;

    #[test]
    fn names_read_back_as_their_type() {
        for kind in BalanceTransactionType::ALL {
            assert_eq!(BalanceTransactionType::try_from(kind.to_string()), Ok(kind));
            assert_eq!(serde_json::to_value(kind).unwrap(), kind.as_str());
        }
    }
}
