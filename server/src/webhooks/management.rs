//! Managing an endpoint after its creation (API.md §5, "Managing endpoints"): change its URL or
//! event types, disable and enable it (`PATCH`); rotate its secret with an overlap during which
//! deliveries carry both signatures; recover the deliveries it missed (a new delivery of each
//! whose retries ran out or that its `410` stopped); send it a test event with made-up data.
//! The three `POST`s are commands, run once per `Idempotency-Key`.
//!
//! A disabled endpoint receives nothing: publishing, redelivering and the dispatcher's claim all
//! skip it, so events raised while it is disabled never reach it. Recovering and testing it are
//! refused until it is enabled again (`409 invalid_state_transition`); a rotation is not.
//!
//! A rotation's answer carries the new secret and is stored and replayed byte for byte, as the
//! creation's is: the secret is kept in clear anyway (it signs every delivery), and a client
//! whose answer was lost gets it with a retry instead of losing it for good.

use kaadxpay_types::ids::{EndpointId, MerchantId};
use std::time::Duration;

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use serde_json::json;
use sqlx::PgConnection;
use utoipa::openapi::schema::{ObjectBuilder, Schema, Type};
use utoipa::openapi::RefOr;

use super::endpoints::{self, Endpoint, Subscriptions, WebhookUrl};
use super::events;
use super::outbox::NewEvent;
use super::secrets;
use super::signature;
use crate::contract::error::Error;
use crate::history::audit::{self, Action, Entry, ObjectType};
use crate::idempotency::{sealed, Once, Ran, Resource, StoredResponse};
use crate::payments::events::{EventType, KnownEventType};
use crate::payments::samples;
use crate::service::author::By;
use crate::service::commands::{Caller, Command};
use crate::service::kernel::Kernel;

/// `PATCH /v1/webhook-endpoints/{id}`: what to change; a field left out stays as it is.
#[derive(Debug, Clone, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct UpdateEndpoint {
    #[serde(default)]
    pub url: Option<WebhookUrl>,
    #[serde(default)]
    pub events: Option<Subscriptions>,
    /// `true` stops deliveries to it (its pending ones too); `false` enables it again.
    #[serde(default)]
    pub disabled: Option<bool>,
}

/// Applies `change` to the merchant's endpoint `id` (a new URL passes the same checks as at
/// creation); `404` when there is no such endpoint. Disabling stops its pending deliveries in
/// the same transaction, which writes the audit entry `by` made too (before and after).
pub async fn update(
    state: &Kernel,
    merchant_id: &MerchantId,
    id: &str,
    change: &UpdateEndpoint,
    by: &By,
) -> Result<Endpoint, Error> {
    if let Some(url) = &change.url {
        url.check_allowed(state).await?;
    }
    let mut tx = state.pool.begin().await?;
    let before: Endpoint = sqlx::query_as(&format!(
        "SELECT {}, NULL::text AS secret FROM webhook_endpoints \
         WHERE merchant_id = $1 AND id = $2 AND deleted_at IS NULL FOR UPDATE",
        endpoints::ENDPOINT_COLUMNS
    ))
    .bind(merchant_id)
    .bind(id)
    .fetch_optional(&mut *tx)
    .await?
    .ok_or(Error::ResourceMissing("webhook endpoint"))?;
    let endpoint: Endpoint = sqlx::query_as(&format!(
        "UPDATE webhook_endpoints SET url = coalesce($3, url), events = coalesce($4, events), \
           disabled_at = CASE WHEN $5 THEN coalesce(disabled_at, now()) \
                              WHEN NOT $5 THEN NULL ELSE disabled_at END \
         WHERE merchant_id = $1 AND id = $2 AND deleted_at IS NULL \
         RETURNING {}, NULL::text AS secret",
        endpoints::ENDPOINT_COLUMNS
    ))
    .bind(merchant_id)
    .bind(id)
    .bind(change.url.as_ref().map(|url| &url.written))
    .bind(change.events.as_ref().map(|events| &events.0))
    .bind(change.disabled)
    .fetch_optional(&mut *tx)
    .await?
    .ok_or(Error::ResourceMissing("webhook endpoint"))?;
    if change.disabled == Some(true) {
        endpoints::stop_deliveries(&mut tx, merchant_id, id).await?;
    }
    let entry = Entry::new(
        merchant_id,
        by,
        Action::WebhookEndpointUpdated,
        ObjectType::WebhookEndpoint,
        id,
    );
    audit::record(&mut tx, &entry.before(before).after(&endpoint)).await?;
    tx.commit().await?;
    Ok(endpoint)
}

