//! The engine: claim a key in its own commit, let the handler run its effect in a transaction,
//! and complete the record in that same transaction, so that an effect never exists without
//! its record nor a record without its effect.
//!
//! A claim takes a new `lease_token`; only the holder of the current token can complete or fail
//! the record, so a process whose lease ran out and was taken over cannot overwrite the outcome.

use kaadxpay_types::ids::MerchantId;
use std::future::Future;
use std::sync::LazyLock;
use std::time::{Duration, Instant};

use sqlx::postgres::PgArguments;
use sqlx::{PgPool, Postgres, Transaction};
use tracing::Instrument;
use uuid::Uuid;

use super::cache::{Answers, Remembered};
use super::fingerprint::fingerprint;
use super::once::{Once, Ran, RanRow};
use super::outcomes::Outcomes;
use super::request::{ExistingRecord, FoundRecord, IdempotentRequest};
use super::response::{Resource, StoredResponse};
use crate::contract::error::Error;

#[derive(Clone)]
pub struct Idempotency {
    pub(super) pool: PgPool,
    /// A reserve of connections for marking claimed keys failed, so that a request timed out
    /// on an exhausted `pool` still frees its key at once.
    settle_pool: PgPool,
    /// How long a record answers for its key after it was made.
    pub(super) ttl: Duration,
    lease: Duration,
    outcomes: Outcomes,
    answers: Answers,
}

/// What became of a request that carried a key.
#[derive(Debug)]
pub enum Outcome {
    /// This request ran the command; its answer (a success or a definitive refusal) is stored.
    Executed(StoredResponse),
    /// An earlier request with this key ran it; this is the answer it stored, byte for byte.
    Replayed(StoredResponse),
    /// A request with this key is still running (or took over while this one's lease ran out).
    InProgress,
    /// The key was first used for another endpoint or another body.
    KeyReused(Reuse),
    /// This request claimed the key but stopped with `Error` (a fault, not a refusal): nothing
    /// it did was kept, and a retry with the key executes it again.
    Interrupted(Error),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reuse {
    Endpoint,
    Body,
}

impl Reuse {
    pub fn error(self) -> Error {
        match self {
            Self::Endpoint => Error::IdempotencyKeyReusedEndpoint,
            Self::Body => Error::IdempotencyKeyReusedBody,
        }
    }
}

/// Why the engine could not take a request in hand at all (its key was not claimed).
#[derive(Debug, thiserror::Error)]
pub enum EngineError {
    #[error("the database is out of reach")]
    Unavailable,
    #[error(transparent)]
    Internal(#[from] anyhow::Error),
}

impl From<sqlx::Error> for EngineError {
    fn from(err: sqlx::Error) -> Self {
        match Error::from(err) {
            Error::Internal(cause) => Self::Internal(cause),
            _ => Self::Unavailable,
        }
    }
}

impl From<EngineError> for Error {
    fn from(err: EngineError) -> Self {
        match err {
            EngineError::Unavailable => Self::ServiceUnavailable,
            EngineError::Internal(cause) => Self::Internal(cause),
        }
    }
}

/// What an effect hands back to the engine.
pub enum Effected {
    /// Its changes, in an open transaction, and the answer: the engine completes the record in
    /// that transaction and commits both.
    InTransaction(Transaction<'static, Postgres>, StoredResponse),
    /// The effect completed the record itself, in the statement that made its changes
    /// ([`Lease::COMPLETING`]), and committed: one statement for all of it.
    Completed(StoredResponse),
    /// The effect's statement found the lease gone (another attempt took the key over) and
    /// changed nothing; its transaction is rolled back.
    LeaseLost,
}

/// The claim an effect runs under: what completes the record in the effect's own statement.
pub struct Lease {
    merchant_id: MerchantId,
    key: String,
    token: Uuid,
}

impl Lease {
    /// The CTE `completed`, which completes the record with the answer if this lease still holds
    /// it, from the parameters `$1` to `$8` ([`Lease::bind`]); a statement that begins with it
    /// goes on from `$9`, makes each of its writes depend on a row of `completed`, and so changes
    /// nothing when the lease is gone. `$1` is the merchant's id.
    pub const COMPLETING: &'static str =
        "completed AS (UPDATE idempotency_keys SET status = 'completed', \
           recovery_point = NULL, response_status = $4, response_location = $5, \
           response_body = $6, resource_type = coalesce($7, resource_type), \
           resource_id = coalesce($8, resource_id), locked_until = NULL, updated_at = now() \
         WHERE merchant_id = $1 AND key = $2 AND lease_token = $3 AND status = 'in_progress' \
         RETURNING 1)";

