//! The partner's webhook signature, in its own (Stripe-like) format:
//! `X-Partner-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of "{t}.{body}">`.
//! A signature older than [`TOLERANCE_SECS`] is refused, so a captured webhook cannot be replayed.

use hmac::{Hmac, Mac};
use sha2::Sha256;

pub const HEADER: &str = "x-partner-signature";
pub const TOLERANCE_SECS: i64 = 300;

fn mac(secret: &str, timestamp: i64, body: &[u8]) -> Hmac<Sha256> {
    let mut mac =
        Hmac::<Sha256>::new_from_slice(secret.as_bytes()).expect("HMAC takes any key length");
    mac.update(timestamp.to_string().as_bytes());
    mac.update(b".");
    mac.update(body);
    mac
}

pub fn sign(secret: &str, timestamp: i64, body: &[u8]) -> String {
    let tag = mac(secret, timestamp, body).finalize().into_bytes();
    format!("t={timestamp},v1={}", hex::encode(tag))
}

#[derive(Debug, PartialEq, Eq, thiserror::Error)]
pub enum SignatureError {
    #[error("the X-Partner-Signature header is missing or malformed")]
    Malformed,
    #[error("the partner signature is older than {TOLERANCE_SECS} seconds")]
    Stale,
    #[error("the partner signature does not match the body")]
    Mismatch,
}

/// Checks `header` against `body` at time `now` (unix seconds), in constant time.
pub fn verify(secret: &str, header: &str, body: &[u8], now: i64) -> Result<(), SignatureError> {
    let mut timestamp = None;
    let mut tag = None;
    for part in header.split(',') {
        match part.trim().split_once('=') {
            Some(("t", value)) => timestamp = value.parse::<i64>().ok(),
            Some(("v1", value)) => tag = hex::decode(value).ok(),
            _ => {}
        }
    }
    let (Some(timestamp), Some(tag)) = (timestamp, tag) else {
        return Err(SignatureError::Malformed);
    };
    if now.abs_diff(timestamp) > TOLERANCE_SECS.unsigned_abs() {
        return Err(SignatureError::Stale);
    }
    mac(secret, timestamp, body)
        .verify_slice(&tag)
        .map_err(|_| SignatureError::Mismatch)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_signature_verifies_only_for_its_body_secret_and_time() {
        let header = sign("secret", 1_000, b"{\"a\":1}");
        assert_eq!(verify("secret", &header, b"{\"a\":1}", 1_010), Ok(()));
        assert_eq!(
            verify("secret", &header, b"{\"a\":2}", 1_010),
            Err(SignatureError::Mismatch)
        );
        assert_eq!(
            verify("other", &header, b"{\"a\":1}", 1_010),
            Err(SignatureError::Mismatch)
        );
        assert_eq!(
            verify("secret", &header, b"{\"a\":1}", 1_000 + TOLERANCE_SECS + 1),
            Err(SignatureError::Stale)
        );
        assert_eq!(
            verify("secret", "v1=zz", b"", 1_000),
            Err(SignatureError::Malformed)
        );
    }

    #[test]
    fn a_timestamp_at_the_ends_of_the_range_is_stale_not_a_panic() {
        for timestamp in [i64::MIN, i64::MAX] {
            let header = sign("secret", timestamp, b"{}");
            assert_eq!(
                verify("secret", &header, b"{}", 1_000),
                Err(SignatureError::Stale)
            );
        }
        let header = sign("secret", 1_000, b"{}");
        assert_eq!(
            verify("secret", &header, b"{}", i64::MIN),
            Err(SignatureError::Stale)
        );
    }
}