/// The merchant's endpoint `id`; `404` when there is none.
async fn existing(
    state: &Kernel,
    merchant_id: &MerchantId,
    id: &EndpointId,
) -> Result<Endpoint, Error> {
    endpoints::find(&state.pool, merchant_id, id)
        .await?
        .ok_or(Error::ResourceMissing("webhook endpoint"))
}

/// Refuses an action that would send to a disabled endpoint.
async fn require_enabled(
    state: &Kernel,
    merchant_id: &MerchantId,
    id: &EndpointId,
) -> Result<(), Error> {
    match existing(state, merchant_id, id).await?.disabled_at {
        None => Ok(()),
        Some(_) => Err(Error::InvalidStateTransition(
            "The webhook endpoint is disabled; enable it first (PATCH with `\"disabled\": false`)."
                .to_owned(),
        )),
    }
}

fn endpoint_resource(id: &str) -> Resource {
    Resource::new("webhook_endpoint", id)
}

/// How long deliveries stay signed with the old secret too: `now` (not at all) or a whole
/// number of seconds, minutes, hours or days (`90s`, `30m`, `24h`, `7d`; no leading zero) from
/// `0s` to `7d`, kept as written. The OpenAPI pattern ([`OVERLAP_PATTERN`]) says exactly this.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct Overlap {
    written: String,
    length: Duration,
}

const MAX_OVERLAP_SECONDS: u64 = 7 * 24 * 3600;

/// Every overlap [`Overlap`] accepts, and nothing else, per unit up to a week: 604800 s,
/// 10080 m, 168 h, 7 d.
const OVERLAP_PATTERN: &str = "now\
    |(0|[1-9][0-9]{0,4}|[1-5][0-9]{5}|60[0-3][0-9]{3}|604[0-7][0-9]{2}|604800)s\
    |(0|[1-9][0-9]{0,3}|100[0-7][0-9]|10080)m\
    |(0|[1-9][0-9]?|1[0-5][0-9]|16[0-8])h\
    |[0-7]d";

impl Overlap {
    fn length(written: &str) -> Option<Duration> {
        if written == "now" {
            return Some(Duration::ZERO);
        }
        let unit = match written.chars().last()? {
            's' => 1,
            'm' => 60,
            'h' => 3600,
            'd' => 24 * 3600,
            _ => return None,
        };
        let number = &written[..written.len() - 1];
        let canonical = number == "0" || !number.starts_with('0');
        if number.is_empty() || !canonical || !number.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        let seconds = number.parse::<u64>().ok()?.checked_mul(unit)?;
        (seconds <= MAX_OVERLAP_SECONDS).then(|| Duration::from_secs(seconds))
    }
}

impl TryFrom<String> for Overlap {
    type Error = &'static str;

    fn try_from(written: String) -> Result<Self, &'static str> {
        let length = Self::length(&written)
            .ok_or("must be `now` or a duration from `0s` to `7d` in one unit, such as `24h`")?;
        Ok(Self { written, length })
    }
}

impl From<Overlap> for String {
    fn from(overlap: Overlap) -> Self {
        overlap.written
    }
}

