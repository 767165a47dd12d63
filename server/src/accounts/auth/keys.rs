//! The API keys a merchant manages (API.md §11): created with a name and an [`Access`], rolled
//! (a successor with a new secret, the old key working on for a chosen overlap) and revoked (it
//! expires now). A key's secret exists only in the answer that creates it: the stored answer a
//! replay gets, like every other answer, carries `"secret": null`, and the adapter shows the
//! secret to the request that executed ([`ApiKey::reveal`]).

use chrono::{DateTime, Utc};
use kaadxpay_types::ids::{new_id, MerchantId};
use serde::{Deserialize, Serialize};
use sqlx::{PgConnection, PgPool};
use utoipa::openapi::schema::Schema;
use utoipa::openapi::RefOr;
use utoipa::{PartialSchema, ToSchema};

use super::lineage::Lineage;
use super::{Access, Secret};
use crate::contract::error::Error;
use crate::contract::input::{name, text_schema, NAME_PATTERN};
use crate::contract::pagination::Page;
use crate::history::audit::{self, Action, Entry, ObjectType};
use crate::idempotency::{Once, Ran, Resource, StoredResponse};
use crate::service::author::By;
use crate::service::commands::{created_row, Caller, Command};
use crate::service::kernel::Kernel;

/// Where keys are, and what a `201` names.
const COLLECTION: &str = "/v1/api-keys";
const KIND: &str = "api_key";

#[derive(Debug, Serialize, Deserialize, sqlx::FromRow, ToSchema)]
pub struct ApiKey {
    /// `key_…`
    pub id: String,
    /// Always `api_key`.
    pub object: String,
    pub name: String,
    /// The secret's first 12 characters, for recognition (`sk_test_` alone for a key made
    /// before keys had names, until its first use: its secret was never stored).
    pub prefix: String,
    #[sqlx(try_from = "String")]
    pub access: Access,
    #[serde(serialize_with = "crate::contract::timestamp::rfc3339")]
    pub created_at: DateTime<Utc>,
    /// When it was last used, to the minute.
    #[serde(serialize_with = "crate::contract::timestamp::rfc3339_option")]
    pub last_used_at: Option<DateTime<Utc>>,
    /// When it stops (or stopped) working: set by a roll or a revocation.
    #[serde(serialize_with = "crate::contract::timestamp::rfc3339_option")]
    pub expires_at: Option<DateTime<Utc>>,
    /// The email of the member it acts for (who made it, in the console or with a key of
    /// theirs), whose role bounds it at each use; `null` for a key made for the merchant.
    pub created_by: Option<String>,
    /// The key that made it (or rolled the key it succeeds), `key_…`; `null` when a member did.
    pub created_by_key: Option<String>,
    /// The secret, in the answer that created the key only; `null` everywhere else.
    pub secret: Option<String>,
}

const KEY_COLUMNS: &str = "id, 'api_key' AS object, name, prefix, access, created_at, \
    last_used_at, expires_at, CASE WHEN acts_for_maker THEN created_by_email END AS created_by, \
    created_by_key, NULL::text AS secret";

impl ApiKey {
    /// The stored answer `body` of the command that made this key, with its `secret` shown.
    pub fn reveal(body: &[u8], secret: &Secret) -> serde_json::Result<Vec<u8>> {
        let mut key: Self = serde_json::from_slice(body)?;
        key.secret = Some(secret.as_str().to_owned());
        serde_json::to_vec(&key)
    }
}

/// A key's name: a [`name`] of at most [`MAX_NAME_CHARS`] characters.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct KeyName(String);

const MAX_NAME_CHARS: usize = 100;

impl TryFrom<String> for KeyName {
    type Error = String;

    fn try_from(key_name: String) -> Result<Self, String> {
        name(&key_name, MAX_NAME_CHARS).map(|key_name| Self(key_name.to_owned()))
    }
}

impl From<KeyName> for String {
    fn from(name: KeyName) -> String {
        name.0
    }
}

impl PartialSchema for KeyName {
    fn schema() -> RefOr<Schema> {
        text_schema(1, MAX_NAME_CHARS, Some(NAME_PATTERN), "Checkout server")
    }
}

impl ToSchema for KeyName {}

/// The body of `POST /v1/api-keys`.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct NewKey {
    pub name: KeyName,
    /// `read_write` unless said otherwise.
    #[serde(default)]
    pub access: Access,
}

/// `POST /v1/api-keys`: a new key with the fresh `secret` (which is not part of what makes
/// two requests the same request). It acts for the caller's member, unless an owner makes it
/// `for_merchant` (in the console), and then has the access it is given, whoever the owner is
/// later; a key made by a key answers to that key's member the same way.
#[derive(Serialize)]
pub struct CreateKey {
    #[serde(flatten)]
    pub key: NewKey,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub for_merchant: bool,
    #[serde(skip)]
    pub secret: Secret,
}

impl Command for CreateKey {
    const ENDPOINT: &'static str = "POST /v1/api-keys";

