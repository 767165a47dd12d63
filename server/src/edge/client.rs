//! Who a request comes from: the [`ClientAddress`] every part of the service uses (sign-in
//! throttling, the audit log, the request log), resolved once per request by [`resolve`]. It
//! is the connection's peer, or, when [`TrustedProxies`] names that peer, the last address of
//! its `X-Forwarded-For` that is not a trusted proxy (API.md §11): a client cannot choose its
//! address by sending the header itself, since only a trusted proxy's header is read, and only
//! up to the first hop that proxy did not vouch for.

use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;

use axum::extract::{ConnectInfo, FromRequestParts, Request};
use axum::http::request::Parts;
use axum::http::HeaderMap;
use ipnet::IpNet;

const FORWARDED_FOR: &str = "x-forwarded-for";

/// The address a request came from (`None` without a connection, as in some tests).
#[derive(Debug, Clone, Copy)]
pub struct ClientAddress(pub Option<IpAddr>);

impl<S: Send + Sync> FromRequestParts<S> for ClientAddress {
    type Rejection = std::convert::Infallible;

    async fn from_request_parts(parts: &mut Parts, _state: &S) -> Result<Self, Self::Rejection> {
        Ok(parts
            .extensions
            .get::<ClientAddress>()
            .copied()
            .unwrap_or(ClientAddress(None)))
    }
}

/// The networks of the proxies in front of the service (`KAADXPAY_TRUSTED_PROXIES`); none by
/// default, when the peer is the client.
#[derive(Debug, Clone, Default)]
pub struct TrustedProxies(Arc<[IpNet]>);

impl TrustedProxies {
    /// Comma-separated CIDRs (`10.0.0.0/8, 192.0.2.7/32`; a bare address is a network of one),
    /// or why they are not.
    pub fn parse(text: &str) -> Result<Self, String> {
        text.split(',')
            .map(str::trim)
            .filter(|network| !network.is_empty())
            .map(|network| {
                network
                    .parse::<IpNet>()
                    .or_else(|_| network.parse::<IpAddr>().map(IpNet::from))
                    .map_err(|_| format!("{network:?} is not a CIDR such as 10.0.0.0/8"))
            })
            .collect::<Result<Vec<_>, _>>()
            .map(|networks| Self(networks.into()))
    }

    fn trusts(&self, address: IpAddr) -> bool {
        self.0.iter().any(|network| network.contains(&address))
    }

    /// The client behind `peer`: `peer` itself unless it is a trusted proxy; else, walking its
    /// `X-Forwarded-For` from the right (the hop the proxy saw last), the first address that is
    /// not a trusted proxy, or the leftmost when all are. A hop that is not an address stops
    /// the walk at the last one known.
    pub fn client_of(&self, peer: IpAddr, headers: &HeaderMap) -> IpAddr {
        let mut client = peer.to_canonical();
        if !self.trusts(client) {
            return client;
        }
        let hops: Vec<&str> = headers
            .get_all(FORWARDED_FOR)
            .iter()
            .filter_map(|value| value.to_str().ok())
            .flat_map(|value| value.split(','))
            .collect();
        for hop in hops.into_iter().rev() {
            let Some(address) = hop_address(hop.trim()) else {
                break;
            };
            client = address.to_canonical();
            if !self.trusts(client) {
                break;
            }
        }
        client
    }
}

/// A hop of `X-Forwarded-For`: an address, perhaps with a port (`192.0.2.1:4711`,
/// `[2001:db8::1]:4711`).
fn hop_address(hop: &str) -> Option<IpAddr> {
    hop.parse::<IpAddr>()
        .ok()
        .or_else(|| hop.parse::<SocketAddr>().ok().map(|socket| socket.ip()))
}

/// Puts the request's [`ClientAddress`] into it, for everything after (the first step of
/// [`super::middleware::enter`]).
pub fn resolve(proxies: &TrustedProxies, request: &mut Request) {
    let peer = request
        .extensions()
        .get::<ConnectInfo<SocketAddr>>()
        .map(|ConnectInfo(peer)| peer.ip());
    let client = peer.map(|peer| proxies.client_of(peer, request.headers()));
    request.extensions_mut().insert(ClientAddress(client));
}

#[cfg(test)]
mod tests {
    use super::*;

    fn client(proxies: &str, peer: &str, forwarded: &[&str]) -> String {
        let mut headers = HeaderMap::new();
        for value in forwarded {
            headers.append(FORWARDED_FOR, value.parse().unwrap());
        }
        TrustedProxies::parse(proxies)
            .unwrap()
            .client_of(peer.parse().unwrap(), &headers)
            .to_string()
    }

    #[test]
    fn only_a_trusted_peer_is_looked_behind_and_only_up_to_the_first_untrusted_hop() {
        // No proxy trusted: the header is the client's word, never read.
        assert_eq!(client("", "198.51.100.7", &["203.0.113.9"]), "198.51.100.7");
        // A peer that is not a trusted proxy: the same.
        assert_eq!(
            client("10.0.0.0/8", "198.51.100.7", &["203.0.113.9"]),
            "198.51.100.7"
        );
        // Behind two trusted proxies, the client's own forged hop to the left is ignored.
        assert_eq!(
            client(
                "10.0.0.0/8",
                "10.0.0.1",
                &["6.6.6.6, 203.0.113.9", "10.0.0.2"]
            ),
            "203.0.113.9"
        );
        assert_eq!(
            client("10.0.0.1", "10.0.0.1", &["[2001:db8::1]:4711"]),
            "2001:db8::1"
        );
        // Nothing but proxies: the leftmost; garbage stops the walk.
        assert_eq!(client("10.0.0.0/8", "10.0.0.1", &["10.0.0.3"]), "10.0.0.3");
        assert_eq!(client("10.0.0.0/8", "10.0.0.1", &["nonsense"]), "10.0.0.1");
        assert_eq!(
            client("127.0.0.1/32", "::ffff:127.0.0.1", &["192.0.2.1"]),
            "192.0.2.1"
        );
    }

    #[test]
    fn trusted_proxies_are_cidrs_or_addresses() {
        assert!(TrustedProxies::parse("10.0.0.0/8, 192.0.2.7 ,::1").is_ok());
        assert!(TrustedProxies::parse("10.0.0.0/33").is_err());
        assert!(TrustedProxies::parse("proxy.internal").is_err());
    }
}
