//! The two-phase path (feature `two-phase`), for effects that must outlive a transaction (a
//! call to another system): the key is claimed under a lease in a commit of its own, the effect
//! runs, and the record is completed in the effect's own transaction (or statement,
//! [`Lease::completing`]), so that an effect never exists without its record nor a record
//! without its effect.
//!
//! A claim takes a new `lease_token`; only the holder of the current token can complete or fail
//! the record, so a process whose lease ran out and was taken over cannot overwrite the outcome.
//! A record whose lease ran out is marked failed by the sweeper (`maintenance::sweep`) and taken
//! over by the next request with its key.

use std::future::Future;
use std::sync::LazyLock;

use sqlx::{PgPool, Postgres, Transaction};
use tracing::Instrument;
use uuid::Uuid;

use crate::engine::{stored_response, Idempotency, Outcome};
use crate::failure::Failure;
use crate::request::{found_call, ExistingRecord, FoundRecord, IdempotentRequest};
use crate::response::StoredResponse;
use crate::scope::Scope;
use crate::statement::Statement;

/// What an effect hands back to the engine.
pub enum Effected {
    /// Its changes, in an open transaction, and the answer: the engine completes the record in
    /// that transaction and commits both.
    InTransaction(Transaction<'static, Postgres>, StoredResponse),
    /// The effect completed the record itself, in the statement that made its changes
    /// ([`Lease::completing`]), and committed: one statement for all of it.
    Completed(StoredResponse),
    /// The effect's statement found the lease gone (another attempt took the key over) and
    /// changed nothing; its transaction is rolled back.
    LeaseLost,
}

/// The claim an effect runs under: what completes the record in the effect's own statement.
pub struct Lease {
    scope: String,
    key: String,
    token: Uuid,
}

impl Lease {
    /// Writes the CTE `completed`, which completes the record with `response` if this lease
    /// still holds it. A statement that begins with it (`WITH completed AS …`) makes each of its
    /// writes depend on a row of `completed`, and so changes nothing when the lease is gone.
    pub fn completing(&self, statement: &mut Statement, response: &StoredResponse) {
        let resource = response.resource.as_ref();
        let merchant = statement.bind(&self.scope);
        let key = statement.bind(&self.key);
        let token = statement.bind(self.token);
        let status = statement.bind(response.status as i16);
        let location = statement.bind(response.location.as_deref());
        let body = statement.bind(&response.body);
        let resource_type = statement.bind(resource.map(|resource| resource.kind.as_str()));
        let resource_id = statement.bind(resource.map(|resource| resource.id.as_str()));
        statement.push(format_args!(
            "completed AS (UPDATE idempotency_keys SET status = 'completed', \
               recovery_point = NULL, response_status = {status}, response_location = {location}, \
               response_body = {body}, resource_type = coalesce({resource_type}, resource_type), \
               resource_id = coalesce({resource_id}, resource_id), locked_until = NULL, \
               updated_at = now() \
             WHERE merchant_id = {merchant} AND key = {key} AND lease_token = {token} \
               AND status = 'in_progress' \
             RETURNING 1)"
        ));
    }
}

/// The outcome of a claim: either this request now owns the key and must execute, or the
/// engine has already answered (replay, conflict, mismatch).
enum Claim<E> {
    Owned(ClaimedKey),
    Answered(Outcome<E>),
}

/// The claim statement's answer: whether it inserted the record, else the record it found
/// (none when that record was not yet visible to it).
#[derive(sqlx::FromRow)]
struct ClaimRow {
    claimed: bool,
    record: Option<FoundRecord>,
}

impl Idempotency {
    fn replay<E>(&self, request: &IdempotentRequest<'_>, existing: ExistingRecord) -> Outcome<E> {
        self.replayed(request, stored_response(existing))
    }

    pub async fn execute<E, F, Fut>(
        &self,
        request: &IdempotentRequest<'_>,
        effect: F,
    ) -> Result<Outcome<E>, E>
    where
        E: Failure + Send + 'static,
        F: FnOnce(Lease) -> Fut,
        Fut: Future<Output = Result<Effected, E>>,
    {
        let mut claimed = match self.claim_to_the_end(request).await? {
            Claim::Owned(claimed) => claimed,
            Claim::Answered(outcome) => return Ok(outcome),
        };
        if let Err(error) = crate::failpoints::check("idempotency.after_claim") {
            return Ok(claimed.fail(E::from(error)).await);
        }
        Ok(match effect(claimed.lease()).await {
            Ok(Effected::InTransaction(tx, response)) => claimed.complete(tx, response).await,
            Ok(Effected::Completed(response)) => claimed.completed(response),
            Ok(Effected::LeaseLost) => claimed.lost_lease(),
            Err(error) => claimed.fail(error).await,
        })
    }