impl utoipa::PartialSchema for Overlap {
    fn schema() -> RefOr<Schema> {
        ObjectBuilder::new()
            .schema_type(Type::String)
            .description(Some(
                "`now`, or a whole number of seconds, minutes, hours or days from `0s` to `7d`, such as `24h` or `90m`.",
            ))
            .pattern(Some(format!("^({OVERLAP_PATTERN})$")))
            .examples(["24h"])
            .into()
    }
}

/// Named apart from the key roll's overlap, which takes four values only.
impl utoipa::ToSchema for Overlap {
    fn name() -> std::borrow::Cow<'static, str> {
        "SecretOverlap".into()
    }
}

/// The body of `POST /v1/webhook-endpoints/{id}/rotate-secret`.
#[derive(Debug, Clone, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct RotateSecretBody {
    pub overlap: Overlap,
}

/// `POST /v1/webhook-endpoints/{id}/rotate-secret`: a new secret for the endpoint; the old one
/// keeps signing too until the overlap ends. The endpoint is part of what makes two requests
/// the same request, since the route template is the same for every endpoint.
#[derive(Debug, Clone, Serialize)]
pub struct RotateSecret {
    pub endpoint_id: EndpointId,
    pub overlap: Overlap,
}

impl Command for RotateSecret {
    const ENDPOINT: &'static str = "POST /v1/webhook-endpoints/{id}/rotate-secret";

    /// An endpoint the merchant does not have is a `404` that leaves no record.
    async fn check(&self, state: &Kernel, merchant_id: &MerchantId) -> Result<(), Error> {
        existing(state, merchant_id, &self.endpoint_id).await?;
        Ok(())
    }

    async fn apply(&self, once: Once, caller: &Caller<'_>) -> Result<Ran, Error> {
        once.transaction(async |conn| self.answer(conn, caller).await)
            .await
    }
}

impl RotateSecret {
    /// The effect, in `conn`'s transaction with its audit entry, and its answer.
    async fn answer(
        &self,
        conn: &mut PgConnection,
        caller: &Caller<'_>,
    ) -> Result<StoredResponse, Error> {
        let merchant_id = caller.merchant_id;
        let secret = signature::new_secret();
        // Both sealed for the endpoint: the current secret moves to the previous one as it is.
        let endpoint: Endpoint = sqlx::query_as(&format!(
            "UPDATE webhook_endpoints SET previous_secret_sealed = secret_sealed, \
               previous_secret_expires_at = now() + make_interval(secs => $3), \
               secret_sealed = $4 \
             WHERE merchant_id = $1 AND id = $2 AND deleted_at IS NULL \
             RETURNING {}, $5::text AS secret",
            endpoints::ENDPOINT_COLUMNS
        ))
        .bind(merchant_id)
        .bind(&self.endpoint_id)
        .bind(self.overlap.length.as_secs_f64())
        .bind(secrets::seal(caller.sealer, &self.endpoint_id, &secret))
        .bind(&secret)
        .fetch_optional(&mut *conn)
        .await?
        .ok_or(Error::ResourceMissing("webhook endpoint"))?;
        let entry = Entry::new(
            merchant_id,
            caller.by,
            Action::WebhookEndpointSecretRotated,
            ObjectType::WebhookEndpoint,
            self.endpoint_id.as_str(),
        );
        audit::record(conn, &entry.after(endpoint.without_secret())).await?;
        let response = StoredResponse::ok(&endpoint, endpoint_resource(&self.endpoint_id));
        Ok(sealed::seal(
            caller.sealer,
            merchant_id,
            caller.key,
            response,
        ))
    }
}

/// The body of `POST /v1/webhook-endpoints/{id}/recover`.
#[derive(Debug, Clone, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct RecoverBody {
    /// RFC 3339: deliveries whose last attempt was at or after this instant are recovered.
    pub since: DateTime<Utc>,
}

/// `POST /v1/webhook-endpoints/{id}/recover`: a new delivery (same event, same body) of every
/// delivery to the endpoint whose retries ran out or that its `410` stopped, last attempted at
/// or after `since`, unless a newer delivery of that event to the endpoint was made since.
#[derive(Debug, Clone, Serialize)]
pub struct Recover {
    pub endpoint_id: EndpointId,
    #[serde(serialize_with = "crate::contract::timestamp::rfc3339")]
    pub since: DateTime<Utc>,
}

