//! Who acts through the API, as the audit log names it: the request's API key, and the
//! [`ClientAddress`] it came from (the edge resolves it, behind any trusted proxy).

use crate::accounts::auth::Merchant;
pub use crate::edge::client::ClientAddress;
use crate::service::author::{Actor, By};

/// The merchant's API key acting from `client`, as the audit log names it.
pub fn by_key(merchant: &Merchant, ClientAddress(address): ClientAddress) -> By {
    By {
        actor: Actor::ApiKey(merchant.key_id.clone().into()),
        address,
    }
}
