//! Prefixed, random identifiers (`mer_`, `ord_`, `po_`, ...): 24 base-62 characters after the
//! prefix, about 143 bits of randomness, so they never collide and never reveal a count.
//!
//! Every kind of id has a type of its own ([`MerchantId`], [`OrderId`], [`PayoutId`],
//! [`UserId`], [`ApiKeyId`], ..., made by [`id_type!`] as svix's `create_id_type!` does), so a
//! payout's id cannot be passed where an order's belongs, in the server or across the console.
//! Each reads as its text (`Deref` to `str`, `Display`), serialises as it, and, with the feature
//! `sqlx`, binds and decodes as `TEXT`. [`ParseId`] reads one from text only if it is of its
//! kind (a page's cursor, a stored object of one of several kinds). Making new ones (`new`, [`new_id`], [`random_token`]) needs the feature `ids`.

#[cfg(feature = "ids")]
use rand::{distributions::Alphanumeric, Rng};

#[cfg(feature = "ids")]
pub fn new_id(prefix: &str) -> String {
    format!("{prefix}_{}", random_token(24))
}

/// A random alphanumeric string, for identifiers and secrets.
#[cfg(feature = "ids")]
pub fn random_token(len: usize) -> String {
    rand::thread_rng()
        .sample_iter(&Alphanumeric)
        .take(len)
        .map(char::from)
        .collect()
}

/// An id read from text whose kind is not the reader's to give (a page's address, a stored
/// column that may name objects of several kinds).
pub trait ParseId: Sized {
    /// The id `text` if it is one of this kind (its prefix and `_`; an event's, a UUID), `None`
    /// otherwise.
    fn parse(text: &str) -> Option<Self>;
}

/// Whether `text` is a UUID as PostgreSQL writes one: hex digits in groups of 8-4-4-4-12.
fn is_uuid(text: &str) -> bool {
    let groups: Vec<&str> = text.split('-').collect();
    groups.iter().map(|group| group.len()).eq([8, 4, 4, 4, 12])
        && groups
            .iter()
            .all(|group| group.bytes().all(|byte| byte.is_ascii_hexdigit()))
}

/// Declares an id type: a `String` newtype with its prefix (or `uuid`, for an id that is one).
macro_rules! id_type {
    ($(#[$doc:meta])* $name:ident, uuid) => {
        id_type!(@text $(#[$doc])* $name);

        impl ParseId for $name {
            fn parse(text: &str) -> Option<Self> {
                is_uuid(text).then(|| Self(text.to_owned()))
            }
        }
    };
    ($(#[$doc:meta])* $name:ident, $prefix:literal) => {
        id_type!(@text $(#[$doc])* $name);

        impl $name {
            /// What every id of this kind begins with, before its `_`.
            pub const PREFIX: &'static str = $prefix;

            /// A new, random id of this kind.
            #[cfg(feature = "ids")]
            #[allow(clippy::new_without_default)]
            pub fn new() -> Self {
                Self(new_id($prefix))
            }
        }

        impl ParseId for $name {
            fn parse(text: &str) -> Option<Self> {
                (text.split_once('_')?.0 == $prefix).then(|| Self(text.to_owned()))
            }
        }
    };
    (@text $(#[$doc:meta])* $name:ident) => {
        $(#[$doc])*
        #[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize)]
        #[serde(transparent)]
        #[cfg_attr(feature = "sqlx", derive(sqlx::Type), sqlx(transparent))]
        pub struct $name(String);

        impl $name {
            pub fn as_str(&self) -> &str {
                &self.0
            }
        }

        /// An id as stored or as given: its kind is the caller's word (a row of its table, a
        /// session's merchant, a path that names one).
        impl From<String> for $name {
            fn from(id: String) -> Self {
                Self(id)
            }
        }

        impl From<&str> for $name {
            fn from(id: &str) -> Self {
                Self(id.to_owned())
            }
        }

        impl From<$name> for String {
            fn from(id: $name) -> String {
                id.0
            }
        }

        impl std::ops::Deref for $name {
            type Target = str;

            fn deref(&self) -> &str {
                &self.0
            }
        }

        impl AsRef<str> for $name {
            fn as_ref(&self) -> &str {
                &self.0
            }
        }

        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(&self.0)
            }
        }
    };
}

id_type!(
    /// A merchant: the owner of every other row, and the scope of every idempotency key.
    MerchantId,
    "mer"
);
id_type!(
    /// An order (`POST /v1/orders`).
    OrderId,
    "ord"
);
id_type!(
    /// A payout (`POST /v1/payouts`).
    PayoutId,
    "po"
);
id_type!(
    /// A webhook endpoint (`POST /v1/webhook-endpoints`).
    EndpointId,
    "whe"
);
id_type!(
    /// A refund of a captured order (`POST /v1/orders/{id}/refunds`).
    RefundId,
    "re"
);
id_type!(
    /// Money received from the partner for a merchant (`GET /v1/top-ups`).
    TopUpId,
    "tu"
);
id_type!(
    /// One item of a merchant's statement: a change of its `available` balance.
    BalanceTransactionId,
    "btx"
);
id_type!(
    /// A person who signs in to the console: a merchant's member or support staff.
    UserId,
    "usr"
);
id_type!(
    /// One of a merchant's API keys (its record, never its secret).
    ApiKeyId,
    "key"
);
id_type!(
    /// An event the merchant's webhook endpoints are sent: a UUID.
    EventId,
    uuid
);
id_type!(
    /// A reconciliation run.
    RunId,
    "rec"
);
id_type!(
    /// An invitation to join a merchant's team.
    InvitationId,
    "inv"
);
id_type!(
    /// A request the server answered, in the request log (also its `X-Request-Id`).
    RequestId,
    "req"
);
id_type!(
    /// An entry of a merchant's audit log.
    AuditEntryId,
    "aud"
);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_id_reads_binds_and_serialises_as_its_text() {
        let id = PayoutId::from("po_123");
        assert_eq!(&*id, "po_123");
        assert_eq!(id.to_string(), "po_123");
        assert_eq!(serde_json::to_string(&id).unwrap(), "\"po_123\"");
        assert_eq!(PayoutId::PREFIX, "po");
    }

    #[test]
    fn an_id_parses_only_as_its_own_kind() {
        assert_eq!(PayoutId::parse("po_123"), Some(PayoutId::from("po_123")));
        assert_eq!(PayoutId::parse("ord_123"), None);
        assert_eq!(PayoutId::parse("po123"), None);
        assert_eq!(RefundId::parse("req_1"), None);
        let event = "0b6f5c2e-6d1a-4c1e-9a43-5f3e2d1c0b9a";
        assert_eq!(EventId::parse(event), Some(EventId::from(event)));
        assert_eq!(EventId::parse("evt_1"), None);
        assert_eq!(EventId::parse(&event.replace('-', "")), None);
    }

    #[cfg(feature = "ids")]
    #[test]
    fn a_new_id_has_its_prefix_and_24_characters_after_it() {
        let id = MerchantId::new();
        let (prefix, random) = id.split_once('_').unwrap();
        assert_eq!((prefix, random.len()), ("mer", 24));
        assert_ne!(MerchantId::new(), id);
    }
}
