//! An endpoint's signing secrets at rest (API.md §11, "Secrets never rest in clear"): sealed for
//! the endpoint with `KAADXPAY_SECRETS_KEY` (`secret_sealed`, and `previous_secret_sealed`
//! during a rotation's overlap, the same sealed bytes moved: both are the endpoint's), opened
//! only to sign an attempt. The answers that show a secret (an endpoint's creation, a rotation)
//! are sealed in the key's record too ([`crate::idempotency::sealed`]). Endpoints and answers
//! stored in clear before are sealed when `serve` starts ([`seal_stored_in_clear`]).

use sqlx::PgPool;

use crate::idempotency::sealed;
use crate::platform::sealing::{Sealer, Unopenable};

/// `secret` sealed for the endpoint `endpoint_id`.
pub fn seal(sealer: &Sealer, endpoint_id: &str, secret: &str) -> Vec<u8> {
    sealer.seal(secret.as_bytes(), endpoint_id)
}

/// An endpoint's secrets as stored: selected as `sealed_secret` and `sealed_previous_secret`
/// (the latter while the overlap after a rotation lasts). A secret not sealed yet (written in
/// clear since `serve` started, by an earlier version) fails its own attempts only.
#[derive(sqlx::FromRow)]
pub struct SealedSecrets {
    sealed_secret: Option<Vec<u8>>,
    sealed_previous_secret: Option<Vec<u8>>,
}

/// The columns of [`SealedSecrets`] of the endpoint `w`.
pub const SEALED_COLUMNS: &str = "w.secret_sealed AS sealed_secret, \
     CASE WHEN w.previous_secret_expires_at > now() THEN w.previous_secret_sealed END \
       AS sealed_previous_secret";

/// An endpoint's secrets in clear, to sign with.
pub struct Secrets {
    pub secret: String,
    /// The secret before the last rotation, while its overlap lasts.
    pub previous: Option<String>,
}

impl SealedSecrets {
    /// The secrets of the endpoint `endpoint_id`, opened.
    pub fn open(&self, sealer: &Sealer, endpoint_id: &str) -> Result<Secrets, Unopenable> {
        let open = |sealed: &[u8]| {
            let bytes = sealer.open(sealed, endpoint_id)?;
            String::from_utf8(bytes).map_err(|_| Unopenable)
        };
        Ok(Secrets {
            secret: open(self.sealed_secret.as_deref().ok_or(Unopenable)?)?,
            previous: self
                .sealed_previous_secret
                .as_deref()
                .map(open)
                .transpose()?,
        })
    }
}

/// What an answer that shows an endpoint's secret holds (serde_json writes it so).
const SHOWN_SECRET: &[u8] = br#""secret":"whsec_"#;

/// Seals what an earlier version stored in clear: endpoints' secrets, and the answers that show
/// one in the records of their keys. Run by `serve` at start, before anything reads them.
///
/// An answer in clear comes with its endpoint's secret in clear (an earlier version wrote both,
/// creating or rotating it), and the answers are sealed before their endpoints: so while no
/// endpoint is in clear, no answer is, and the start reads no key record at all. Otherwise only
/// the records of the endpoints' commands (whose creation and rotation show a secret) are
/// searched.
pub async fn seal_stored_in_clear(pool: &PgPool, sealer: &Sealer) -> sqlx::Result<()> {
    let clear = sqlx::query!(
        "SELECT id, secret, previous_secret FROM webhook_endpoints \
         WHERE secret IS NOT NULL OR previous_secret IS NOT NULL"
    )
    .fetch_all(pool)
    .await?;
    if clear.is_empty() {
        return Ok(());
    }
    let answers = sqlx::query!(
        r#"SELECT merchant_id, key, response_body AS "response_body!" FROM idempotency_keys
           WHERE endpoint::text LIKE 'POST /v1/webhook-endpoints%'
             AND position($1::bytea IN response_body) > 0"#,
        SHOWN_SECRET,
    )
    .fetch_all(pool)
    .await?;
    for answer in &answers {
        let body = sealed::seal_body(
            sealer,
            &answer.merchant_id,
            &answer.key,
            &answer.response_body,
        );
        sqlx::query!(
            "UPDATE idempotency_keys SET response_body = $3 \
             WHERE merchant_id = $1 AND key = $2 AND response_body = $4",
            answer.merchant_id,
            answer.key,
            body,
            answer.response_body,
        )
        .execute(pool)
        .await?;
    }
    for endpoint in &clear {
        let seal = |secret: &Option<String>| {
            secret
                .as_deref()
                .map(|secret| seal(sealer, &endpoint.id, secret))
        };
        sqlx::query!(
            "UPDATE webhook_endpoints SET secret = NULL, previous_secret = NULL, \
               secret_sealed = coalesce($2, secret_sealed), \
               previous_secret_sealed = coalesce($3, previous_secret_sealed) \
             WHERE id = $1",
            endpoint.id,
            seal(&endpoint.secret),
            seal(&endpoint.previous_secret),
        )
        .execute(pool)
        .await?;
    }
    tracing::info!(
        event = "webhooks.secrets_sealed",
        endpoints = clear.len(),
        answers = answers.len(),
        "sealed webhook secrets stored in clear by an earlier version"
    );
    Ok(())
}
