//! Overload and outages fail fast (API.md §1): a request that cannot get a database connection
//! within the acquire timeout, or that the process sheds at the door, is answered `503
//! service_unavailable` with `Retry-After` instead of queueing, nothing it did is kept so the
//! retry executes, and `/readyz` follows the database without a restart. Each test runs a real
//! `kaadxpay` process, held in place with fail points: `idempotency.in_transaction` holds a
//! request inside its one transaction, with its connection and its key's lock.

use crate::common;

use std::time::{Duration, Instant};

use reqwest::Response;
use serde_json::Value;

use common::{count, database_with_merchant, error_code, post_order, ServerProcess};

async fn assert_unavailable(response: Response) {
    assert_eq!(response.status(), 503);
    assert!(
        response.headers().contains_key("retry-after"),
        "a 503 says when to retry"
    );
    assert_eq!(response.headers()["kaadxpay-should-retry"], "true");
    let body: Value = response.json().await.unwrap();
    assert_eq!(error_code(&body), "service_unavailable");
}

/// The key's live status, as `GET /v1/idempotency-keys/{key}` shows it (read here from the
/// database, past the server's admission control).
async fn key_status(
    pool: &sqlx::PgPool,
    merchant: &common::TestMerchant,
    key: &str,
) -> Option<String> {
    let day = std::time::Duration::from_secs(24 * 3600);
    let engine = server::idempotency::Idempotency::new(pool.clone(), pool.clone(), day, day);
    server::idempotency::record::find(&engine, &merchant.id, key)
        .await
        .unwrap()
        .map(|record| record.status)
}

#[tokio::test]
async fn a_request_that_gets_no_connection_is_answered_503_and_keeps_nothing() {
    let (db_url, pool, merchant) = database_with_merchant("Overload").await;
    // One connection, two requests admitted: `a` holds the only connection inside its
    // transaction for five seconds; `b` cannot get one.
    let server = ServerProcess::start(
        &db_url,
        &[
            ("KAADXPAY_DB_POOL_SIZE", "1"),
            ("KAADXPAY_MAX_IN_FLIGHT", "2"),
            ("KAADXPAY_DB_ACQUIRE_TIMEOUT", "300ms"),
            ("FAILPOINTS", "idempotency.in_transaction=1*return(5000)"),
        ],
    )
    .await;
    let a = tokio::spawn({
        let (base_url, merchant) = (server.base_url.clone(), merchant.clone());
        async move { post_order(&base_url, &merchant, "a").await }
    });
    common::eventually(Duration::from_secs(3), "a is executing", || async {
        key_status(&pool, &merchant, "a").await.as_deref() == Some("in_progress")
    })
    .await;
    let started = Instant::now();
    assert_unavailable(post_order(&server.base_url, &merchant, "b").await).await;
    assert!(
        started.elapsed() < Duration::from_millis(2500),
        "b failed fast instead of waiting for a's connection ({:?})",
        started.elapsed()
    );
    assert_eq!(
        key_status(&pool, &merchant, "b").await,
        None,
        "b kept nothing, while a still holds the pool"
    );
    assert_eq!(
        key_status(&pool, &merchant, "a").await.as_deref(),
        Some("in_progress")
    );

    assert_eq!(a.await.unwrap().status(), 201);
    let retried = post_order(&server.base_url, &merchant, "b").await;
    assert_eq!(retried.status(), 201, "the retry executes");
    assert_eq!(count(&pool, "orders").await, 2);
}

/// A `kaadxpay` process with `env`, whose one request `held` is in and stays three seconds
/// inside its transaction; returns the database (for its check at the test's end), the process,
/// a pool on the database, the merchant and `held`.
async fn a_request_held_in(
    env: &[(&str, &str)],
) -> (
    common::TestDatabase,
    ServerProcess,
    sqlx::PgPool,
    common::TestMerchant,
    tokio::task::JoinHandle<Response>,
) {
    let (db_url, pool, merchant) = database_with_merchant("Overload").await;
    let mut env = env.to_vec();
    env.push(("FAILPOINTS", "idempotency.in_transaction=1*return(3000)"));
    let server = ServerProcess::start(&db_url, &env).await;
    let held = tokio::spawn({
        let (base_url, merchant) = (server.base_url.clone(), merchant.clone());
        async move { post_order(&base_url, &merchant, "held").await }
    });
    common::eventually(
        Duration::from_secs(3),
        "the first request is in",
        || async { key_status(&pool, &merchant, "held").await.is_some() },
    )
    .await;
    (db_url, server, pool, merchant, held)
}

