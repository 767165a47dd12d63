//! The events the domain raises (API.md §5): every event type, named once with the kind of
//! object its `data.object` carries, and the type as a request names it (an endpoint's
//! subscriptions). `webhooks/` stores and delivers them; a test event's made-up object is
//! `super::samples`'.

use serde::{Deserialize, Serialize};
use utoipa::openapi::schema::{ObjectBuilder, Schema, Type};
use utoipa::openapi::RefOr;

macro_rules! event_types {
    ($($variant:ident => $name:literal about $object:ident,)+) => {
        /// What happened; its name (`order.created`, ...) is the `event_type` merchants see.
        #[derive(Debug, Clone, Copy, PartialEq, Eq)]
        pub enum EventType {
            $($variant,)+
        }

        impl EventType {
            pub const ALL: [Self; [$(Self::$variant),+].len()] = [$(Self::$variant),+];

            pub fn as_str(self) -> &'static str {
                match self {
                    $(Self::$variant => $name,)+
                }
            }

            /// What the event's `data.object` is.
            pub fn object(self) -> EventObject {
                match self {
                    $(Self::$variant => EventObject::$object,)+
                }
            }
        }
    };
}

event_types! {
    OrderCreated => "order.created" about Order,
    OrderCaptured => "order.captured" about Order,
    OrderCancelled => "order.cancelled" about Order,
    PayoutCreated => "payout.created" about Payout,
    PayoutInTransit => "payout.in_transit" about Payout,
    PayoutPaid => "payout.paid" about Payout,
    PayoutFailed => "payout.failed" about Payout,
    PayoutReversed => "payout.reversed" about Payout,
    PayoutPendingApproval => "payout.pending_approval" about Payout,
    PayoutApproved => "payout.approved" about Payout,
    PayoutRejected => "payout.rejected" about Payout,
    PayoutCancelled => "payout.cancelled" about Payout,
    RefundCreated => "refund.created" about Refund,
    RefundSucceeded => "refund.succeeded" about Refund,
    RefundFailed => "refund.failed" about Refund,
    TopUpReceived => "top_up.received" about TopUp,
}

/// The kinds of object an event's `data.object` is, each with its own schema.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EventObject {
    Order,
    Payout,
    Refund,
    TopUp,
}

impl EventType {
    pub fn parse(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|kind| kind.as_str() == name)
    }
}

/// An event type as a request names it (an unknown name is refused with the list of known ones),
/// and as the OpenAPI document lists them.
#[derive(Debug, Clone, Copy, Serialize, Deserialize)]
#[serde(try_from = "String", into = "&'static str")]
pub struct KnownEventType(pub EventType);

impl TryFrom<String> for KnownEventType {
    type Error = String;

    fn try_from(name: String) -> Result<Self, String> {
        EventType::parse(&name).map(Self).ok_or_else(|| {
            format!(
                "unknown event type {name}; use one of {}",
                known_event_names().join(", ")
            )
        })
    }
}

/// Every event type's name, in the order of [`EventType::ALL`].
pub fn known_event_names() -> Vec<&'static str> {
    EventType::ALL.iter().map(|kind| kind.as_str()).collect()
}

impl From<KnownEventType> for &'static str {
    fn from(kind: KnownEventType) -> Self {
        kind.0.as_str()
    }
}

impl utoipa::PartialSchema for KnownEventType {
    fn schema() -> RefOr<Schema> {
        ObjectBuilder::new()
            .schema_type(Type::String)
            .enum_values(Some(known_event_names()))
            .into()
    }
}

/// Named for what it lists: every event type (an event's `event_type` has the same schema).
impl utoipa::ToSchema for KnownEventType {
    fn name() -> std::borrow::Cow<'static, str> {
        "EventType".into()
    }
}
