//! What one attempt of a delivery sends besides its body: the Standard Webhooks headers, signed
//! with the endpoint's secrets, and ours. The dispatcher sends them ([`super::dispatcher`]); the
//! console shows them as a `curl` command that reproduces the delivery ([`reproduce`]), signed at
//! the moment it is shown, so that a merchant can replay it against their own handler.

use chrono::{DateTime, SecondsFormat, Utc};
use sqlx::PgConnection;
use uuid::Uuid;

use super::secrets::{SealedSecrets, SEALED_COLUMNS};
use super::signature::{self, InvalidSecret};
use crate::platform::sealing::Sealer;
use kaadxpay_types::ids::MerchantId;

/// What an attempt is sent with, selected from a delivery's event `e` and endpoint `w`: the
/// event's type and body, the endpoint's URL, and whether it is a test event; with
/// [`secrets::SEALED_COLUMNS`], what it is signed with. The dispatcher's claim and
/// [`reproduce`] both read them.
pub const SENT_COLUMNS: &str = "e.event_type, e.payload::text AS body, w.url, \
     coalesce((e.payload -> 'test')::boolean, false) AS test";

/// One attempt's event, and the endpoint's secrets.
pub struct Signing<'a> {
    pub event_id: Uuid,
    pub event_type: &'a str,
    pub body: &'a str,
    pub secret: &'a str,
    /// The secret before the last rotation, while its overlap lasts: it signs too.
    pub previous_secret: Option<&'a str>,
    /// A test event (`POST /v1/webhook-endpoints/{id}/test`), marked in a header too.
    pub test: bool,
}

/// The headers of one attempt, `attempt_id` its `kaadxpay-delivery-id`, made at `now`.
pub fn headers(
    signing: &Signing<'_>,
    attempt_id: Uuid,
    now: DateTime<Utc>,
) -> Result<Vec<(&'static str, String)>, InvalidSecret> {
    let event_id = signing.event_id.to_string();
    let secrets: Vec<&str> = std::iter::once(signing.secret)
        .chain(signing.previous_secret)
        .collect();
    let signature = signature::sign_with_each(
        &secrets,
        &event_id,
        now.timestamp(),
        signing.body.as_bytes(),
    )?;
    let mut headers = vec![
        ("content-type", "application/json".to_owned()),
        ("webhook-id", event_id),
        ("webhook-timestamp", now.timestamp().to_string()),
        ("webhook-signature", signature),
        ("kaadxpay-event-type", signing.event_type.to_owned()),
        ("kaadxpay-delivery-id", attempt_id.to_string()),
        (
            "kaadxpay-delivered-at",
            now.to_rfc3339_opts(SecondsFormat::Secs, true),
        ),
    ];
    if signing.test {
        headers.push(("kaadxpay-test", "true".to_owned()));
    }
    Ok(headers)
}

/// The merchant's delivery `delivery_id` as a `curl` command that sends it again, as a new
/// attempt signed now (with the endpoint's secrets, opened by `sealer`); `None` when the
/// merchant has no such delivery.
pub async fn reproduce(
    conn: &mut PgConnection,
    sealer: &Sealer,
    merchant_id: &MerchantId,
    delivery_id: Uuid,
) -> sqlx::Result<Option<String>> {
    #[derive(sqlx::FromRow)]
    struct Delivery {
        event_id: Uuid,
        endpoint_id: String,
        event_type: String,
        body: String,
        url: String,
        #[sqlx(flatten)]
        secrets: SealedSecrets,
        test: bool,
    }
    let delivery: Option<Delivery> = sqlx::query_as(&format!(
        "SELECT e.id AS event_id, d.endpoint_id, {SENT_COLUMNS}, {SEALED_COLUMNS} \
         FROM webhook_deliveries d JOIN events e ON e.id = d.event_id \
           JOIN webhook_endpoints w ON w.id = d.endpoint_id \
         WHERE d.merchant_id = $1 AND d.id = $2"
    ))
    .bind(merchant_id)
    .bind(delivery_id)
    .fetch_optional(conn)
    .await?;
    let Some(delivery) = delivery else {
        return Ok(None);
    };
    let secrets = delivery
        .secrets
        .open(sealer, &delivery.endpoint_id)
        .map_err(|err| sqlx::Error::Decode(err.into()))?;
    let signing = Signing {
        event_id: delivery.event_id,
        event_type: &delivery.event_type,
        body: &delivery.body,
        secret: &secrets.secret,
        previous_secret: secrets.previous.as_deref(),
        test: delivery.test,
    };
    let headers = headers(&signing, Uuid::new_v4(), Utc::now())
        .map_err(|err| sqlx::Error::Decode(err.into()))?;
    Ok(Some(curl(&delivery.url, &headers, &delivery.body)))
}

/// A POST of `body` to `url` with `headers`, as a `curl` command for a POSIX shell.
fn curl(url: &str, headers: &[(&str, String)], body: &str) -> String {
    let mut command = format!("curl -X POST {}", quoted(url));
    for (name, value) in headers {
        command.push_str(&format!(
            " \\\n  -H {}",
            quoted(&format!("{name}: {value}"))
        ));
    }
    command.push_str(&format!(" \\\n  --data-binary {}", quoted(body)));
    command
}

/// `text` as one single-quoted shell word (a `'` inside becomes `'\''`).
fn quoted(text: &str) -> String {
    format!("'{}'", text.replace('\'', r"'\''"))
}

#[cfg(test)]
mod tests {
    use super::quoted;

    #[test]
    fn a_quote_inside_stays_one_shell_word() {
        assert_eq!(quoted("it's"), r"'it'\''s'");
    }
}