#[tokio::test]
async fn requests_over_the_in_flight_limit_are_shed_at_once_and_operations_still_answer() {
    let (_db, server, pool, merchant, held) =
        a_request_held_in(&[("KAADXPAY_MAX_IN_FLIGHT", "1")]).await;

    assert_unavailable(post_order(&server.base_url, &merchant, "shed").await).await;
    assert_eq!(
        key_status(&pool, &merchant, "shed").await,
        None,
        "nothing recorded"
    );
    for path in ["/healthz", "/readyz", "/metrics"] {
        let response = reqwest::get(format!("{}{path}", server.base_url))
            .await
            .unwrap();
        assert_eq!(response.status(), 200, "{path} is never shed");
    }

    assert_eq!(held.await.unwrap().status(), 201);
    let retried = post_order(&server.base_url, &merchant, "shed").await;
    assert_eq!(retried.status(), 201);
}

#[tokio::test]
async fn the_line_for_a_turn_is_waited_in_for_its_own_short_time_not_the_acquire_timeout() {
    // One turn, a line of one; `held` keeps the turn three seconds, far less than the acquire
    // timeout and far more than the line's wait.
    let (_db, server, _pool, merchant, held) = a_request_held_in(&[
        ("KAADXPAY_MAX_IN_FLIGHT", "1"),
        ("KAADXPAY_MAX_WAITING", "1"),
        ("KAADXPAY_ADMISSION_WAIT", "50ms"),
        ("KAADXPAY_DB_ACQUIRE_TIMEOUT", "10s"),
    ])
    .await;

    assert_unavailable(post_order(&server.base_url, &merchant, "in-line").await).await;
    assert!(
        !held.is_finished(),
        "the request in line was answered while the turn was still taken"
    );
    assert_eq!(held.await.unwrap().status(), 201);
}

#[tokio::test]
async fn a_request_not_served_within_the_request_timeout_is_answered_503_and_its_retry_executes_once(
) {
    let (db_url, pool, merchant) = database_with_merchant("Overload").await;
    let server = ServerProcess::start(
        &db_url,
        &[
            ("KAADXPAY_REQUEST_TIMEOUT", "2s"),
            ("KAADXPAY_BODY_READ_TIMEOUT", "1s"),
        ],
    )
    .await;
    // The order's INSERT waits for this lock as long as the test holds it.
    let mut lock = pool.begin().await.unwrap();
    sqlx::query("LOCK TABLE orders IN ACCESS EXCLUSIVE MODE")
        .execute(&mut *lock)
        .await
        .unwrap();
    let post = || {
        reqwest::Client::builder()
            .timeout(Duration::from_secs(10))
            .build()
            .unwrap()
            .post(format!("{}/v1/orders", server.base_url))
            .bearer_auth(&merchant.api_key)
            .header("idempotency-key", "outlived")
            .body(r#"{"amount": 700, "currency": "GBP"}"#)
            .send()
    };
    let answer = post()
        .await
        .expect("an answer within 10 s, not a request held forever");
    assert_unavailable(answer).await;
    lock.rollback().await.unwrap();

    let mut retried = post().await.unwrap();
    while retried.status() == 409 {
        tokio::time::sleep(Duration::from_millis(100)).await;
        retried = post().await.unwrap();
    }
    assert_eq!(retried.status(), 201, "the retry executes");
    assert_eq!(count(&pool, "orders").await, 1);
}

#[tokio::test]
async fn readiness_follows_the_database_without_a_restart() {
    let (db_url, pool, _) = database_with_merchant("Overload").await;
    let server = ServerProcess::start(&db_url, &[("KAADXPAY_DB_ACQUIRE_TIMEOUT", "300ms")]).await;
    let readyz = || async {
        reqwest::get(format!("{}/readyz", server.base_url))
            .await
            .unwrap()
            .status()
    };
    assert_eq!(readyz().await, 200);

    // The database stops taking connections, and the open ones are cut.
    let database: String = sqlx::query_scalar("SELECT current_database()")
        .fetch_one(&pool)
        .await
        .unwrap();
    pool.close().await;
    let admin = server::platform::db::connect(
        &common::with_database(&db_url, "postgres"),
        1,
        Duration::from_secs(5),
    )
    .await
    .unwrap();
    let set_connections = |allowed: bool| {
        let (admin, database) = (admin.clone(), database.clone());
        async move {
            sqlx::query(&format!(
                "ALTER DATABASE {database} WITH ALLOW_CONNECTIONS {allowed}"
            ))
            .execute(&admin)
            .await
            .unwrap();
            if !allowed {
                sqlx::query(
                    "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1",
                )
                .bind(&database)
                .execute(&admin)
                .await
                .unwrap();
            }
        }
    };
    set_connections(false).await;
    common::eventually(Duration::from_secs(10), "readyz answers 503", || async {
        readyz().await == 503
    })
    .await;

    set_connections(true).await;
    common::eventually(
        Duration::from_secs(10),
        "readyz answers 200 again",
        || async { readyz().await == 200 },
    )
    .await;
}