/// The answer to a recovery.
#[derive(Debug, Serialize, utoipa::ToSchema)]
pub struct Recovery {
    /// Always `recovery`.
    pub object: &'static str,
    /// How many new deliveries were queued.
    pub queued: u64,
}

impl Command for Recover {
    const ENDPOINT: &'static str = "POST /v1/webhook-endpoints/{id}/recover";

    /// An endpoint the merchant does not have is a `404`, a disabled one a `409`: neither leaves
    /// a record.
    async fn check(&self, state: &Kernel, merchant_id: &MerchantId) -> Result<(), Error> {
        require_enabled(state, merchant_id, &self.endpoint_id).await
    }

    async fn apply(&self, once: Once, caller: &Caller<'_>) -> Result<Ran, Error> {
        once.transaction(async |conn| self.answer(conn, caller.merchant_id, caller.by).await)
            .await
    }
}

impl Recover {
    /// The effect, in `conn`'s transaction with its audit entry, and its answer.
    async fn answer(
        &self,
        conn: &mut PgConnection,
        merchant_id: &MerchantId,
        by: &By,
    ) -> Result<StoredResponse, Error> {
        let queued = sqlx::query!(
            "INSERT INTO webhook_deliveries (id, merchant_id, event_id, endpoint_id, status) \
             SELECT gen_random_uuid(), d.merchant_id, d.event_id, d.endpoint_id, 'pending' \
             FROM webhook_deliveries d \
               JOIN webhook_endpoints w ON w.id = d.endpoint_id \
                 AND w.disabled_at IS NULL AND w.deleted_at IS NULL \
               CROSS JOIN LATERAL (SELECT a.status_code, a.at FROM webhook_attempts a \
                 WHERE a.delivery_id = d.id ORDER BY a.at DESC, a.id DESC LIMIT 1) last \
             WHERE d.merchant_id = $1 AND d.endpoint_id = $2 \
               AND (d.status = 'failed' OR (d.status = 'disabled' AND last.status_code = 410)) \
               AND last.at >= $3 \
               AND NOT EXISTS (SELECT 1 FROM webhook_deliveries later \
                 WHERE later.event_id = d.event_id AND later.endpoint_id = d.endpoint_id \
                   AND later.created_at > d.created_at)",
            merchant_id.as_str(),
            self.endpoint_id.as_str(),
            self.since as _,
        )
        .execute(&mut *conn)
        .await?
        .rows_affected();
        let recovery = Recovery {
            object: "recovery",
            queued,
        };
        let entry = Entry::new(
            merchant_id,
            by,
            Action::WebhookEndpointRecovered,
            ObjectType::WebhookEndpoint,
            &self.endpoint_id,
        );
        let after = json!({"since": self.since, "queued": queued});
        audit::record(conn, &entry.after(after)).await?;
        let response = StoredResponse::ok(&recovery, endpoint_resource(&self.endpoint_id));
        Ok(response)
    }
}

/// The body of `POST /v1/webhook-endpoints/{id}/test`.
#[derive(Debug, Clone, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct SendTestEventBody {
    pub event_type: KnownEventType,
}

/// `POST /v1/webhook-endpoints/{id}/test`: an event of the type with made-up data, marked
/// `"test": true` in its body, with one delivery: to this endpoint, whatever it subscribes to.
#[derive(Debug, Clone, Serialize)]
pub struct SendTestEvent {
    pub endpoint_id: EndpointId,
    pub event_type: KnownEventType,
}

impl Command for SendTestEvent {
    const ENDPOINT: &'static str = "POST /v1/webhook-endpoints/{id}/test";

