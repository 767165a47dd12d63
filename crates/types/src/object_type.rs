//! What a record is about: the [`ObjectType`] of an audit log entry, and of a statement item's
//! source.

use serde::Serialize;

/// The kind of object an audit log entry is about (`webhook_endpoint`), or that changed a
/// statement item's balance (`order`, `payout`, `refund`, `top_up`, `reversal`), stored and
/// shown as its snake_case name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ObjectType {
    User,
    Member,
    Invitation,
    ApiKey,
    IdempotencyKey,
    WebhookEndpoint,
    Event,
    Payout,
    PayoutThreshold,
    Order,
    Refund,
    TopUp,
    Reversal,
    Merchant,
    ReconciliationRun,
}

status_names!(ObjectType, "an object type", {
    User => "user",
    Member => "member",
    Invitation => "invitation",
    ApiKey => "api_key",
    IdempotencyKey => "idempotency_key",
    WebhookEndpoint => "webhook_endpoint",
    Event => "event",
    Payout => "payout",
    PayoutThreshold => "payout_threshold",
    Order => "order",
    Refund => "refund",
    TopUp => "top_up",
    Reversal => "reversal",
    Merchant => "merchant",
    ReconciliationRun => "reconciliation_run",
});
