//! The one-commit path, for commands whose whole effect is local SQL (every command of the API
//! today: orders, payouts, webhook endpoints, redeliveries). The key's record is inserted
//! already completed, in the transaction that makes the effect, so a new key costs one commit
//! and a request that stops before it (a fault, a killed process, a client gone) leaves neither
//! effect nor record: its retry executes once.
//!
//! While it executes, the transaction holds a transaction-scoped advisory lock on
//! `(scope, key)` ([`lock_key`]), taken without waiting: a duplicate that cannot take it gets
//! `409` at once, and `GET /v1/idempotency-keys/{key}` reads the lock from `pg_locks` to show
//! `in_progress`. A record found instead answers for the key (replay, `422`), unless it expired
//! or failed (left by the two-phase path), when the new record takes its place.
//!
//! Two shapes, one protocol: [`Once::run`], where the lock, the look-up, the record and the
//! effect are one statement (one round trip: orders, webhook endpoints), and
//! [`Once::transaction`], for effects that need several statements (payouts, redeliveries).
//! Either way a key already answered for is answered by one look-up, which reads the resource a
//! `201` is rendered from with the record ([`Once::renders_from`]).
//!
//! [`Once::run`]'s first attempt expects the key to be free ([`fresh_look`]): the lock is taken
//! only when no record is found, and the record is a plain insert. PostgreSQL initialises every
//! node and expression of a statement's plan on each execution, so what a new key's statement
//! does not hold it does not pay for. A record found expired, or failed by the two-phase path,
//! sends the engine to a second attempt that writes its record in place of that one
//! ([`Once::taking_over`], [`lock_and_look`]); a record committed by another request between
//! the statement's snapshot and its lock makes the insert fail on the key, and the key is looked
//! at again.

use std::fmt;
use std::time::Duration;

use sha2::{Digest, Sha256};
use sqlx::{FromRow, PgPool, Postgres, Transaction};

use crate::connections::{self, StatementConnections};
use crate::failure::Failure;
use crate::request::{found_call, ExistingRecord, FoundRecord, IdempotentRequest};
use crate::response::StoredResponse;
use crate::scope::Scope;
use crate::statement::{Param, Shape, Statement};

/// The fail point at which a one-commit effect pauses with its lock held (`return(ms)`).
const PAUSE: &str = "idempotency.in_transaction";

/// The advisory lock of `(scope, key)`: 64 bits of SHA-256 over both. (Other advisory locks
/// of the application use the two-integer form, a space of its own in `pg_locks`.)
pub fn lock_key(scope: Scope<'_>, key: &str) -> i64 {
    lock_of(scope.as_str(), key)
}

/// [`lock_key`] of a scope as the record's column holds it.
fn lock_of(scope: &str, key: &str) -> i64 {
    let digest = Sha256::new()
        .chain_update(scope.as_bytes())
        .chain_update([0])
        .chain_update(key.as_bytes())
        .finalize();
    i64::from_be_bytes(digest[..8].try_into().expect("eight bytes"))
}

/// The request's values, bound once in each statement that names them.
#[derive(Clone, Copy)]
struct Bound {
    merchant: Param,
    key: Param,
    endpoint: Param,
    request_hash: Param,
    ttl: Param,
}

/// The key's record as it stood before the statement, as the column `record`
/// ([`FoundRecord`], read with the row of the resource it names when the command
/// [renders from](Once::renders_from) one): the `SELECT` of the statement's first CTE, no row
/// when there is none. `also` adds columns of its own before it.
fn found_record<A: fmt::Display>(
    statement: &mut Statement,
    once: &Once,
    bound: &Bound,
    also: A,
) -> impl fmt::Display + use<A> {
    let Bound {
        merchant, key, ttl, ..
    } = *bound;
    let rendered = once.rendered_from;
    let resource = statement.bind(rendered.map(|rendered| rendered.table));
    let columns = statement.bind(rendered.map(|rendered| rendered.columns));
    let record = found_call(ttl, resource, columns);
    fmt::from_fn(move |f| {
        write!(
            f,
            "SELECT {also}{record} AS record \
             FROM idempotency_keys k WHERE k.merchant_id = {merchant} AND k.key = {key}"
        )
    })
}

