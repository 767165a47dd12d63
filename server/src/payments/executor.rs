//! The payout worker: a Postgres queue over `payouts` drained with `FOR UPDATE SKIP LOCKED` and
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

use kaadxpay_types::ids::{MerchantId, PayoutId};
use std::future::Future;
use std::time::{Duration, Instant};

use chrono::{DateTime, Days, Utc};
use rand::Rng;
use sqlx::types::Json;
use sqlx::PgPool;
use tokio::task::JoinSet;
use uuid::Uuid;

use super::partner_calls::{Answer, Call, Noted};
use super::partner_events::transfers_with_key;
use super::payouts::{self, Mover};
use crate::platform::{db, failpoints};
use kaadxpay_partner::client::{CreateError, PartnerClient, PartnerError};
use kaadxpay_partner::wire::{Destination, Transfer, TransferRequest, TransferStatus};
use kaadxpay_types::PayoutStatus;

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

struct Job {
    id: PayoutId,
    merchant_id: MerchantId,
    status: PayoutStatus,
    amount: i64,
    currency: String,
    destination: Json<Destination>,
    partner_key: String,
    partner_transfer_id: Option<String>,
    /// Claims of the job so far, this one included.
    attempts: i32,
    created_at: DateTime<Utc>,
    /// The fencing token of this claim: only its holder may move or release the job.
    lease_token: Uuid,
}

impl PayoutWorker {
    /// Claims the due jobs and works them concurrently; returns how many.
    pub async fn run_once(&self) -> sqlx::Result<u64> {
        let jobs = sqlx::query!(
            r#"UPDATE payouts SET locked_until = now() + make_interval(secs => $1),
                 lease_token = gen_random_uuid(), attempts = attempts + 1
               WHERE id IN (SELECT id FROM payouts
                            WHERE status IN ('pending', 'in_transit') AND next_attempt_at <= now()
                              AND (locked_until IS NULL OR locked_until <= now())
                            ORDER BY next_attempt_at LIMIT $2 FOR UPDATE SKIP LOCKED)
               RETURNING id AS "id: PayoutId", merchant_id AS "merchant_id: MerchantId", status,
                 amount, currency, destination AS "destination: Json<Destination>", partner_key,
                 partner_transfer_id, attempts, created_at AS "created_at: DateTime<Utc>",
                 lease_token AS "lease_token!""#,
            self.lease.as_secs_f64(),
            BATCH,
        )
        .fetch_all(&self.pool)
        .await?
        .into_iter()
        .map(|job| {
            Ok(Job {
                id: job.id,
                merchant_id: job.merchant_id,
                status: db::try_from_column("status", job.status)?,
                amount: job.amount,
                currency: job.currency,
                destination: job.destination,
                partner_key: job.partner_key,
                partner_transfer_id: job.partner_transfer_id,
                attempts: job.attempts,
                created_at: job.created_at,
                lease_token: job.lease_token,
            })
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
        let answer = match (job.status, &job.partner_transfer_id) {
            (PayoutStatus::InTransit, Some(transfer_id)) => self
                .noting(&job, Call::Status, self.partner.transfer(transfer_id))
                .await
                .map(Known::Made),
            _ => self.send(&job).await,
        };
        match answer {
            Ok(Known::Made(transfer)) => self.record(&job, &transfer).await,
            Ok(Known::NoneMade(code)) => {
                let mut tx = self.pool.begin().await?;
                payouts::mark_failed(&mut tx, &job.id, job.mover(), None, &code).await?;
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
        failpoints::check("payout.before_partner_call").map_err(fault)?;
        let request = TransferRequest {
            amount: job.amount,
            currency: job.currency.clone(),
            destination: job.destination.0.clone(),
            reference: job.id.to_string(),
        };
        let created = self
            .noting(
                job,
                Call::Create,
                self.partner.create_transfer(&job.partner_key, &request),
            )
            .await;
        failpoints::check("payout.after_partner_call").map_err(fault)?;
        match created {
            Ok(transfer) => Ok(Known::Made(transfer)),
            Err(CreateError::Unanswered(error)) => Err(error),
            Err(CreateError::Refused(code)) if job.attempts <= 1 => Ok(Known::NoneMade(code)),
            Err(CreateError::Refused(code)) => {
                // The partner's clock may run a little ahead of ours: a day of margin.
                let listed = transfers_with_key(
                    &self.partner,
                    &job.partner_key,
                    job.created_at,
                    Utc::now() + Days::new(1),
                );
                let made = self.noting(job, Call::Listing, listed).await?;
                tracing::warn!(
                    payout_id = %job.id,
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
    async fn noting<T: Answer>(&self, job: &Job, call: Call, answer: impl Future<Output = T>) -> T {
        let started = Instant::now();
        let answer = answer.await;
        let noted = Noted {
            merchant_id: &job.merchant_id,
            payout_id: &job.id,
            partner_key: &job.partner_key,
        };
        noted
            .record(&self.pool, call, &answer, started.elapsed())
            .await;
        answer
    }

    /// Records what the partner says of the payout's transfer.
    async fn record(&self, job: &Job, transfer: &Transfer) -> sqlx::Result<()> {
        let mut tx = self.pool.begin().await?;
        let (id, mover) = (&job.id, job.mover());
        let moved = match transfer.status {
            TransferStatus::Accepted if job.status == PayoutStatus::Pending => {
                payouts::mark_in_transit(&mut tx, id, mover, &transfer.id, self.poll_interval)
                    .await?
            }
            TransferStatus::Accepted => None,
            TransferStatus::Paid => payouts::mark_paid(&mut tx, id, mover, &transfer.id).await?,
            TransferStatus::Reversed => {
                payouts::mark_reversed(&mut tx, id, mover, &transfer.id).await?
            }
            TransferStatus::Failed => {
                payouts::mark_failed(&mut tx, id, mover, Some(&transfer.id), "partner_failed")
                    .await?
            }
        };
        if moved.is_none() {
            // Still settling, or already moved by the partner's webhook: look again later.
            self.release(&mut tx, job, self.poll_interval, None).await?;
        }
        tx.commit().await
    }

    async fn retry_later(&self, job: &Job, cause: &str) -> sqlx::Result<()> {
        let exponent = job.attempts.clamp(1, 16) as u32 - 1;
        let backoff = self
            .retry_base
            .saturating_mul(2u32.saturating_pow(exponent))
            .min(MAX_BACKOFF);
        let jittered = backoff.mul_f64(rand::thread_rng().gen_range(0.8..1.2));
        tracing::warn!(
            payout_id = %job.id,
            attempts = job.attempts,
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
        sqlx::query!(
            "UPDATE payouts SET locked_until = NULL, lease_token = NULL, \
               next_attempt_at = now() + make_interval(secs => $2), \
               last_error = coalesce($3, last_error), updated_at = now() \
             WHERE id = $1 AND lease_token = $4 AND status IN ('pending', 'in_transit')",
            job.id.as_str(),
            due_in.as_secs_f64(),
            error,
            job.lease_token,
        )
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
        Mover::Worker(self.lease_token)
    }
}
