//! Standard Webhooks v1 signatures: a secret is `whsec_` plus the base64 of 32 random bytes, and
//! `webhook-signature` is `v1,` plus the base64 HMAC-SHA256, keyed with those bytes, of
//! `"{webhook-id}.{webhook-timestamp}.{body}"`; any Standard Webhooks library verifies it.
//! During a rotation's overlap the header carries one signature per secret, space-separated,
//! the new secret's first ([`sign_with_each`]): a verifier accepts any one that matches.

use base64::engine::general_purpose::STANDARD;
use base64::Engine;
use hmac::{Hmac, Mac};
use rand::RngCore;
use sha2::Sha256;

const PREFIX: &str = "whsec_";

/// A new signing secret.
pub fn new_secret() -> String {
    let mut key = [0u8; 32];
    rand::thread_rng().fill_bytes(&mut key);
    format!("{PREFIX}{}", STANDARD.encode(key))
}

/// `text` with every signing secret in it replaced by `[redacted]`: how a stored answer
/// that carried one (an endpoint's creation) is shown anywhere but in the API's replay of it.
pub fn redact(text: &str) -> String {
    let mut shown = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find(PREFIX) {
        shown.push_str(&rest[..at]);
        shown.push_str("[redacted]");
        rest = rest[at + PREFIX.len()..].trim_start_matches(|c: char| {
            c.is_ascii_alphanumeric() || matches!(c, '+' | '/' | '=')
        });
    }
    shown.push_str(rest);
    shown
}

#[derive(Debug, thiserror::Error)]
#[error("the signing secret is not `whsec_` followed by base64")]
pub struct InvalidSecret;

/// The `webhook-signature` header value of one attempt.
pub fn sign(secret: &str, id: &str, timestamp: i64, body: &[u8]) -> Result<String, InvalidSecret> {
    let key = secret
        .strip_prefix(PREFIX)
        .and_then(|encoded| STANDARD.decode(encoded).ok())
        .ok_or(InvalidSecret)?;
    let mut mac = Hmac::<Sha256>::new_from_slice(&key).expect("HMAC takes a key of any length");
    mac.update(format!("{id}.{timestamp}.").as_bytes());
    mac.update(body);
    Ok(format!(
        "v1,{}",
        STANDARD.encode(mac.finalize().into_bytes())
    ))
}

/// The `webhook-signature` header value of one attempt signed with each of `secrets`, in order,
/// space-separated.
pub fn sign_with_each(
    secrets: &[&str],
    id: &str,
    timestamp: i64,
    body: &[u8],
) -> Result<String, InvalidSecret> {
    let signatures = secrets
        .iter()
        .map(|secret| sign(secret, id, timestamp, body))
        .collect::<Result<Vec<_>, _>>()?;
    Ok(signatures.join(" "))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The Standard Webhooks reference vector.
    #[test]
    fn signs_the_reference_vector() {
        assert_eq!(
            sign(
                "whsec_C2FVsBQIhrscChlQIMV+b5sSYspob7oD",
                "msg_27UH4WbU6Z5A5EzD8u03UvzRbpk",
                1649367553,
                br#"{"email":"test@example.com","username":"test_user"}"#,
            )
            .unwrap(),
            "v1,tZ1I4/hDygAJgO5TYxiSd6Sd0kDW6hPenDe+bTa3Kkw="
        );
    }

    #[test]
    fn redaction_leaves_everything_but_the_secrets() {
        let secret = new_secret();
        let body = format!(r#"{{"secret":"{secret}","url":"x","again":"{secret}"}}"#);
        assert_eq!(
            redact(&body),
            r#"{"secret":"[redacted]","url":"x","again":"[redacted]"}"#
        );
    }

    #[test]
    fn new_secrets_are_prefixed_base64_of_32_bytes() {
        let secret = new_secret();
        let key = STANDARD
            .decode(secret.strip_prefix(PREFIX).unwrap())
            .unwrap();
        assert_eq!(key.len(), 32);
        assert_ne!(secret, new_secret());
        assert!(sign("whsec_not base64!", "id", 0, b"{}").is_err());
    }

    #[test]
    fn each_secret_signs_in_order_separated_by_a_space() {
        let (new, old) = (new_secret(), new_secret());
        assert_eq!(
            sign_with_each(&[&new, &old], "id", 1, b"{}").unwrap(),
            format!(
                "{} {}",
                sign(&new, "id", 1, b"{}").unwrap(),
                sign(&old, "id", 1, b"{}").unwrap()
            )
        );
        assert_eq!(
            sign_with_each(&[&new], "id", 1, b"{}").unwrap(),
            sign(&new, "id", 1, b"{}").unwrap()
        );
    }
}
