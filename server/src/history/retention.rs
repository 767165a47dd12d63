//! How long history is kept, and the purge that deletes what is older: webhook events (with their
//! deliveries and attempts, once none is pending), delivery attempts, the partner's webhook
//! events, the payout worker's partner calls, failed console sign-ins, the hourly idempotency
//! outcome counts, and the audit log (a year at least). Runs beside the idempotency purge, inside
//! `serve` and in `kaadxpay purge`.
//!
//! A partner event deleted here no longer deduplicates by `event_id`; the payout moves it caused
//! are conditional on the payout's state, so a very late redelivery still changes nothing. Keep
//! the partner event retention above the partner's own redelivery horizon all the same.

use std::time::Duration;

use serde::Serialize;
use sqlx::postgres::PgArguments;
use sqlx::query::Query;
use sqlx::{PgPool, Postgres};

use super::audit;

/// Each kind of history's retention (from the flags in `service::config::RetentionSettings`).
#[derive(Debug, Clone)]
pub struct Retention {
    /// Webhook events, with their deliveries and attempts (never while one is still pending).
    pub events: Duration,
    pub webhook_attempts: Duration,
    /// The partner's webhook events, kept for deduplication by `event_id`.
    pub partner_events: Duration,
    /// The payout worker's calls to the partner (payout timelines).
    pub partner_calls: Duration,
    /// Failed console sign-ins (at least the sign-in throttle window).
    pub login_failures: Duration,
    /// The hourly idempotency outcome counts (the console's chart).
    pub outcome_counts: Duration,
    /// The audit log (at least [`audit::MIN_RETENTION`]).
    pub audit: Duration,
}

/// How many rows of each kind one purge deleted.
#[derive(Debug, Default, Serialize, PartialEq, Eq)]
pub struct Purged {
    pub events: u64,
    pub webhook_attempts: u64,
    pub partner_events: u64,
    pub partner_calls: u64,
    pub login_failures: u64,
    pub outcome_counts: u64,
    pub audit: u64,
}

impl Retention {
    /// The retentions that cannot work, one sentence each.
    pub fn problems(&self) -> Vec<String> {
        let window =
            Duration::from_secs(60 * crate::accounts::users::THROTTLE_WINDOW_MINUTES as u64);
        let mut problems: Vec<String> = [
            ("KAADXPAY_EVENT_RETENTION", self.events),
            ("KAADXPAY_WEBHOOK_ATTEMPT_RETENTION", self.webhook_attempts),
            ("KAADXPAY_PARTNER_EVENT_RETENTION", self.partner_events),
            ("KAADXPAY_PARTNER_CALL_RETENTION", self.partner_calls),
            ("KAADXPAY_OUTCOME_RETENTION", self.outcome_counts),
        ]
        .into_iter()
        .filter(|(_, retention)| retention.is_zero())
        .map(|(name, _)| format!("{name} must be longer than zero."))
        .collect();
        if self.login_failures < window {
            problems.push(format!(
                "KAADXPAY_LOGIN_FAILURE_RETENTION must be at least the {} sign-in throttle window.",
                humantime::format_duration(window)
            ));
        }
        if self.audit < audit::MIN_RETENTION {
            problems.push(
                "KAADXPAY_AUDIT_RETENTION must be at least 365d: the audit log is kept a year, \
                 and the database refuses to delete a younger entry."
                    .to_owned(),
            );
        }
        problems
    }

    /// Deletes the history older than its retention.
    pub async fn purge(&self, pool: &PgPool) -> sqlx::Result<Purged> {
        let purged = Purged {
            webhook_attempts: delete_older(
                pool,
                sqlx::query!(
                    "DELETE FROM webhook_attempts WHERE at < now() - make_interval(secs => $1)",
                    self.webhook_attempts.as_secs_f64(),
                ),
            )
            .await?,
            // Deliveries and their attempts go with their event, in one statement (foreign keys
            // are checked at its end); an event with a pending delivery stays.
            events: delete_older(
                pool,
                sqlx::query!(
                    "WITH old AS ( \
                       SELECT id FROM events e WHERE created_at < now() - make_interval(secs => $1) \
                         AND NOT EXISTS (SELECT 1 FROM webhook_deliveries d \
                                         WHERE d.event_id = e.id AND d.status = 'pending')), \
                     attempts AS ( \
                       DELETE FROM webhook_attempts a USING webhook_deliveries d \
                       WHERE a.delivery_id = d.id AND d.event_id IN (SELECT id FROM old)), \
                     deliveries AS (DELETE FROM webhook_deliveries WHERE event_id IN (SELECT id FROM old)) \
                     DELETE FROM events WHERE id IN (SELECT id FROM old)",
                    self.events.as_secs_f64(),
                ),
            )
            .await?,
            partner_events: delete_older(
                pool,
                sqlx::query!(
                    "DELETE FROM partner_events WHERE received_at < now() - make_interval(secs => $1)",
                    self.partner_events.as_secs_f64(),
                ),
            )
            .await?,
            partner_calls: delete_older(
                pool,
                sqlx::query!(
                    "DELETE FROM partner_calls WHERE at < now() - make_interval(secs => $1)",
                    self.partner_calls.as_secs_f64(),
                ),
            )
            .await?,
            login_failures: delete_older(
                pool,
                sqlx::query!(
                    "DELETE FROM login_failures WHERE failed_at < now() - make_interval(secs => $1)",
                    self.login_failures.as_secs_f64(),
                ),
            )
            .await?,
            outcome_counts: delete_older(
                pool,
                sqlx::query!(
                    "DELETE FROM idempotency_outcomes WHERE hour < now() - make_interval(secs => $1)",
                    self.outcome_counts.as_secs_f64(),
                ),
            )
            .await?,
            audit: audit::purge(pool, self.audit).await?,
        };
        if purged != Purged::default() {
            tracing::info!(
                event = "retention.purged",
                ?purged,
                "deleted history past its retention"
            );
        }
        Ok(purged)
    }
}

/// Runs `delete`, one of the statements above; how many rows it deleted.
async fn delete_older(
    pool: &PgPool,
    delete: Query<'_, Postgres, PgArguments>,
) -> sqlx::Result<u64> {
    Ok(delete.execute(pool).await?.rows_affected())
}
