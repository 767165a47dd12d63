//! The engine's promises, on a real PostgreSQL with the crate's own `schema.sql` and a table of
//! `things` as the effect: whatever the concurrency, the fault or the refusal, a key has its
//! effect at most once, and every later request gets the first answer byte for byte.

use std::path::Path;
use std::time::Duration;

use kaadxpay_embedded_pg::{Durability, EmbeddedPostgres};
use kaadxpay_idempotency::{
    fingerprint, Failure, Idempotency, IdempotencyKey, IdempotentRequest, Once, Outcome, Resource,
    Reuse, RunShapes, Scope, Statement, StoredResponse,
};
use kaadxpay_types::ids::MerchantId;
use serde_json::{json, Value};
use sqlx::{Connection, PgConnection, PgPool};
use tokio::sync::OnceCell;

/// An effect's error, as an application of the crate would define it.
#[derive(Debug, thiserror::Error)]
enum TestError {
    /// A refusal a retry would get again: kept as the key's answer (`422`).
    #[error("refused: {0}")]
    Refused(&'static str),
    #[error("the database is out of reach")]
    Unavailable,
    #[error(transparent)]
    Internal(#[from] anyhow::Error),
}

impl From<sqlx::Error> for TestError {
    fn from(err: sqlx::Error) -> Self {
        Self::Internal(err.into())
    }
}

impl Failure for TestError {
    fn refusal(&self) -> Option<StoredResponse> {
        match self {
            Self::Refused(why) => Some(StoredResponse {
                status: 422,
                location: None,
                body: json!({ "refused": why }).to_string().into_bytes(),
                resource: None,
                renders_again: false,
            }),
            _ => None,
        }
    }

    fn is_internal(&self) -> bool {
        matches!(self, Self::Internal(_))
    }

    fn unavailable() -> Self {
        Self::Unavailable
    }
}

const MAKE_THING: &str = "POST /things";
const OTHER: &str = "POST /other";

/// One cluster for the whole test binary; each test has a database of its own.
async fn cluster() -> &'static EmbeddedPostgres {
    static CLUSTER: OnceCell<EmbeddedPostgres> = OnceCell::const_new();
    CLUSTER
        .get_or_init(|| async {
            let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("../../.data")
                .join(format!("idempotency-tests-{}", std::process::id()));
            EmbeddedPostgres::start(&dir, Durability::Ephemeral)
                .expect("the embedded PostgreSQL starts")
        })
        .await
}

/// A new database holding the crate's schema and the `things` the effects make.
async fn database(name: &str) -> PgPool {
    let cluster = cluster().await;
    let mut admin = PgConnection::connect(&cluster.url("postgres"))
        .await
        .unwrap();
    // The cluster is the test binary's own: each test's database is new.
    sqlx::raw_sql(&format!("CREATE DATABASE {name}"))
        .execute(&mut admin)
        .await
        .unwrap();
    let pool = PgPool::connect(&cluster.url(name)).await.unwrap();
    sqlx::raw_sql(&format!(
        "CREATE TYPE idempotency_endpoint AS ENUM ('{MAKE_THING}', '{OTHER}'); {} \
         CREATE TABLE things (id text PRIMARY KEY, merchant_id text NOT NULL, name text NOT NULL);",
        include_str!("../schema.sql")
    ))
    .execute(&pool)
    .await
    .unwrap();
    pool
}

fn engine(pool: &PgPool) -> Idempotency {
    let day = Duration::from_secs(24 * 3600);
    Idempotency::new(pool.clone(), pool.clone(), day, Duration::from_secs(60))
}

async fn count(pool: &PgPool, table: &str) -> i64 {
    sqlx::query_scalar(&format!("SELECT count(*) FROM {table}"))
        .fetch_one(pool)
        .await
        .unwrap()
}

/// A request to make a thing named `name` under `key`.
struct Ask {
    merchant: MerchantId,
    key: IdempotencyKey,
    endpoint: &'static str,
    body: Value,
    request_hash: Vec<u8>,
}

impl Ask {
    fn new(key: &str, name: &str) -> Self {
        let body = json!({ "name": name });
        Self {
            merchant: MerchantId::from("mer_test"),
            key: IdempotencyKey::parse(key.as_bytes()).unwrap(),
            endpoint: MAKE_THING,
            request_hash: fingerprint(MAKE_THING, &body),
            body,
        }
    }