/// `WITH` the record as it stood before the statement, and the lock: the CTEs `found` and
/// `lock` (empty when a record answers for the key, so a replay takes no lock), then `go`, one
/// row when this request holds the key and may execute (after the fail point's pause). The
/// shape of every statement but a first attempt's ([`fresh_look`]).
fn lock_and_look(statement: &mut Statement, once: &Once) -> Bound {
    let bound = once.bind_request(statement);
    let Bound {
        endpoint,
        request_hash,
        ttl,
        ..
    } = bound;
    // Whether this request may write its record over the one found: it expired, or it is this
    // very request's, failed by the two-phase path ([`ExistingRecord::replaceable_by`]).
    let replaceable = format!(
        "k.created_at + make_interval(secs => {ttl}) <= now() \
           OR (k.status = 'failed' AND k.endpoint::text = {endpoint} \
             AND k.request_hash = {request_hash}) AS replaceable, "
    );
    let found = found_record(statement, once, &bound, replaceable);
    let lock = statement.bind(lock_of(&once.scope, &once.key));
    let pause = statement.bind(crate::failpoints::pause(PAUSE).as_secs_f64());
    statement.push(format_args!(
        "WITH found AS MATERIALIZED ({found}), \
         lock AS MATERIALIZED ( \
           SELECT pg_try_advisory_xact_lock({lock}) AS held \
           WHERE NOT EXISTS (SELECT 1 FROM found WHERE NOT replaceable)), \
         go AS MATERIALIZED (SELECT 1 AS go FROM lock WHERE held AND pg_sleep({pause})::text = '')"
    ));
    bound
}

/// A first attempt's `WITH`: one CTE `found`, the record (`NULL` when there is none) and
/// `locked`, the key's lock, tried only when there is no record at all; then `go`, as
/// [`lock_and_look`]'s. A record of any kind answers (a replay, `409`, `422`) or sends the
/// engine to a second attempt that takes it over, so the record is a plain insert
/// ([`recording`]).
fn fresh_look(statement: &mut Statement, once: &Once) -> Bound {
    let bound = once.bind_request(statement);
    let found = found_record(statement, once, &bound, "");
    let lock = statement.bind(lock_of(&once.scope, &once.key));
    let pause = statement.bind(crate::failpoints::pause(PAUSE).as_secs_f64());
    statement.push(format_args!(
        "WITH found AS MATERIALIZED ( \
           SELECT CASE WHEN f.record IS NULL THEN pg_try_advisory_xact_lock({lock}) END \
             AS locked, f.record \
           FROM (SELECT 1) AS one LEFT JOIN ({found}) f ON true), \
         go AS MATERIALIZED (SELECT 1 AS go FROM found WHERE locked AND pg_sleep({pause})::text = '')"
    ));
    bound
}

/// Where a command's created resources are read from to render their `201` again.
#[derive(Clone, Copy)]
struct Rendered {
    table: &'static str,
    columns: &'static str,
}

/// `, answer AS (…)`: the answer recorded when the effect is made, `planned`, one row for each
/// row of `go`. An answer that [renders again](StoredResponse::renders_again) is recorded as a
/// reference to the resource it created (no location, no body), and rendered again from it on
/// replay.
fn planned_answer(statement: &mut Statement, planned: &StoredResponse) {
    let resource = planned.resource.as_ref();
    let by_reference = planned.renders_again && resource.is_some();
    let status = statement.bind(planned.status as i16);
    let location = statement.bind(planned.location.as_deref().filter(|_| !by_reference));
    let body = statement.bind((!by_reference).then_some(&planned.body));
    let resource_type = statement.bind(resource.map(|resource| resource.kind.as_str()));
    let resource_id = statement.bind(resource.map(|resource| resource.id.as_str()));
    statement.push(format_args!(
        ", answer AS (SELECT {status}::int2 AS status, {location}::text AS location, \
           {body}::bytea AS body, {resource_type}::text AS resource_type, \
           {resource_id}::text AS resource_id FROM go)"
    ));
}

