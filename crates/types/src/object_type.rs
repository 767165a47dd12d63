//! What a record is about: the [`ObjectType`] of an audit log entry, of a statement item's
//! source and of the resource an idempotency key made, and the [`ObjectRef`] that names one
//! such object by its typed id.

use serde::Serialize;

use crate::ids::{
    ApiKeyId, EndpointId, EventId, InvitationId, MerchantId, OrderId, ParseId, PayoutId, RefundId,
    RunId, TopUpId, UserId,
};
use crate::{Currency, IdempotencyKey, TransferOf};

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

/// One object a record is about, by its id typed per kind: its [`ObjectType`] follows from the
/// variant, so kind and id never disagree. Read from a stored kind and id ([`ObjectRef::stored`])
/// only when the id is one of that kind; shown as its id.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ObjectRef {
    User(UserId),
    /// A member of a merchant's team: its user.
    Member(UserId),
    Invitation(InvitationId),
    ApiKey(ApiKeyId),
    /// An idempotency key: the key itself, as its merchant chose it.
    IdempotencyKey(IdempotencyKey),
    WebhookEndpoint(EndpointId),
    Event(EventId),
    Payout(PayoutId),
    /// The approval threshold of payouts in a currency: the currency.
    PayoutThreshold(Currency),
    Order(OrderId),
    Refund(RefundId),
    TopUp(TopUpId),
    /// The partner's return of the transfer of a payout or a refund: that payout or refund.
    Reversal(TransferOf),
    Merchant(MerchantId),
    ReconciliationRun(RunId),
}

impl ObjectRef {
    /// The object of type `kind` with `id`, or the reason it is none: an id not of that kind.
    pub fn named(kind: ObjectType, id: String) -> Result<Self, String> {
        fn parsed<Id: ParseId>(id: &str, object: fn(Id) -> ObjectRef) -> Option<ObjectRef> {
            Id::parse(id).map(object)
        }
        let object = match kind {
            ObjectType::User => parsed(&id, Self::User),
            ObjectType::Member => parsed(&id, Self::Member),
            ObjectType::Invitation => parsed(&id, Self::Invitation),
            ObjectType::ApiKey => parsed(&id, Self::ApiKey),
            ObjectType::IdempotencyKey => IdempotencyKey::parse(id.as_bytes())
                .ok()
                .map(Self::IdempotencyKey),
            ObjectType::WebhookEndpoint => parsed(&id, Self::WebhookEndpoint),
            ObjectType::Event => parsed(&id, Self::Event),
            ObjectType::Payout => parsed(&id, Self::Payout),
            ObjectType::PayoutThreshold => Currency::parse(&id).ok().map(Self::PayoutThreshold),
            ObjectType::Order => parsed(&id, Self::Order),
            ObjectType::Refund => parsed(&id, Self::Refund),
            ObjectType::TopUp => parsed(&id, Self::TopUp),
            ObjectType::Reversal => TransferOf::of(&id).map(Self::Reversal),
            ObjectType::Merchant => parsed(&id, Self::Merchant),
            ObjectType::ReconciliationRun => parsed(&id, Self::ReconciliationRun),
        };
        object.ok_or_else(|| format!("{id:?} is no {kind}'s id"))
    }

    /// The object a record stores as its type's name and its id; an unknown type, or an id not
    /// of it, is an error.
    pub fn stored(kind: String, id: String) -> Result<Self, String> {
        Self::named(ObjectType::try_from(kind)?, id)
    }

    pub fn kind(&self) -> ObjectType {
        match self {
            Self::User(_) => ObjectType::User,
            Self::Member(_) => ObjectType::Member,
            Self::Invitation(_) => ObjectType::Invitation,
            Self::ApiKey(_) => ObjectType::ApiKey,
            Self::IdempotencyKey(_) => ObjectType::IdempotencyKey,
            Self::WebhookEndpoint(_) => ObjectType::WebhookEndpoint,
            Self::Event(_) => ObjectType::Event,
            Self::Payout(_) => ObjectType::Payout,
            Self::PayoutThreshold(_) => ObjectType::PayoutThreshold,
            Self::Order(_) => ObjectType::Order,
            Self::Refund(_) => ObjectType::Refund,
            Self::TopUp(_) => ObjectType::TopUp,
            Self::Reversal(_) => ObjectType::Reversal,
            Self::Merchant(_) => ObjectType::Merchant,
            Self::ReconciliationRun(_) => ObjectType::ReconciliationRun,
        }
    }

    /// Its id as text (a threshold's: its currency's code).
    pub fn id(&self) -> &str {
        match self {
            Self::User(id) | Self::Member(id) => id,
            Self::Invitation(id) => id,
            Self::ApiKey(id) => id,
            Self::IdempotencyKey(key) => key.as_str(),
            Self::WebhookEndpoint(id) => id,
            Self::Event(id) => id,
            Self::Payout(id) => id,
            Self::PayoutThreshold(currency) => currency.code(),
            Self::Order(id) => id,
            Self::Refund(id) => id,
            Self::TopUp(id) => id,
            Self::Reversal(of) => of.as_str(),
            Self::Merchant(id) => id,
            Self::ReconciliationRun(id) => id,
        }
    }
}

impl std::fmt::Display for ObjectRef {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.id())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_object_is_read_only_with_an_id_of_its_type() {
        let named = |kind: &str, id: &str| ObjectRef::stored(kind.into(), id.into());
        assert_eq!(
            named("payout", "po_1"),
            Ok(ObjectRef::Payout("po_1".into()))
        );
        assert_eq!(
            named("member", "usr_1").map(|object| object.kind()),
            Ok(ObjectType::Member)
        );
        assert_eq!(
            named("reversal", "re_1"),
            Ok(ObjectRef::Reversal(TransferOf::Refund("re_1".into())))
        );
        assert_eq!(
            named("payout_threshold", "EUR").map(|object| object.to_string()),
            Ok("EUR".into())
        );
        assert_eq!(
            named("idempotency_key", "any-key").map(|object| object.kind()),
            Ok(ObjectType::IdempotencyKey)
        );
        for (kind, id) in [
            ("payout", "ord_1"),
            ("order", "odd"),
            ("reversal", "tu_1"),
            ("payout_threshold", "XXX"),
            ("event", "evt_1"),
            ("teapot", "po_1"),
            ("idempotency_key", "two words"),
        ] {
            assert!(named(kind, id).is_err(), "{kind} {id}");
        }
    }
}
