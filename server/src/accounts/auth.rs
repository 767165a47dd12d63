//! Merchants and the API keys that act for them. A key is its deployment's [`Mode`]'s prefix
//! (`sk_test_` or `sk_live_`) plus 43 random characters, and a key of the other mode does not
//! authenticate; only its SHA-256 is stored (a fast hash is right for a high-entropy secret, unlike a
//! password). A merchant has several keys (see [`keys`]), each read-only or read-write, each
//! working until its `expires_at`. [`authenticate`] finds the merchant and key a secret belongs
//! to; its lookups are cached in process for a few seconds and never beyond the key's expiry,
//! revocations reach every replica at once (see [`cache`]), and each use is noted for the key's
//! `last_used_at` off the request path (see [`usage`]).

pub mod cache;
pub mod keys;
pub mod lineage;
pub mod usage;

use kaadxpay_types::ids::{new_id, random_token, MerchantId};
use kaadxpay_types::{Permission, Role};
use std::time::{Duration, Instant};

use crate::platform::db;
use crate::service::author::Maker;
use cache::ApiKeyCache;
use sha2::{Digest, Sha256};
use sqlx::PgPool;
use usage::KeyUsage;

/// The merchant a request was authenticated as, and the key it came with.
#[derive(Debug, Clone)]
pub struct Merchant {
    pub id: MerchantId,
    /// The API key's id (`key_…`).
    pub key_id: String,
    pub access: Access,
    /// The member the key answers to; `None` for a key made by `merchants create`.
    pub maker: Option<Maker>,
}

impl Merchant {
    /// Whether the key may do what `permission` allows: its maker's role now, when it acts for
    /// its maker; anything, when it was made for the merchant.
    pub fn may(&self, permission: Permission) -> bool {
        self.bound().is_none_or(|role| role.may(permission))
    }

    /// Whether the key may change anything: it is read-write, and its maker's role (if it acts
    /// for one) is more than a viewer's.
    pub fn writes(&self) -> bool {
        self.access == Access::ReadWrite && self.bound().is_none_or(Role::changes_anything)
    }

    /// The role that bounds the key's powers, if any.
    fn bound(&self) -> Option<Role> {
        self.maker.as_ref().and_then(|maker| maker.role)
    }
}

pub use kaadxpay_types::Access;

pub use crate::service::config::Mode;

/// A deployment's keys say which mode it runs in.
impl Mode {
    /// What every key of this mode starts with.
    pub fn key_prefix(self) -> &'static str {
        match self {
            Self::Test => "sk_test_",
            Self::Live => "sk_live_",
        }
    }
}

/// A new API key's secret, known only to the answer that creates the key.
#[derive(Clone)]
pub struct Secret(String);

