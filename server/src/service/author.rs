//! Who acts (a kernel type every command carries, and that the domain reads): the member a
//! request answers to ([`Maker`], whom four eyes count), and who acted from which address
//! ([`By`], what every audit entry says of its author).

use std::net::IpAddr;

pub use kaadxpay_types::Actor;
use kaadxpay_types::Role;

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

/// Who acted, and from which address: what every entry says of its author.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct By {
    pub actor: Actor,
    pub address: Option<IpAddr>,
}
