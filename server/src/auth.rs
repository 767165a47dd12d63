//! Merchants and their API keys. A key is `sk_test_` plus 43 random characters; only its
//! SHA-256 is stored (a fast hash is right for a high-entropy secret, unlike a password).
//! [`authenticate`] finds the merchant an API key belongs to; its lookups are cached in process
//! for a few seconds, and revocations reach every replica at once (see [`cache`]).

pub mod cache;

use cache::ApiKeyCache;

use sha2::{Digest, Sha256};
use sqlx::PgPool;

use crate::ids::{new_id, random_token};

/// The merchant a request was authenticated as.
#[derive(Debug, Clone)]
pub struct Merchant {
    pub id: String,
}

pub struct NewMerchant {
    pub merchant_id: String,
    pub api_key: String,
}

fn hash_api_key(api_key: &str) -> Vec<u8> {
    Sha256::digest(api_key.as_bytes()).to_vec()
}

pub async fn create_merchant(pool: &PgPool, name: &str) -> sqlx::Result<NewMerchant> {
    let merchant = NewMerchant {
        merchant_id: new_id("mer"),
        api_key: format!("sk_test_{}", random_token(43)),
    };
    ensure_merchant(pool, &merchant, name).await?;
    Ok(merchant)
}

/// Creates the merchant unless one with its id exists (so the demo merchant can be ensured).
pub async fn ensure_merchant(
    pool: &PgPool,
    merchant: &NewMerchant,
    name: &str,
) -> sqlx::Result<()> {
    sqlx::query(
        "INSERT INTO merchants (id, name, api_key_hash) VALUES ($1, $2, $3) ON CONFLICT (id) DO NOTHING",
    )
    .bind(&merchant.merchant_id)
    .bind(name)
    .bind(hash_api_key(&merchant.api_key))
    .execute(pool)
    .await?;
    Ok(())
}

/// The merchant whose API key this is, if any: from `cache`, or else the database.
pub async fn authenticate(
    pool: &PgPool,
    cache: &ApiKeyCache,
    api_key: &str,
) -> sqlx::Result<Option<Merchant>> {
    let hash = hash_api_key(api_key.trim());
    if let Some(id) = cache.get(&hash) {
        return Ok(Some(Merchant { id }));
    }
    let epoch = cache.epoch();
    let id: Option<String> = sqlx::query_scalar("SELECT id FROM merchants WHERE api_key_hash = $1")
        .bind(&hash)
        .fetch_optional(pool)
        .await?;
    if let Some(id) = &id {
        cache.insert(hash, id.clone(), epoch);
    }
    Ok(id.map(|id| Merchant { id }))
}
