//! Where webhooks may go: never to the service's own networks. A merchant's endpoint URL whose
//! host is, or resolves to, a loopback, private (RFC 1918, RFC 4193), link-local (cloud
//! metadata at 169.254.169.254 among them), CGNAT, unspecified, broadcast, multicast, reserved or
//! documentation address is refused at registration; and every send resolves the name again
//! through [`GuardedResolver`], which drops such addresses, so a name that turns private after
//! registration (DNS rebinding) reaches nothing. IP literals, which need no resolution, are
//! judged by [`check_url`] before each send. Spellings such as `http://2130706433/`,
//! `http://0x7f.1/` or `http://[::ffff:127.0.0.1]/` are normalised by the URL parser to the
//! address they mean before they are judged.
//!
//! `KAADXPAY_WEBHOOK_ALLOW_PRIVATE_NETWORKS` turns the guard off (local development, tests).

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};

use reqwest::dns::{Addrs, Name, Resolve, Resolving};
use reqwest::Url;

/// Why an endpoint URL may not be used, in a sentence for the merchant.
pub type Refusal = String;

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

fn is_public_v6(ip: Ipv6Addr) -> bool {
    if let Some(embedded) = embedded_v4(ip) {
        return is_public_v4(embedded);
    }
    let first = ip.segments()[0];
    let special = ip.is_unspecified()
        || ip.is_loopback()
        || (first & 0xfe00) == 0xfc00 // unique local
        || (first & 0xffc0) == 0xfe80 // link-local
        || (first & 0xffc0) == 0xfec0 // site-local
        || (first & 0xff00) == 0xff00 // multicast
        || (first == 0x2001 && ip.segments()[1] == 0x0db8) // documentation
        || first == 0x0100; // discard
    !special
}

/// The IPv4 address an IPv6 address carries: mapped (`::ffff:a.b.c.d`), compatible
/// (`::a.b.c.d`), NAT64 (`64:ff9b::a.b.c.d`) or 6to4 (`2002:aabb:ccdd::`).
fn embedded_v4(ip: Ipv6Addr) -> Option<Ipv4Addr> {
    let segments = ip.segments();
    let low = |high: u16, low: u16| Ipv4Addr::from(((high as u32) << 16) | low as u32);
    match segments {
        [0, 0, 0, 0, 0, 0xffff, high, low_] => Some(low(high, low_)),
        [0, 0, 0, 0, 0, 0, high, low_] if !ip.is_loopback() && !ip.is_unspecified() => {
            Some(low(high, low_))
        }
        [0x64, 0xff9b, 0, 0, 0, 0, high, low_] => Some(low(high, low_)),
        [0x2002, high, low_, ..] => Some(low(high, low_)),
        _ => None,
    }
}

/// Checks an endpoint URL as far as it can be without DNS: an `http(s)` URL with a host that is
/// not a local name and not a non-public IP literal. Returns the host name still to resolve,
/// if it is one.
pub fn check_url(url: &str) -> Result<Option<(String, u16)>, Refusal> {
    let parsed = Url::parse(url)
        .ok()
        .filter(|parsed| matches!(parsed.scheme(), "http" | "https"))
        .ok_or_else(|| "url must be an absolute http:// or https:// URL.".to_owned())?;
    let port = parsed.port_or_known_default().unwrap_or(80);
    // The parser has normalised the host: an IP address in any spelling is written plainly
    // (IPv6 in brackets), anything else is a lower-case name.
    let host = parsed
        .host_str()
        .ok_or_else(|| "url must name a host.".to_owned())?;
    let literal = host.trim_start_matches('[').trim_end_matches(']');
    if let Ok(ip) = literal.parse::<IpAddr>() {
        return refuse_unless_public(ip).map(|()| None);
    }
    let name = host.trim_end_matches('.');
    if name == "localhost" || name.ends_with(".localhost") || name.is_empty() {
        return Err(format!(
            "url may not point at {host}: webhooks go to the public internet only."
        ));
    }
    Ok(Some((name.to_owned(), port)))
}

fn refuse_unless_public(ip: IpAddr) -> Result<(), Refusal> {
    if is_public(ip) {
        Ok(())
    } else {
        Err(format!(
            "url may not point at {ip}, a loopback, private, link-local or otherwise internal address: webhooks go to the public internet only."
        ))
    }
}

/// Checks an endpoint URL fully, resolving its host: every address it resolves to must be
/// public. For registration.
pub async fn check_url_resolving(url: &str) -> Result<(), Refusal> {
    let Some((name, port)) = check_url(url)? else {
        return Ok(());
    };
    let addresses: Vec<SocketAddr> = tokio::net::lookup_host((name.as_str(), port))
        .await
        .map_err(|_| format!("url's host {name} does not resolve."))?
        .collect();
    if addresses.is_empty() {
        return Err(format!("url's host {name} does not resolve."));
    }
    addresses
        .iter()
        .try_for_each(|address| refuse_unless_public(address.ip()))
}

/// The dispatcher's resolver: the system's answers without the addresses webhooks may not
/// reach; a name left with none fails to resolve.
#[derive(Debug, Default)]
pub struct GuardedResolver;

impl Resolve for GuardedResolver {
    fn resolve(&self, name: Name) -> Resolving {
        Box::pin(async move {
            let host = name.as_str().to_owned();
            let resolved = tokio::net::lookup_host((host.as_str(), 0)).await?;
            let public: Vec<SocketAddr> =
                resolved.filter(|address| is_public(address.ip())).collect();
            if public.is_empty() {
                return Err(format!(
                    "{host} resolves to no public address: webhooks go to the public internet only"
                )
                .into());
            }
            Ok(Box::new(public.into_iter()) as Addrs)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn internal_addresses_in_every_spelling_are_refused() {
        for url in [
            "http://127.0.0.1/hook",
            "http://127.1/",
            "http://2130706433/",
            "http://0x7f000001/",
            "http://0x7f.1/",
            "http://0177.0.0.1/",
            "http://0.0.0.0/",
            "http://0/",
            "http://10.1.2.3/",
            "http://172.16.0.1/",
            "http://172.31.255.255/",
            "http://192.168.1.1:8080/",
            "http://169.254.169.254/latest/meta-data/",
            "http://100.64.0.1/",
            "http://224.0.0.1/",
            "http://255.255.255.255/",
            "http://[::1]/",
            "http://[::]/",
            "http://[::ffff:127.0.0.1]/",
            "http://[::ffff:7f00:1]/",
            "http://[::ffff:169.254.169.254]/",
            "http://[64:ff9b::a9fe:a9fe]/",
            "http://[2002:7f00:1::]/",
            "http://[fc00::1]/",
            "http://[fd12:3456::1]/",
            "http://[fe80::1]/",
            "http://[ff02::1]/",
            "http://localhost/",
            "http://LOCALHOST./",
            "http://api.localhost/",
            "ftp://8.8.8.8/",
            "file:///etc/passwd",
            "not a url",
        ] {
            assert!(check_url(url).is_err(), "{url} must be refused");
        }
    }

    #[test]
    fn public_addresses_and_names_pass() {
        for url in [
            "https://93.184.216.34/hook",
            "http://8.8.8.8:8080/",
            "https://[2606:4700:4700::1111]/",
            "http://172.32.0.1/",
            "http://100.128.0.1/",
        ] {
            assert_eq!(check_url(url), Ok(None), "{url}");
        }
        assert_eq!(
            check_url("https://hooks.example.com/kaadxpay"),
            Ok(Some(("hooks.example.com".to_owned(), 443)))
        );
    }
}
