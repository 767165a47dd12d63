//! The dispatcher: claims due deliveries with `FOR UPDATE SKIP LOCKED` under a lease (so that
//! any number of processes drain one queue, each delivery held by one of them at a time, and a
//! delivery whose holder died is claimed again when its lease runs out), sends each signed
//! attempt, and records every attempt with the delivery's next state in one transaction:
//! `2xx` delivered, `410` disables the endpoint, anything else (or no answer within 10 s)
//! retried on the back-off schedule, honouring `Retry-After`, until the schedule runs out.
//! A due delivery whose endpoint was disabled or deleted meanwhile (a delivery written by a
//! transaction that raced the disabling) is stopped when claimed, never sent. During a secret
//! rotation's overlap an attempt is signed with both secrets, the new one first; a test event's
//! attempts carry `kaadxpay-test: true`.
//! Unless private networks are allowed, sends reach public addresses only (see
//! [`super::destination`]): a name is resolved through the guarded resolver, an IP literal
//! checked before each attempt, and no proxy from the environment is used (it would resolve
//! the name itself, past the guard). A refused send is a failed attempt like a refused
//! connection, retried on the schedule: a name's answers may turn public again, and the
//! allowance may be turned on.

use kaadxpay_types::ids::{EndpointId, MerchantId};
use std::error::Error;
use std::sync::Arc;
use std::time::{Duration, Instant};

use chrono::Utc;
use reqwest::header::{self, HeaderMap};
use reqwest::StatusCode;
use reqwest::Url;
use sqlx::PgPool;
use tokio::task::JoinSet;
use uuid::Uuid;

use super::attempt::{self, Signing, SENT_COLUMNS};
use super::destination::{self, GuardedResolver, Refusal};
use super::endpoints;
use super::schedule::RetrySchedule;
use super::secrets::{SealedSecrets, SEALED_COLUMNS};
use crate::platform::failpoints;
use crate::platform::sealing::Sealer;

/// What the dispatcher is configured with.
#[derive(Debug, Clone)]
pub struct DispatcherSettings {
    pub retry_schedule: RetrySchedule,
    /// How long a claimed delivery stays the dispatcher's; longer than `send_timeout`.
    pub lease: Duration,
    /// How long an endpoint has to answer.
    pub send_timeout: Duration,
    /// Whether endpoints may be internal addresses (local development and tests).
    pub allow_private_networks: bool,
    /// Opens the endpoints' secrets to sign with.
    pub sealer: Sealer,
}

/// Deliveries claimed, and sent concurrently, per run.
const BATCH: i64 = 100;

#[derive(Clone)]
pub struct Dispatcher {
    pool: PgPool,
    client: reqwest::Client,
    schedule: RetrySchedule,
    lease: Duration,
    /// Sends reach public addresses only (see [`super::destination`]).
    guarded: bool,
    sealer: Sealer,
}

/// A claimed delivery with what its attempt needs.
#[derive(sqlx::FromRow)]
struct Due {
    id: Uuid,
    merchant_id: MerchantId,
    lease_token: Uuid,
    attempts: i32,
    event_id: Uuid,
    event_type: String,
    body: String,
    endpoint_id: EndpointId,
    url: String,
    #[sqlx(flatten)]
    secrets: SealedSecrets,
    /// A test event (`POST /v1/webhook-endpoints/{id}/test`).
    test: bool,
}

/// What an endpoint answered.
struct Answer {
    status: StatusCode,
    retry_after: Option<Duration>,
}

/// The state a delivery moves to after an attempt.
enum Next {
    Delivered,
    Retry(Duration),
    Failed,
    Disabled,
}

impl Next {
    fn status(&self) -> &'static str {
        match self {
            Self::Delivered => "delivered",
            Self::Retry(_) => "pending",
            Self::Failed => "failed",
            Self::Disabled => "disabled",
        }
    }
}

impl Dispatcher {
    pub fn new(pool: PgPool, settings: DispatcherSettings) -> Self {
        let guarded = !settings.allow_private_networks;
        let mut client = reqwest::Client::builder()
            .timeout(settings.send_timeout)
            .redirect(reqwest::redirect::Policy::none())
            .user_agent(concat!("Kaadxpay-Webhooks/", env!("CARGO_PKG_VERSION")));
        if guarded {
            client = client.dns_resolver(Arc::new(GuardedResolver)).no_proxy();
        }
        Self {
            pool,
            client: client.build().expect("the HTTP client builds"),
            schedule: settings.retry_schedule,
            lease: settings.lease,
            guarded,
            sealer: settings.sealer,
        }
    }