/// Which records a statement may write the key's over.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Attempt {
    /// A first attempt of [`Once::run`], on a key expected to be free: a record only where there
    /// is none ([`fresh_look`], a plain insert).
    First,
    /// Any other: a record in place of none, of an expired one or of a failed one of the same
    /// request ([`lock_and_look`], an insert that updates such a record instead).
    TakingOver,
}

/// `, recorded AS (…)`: the record, completed with the CTE `answer`, in place of none, or on a
/// later attempt of an expired one or of a failed one of the same request; empty when another
/// took the key first (on a first attempt, a record another request committed since the
/// statement's snapshot fails the insert instead).
fn recording(statement: &mut Statement, bound: &Bound, attempt: Attempt) {
    let Bound {
        merchant,
        key,
        endpoint,
        request_hash,
        ttl,
    } = bound;
    statement.push(format_args!(
        ", recorded AS ( \
           INSERT INTO idempotency_keys AS k (merchant_id, key, endpoint, request_hash, status, \
             response_status, response_location, response_body, resource_type, resource_id) \
           SELECT {merchant}, {key}, {endpoint}::idempotency_endpoint, {request_hash}, 'completed', \
             a.status, a.location, a.body, a.resource_type, a.resource_id FROM answer a"
    ));
    if attempt == Attempt::TakingOver {
        statement.push(format_args!(
            " ON CONFLICT (merchant_id, key) DO UPDATE SET endpoint = EXCLUDED.endpoint, \
               request_hash = EXCLUDED.request_hash, status = 'completed', recovery_point = NULL, \
               lease_token = NULL, locked_until = NULL, \
               response_status = EXCLUDED.response_status, response_location = EXCLUDED.response_location, \
               response_body = EXCLUDED.response_body, resource_type = EXCLUDED.resource_type, \
               resource_id = EXCLUDED.resource_id, error = NULL, \
               attempts = CASE WHEN k.created_at + make_interval(secs => {ttl}) <= now() THEN NULL \
                 ELSE coalesce(k.attempts, 1) + 1 END, \
               updated_at = CASE WHEN k.created_at + make_interval(secs => {ttl}) <= now() THEN NULL \
                 ELSE now() END, \
               created_at = CASE WHEN k.created_at + make_interval(secs => {ttl}) <= now() THEN now() \
                 ELSE k.created_at END \
             WHERE k.created_at + make_interval(secs => {ttl}) <= now() \
               OR (k.status = 'failed' AND k.endpoint = EXCLUDED.endpoint AND k.request_hash = {request_hash})"
        ));
    }
    statement.push(" RETURNING response_status)");
}

/// What a statement of [`lock_and_look`]'s shape answers: the recorded status (none when it
/// recorded nothing), whether it took the lock (none when it tried none: the record found
/// answers for the key), and the record it found.
const ANSWER: &str = " SELECT (SELECT response_status FROM recorded) AS recorded, \
       (SELECT held FROM lock) AS held, f.record \
     FROM (SELECT 1) AS one LEFT JOIN found f ON true";

/// [`ANSWER`] for a statement of [`fresh_look`]'s shape, which tries the lock only when there
/// is no record.
const FRESH_ANSWER: &str = " SELECT (SELECT response_status FROM recorded) AS recorded, \
       locked AS held, record FROM found";

/// Whether `err` is a first attempt's insert failing on a record of the key that another
/// request committed after the statement's snapshot was taken ([`Attempt::First`]).
fn recorded_meanwhile(err: &sqlx::Error) -> bool {
    matches!(err, sqlx::Error::Database(db) if db.constraint() == Some("idempotency_keys_pkey"))
}

/// The lock and the look-up alone, recording nothing.
fn looking(once: &Once) -> Statement {
    let mut statement = Statement::new();
    lock_and_look(&mut statement, once);
    statement.push(", recorded AS (SELECT NULL::int2 AS response_status)");
    statement.push(ANSWER);
    statement
}

/// The texts of one command's [`Once::run`] statement, one for each attempt's shape: a `static`
/// of the command, so that each text is composed once ([`Shape`]).
pub struct RunShapes {
    first: Shape,
    taking_over: Shape,
}

