//! The engine: claim a key in its own commit, let the handler run its effect in a transaction,
//! and complete the record in that same transaction, so that an effect never exists without
//! its record nor a record without its effect.
//!
//! A claim takes a new `lease_token`; only the holder of the current token can complete or fail
//! the record, so a process whose lease ran out and was taken over cannot overwrite the outcome.

use kaadxpay_types::ids::MerchantId;
use std::future::Future;
use std::time::{Duration, Instant};

use sqlx::{PgPool, Postgres, Transaction};
use tracing::Instrument;
use uuid::Uuid;

use crate::cache::{Answers, Remembered};
use crate::failure::Failure;
use crate::fingerprint::fingerprint;
use crate::once::{Once, Ran, RanRow};
use crate::outcomes::Outcomes;
use crate::request::{ExistingRecord, FoundRecord, IdempotentRequest};
use crate::response::{Resource, StoredResponse};
use crate::statement::Statement;

#[derive(Clone)]
pub struct Idempotency {
    pool: PgPool,
    /// A reserve of connections for marking claimed keys failed, so that a request timed out
    /// on an exhausted `pool` still frees its key at once.
    settle_pool: PgPool,
    /// How long a record answers for its key after it was made.
    ttl: Duration,
    lease: Duration,
    outcomes: Outcomes,
    answers: Answers,
    /// Told when a connection broke under a statement (the pool may then check connections
    /// before lending them).
    on_broken_connection: fn(),
}

/// What became of a request that carried a key.
#[derive(Debug)]
pub enum Outcome<E> {
    /// This request ran the command; its answer (a success or a definitive refusal) is stored.
    Executed(StoredResponse),
    /// An earlier request with this key ran it; this is the answer it stored, byte for byte.
    Replayed(StoredResponse),
    /// A request with this key is still running (or took over while this one's lease ran out).
    InProgress,
    /// The key was first used for another endpoint or another body.
    KeyReused(Reuse),
    /// This request claimed the key but stopped with `E` (a fault, not a refusal): nothing
    /// it did was kept, and a retry with the key executes it again.
    Interrupted(E),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reuse {
    Endpoint,
    Body,
}

impl std::fmt::Display for Reuse {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Self::Endpoint => "the key was first used for another endpoint",
            Self::Body => "the key was first used with another request body",
        })
    }
}

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
    merchant_id: MerchantId,
    key: String,
    token: Uuid,
}

