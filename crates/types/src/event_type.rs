//! What happened, as merchants' webhooks name it (API.md §5): every event type once, with the
//! kind of object its `data.object` carries. The server raises and delivers them; the console
//! lists and shows them.

use serde::{Deserialize, Serialize};

/// What happened; its name (`order.created`, ...) is the `event_type` merchants see, and what
/// it reads and writes as in JSON (a name that is none of these does not read).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[serde(try_from = "String", into = "&'static str")]
pub enum EventType {
    OrderCreated,
    OrderCaptured,
    OrderCancelled,
    PayoutCreated,
    PayoutInTransit,
    PayoutPaid,
    PayoutFailed,
    PayoutReversed,
    PayoutPendingApproval,
    PayoutApproved,
    PayoutRejected,
    PayoutCancelled,
    RefundCreated,
    RefundSucceeded,
    RefundFailed,
    TopUpReceived,
}

status_names!(EventType, "an event type", {
    OrderCreated => "order.created",
    OrderCaptured => "order.captured",
    OrderCancelled => "order.cancelled",
    PayoutCreated => "payout.created",
    PayoutInTransit => "payout.in_transit",
    PayoutPaid => "payout.paid",
    PayoutFailed => "payout.failed",
    PayoutReversed => "payout.reversed",
    PayoutPendingApproval => "payout.pending_approval",
    PayoutApproved => "payout.approved",
    PayoutRejected => "payout.rejected",
    PayoutCancelled => "payout.cancelled",
    RefundCreated => "refund.created",
    RefundSucceeded => "refund.succeeded",
    RefundFailed => "refund.failed",
    TopUpReceived => "top_up.received",
});

impl From<EventType> for &'static str {
    fn from(kind: EventType) -> Self {
        kind.as_str()
    }
}

/// The kinds of object an event's `data.object` is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EventObject {
    Order,
    Payout,
    Refund,
    TopUp,
}

impl EventType {
    /// The event type named `name`, if it is one.
    pub fn parse(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|kind| kind.as_str() == name)
    }

    /// What the event's `data.object` is.
    pub fn object(self) -> EventObject {
        use EventType::*;
        match self {
            OrderCreated | OrderCaptured | OrderCancelled => EventObject::Order,
            PayoutCreated
            | PayoutInTransit
            | PayoutPaid
            | PayoutFailed
            | PayoutReversed
            | PayoutPendingApproval
            | PayoutApproved
            | PayoutRejected
            | PayoutCancelled => EventObject::Payout,
            RefundCreated | RefundSucceeded | RefundFailed => EventObject::Refund,
            TopUpReceived => EventObject::TopUp,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_type_carries_the_object_its_name_begins_with() {
        for kind in EventType::ALL {
            let object = match kind.as_str().split('.').next().unwrap() {
                "order" => EventObject::Order,
                "payout" => EventObject::Payout,
                "refund" => EventObject::Refund,
                "top_up" => EventObject::TopUp,
                other => panic!("{kind:?} begins with {other}"),
            };
            assert_eq!(kind.object(), object, "{kind:?}");
            assert_eq!(EventType::parse(kind.as_str()), Some(kind));
        }
        assert_eq!(EventType::parse("order.deleted"), None);
    }
}
