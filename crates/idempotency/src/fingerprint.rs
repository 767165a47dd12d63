//! The request fingerprint: SHA-256 over the method and route template and the body in its
//! RFC 8785 (JCS) canonical form, so key order and white space never make two requests differ.
//!
//! The body is any serialisable value, canonicalised as it is serialised: a typed command
//! gives the bytes its JSON value (`serde_json::to_value`) would, so it needs no value made
//! first. (Both go through serde_json's serializer, whose integers, strings and maps are the
//! same either way; they would part only on an `f32`, which a value widens to an `f64` first,
//! a float that is not finite, or a 128-bit integer, none of which a request holds.)

use serde::Serialize;
use sha2::{Digest, Sha256};

pub fn fingerprint(endpoint: &str, body: &(impl Serialize + ?Sized)) -> Vec<u8> {
    let canonical = serde_jcs::to_vec(body).expect("a request body canonicalises");
    let mut hasher = Sha256::new();
    hasher.update(endpoint.as_bytes());
    hasher.update(b"\n");
    hasher.update(&canonical);
    hasher.finalize().to_vec()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{json, Value};

    #[test]
    fn key_order_and_white_space_do_not_matter() {
        let a: Value = serde_json::from_str(r#"{"amount": 100, "currency":"EUR"}"#).unwrap();
        let b: Value = serde_json::from_str(r#"{ "currency" : "EUR","amount":100 }"#).unwrap();
        assert_eq!(
            fingerprint("POST /v1/orders", &a),
            fingerprint("POST /v1/orders", &b)
        );
    }

    /// Bodies as clients send them, and their digests as keys recorded before a typed command
    /// was fingerprinted without a JSON value first: records in a live database must still
    /// match after a deploy.
    const RECORDED: [(&str, &str); 6] = [
        (
            r#"{"amount": 100, "currency": "EUR", "metadata": {"sku": "B-42", "a": "1"}}"#,
            "3db5274c59f865ea123a3a9ae1af28c0dc1b3bb5e4c9a9d2df944625492ce889",
        ),
        (
            r#"{"metadata":{"a":"1","sku":"B-42"},"currency":"EUR","amount":100}"#,
            "3db5274c59f865ea123a3a9ae1af28c0dc1b3bb5e4c9a9d2df944625492ce889",
        ),
        (
            r#"{"amount": 1.0, "fee": 1e2, "rate": 0.1, "big": 12345678901234567890}"#,
            "4262ba836d6a9e93cc67b534fcfa70c3b2ad87d7f2ed1c6735e1d3031003974c",
        ),
        (
            r#"{"description": "caf\u00e9 \u20ac \ud83d\ude00 \"q\" \\ \n \u001f", "e": 1}"#,
            "99bd030d619d946f015246b7f411680d1219481c103e08dd07c63fcff291986f",
        ),
        (
            r#"{"\u00e9": 1, "e": 2, "z": [3, {"y": null, "x": true}], "\u00c9": -0.0}"#,
            "a462faf1743b39bd6927dbab65fc167ca4b7d0086a75664e9ebdc9dd2d3703dd",
        ),
        (
            r#"{"destination": {"iban": "DE89370400440532013000", "account_holder": "Ada"}}"#,
            "6a50e4a73bcca861268813e6dcc8d1b0171fc1b5ced44ccfbc50ac02614c0887",
        ),
    ];

    fn hex(bytes: &[u8]) -> String {
        bytes.iter().map(|byte| format!("{byte:02x}")).collect()
    }

    #[test]
    fn recorded_digests_stay_the_same() {
        for (body, digest) in RECORDED {
            let value: Value = serde_json::from_str(body).unwrap();
            assert_eq!(
                hex(&fingerprint("POST /v1/orders", &value)),
                digest,
                "{body}"
            );
        }
    }

    /// A typed command's digest is its JSON value's: its fields in any order, flattened,
    /// skipped when empty, and strings that need escapes.
    #[test]
    fn a_typed_command_has_its_json_values_digest() {
        use std::collections::BTreeMap;

        #[derive(Serialize)]
        struct Command {
            order_id: String,
            #[serde(flatten)]
            parameters: Parameters,
            for_merchant: bool,
        }

        #[derive(Serialize)]
        struct Parameters {
            amount: i64,
            #[serde(skip_serializing_if = "Option::is_none")]
            reason: Option<String>,
            description: Option<String>,
            metadata: BTreeMap<String, String>,
            destination: Destination,
        }

        #[derive(Serialize)]
        struct Destination {
            iban: &'static str,
            account_holder: &'static str,
        }

        for (amount, reason, description) in [
            (100, None, None),
            (
                -7,
                Some("duplicate"),
                Some("caf\u{e9} \u{20ac} \u{1f600} \"q\" \\ \n \u{1f}"),
            ),
        ] {
            let command = Command {
                order_id: "ord_1".to_owned(),
                parameters: Parameters {
                    amount,
                    reason: reason.map(str::to_owned),
                    description: description.map(str::to_owned),
                    metadata: [("\u{e9}", "1"), ("z", "2"), ("E", "3")]
                        .map(|(k, v)| (k.to_owned(), v.to_owned()))
                        .into(),
                    destination: Destination {
                        iban: "DE89370400440532013000",
                        account_holder: "Ada Lovelace",
                    },
                },
                for_merchant: true,
            };
            let value = serde_json::to_value(&command).unwrap();
            assert_eq!(
                fingerprint("POST /v1/orders/{id}/refunds", &command),
                fingerprint("POST /v1/orders/{id}/refunds", &value)
            );
        }
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