    /// [`Idempotency::claim`], carried to its end even if the request is abandoned meanwhile
    /// (its client went away and the server dropped the handler): a claim committed after that
    /// would otherwise be left `in_progress` for the whole lease. Run as a task of its own, the
    /// claim finishes; when nobody awaits it any more, its result is dropped, and so is the
    /// [`ClaimedKey`] it made, which marks the record failed at once.
    async fn claim_to_the_end<E: Failure + Send + 'static>(
        &self,
        request: &IdempotentRequest<'_>,
    ) -> Result<Claim<E>, E> {
        let (engine, merchant_id, key, endpoint, request_hash, request_id) = (
            self.clone(),
            request.scope.merchant().cloned(),
            request.key.clone(),
            request.endpoint,
            request.request_hash.to_owned(),
            request.request_id.to_owned(),
        );
        let claiming = tokio::spawn(
            async move {
                let request = IdempotentRequest {
                    scope: merchant_id.as_ref().map_or(Scope::Staff, Scope::Merchant),
                    key: &key,
                    endpoint,
                    request_hash: &request_hash,
                    request_id: &request_id,
                };
                engine.claim(&request).await
            }
            .in_current_span(),
        );
        claiming
            .await
            .map_err(|failed| anyhow::anyhow!("the claim task failed: {failed}"))?
    }

    /// Claims the key for this request, or answers for it.
    #[tracing::instrument(skip_all, fields(endpoint = request.endpoint))]
    async fn claim<E: Failure>(&self, request: &IdempotentRequest<'_>) -> Result<Claim<E>, E> {
        let request_hash = request.request_hash;
        // A record can vanish (purge) or change (another claim) between our statements;
        // each pass re-reads it, and three passes settle any such race.
        for _ in 0..3 {
            // One round trip: the claim, and the record as it stood if the claim lost. (The
            // statement's snapshot predates its own insert, so a won claim reads no record.)
            let lease_token = Uuid::new_v4();
            static CLAIM: LazyLock<String> = LazyLock::new(|| {
                format!(
                    "WITH claim AS ( \
                       INSERT INTO idempotency_keys (merchant_id, key, endpoint, request_hash, \
                         status, lease_token, locked_until, recovery_point, updated_at) \
                       VALUES ($1, $2, $3::idempotency_endpoint, $4, 'in_progress', $5, \
                         now() + make_interval(secs => $6), 'started', now()) \
                       ON CONFLICT (merchant_id, key) DO NOTHING RETURNING 1) \
                     SELECT EXISTS (SELECT 1 FROM claim) AS claimed, f.record \
                     FROM (SELECT 1) AS one LEFT JOIN ( \
                       SELECT {} AS record FROM idempotency_keys k \
                       WHERE k.merchant_id = $1 AND k.key = $2) f ON true",
                    found_call("$7", "NULL", "NULL")
                )
            });
            let row: ClaimRow = sqlx::query_as(&CLAIM)
                .bind(request.scope.as_str())
                .bind(request.key.as_str())
                .bind(request.endpoint)
                .bind(request_hash)
                .bind(lease_token)
                .bind(self.lease.as_secs_f64())
                .bind(self.ttl.as_secs_f64())
                .fetch_one(&self.pool)
                .await?;
            if row.claimed {
                self.outcomes.count(request.scope, "new");
                return Ok(Claim::Owned(self.owned(request, lease_token)));
            }
            let Some(existing) = row.record.map(FoundRecord::existing) else {
                continue;
            };

            if !existing.expired {
                if existing.endpoint != request.endpoint || existing.request_hash != request_hash {
                    return Ok(Claim::Answered(self.mismatch(request, &existing)));
                }
                match (existing.status.as_str(), existing.lease_live) {
                    ("completed", _) => return Ok(Claim::Answered(self.replay(request, existing))),
                    ("in_progress", true) => {
                        return Ok(Claim::Answered(self.in_progress(request)));
                    }
                    _ => {} // failed, or its owner's lease ran out: take it over below
                }
            }
            if let Some(claimed) = self
                .take_over(
                    request,
                    request_hash,
                    existing.lease_token,
                    existing.expired,
                )
                .await?
            {
                return Ok(Claim::Owned(claimed));
            }
        }
        Err(
            anyhow::anyhow!("the idempotency record kept changing under three claims in a row")
                .into(),
        )
    }

