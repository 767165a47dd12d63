//! Rows of API.md §2 that need a request to stop half way, proven on a real `kaadxpay` process
//! configured through `FAILPOINTS`: in flight (409), a transient failure, and a `SIGKILL`
//! mid-request, after which nothing is kept, nothing needs sweeping and the retry executes once.
//! `idempotency.in_transaction=return(ms)` pauses a request inside its transaction, with its
//! key's lock held; `order.before_commit` is reached with the order written and its key held,
//! before the commit (API.md §10).

use crate::common;

use std::time::Duration;

use reqwest::Client;
use serde_json::Value;
use tokio::io::AsyncWriteExt;

use common::{
    count, database_with_merchant, error_code, post_order, try_post_order, ServerProcess,
    TestMerchant,
};

async fn key_record(base_url: &str, merchant: &TestMerchant, key: &str) -> Value {
    Client::new()
        .get(format!("{base_url}/v1/idempotency-keys/{key}"))
        .bearer_auth(&merchant.api_key)
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap()
}

/// A `kaadxpay` process with `failpoints` on a database of its own, and an order posted with
/// `key` to it in the background (its answer's status), given half a second to reach the point.
/// (The database comes along for its check at the test's end.)
async fn an_order_held_at(
    failpoints: &str,
    key: &'static str,
) -> (
    common::TestDatabase,
    sqlx::PgPool,
    TestMerchant,
    ServerProcess,
    tokio::task::JoinHandle<reqwest::StatusCode>,
) {
    let (db_url, pool, merchant) = database_with_merchant("Crash Test").await;
    let server = ServerProcess::start(&db_url, &[("FAILPOINTS", failpoints)]).await;
    let first = tokio::spawn({
        let (base_url, merchant) = (server.base_url.clone(), merchant.clone());
        async move { post_order(&base_url, &merchant, key).await.status() }
    });
    tokio::time::sleep(Duration::from_millis(500)).await;
    (db_url, pool, merchant, server, first)
}

#[tokio::test]
async fn a_request_in_flight_answers_409_then_replays() {
    let (_db, pool, merchant, server, first) =
        an_order_held_at("idempotency.in_transaction=1*return(1500)", "slow").await;

    let asked = std::time::Instant::now();
    let conflict = post_order(&server.base_url, &merchant, "slow").await;
    assert_eq!(conflict.status(), 409);
    assert!(
        asked.elapsed() < Duration::from_millis(900),
        "the duplicate did not wait behind the first ({:?})",
        asked.elapsed()
    );
    assert_eq!(conflict.headers()["retry-after"], "2");
    assert_eq!(conflict.headers()["idempotency-key-status"], "in_progress");
    assert_eq!(conflict.headers()["kaadxpay-should-retry"], "true");
    assert_eq!(
        error_code(&conflict.json().await.unwrap()),
        "idempotency_request_in_progress"
    );
    assert_eq!(
        key_record(&server.base_url, &merchant, "slow").await["status"],
        "in_progress"
    );

    assert_eq!(first.await.unwrap(), 201);
    let replay = post_order(&server.base_url, &merchant, "slow").await;
    assert_eq!(replay.headers()["idempotent-replayed"], "true");
    assert_eq!(count(&pool, "orders").await, 1);
}

#[tokio::test]
async fn order_before_commit_waits_with_the_order_written_and_its_key_held() {
    let (_db, pool, merchant, server, first) =
        an_order_held_at("order.before_commit=1*sleep(2000)", "held").await;

    let duplicate = post_order(&server.base_url, &merchant, "held").await;
    assert_eq!(duplicate.status(), 409, "the key is held while it waits");
    assert_eq!(
        key_record(&server.base_url, &merchant, "held").await["status"],
        "in_progress"
    );
    assert_eq!(count(&pool, "orders").await, 0, "not committed yet");

    assert_eq!(first.await.unwrap(), 201);
    let replay = post_order(&server.base_url, &merchant, "held").await;
    assert_eq!(replay.headers()["idempotent-replayed"], "true");
    assert_eq!(count(&pool, "orders").await, 1);
}

/// What a person reads about a failure on our side: a sentence, never the internal cause.
fn assert_people_sentence(text: &Value) {
    let text = text.as_str().expect("a message");
    assert!(text.ends_with('.'), "a sentence: {text}");
    for internal in [
        "fail point",
        "before_commit",
        "sqlx",
        "panicked",
        "error returned from database",
    ] {
        assert!(!text.contains(internal), "{internal} leaked: {text}");
    }
}

#[tokio::test]
async fn a_transient_failure_keeps_nothing_and_a_retry_executes_again() {
    let (db_url, pool, merchant) = database_with_merchant("Crash Test").await;
    let server =
        ServerProcess::start(&db_url, &[("FAILPOINTS", "order.before_commit=1*return")]).await;

    let failed = post_order(&server.base_url, &merchant, "flaky").await;
    assert_eq!(failed.status(), 500);
    assert_eq!(failed.headers()["kaadxpay-should-retry"], "true");
    let failed_body: Value = failed.json().await.unwrap();
    assert_eq!(
        count(&pool, "orders").await,
        0,
        "the effect was rolled back"
    );
    assert_no_record(&server.base_url, &merchant, "flaky").await;
    assert_people_sentence(&failed_body["error"]["message"]);

    let retried = post_order(&server.base_url, &merchant, "flaky").await;
    assert_eq!(retried.status(), 201);
    assert_eq!(retried.headers()["idempotency-key-status"], "new");
    assert_eq!(count(&pool, "orders").await, 1);
    assert_eq!(
        key_record(&server.base_url, &merchant, "flaky").await["attempts"],
        1
    );
}