impl Lease {
    /// Writes the CTE `completed`, which completes the record with `response` if this lease
    /// still holds it. A statement that begins with it (`WITH completed AS …`) makes each of its
    /// writes depend on a row of `completed`, and so changes nothing when the lease is gone.
    pub fn completing(&self, statement: &mut Statement, response: &StoredResponse) {
        let resource = response.resource.as_ref();
        let merchant = statement.bind(&self.merchant_id);
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
/// (all `NULL` when that record was not yet visible to it).
#[derive(sqlx::FromRow)]
struct ClaimRow {
    claimed: bool,
    #[sqlx(flatten)]
    found: FoundRecord,
}

impl Idempotency {
    /// An engine on `pool`, marking claimed keys failed on `settle_pool` (a small reserve of
    /// connections of its own), whose records answer for `ttl` and whose two-phase claims hold
    /// their key for `lease`.
    pub fn new(pool: PgPool, settle_pool: PgPool, ttl: Duration, lease: Duration) -> Self {
        Self {
            pool,
            settle_pool,
            ttl,
            lease,
            outcomes: Outcomes::default(),
            answers: Answers::default(),
            on_broken_connection: || {},
        }
    }

    /// Calls `hook` each time a connection breaks under one of the engine's statements.
    pub fn on_broken_connection(self, hook: fn()) -> Self {
        Self {
            on_broken_connection: hook,
            ..self
        }
    }

    /// The pool the engine's records are read and written on.
    pub fn pool(&self) -> &PgPool {
        &self.pool
    }

    /// How long a record answers for its key after it was made.
    pub fn ttl(&self) -> Duration {
        self.ttl
    }

    /// The outcome counts this engine gathers, for their flushing worker.
    pub fn outcomes(&self) -> &Outcomes {
        &self.outcomes
    }

    /// Runs `effect` on the one-commit path ([`crate::once`]): the record is made completed in
    /// the effect's transaction; or, when the key is not ours to execute, answers for it
    /// (replay, conflict, mismatch).
    /// A `201` is recorded as a reference to the resource it created; `render` gives its answer
    /// again, byte for byte, from the resource.
    pub async fn execute_once<E, F, Fut, R, RFut>(
        &self,
        request: &IdempotentRequest<'_>,
        request_hash: &[u8],
        effect: F,
        render: R,
    ) -> Result<Outcome<E>, E>
    where
        E: Failure,
        F: Fn(Once) -> Fut,
        Fut: Future<Output = Result<Ran, E>>,
        R: Fn(Resource) -> RFut,
        RFut: Future<Output = Result<StoredResponse, E>>,
    {
        let once = || self.once(request, request_hash);
        // A record made by another request between our look and our insert is seen on the
        // next pass, and a connection that broke is retried once; three passes settle these.
        let mut connection_lost = false;
        for _ in 0..3 {
            // Before the statement, so that a deadline counted from here ends before the
            // record's, which the statement counts from its own start.
            let asked = Instant::now();
            let ran = match effect(once()).await {
                Ok(ran) => ran,
                Err(error) => match error.refusal() {
                    Some(refusal) => match once().refuse(&refusal).await {
                        Ok(ran) => ran,
                        Err(error) => return Ok(Outcome::Interrupted(error)),
                    },
                    None => return Ok(Outcome::Interrupted(error)),
                },
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
                Ran::ConnectionLost => return Ok(Outcome::Interrupted(E::unavailable())),
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
    pub async fn answered<E, R, RFut>(
        &self,
        request: &IdempotentRequest<'_>,
        request_hash: &[u8],
        render: R,
    ) -> Result<Option<Outcome<E>>, E>
    where
        E: Failure,
        R: Fn(Resource) -> RFut,
        RFut: Future<Output = Result<StoredResponse, E>>,
    {
        let asked = Instant::now();
        let row = self.once(request, request_hash).look().await?;
        Ok(self
            .answer_for(request, request_hash, row, asked, &render)
            .await)
    }

    fn once(&self, request: &IdempotentRequest<'_>, request_hash: &[u8]) -> Once {
        Once::new(
            &self.pool,
            request,
            request_hash,
            self.ttl,
            self.on_broken_connection,
        )
    }

    /// The answer this process remembers for the key ([`crate::cache`]): a replay, or a
    /// mismatch, with no round trip.
    pub fn remembered<E>(
        &self,
        request: &IdempotentRequest<'_>,
        request_hash: &[u8],
    ) -> Option<Outcome<E>> {
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
    async fn answer_for<E, R, RFut>(
        &self,
        request: &IdempotentRequest<'_>,
        request_hash: &[u8],
        row: RanRow,
        asked: Instant,
        render: &R,
    ) -> Option<Outcome<E>>
    where
        R: Fn(Resource) -> RFut,
        RFut: Future<Output = Result<StoredResponse, E>>,
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
    async fn claim<E: Failure>(&self, request: &IdempotentRequest<'_>) -> Result<Claim<E>, E> {
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

    fn replay<E>(&self, request: &IdempotentRequest<'_>, existing: ExistingRecord) -> Outcome<E> {
        self.replayed(request, stored_response(existing))
    }

    fn replayed<E>(&self, request: &IdempotentRequest<'_>, response: StoredResponse) -> Outcome<E> {
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

    fn in_progress<E>(&self, request: &IdempotentRequest<'_>) -> Outcome<E> {
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

    fn mismatch<E>(
        &self,
        request: &IdempotentRequest<'_>,
        existing: &ExistingRecord,
    ) -> Outcome<E> {
        self.mismatched(request, &existing.endpoint)
    }

    /// The key was first used for `first_endpoint`, or for another body.
    fn mismatched<E>(&self, request: &IdempotentRequest<'_>, first_endpoint: &str) -> Outcome<E> {
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
            "{reuse}"
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
            merchant_id = %self.merchant_id,
            idempotency_key = self.key,
            "the lease ran out before completion; the effect was rolled back"
        );
        Outcome::InProgress
    }
}
