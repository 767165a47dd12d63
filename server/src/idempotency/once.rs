//! The one-commit path, for commands whose whole effect is local SQL (every command of the API
//! today: orders, payouts, webhook endpoints, redeliveries). The key's record is inserted
//! already completed, in the transaction that makes the effect, so a new key costs one commit
//! and a request that stops before it (a fault, a killed process, a client gone) leaves neither
//! effect nor record: its retry executes once.
//!
//! While it executes, the transaction holds a transaction-scoped advisory lock on
//! `(merchant, key)` ([`lock_key`]), taken without waiting: a duplicate that cannot take it gets
//! `409` at once, and `GET /v1/idempotency-keys/{key}` reads the lock from `pg_locks` to show
//! `in_progress`. A record found instead answers for the key (replay, `422`), unless it expired
//! or failed (left by the two-phase path), when the new record takes its place.
//!
//! Two shapes, one protocol: [`Once::statement`], where the lock, the look-up, the record and the
//! effect are one statement (one round trip: orders, webhook endpoints), and [`Once::begin`],
//! a transaction for effects that need several statements (payouts, redeliveries).

use kaadxpay_types::ids::MerchantId;
use std::sync::LazyLock;
use std::time::Duration;

use sha2::{Digest, Sha256};
use sqlx::postgres::PgArguments;
use sqlx::{FromRow, PgPool, Postgres, Transaction};

use super::request::{FoundRecord, IdempotentRequest};
use super::response::StoredResponse;
use crate::contract::error::Error;

/// The fail point at which a one-commit effect pauses with its lock held (`return(ms)`).
const PAUSE: &str = "idempotency.in_transaction";

/// The advisory lock of `(merchant, key)`: 64 bits of SHA-256 over both. (Other advisory locks
/// of the application use the two-integer form, a space of its own in `pg_locks`.)
pub fn lock_key(merchant_id: &MerchantId, key: &str) -> i64 {
    let digest = Sha256::new()
        .chain_update(merchant_id.as_bytes())
        .chain_update([0])
        .chain_update(key.as_bytes())
        .finalize();
    i64::from_be_bytes(digest[..8].try_into().expect("eight bytes"))
}

/// The record as it stood before the statement, and the lock: the CTEs `found` and `lock`
/// (empty when a record answers for the key, so a replay takes no lock), then `go`, one row
/// when this request holds the key and may execute (after the fail point's pause).
const LOCK_AND_LOOK: &str = "found AS MATERIALIZED ( \
       SELECT endpoint::text AS endpoint, request_hash, status::text AS status, lease_token, \
         coalesce(locked_until > now(), false) AS lease_live, \
         created_at + make_interval(secs => $6) <= now() AS expired, \
         extract(epoch FROM created_at + make_interval(secs => $6) - now())::float8 AS remaining, \
         response_status, response_location, response_body, resource_type, resource_id \
       FROM idempotency_keys WHERE merchant_id = $1 AND key = $2), \
     lock AS MATERIALIZED ( \
       SELECT pg_try_advisory_xact_lock($5) AS held \
       WHERE NOT EXISTS (SELECT 1 FROM found WHERE NOT expired \
         AND NOT (status = 'failed' AND endpoint = $3 AND request_hash = $4))), \
     go AS MATERIALIZED (SELECT 1 AS go FROM lock WHERE held AND pg_sleep($7)::text = '')";

/// The answer recorded when the effect is made: the planned one, `$8` to `$12`.
const PLANNED_ANSWER: &str = "answer AS (SELECT $8::int2 AS status, $9::text AS location, \
     $10::bytea AS body, $11::text AS resource_type, $12::text AS resource_id FROM go)";

/// The CTE `recorded`: the record, completed with the CTE `answer`, in place of none, of an
/// expired one or of a failed one of the same request; empty when another took the key first.
const RECORDING: &str = "recorded AS ( \
       INSERT INTO idempotency_keys AS k (merchant_id, key, endpoint, request_hash, status, \
         response_status, response_location, response_body, resource_type, resource_id) \
       SELECT $1, $2, $3::idempotency_endpoint, $4, 'completed', a.status, a.location, a.body, \
         a.resource_type, a.resource_id FROM answer a \
       ON CONFLICT (merchant_id, key) DO UPDATE SET endpoint = EXCLUDED.endpoint, \
         request_hash = EXCLUDED.request_hash, status = 'completed', recovery_point = NULL, \
         lease_token = NULL, locked_until = NULL, \
         response_status = EXCLUDED.response_status, response_location = EXCLUDED.response_location, \
         response_body = EXCLUDED.response_body, resource_type = EXCLUDED.resource_type, \
         resource_id = EXCLUDED.resource_id, error = NULL, \
         attempts = CASE WHEN k.created_at + make_interval(secs => $6) <= now() THEN NULL \
           ELSE coalesce(k.attempts, 1) + 1 END, \
         updated_at = CASE WHEN k.created_at + make_interval(secs => $6) <= now() THEN NULL \
           ELSE now() END, \
         created_at = CASE WHEN k.created_at + make_interval(secs => $6) <= now() THEN now() \
           ELSE k.created_at END \
       WHERE k.created_at + make_interval(secs => $6) <= now() \
         OR (k.status = 'failed' AND k.endpoint = EXCLUDED.endpoint AND k.request_hash = $4) \
       RETURNING response_status)";