    /// Claims one batch of due deliveries, attempts each once and records the outcomes;
    /// returns how many were attempted.
    pub async fn run_once(&self) -> sqlx::Result<u64> {
        let due = self.claim().await?;
        let claimed = due.len() as u64;
        let mut sends = JoinSet::new();
        for delivery in due {
            let dispatcher = self.clone();
            sends.spawn(async move { dispatcher.attempt(delivery).await });
        }
        while let Some(sent) = sends.join_next().await {
            match sent {
                Ok(Ok(())) => {}
                // The lease runs out and the delivery is claimed again.
                Ok(Err(err)) => tracing::error!(error = ?err, "could not record a webhook attempt"),
                Err(err) => tracing::error!(error = ?err, "a webhook attempt panicked"),
            }
        }
        Ok(claimed)
    }

    /// Runs batches until fewer than a full batch is due; returns how many were attempted.
    pub async fn drain(&self) -> sqlx::Result<u64> {
        let mut attempted = 0;
        loop {
            let batch = self.run_once().await?;
            attempted += batch;
            if batch < BATCH as u64 {
                return Ok(attempted);
            }
        }
    }

    async fn claim(&self) -> sqlx::Result<Vec<Due>> {
        sqlx::query_as(&format!(
            "WITH due AS ( \
               SELECT d.id, w.disabled_at IS NULL AND w.deleted_at IS NULL AS live \
               FROM webhook_deliveries d JOIN webhook_endpoints w ON w.id = d.endpoint_id \
               WHERE d.status = 'pending' AND d.next_attempt_at <= now() \
                 AND (d.locked_until IS NULL OR d.locked_until <= now()) \
               ORDER BY d.next_attempt_at LIMIT $1 FOR UPDATE OF d SKIP LOCKED), \
             stopped AS ( \
               UPDATE webhook_deliveries d SET status = 'disabled', lease_token = NULL, \
                 locked_until = NULL, updated_at = now() \
               FROM due WHERE d.id = due.id AND NOT due.live), \
             claimed AS ( \
               UPDATE webhook_deliveries d SET lease_token = gen_random_uuid(), \
                 locked_until = now() + make_interval(secs => $2), updated_at = now() \
               FROM due WHERE d.id = due.id AND due.live \
               RETURNING d.id, d.merchant_id, d.lease_token, d.attempts, d.event_id, d.endpoint_id) \
             SELECT c.id, c.merchant_id, c.lease_token, c.attempts, c.event_id, c.endpoint_id, \
               {SENT_COLUMNS}, {SEALED_COLUMNS} \
             FROM claimed c JOIN events e ON e.id = c.event_id \
               JOIN webhook_endpoints w ON w.id = c.endpoint_id",
        ))
        .bind(BATCH)
        .bind(self.lease.as_secs_f64())
        .fetch_all(&self.pool)
        .await
    }

