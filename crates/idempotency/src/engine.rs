//! The engine: what both paths share (the answers remembered, the outcomes counted, the answers
//! for a key that is not ours to execute) and the one-commit path, whose effect and completed
//! record commit together ([`Idempotency::execute_once`]). The two-phase path is
//! `crate::two_phase` (feature `two-phase`).

use std::future::Future;
use std::time::{Duration, Instant};

use sqlx::PgPool;

use crate::cache::{Answers, Remembered};
use crate::connections::StatementConnections;
use crate::failure::Failure;
use crate::once::{Once, Ran, RanRow};
use crate::outcomes::Outcomes;
use crate::request::{ExistingRecord, IdempotentRequest};
use crate::response::{Resource, StoredResponse};

#[derive(Clone)]
pub struct Idempotency {
    pub(crate) pool: PgPool,
    /// Connections beside `pool`'s, as many, for the one-commit path's single statements.
    statements: StatementConnections,
    /// A reserve of connections for marking claimed keys failed, so that a request timed out
    /// on an exhausted `pool` still frees its key at once (the two-phase path's).
    #[cfg_attr(not(feature = "two-phase"), allow(dead_code))]
    pub(crate) settle_pool: PgPool,
    /// How long a record answers for its key after it was made.
    pub(crate) ttl: Duration,
    /// How long a claim holds its key (the two-phase path's).
    #[cfg_attr(not(feature = "two-phase"), allow(dead_code))]
    pub(crate) lease: Duration,
    pub(crate) outcomes: Outcomes,
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

impl<E> Outcome<E> {
    /// What it says of the key, as `Idempotency-Key-Status` and the request log say it: an
    /// interrupted request claimed the key, so it is `new`.
    pub fn verdict(&self) -> kaadxpay_types::Verdict {
        use kaadxpay_types::Verdict;
        match self {
            Self::Executed(_) | Self::Interrupted(_) => Verdict::New,
            Self::Replayed(_) => Verdict::Replayed,
            Self::InProgress => Verdict::InProgress,
            Self::KeyReused(_) => Verdict::Mismatch,
        }
    }
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

impl Idempotency {
    /// An engine on `pool`, marking claimed keys failed on `settle_pool` (a small reserve of
    /// connections of its own), whose records answer for `ttl` and whose two-phase claims hold
    /// their key for `lease`.
    pub fn new(pool: PgPool, settle_pool: PgPool, ttl: Duration, lease: Duration) -> Self {
        Self {
            statements: StatementConnections::beside(&pool),
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
        // A record made by another request between our look and our insert is seen on the
        // next pass, and a connection that broke is retried once; three passes settle these.
        // The first pass expects the key to be free; the next ones take over a record that
        // expired or failed ([`Once::taking_over`]).
        let mut connection_lost = false;
        let mut first = true;
        for _ in 0..3 {
            let once = || {
                let once = self.once(request);
                if first {
                    once
                } else {
                    once.taking_over()
                }
            };
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
                    self.outcomes.count(request.scope, "new");
                    self.remember(request, &response, asked + self.ttl);
                    return Ok(Outcome::Executed(response));
                }
                Ran::NotRecorded(row) => row,
                Ran::ConnectionLost if !connection_lost => {
                    connection_lost = true;
                    continue;
                }
                Ran::ConnectionLost => return Ok(Outcome::Interrupted(E::unavailable())),
            };
            if let Some(answered) = self.answer_for(request, row, asked, &render).await {
                return Ok(answered);
            }
            first = false;
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
        render: R,
    ) -> Result<Option<Outcome<E>>, E>
    where
        E: Failure,
        R: Fn(Resource) -> RFut,
        RFut: Future<Output = Result<StoredResponse, E>>,
    {
        let asked = Instant::now();
        let row = self.once(request).look().await?;
        Ok(self.answer_for(request, row, asked, &render).await)
    }