impl RunShapes {
    pub const fn new() -> Self {
        Self {
            first: Shape::new(),
            taking_over: Shape::new(),
        }
    }
}

impl Default for RunShapes {
    fn default() -> Self {
        Self::new()
    }
}

/// A request on the one-commit path.
pub struct Once {
    pool: PgPool,
    /// Where its single statements run (a transaction runs on `pool`).
    statements: StatementConnections,
    /// The key's scope, as the record's column holds it ([`Scope::as_str`]).
    scope: String,
    key: String,
    endpoint: &'static str,
    request_hash: Vec<u8>,
    ttl: Duration,
    on_broken_connection: fn(),
    /// The fail point between the effect's writes and its commit ([`Once::before_commit`]).
    before_commit: Option<&'static str>,
    /// Where a recorded reference's resource is read from ([`Once::renders_from`]).
    rendered_from: Option<Rendered>,
    /// Which records [`Once::run`]'s statement may write the key's over.
    attempt: Attempt,
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

/// A one-commit statement's answer ([`ANSWER`]): no record when it found none, and no `held`
/// when it tried no lock because of the record it found ([`RanRow::held`]).
#[derive(sqlx::FromRow)]
pub struct RanRow {
    recorded: Option<i16>,
    held: Option<bool>,
    record: Option<FoundRecord>,
}

impl Once {
    pub(crate) fn new(
        pool: &PgPool,
        statements: &StatementConnections,
        request: &IdempotentRequest<'_>,
        ttl: Duration,
        on_broken_connection: fn(),
    ) -> Self {
        Self {
            pool: pool.clone(),
            statements: statements.clone(),
            scope: request.scope.as_str().to_owned(),
            key: request.key.as_str().to_owned(),
            endpoint: request.endpoint,
            request_hash: request.request_hash.to_owned(),
            ttl,
            on_broken_connection,
            before_commit: None,
            rendered_from: None,
            attempt: Attempt::First,
        }
    }

    /// Names the table (`id` and `merchant_id` its columns) the command's created resources
    /// are in, and the `columns` (a select list) their `201` is rendered again from: a record
    /// found completed with a reference to one then comes with that row, read by the same
    /// statement (as JSON, [`crate::Resource::row`]), and its replay takes no statement more.
    pub fn renders_from(mut self, table: &'static str, columns: &'static str) -> Self {
        self.rendered_from = Some(Rendered { table, columns });
        self
    }

    /// Makes [`Once::run`]'s statement one that writes the record in place of an expired one or
    /// of a failed one of the same request, as the engine's attempts after the first do (the
    /// first found such a record, or lost the key to another request).
    pub(crate) fn taking_over(mut self) -> Self {
        self.attempt = Attempt::TakingOver;
        self
    }

    /// Names the fail point that [`Once::run`] reaches after the effect's writes, with the key
    /// held, before the commit (`order.before_commit`): `sleep(ms)` waits there (a duplicate
    /// gets `409`, the key shows `in_progress`), `return` fails the request and `panic` kills
    /// it, nothing kept either way. Only while the point is configured does the statement run
    /// in a transaction of its own, so that the point stands between its writes and the commit;
    /// otherwise it is one statement, as ever.
    pub fn before_commit(mut self, point: &'static str) -> Self {
        self.before_commit = Some(point);
        self
    }

    /// A statement that failed on a connection that broke under it is [`Ran::ConnectionLost`],
    /// which the engine retries once; any other failure is an error.
    fn broken<E: Failure>(&self, err: sqlx::Error) -> Result<Ran, E> {
        if connections::broke(&err) {
            (self.on_broken_connection)();
            return Ok(Ran::ConnectionLost);
        }
        Err(err.into())
    }

    /// Binds the request's values.
    fn bind_request(&self, statement: &mut Statement) -> Bound {
        Bound {
            merchant: statement.bind(&self.scope),
            key: statement.bind(&self.key),
            endpoint: statement.bind(self.endpoint),
            request_hash: statement.bind(&self.request_hash),
            ttl: statement.bind(self.ttl.as_secs_f64()),
        }
    }