    async fn apply(&self, once: Once, caller: &Caller<'_>) -> Result<Ran, Error> {
        let lineage = Lineage::made_by(caller, self.for_merchant)?;
        let once = once.renders_from("api_keys", KEY_COLUMNS);
        once.transaction(async |conn| {
            let key = insert(conn, caller.merchant_id, &self.key, &lineage, &self.secret).await?;
            let entry = Entry::new(
                caller.merchant_id,
                caller.by,
                Action::ApiKeyCreated,
                ObjectType::ApiKey,
                &key.id,
            );
            audit::record(conn, &entry.after(&key)).await?;
            Ok(StoredResponse::created(COLLECTION, KIND, &key.id, &key))
        })
        .await
    }

    async fn render(
        state: &Kernel,
        merchant_id: &MerchantId,
        resource: Resource,
    ) -> Result<StoredResponse, Error> {
        render_created(state, merchant_id, resource).await
    }
}

/// How long a rolled key keeps working beside its successor.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, ToSchema)]
#[schema(as = KeyOverlap)]
pub enum Overlap {
    #[serde(rename = "now")]
    Now,
    #[serde(rename = "1h")]
    OneHour,
    #[serde(rename = "24h")]
    OneDay,
    #[serde(rename = "7d")]
    SevenDays,
}

impl Overlap {
    fn seconds(self) -> f64 {
        match self {
            Self::Now => 0.0,
            Self::OneHour => 3600.0,
            Self::OneDay => 86_400.0,
            Self::SevenDays => 7.0 * 86_400.0,
        }
    }
}

/// The body of `POST /v1/api-keys/{id}/roll`.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct RollParameters {
    pub overlap: Overlap,
}

/// `POST /v1/api-keys/{id}/roll`: the key's successor (same name and access) with the fresh
/// `secret`; the key itself expires after the overlap. The key is part of what makes two
/// requests the same request, since the route template is the same for every key.
#[derive(Serialize)]
pub struct RollKey {
    pub key_id: String,
    #[serde(flatten)]
    pub parameters: RollParameters,
    #[serde(skip)]
    pub secret: Secret,
}

impl Command for RollKey {
    const ENDPOINT: &'static str = "POST /v1/api-keys/{id}/roll";

    /// A key the merchant does not have is a `404` that leaves no record.
    async fn check(&self, state: &Kernel, merchant_id: &MerchantId) -> Result<(), Error> {
        find(&state.pool, merchant_id, &self.key_id)
            .await?
            .map(|_| ())
            .ok_or(Error::ResourceMissing("API key"))
    }

    async fn apply(&self, once: Once, caller: &Caller<'_>) -> Result<Ran, Error> {
        let once = once.renders_from("api_keys", KEY_COLUMNS);
        once.transaction(async |conn| self.roll(conn, caller).await)
            .await
    }

    async fn render(
        state: &Kernel,
        merchant_id: &MerchantId,
        resource: Resource,
    ) -> Result<StoredResponse, Error> {
        render_created(state, merchant_id, resource).await
    }
}

impl RollKey {
    /// Sets the key's end after the overlap and makes its successor, in `conn`'s transaction,
    /// with the audit entry (before: the key; after: the key as rolled and its successor).
    async fn roll(
        &self,
        conn: &mut PgConnection,
        caller: &Caller<'_>,
    ) -> Result<StoredResponse, Error> {
        let merchant_id = caller.merchant_id;
        let before: Option<ApiKey> = sqlx::query_as(&format!(
            "SELECT {KEY_COLUMNS} FROM api_keys WHERE merchant_id = $1 AND id = $2 FOR UPDATE"
        ))
        .bind(merchant_id)
        .bind(&self.key_id)
        .fetch_optional(&mut *conn)
        .await?;
        let lineage = Lineage::rolled(conn, caller, &self.key_id).await?;
        let rolled: Option<ApiKey> = sqlx::query_as(&format!(
            "UPDATE api_keys SET expires_at = least(coalesce(expires_at, 'infinity'), \
               now() + $3 * interval '1 second') \
             WHERE merchant_id = $1 AND id = $2 AND (expires_at IS NULL OR expires_at > now()) \
             RETURNING {KEY_COLUMNS}"
        ))
        .bind(merchant_id)
        .bind(&self.key_id)
        .bind(self.parameters.overlap.seconds())
        .fetch_optional(&mut *conn)
        .await?;
        let Some(rolled) = rolled else {
            return Err(Error::InvalidStateTransition(
                "This API key has expired already; create a new key instead.".to_owned(),
            ));
        };
        let successor = NewKey {
            name: KeyName(rolled.name.clone()),
            access: rolled.access,
        };
        let key = insert(conn, merchant_id, &successor, &lineage, &self.secret).await?;
        let entry = Entry::new(
            merchant_id,
            caller.by,
            Action::ApiKeyRolled,
            ObjectType::ApiKey,
            &self.key_id,
        )
        .before(&before)
        .after(serde_json::json!({ "key": &rolled, "successor": &key }));
        audit::record(conn, &entry).await?;
        Ok(StoredResponse::created(COLLECTION, KIND, &key.id, &key))
    }
}

