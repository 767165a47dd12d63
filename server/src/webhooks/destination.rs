//! Where webhooks may go: the public internet only, never the service's own networks. This
//! module owns the address policy ([`is_public`]) and the two places it is applied:
//!
//! - at registration, [`check_for_registration`] refuses a URL whose host is, or resolves to,
//!   a loopback, private (RFC 1918, RFC 4193), link-local (cloud metadata at 169.254.169.254
//!   among them), CGNAT, unspecified, broadcast, multicast, reserved or documentation address,
//!   or is a name for this machine (`localhost`, `*.localhost`);
//! - on every send, the dispatcher's HTTP client resolves names through [`GuardedResolver`],
//!   which drops such addresses and fails when none is left, so a name that turns private
//!   after registration (DNS rebinding) reaches nothing; IP literals, which no resolver sees,
//!   are judged by [`check_before_send`].
//!
//! The URL parser normalises every spelling of an IP address (`http://2130706433/`,
//! `http://0x7f.1/`, `http://0177.0.0.1/`, `http://127.0.0.1./`, `http://[::ffff:7f00:1]/`) to
//! the address it means before it is judged, and an IPv6 address that carries an IPv4 one
//! (mapped, NAT64, 6to4) is judged by the IPv4 address.
//!
//! `KAADXPAY_WEBHOOK_ALLOW_PRIVATE_NETWORKS` turns all of this off (local development, tests).

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};
use std::time::Duration;

use reqwest::dns::{Addrs, Name, Resolve, Resolving};
use reqwest::Url;

/// How long a name may take to resolve.
const RESOLVE_TIMEOUT: Duration = Duration::from_secs(5);

/// Why webhooks may not go to an endpoint, in words for the merchant.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Refusal {
    #[error("{0} is an internal address (loopback, private, link-local or the like); webhooks go to the public internet only")]
    InternalAddress(IpAddr),
    #[error("{name} resolves to {address}, an internal address (loopback, private, link-local or the like); webhooks go to the public internet only")]
    ResolvesInternal { name: String, address: IpAddr },
    #[error("{0} names this machine; webhooks go to the public internet only")]
    LocalName(String),
    #[error("{0} does not resolve")]
    Unresolved(String),
}

/// An endpoint URL as the sender reads it: absolute, `http` or `https`, with a host.
pub fn parse(url: &str) -> Option<Url> {
    Url::parse(url)
        .ok()
        .filter(|url| matches!(url.scheme(), "http" | "https") && url.host_str().is_some())
}

/// Whether webhooks may reach `ip`: only addresses on the public internet.
pub fn is_public(ip: IpAddr) -> bool {
    match ip {
        IpAddr::V4(ip) => is_public_v4(ip),
        IpAddr::V6(ip) => is_public_v6(ip),
    }
}

fn is_public_v4(ip: Ipv4Addr) -> bool {
    let [a, b, c, _] = ip.octets();
    let special = a == 0 // "this network", 0.0.0.0 among it
        || a == 10
        || a == 127
        || (a == 100 && (64..128).contains(&b)) // CGNAT
        || (a == 169 && b == 254) // link-local, cloud metadata
        || (a == 172 && (16..32).contains(&b))
        || (a == 192 && b == 168)
        || (a == 192 && b == 0 && c == 0) // IETF protocol assignments
        || (a == 192 && b == 0 && c == 2) // documentation
        || (a == 192 && b == 88 && c == 99) // 6to4 relay
        || (a == 198 && (18..20).contains(&b)) // benchmarking
        || (a == 198 && b == 51 && c == 100) // documentation
        || (a == 203 && b == 0 && c == 113) // documentation
        || a >= 224; // multicast, reserved, broadcast
    !special
}

