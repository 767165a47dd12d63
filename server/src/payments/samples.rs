//! A made-up object for each event type, in the state the event reports: what a test event
//! (API.md §5, "send a test event") carries, so that a receiver sees the real shape.

use chrono::{SubsecRound, Utc};
use kaadxpay_partner::wire::Destination;
use kaadxpay_types::ids::{new_id, OrderId, PayoutId, RefundId, TopUpId};
use kaadxpay_types::{OrderStatus, PayoutStatus, RefundStatus};
use serde_json::Value;
use sqlx::types::Json;

use super::events::{EventObject, EventType};
use super::orders::Order;
use super::payouts::Payout;
use super::refunds::Refund;
use super::top_ups::TopUp;

/// The made-up `data.object` of an event of `kind`.
pub fn object_of(kind: EventType) -> Value {
    let object = match kind.object() {
        EventObject::Order => serde_json::to_value(order(kind)),
        EventObject::Payout => serde_json::to_value(payout(kind)),
        EventObject::Refund => serde_json::to_value(refund(kind)),
        EventObject::TopUp => serde_json::to_value(top_up()),
    };
    object.expect("a sample object serialises")
}

fn order(kind: EventType) -> Order {
    let now = Utc::now().trunc_subsecs(6);
    let status = match kind {
        EventType::OrderCaptured => OrderStatus::Captured,
        EventType::OrderCancelled => OrderStatus::Cancelled,
        _ => OrderStatus::Pending,
    };
    Order {
        id: OrderId::new(),
        object: "order".to_owned(),
        amount: 1200,
        amount_refunded: 0,
        currency: "EUR".to_owned(),
        status,
        description: Some("Test order".to_owned()),
        metadata: Json([("test".to_owned(), "true".to_owned())].into()),
        created_at: now,
        updated_at: now,
    }
}

fn payout(kind: EventType) -> Payout {
    let now = Utc::now().trunc_subsecs(6);
    let status = match kind {
        EventType::PayoutInTransit => PayoutStatus::InTransit,
        EventType::PayoutPaid => PayoutStatus::Paid,
        EventType::PayoutFailed => PayoutStatus::Failed,
        EventType::PayoutReversed => PayoutStatus::Reversed,
        EventType::PayoutPendingApproval => PayoutStatus::PendingApproval,
        EventType::PayoutRejected => PayoutStatus::Rejected,
        EventType::PayoutCancelled => PayoutStatus::Cancelled,
        _ => PayoutStatus::Pending,
    };
    let sent = !matches!(
        status,
        PayoutStatus::Pending
            | PayoutStatus::PendingApproval
            | PayoutStatus::Rejected
            | PayoutStatus::Cancelled
    );
    Payout {
        id: PayoutId::new(),
        object: "payout".to_owned(),
        amount: 50000,
        currency: "EUR".to_owned(),
        status,
        destination: Json(Destination {
            account_holder: "Test Account Holder".to_owned(),
            iban: "DE89370400440532013000".to_owned(),
        }),
        description: Some("Test payout".to_owned()),
        idempotency_key: "test-payout".to_owned(),
        partner_transfer_id: sent.then(|| new_id("tr")),
        failure_code: (status == PayoutStatus::Failed).then(|| "partner_failed".to_owned()),
        duplicates_reversed: 0,
        created_at: now,
        updated_at: now,
    }
}

fn refund(kind: EventType) -> Refund {
    let now = Utc::now().trunc_subsecs(6);
    let status = match kind {
        EventType::RefundSucceeded => RefundStatus::Succeeded,
        EventType::RefundFailed => RefundStatus::Failed,
        _ => RefundStatus::Pending,
    };
    Refund {
        id: RefundId::new(),
        object: "refund".to_owned(),
        order: OrderId::new(),
        amount: 1200,
        currency: "EUR".to_owned(),
        status,
        destination: Json(Destination {
            account_holder: "Test Customer".to_owned(),
            iban: "DE89370400440532013000".to_owned(),
        }),
        reason: Some("requested_by_customer".to_owned()),
        description: Some("Test refund".to_owned()),
        failure_code: (status == RefundStatus::Failed).then(|| "partner_failed".to_owned()),
        idempotency_key: "test-refund".to_owned(),
        created_at: now,
        updated_at: now,
    }
}

fn top_up() -> TopUp {
    TopUp {
        id: TopUpId::new(),
        object: "top_up".to_owned(),
        amount: 25000,
        currency: "EUR".to_owned(),
        partner_incoming_id: new_id("in"),
        created_at: Utc::now().trunc_subsecs(6),
    }
}