/// What every shape's statement answers: the recorded status (none when it recorded nothing),
/// whether it held the lock, and the record it found.
const ANSWER: &str = "SELECT (SELECT response_status FROM recorded) AS recorded, \
       coalesce((SELECT held FROM lock), false) AS held, f.* \
     FROM (SELECT 1) AS one LEFT JOIN found f ON true";

/// A request on the one-commit path, and the parameters `$1` to `$12` its statements share.
pub struct Once {
    pool: PgPool,
    merchant_id: MerchantId,
    key: String,
    endpoint: &'static str,
    request_hash: Vec<u8>,
    ttl: Duration,
}

/// What a one-commit statement did: recorded this request's answer, or found the key held or
/// answered for (which the engine turns into a replay, a `409` or a `422`).
pub enum Ran {
    Recorded(StoredResponse),
    NotRecorded(RanRow),
    /// The connection broke under the statement: whether it committed is unknown, and a retry
    /// finds out (it replays if it did).
    ConnectionLost,
}

/// A statement that failed on a connection that broke under it is [`Ran::ConnectionLost`],
/// which the engine retries once; any other failure is an error.
fn broken(err: sqlx::Error) -> Result<Ran, Error> {
    if crate::platform::db::is_broken_connection(&err) {
        crate::platform::db::connection_broke();
        return Ok(Ran::ConnectionLost);
    }
    Err(err.into())
}

/// A one-commit statement's answer ([`ANSWER`]); the record's columns are all `NULL` when it
/// found none.
#[derive(sqlx::FromRow)]
pub struct RanRow {
    recorded: Option<i16>,
    pub(super) held: bool,
    #[sqlx(flatten)]
    pub(super) found: FoundRecord,
}

impl Once {
    /// The parameter after the engine's: a statement's own start at `$13`.
    pub const FIRST_PARAM: usize = 13;

    pub(super) fn new(
        pool: &PgPool,
        request: &IdempotentRequest<'_>,
        request_hash: &[u8],
        ttl: Duration,
    ) -> Self {
        Self {
            pool: pool.clone(),
            merchant_id: request.merchant_id.to_owned(),
            key: request.key.as_str().to_owned(),
            endpoint: request.endpoint,
            request_hash: request_hash.to_owned(),
            ttl,
        }
    }

    pub fn pool(&self) -> &PgPool {
        &self.pool
    }

    /// One statement for the whole request: `answer` defines the CTE `answer` (status,
    /// location, body, resource type and id) from `go`, or `None` for the planned answer bound
    /// by [`Once::bind`]; `writes` are the effect's CTEs (each preceded by `, `), each depending
    /// on a row of `recorded`, so that nothing is written unless the record was.
    pub fn statement(answer: Option<&str>, writes: &str) -> String {
        format!(
            "WITH {LOCK_AND_LOOK}, {}, {RECORDING}{writes} {ANSWER}",
            answer.unwrap_or(PLANNED_ANSWER)
        )
    }

