//! Webhook endpoints: a merchant's URLs with the event types each subscribes to and its signing
//! secret (shown once, when created). An endpoint stops receiving when it is deleted, disabled
//! (`PATCH`, see [`super::management`]) or when it answers `410 Gone`; its pending deliveries
//! stop with it, its history stays.

use kaadxpay_types::ids::{EndpointId, MerchantId};

use chrono::{DateTime, SubsecRound, Utc};
use reqwest::Url;
use serde::{Deserialize, Serialize};
use sqlx::{PgConnection, PgPool};
use utoipa::openapi::schema::{ArrayBuilder, ObjectBuilder, Schema, SchemaFormat, Type};
use utoipa::openapi::RefOr;

use super::destination;
use super::secrets;
use super::signature;
use crate::contract::error::Error;
use crate::contract::pagination::Page;
use crate::history::audit::{self, Action, Entry, ObjectType};
use crate::idempotency::{sealed, Once, Ran, RunShapes, StoredResponse};
use crate::payments::events::EventType;
use crate::service::author::By;
use crate::service::commands::{Caller, Command};
use crate::service::kernel::Kernel;

/// Subscribes to every event type.
pub const ALL_EVENTS: &str = "*";

#[derive(Debug, Clone, Serialize, sqlx::FromRow, utoipa::ToSchema)]
pub struct Endpoint {
    #[schema(value_type = String)]
    pub id: EndpointId,
    /// Always `webhook_endpoint`.
    pub object: String,
    pub url: String,
    /// Event types it receives; `*` is all of them.
    #[schema(value_type = Subscriptions)]
    pub events: Vec<String>,
    #[schema(schema_with = endpoint_statuses)]
    pub status: String,
    /// The signing secret, in the answer to its creation or rotation only.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(nullable = false)]
    pub secret: Option<String>,
    #[serde(serialize_with = "crate::contract::timestamp::rfc3339")]
    pub created_at: DateTime<Utc>,
    #[serde(serialize_with = "crate::contract::timestamp::rfc3339_option")]
    pub disabled_at: Option<DateTime<Utc>>,
    /// Until when deliveries are also signed with the secret before the last rotation; `null`
    /// until the first rotation.
    #[serde(serialize_with = "crate::contract::timestamp::rfc3339_option")]
    pub previous_secret_expires_at: Option<DateTime<Utc>>,
}

fn endpoint_statuses() -> utoipa::openapi::schema::Object {
    crate::contract::schema::one_of(
        &["enabled", "disabled"],
        "`enabled`, or `disabled` (by `PATCH` or after it answered `410 Gone`).",
    )
}

impl Endpoint {
    /// The endpoint as the audit log keeps it: never its secret.
    pub fn without_secret(&self) -> Self {
        Self {
            secret: None,
            ..self.clone()
        }
    }
}

pub(super) const ENDPOINT_COLUMNS: &str = "id, 'webhook_endpoint' AS object, url, events, \
    CASE WHEN disabled_at IS NULL THEN 'enabled' ELSE 'disabled' END AS status, \
    created_at, disabled_at, previous_secret_expires_at";

/// `POST /v1/webhook-endpoints`: an endpoint that receives the given event types (all of them
/// when `events` is left out). Holding one means its body was valid.
#[derive(Debug, Clone, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct CreateEndpoint {
    pub url: WebhookUrl,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub events: Option<Subscriptions>,
}

impl CreateEndpoint {
    fn events(&self) -> Vec<String> {
        match &self.events {
            Some(Subscriptions(names)) => names.clone(),
            None => vec![ALL_EVENTS.to_owned()],
        }
    }
}

impl Command for CreateEndpoint {
    const ENDPOINT: &'static str = "POST /v1/webhook-endpoints";

    /// Unless private networks are allowed, the URL must reach the public internet only.
    async fn check(&self, state: &Kernel, _merchant_id: &MerchantId) -> Result<(), Error> {
        self.url.check_allowed(state).await
    }