    /// Binds `$1` to `$8` of [`Lease::COMPLETING`] for completing with `response`.
    pub fn bind<'q>(
        &'q self,
        query: sqlx::query::Query<'q, Postgres, PgArguments>,
        response: &'q StoredResponse,
    ) -> sqlx::query::Query<'q, Postgres, PgArguments> {
        let (resource_type, resource_id) = match &response.resource {
            Some(resource) => (Some(resource.kind.as_str()), Some(resource.id.as_str())),
            None => (None, None),
        };
        query
            .bind(&self.merchant_id)
            .bind(&self.key)
            .bind(self.token)
            .bind(response.status as i16)
            .bind(response.location.as_deref())
            .bind(&response.body)
            .bind(resource_type)
            .bind(resource_id)
    }
}

/// The outcome of a claim: either this request now owns the key and must execute, or the
/// engine has already answered (replay, conflict, mismatch).
enum Claim {
    Owned(ClaimedKey),
    Answered(Outcome),
}

/// The claim statement's answer: whether it inserted the record, else the record it found
/// (all `NULL` when that record was not yet visible to it).
#[derive(sqlx::FromRow)]
struct ClaimRow {
    claimed: bool,
    #[sqlx(flatten)]
    found: FoundRecord,
}

impl Idempotency {
    pub fn new(pool: PgPool, ttl: Duration, lease: Duration) -> Self {
        Self {
            settle_pool: crate::platform::db::reserve(&pool, SETTLE_CONNECTIONS),
            pool,
            ttl,
            lease,
            outcomes: Outcomes::default(),
            answers: Answers::default(),
        }
    }

    /// How long a record answers for its key after it was made.
    pub fn ttl(&self) -> Duration {
        self.ttl
    }

    /// The outcome counts this engine gathers, for their flushing worker.
    pub fn outcomes(&self) -> &Outcomes {
        &self.outcomes
    }

    /// Runs `effect` on the one-commit path ([`super::once`]): the record is made completed in
    /// the effect's transaction; or, when the key is not ours to execute, answers for it
    /// (replay, conflict, mismatch).
    /// A `201` is recorded as a reference to the resource it created; `render` gives its answer
    /// again, byte for byte, from the resource.
    pub async fn execute_once<F, Fut, R, RFut>(
        &self,
        request: &IdempotentRequest<'_>,
        request_hash: &[u8],
        effect: F,
        render: R,
    ) -> Result<Outcome, EngineError>
    where
        F: Fn(Once) -> Fut,
        Fut: Future<Output = Result<Ran, Error>>,
        R: Fn(Resource) -> RFut,
        RFut: Future<Output = Result<StoredResponse, Error>>,
    {
        let once = || Once::new(&self.pool, request, request_hash, self.ttl);
        // A record made by another request between our look and our insert is seen on the
        // next pass, and a connection that broke is retried once; three passes settle these.
        let mut connection_lost = false;
        for _ in 0..3 {
            // Before the statement, so that a deadline counted from here ends before the
            // record's, which the statement counts from its own start.
            let asked = Instant::now();
            let ran = match effect(once()).await {
                Ok(ran) => ran,
                Err(error) if error.is_definitive() => {
                    match once().refuse(&StoredResponse::from_error(&error)).await {
                        Ok(ran) => ran,
                        Err(error) => return Ok(Outcome::Interrupted(error)),
                    }
                }
                Err(error) => return Ok(Outcome::Interrupted(error)),
            };
            let row = match ran {
                Ran::Recorded(response) => {
                    self.outcomes.count(request.merchant_id, "new");
                    self.remember(request, request_hash, &response, asked + self.ttl);
                    return Ok(Outcome::Executed(response));
                }
                Ran::NotRecorded(row) => row,
                Ran::ConnectionLost if !connection_lost => {
                    connection_lost = true;
                    continue;
                }
                Ran::ConnectionLost => return Ok(Outcome::Interrupted(Error::ServiceUnavailable)),
            };
            if let Some(answered) = self
                .answer_for(request, request_hash, row, asked, &render)
                .await
            {
                return Ok(answered);
            }
        }
        Err(
            anyhow::anyhow!("the idempotency record kept changing under three attempts in a row")
                .into(),
        )
    }