    fn request(&self) -> IdempotentRequest<'_> {
        IdempotentRequest {
            scope: Scope::Merchant(&self.merchant),
            key: &self.key,
            endpoint: self.endpoint,
            request_hash: &self.request_hash,
            request_id: "req_test",
        }
    }

    fn name(&self) -> &str {
        self.body["name"].as_str().unwrap()
    }
}

/// The thing's answer: `201` with its id and name, which a replay renders again from the row.
fn created(id: &str, name: &str) -> StoredResponse {
    StoredResponse::created("/things", "thing", id, &json!({ "id": id, "name": name }))
}

async fn render(pool: &PgPool, resource: Resource) -> Result<StoredResponse, TestError> {
    let name: String = sqlx::query_scalar("SELECT name FROM things WHERE id = $1")
        .bind(&resource.id)
        .fetch_one(pool)
        .await?;
    Ok(created(&resource.id, &name))
}

/// Makes the thing in one statement with the key's record ([`Once::run`]).
async fn make_in_one_statement(
    engine: &Idempotency,
    pool: &PgPool,
    ask: &Ask,
) -> Outcome<TestError> {
    make_named(engine, pool, ask, Named::AsAsked).await
}

/// What the statement names the thing.
#[derive(Clone, Copy)]
enum Named {
    /// The name asked.
    AsAsked,
    /// The process id of the backend that ran the statement, after it slept this many seconds
    /// in the statement.
    ByBackendAfter(f64),
}

/// [`make_in_one_statement`], the thing named as `named` says.
async fn make_named(
    engine: &Idempotency,
    pool: &PgPool,
    ask: &Ask,
    named: Named,
) -> Outcome<TestError> {
    try_make_named(engine, pool, ask, named).await.unwrap()
}

/// [`make_named`], its error given back.
async fn try_make_named(
    engine: &Idempotency,
    pool: &PgPool,
    ask: &Ask,
    named: Named,
) -> Result<Outcome<TestError>, TestError> {
    let effect = |once: Once| async move {
        let id = format!("thing_{}", uuid_like());
        let response = created(&id, ask.name());
        // One text for each way of naming the thing.
        static AS_ASKED: RunShapes = RunShapes::new();
        static BY_BACKEND: RunShapes = RunShapes::new();
        let shapes = match named {
            Named::AsAsked => &AS_ASKED,
            Named::ByBackendAfter(_) => &BY_BACKEND,
        };
        once.run::<TestError>(shapes, &response, |statement: &mut Statement, merchant| {
            let id = statement.bind(&id);
            let (name, sleep) = match named {
                Named::AsAsked => (statement.bind(ask.name()).to_string(), String::new()),
                Named::ByBackendAfter(seconds) => (
                    "pg_backend_pid()::text".to_owned(),
                    format!(", pg_sleep({})", statement.bind(seconds)),
                ),
            };
            statement.push(format_args!(
                ", new_thing AS (INSERT INTO things (id, merchant_id, name) \
                   SELECT {id}, {merchant}, {name} FROM recorded{sleep} RETURNING 1)"
            ));
        })
        .await
    };
    engine
        .execute_once(&ask.request(), effect, |resource| render(pool, resource))
        .await
}

/// Makes the thing in a transaction of several statements with the key's record
/// ([`Once::transaction`]); `then` decides how the effect ends.
async fn make_in_a_transaction(
    engine: &Idempotency,
    pool: &PgPool,
    ask: &Ask,
    then: fn() -> Result<(), TestError>,
) -> Outcome<TestError> {
    let effect = |once: Once| async move {
        once.transaction(async |conn| {
            let id = format!("thing_{}", uuid_like());
            sqlx::query("INSERT INTO things (id, merchant_id, name) VALUES ($1, $2, $3)")
                .bind(&id)
                .bind(&ask.merchant)
                .bind(ask.name())
                .execute(&mut *conn)
                .await?;
            then()?;
            Ok(created(&id, ask.name()))
        })
        .await
    };
    engine
        .execute_once(&ask.request(), effect, |resource| render(pool, resource))
        .await
        .unwrap()
}

fn uuid_like() -> String {
    uuid::Uuid::new_v4().simple().to_string()
}