    /// Runs the whole request as one statement in a transaction of its own: the key's lock and
    /// look-up, its record completed with `planned`, and the effect's writes, which `writes`
    /// appends as CTEs (each preceded by `, `) given the param of the merchant's id. Each write
    /// must depend on a row of the CTE `recorded` (`… FROM recorded`), so that nothing is
    /// written unless the record was. `shapes` is the command's own (a `static`): the
    /// statement's text is composed once per attempt, so `writes` must write the same text
    /// whatever the values it binds.
    pub async fn run<E: Failure>(
        &self,
        shapes: &'static RunShapes,
        planned: &StoredResponse,
        writes: impl FnOnce(&mut Statement, Param),
    ) -> Result<Ran, E> {
        let shape = match self.attempt {
            Attempt::First => &shapes.first,
            Attempt::TakingOver => &shapes.taking_over,
        };
        self.run_statement(Statement::of_shape(shape), planned, writes)
            .await
    }

    /// [`Once::run`], with the text composed into `statement`.
    async fn run_statement<E: Failure>(
        &self,
        mut statement: Statement,
        planned: &StoredResponse,
        writes: impl FnOnce(&mut Statement, Param),
    ) -> Result<Ran, E> {
        let bound = match self.attempt {
            Attempt::First => fresh_look(&mut statement, self),
            Attempt::TakingOver => lock_and_look(&mut statement, self),
        };
        planned_answer(&mut statement, planned);
        recording(&mut statement, &bound, self.attempt);
        writes(&mut statement, bound.merchant);
        statement.push(match self.attempt {
            Attempt::First => FRESH_ANSWER,
            Attempt::TakingOver => ANSWER,
        });
        let stop_at = self
            .before_commit
            .filter(|point| crate::failpoints::configured(point));
        if let Some(point) = stop_at {
            return self.run_stopping_at(point, statement, planned).await;
        }
        match self.statements.fetch_one(statement.query()?).await {
            Ok(row) => Ok(RanRow::from_row(&row)?.into_ran(planned)),
            Err(err) if recorded_meanwhile(&err) => Ok(Ran::NotRecorded(self.look().await?)),
            Err(err) => self.broken(err),
        }
    }

    /// [`Once::run`]'s statement in a transaction that reaches the fail point `point` after
    /// the statement (when it recorded the key) and before the commit. A `return` there rolls
    /// back and fails; a panic rolls back, then goes on unwinding.
    async fn run_stopping_at<E: Failure>(
        &self,
        point: &'static str,
        mut statement: Statement,
        planned: &StoredResponse,
    ) -> Result<Ran, E> {
        let mut tx = match self.pool.begin().await {
            Ok(tx) => tx,
            Err(err) => return self.broken(err),
        };
        let row = match statement.query()?.fetch_one(&mut *tx).await {
            Ok(row) => row,
            Err(err) if recorded_meanwhile(&err) => {
                tx.rollback().await?;
                return Ok(Ran::NotRecorded(self.look().await?));
            }
            Err(err) => return self.broken(err),
        };
        let ran = RanRow::from_row(&row)?.into_ran(planned);
        if let Ran::Recorded(_) = ran {
            match std::panic::catch_unwind(|| crate::failpoints::check(point)) {
                Ok(Ok(())) => {}
                Ok(Err(error)) => {
                    tx.rollback().await?;
                    return Err(error.into());
                }
                Err(panic) => {
                    // Unlocked at once, not when the connection is next used.
                    let _ = tx.rollback().await;
                    std::panic::resume_unwind(panic);
                }
            }
        }
        tx.commit().await?;
        Ok(ran)
    }

    /// Records a definitive refusal as the key's answer, with no effect.
    /// Its text is composed each time: it depends on the command ([`Once::renders_from`]).
    pub(crate) async fn refuse<E: Failure>(&self, refusal: &StoredResponse) -> Result<Ran, E> {
        self.run_statement(Statement::new(), refusal, |_, _| {})
            .await
    }