    fn once(&self, request: &IdempotentRequest<'_>) -> Once {
        Once::new(
            &self.pool,
            &self.statements,
            request,
            self.ttl,
            self.on_broken_connection,
        )
    }

    /// The answer this process remembers for the key ([`crate::cache`]): a replay, or a
    /// mismatch, with no round trip.
    pub fn remembered<E>(&self, request: &IdempotentRequest<'_>) -> Option<Outcome<E>> {
        let remembered = self.answers.get(request.scope, request.key.as_str())?;
        if remembered.endpoint != request.endpoint
            || remembered.request_hash != request.request_hash
        {
            return Some(self.mismatched(request, remembered.endpoint));
        }
        Some(self.replayed(request, remembered.response))
    }

    fn remember(
        &self,
        request: &IdempotentRequest<'_>,
        response: &StoredResponse,
        deadline: Instant,
    ) {
        let remembered = Remembered {
            endpoint: request.endpoint,
            request_hash: request.request_hash.to_owned(),
            response: response.clone(),
        };
        self.answers
            .put(request.scope, request.key.as_str(), remembered, deadline);
    }

    /// What the key's record, or the lock of a request executing it, answers; `None` when the
    /// key is free for this request (no record, or an expired or failed one, and no lock).
    async fn answer_for<E, R, RFut>(
        &self,
        request: &IdempotentRequest<'_>,
        row: RanRow,
        asked: Instant,
        render: &R,
    ) -> Option<Outcome<E>>
    where
        R: Fn(Resource) -> RFut,
        RFut: Future<Output = Result<StoredResponse, E>>,
    {
        let (existing, held) = row.found(request);
        if let Some(existing) = existing.filter(|existing| !existing.expired) {
            if existing.endpoint != request.endpoint
                || existing.request_hash != request.request_hash
            {
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
                    self.remember(request, &stored, deadline);
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
    pub(crate) fn replayed<E>(
        &self,
        request: &IdempotentRequest<'_>,
        response: StoredResponse,
    ) -> Outcome<E> {
        self.outcomes.count(request.scope, "replayed");
        tracing::info!(
            event = "idempotency.replayed",
            merchant_id = %request.scope,
            idempotency_key = request.key.as_str(),
            route = request.endpoint,
            request_id = request.request_id,
            "replaying the stored response"
        );
        Outcome::Replayed(response)
    }

    pub(crate) fn in_progress<E>(&self, request: &IdempotentRequest<'_>) -> Outcome<E> {
        self.outcomes.count(request.scope, "in_progress");
        tracing::info!(
            event = "idempotency.conflict",
            merchant_id = %request.scope,
            idempotency_key = request.key.as_str(),
            route = request.endpoint,
            request_id = request.request_id,
            "a request with this key is still in progress"
        );
        Outcome::InProgress
    }

    pub(crate) fn mismatch<E>(
        &self,
        request: &IdempotentRequest<'_>,
        existing: &ExistingRecord,
    ) -> Outcome<E> {
        self.mismatched(request, &existing.endpoint)
    }

    /// The key was first used for `first_endpoint`, or for another body.
    pub(crate) fn mismatched<E>(
        &self,
        request: &IdempotentRequest<'_>,
        first_endpoint: &str,
    ) -> Outcome<E> {
        self.outcomes.count(request.scope, "mismatch");
        let reuse = if first_endpoint != request.endpoint {
            Reuse::Endpoint
        } else {
            Reuse::Body
        };
        tracing::warn!(
            event = "idempotency.mismatch",
            merchant_id = %request.scope,
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
pub(crate) fn stored_response(existing: ExistingRecord) -> StoredResponse {
    StoredResponse {
        status: existing
            .response_status
            .and_then(|status| u16::try_from(status).ok())
            .unwrap_or(500),
        location: existing.response_location,
        renders_again: existing.response_body.is_none(),
        body: existing.response_body.unwrap_or_default(),
        resource: existing.resource.map(|(kind, id)| Resource {
            kind,
            id,
            row: existing.resource_row,
        }),
    }
}
