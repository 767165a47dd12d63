//! The request fingerprint: SHA-256 over the method and route template and the body in its
//! RFC 8785 (JCS) canonical form, so key order and white space never make two requests differ.

use serde_json::Value;
use sha2::{Digest, Sha256};

pub fn fingerprint(endpoint: &str, body: &Value) -> Vec<u8> {
    let canonical = serde_jcs::to_vec(body).expect("a parsed JSON value canonicalises");
    let mut hasher = Sha256::new();
    hasher.update(endpoint.as_bytes());
    hasher.update(b"\n");
    hasher.update(&canonical);
    hasher.finalize().to_vec()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn key_order_and_white_space_do_not_matter() {
        let a: Value = serde_json::from_str(r#"{"amount": 100, "currency":"EUR"}"#).unwrap();
        let b: Value = serde_json::from_str(r#"{ "currency" : "EUR","amount":100 }"#).unwrap();
        assert_eq!(
            fingerprint("POST /v1/orders", &a),
            fingerprint("POST /v1/orders", &b)
        );
    }

    #[test]
    fn body_and_endpoint_both_count() {
        let body = json!({"amount": 100});
        assert_ne!(
            fingerprint("POST /v1/orders", &body),
            fingerprint("POST /v1/orders", &json!({"amount": 101}))
        );
        assert_ne!(
            fingerprint("POST /v1/orders", &body),
            fingerprint("POST /v1/payouts", &body)
        );
    }
}