/// Public IPv6 addresses are global unicast (`2000::/3`) outside its special blocks; an
/// address carrying an IPv4 one is judged by that. Everything else is internal: loopback,
/// unspecified, IPv4-compatible and translated forms, unique local, link-local, site-local,
/// multicast, local-use NAT64.
fn is_public_v6(ip: Ipv6Addr) -> bool {
    if let Some(embedded) = embedded_v4(ip) {
        return is_public_v4(embedded);
    }
    let [first, second, ..] = ip.segments();
    let global_unicast = (first & 0xe000) == 0x2000;
    // IETF protocol assignments (Teredo among them) and documentation.
    let special = (first == 0x2001 && (second < 0x0200 || second == 0x0db8))
        || (first == 0x3fff && second < 0x1000);
    global_unicast && !special
}

/// The IPv4 address an IPv6 address carries: mapped (`::ffff:a.b.c.d`), NAT64
/// (`64:ff9b::a.b.c.d`) or 6to4 (`2002:aabb:ccdd::`).
fn embedded_v4(ip: Ipv6Addr) -> Option<Ipv4Addr> {
    let v4 = |high: u16, low: u16| Ipv4Addr::from((u32::from(high) << 16) | u32::from(low));
    match ip.segments() {
        [0, 0, 0, 0, 0, 0xffff, high, low] => Some(v4(high, low)),
        [0x64, 0xff9b, 0, 0, 0, 0, high, low] => Some(v4(high, low)),
        [0x2002, high, low, ..] => Some(v4(high, low)),
        _ => None,
    }
}

/// A URL's host: an IP address (the parser has normalised its spelling) or a name.
enum Host<'a> {
    Address(IpAddr),
    Name(&'a str),
}

fn host(url: &Url) -> Host<'_> {
    let host = url.host_str().unwrap_or_default();
    match host.trim_start_matches('[').trim_end_matches(']').parse() {
        Ok(ip) => Host::Address(ip),
        Err(_) => Host::Name(host),
    }
}

fn judge(ip: IpAddr) -> Result<(), Refusal> {
    if is_public(ip) {
        Ok(())
    } else {
        Err(Refusal::InternalAddress(ip))
    }
}

/// Before each send: an IP literal, which no resolver sees, must be public. Names are judged
/// as they are resolved, by [`GuardedResolver`].
pub fn check_before_send(url: &Url) -> Result<(), Refusal> {
    match host(url) {
        Host::Address(ip) => judge(ip),
        Host::Name(_) => Ok(()),
    }
}

/// At registration: the host must be a public address, or a name that resolves, every one
/// of its addresses public.
pub async fn check_for_registration(url: &Url) -> Result<(), Refusal> {
    let name = match host(url) {
        Host::Address(ip) => return judge(ip),
        Host::Name(name) => name.trim_end_matches('.'),
    };
    if name == "localhost" || name.ends_with(".localhost") {
        return Err(Refusal::LocalName(name.to_owned()));
    }
    every_address_public(name, &lookup(name).await?)
}

/// Registration's rule for a name's answers: any internal address among them refuses it.
fn every_address_public(name: &str, addresses: &[SocketAddr]) -> Result<(), Refusal> {
    match addresses.iter().find(|address| !is_public(address.ip())) {
        Some(internal) => Err(Refusal::ResolvesInternal {
            name: name.to_owned(),
            address: internal.ip(),
        }),
        None => Ok(()),
    }
}

/// The sender's rule for a name's answers: the public ones, and a refusal when there are none.
fn public_addresses(name: &str, addresses: Vec<SocketAddr>) -> Result<Vec<SocketAddr>, Refusal> {
    let (public, internal): (Vec<SocketAddr>, Vec<SocketAddr>) = addresses
        .into_iter()
        .partition(|address| is_public(address.ip()));
    match internal.first() {
        Some(internal) if public.is_empty() => Err(Refusal::ResolvesInternal {
            name: name.to_owned(),
            address: internal.ip(),
        }),
        _ => Ok(public),
    }
}

