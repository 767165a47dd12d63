//! Stored answers that show a secret (a webhook endpoint's, from its creation or a rotation:
//! API.md §5) rest sealed in the key's record (§11, "Secrets never rest in clear"): a command
//! [`seal`]s such an answer before the engine records it, and `service::commands::run` opens
//! every answer on its way out ([`open_outcome`]), executed or replayed, so that a replay still
//! answers the same bytes (§2). A sealed body is [`MARK`] followed by what `Sealer::seal` made of
//! it for the record's merchant and key (so it opens for no other record); a body without the
//! mark is in clear.

use kaadxpay_types::ids::MerchantId;

use super::{IdempotencyKey, Outcome, StoredResponse};
use crate::contract::error::Error;
use crate::platform::sealing::{Sealer, Unopenable};

/// What a sealed body starts with (no JSON body does: it starts with a NUL byte).
pub const MARK: &[u8] = b"\0sealed:v1\0";

/// Whom a record's sealed answer belongs to.
fn owner(merchant_id: &str, key: &str) -> String {
    format!("{merchant_id}/{key}")
}

/// `body`, the answer recorded under `merchant_id`'s `key`, sealed.
pub fn seal_body(sealer: &Sealer, merchant_id: &str, key: &str, body: &[u8]) -> Vec<u8> {
    [MARK, &sealer.seal(body, &owner(merchant_id, key))].concat()
}

/// `response` with its body sealed, for the record of `merchant_id`'s `key`.
pub fn seal(
    sealer: &Sealer,
    merchant_id: &MerchantId,
    key: &IdempotencyKey,
    response: StoredResponse,
) -> StoredResponse {
    StoredResponse {
        body: seal_body(sealer, merchant_id.as_str(), key.as_str(), &response.body),
        ..response
    }
}

/// The body as answered: opened when sealed, as it is otherwise.
pub fn open(
    sealer: &Sealer,
    merchant_id: &str,
    key: &str,
    body: Vec<u8>,
) -> Result<Vec<u8>, Unopenable> {
    match body.strip_prefix(MARK) {
        Some(sealed) => sealer.open(sealed, &owner(merchant_id, key)),
        None => Ok(body),
    }
}

/// `outcome` with its answer's body opened.
pub fn open_outcome(
    sealer: &Sealer,
    merchant_id: &MerchantId,
    key: &IdempotencyKey,
    outcome: Outcome,
) -> Result<Outcome, Error> {
    let opened = |stored: StoredResponse| -> Result<StoredResponse, Error> {
        let body = open(sealer, merchant_id.as_str(), key.as_str(), stored.body)
            .map_err(anyhow::Error::from)?;
        Ok(StoredResponse { body, ..stored })
    };
    Ok(match outcome {
        Outcome::Executed(stored) => Outcome::Executed(opened(stored)?),
        Outcome::Replayed(stored) => Outcome::Replayed(opened(stored)?),
        other => other,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::platform::sealing::SecretsKey;

    #[test]
    fn a_sealed_answer_opens_for_its_record_only_and_a_clear_one_stays() {
        let sealer = Sealer::new(&SecretsKey::generate());
        let body = br#"{"secret":"whsec_abc"}"#;
        let sealed = seal_body(&sealer, "mer_1", "k", body);
        assert!(sealed.starts_with(MARK));
        assert!(!sealed.windows(5).any(|part| part == b"whsec"));
        assert_eq!(open(&sealer, "mer_1", "k", sealed.clone()).unwrap(), body);
        assert!(open(&sealer, "mer_1", "other", sealed.clone()).is_err());
        assert!(open(&sealer, "mer_2", "k", sealed).is_err());
        assert_eq!(open(&sealer, "mer_1", "k", body.to_vec()).unwrap(), body);
    }
}