    /// One statement records the key, inserts the endpoint, made here with its secret (sealed),
    /// and writes the audit entry; the answer's bytes are recorded, sealed (it shows a secret
    /// that a rotation replaces).
    async fn apply(&self, once: Once, caller: &Caller<'_>) -> Result<Ran, Error> {
        let endpoint = self.new_endpoint();
        let secret = endpoint
            .secret
            .as_deref()
            .expect("a new endpoint has its secret");
        let sealed_secret = secrets::seal(caller.sealer, &endpoint.id, secret);
        // Its secret may be rotated later: the answer that showed it is recorded as it was.
        let response = StoredResponse::created(
            "/v1/webhook-endpoints",
            "webhook_endpoint",
            &endpoint.id,
            &endpoint,
        )
        .recorded_verbatim();
        let response = sealed::seal(caller.sealer, caller.merchant_id, caller.key, response);
        let entry = Entry::new(
            caller.merchant_id,
            caller.by,
            Action::WebhookEndpointCreated,
            ObjectType::WebhookEndpoint,
            endpoint.id.as_str(),
        )
        .after(endpoint.without_secret());
        static SHAPES: RunShapes = RunShapes::new();
        once.run(&SHAPES, &response, |statement, merchant| {
            let id = statement.bind(&endpoint.id);
            let url = statement.bind(&endpoint.url);
            let events = statement.bind(&endpoint.events);
            let secret = statement.bind(&sealed_secret);
            let at = statement.bind(endpoint.created_at);
            statement.push(format_args!(
                ", new_endpoint AS ( \
                   INSERT INTO webhook_endpoints (id, merchant_id, url, events, secret_sealed, \
                     created_at) \
                   SELECT {id}, {merchant}, {url}, {events}, {secret}, {at} FROM recorded \
                   RETURNING 1)"
            ));
            audit::audited(statement, merchant, &entry);
        })
        .await
    }
}

impl CreateEndpoint {
    /// The endpoint this command creates, with a new secret, as it will be stored.
    fn new_endpoint(&self) -> Endpoint {
        Endpoint {
            id: EndpointId::new(),
            object: "webhook_endpoint".to_owned(),
            url: self.url.written.clone(),
            events: self.events(),
            status: "enabled".to_owned(),
            secret: Some(signature::new_secret()),
            // PostgreSQL keeps microseconds: the answer and the row say the same instant.
            created_at: Utc::now().trunc_subsecs(6),
            disabled_at: None,
            previous_secret_expires_at: None,
        }
    }
}

/// An absolute `http://` or `https://` URL, kept as the merchant wrote it (which is what is
/// stored and shown) beside the form the sender reads (see [`destination::parse`]).
#[derive(Debug, Clone, Deserialize)]
#[serde(try_from = "String")]
pub struct WebhookUrl {
    pub(super) written: String,
    destination: Url,
}

impl WebhookUrl {
    /// Unless private networks are allowed, the URL must reach the public internet only.
    pub async fn check_allowed(&self, state: &Kernel) -> Result<(), Error> {
        if state.webhook_allow_private_networks {
            return Ok(());
        }
        destination::check_for_registration(&self.destination)
            .await
            .map_err(|refusal| Error::invalid("url", format!("url is not allowed: {refusal}.")))
    }
}

impl TryFrom<String> for WebhookUrl {
    type Error = &'static str;

    fn try_from(written: String) -> Result<Self, &'static str> {
        let destination =
            destination::parse(&written).ok_or("must be an absolute http:// or https:// URL")?;
        Ok(Self {
            written,
            destination,
        })
    }
}

impl utoipa::PartialSchema for WebhookUrl {
    fn schema() -> RefOr<Schema> {
        ObjectBuilder::new()
            .schema_type(Type::String)
            .format(Some(SchemaFormat::Custom("uri".to_owned())))
            .pattern(Some("^https?://[^/?#@:]+(:[0-9]{1,5})?([/?#].*)?$"))
            .examples(["https://example.com/webhooks"])
            .into()
    }
}

impl utoipa::ToSchema for WebhookUrl {}

impl Serialize for WebhookUrl {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(&self.written)
    }
}

/// The event types an endpoint receives, each named once: `*` or known types, at least one.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(try_from = "Vec<EventName>")]
pub struct Subscriptions(pub(super) Vec<String>);

impl utoipa::PartialSchema for Subscriptions {
    fn schema() -> RefOr<Schema> {
        ArrayBuilder::new()
            .items(EventName::schema())
            .min_items(Some(1))
            .into()
    }
}

impl utoipa::ToSchema for Subscriptions {}

impl TryFrom<Vec<EventName>> for Subscriptions {
    type Error = &'static str;

    fn try_from(names: Vec<EventName>) -> Result<Self, &'static str> {
        if names.is_empty() {
            return Err("must be a non-empty array of event types");
        }
        let mut events: Vec<String> = Vec::with_capacity(names.len());
        for EventName(name) in names {
            if !events.contains(&name) {
                events.push(name);
            }
        }
        Ok(Self(events))
    }
}