/// The addresses `name` resolves to (at least one), with port 0.
async fn lookup(name: &str) -> Result<Vec<SocketAddr>, Refusal> {
    let unresolved = || Refusal::Unresolved(name.to_owned());
    let addresses: Vec<SocketAddr> =
        tokio::time::timeout(RESOLVE_TIMEOUT, tokio::net::lookup_host((name, 0)))
            .await
            .map_err(|_| unresolved())?
            .map_err(|_| unresolved())?
            .collect();
    if addresses.is_empty() {
        return Err(unresolved());
    }
    Ok(addresses)
}

/// The dispatcher's resolver: the system's answers without the addresses webhooks may not
/// reach; a name left with none fails to resolve, with the [`Refusal`] as the error.
#[derive(Debug, Default)]
pub struct GuardedResolver;

impl Resolve for GuardedResolver {
    fn resolve(&self, name: Name) -> Resolving {
        Box::pin(async move {
            let name = name.as_str();
            let public = public_addresses(name, lookup(name).await?)?;
            Ok(Box::new(public.into_iter()) as Addrs)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn url(url: &str) -> Url {
        parse(url).unwrap_or_else(|| panic!("{url} parses"))
    }

    /// Every spelling, with the address it means.
    const INTERNAL: &[(&str, &str)] = &[
        ("http://127.0.0.1/hook", "127.0.0.1"),
        ("http://127.1/", "127.0.0.1"),
        ("http://2130706433/", "127.0.0.1"),
        ("http://0x7f000001/", "127.0.0.1"),
        ("http://0x7f.1/", "127.0.0.1"),
        ("http://0x7f.0.0.1/", "127.0.0.1"),
        ("http://0177.0.0.1/", "127.0.0.1"),
        ("http://127.0.0.1./", "127.0.0.1"),
        ("http://127.0.0.1.:8080/", "127.0.0.1"),
        ("http://user:pass@127.0.0.1/", "127.0.0.1"),
        ("http://0.0.0.0/", "0.0.0.0"),
        ("http://0/", "0.0.0.0"),
        ("http://10.1.2.3/", "10.1.2.3"),
        ("http://172.16.0.1/", "172.16.0.1"),
        ("http://172.31.255.255/", "172.31.255.255"),
        ("http://192.168.1.1:8080/", "192.168.1.1"),
        (
            "http://169.254.169.254/latest/meta-data/",
            "169.254.169.254",
        ),
        ("http://0xa9fea9fe/", "169.254.169.254"),
        ("http://100.64.0.1/", "100.64.0.1"),
        ("http://198.18.0.1/", "198.18.0.1"),
        ("http://192.0.0.8/", "192.0.0.8"),
        ("http://224.0.0.1/", "224.0.0.1"),
        ("http://240.0.0.1/", "240.0.0.1"),
        ("http://255.255.255.255/", "255.255.255.255"),
        ("http://[::1]/", "::1"),
        ("http://[0:0:0:0:0:0:0:1]/", "::1"),
        ("http://[::]/", "::"),
        ("http://[::ffff:127.0.0.1]/", "::ffff:127.0.0.1"),
        ("http://[::ffff:7f00:1]/", "::ffff:127.0.0.1"),
        ("http://[::ffff:169.254.169.254]/", "::ffff:169.254.169.254"),
        ("http://[::127.0.0.1]/", "::127.0.0.1"),
        ("http://[::ffff:0:7f00:1]/", "::ffff:0:7f00:1"),
        ("http://[64:ff9b::a9fe:a9fe]/", "64:ff9b::a9fe:a9fe"),
        ("http://[64:ff9b:1::7f00:1]/", "64:ff9b:1::7f00:1"),
        ("http://[2002:7f00:1::]/", "2002:7f00:1::"),
        ("http://[2001::1]/", "2001::1"),
        ("http://[2001:db8::1]/", "2001:db8::1"),
        ("http://[3fff::1]/", "3fff::1"),
        ("http://[100::1]/", "100::1"),
        ("http://[fc00::1]/", "fc00::1"),
        ("http://[fd12:3456::1]/", "fd12:3456::1"),
        ("http://[fe80::1]/", "fe80::1"),
        ("http://[fec0::1]/", "fec0::1"),
        ("http://[ff02::1]/", "ff02::1"),
    ];

    #[tokio::test]
    async fn internal_addresses_in_every_spelling_are_refused_as_the_address_they_mean() {
        let mut wrong = Vec::new();
        for &(spelling, address) in INTERNAL {
            let expected = Err(Refusal::InternalAddress(address.parse().unwrap()));
            let before_send = check_before_send(&url(spelling));
            let at_registration = check_for_registration(&url(spelling)).await;
            if before_send != expected || at_registration != expected {
                wrong.push(format!("{spelling}: {before_send:?}, {at_registration:?}"));
            }
        }
        assert!(wrong.is_empty(), "judged wrongly: {wrong:#?}");
    }

    #[tokio::test]
    async fn names_for_this_machine_are_refused_at_registration() {
        for (spelling, name) in [
            ("http://localhost/", "localhost"),
            ("http://LOCALHOST./", "localhost"),
            ("http://api.localhost:8080/", "api.localhost"),
        ] {
            assert_eq!(
                check_for_registration(&url(spelling)).await,
                Err(Refusal::LocalName(name.to_owned())),
                "{spelling}"
            );
        }
    }

    #[test]
    fn only_absolute_http_urls_parse() {
        for spelling in ["ftp://8.8.8.8/", "file:///etc/passwd", "not a url", "http:"] {
            assert!(parse(spelling).is_none(), "{spelling}");
        }
    }

    #[tokio::test]
    async fn public_addresses_pass() {
        for spelling in [
            "https://93.184.216.34/hook",
            "http://8.8.8.8:8080/",
            "https://[2606:4700:4700::1111]/",
            "http://[::ffff:8.8.8.8]/",
            "http://[2002:808:808::]/",
            "http://172.32.0.1/",
            "http://100.128.0.1/",
        ] {
            assert_eq!(check_before_send(&url(spelling)), Ok(()), "{spelling}");
            assert_eq!(
                check_for_registration(&url(spelling)).await,
                Ok(()),
                "{spelling}"
            );
        }
        // A name waits for its resolution.
        assert_eq!(
            check_before_send(&url("https://hooks.example.com/kaadxpay")),
            Ok(())
        );
    }

    #[test]
    fn a_name_with_any_internal_answer_is_refused_at_registration_and_sent_to_its_public_ones() {
        let answers: Vec<SocketAddr> = ["8.8.8.8:0", "10.0.0.1:0", "[::1]:0"]
            .iter()
            .map(|address| address.parse().unwrap())
            .collect();
        let internal = Refusal::ResolvesInternal {
            name: "rebound.example".to_owned(),
            address: "10.0.0.1".parse().unwrap(),
        };
        assert_eq!(
            every_address_public("rebound.example", &answers),
            Err(internal.clone())
        );
        assert_eq!(
            public_addresses("rebound.example", answers.clone()),
            Ok(vec![answers[0]])
        );
        assert_eq!(
            public_addresses("rebound.example", answers[1..].to_vec()),
            Err(internal)
        );
        assert_eq!(every_address_public("hooks.example", &answers[..1]), Ok(()));
    }

    #[tokio::test]
    async fn the_resolver_leaves_a_name_for_this_machine_nothing_to_reach() {
        let error = match GuardedResolver.resolve("localhost".parse().unwrap()).await {
            Ok(addresses) => panic!("resolved to {:?}", addresses.collect::<Vec<_>>()),
            Err(error) => error,
        };
        assert!(
            matches!(
                error.downcast_ref::<Refusal>(),
                Some(Refusal::ResolvesInternal { name, .. }) if name == "localhost"
            ),
            "{error}"
        );
    }
}