    /// Runs an effect of several statements in one transaction with the key's record: opens it
    /// holding the key's lock, runs `effect` on its connection, records the effect's answer and
    /// commits ([`OnceTransaction::finish`]); or, when the key is held or answered for, answers
    /// what was found without running `effect`.
    pub async fn transaction<E: Failure>(
        &self,
        effect: impl AsyncFnOnce(&mut sqlx::PgConnection) -> Result<StoredResponse, E>,
    ) -> Result<Ran, E> {
        let mut tx = match self.begin::<E>().await? {
            Ok(tx) => tx,
            Err(found) => return Ok(found),
        };
        let answer = effect(tx.conn()).await;
        tx.finish(answer).await
    }

    /// Opens the transaction of an effect of several statements, holding the key's lock; or,
    /// when the key is held or answered for, what was found (with the resource a `201` is
    /// rendered from, [`Once::renders_from`]). A new key costs no look-up more than the one
    /// that locks it; a replay costs the transaction's `BEGIN` and `ROLLBACK` beside it.
    async fn begin<E: Failure>(&self) -> Result<Result<OnceTransaction<'_>, Ran>, E> {
        let mut tx = match self.pool.begin().await {
            Ok(tx) => tx,
            Err(err) => return self.broken(err).map(Err),
        };
        let row = match looking(self).query()?.fetch_one(&mut *tx).await {
            Ok(row) => row,
            Err(err) => return self.broken(err).map(Err),
        };
        let row = RanRow::from_row(&row)?;
        // No lock tried (a record answers for the key), or another request holds it.
        if row.held != Some(true) {
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
    async fn finish<E: Failure>(mut self, effect: Result<StoredResponse, E>) -> Result<Ran, E> {
        let response = match effect {
            Ok(response) => response,
            Err(error) => {
                // Rolled back, and so unlocked, at once: a dropped transaction only rolls back
                // when its connection is next used, and the refusal's statement (or a retry,
                // whose look-up may take another connection) would find the key still held
                // (409).
                let rolled_back = self.tx.rollback().await;
                let Some(refusal) = error.refusal() else {
                    return Err(error);
                };
                if let Err(err) = rolled_back {
                    return self.once.broken(err);
                }
                return self.once.refuse(&refusal).await;
            }
        };
        let mut statement = Statement::new();
        statement.push("WITH go AS (SELECT 1 AS go)");
        let bound = self.once.bind_request(&mut statement);
        planned_answer(&mut statement, &response);
        recording(&mut statement, &bound, Attempt::TakingOver);
        statement.push(" SELECT response_status FROM recorded");
        let recorded = statement.query()?.fetch_optional(&mut *self.tx).await?;
        if recorded.is_none() {
            // Another request recorded the key after this one looked (the record was made
            // between our look and our lock): ours is rolled back, theirs answers.
            if let Err(err) = self.tx.rollback().await {
                return self.once.broken(err);
            }
            return Ok(Ran::NotRecorded(self.once.look().await?));
        }
        self.tx.commit().await?;
        Ok(Ran::Recorded(response))
    }
}

impl Once {
    /// The key as it now stands: its record, and whether it was free of any lock.
    pub(crate) async fn look(&self) -> sqlx::Result<RanRow> {
        let row = self.statements.fetch_one(looking(self).query()?).await?;
        RanRow::from_row(&row)
    }
}

impl RanRow {
    /// The record found, and whether the key is this request's to execute next: the statement
    /// took its lock, or, trying none for the record it found, that record is one this request
    /// may write over ([`ExistingRecord::replaceable_by`]), which the next attempt does, lock
    /// and all ([`Once::taking_over`]).
    pub(crate) fn found(self, request: &IdempotentRequest<'_>) -> (Option<ExistingRecord>, bool) {
        let existing = self.record.map(FoundRecord::existing);
        let held = self.held.unwrap_or_else(|| {
            existing
                .as_ref()
                .is_some_and(|existing| existing.replaceable_by(request))
        });
        (existing, held)
    }

    fn into_ran(self, planned: &StoredResponse) -> Ran {
        match self.recorded {
            Some(_) => Ran::Recorded(planned.clone()),
            None => Ran::NotRecorded(self),
        }
    }
}