/// `*` (every type) or one event type.
#[derive(Debug, Clone, Deserialize)]
#[serde(try_from = "String")]
pub struct EventName(String);

impl TryFrom<String> for EventName {
    type Error = String;

    fn try_from(name: String) -> Result<Self, String> {
        if name != ALL_EVENTS && EventType::parse(&name).is_none() {
            return Err(format!(
                "unknown event type {name}; use `*` or one of {}",
                EventType::NAMES.join(", ")
            ));
        }
        Ok(Self(name))
    }
}

impl utoipa::PartialSchema for EventName {
    fn schema() -> RefOr<Schema> {
        let mut names = vec![ALL_EVENTS];
        names.extend(EventType::NAMES);
        ObjectBuilder::new()
            .schema_type(Type::String)
            .description(Some("`*` for every event type, or one event type."))
            .enum_values(Some(names))
            .into()
    }
}

impl utoipa::ToSchema for EventName {}

pub async fn find(
    pool: &PgPool,
    merchant_id: &MerchantId,
    id: &EndpointId,
) -> sqlx::Result<Option<Endpoint>> {
    sqlx::query_as(&format!(
        "SELECT {ENDPOINT_COLUMNS}, NULL::text AS secret FROM webhook_endpoints \
         WHERE merchant_id = $1 AND id = $2 AND deleted_at IS NULL"
    ))
    .bind(merchant_id)
    .bind(id)
    .fetch_optional(pool)
    .await
}

/// The merchant's endpoints that are not deleted, newest first.
pub async fn list(
    pool: &PgPool,
    merchant_id: &MerchantId,
    page: &Page,
) -> Result<Vec<Endpoint>, Error> {
    page.check_cursor(pool, "webhook_endpoints", merchant_id)
        .await?;
    Ok(sqlx::query_as(&format!(
        "SELECT {ENDPOINT_COLUMNS}, NULL::text AS secret FROM webhook_endpoints \
         WHERE merchant_id = $1 AND deleted_at IS NULL {}",
        Page::newest_first("webhook_endpoints")
    ))
    .bind(merchant_id)
    .bind(page.starting_after.as_deref())
    .bind(page.fetch_limit())
    .fetch_all(pool)
    .await?)
}

/// Deletes the endpoint and stops its pending deliveries, with the audit entry `by` wrote;
/// `false` when there is no such endpoint.
pub async fn delete(
    pool: &PgPool,
    merchant_id: &MerchantId,
    id: &EndpointId,
    by: &By,
) -> sqlx::Result<bool> {
    let mut tx = pool.begin().await?;
    let deleted: Option<Endpoint> = sqlx::query_as(&format!(
        "UPDATE webhook_endpoints SET deleted_at = now() \
         WHERE merchant_id = $1 AND id = $2 AND deleted_at IS NULL \
         RETURNING {ENDPOINT_COLUMNS}, NULL::text AS secret"
    ))
    .bind(merchant_id)
    .bind(id)
    .fetch_optional(&mut *tx)
    .await?;
    let Some(endpoint) = deleted else {
        return Ok(false);
    };
    stop_deliveries(&mut tx, merchant_id, id).await?;
    let entry = Entry::new(
        merchant_id,
        by,
        Action::WebhookEndpointDeleted,
        ObjectType::WebhookEndpoint,
        id.as_str(),
    );
    audit::record(&mut tx, &entry.before(endpoint)).await?;
    tx.commit().await?;
    Ok(true)
}

/// Disables the endpoint (it answered `410 Gone`) and stops its pending deliveries.
pub async fn disable(
    conn: &mut PgConnection,
    merchant_id: &MerchantId,
    id: &EndpointId,
) -> sqlx::Result<()> {
    sqlx::query!(
        "UPDATE webhook_endpoints SET disabled_at = coalesce(disabled_at, now()) \
         WHERE merchant_id = $1 AND id = $2",
        merchant_id.as_str(),
        id.as_str(),
    )
    .execute(&mut *conn)
    .await?;
    stop_deliveries(conn, merchant_id, id).await
}

pub(super) async fn stop_deliveries(
    conn: &mut PgConnection,
    merchant_id: &MerchantId,
    endpoint_id: &str,
) -> sqlx::Result<()> {
    sqlx::query!(
        "UPDATE webhook_deliveries SET status = 'disabled', lease_token = NULL, locked_until = NULL, \
           updated_at = now() \
         WHERE merchant_id = $1 AND endpoint_id = $2 AND status = 'pending'",
        merchant_id.as_str(),
        endpoint_id,
    )
    .execute(conn)
    .await?;
    Ok(())
}
