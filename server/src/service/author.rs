//! Who acts (a kernel type every command carries, and that the domain reads): the member a
//! request answers to ([`Maker`], whom four eyes count), and who acted from which address
//! ([`By`], what every audit entry says of its author).

use std::net::IpAddr;

use kaadxpay_types::{ActorKind, Role};

/// The member a request answers to (API.md §11 "Who may move money"): the member signed in to
/// the console, or the member who made the API key in use (directly, or through a key of theirs).
/// Four eyes count what it does as this member's.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Maker {
    /// The member's id (`usr_…`).
    pub user_id: String,
    pub email: String,
    /// The member's role now, when it bounds the request's powers; `None` for a key an owner
    /// made "for the merchant", whose powers are its access alone.
    pub role: Option<Role>,
}

/// Who acted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Actor {
    /// A merchant's member, by email.
    User(String),
    /// An API key, by id (`key_…`).
    ApiKey(String),
    /// Support staff, by email.
    Support(String),
    /// An operator at the command line (`kaadxpay users reset-two-factor`), by login name.
    Operator(String),
}

impl Actor {
    /// Its kind's stored name.
    pub fn kind(&self) -> &'static str {
        match self {
            Actor::User(_) => ActorKind::User,
            Actor::ApiKey(_) => ActorKind::ApiKey,
            Actor::Support(_) => ActorKind::Support,
            Actor::Operator(_) => ActorKind::Operator,
        }
        .as_str()
    }

    pub fn name(&self) -> &str {
        match self {
            Actor::User(name)
            | Actor::ApiKey(name)
            | Actor::Support(name)
            | Actor::Operator(name) => name,
        }
    }
}

/// Who acted, and from which address: what every entry says of its author.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct By {
    pub actor: Actor,
    pub address: Option<IpAddr>,
}
