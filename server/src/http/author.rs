//! Who acts through the API, as the audit log names it: the request's API key, and the
//! [`ClientAddress`] it came from (the connection's peer).

use std::net::{IpAddr, SocketAddr};

use axum::extract::{ConnectInfo, FromRequestParts};
use axum::http::request::Parts;

use crate::accounts::auth::Merchant;
use crate::history::audit::{Actor, By};

/// The address the request came from (`None` without a connection, as in some tests).
#[derive(Debug, Clone, Copy)]
pub struct ClientAddress(pub Option<IpAddr>);

impl<S: Send + Sync> FromRequestParts<S> for ClientAddress {
    type Rejection = std::convert::Infallible;

    async fn from_request_parts(parts: &mut Parts, _state: &S) -> Result<Self, Self::Rejection> {
        Ok(Self(
            parts
                .extensions
                .get::<ConnectInfo<SocketAddr>>()
                .map(|ConnectInfo(peer)| peer.ip()),
        ))
    }
}

/// The merchant's API key acting from `client`, as the audit log names it.
pub fn by_key(merchant: &Merchant, ClientAddress(address): ClientAddress) -> By {
    By {
        actor: Actor::ApiKey(merchant.key_id.clone()),
        address,
    }
}