/// The key has no record, completed or otherwise, and nothing executes it.
async fn assert_no_record(base_url: &str, merchant: &TestMerchant, key: &str) {
    let record = key_record(base_url, merchant, key).await;
    assert_eq!(error_code(&record), "resource_missing", "{record}");
}

#[tokio::test]
async fn a_process_killed_mid_request_loses_nothing_and_doubles_nothing() {
    let (db_url, pool, merchant) = database_with_merchant("Crash Test").await;
    let doomed = ServerProcess::start(
        &db_url,
        &[("FAILPOINTS", "idempotency.in_transaction=return(60000)")],
    )
    .await;
    let hanging = tokio::spawn({
        let (base_url, merchant) = (doomed.base_url.clone(), merchant.clone());
        async move { try_post_order(&base_url, &merchant, "crash").await }
    });
    common::eventually(
        Duration::from_secs(10),
        "the request is executing",
        || async {
            key_record(&doomed.base_url, &merchant, "crash").await["status"] == "in_progress"
        },
    )
    .await;
    doomed.kill();
    assert!(
        hanging.await.unwrap().is_err(),
        "the killed process never answered"
    );
    assert_eq!(
        count(&pool, "orders").await,
        0,
        "the uncommitted order died with the process"
    );

    // Its backend notices the vanished client within a second and rolls back, lock and all:
    // until then a retry is told the key is in progress, never that it failed.
    let restarted = ServerProcess::start(&db_url, &[]).await;
    let mut created = post_order(&restarted.base_url, &merchant, "crash").await;
    for _ in 0..50 {
        if created.status() != 409 {
            break;
        }
        assert_eq!(created.headers()["retry-after"], "2");
        tokio::time::sleep(Duration::from_millis(100)).await;
        created = post_order(&restarted.base_url, &merchant, "crash").await;
    }
    assert_eq!(created.status(), 201);
    assert_eq!(created.headers()["idempotency-key-status"], "new");
    assert_eq!(
        server::idempotency::maintenance::sweep(pool.clone())
            .await
            .unwrap(),
        0,
        "nothing to sweep"
    );
    let replay = post_order(&restarted.base_url, &merchant, "crash").await;
    assert_eq!(replay.headers()["idempotent-replayed"], "true");
    assert_eq!(count(&pool, "orders").await, 1);
    assert_eq!(
        count(&pool, "idempotency_keys WHERE status = 'completed'").await,
        1
    );
}

#[tokio::test]
async fn a_client_that_gives_up_frees_its_key_at_once() {
    let (db_url, pool, merchant) = database_with_merchant("Crash Test").await;
    let server = ServerProcess::start(
        &db_url,
        &[("FAILPOINTS", "idempotency.in_transaction=1*return(3000)")],
    )
    .await;
    // A client that sends its request and hangs up while it is executing. (Over a raw socket,
    // so the hang-up is sent at once: a client library may close its connection later, and a
    // request whose client hung up before the server read it may be served whole, since HTTP/1
    // lets a client half-close.)
    let body = r#"{"amount": 700, "currency": "GBP"}"#;
    let mut impatient =
        tokio::net::TcpStream::connect(server.base_url.trim_start_matches("http://"))
            .await
            .unwrap();
    let request = format!(
        "POST /v1/orders HTTP/1.1\r\nHost: kaadxpay\r\nAuthorization: Bearer {}\r\n\
         Idempotency-Key: impatient\r\nContent-Type: application/json\r\n\
         Content-Length: {}\r\n\r\n{body}",
        merchant.api_key,
        body.len()
    );
    impatient.write_all(request.as_bytes()).await.unwrap();
    common::eventually(
        Duration::from_secs(10),
        "the request is executing",
        || async {
            key_record(&server.base_url, &merchant, "impatient").await["status"] == "in_progress"
        },
    )
    .await;
    drop(impatient);
    // Its one statement either commits (the retry replays it) or leaves nothing (the retry
    // executes): the key is never left in progress for a lease, nor failed.
    common::eventually(
        Duration::from_secs(10),
        "the abandoned request's key is no longer in progress",
        || async {
            key_record(&server.base_url, &merchant, "impatient").await["status"] != "in_progress"
        },
    )
    .await;

    let retried = post_order(&server.base_url, &merchant, "impatient").await;
    assert_eq!(retried.status(), 201);
    assert_eq!(count(&pool, "orders").await, 1);
}

#[tokio::test]
async fn a_panicking_handler_answers_500_and_leaves_its_key_free() {
    let (db_url, pool, merchant) = database_with_merchant("Crash Test").await;
    let server =
        ServerProcess::start(&db_url, &[("FAILPOINTS", "order.before_commit=1*panic")]).await;

    let crashed = try_post_order(&server.base_url, &merchant, "bug")
        .await
        .expect("an answer, not a dropped connection");
    assert_eq!(crashed.status(), 500);
    let body: Value = crashed.json().await.unwrap();
    assert_eq!(error_code(&body), "internal_error");
    assert_people_sentence(&body["error"]["message"]);
    assert_no_record(&server.base_url, &merchant, "bug").await;
    assert_eq!(
        count(&pool, "orders").await,
        0,
        "the effect was rolled back"
    );

    let retried = post_order(&server.base_url, &merchant, "bug").await;
    assert_eq!(retried.status(), 201, "the retry executes");
    assert_eq!(count(&pool, "orders").await, 1);
}