    /// The answer a record or a running request already gives for the key, if any: a request
    /// refused before execution asks first, so that a replay never turns into a refusal.
    pub async fn answered<R, RFut>(
        &self,
        request: &IdempotentRequest<'_>,
        request_hash: &[u8],
        render: R,
    ) -> Result<Option<Outcome>, EngineError>
    where
        R: Fn(Resource) -> RFut,
        RFut: Future<Output = Result<StoredResponse, Error>>,
    {
        let asked = Instant::now();
        let row = Once::new(&self.pool, request, request_hash, self.ttl)
            .look()
            .await
            .map_err(|error| match error {
                Error::Internal(cause) => EngineError::Internal(cause),
                _ => EngineError::Unavailable,
            })?;
        Ok(self
            .answer_for(request, request_hash, row, asked, &render)
            .await)
    }

    /// The answer this process remembers for the key ([`super::cache`]): a replay, or a
    /// mismatch, with no round trip.
    pub fn remembered(
        &self,
        request: &IdempotentRequest<'_>,
        request_hash: &[u8],
    ) -> Option<Outcome> {
        let remembered = self
            .answers
            .get(request.merchant_id, request.key.as_str())?;
        if remembered.endpoint != request.endpoint || remembered.request_hash != request_hash {
            return Some(self.mismatched(request, remembered.endpoint));
        }
        Some(self.replayed(request, remembered.response))
    }

    fn remember(
        &self,
        request: &IdempotentRequest<'_>,
        request_hash: &[u8],
        response: &StoredResponse,
        deadline: Instant,
    ) {
        let remembered = Remembered {
            endpoint: request.endpoint,
            request_hash: request_hash.to_owned(),
            response: response.clone(),
        };
        self.answers.put(
            request.merchant_id,
            request.key.as_str(),
            remembered,
            deadline,
        );
    }

    /// What the key's record, or the lock of a request executing it, answers; `None` when the
    /// key is free for this request (no record, or an expired or failed one, and no lock).
    async fn answer_for<R, RFut>(
        &self,
        request: &IdempotentRequest<'_>,
        request_hash: &[u8],
        row: RanRow,
        asked: Instant,
        render: &R,
    ) -> Option<Outcome>
    where
        R: Fn(Resource) -> RFut,
        RFut: Future<Output = Result<StoredResponse, Error>>,
    {
        let held = row.held;
        if let Some(existing) = row.found.existing().filter(|existing| !existing.expired) {
            if existing.endpoint != request.endpoint || existing.request_hash != request_hash {
                return Some(self.mismatch(request, &existing));
            }
            match existing.status.as_str() {
                "completed" => {
                    let deadline = asked + existing.remaining;
                    let mut stored = stored_response(existing);
                    if let Some(resource) = stored.reference() {
                        stored = match render(resource).await {
                            Ok(rendered) => rendered,
                            Err(error) => return Some(Outcome::Interrupted(error)),
                        };
                    }
                    self.remember(request, request_hash, &stored, deadline);
                    return Some(self.replayed(request, stored));
                }
                "in_progress" => return Some(self.in_progress(request)),
                _ => {} // failed: free once nobody holds the lock
            }
        }
        (!held).then(|| self.in_progress(request))
    }