impl Secret {
    pub fn generate(mode: Mode) -> Self {
        Self(format!("{}{}", mode.key_prefix(), random_token(43)))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// What is stored instead of the secret.
    pub fn hash(&self) -> Vec<u8> {
        hash_api_key(&self.0)
    }

    /// What is shown of it after its creation, for recognition: its first [`PREFIX_CHARS`].
    pub fn prefix(&self) -> &str {
        prefix_of(&self.0)
    }
}

pub struct NewMerchant {
    pub merchant_id: MerchantId,
    pub api_key: String,
}

/// The name of the key a merchant is created with.
const FIRST_KEY_NAME: &str = "Default";

/// How many of a secret's first characters are shown, for recognition.
pub const PREFIX_CHARS: usize = 12;

/// The visible prefix of `api_key`: its first [`PREFIX_CHARS`] characters (all of it when it is
/// shorter).
fn prefix_of(api_key: &str) -> &str {
    api_key
        .char_indices()
        .nth(PREFIX_CHARS)
        .map_or(api_key, |(end, _)| &api_key[..end])
}

fn hash_api_key(api_key: &str) -> Vec<u8> {
    Sha256::digest(api_key.as_bytes()).to_vec()
}

pub async fn create_merchant(pool: &PgPool, name: &str, mode: Mode) -> sqlx::Result<NewMerchant> {
    let merchant = NewMerchant {
        merchant_id: MerchantId::new(),
        api_key: Secret::generate(mode).0,
    };
    ensure_merchant(pool, &merchant, name).await?;
    Ok(merchant)
}

/// Creates the merchant with its API key as its first, read-write key, unless a merchant with
/// its id exists (so the demo merchant can be ensured); whether it made it now.
pub async fn ensure_merchant(
    pool: &PgPool,
    merchant: &NewMerchant,
    name: &str,
) -> sqlx::Result<bool> {
    let secret = Secret(merchant.api_key.clone());
    let made = sqlx::query!(
        "WITH merchant AS (INSERT INTO merchants (id, name) VALUES ($1, $2) \
           ON CONFLICT (id) DO NOTHING RETURNING id) \
         INSERT INTO api_keys (id, merchant_id, name, key_hash, prefix, access) \
         SELECT $3, id, $4, $5, $6, 'read_write' FROM merchant",
        merchant.merchant_id.as_str(),
        name,
        new_id("key"),
        FIRST_KEY_NAME,
        secret.hash(),
        secret.prefix(),
    )
    .execute(pool)
    .await?;
    Ok(made.rows_affected() > 0)
}

/// The merchant and key of an API key of `mode` that has not expired, if any: from `cache`, or
/// else the database. Each use is noted in `usage`.
pub async fn authenticate(
    pool: &PgPool,
    cache: &ApiKeyCache,
    usage: &KeyUsage,
    api_key: &str,
    mode: Mode,
) -> sqlx::Result<Option<Merchant>> {
    let api_key = api_key.trim();
    if !api_key.starts_with(mode.key_prefix()) {
        return Ok(None);
    }
    let hash = hash_api_key(api_key);
    if let Some(merchant) = cache.get(&hash) {
        usage.note(&merchant.key_id, None);
        return Ok(Some(merchant));
    }
    let Some((merchant, prefix_known)) = look_up(pool, cache, hash).await? else {
        return Ok(None);
    };
    usage.note(
        &merchant.key_id,
        (!prefix_known).then(|| prefix_of(api_key)),
    );
    Ok(Some(merchant))
}

struct LiveKey {
    merchant_id: MerchantId,
    id: String,
    /// An [`Access`], as stored.
    access: String,
    /// The member it answers to (id and email), its role now when the key acts for it.
    maker_id: Option<String>,
    maker_email: Option<String>,
    maker_role: Option<String>,
    /// Whether its whole prefix is stored (not so for a key migrated from before prefixes).
    prefix_known: bool,
    /// Seconds until it expires, by the database's clock (from its statement's start, which is
    /// after the lookup was asked for); `None` when it does not.
    expires_in: Option<f64>,
}

/// The live key hashed `hash`, from the database, and whether its whole prefix is stored. A key
/// that acts for a member who is no longer in its merchant's team is not live.
async fn look_up(
    pool: &PgPool,
    cache: &ApiKeyCache,
    hash: Vec<u8>,
) -> sqlx::Result<Option<(Merchant, bool)>> {
    let (epoch, asked_at) = (cache.epoch(), Instant::now());
    let key = sqlx::query_as!(
        LiveKey,
        r#"SELECT k.merchant_id AS "merchant_id: MerchantId", k.id, k.access,
             k.created_by_user AS maker_id, k.created_by_email AS maker_email,
             u.role AS "maker_role?",
             length(k.prefix) >= $2 AS "prefix_known!",
             extract(epoch FROM k.expires_at - now())::float8 AS expires_in
           FROM api_keys k
           LEFT JOIN users u ON k.acts_for_maker AND u.id = k.created_by_user
             AND u.merchant_id = k.merchant_id
           WHERE k.key_hash = $1 AND (k.expires_at IS NULL OR k.expires_at > now())
             AND (NOT k.acts_for_maker OR u.id IS NOT NULL)"#,
        hash,
        PREFIX_CHARS as i32,
    )
    .fetch_optional(pool)
    .await?;
    key.map(|key| {
        let role = key
            .maker_role
            .map(|role| db::try_from_column("role", role))
            .transpose()?;
        let maker = key
            .maker_id
            .zip(key.maker_email)
            .map(|(user_id, email)| Maker {
                user_id,
                email,
                role,
            });
        let merchant = Merchant {
            id: key.merchant_id,
            key_id: key.id,
            access: db::try_from_column("access", key.access)?,
            maker,
        };
        let expires_in = key
            .expires_in
            .map(|seconds| Duration::try_from_secs_f64(seconds).unwrap_or(Duration::ZERO));
        cache.insert(hash, merchant.clone(), asked_at, expires_in, epoch);
        Ok((merchant, key.prefix_known))
    })
    .transpose()
}