    /// Moves a failed, abandoned or expired record to `in_progress` under a new lease, if it is
    /// still as we saw it. An expired record starts afresh; a failed one keeps its recovery
    /// point so that the execution resumes where it stopped.
    async fn take_over(
        &self,
        request: &IdempotentRequest<'_>,
        request_hash: &[u8],
        seen_token: Option<Uuid>,
        fresh: bool,
    ) -> sqlx::Result<Option<ClaimedKey>> {
        let lease_token = Uuid::new_v4();
        let taken: Option<String> = sqlx::query_scalar(
            "UPDATE idempotency_keys SET \
               status = 'in_progress', lease_token = $4, \
               locked_until = now() + make_interval(secs => $6), \
               attempts = CASE WHEN $5 THEN NULL ELSE coalesce(attempts, 1) + 1 END, \
               endpoint = $8::idempotency_endpoint, request_hash = $9, \
               recovery_point = CASE WHEN $5 THEN 'started' ELSE coalesce(recovery_point, 'started') END, \
               resource_type = CASE WHEN $5 THEN NULL ELSE resource_type END, \
               resource_id = CASE WHEN $5 THEN NULL ELSE resource_id END, \
               response_status = NULL, response_location = NULL, response_body = NULL, error = NULL, \
               created_at = CASE WHEN $5 THEN now() ELSE created_at END, \
               updated_at = now() \
             WHERE merchant_id = $1 AND key = $2 AND lease_token IS NOT DISTINCT FROM $3 \
               AND (created_at + make_interval(secs => $7) <= now() OR status = 'failed' \
                    OR (status = 'in_progress' AND locked_until <= now())) \
             RETURNING recovery_point",
        )
        .bind(request.scope.as_str())
        .bind(request.key.as_str())
        .bind(seen_token)
        .bind(lease_token)
        .bind(fresh)
        .bind(self.lease.as_secs_f64())
        .bind(self.ttl.as_secs_f64())
        .bind(request.endpoint)
        .bind(request_hash)
        .fetch_optional(&self.pool)
        .await?;
        Ok(taken.map(|recovery_point| {
            self.outcomes.count(request.scope, "new");
            tracing::info!(
                event = "idempotency.taken_over",
                merchant_id = %request.scope,
                idempotency_key = request.key.as_str(),
                route = request.endpoint,
                request_id = request.request_id,
                recovery_point,
                "resuming a request whose earlier attempt did not finish"
            );
            self.owned(request, lease_token)
        }))
    }

    fn owned(&self, request: &IdempotentRequest<'_>, lease_token: Uuid) -> ClaimedKey {
        ClaimedKey {
            pool: self.pool.clone(),
            settle_pool: self.settle_pool.clone(),
            scope: request.scope.as_str().to_owned(),
            key: request.key.as_str().to_owned(),
            lease_token,
            settled: false,
        }
    }
}

/// What a record's `error` says when the attempt failed on our side.
const INTERNAL_FAILURE: &str =
    "An error on our side interrupted the request; nothing it did was kept, and a retry with the same key executes it again.";

/// A key this request owns until it completes or fails it.
///
/// If it is dropped unsettled (the client went away and axum dropped the handler), the record
/// is marked `failed` at once rather than left `in_progress` until the lease runs out; the
/// uncommitted effect was rolled back with its transaction, so a retry executes afresh.
struct ClaimedKey {
    pool: PgPool,
    settle_pool: PgPool,
    scope: String,
    key: String,
    lease_token: Uuid,
    /// The record's outcome has been written (or is no longer ours to write).
    settled: bool,
}

impl Drop for ClaimedKey {
    fn drop(&mut self) {
        if self.settled {
            return;
        }
        let Ok(runtime) = tokio::runtime::Handle::try_current() else {
            return;
        };
        let (pool, scope, key, lease_token) = (
            self.settle_pool.clone(),
            self.scope.clone(),
            self.key.clone(),
            self.lease_token,
        );
        runtime.spawn(async move {
            let cause = "The request stopped before it finished (the client went away, or the server failed); nothing it did was kept, and a retry executes it again.";
            if let Err(err) = record_failure(&pool, &scope, &key, lease_token, cause).await {
                tracing::error!(error = ?err, idempotency_key = key, "could not mark an abandoned record failed");
            }
        });
    }
}

