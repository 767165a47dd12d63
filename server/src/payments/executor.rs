//! The payout worker, which carries refunds too (their transfers take the same path, see
//! [`super::outgoing`]): a Postgres queue over `payouts` and `refunds` drained with `FOR UPDATE SKIP LOCKED` and
//! a lease, so any number of processes share the work and a job whose process died is taken
//! again once its lease runs out. Each claim takes a new fencing token, and the job's moves and
//! its release check it, so a worker whose lease ran out cannot undo what the worker that took
//! the job over does. It never holds a transaction open across the partner call.
//!
//! A `pending` payout is sent to the partner with its end-to-end key (the same on every
//! attempt, so asking again after a timeout or a crash is safe), then recorded `in_transit`;
//! an `in_transit` one is polled until the partner settles it, in case its webhook never comes.
//! A transfer found returned (`reversed`) reverses the payout and gives its amount back, one
//! found `failed` fails it and gives it back. A payout fails without a transfer only when the
//! partner refused its create (`422`) and no transfer of its key can exist: this was the first
//! create (the claim counter `attempts`, committed before the call, is 1: no earlier claim ever
//! sent one; a crash, a lost lease or a fault only ever make it larger, so it errs towards
//! asking), or the partner's own listing of the payout's days shows no transfer with its key (a
//! transfer it does show is the payout's own, recorded as any answer is). Anything else
//! (timeouts, `5xx`, `401`, `404`, `409`, a `422` on a status check, a listing that cannot be
//! had) is retried with exponential back-off and counted in
//! `kaadxpay_partner_retries_total{cause}`.

use kaadxpay_types::ids::MerchantId;
use std::future::Future;
use std::time::{Duration, Instant};

use chrono::{DateTime, Days, Utc};
use rand::Rng;
use sqlx::types::Json;
use sqlx::PgPool;
use tokio::task::JoinSet;
use uuid::Uuid;

use super::outgoing::{self, Mover, Outgoing, To, TransferOf};
use super::partner_calls::{Answer, Noted};
use super::partner_events::transfers_with_key;
use crate::platform::failpoints;
use kaadxpay_partner::client::{CreateError, PartnerClient, PartnerError};
use kaadxpay_partner::wire::{Destination, Transfer, TransferRequest, TransferStatus};
use kaadxpay_types::{PartnerCall, PayoutStatus};

/// Jobs claimed per run.
const BATCH: i64 = 50;
const MAX_BACKOFF: Duration = Duration::from_secs(600);

#[derive(Clone)]
pub struct PayoutWorker {
    pub pool: PgPool,
    pub partner: PartnerClient,
    /// How long a claimed job is ours.
    pub lease: Duration,
    /// The first retry's delay; each further retry doubles it.
    pub retry_base: Duration,
    /// How often an `in_transit` payout is polled.
    pub poll_interval: Duration,
}

/// A claimed job as its queue's row reads (its fencing token a new one: only its holder may
/// move or release the job).
#[derive(sqlx::FromRow)]
struct ClaimedRow {
    kind: String,
    id: String,
    merchant_id: MerchantId,
    status: String,
    amount: i64,
    currency: String,
    destination: Json<Destination>,
    partner_key: String,
    partner_transfer_id: Option<String>,
    attempts: i32,
    created_at: DateTime<Utc>,
    lease_token: Uuid,
}

struct Job {
    /// The payout or refund whose transfer it is.
    of: TransferOf,
    /// Where its transfer stands, as a payout's state (a refund's `pending` and `in_transit`
    /// read the same).
    status: PayoutStatus,
    /// The rest of its row, as claimed.
    row: ClaimedRow,
}