fn body(outcome: &Outcome<TestError>) -> Option<&[u8]> {
    match outcome {
        Outcome::Executed(response) | Outcome::Replayed(response) => Some(&response.body),
        _ => None,
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_hundred_parallel_duplicates_make_one_thing_and_all_get_its_answer() {
    let pool = database("parallel").await;
    let engine = engine(&pool);
    let ask = Ask::new("same-key", "one");
    let outcomes =
        futures::future::join_all((0..100).map(|_| make_in_one_statement(&engine, &pool, &ask)))
            .await;

    let executed: Vec<_> = outcomes
        .iter()
        .filter(|outcome| matches!(outcome, Outcome::Executed(_)))
        .collect();
    assert_eq!(executed.len(), 1, "exactly one request executes");
    let first = body(executed[0]).unwrap();
    for outcome in &outcomes {
        match outcome {
            Outcome::Executed(_) | Outcome::InProgress => {}
            Outcome::Replayed(response) => assert_eq!(response.body, first, "byte for byte"),
            other => panic!("a duplicate got {other:?}"),
        }
    }
    assert_eq!(count(&pool, "things").await, 1);
    assert_eq!(count(&pool, "idempotency_keys").await, 1);

    // Later, from a process that never saw the answer: rendered again from the thing.
    let replayed = make_in_one_statement(&self::engine(&pool), &pool, &ask).await;
    assert!(matches!(replayed, Outcome::Replayed(_)), "{replayed:?}");
    assert_eq!(body(&replayed).unwrap(), first);
}

/// Writes `ask`'s record by hand, as another request or an older version would have left it:
/// `status`, answering `201` with `body`, made `age` (an interval) ago.
async fn write_record(
    conn: impl sqlx::PgExecutor<'_>,
    ask: &Ask,
    status: &str,
    body: &[u8],
    age: &str,
) {
    sqlx::query(
        "INSERT INTO idempotency_keys (merchant_id, key, endpoint, request_hash, status, \
           response_status, response_body, created_at) \
         VALUES ($1, $2, $3::idempotency_endpoint, $4, $5::idempotency_status, 201, $6, \
           now() - $7::interval)",
    )
    .bind(&ask.merchant)
    .bind(ask.key.as_str())
    .bind(ask.endpoint)
    .bind(&ask.request_hash)
    .bind(status)
    .bind(body)
    .bind(age)
    .execute(conn)
    .await
    .unwrap();
}

/// A first attempt expects the key to be free. A record that another request commits after
/// the attempt's statement began (here a transaction that wrote it without the key's lock and
/// commits while the attempt's insert waits on the key) fails that insert: the attempt answers
/// with the committed record, byte for byte, and keeps nothing of its own effect.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_record_committed_under_a_first_attempt_is_its_answer() {
    let pool = database("committed_under").await;
    let ask = Ask::new("under", "mine");
    let theirs = b"{\"id\":\"thing_theirs\"}".to_vec();
    let mut other = pool.begin().await.unwrap();
    write_record(&mut *other, &ask, "completed", &theirs, "0 seconds").await;

    let attempt = tokio::spawn({
        let pool = pool.clone();
        async move { make_in_one_statement(&engine(&pool), &pool, &ask).await }
    });
    until_counted(
        &pool,
        "SELECT count(*) FROM pg_stat_activity WHERE datname = $1 AND wait_event_type = 'Lock'",
        "committed_under",
        1,
    )
    .await;
    other.commit().await.unwrap();

    let outcome = attempt.await.unwrap();
    assert!(matches!(outcome, Outcome::Replayed(_)), "{outcome:?}");
    assert_eq!(body(&outcome).unwrap(), theirs);
    assert_eq!(count(&pool, "things").await, 0, "its own effect is undone");
    assert_eq!(count(&pool, "idempotency_keys").await, 1);
}

/// A first attempt writes no record over one it finds: an expired record, or one that a
/// two-phase request of the same body failed, sends the engine to a second attempt, which
/// takes the key over and executes once.
#[tokio::test]
async fn an_expired_or_failed_record_is_taken_over_by_the_second_attempt() {
    let pool = database("taken_over").await;
    let engine = engine(&pool);
    for (key, status, age) in [
        ("expired", "completed", "2 days"),
        ("failed", "failed", "1 minute"),
    ] {
        let ask = Ask::new(key, "again");
        write_record(&pool, &ask, status, b"the old answer", age).await;

        let outcome = make_in_one_statement(&engine, &pool, &ask).await;
        assert!(
            matches!(outcome, Outcome::Executed(_)),
            "{key}: {outcome:?}"
        );
        let (status, fresh): (String, bool) = sqlx::query_as(
            "SELECT status::text, created_at > now() - interval '1 minute' \
             FROM idempotency_keys WHERE key = $1",
        )
        .bind(key)
        .fetch_one(&pool)
        .await
        .unwrap();
        assert_eq!(status, "completed", "{key}");
        if key == "expired" {
            assert!(fresh, "an expired record is made anew");
        }
    }
    assert_eq!(count(&pool, "things").await, 2, "each executed once");
    assert_eq!(count(&pool, "idempotency_keys").await, 2);
}

#[tokio::test]
async fn a_key_reused_for_another_body_or_endpoint_is_refused_and_makes_nothing() {
    let pool = database("reuse").await;
    let engine = engine(&pool);
    let first = make_in_one_statement(&engine, &pool, &Ask::new("k", "first")).await;
    assert!(matches!(first, Outcome::Executed(_)));

    let other_body = make_in_one_statement(&engine, &pool, &Ask::new("k", "second")).await;
    assert!(
        matches!(other_body, Outcome::KeyReused(Reuse::Body)),
        "{other_body:?}"
    );
    let mut other_endpoint = Ask::new("k", "first");
    other_endpoint.endpoint = OTHER;
    let other_endpoint = make_in_one_statement(&engine, &pool, &other_endpoint).await;
    assert!(
        matches!(other_endpoint, Outcome::KeyReused(Reuse::Endpoint)),
        "{other_endpoint:?}"
    );
    assert_eq!(count(&pool, "things").await, 1);
}

#[tokio::test]
async fn a_refusal_is_the_keys_answer_for_good_and_its_writes_are_undone() {
    let pool = database("refusal").await;
    let engine = engine(&pool);
    let ask = Ask::new("refused", "nope");
    let refused = make_in_a_transaction(&engine, &pool, &ask, || {
        Err(TestError::Refused("no such thing"))
    })
    .await;
    let Outcome::Executed(answer) = &refused else {
        panic!("a refusal is executed and kept: {refused:?}")
    };
    assert_eq!(answer.status, 422);
    assert_eq!(
        count(&pool, "things").await,
        0,
        "the refused effect's insert is undone"
    );

    // A retry that would now succeed still gets the refusal: the key has answered.
    let again = make_in_a_transaction(&engine, &pool, &ask, || Ok(())).await;
    assert!(matches!(again, Outcome::Replayed(_)), "{again:?}");
    assert_eq!(body(&again), body(&refused));
    assert_eq!(count(&pool, "things").await, 0);
}

#[tokio::test]
async fn a_fault_keeps_nothing_and_the_retry_executes_once() {
    let pool = database("fault").await;
    let engine = engine(&pool);
    let ask = Ask::new("faulty", "later");
    let interrupted = make_in_a_transaction(&engine, &pool, &ask, || {
        Err(anyhow::anyhow!("the disk is on fire").into())
    })
    .await;
    assert!(
        matches!(interrupted, Outcome::Interrupted(TestError::Internal(_))),
        "{interrupted:?}"
    );
    assert_eq!(count(&pool, "things").await, 0);
    assert_eq!(
        count(&pool, "idempotency_keys").await,
        0,
        "no record, no effect"
    );

    let retried = make_in_a_transaction(&engine, &pool, &ask, || Ok(())).await;
    assert!(matches!(retried, Outcome::Executed(_)), "{retried:?}");
    let replayed = make_in_a_transaction(&engine, &pool, &ask, || Ok(())).await;
    assert!(matches!(replayed, Outcome::Replayed(_)), "{replayed:?}");
    assert_eq!(count(&pool, "things").await, 1);
}

/// The backend that made the thing an executed outcome answers with ([`Named::ByBackendAfter`]).
async fn backend_that_made(pool: &PgPool, outcome: &Outcome<TestError>) -> String {
    let Outcome::Executed(response) = outcome else {
        panic!("expected an execution, got {outcome:?}");
    };
    let answer: Value = serde_json::from_slice(&response.body).unwrap();
    sqlx::query_scalar("SELECT name FROM things WHERE id = $1")
        .bind(answer["id"].as_str().unwrap())
        .fetch_one(pool)
        .await
        .unwrap()
}

/// The one-commit path's statements run on connections taken back without a round trip: one
/// whose statement ran to its end is lent again; one whose request was dropped half-way is
/// closed instead (what it left on the wire is never read by another request), and its place
/// is free for a new connection.
#[tokio::test]
async fn a_connection_is_lent_again_unless_its_statement_was_cancelled_half_way() {
    let pool = database("cancelled").await;
    // One connection at most, so that a connection kept by a cancelled request would be seen.
    let engine = engine(&one_connection(&pool, Duration::from_secs(10)).await);
    let instantly = Named::ByBackendAfter(0.0);

    let first = make_named(&engine, &pool, &Ask::new("first", "a"), instantly).await;
    let second = make_named(&engine, &pool, &Ask::new("second", "b"), instantly).await;
    let lent_first = backend_that_made(&pool, &first).await;
    assert_eq!(
        backend_that_made(&pool, &second).await,
        lent_first,
        "a connection given back is lent again"
    );

    let cancelled = tokio::time::timeout(
        Duration::from_millis(300),
        make_named(
            &engine,
            &pool,
            &Ask::new("cancelled", "c"),
            Named::ByBackendAfter(30.0),
        ),
    )
    .await;
    assert!(cancelled.is_err(), "the request was dropped half-way");

    let after = make_named(&engine, &pool, &Ask::new("after", "d"), instantly).await;
    assert_ne!(
        backend_that_made(&pool, &after).await,
        lent_first,
        "the cancelled statement's connection was closed, not lent again"
    );
    // Its backend, still sleeping for nobody, is stopped.
    sqlx::query("SELECT pg_terminate_backend($1::int)")
        .bind(&lent_first)
        .execute(&pool)
        .await
        .unwrap();
}

/// A pool of at most one connection, beside `pool`, whose callers wait `wait` for it.
async fn one_connection(pool: &PgPool, wait: Duration) -> PgPool {
    sqlx::postgres::PgPoolOptions::new()
        .max_connections(1)
        .acquire_timeout(wait)
        .connect_with((*pool.connect_options()).clone())
        .await
        .unwrap()
}

/// Waits until `count` (a `count(*)` of one parameter, bound to `value`) reads `expected`.
async fn until_counted(pool: &PgPool, count: &str, value: &str, expected: i64) {
    loop {
        let counted: i64 = sqlx::query_scalar(count)
            .bind(value)
            .fetch_one(pool)
            .await
            .unwrap();
        if counted == expected {
            return;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

/// The statement connections are as many as the engine's pool, and a request that gets none
/// within its wait is interrupted as by sqlx's pool (`PoolTimedOut`, which the server answers
/// `503`), keeping nothing: its retry, once a connection is free, executes it once.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_request_that_gets_no_statement_connection_keeps_nothing_and_its_retry_executes() {
    let pool = database("no_connection").await;
    let engine = engine(&one_connection(&pool, Duration::from_millis(300)).await);
    let holding = tokio::spawn({
        let (engine, pool) = (engine.clone(), pool.clone());
        async move {
            let ask = Ask::new("holding", "a");
            make_named(&engine, &pool, &ask, Named::ByBackendAfter(2.0)).await
        }
    });
    // This test's database alone: other tests sleep in statements of their own.
    let sleeping = "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() \
        AND query LIKE $1 AND state = 'active' AND pid <> pg_backend_pid()";
    until_counted(&pool, sleeping, "%pg_sleep%", 1).await;

    let waiting = Ask::new("waiting", "b");
    let refused = try_make_named(&engine, &pool, &waiting, Named::AsAsked).await;
    let Ok(Outcome::Interrupted(TestError::Internal(error))) = refused else {
        panic!("expected the pool's time-out, got {refused:?}");
    };
    assert!(
        matches!(
            error.downcast_ref::<sqlx::Error>(),
            Some(sqlx::Error::PoolTimedOut)
        ),
        "{error:?}"
    );
    assert_eq!(
        count(&pool, "idempotency_keys").await,
        0,
        "nothing kept (the holder's statement has not committed yet)"
    );

    assert!(matches!(holding.await.unwrap(), Outcome::Executed(_)));
    let retried = make_named(&engine, &pool, &waiting, Named::AsAsked).await;
    assert!(matches!(retried, Outcome::Executed(_)), "{retried:?}");
    assert_eq!(count(&pool, "things").await, 2);
}

/// A connection whose backend went away while it was idle (as a failover takes them all) is
/// found out by the next statement, which the engine runs again once on a new connection.
#[tokio::test]
async fn a_statement_on_a_connection_that_died_idle_runs_again_on_a_new_one() {
    let pool = database("died_idle").await;
    let engine = engine(&pool);
    let instantly = Named::ByBackendAfter(0.0);
    let first = make_named(&engine, &pool, &Ask::new("first", "a"), instantly).await;
    let dead = backend_that_made(&pool, &first).await;
    let terminated: bool = sqlx::query_scalar("SELECT pg_terminate_backend($1::int)")
        .bind(&dead)
        .fetch_one(&pool)
        .await
        .unwrap();
    assert!(terminated);
    // Terminating is a signal: the backend is gone once it no longer shows.
    let left = "SELECT count(*) FROM pg_stat_activity WHERE pid = $1::int";
    until_counted(&pool, left, &dead, 0).await;

    let second = make_named(&engine, &pool, &Ask::new("second", "b"), instantly).await;
    assert_ne!(backend_that_made(&pool, &second).await, dead);
    assert_eq!(count(&pool, "things").await, 2);
}

/// The two-phase path (the crate's default feature `two-phase`).
#[cfg(feature = "two-phase")]
mod two_phase {
    use kaadxpay_idempotency::Effected;

    use super::*;

    /// The two-phase path: the key is claimed in its own commit, and the effect completes the
    /// record in its statement with [`kaadxpay_idempotency::Lease::completing`].
    #[tokio::test]
    async fn a_claimed_key_is_completed_in_the_effects_own_statement() {
        let pool = database("two_phase").await;
        let engine = engine(&pool);
        let ask = Ask::new("claimed", "leased");
        let make = |lease: kaadxpay_idempotency::Lease| {
            let pool = pool.clone();
            let name = ask.name().to_owned();
            async move {
                let id = format!("thing_{}", uuid_like());
                let response = created(&id, &name).recorded_verbatim();
                let mut statement = Statement::new();
                statement.push("WITH ");
                lease.completing(&mut statement, &response);
                let id = statement.bind(&id);
                let name = statement.bind(&name);
                statement.push(format_args!(
                    " INSERT INTO things (id, merchant_id, name) \
                      SELECT {id}, 'mer_test', {name} FROM completed"
                ));
                let made = statement.query()?.execute(&pool).await?.rows_affected();
                Ok::<_, TestError>(if made == 1 {
                    Effected::Completed(response)
                } else {
                    Effected::LeaseLost
                })
            }
        };
        let first = engine.execute(&ask.request(), make).await.unwrap();
        assert!(matches!(first, Outcome::Executed(_)), "{first:?}");
        let second = engine.execute(&ask.request(), make).await.unwrap();
        assert!(matches!(second, Outcome::Replayed(_)), "{second:?}");
        assert_eq!(body(&second), body(&first));
        assert_eq!(count(&pool, "things").await, 1);
    }

    /// A request abandoned after its claim (its client went away) frees the key at once: the
    /// claim's guard marks the record failed, and the retry takes it over and executes.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn an_abandoned_claim_is_marked_failed_and_the_retry_takes_it_over() {
        let pool = database("abandoned").await;
        let engine = engine(&pool);
        let ask = Ask::new("abandoned", "again");
        let stuck = {
            let (engine, pool) = (engine.clone(), pool.clone());
            let ask = Ask::new("abandoned", "again");
            tokio::spawn(async move {
                engine
                    .execute(&ask.request(), |_lease| async move {
                        // The effect waits on the database until the request is dropped.
                        sqlx::query("SELECT pg_sleep(60)").execute(&pool).await?;
                        Ok::<_, TestError>(Effected::LeaseLost)
                    })
                    .await
            })
        };
        let status = || async {
            sqlx::query_scalar::<_, String>("SELECT status::text FROM idempotency_keys")
                .fetch_optional(&pool)
                .await
                .unwrap()
        };
        while status().await.as_deref() != Some("in_progress") {
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        stuck.abort();
        let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
        while status().await.as_deref() != Some("failed") {
            assert!(
                tokio::time::Instant::now() < deadline,
                "the record was not freed"
            );
            tokio::time::sleep(Duration::from_millis(20)).await;
        }

        let retried = make_in_a_transaction(&engine, &pool, &ask, || Ok(())).await;
        assert!(matches!(retried, Outcome::Executed(_)), "{retried:?}");
        assert_eq!(count(&pool, "things").await, 1);
    }
}