/// Marks the record `failed` if it is still ours and in progress. A commit racing with this
/// holds the row lock, so this waits for it and then finds the record completed.
async fn record_failure(
    pool: &PgPool,
    scope: &str,
    key: &str,
    lease_token: Uuid,
    cause: &str,
) -> sqlx::Result<()> {
    sqlx::query(
        "UPDATE idempotency_keys SET status = 'failed', error = $4, locked_until = NULL, updated_at = now() \
         WHERE merchant_id = $1 AND key = $2 AND lease_token = $3 AND status = 'in_progress'",
    )
    .bind(scope)
    .bind(key)
    .bind(lease_token)
    .bind(cause)
    .execute(pool)
    .await?;
    Ok(())
}

impl ClaimedKey {
    fn lease(&self) -> Lease {
        Lease {
            scope: self.scope.clone(),
            key: self.key.clone(),
            token: self.lease_token,
        }
    }

    /// The effect completed the record in its own committed statement.
    fn completed<E>(mut self, response: StoredResponse) -> Outcome<E> {
        self.settled = true;
        Outcome::Executed(response)
    }

    /// Stores `response` as the record's outcome inside `tx`, the transaction that holds the
    /// effect, and commits both together.
    async fn complete<E: Failure>(
        mut self,
        mut tx: Transaction<'_, Postgres>,
        response: StoredResponse,
    ) -> Outcome<E> {
        match self.store_outcome(&mut tx, &response).await {
            Ok(true) => {}
            Ok(false) => return self.lost_lease(),
            Err(err) => return self.fail(err.into()).await,
        }
        if let Err(err) = tx.commit().await {
            return self.fail(err.into()).await;
        }
        self.settled = true;
        Outcome::Executed(response)
    }

    /// Ends the attempt with an error. A definitive answer (validation, `402`, ...) is stored and
    /// replayed like a success; a fault leaves the record `failed`, so a retry executes again.
    async fn fail<E: Failure>(mut self, error: E) -> Outcome<E> {
        if let Some(stored) = error.refusal() {
            let result = async {
                let mut tx = self.pool.begin().await?;
                let owned = self.store_outcome(&mut tx, &stored).await?;
                tx.commit().await?;
                Ok::<_, sqlx::Error>(owned)
            }
            .await;
            return match result {
                Ok(true) => {
                    self.settled = true;
                    Outcome::Executed(stored)
                }
                Ok(false) => self.lost_lease(),
                Err(err) => self.mark_failed(E::from(err)).await,
            };
        }
        self.mark_failed(error).await
    }

    async fn mark_failed<E: Failure>(mut self, error: E) -> Outcome<E> {
        // A sentence for people: the internal cause goes to the log (with the request id, from
        // the request's span) when the error is rendered, never into the record.
        let cause = if error.is_internal() {
            INTERNAL_FAILURE.to_owned()
        } else {
            error.to_string()
        };
        self.settled = true;
        let marked = record_failure(
            &self.settle_pool,
            &self.scope,
            &self.key,
            self.lease_token,
            &cause,
        )
        .await;
        if let Err(err) = marked {
            // The lease runs out and the sweeper marks the record failed instead.
            tracing::error!(error = ?err, idempotency_key = self.key, "could not mark the record failed");
        }
        Outcome::Interrupted(error)
    }

    async fn store_outcome(
        &self,
        tx: &mut Transaction<'_, Postgres>,
        response: &StoredResponse,
    ) -> sqlx::Result<bool> {
        let mut statement = Statement::new();
        statement.push("WITH ");
        self.lease().completing(&mut statement, response);
        statement.push(" SELECT 1 FROM completed");
        let completed = statement.query()?.fetch_optional(&mut **tx).await?;
        Ok(completed.is_some())
    }

    /// Our lease ran out and another attempt took the key over: our effect is rolled back
    /// (the transaction is dropped) and the client is told to retry, which replays theirs.
    fn lost_lease<E>(&mut self) -> Outcome<E> {
        self.settled = true;
        tracing::warn!(
            event = "idempotency.lease_lost",
            merchant_id = %self.scope,
            idempotency_key = self.key,
            "the lease ran out before completion; the effect was rolled back"
        );
        Outcome::InProgress
    }
}