impl PayoutWorker {
    /// Claims the due jobs and works them concurrently; returns how many.
    pub async fn run_once(&self) -> sqlx::Result<u64> {
        // Payouts and refunds alike: one queue shape on two tables, claimed in one statement.
        let claim = |table: &str, kind: &str| {
            format!(
                "UPDATE {table} SET locked_until = now() + make_interval(secs => $1), \
                   lease_token = gen_random_uuid(), attempts = attempts + 1 \
                 WHERE id IN (SELECT id FROM {table} \
                              WHERE status IN ('pending', 'in_transit') AND next_attempt_at <= now() \
                                AND (locked_until IS NULL OR locked_until <= now()) \
                              ORDER BY next_attempt_at LIMIT $2 FOR UPDATE SKIP LOCKED) \
                 RETURNING '{kind}' AS kind, id, merchant_id, status, amount, currency, \
                   destination, partner_key, partner_transfer_id, attempts, created_at, lease_token"
            )
        };
        let jobs = sqlx::query_as::<_, ClaimedRow>(&format!(
            "WITH payout_jobs AS ({}), refund_jobs AS ({}) \
             SELECT * FROM payout_jobs UNION ALL SELECT * FROM refund_jobs",
            claim("payouts", "payout"),
            claim("refunds", "refund"),
        ))
        .bind(self.lease.as_secs_f64())
        .bind(BATCH)
        .fetch_all(&self.pool)
        .await?
        .into_iter()
        .map(|row| {
            let (of, status) = outgoing::read(&row.kind, &row.id, row.status.clone())?;
            Ok(Job { of, status, row })
        })
        .collect::<sqlx::Result<Vec<Job>>>()?;
        let claimed = jobs.len() as u64;
        let mut running = JoinSet::new();
        for job in jobs {
            let worker = self.clone();
            running.spawn(async move { worker.work(job).await });
        }
        while let Some(done) = running.join_next().await {
            if let Ok(Err(err)) = done {
                tracing::error!(error = ?err, "a payout job failed; its lease will expire and it will be retried");
            }
        }
        Ok(claimed)
    }

    async fn work(&self, job: Job) -> sqlx::Result<()> {
        let answer = match (job.status, &job.row.partner_transfer_id) {
            (PayoutStatus::InTransit, Some(transfer_id)) => self
                .noting(
                    &job,
                    PartnerCall::Status,
                    self.partner.transfer(transfer_id),
                )
                .await
                .map(Known::Made),
            _ => self.send(&job).await,
        };
        match answer {
            Ok(Known::Made(transfer)) => self.record(&job, &transfer).await,
            Ok(Known::NoneMade(code)) => {
                let mut tx = self.pool.begin().await?;
                let failed = To::Failed(None, &code);
                job.of.mark(&mut tx, job.mover(), failed).await?;
                tx.commit().await
            }
            Err(PartnerError { kind, detail, .. }) => {
                metrics::counter!("kaadxpay_partner_retries_total", "cause" => kind).increment(1);
                self.retry_later(&job, &format!("{kind}: {detail}")).await
            }
        }
    }

    /// Asks the partner to make the payout's transfer; after a refusal that may follow an
    /// earlier create, looks for a transfer of the payout's key in the partner's listing.
    async fn send(&self, job: &Job) -> Result<Known, PartnerError> {
        let fault = |err| PartnerError::transient("fault", err);
        failpoints::check(job.of.before_partner_call()).map_err(fault)?;
        let request = TransferRequest {
            amount: job.row.amount,
            currency: job.row.currency.clone(),
            destination: job.row.destination.0.clone(),
            reference: job.of.to_string(),
        };
        let created = self
            .noting(
                job,
                PartnerCall::Create,
                self.partner.create_transfer(&job.row.partner_key, &request),
            )
            .await;
        failpoints::check(job.of.after_partner_call()).map_err(fault)?;
        match created {
            Ok(transfer) => Ok(Known::Made(transfer)),
            Err(CreateError::Unanswered(error)) => Err(error),
            Err(CreateError::Refused(code)) if job.row.attempts <= 1 => Ok(Known::NoneMade(code)),
            Err(CreateError::Refused(code)) => {
                // The partner's clock may run a little ahead of ours: a day of margin.
                let listed = transfers_with_key(
                    &self.partner,
                    &job.row.partner_key,
                    job.row.created_at,
                    Utc::now() + Days::new(1),
                );
                let made = self.noting(job, PartnerCall::Listing, listed).await?;
                tracing::warn!(
                    transfer_of = %job.of,
                    code,
                    transfers = made.len(),
                    "the partner refused a repeated create; its listing decides"
                );
                Ok(made
                    .into_iter()
                    .next()
                    .map_or(Known::NoneMade(code), Known::Made))
            }
        }
    }