    /// Claims the key, runs `effect` under the claim's [`Lease`] and completes the record with
    /// it (see [`Effected`]); or, when the key is not ours to execute, answers for it (replay,
    /// conflict, mismatch).
    pub async fn execute<F, Fut>(
        &self,
        request: &IdempotentRequest<'_>,
        effect: F,
    ) -> Result<Outcome, EngineError>
    where
        F: FnOnce(Lease) -> Fut,
        Fut: Future<Output = Result<Effected, Error>>,
    {
        let mut claimed = match self.claim_to_the_end(request).await? {
            Claim::Owned(claimed) => claimed,
            Claim::Answered(outcome) => return Ok(outcome),
        };
        if let Err(error) = crate::platform::failpoints::check("idempotency.after_claim") {
            return Ok(claimed.fail(error).await);
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
    async fn claim_to_the_end(
        &self,
        request: &IdempotentRequest<'_>,
    ) -> Result<Claim, EngineError> {
        let (engine, merchant_id, key, endpoint, body, request_id) = (
            self.clone(),
            request.merchant_id.to_owned(),
            request.key.clone(),
            request.endpoint,
            request.body.clone(),
            request.request_id.to_owned(),
        );
        let claiming = tokio::spawn(
            async move {
                let request = IdempotentRequest {
                    merchant_id: &merchant_id,
                    key: &key,
                    endpoint,
                    body: &body,
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
    async fn claim(&self, request: &IdempotentRequest<'_>) -> Result<Claim, EngineError> {
        let request_hash = fingerprint(request.endpoint, request.body);
        // A record can vanish (purge) or change (another claim) between our statements;
        // each pass re-reads it, and three passes settle any such race.
        for _ in 0..3 {
            // One round trip: the claim, and the record as it stood if the claim lost. (The
            // statement's snapshot predates its own insert, so a won claim reads no record.)
            let lease_token = Uuid::new_v4();
            let row: ClaimRow = sqlx::query_as(
                "WITH claim AS ( \
                   INSERT INTO idempotency_keys (merchant_id, key, endpoint, request_hash, status, \
                     lease_token, locked_until, recovery_point, updated_at) \
                   VALUES ($1, $2, $3::idempotency_endpoint, $4, 'in_progress', $5, \
                     now() + make_interval(secs => $6), 'started', now()) \
                   ON CONFLICT (merchant_id, key) DO NOTHING RETURNING 1) \
                 SELECT EXISTS (SELECT 1 FROM claim) AS claimed, \
                   k.endpoint::text AS endpoint, k.request_hash, k.status::text AS status, k.lease_token, \
                   coalesce(k.locked_until > now(), false) AS lease_live, \
                   k.created_at + make_interval(secs => $7) <= now() AS expired, \
                   extract(epoch FROM k.created_at + make_interval(secs => $7) - now())::float8 AS remaining, \
                   k.response_status, k.response_location, k.response_body, \
                   k.resource_type, k.resource_id \
                 FROM (SELECT 1) AS one \
                 LEFT JOIN idempotency_keys k ON k.merchant_id = $1 AND k.key = $2",
            )
            .bind(request.merchant_id)
            .bind(request.key.as_str())
            .bind(request.endpoint)
            .bind(&request_hash)
            .bind(lease_token)
            .bind(self.lease.as_secs_f64())
            .bind(self.ttl.as_secs_f64())
            .fetch_one(&self.pool)
            .await?;
            if row.claimed {
                self.outcomes.count(request.merchant_id, "new");
                return Ok(Claim::Owned(self.owned(request, lease_token)));
            }
            let existing = row.found.existing();
            let Some(existing) = existing else { continue };

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
                    &request_hash,
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
    ) -> Result<Option<ClaimedKey>, EngineError> {
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
        .bind(request.merchant_id)
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
            self.outcomes.count(request.merchant_id, "new");
            tracing::info!(
                event = "idempotency.taken_over",
                merchant_id = %request.merchant_id,
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
            merchant_id: request.merchant_id.to_owned(),
            key: request.key.as_str().to_owned(),
            lease_token,
            settled: false,
        }
    }

    fn replay(&self, request: &IdempotentRequest<'_>, existing: ExistingRecord) -> Outcome {
        self.replayed(request, stored_response(existing))
    }

    fn replayed(&self, request: &IdempotentRequest<'_>, response: StoredResponse) -> Outcome {
        self.outcomes.count(request.merchant_id, "replayed");
        tracing::info!(
            event = "idempotency.replayed",
            merchant_id = %request.merchant_id,
            idempotency_key = request.key.as_str(),
            route = request.endpoint,
            request_id = request.request_id,
            "replaying the stored response"
        );
        Outcome::Replayed(response)
    }

    fn in_progress(&self, request: &IdempotentRequest<'_>) -> Outcome {
        self.outcomes.count(request.merchant_id, "in_progress");
        tracing::info!(
            event = "idempotency.conflict",
            merchant_id = %request.merchant_id,
            idempotency_key = request.key.as_str(),
            route = request.endpoint,
            request_id = request.request_id,
            "a request with this key is still in progress"
        );
        Outcome::InProgress
    }

    fn mismatch(&self, request: &IdempotentRequest<'_>, existing: &ExistingRecord) -> Outcome {
        self.mismatched(request, &existing.endpoint)
    }

    /// The key was first used for `first_endpoint`, or for another body.
    fn mismatched(&self, request: &IdempotentRequest<'_>, first_endpoint: &str) -> Outcome {
        self.outcomes.count(request.merchant_id, "mismatch");
        let reuse = if first_endpoint != request.endpoint {
            Reuse::Endpoint
        } else {
            Reuse::Body
        };
        tracing::warn!(
            event = "idempotency.mismatch",
            merchant_id = %request.merchant_id,
            idempotency_key = request.key.as_str(),
            route = request.endpoint,
            first_route = first_endpoint,
            request_id = request.request_id,
            "{}",
            reuse.error()
        );
        Outcome::KeyReused(reuse)
    }
}

/// The answer a completed record stores (a reference, for a `201` of the one-commit path).
fn stored_response(existing: ExistingRecord) -> StoredResponse {
    StoredResponse {
        status: existing
            .response_status
            .and_then(|status| u16::try_from(status).ok())
            .unwrap_or(500),
        location: existing.response_location,
        renders_again: existing.response_body.is_none(),
        body: existing.response_body.unwrap_or_default(),
        resource: existing.resource.map(|(kind, id)| Resource { kind, id }),
    }
}

/// Connections each process keeps in reserve for marking claimed keys failed.
const SETTLE_CONNECTIONS: u32 = 2;

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
    merchant_id: MerchantId,
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
        let (pool, merchant_id, key, lease_token) = (
            self.settle_pool.clone(),
            self.merchant_id.clone(),
            self.key.clone(),
            self.lease_token,
        );
        runtime.spawn(async move {
            let cause = "The request stopped before it finished (the client went away, or the server failed); nothing it did was kept, and a retry executes it again.";
            if let Err(err) = record_failure(&pool, &merchant_id, &key, lease_token, cause).await {
                tracing::error!(error = ?err, idempotency_key = key, "could not mark an abandoned record failed");
            }
        });
    }
}

/// Marks the record `failed` if it is still ours and in progress. A commit racing with this
/// holds the row lock, so this waits for it and then finds the record completed.
async fn record_failure(
    pool: &PgPool,
    merchant_id: &MerchantId,
    key: &str,
    lease_token: Uuid,
    cause: &str,
) -> sqlx::Result<()> {
    sqlx::query(
        "UPDATE idempotency_keys SET status = 'failed', error = $4, locked_until = NULL, updated_at = now() \
         WHERE merchant_id = $1 AND key = $2 AND lease_token = $3 AND status = 'in_progress'",
    )
    .bind(merchant_id)
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
            merchant_id: self.merchant_id.clone(),
            key: self.key.clone(),
            token: self.lease_token,
        }
    }

    /// The effect completed the record in its own committed statement.
    fn completed(mut self, response: StoredResponse) -> Outcome {
        self.settled = true;
        Outcome::Executed(response)
    }

    /// Stores `response` as the record's outcome inside `tx`, the transaction that holds the
    /// effect, and commits both together.
    async fn complete(
        mut self,
        mut tx: Transaction<'_, Postgres>,
        response: StoredResponse,
    ) -> Outcome {
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
    async fn fail(mut self, error: Error) -> Outcome {
        if error.is_definitive() {
            let stored = StoredResponse::from_error(&error);
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
                Err(err) => self.mark_failed(Error::from(err)).await,
            };
        }
        self.mark_failed(error).await
    }

    async fn mark_failed(mut self, error: Error) -> Outcome {
        // A sentence for people: the internal cause goes to the log (with the request id, from
        // the request's span) when the error is rendered, never into the record.
        let cause = match &error {
            Error::Internal(_) => INTERNAL_FAILURE.to_owned(),
            other => other.to_string(),
        };
        self.settled = true;
        let marked = record_failure(
            &self.settle_pool,
            &self.merchant_id,
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
        static STATEMENT: LazyLock<String> =
            LazyLock::new(|| format!("WITH {} SELECT 1 FROM completed", Lease::COMPLETING));
        let lease = self.lease();
        let completed = lease
            .bind(sqlx::query(&STATEMENT), response)
            .fetch_optional(&mut **tx)
            .await?;
        Ok(completed.is_some())
    }

    /// Our lease ran out and another attempt took the key over: our effect is rolled back
    /// (the transaction is dropped) and the client is told to retry, which replays theirs.
    fn lost_lease(&mut self) -> Outcome {
        self.settled = true;
        tracing::warn!(
            event = "idempotency.lease_lost",
            merchant_id = %self.merchant_id,
            idempotency_key = self.key,
            "the lease ran out before completion; the effect was rolled back"
        );
        Outcome::InProgress
    }
}
