//! The request log (API.md §12): every authenticated `/v1` request is recorded off the request's
//! path with its verdict and fields, secrets and IBANs never reach the table, a merchant sees only
//! its own requests, a full buffer drops and counts instead of delaying anyone, and purge drops
//! whole days.

use crate::common;

use std::io::Write;
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

use axum::http::Method;
use bytes::Bytes;
use chrono::{DateTime, Days, Utc};
use futures::future::join_all;
use kaadxpay_types::Verdict;
use serde_json::{json, Value};
use server::request_log::{writer, Entry};
use sqlx::{Connection, PgConnection};
use tokio::sync::mpsc;

use common::*;

const ORDER: &str = r#"{"amount": 1000, "currency": "EUR"}"#;

/// Waits until `sql_from` counts `expected` rows.
async fn wait_for_rows(app: &TestApp, sql_from: &str, expected: i64) {
    let deadline = tokio::time::Instant::now() + Duration::from_secs(15);
    loop {
        let rows = app.count(sql_from).await;
        if rows == expected {
            return;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "{sql_from}: {rows} rows, expected {expected}"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

async fn requests(app: &TestApp, merchant: &TestMerchant, query: &str) -> Vec<Value> {
    let response = app
        .get_as(merchant, &format!("/v1/requests?limit=100&{query}"))
        .await;
    assert_eq!(response.status(), 200, "GET /v1/requests?{query}");
    json(response).await["data"].as_array().unwrap().clone()
}

async fn post_order_with(
    app: &TestApp,
    key: &str,
    body: &str,
    client_request_id: &str,
) -> reqwest::Response {
    app.client
        .post(format!("{}/v1/orders", app.base_url))
        .bearer_auth(&app.merchant.api_key)
        .header("idempotency-key", key)
        .header("x-request-id", client_request_id)
        .body(body.to_owned())
        .send()
        .await
        .unwrap()
}

fn request_id(response: &reqwest::Response) -> String {
    response.headers()["x-request-id"]
        .to_str()
        .unwrap()
        .to_owned()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_verdict_is_logged_with_its_fields() {
    let app = spawn_app().await;
    let new = post_order_with(&app, "k1", ORDER, "client-1").await;
    assert_eq!(new.status(), 201);
    let new_id = request_id(&new);
    assert_ne!(new_id, "client-1", "the request id is the server's own");
    let order = json(new).await;
    for _ in 0..3 {
        assert_eq!(
            post_order_with(&app, "k1", ORDER, "client-2")
                .await
                .status(),
            201
        );
    }
    let other_body = r#"{"amount": 2000, "currency": "EUR"}"#;
    assert_eq!(
        post_order_with(&app, "k1", other_body, "client-3")
            .await
            .status(),
        422
    );
    // A key in progress: the key's lock is held (as a request executing with it holds it), so
    // a request with it is answered 409; once the lock is gone, the key executes.
    let mut executing = PgConnection::connect(&app.db_url).await.unwrap();
    let lock =
        server::idempotency::lock_key(server::idempotency::Scope::Merchant(&app.merchant.id), "k2");
    sqlx::query("SELECT pg_advisory_lock($1)")
        .bind(lock)
        .execute(&mut executing)
        .await
        .unwrap();
    assert_eq!(post_order_with(&app, "k2", ORDER, "c").await.status(), 409);
    // Released before the next request: a closed connection's backend lets go of its locks
    // only when it has finished exiting, which a busy machine may not have done yet.
    sqlx::query("SELECT pg_advisory_unlock($1)")
        .bind(lock)
        .execute(&mut executing)
        .await
        .unwrap();
    executing.close().await.unwrap();
    assert_eq!(post_order_with(&app, "k2", ORDER, "d").await.status(), 201);
    let balance = app.get("/v1/balance").await;
    assert_eq!(balance.status(), 200);
    let balance_id = request_id(&balance);
    // Refused before authentication: not logged.
    let anonymous = app.get_without_key("/v1/balance").await;
    assert_eq!(anonymous.status(), 401);

    wait_for_rows(&app, "request_log", 8).await;
    let k1 = requests(&app, &app.merchant, "idempotency_key=k1").await;
    let verdicts: Vec<&str> = k1
        .iter()
        .map(|entry| entry["verdict"].as_str().unwrap())
        .collect();
    assert_eq!(
        verdicts,
        ["mismatch", "replayed", "replayed", "replayed", "new"],
        "newest first"
    );
    let first_entry = &k1[4];
    assert_eq!(first_entry["id"], new_id.as_str());
    assert_eq!(first_entry["object"], "request");
    assert_eq!(first_entry["method"], "POST");
    assert_eq!(first_entry["route"], "POST /v1/orders");
    assert_eq!(first_entry["path"], "/v1/orders");
    assert_eq!(first_entry["idempotency_key"], "k1");
    assert_eq!(first_entry["status"], 201);
    assert_eq!(first_entry["error_code"], Value::Null);
    assert!(first_entry["latency_ms"].as_f64().unwrap() >= 0.0);
    let key_id = first_entry["api_key_id"].as_str().unwrap();
    assert!(
        key_id.starts_with("key_"),
        "the key's id, never the secret: {key_id}"
    );
    assert_eq!(first_entry["user"], Value::Null);
    assert_eq!(first_entry["client_address"], "127.0.0.1");
    assert_eq!(first_entry["client_request_id"], "client-1");
    let request_body: Value =
        serde_json::from_str(first_entry["request_body"].as_str().unwrap()).unwrap();
    assert_eq!(request_body["amount"], 1000);
    let response_body: Value =
        serde_json::from_str(first_entry["response_body"].as_str().unwrap()).unwrap();
    assert_eq!(response_body["id"], order["id"]);
    assert_eq!(k1[1]["client_request_id"], "client-2");
    assert_eq!(k1[1]["status"], 201);
    assert_eq!(k1[0]["status"], 422);
    assert_eq!(k1[0]["error_code"], "idempotency_key_reused");

    let k2 = requests(&app, &app.merchant, "idempotency_key=k2").await;
    let k2: Vec<(&str, i64)> = k2
        .iter()
        .map(|entry| {
            (
                entry["verdict"].as_str().unwrap(),
                entry["status"].as_i64().unwrap(),
            )
        })
        .collect();
    assert_eq!(k2, [("new", 201), ("in_progress", 409)], "newest first");

    let one = json(app.get(&format!("/v1/requests/{balance_id}")).await).await;
    assert_eq!(one["route"], "GET /v1/balance");
    assert_eq!(one["verdict"], Value::Null);
    assert_eq!(one["idempotency_key"], Value::Null);
    assert_eq!(one["status"], 200);

    // The filters.
    let by_verdict = requests(&app, &app.merchant, "verdict=replayed").await;
    assert_eq!(by_verdict.len(), 3);
    let by_status = requests(&app, &app.merchant, "status=409").await;
    assert_eq!(by_status.len(), 1);
    let by_route = requests(&app, &app.merchant, "route=GET%20%2Fv1%2Fbalance").await;
    assert_eq!(by_route[0]["id"], balance_id.as_str());
    let by_text = requests(&app, &app.merchant, &format!("q={}", &new_id[4..14])).await;
    assert_eq!(by_text.len(), 1);
    assert_eq!(by_text[0]["id"], new_id.as_str());
    let tomorrow = (Utc::now() + chrono::Duration::days(1)).to_rfc3339();
    assert!(requests(
        &app,
        &app.merchant,
        &format!("created[gte]={}", urlencode(&tomorrow))
    )
    .await
    .is_empty());
    assert!(
        requests(
            &app,
            &app.merchant,
            &format!("created[lte]={}", urlencode(&tomorrow))
        )
        .await
        .len()
            >= 8
    );
    let refused = json(app.get("/v1/requests?verdict=maybe").await).await;
    assert_eq!(refused["error"]["param"], "verdict");
    let refused = json(app.get("/v1/requests?created[gte]=yesterday").await).await;
    assert_eq!(refused["error"]["param"], "created[gte]");

    // Cursor pagination, newest first.
    let page = json(app.get("/v1/requests?limit=2&idempotency_key=k1").await).await;
    assert_eq!(page["has_more"], true);
    let last = page["data"][1]["id"].as_str().unwrap();
    let next = requests(
        &app,
        &app.merchant,
        &format!("idempotency_key=k1&starting_after={last}"),
    )
    .await;
    assert_eq!(next.len(), 3);
    assert_eq!(next[2]["id"], new_id.as_str());
}

fn urlencode(text: &str) -> String {
    text.replace('+', "%2B").replace(':', "%3A")
}

/// Recording an answer keeps its length: a new key's answer, its replay and a list go out with
/// their `Content-Length`, not chunked (a body mapped frame by frame has no size, and every
/// `/v1` answer the log recorded went out chunked), and are recorded all the same.
#[tokio::test]
async fn a_recorded_answer_keeps_its_content_length() {
    let app = spawn_app().await;
    let created = post_order_with(&app, "k-length", ORDER, "client-length").await;
    let replayed = post_order_with(&app, "k-length", ORDER, "client-length").await;
    let listed = app.get_as(&app.merchant, "/v1/orders").await;
    for (what, response) in [
        ("created", created),
        ("replayed", replayed),
        ("listed", listed),
    ] {
        let headers = response.headers().clone();
        assert!(
            headers.get("transfer-encoding").is_none(),
            "{what}: {headers:?}"
        );
        let length: usize = headers["content-length"].to_str().unwrap().parse().unwrap();
        assert_eq!(response.bytes().await.unwrap().len(), length, "{what}");
    }
    wait_for_rows(&app, "request_log WHERE response_body IS NOT NULL", 3).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn secrets_and_ibans_never_reach_the_table() {
    let app = spawn_app().await;
    app.fund(10_000).await;
    let endpoint = app
        .post(
            "/v1/webhook-endpoints",
            Some("endpoint"),
            &json!({"url": "http://127.0.0.1:9/hook"}).to_string(),
        )
        .await;
    assert_eq!(endpoint.status(), 201);
    let secret = json(endpoint).await["secret"].as_str().unwrap().to_owned();
    assert!(secret.starts_with("whsec_"));
    let payout = |key: &'static str, iban: &'static str| {
        let body = payout_body(100, iban);
        let app = &app;
        async move { app.post("/v1/payouts", Some(key), &body.to_string()).await }
    };
    assert_eq!(payout("p1", IBAN).await.status(), 201);
    assert_eq!(payout("p1", IBAN).await.status(), 201, "a replay");
    assert_eq!(
        payout("p2", "DE89 3704 0044 0532 0130 00").await.status(),
        201
    );
    // A secret where it does not belong, in a body and in a query string.
    let api_key = app.merchant.api_key.clone();
    let leaked = json!({"amount": 100, "currency": "EUR", "note": api_key, "other": secret,
        "text": format!("pay {IBAN} now")});
    assert_eq!(
        app.post("/v1/orders", Some("leak"), &leaked.to_string())
            .await
            .status(),
        400
    );
    assert_eq!(
        app.get(&format!("/v1/orders?starting_after={api_key}"))
            .await
            .status(),
        400
    );

    wait_for_rows(&app, "request_log", 8).await;
    for forbidden in [
        secret.as_str(),
        &secret["whsec_".len()..],
        &api_key,
        &api_key["sk_test_".len()..],
        IBAN,
        "DE89 3704 0044 0532 0130 00",
        "0532013000",
    ] {
        assert_eq!(
            app.count(&format!(
                "request_log r WHERE strpos(r::text, '{forbidden}') > 0"
            ))
            .await,
            0,
            "{forbidden} is in the request log"
        );
    }
    assert!(
        app.count("request_log WHERE strpos(request_body, '3000') > 0")
            .await
            >= 3,
        "IBANs keep their last 4"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn another_merchants_requests_are_invisible() {
    let app = spawn_app().await;
    let other = create_merchant(&app.pool, "Other").await;
    let theirs = app
        .post_as(&other, "/v1/orders", Some("shared"), ORDER)
        .await;
    assert_eq!(theirs.status(), 201);
    let their_id = request_id(&theirs);
    assert_eq!(
        app.post("/v1/orders", Some("shared"), ORDER).await.status(),
        201
    );
    wait_for_rows(&app, "request_log", 2).await;

    let mine = requests(&app, &app.merchant, "").await;
    assert_eq!(mine.len(), 1);
    assert_ne!(mine[0]["id"], their_id.as_str());
    assert_eq!(
        requests(&app, &app.merchant, "idempotency_key=shared")
            .await
            .len(),
        1
    );
    assert!(requests(&app, &app.merchant, &format!("q={their_id}"))
        .await
        .is_empty());
    let missing = app.get(&format!("/v1/requests/{their_id}")).await;
    assert_eq!(missing.status(), 404);
    assert_eq!(error_code(&json(missing).await), "resource_missing");
    let cursor = app
        .get(&format!("/v1/requests?starting_after={their_id}"))
        .await;
    assert_eq!(cursor.status(), 400);
    assert_eq!(
        json(
            app.get_as(&other, &format!("/v1/requests/{their_id}"))
                .await
        )
        .await["id"],
        their_id.as_str()
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_consoles_request_log_filters_the_merchants_requests_and_shows_each_redacted() {
    let app = spawn_app().await;
    let other = create_merchant(&app.pool, "Other").await;
    let theirs = app
        .post_as(&other, "/v1/orders", Some("theirs"), ORDER)
        .await;
    let their_id = request_id(&theirs);
    let first = post_order_with(&app, "console-key", ORDER, "client-1").await;
    let first_id = request_id(&first);
    post_order_with(&app, "console-key", ORDER, "client-2").await;
    let changed = r#"{"amount": 1001, "currency": "EUR"}"#;
    let mismatch = post_order_with(&app, "console-key", changed, "client-3").await;
    assert_eq!(mismatch.status(), 422);
    let payout = format!(
        r#"{{"amount": 1, "currency": "EUR", "destination": {{"account_holder": "Ada", "iban": "{IBAN}"}}}}"#
    );
    let refused = app
        .post("/v1/payouts", Some("console-payout"), &payout)
        .await;
    let refused_id = request_id(&refused);
    let status = refused.status();
    assert_eq!(status, 402, "{}", refused.text().await.unwrap());
    wait_for_rows(&app, "request_log", 5).await;

    let member = common::browser::signed_in(&app, false).await;
    let list = |query: &'static str| {
        let member = &member;
        let app = &app;
        async move { common::browser::page(app, member, &format!("/requests{query}")).await }
    };
    let all = list("").await;
    assert!(
        all.contains(&first_id) && all.contains(&refused_id),
        "{all}"
    );
    assert!(
        !all.contains(&their_id),
        "another merchant's request is listed"
    );
    let by_key = list("?idempotency_key=console-key").await;
    assert_eq!(
        by_key.matches("href=\"/requests/req_").count(),
        3,
        "{by_key}"
    );
    assert!(!by_key.contains(&refused_id));
    let mismatches = list("?verdict=mismatch").await;
    assert_eq!(mismatches.matches("href=\"/requests/req_").count(), 1);
    let by_status = list("?status=402&route=POST+%2Fv1%2Fpayouts").await;
    assert!(by_status.contains(&refused_id) && !by_status.contains(&first_id));
    // An exact look-up ignores the day range; the range alone excludes today.
    let exact = common::browser::page(
        &app,
        &member,
        &format!("/requests?q={first_id}&from=2000-01-01&to=2000-01-02"),
    )
    .await;
    assert!(exact.contains(&first_id), "{exact}");
    let long_ago = list("?from=2000-01-01&to=2000-01-02").await;
    assert!(!long_ago.contains(&first_id));
    // A filter that cannot be read gets a fixed sentence, never the typed text.
    let bad = list("?status=%3Cscript%3E").await;
    assert!(bad.contains("Status must be an HTTP status code"), "{bad}");
    assert!(!bad.contains("<script>"));

    let detail = common::browser::page(&app, &member, &format!("/requests/{refused_id}")).await;
    assert!(detail.contains("insufficient_funds"), "{detail}");
    assert!(detail.contains("****3000"), "{detail}");
    assert!(!detail.contains(IBAN), "the IBAN is shown unmasked");
    let (client, cookie) = &member;
    let theirs = client
        .get(format!("{}/requests/{their_id}", app.base_url))
        .header("cookie", cookie)
        .send()
        .await
        .unwrap();
    assert_eq!(theirs.status(), 404);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_members_console_changes_are_logged_by_the_member_never_with_the_forms_token() {
    let app = spawn_app().await;
    app.fund(10_000).await;
    let member = common::browser::signed_in(&app, false).await;
    let (status, location) = common::browser::submit(
        &app,
        &member,
        "/payouts",
        &[
            ("idempotency_key", "console-logged"),
            ("amount", "1.00"),
            ("currency", "EUR"),
            ("account_holder", "Ada Lovelace"),
            ("iban", IBAN),
        ],
    )
    .await;
    assert_eq!(status, 303, "{location}");
    wait_for_rows(&app, "request_log WHERE user_id IS NOT NULL", 1).await;
    let logged = requests(&app, &app.merchant, "route=POST%20%2Fpayouts").await;
    assert_eq!(logged.len(), 1, "{logged:?}");
    let entry = &logged[0];
    assert_eq!(entry["user"], "member@test");
    assert_eq!(entry["api_key_id"], Value::Null);
    assert_eq!(entry["status"], 303);
    let body = entry["request_body"].as_str().unwrap();
    assert!(body.contains("csrf=[redacted]"), "{body}");
    assert!(body.contains("amount=1.00"), "{body}");
    assert!(!body.contains(IBAN), "{body}");
    let token =
        common::browser::hidden(&common::browser::page(&app, &member, "/keys").await, "csrf");
    assert_eq!(
        app.count(&format!("request_log WHERE request_body LIKE '%{token}%'"))
            .await,
        0
    );
    // Only changes are recorded: neither the pages read nor the sign-in.
    tokio::time::sleep(Duration::from_millis(1500)).await;
    assert_eq!(app.count("request_log WHERE user_id IS NOT NULL").await, 1);
    assert_eq!(app.count("request_log WHERE route LIKE '%/login'").await, 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_console_double_submit_is_logged_with_its_form_key_new_then_replayed() {
    let app = spawn_app().await;
    app.fund(10_000).await;
    let member = common::browser::signed_in(&app, false).await;
    let fields = [
        ("idempotency_key", "console-twice"),
        ("amount", "1.00"),
        ("currency", "EUR"),
        ("account_holder", "Ada Lovelace"),
        ("iban", IBAN),
    ];
    for _ in 0..2 {
        let (status, location) = common::browser::submit(&app, &member, "/payouts", &fields).await;
        assert_eq!(status, 303, "{location}");
    }
    wait_for_rows(&app, "request_log WHERE user_id IS NOT NULL", 2).await;
    let verdicts: Vec<(Option<String>, Option<String>)> = sqlx::query_as(
        "SELECT idempotency_key, verdict FROM request_log WHERE user_id IS NOT NULL \
         ORDER BY created_at",
    )
    .fetch_all(&app.pool)
    .await
    .unwrap();
    let key = Some("console-twice".to_owned());
    assert_eq!(
        verdicts,
        [
            (key.clone(), Some("new".to_owned())),
            (key, Some("replayed".to_owned()))
        ]
    );
    assert_eq!(app.count("payouts").await, 1);

    // The log's page tells the doors apart; the key's timeline shows both submits.
    let page = |query: &'static str| {
        let (app, member) = (&app, &member);
        async move { common::browser::page(app, member, &format!("/requests?{query}")).await }
    };
    let console = page("door=console").await;
    assert!(console.contains("console-twice") && !console.contains("/v1/orders"));
    let api = page("door=api").await;
    assert!(api.contains("/v1/orders") && !api.contains("console-twice"));
    let timeline = common::browser::page(&app, &member, "/keys/console-twice").await;
    assert_eq!(timeline.matches("POST /payouts").count(), 2, "{timeline}");
}

/// The counter of entries dropped because the buffer was full.
fn dropped(metrics: &str) -> i64 {
    metrics
        .lines()
        .find(|line| line.starts_with("kaadxpay_request_log_dropped_total"))
        .and_then(|line| line.rsplit(' ').next())
        .map_or(0, |value| value.parse().unwrap())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_full_buffer_drops_and_counts_but_never_delays_a_request() {
    let app = spawn_app_with(&["--request-log-buffer", "2"]).await;
    let before = dropped(&app.metrics().await);
    // The writer blocks on a lock held on the table.
    let mut blocker = PgConnection::connect(&app.db_url).await.unwrap();
    sqlx::query("BEGIN").execute(&mut blocker).await.unwrap();
    sqlx::query("LOCK TABLE request_log IN ACCESS EXCLUSIVE MODE")
        .execute(&mut blocker)
        .await
        .unwrap();
    let requests = 40;
    let answered = tokio::time::timeout(
        Duration::from_secs(30),
        join_all((0..requests).map(|_| async { app.get("/v1/balance").await.status() })),
    )
    .await
    .expect("every request is answered while the writer is blocked");
    assert!(answered.iter().all(|status| *status == 200));
    let dropped_now = dropped(&app.metrics().await) - before;
    assert!(dropped_now > 0, "a full buffer drops entries");
    wait_for_rows(
        &app,
        "pg_locks l JOIN pg_class c ON c.oid = l.relation \
         WHERE c.relname = 'request_log' AND NOT l.granted",
        1,
    )
    .await;
    sqlx::query("ROLLBACK").execute(&mut blocker).await.unwrap();
    wait_for_rows(&app, "request_log", requests - dropped_now).await;
}

#[tokio::test]
async fn switched_off_it_records_nothing() {
    let app = spawn_app_with(&["--request-log", "off"]).await;
    let answer = app.post("/v1/orders", Some("unlogged"), ORDER).await;
    assert_eq!(answer.status(), 201);
    assert!(request_id(&answer).starts_with("req_"));
    // Longer than a batch gathers: an entry would have been written by now.
    tokio::time::sleep(server::request_log::writer::LINGER * 3).await;
    assert_eq!(app.count("request_log").await, 0);
    assert!(requests(&app, &app.merchant, "").await.is_empty());
}

fn day(days_ago: u64) -> DateTime<Utc> {
    (Utc::now().date_naive() - Days::new(days_ago))
        .and_hms_opt(12, 0, 0)
        .unwrap()
        .and_utc()
}

#[tokio::test]
async fn purge_drops_the_days_past_the_retention_and_touches_nothing_else() {
    // No application: its own purge worker must not run meanwhile.
    let (_db, pool, merchant) = database_with_merchant("Purged").await;
    let days = [40, 31, 30, 29, 0];
    let mut conn = pool.acquire().await.unwrap();
    for days_ago in days {
        let at = day(days_ago);
        server::request_log::partitions::ensure(&mut conn, at.date_naive(), 1)
            .await
            .unwrap();
        for n in 0..3 {
            sqlx::query(
                "INSERT INTO request_log (id, created_at, merchant_id, method, route, path, status, latency_ms) \
                 VALUES ($1, $2, $3, 'GET', 'GET /v1/balance', '/v1/balance', 200, 1)",
            )
            .bind(format!("req_{days_ago}_{n}"))
            .bind(at)
            .bind(&merchant.id)
            .execute(&mut *conn)
            .await
            .unwrap();
        }
    }
    let dropped = server::request_log::partitions::purge(&pool, Duration::from_secs(30 * 86_400))
        .await
        .unwrap();
    assert_eq!(dropped, 2, "the days ending 30 days ago or more");
    for (days_ago, kept) in [(40, 0), (31, 0), (30, 3), (29, 3), (0, 3)] {
        assert_eq!(
            count(
                &pool,
                &format!("request_log WHERE id LIKE 'req\\_{days_ago}\\_%'")
            )
            .await,
            kept,
            "{days_ago} days ago"
        );
        let table = format!("request_log_{}", day(days_ago).format("%Y%m%d"));
        let exists: bool = sqlx::query_scalar("SELECT to_regclass($1) IS NOT NULL")
            .bind(&table)
            .fetch_one(&pool)
            .await
            .unwrap();
        assert_eq!(exists, kept > 0, "{table} is dropped whole, not emptied");
    }
}

/// An entry of `merchant` at `created_at`, every optional field given or none.
fn entry(id: &str, created_at: DateTime<Utc>, merchant: &TestMerchant, full: bool) -> Entry {
    let given = |value: &str| full.then(|| value.to_owned());
    // Near the cap of a body (7,500 of 8 KiB), non-ASCII characters, and a NUL PostgreSQL
    // cannot store.
    let large = format!("{{\"description\":\"{}\u{0}\"}}", "é€".repeat(1_500));
    Entry {
        id: id.to_owned(),
        created_at,
        merchant_id: merchant.id.to_string(),
        api_key_id: given("key_ABC"),
        user_id: given("zoë@example.com"),
        method: Method::POST,
        route: "POST /v1/orders".to_owned(),
        path: "/v1/orders?k=sk_live_abc".to_owned(),
        idempotency_key: given("clé-1"),
        verdict: full.then_some(Verdict::New),
        status: if full { 409 } else { 200 },
        latency: Duration::from_micros(1_500),
        client_address: full.then(|| "2001:db8::1".parse().unwrap()),
        request_body: if full { large.into() } else { Bytes::new() },
        response_body: if full {
            Bytes::from_static(
                r#"{"error":{"code":"idempotency_key_in_use","message":"…"}}"#.as_bytes(),
            )
        } else {
            Bytes::new()
        },
        client_request_id: given("client-ß"),
    }
}

#[tokio::test]
async fn the_writer_stores_every_column_of_a_batch_even_on_a_day_without_a_partition() {
    // No application: the writer is run here, on a batch of today and a day without a partition.
    let (_db, pool, merchant) = database_with_merchant("Written").await;
    let later = Utc::now() + Days::new(10);
    let table = format!("request_log_{}", later.format("%Y%m%d"));
    let exists = format!("SELECT to_regclass('{table}') IS NOT NULL");
    let partition: bool = sqlx::query_scalar(&exists).fetch_one(&pool).await.unwrap();
    assert!(!partition, "{table} is not made ahead");
    let now = Utc::now();
    let (buffer, entries) = mpsc::channel(4);
    for entry in [
        entry("req_full", now, &merchant, true),
        entry("req_none", later, &merchant, false),
    ] {
        buffer.send(entry).await.unwrap();
    }
    drop(buffer);
    writer::run(writer::connection(&pool), entries).await;

    let partition: bool = sqlx::query_scalar(&exists).fetch_one(&pool).await.unwrap();
    assert!(partition, "{table} made by the writer");
    let rows: Vec<Value> = sqlx::query_scalar(
        "SELECT to_jsonb(r) - 'created_at' || jsonb_build_object('created_at', \
           (extract(epoch FROM created_at) * 1000000)::bigint) \
         FROM request_log r ORDER BY id",
    )
    .fetch_all(&pool)
    .await
    .unwrap();
    let large = format!("{{\"description\":\"{}\u{FFFD}\"}}", "é€".repeat(1_500));
    assert_eq!(
        rows,
        [
            json!({"id": "req_full", "created_at": now.timestamp_micros(),
                "merchant_id": merchant.id, "api_key_id": "key_ABC", "user_id": "zoë@example.com",
                "method": "POST", "route": "POST /v1/orders",
                "path": "/v1/orders?k=sk_live_[redacted]", "idempotency_key": "clé-1",
                "verdict": "new", "status": 409, "error_code": "idempotency_key_in_use",
                "latency_ms": 1.5, "client_address": "2001:db8::1", "request_body": large,
                "response_body": r#"{"error":{"code":"idempotency_key_in_use","message":"…"}}"#,
                "client_request_id": "client-ß"}),
            json!({"id": "req_none", "created_at": later.timestamp_micros(),
                "merchant_id": merchant.id, "api_key_id": null, "user_id": null,
                "method": "POST", "route": "POST /v1/orders",
                "path": "/v1/orders?k=sk_live_[redacted]", "idempotency_key": null,
                "verdict": null, "status": 200, "error_code": null, "latency_ms": 1.5,
                "client_address": null, "request_body": null, "response_body": null,
                "client_request_id": null}),
        ]
    );
}

/// Log lines, as JSON, written by the process's subscriber.
fn log_lines() -> &'static Arc<Mutex<Vec<u8>>> {
    static LINES: OnceLock<Arc<Mutex<Vec<u8>>>> = OnceLock::new();
    LINES.get_or_init(|| {
        let lines = Arc::new(Mutex::new(Vec::new()));
        let writer = Capture(lines.clone());
        tracing_subscriber::fmt()
            .json()
            .flatten_event(true)
            .with_current_span(true)
            .with_writer(move || writer.clone())
            .init();
        lines
    })
}

#[derive(Clone)]
struct Capture(Arc<Mutex<Vec<u8>>>);

impl Write for Capture {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(bytes);
        Ok(bytes.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// The captured log line with `event` and `request_id`, if any.
fn logged(event: &str, request_id: &str) -> Option<Value> {
    let lines = log_lines().lock().unwrap();
    String::from_utf8_lossy(&lines)
        .lines()
        .filter_map(|line| serde_json::from_str::<Value>(line).ok())
        .find(|line| line["event"] == event && line["request_id"] == request_id)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hits_and_mismatches_stay_log_lines_with_the_request_id() {
    log_lines();
    let app = spawn_app().await;
    assert_eq!(
        post_order_with(&app, "logged", ORDER, "mine-1")
            .await
            .status(),
        201
    );
    let replay = post_order_with(&app, "logged", ORDER, "mine-2").await;
    let replay_id = request_id(&replay);
    assert_ne!(replay_id, "mine-2", "the request id is the server's own");
    let mismatch = post_order_with(
        &app,
        "logged",
        r#"{"amount": 1, "currency": "EUR"}"#,
        "mine-3",
    )
    .await;
    let mismatch_id = request_id(&mismatch);
    let line = logged("idempotency.replayed", &replay_id).expect("the replay is logged");
    assert_eq!(line["merchant_id"], app.merchant.id.as_str());
    assert_eq!(line["idempotency_key"], "logged");
    assert!(logged("idempotency.mismatch", &mismatch_id).is_some());

    wait_for_rows(&app, "request_log", 3).await;
    let entry = json(app.get(&format!("/v1/requests/{replay_id}")).await).await;
    assert_eq!(entry["verdict"], "replayed");
    assert_eq!(entry["client_request_id"], "mine-2");
}

#[tokio::test]
async fn the_routes_and_their_filters_are_in_the_openapi_document() {
    let app = spawn_app().await;
    let document = app.openapi().await;
    let list = &document["paths"]["/v1/requests"]["get"];
    let parameters: Vec<&str> = list["parameters"]
        .as_array()
        .unwrap()
        .iter()
        .map(|parameter| parameter["name"].as_str().unwrap())
        .collect();
    for name in [
        "idempotency_key",
        "status",
        "route",
        "verdict",
        "created[gte]",
        "created[lte]",
        "q",
        "limit",
        "starting_after",
    ] {
        assert!(parameters.contains(&name), "{name} in {parameters:?}");
    }
    assert!(list["responses"]["400"].is_object());
    let one = &document["paths"]["/v1/requests/{id}"]["get"];
    assert!(one["responses"]["404"].is_object());
    assert!(
        document["components"]["schemas"]["LoggedRequest"]["properties"]["verdict"].is_object()
    );
}
