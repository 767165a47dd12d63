//! The events the domain raises (API.md §5): every event type ([`EventType`], named once in
//! `kaadxpay-types` with the kind of object its `data.object` carries, so that the console
//! shares it), and the type as a request names it (an endpoint's subscriptions). `webhooks/`
//! stores and delivers them; a test event's made-up object is `super::samples`'.

use serde::{Deserialize, Serialize};
use utoipa::openapi::schema::{ObjectBuilder, Schema, Type};
use utoipa::openapi::RefOr;

pub use kaadxpay_types::{EventObject, EventType};

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
                EventType::NAMES.join(", ")
            )
        })
    }
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
            .enum_values(Some(EventType::NAMES))
            .into()
    }
}

/// Named for what it lists: every event type (an event's `event_type` has the same schema).
impl utoipa::ToSchema for KnownEventType {
    fn name() -> std::borrow::Cow<'static, str> {
        "EventType".into()
    }
}