    /// Binds `$1` to `$12`: the request, and `planned`, the answer if the effect is made. An
    /// answer that [renders again](StoredResponse::renders_again) is recorded as a reference to
    /// the resource it created (no location, no body), and rendered again from it on replay.
    pub fn bind<'q>(
        &'q self,
        query: sqlx::query::Query<'q, Postgres, PgArguments>,
        planned: &'q StoredResponse,
    ) -> sqlx::query::Query<'q, Postgres, PgArguments> {
        let resource = planned.resource.as_ref();
        let by_reference = planned.renders_again && resource.is_some();
        self.bind_request(query)
            .bind(planned.status as i16)
            .bind(planned.location.as_deref().filter(|_| !by_reference))
            .bind((!by_reference).then_some(&planned.body))
            .bind(resource.map(|resource| resource.kind.as_str()))
            .bind(resource.map(|resource| resource.id.as_str()))
    }

    /// Binds `$1` to `$7`, the request's parameters.
    fn bind_request<'q>(
        &'q self,
        query: sqlx::query::Query<'q, Postgres, PgArguments>,
    ) -> sqlx::query::Query<'q, Postgres, PgArguments> {
        query
            .bind(&self.merchant_id)
            .bind(&self.key)
            .bind(self.endpoint)
            .bind(&self.request_hash)
            .bind(lock_key(&self.merchant_id, &self.key))
            .bind(self.ttl.as_secs_f64())
            .bind(crate::platform::failpoints::pause(PAUSE).as_secs_f64())
    }

    /// Runs a statement of [`Once::statement`], bound by [`Once::bind`], in a transaction of its
    /// own; `answer` is the response for the status it recorded.
    pub async fn run(
        &self,
        query: sqlx::query::Query<'_, Postgres, PgArguments>,
        answer: impl FnOnce(u16) -> StoredResponse,
    ) -> Result<Ran, Error> {
        match query.fetch_one(&self.pool).await {
            Ok(row) => Ok(RanRow::from_row(&row)?.into_ran(answer)),
            Err(err) => broken(err),
        }
    }

    /// Records a definitive refusal as the key's answer, with no effect.
    pub(super) async fn refuse(&self, refusal: &StoredResponse) -> Result<Ran, Error> {
        static STATEMENT: LazyLock<String> = LazyLock::new(|| Once::statement(None, ""));
        self.run(self.bind(sqlx::query(&STATEMENT), refusal), |_| {
            refusal.clone()
        })
        .await
    }

    /// Runs an effect of several statements in one transaction with the key's record: opens it
    /// holding the key's lock, runs `effect` on its connection, records the effect's answer and
    /// commits ([`OnceTransaction::finish`]); or, when the key is held or answered for, answers
    /// what was found without running `effect`.
    pub async fn transaction(
        &self,
        effect: impl AsyncFnOnce(&mut sqlx::PgConnection) -> Result<StoredResponse, Error>,
    ) -> Result<Ran, Error> {
        let mut tx = match self.begin().await? {
            Ok(tx) => tx,
            Err(found) => return Ok(found),
        };
        let answer = effect(tx.conn()).await;
        tx.finish(answer).await
    }

    /// Opens the transaction of an effect of several statements, holding the key's lock; or,
    /// when the key is held or answered for, what was found.
    async fn begin(&self) -> Result<Result<OnceTransaction<'_>, Ran>, Error> {
        static STATEMENT: LazyLock<String> = LazyLock::new(|| {
            format!(
                "WITH {LOCK_AND_LOOK}, recorded AS (SELECT NULL::int2 AS response_status) {ANSWER}"
            )
        });
        let mut tx = match self.pool.begin().await {
            Ok(tx) => tx,
            Err(err) => return broken(err).map(Err),
        };
        let row = match self
            .bind_request(sqlx::query(&STATEMENT))
            .fetch_one(&mut *tx)
            .await
        {
            Ok(row) => row,
            Err(err) => return broken(err).map(Err),
        };
        let row = RanRow::from_row(&row)?;
        if !row.held {
            return Ok(Err(Ran::NotRecorded(row)));
        }
        Ok(Ok(OnceTransaction { once: self, tx }))
    }
}

/// The transaction of a one-commit effect of several statements, holding the key's lock.
pub struct OnceTransaction<'o> {
    once: &'o Once,
    tx: Transaction<'static, Postgres>,
}

impl OnceTransaction<'_> {
    fn conn(&mut self) -> &mut sqlx::PgConnection {
        &mut self.tx
    }

    /// Records the effect's answer and commits both; a definitive refusal is recorded without
    /// the effect's writes, and any other error leaves nothing.
    async fn finish(mut self, effect: Result<StoredResponse, Error>) -> Result<Ran, Error> {
        let response = match effect {
            Ok(response) => response,
            Err(error) if error.is_definitive() => {
                // Rolled back, and so unlocked, before the refusal's statement takes the key's
                // lock on another connection: a dropped transaction only rolls back when its
                // connection is next used, and the refusal would find the key still held (409).
                if let Err(err) = self.tx.rollback().await {
                    return broken(err);
                }
                return self.once.refuse(&StoredResponse::from_error(&error)).await;
            }
            Err(error) => return Err(error),
        };
        static STATEMENT: LazyLock<String> = LazyLock::new(|| {
            format!(
                "WITH go AS (SELECT 1 AS go), {PLANNED_ANSWER}, {RECORDING} \
                 SELECT response_status FROM recorded"
            )
        });
        let recorded = self
            .once
            .bind(sqlx::query(&STATEMENT), &response)
            .fetch_optional(&mut *self.tx)
            .await?;
        if recorded.is_none() {
            // Another request recorded the key after this one looked (the record was made
            // between our look and our lock): ours is rolled back, theirs answers.
            if let Err(err) = self.tx.rollback().await {
                return broken(err);
            }
            return Ok(Ran::NotRecorded(self.once.look().await?));
        }
        self.tx.commit().await?;
        Ok(Ran::Recorded(response))
    }
}

impl Once {
    /// The key as it now stands: its record, and whether it was free of any lock.
    pub(super) async fn look(&self) -> Result<RanRow, Error> {
        static STATEMENT: LazyLock<String> = LazyLock::new(|| {
            format!(
                "WITH {LOCK_AND_LOOK}, recorded AS (SELECT NULL::int2 AS response_status) {ANSWER}"
            )
        });
        let row = self
            .bind_request(sqlx::query(&STATEMENT))
            .fetch_one(&self.pool)
            .await?;
        Ok(RanRow::from_row(&row)?)
    }
}

impl RanRow {
    fn into_ran(self, answer: impl FnOnce(u16) -> StoredResponse) -> Ran {
        match self.recorded {
            Some(status) => Ran::Recorded(answer(status as u16)),
            None => Ran::NotRecorded(self),
        }
    }
}