/// Stores the key in `conn`'s transaction with its `lineage`: its hash and prefix, never its
/// secret (so the answer, a `201` with the key, has `"secret": null`).
async fn insert(
    conn: &mut PgConnection,
    merchant_id: &MerchantId,
    key: &NewKey,
    lineage: &Lineage,
    secret: &Secret,
) -> Result<ApiKey, Error> {
    Ok(sqlx::query_as(&format!(
        "INSERT INTO api_keys (id, merchant_id, name, key_hash, prefix, access, created_by_user, \
           created_by_email, acts_for_maker, created_by_key, rolled_from) \
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11) RETURNING {KEY_COLUMNS}"
    ))
    .bind(new_id("key"))
    .bind(merchant_id)
    .bind(&key.name.0)
    .bind(secret.hash())
    .bind(secret.prefix())
    .bind(key.access.as_str())
    .bind(&lineage.maker_id)
    .bind(&lineage.maker_email)
    .bind(lineage.acts_for_maker)
    .bind(&lineage.created_by_key)
    .bind(&lineage.rolled_from)
    .fetch_one(conn)
    .await?)
}

/// The `201` that created the key, rendered again: a new key had not been used, and had no end.
async fn render_created(
    state: &Kernel,
    merchant_id: &MerchantId,
    resource: Resource,
) -> Result<StoredResponse, Error> {
    let mut key: ApiKey =
        created_row(&resource, find(&state.pool, merchant_id, &resource.id)).await?;
    key.last_used_at = None;
    key.expires_at = None;
    Ok(StoredResponse::created(COLLECTION, KIND, &key.id, &key))
}

pub async fn find(
    pool: &PgPool,
    merchant_id: &MerchantId,
    id: &str,
) -> sqlx::Result<Option<ApiKey>> {
    sqlx::query_as(&format!(
        "SELECT {KEY_COLUMNS} FROM api_keys WHERE merchant_id = $1 AND id = $2"
    ))
    .bind(merchant_id)
    .bind(id)
    .fetch_optional(pool)
    .await
}

/// The merchant's keys, expired ones included, newest first.
pub async fn list(
    pool: &PgPool,
    merchant_id: &MerchantId,
    page: &Page,
) -> Result<Vec<ApiKey>, Error> {
    page.check_cursor(pool, "api_keys", merchant_id).await?;
    Ok(sqlx::query_as(&format!(
        "SELECT {KEY_COLUMNS} FROM api_keys WHERE merchant_id = $1 {}",
        Page::newest_first("api_keys")
    ))
    .bind(merchant_id)
    .bind(page.starting_after.as_deref())
    .bind(page.fetch_limit())
    .fetch_all(pool)
    .await?)
}

/// The CTE `lineage`: the merchant's key `$2` and every key it made or was rolled into,
/// transitively.
const LINEAGE: &str = "WITH RECURSIVE lineage (id) AS ( \
    SELECT id FROM api_keys WHERE merchant_id = $1 AND id = $2 \
    UNION SELECT made.id FROM api_keys made JOIN lineage \
      ON made.created_by_key = lineage.id OR made.rolled_from = lineage.id)";

/// Revokes the key and, transitively, every key it made or was rolled into: they expire now (or
/// stay expired since when they did); `None` when the merchant has no such key. Every process
/// forgets them at once (the revocation trigger). The audit entries `by` wrote are in the same
/// transaction, one per key, with the key before and after.
pub async fn revoke(
    pool: &PgPool,
    merchant_id: &MerchantId,
    id: &str,
    by: &By,
) -> sqlx::Result<Option<ApiKey>> {
    let mut tx = pool.begin().await?;
    let before: Vec<ApiKey> = sqlx::query_as(&format!(
        "{LINEAGE} SELECT {KEY_COLUMNS} FROM api_keys WHERE id IN (SELECT id FROM lineage) \
         ORDER BY id FOR UPDATE"
    ))
    .bind(merchant_id)
    .bind(id)
    .fetch_all(&mut *tx)
    .await?;
    let revoked: Vec<ApiKey> = sqlx::query_as(&format!(
        "{LINEAGE} UPDATE api_keys SET expires_at = least(coalesce(expires_at, 'infinity'), now()) \
         WHERE id IN (SELECT id FROM lineage) RETURNING {KEY_COLUMNS}"
    ))
    .bind(merchant_id)
    .bind(id)
    .fetch_all(&mut *tx)
    .await?;
    for key in &revoked {
        let before = before.iter().find(|before| before.id == key.id);
        let after = match key.id == id {
            true => serde_json::json!(key),
            false => serde_json::json!({ "key": key, "revoked_with": id }),
        };
        let entry = Entry::new(
            merchant_id,
            by,
            Action::ApiKeyRevoked,
            ObjectType::ApiKey,
            &key.id,
        );
        audit::record(&mut tx, &entry.before(before).after(after)).await?;
    }
    tx.commit().await?;
    Ok(revoked.into_iter().find(|key| key.id == id))
}