    #[tracing::instrument(skip_all, fields(event_id = %due.event_id, delivery = %due.id, merchant_id = %due.merchant_id))]
    async fn attempt(&self, due: Due) -> sqlx::Result<()> {
        let attempt_id = Uuid::new_v4();
        let started = Instant::now();
        let sent = self.send(&due, attempt_id).await;
        let latency_ms = i32::try_from(started.elapsed().as_millis()).unwrap_or(i32::MAX);
        let failed_attempts = due.attempts as u32 + 1;
        let (status_code, error, next) = match sent {
            Ok(answer) if answer.status.is_success() => {
                (Some(answer.status), None, Next::Delivered)
            }
            Ok(answer) if answer.status == StatusCode::GONE => {
                (Some(answer.status), None, Next::Disabled)
            }
            Ok(answer) => (
                Some(answer.status),
                None,
                self.retry(failed_attempts, answer.retry_after),
            ),
            Err(error) => (None, Some(error), self.retry(failed_attempts, None)),
        };
        metrics::counter!("kaadxpay_webhook_attempts_total", "outcome" => next.status())
            .increment(1);
        tracing::info!(
            event = "webhook.attempt",
            status_code = status_code.map(|status| status.as_u16()),
            error = error.as_deref(),
            latency_ms,
            next = next.status(),
            "webhook attempt"
        );

        let mut tx = self.pool.begin().await?;
        sqlx::query!(
            "INSERT INTO webhook_attempts (id, merchant_id, delivery_id, status_code, latency_ms, error) \
             VALUES ($1, $2, $3, $4, $5, $6)",
            attempt_id,
            due.merchant_id.as_str(),
            due.id,
            status_code.map(|status| status.as_u16() as i16),
            latency_ms,
            error,
        )
        .execute(&mut *tx)
        .await?;
        let retry_in = match next {
            Next::Retry(delay) => Some(delay.as_secs_f64()),
            _ => None,
        };
        let updated = sqlx::query!(
            "UPDATE webhook_deliveries SET attempts = attempts + 1, status = $3, \
               next_attempt_at = CASE WHEN $4::float8 IS NULL THEN next_attempt_at \
                                      ELSE now() + make_interval(secs => $4) END, \
               lease_token = NULL, locked_until = NULL, updated_at = now() \
             WHERE id = $1 AND lease_token = $2",
            due.id,
            due.lease_token,
            next.status(),
            retry_in,
        )
        .execute(&mut *tx)
        .await?;
        if updated.rows_affected() == 0 {
            tracing::warn!(
                event = "webhook.lease_lost",
                "the delivery's lease ran out during the attempt; another dispatcher holds it"
            );
        } else if let Next::Disabled = next {
            endpoints::disable(&mut tx, &due.merchant_id, &due.endpoint_id).await?;
        }
        tx.commit().await
    }

    fn retry(&self, failed_attempts: u32, retry_after: Option<Duration>) -> Next {
        match self.schedule.next_delay(failed_attempts, retry_after) {
            Some(delay) => Next::Retry(delay),
            None => Next::Failed,
        }
    }

    /// One signed `POST` of the event's body; `Err` when no answer came.
    async fn send(&self, due: &Due, attempt_id: Uuid) -> Result<Answer, String> {
        failpoints::check("webhook.before_send")
            .map_err(|_| "fail point webhook.before_send".to_owned())?;
        let url = Url::parse(&due.url).map_err(|err| format!("the endpoint's URL: {err}"))?;
        if self.guarded {
            destination::check_before_send(&url).map_err(|refusal| refused(&refusal))?;
        }
        let secrets = due
            .secrets
            .open(&self.sealer, &due.endpoint_id)
            .map_err(|err| err.to_string())?;
        let signing = Signing {
            event_id: due.event_id,
            event_type: &due.event_type,
            body: &due.body,
            secret: &secrets.secret,
            previous_secret: secrets.previous.as_deref(),
            test: due.test,
        };
        let headers =
            attempt::headers(&signing, attempt_id, Utc::now()).map_err(|err| err.to_string())?;
        let mut request = self.client.post(url);
        for (name, value) in headers {
            request = request.header(name, value);
        }
        let response =
            request
                .body(due.body.clone())
                .send()
                .await
                .map_err(|err| match refusal_in(&err) {
                    Some(refusal) => refused(refusal),
                    None => format!("{:#}", anyhow::Error::from(err)),
                })?;
        Ok(Answer {
            status: response.status(),
            retry_after: retry_after(response.headers()),
        })
    }
}

/// A send the address policy stopped, in words for the attempt's record.
fn refused(refusal: &Refusal) -> String {
    match refusal {
        Refusal::Unresolved(_) => format!("the endpoint's host {refusal}"),
        _ => format!("the endpoint's address is not allowed: {refusal}"),
    }
}

/// The guarded resolver's refusal, if that is why a send failed.
fn refusal_in(err: &reqwest::Error) -> Option<&Refusal> {
    let mut cause: Option<&(dyn Error + 'static)> = Some(err);
    while let Some(err) = cause {
        if let Some(refusal) = err.downcast_ref::<Refusal>() {
            return Some(refusal);
        }
        cause = err.source();
    }
    None
}

/// `Retry-After` as seconds or as an HTTP date.
fn retry_after(headers: &HeaderMap) -> Option<Duration> {
    let value = headers.get(header::RETRY_AFTER)?.to_str().ok()?.trim();
    if let Ok(seconds) = value.parse::<u64>() {
        return Some(Duration::from_secs(seconds));
    }
    let at = chrono::DateTime::parse_from_rfc2822(value).ok()?;
    (at.with_timezone(&Utc) - Utc::now()).to_std().ok()
}