    /// Makes a partner call and notes it, with its answer, on the payout's timeline.
    async fn noting<T: Answer>(
        &self,
        job: &Job,
        call: PartnerCall,
        answer: impl Future<Output = T>,
    ) -> T {
        let started = Instant::now();
        let answer = answer.await;
        let noted = Noted {
            merchant_id: &job.row.merchant_id,
            transfer_of: &job.of,
            partner_key: &job.row.partner_key,
        };
        noted
            .record(&self.pool, call, &answer, started.elapsed())
            .await;
        answer
    }

    /// Records what the partner says of the payout's transfer.
    async fn record(&self, job: &Job, transfer: &Transfer) -> sqlx::Result<()> {
        let mut tx = self.pool.begin().await?;
        let id = transfer.id.as_str();
        let to = match transfer.status {
            TransferStatus::Accepted if job.status == PayoutStatus::Pending => {
                Some(To::InTransit(id, self.poll_interval))
            }
            TransferStatus::Accepted => None,
            TransferStatus::Paid => Some(To::Paid(id)),
            TransferStatus::Reversed => Some(To::Reversed(id)),
            TransferStatus::Failed => Some(To::Failed(Some(id), "partner_failed")),
        };
        let moved = match to {
            Some(to) => job.of.mark(&mut tx, job.mover(), to).await?,
            None => false,
        };
        if !moved {
            // Still settling, or already moved by the partner's webhook: look again later.
            self.release(&mut tx, job, self.poll_interval, None).await?;
        }
        tx.commit().await
    }

    async fn retry_later(&self, job: &Job, cause: &str) -> sqlx::Result<()> {
        let exponent = job.row.attempts.clamp(1, 16) as u32 - 1;
        let backoff = self
            .retry_base
            .saturating_mul(2u32.saturating_pow(exponent))
            .min(MAX_BACKOFF);
        let jittered = backoff.mul_f64(rand::thread_rng().gen_range(0.8..1.2));
        tracing::warn!(
            transfer_of = %job.of,
            attempts = job.row.attempts,
            cause,
            "partner call failed; retrying later"
        );
        let mut conn = self.pool.acquire().await?;
        self.release(&mut conn, job, jittered, Some(cause)).await
    }

    /// Gives the job back, due again after `due_in`, if it is still ours.
    async fn release(
        &self,
        conn: &mut sqlx::PgConnection,
        job: &Job,
        due_in: Duration,
        error: Option<&str>,
    ) -> sqlx::Result<()> {
        sqlx::query(&format!(
            "UPDATE {} SET locked_until = NULL, lease_token = NULL, \
               next_attempt_at = now() + make_interval(secs => $2), \
               last_error = coalesce($3, last_error), updated_at = now() \
             WHERE id = $1 AND lease_token = $4 AND status IN ('pending', 'in_transit')",
            job.of.table()
        ))
        .bind(job.of.as_str())
        .bind(due_in.as_secs_f64())
        .bind(error)
        .bind(job.row.lease_token)
        .execute(conn)
        .await?;
        Ok(())
    }
}

/// What the partner's answers tell of the payout's transfer.
enum Known {
    /// Its own transfer, as the partner has it now.
    Made(Transfer),
    /// None exists: the partner refused it, with this code.
    NoneMade(String),
}

impl Job {
    fn mover(&self) -> Mover {
        Mover::Worker(self.row.lease_token)
    }
}