    /// An endpoint the merchant does not have is a `404`, a disabled one a `409`: neither leaves
    /// a record.
    async fn check(&self, state: &Kernel, merchant_id: &MerchantId) -> Result<(), Error> {
        require_enabled(state, merchant_id, &self.endpoint_id).await
    }

    async fn apply(&self, once: Once, caller: &Caller<'_>) -> Result<Ran, Error> {
        once.transaction(async |conn| self.answer(conn, caller.merchant_id, caller.by).await)
            .await
    }
}

impl SendTestEvent {
    /// The effect, in `conn`'s transaction with its audit entry, and its answer.
    async fn answer(
        &self,
        conn: &mut PgConnection,
        merchant_id: &MerchantId,
        by: &By,
    ) -> Result<StoredResponse, Error> {
        let event = test_event(self.event_type.0);
        insert_test_event(&mut *conn, merchant_id, &self.endpoint_id, &event).await?;
        let shown = events::find(&mut *conn, merchant_id, event.id)
            .await?
            .ok_or(Error::ResourceMissing("webhook endpoint"))?;
        let entry = Entry::new(
            merchant_id,
            by,
            Action::WebhookEndpointTestSent,
            ObjectType::WebhookEndpoint,
            &self.endpoint_id,
        );
        let after = json!({"event_id": event.id, "event_type": event.event_type.as_str()});
        audit::record(conn, &entry.after(after)).await?;
        let resource = Resource::new("event", event.id.to_string());
        Ok(StoredResponse::ok(&shown, resource))
    }
}

/// Writes the test event with one pending delivery to the endpoint, if it is still enabled
/// (otherwise nothing: the caller then finds no event).
async fn insert_test_event(
    conn: &mut PgConnection,
    merchant_id: &MerchantId,
    endpoint_id: &str,
    event: &NewEvent,
) -> sqlx::Result<()> {
    sqlx::query!(
        "WITH endpoint AS ( \
           SELECT id, merchant_id FROM webhook_endpoints \
           WHERE merchant_id = $1 AND id = $2 AND disabled_at IS NULL AND deleted_at IS NULL), \
         new_event AS ( \
           INSERT INTO events (id, merchant_id, event_type, payload, created_at) \
           SELECT $3, merchant_id, $4, $5, $6 FROM endpoint RETURNING id) \
         INSERT INTO webhook_deliveries (id, merchant_id, event_id, endpoint_id, status) \
         SELECT gen_random_uuid(), w.merchant_id, e.id, w.id, 'pending' \
         FROM endpoint w CROSS JOIN new_event e",
        merchant_id.as_str(),
        endpoint_id,
        event.id,
        event.event_type.as_str(),
        sqlx::types::Json(&*event.payload) as _,
        event.created_at as _,
    )
    .execute(conn)
    .await?;
    Ok(())
}

/// A realistic event of `kind` about a made-up object (`payments::samples`), its body marked
/// `"test": true`.
fn test_event(kind: EventType) -> NewEvent {
    NewEvent::test(kind, &samples::object_of(kind))
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    fn accepts(written: &str) -> bool {
        Overlap::try_from(written.to_owned()).is_ok()
    }

    #[test]
    fn overlaps_run_from_now_to_a_week_in_one_unit() {
        for written in [
            "now", "0s", "0d", "90s", "604800s", "10080m", "168h", "7d", "24h",
        ] {
            assert!(accepts(written), "{written}");
        }
        for written in [
            "",
            "s",
            "8d",
            "169h",
            "10081m",
            "604801s",
            "024h",
            "1h30m",
            "1h 30m",
            "-1h",
            "1w",
            "24",
            "Now",
            "18446744073709551615d",
        ] {
            assert!(!accepts(written), "{written}");
        }
        assert_eq!(Overlap::length("2m"), Some(Duration::from_secs(120)));
    }

    proptest! {
        #[test]
        fn whatever_the_documented_pattern_allows_is_accepted(written in OVERLAP_PATTERN) {
            prop_assert!(accepts(&written), "{}", written);
        }
    }
}
