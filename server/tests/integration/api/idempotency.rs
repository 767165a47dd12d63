//! One test per row of API.md §2 that needs no fail point (those are in `faults/failpoints.rs`),
//! over real HTTP against a real PostgreSQL.

use crate::common;

use common::{error_code, json, spawn_app, spawn_app_with};
use serde_json::Value;

const ORDER: &str = r#"{"amount": 1000, "currency": "EUR", "description": "Blue shoes", "metadata": {"sku": "B-42"}}"#;
/// The same request as `ORDER`: other key order and white space.
const ORDER_REORDERED: &str =
    r#"{ "metadata":{"sku":"B-42"},"description":"Blue shoes","currency":"EUR","amount":1000 }"#;

/// A `422 idempotency_key_reused` answer with `message`.
async fn assert_reused(response: reqwest::Response, message: &str) {
    assert_eq!(response.status(), 422);
    assert_eq!(response.headers()["idempotency-key-status"], "mismatch");
    let body = json(response).await;
    assert_eq!(error_code(&body), "idempotency_key_reused");
    assert_eq!(body["error"]["message"], message);
}

#[tokio::test]
async fn a_missing_key_is_refused_and_nothing_is_recorded() {
    let app = spawn_app().await;
    let response = app.post("/v1/orders", None, ORDER).await;
    assert_eq!(response.status(), 400);
    assert_eq!(error_code(&json(response).await), "idempotency_key_missing");
    assert_eq!(app.snapshot().await, (0, 0, 0));
}

#[tokio::test]
async fn empty_long_or_invisible_keys_are_refused() {
    let app = spawn_app().await;
    let too_long = "k".repeat(256);
    for key in ["", too_long.as_str(), "has space", "tab\there", "\"\""] {
        let response = app.post("/v1/orders", Some(key), ORDER).await;
        assert_eq!(response.status(), 400, "{key:?}");
        assert_eq!(
            error_code(&json(response).await),
            "idempotency_key_invalid",
            "{key:?}"
        );
    }
    assert_eq!(app.snapshot().await, (0, 0, 0));
    let longest = "k".repeat(255);
    assert_eq!(
        app.post("/v1/orders", Some(&longest), ORDER).await.status(),
        201
    );
}

#[tokio::test]
async fn the_structured_field_string_form_is_the_same_key() {
    let app = spawn_app().await;
    let first = app.post("/v1/orders", Some("\"sf-key\""), ORDER).await;
    assert_eq!(first.status(), 201);
    let plain = app.post("/v1/orders", Some("sf-key"), ORDER).await;
    assert_eq!(plain.headers()["idempotent-replayed"], "true");
    assert_eq!(app.count("orders").await, 1);
}

#[tokio::test]
async fn a_request_rejected_before_execution_leaves_the_key_free() {
    let app = spawn_app().await;
    let unauthorized = app
        .client
        .post(format!("{}/v1/orders", app.base_url))
        .bearer_auth("sk_test_wrong")
        .header("idempotency-key", "k1")
        .body(ORDER)
        .send()
        .await
        .unwrap();
    assert_eq!(unauthorized.status(), 401);
    assert_eq!(error_code(&json(unauthorized).await), "unauthorized");
    let malformed = app.post("/v1/orders", Some("k1"), "{\"amount\": 10").await;
    assert_eq!(malformed.status(), 400);
    let invalid = app
        .post(
            "/v1/orders",
            Some("k1"),
            r#"{"amount": 0, "currency": "EUR"}"#,
        )
        .await;
    assert_eq!(invalid.status(), 400);
    assert_eq!(app.snapshot().await, (0, 0, 0));

    let created = app.post("/v1/orders", Some("k1"), ORDER).await;
    assert_eq!(created.status(), 201);
    assert_eq!(created.headers()["idempotency-key-status"], "new");
}

#[tokio::test]
async fn a_first_request_creates_the_order_with_its_location() {
    let app = spawn_app().await;
    let response = app.post("/v1/orders", Some("first"), ORDER).await;
    assert_eq!(response.status(), 201);
    assert_eq!(response.headers()["idempotency-key-status"], "new");
    assert!(response.headers().get("idempotent-replayed").is_none());
    let location = response.headers()["location"].to_str().unwrap().to_owned();
    let order = json(response).await;
    assert_eq!(
        location,
        format!("/v1/orders/{}", order["id"].as_str().unwrap())
    );
    assert_eq!(order["object"], "order");
    assert_eq!(order["status"], "pending");
    assert_eq!(order["amount"], 1000);
    assert_eq!(order["metadata"]["sku"], "B-42");
    assert_eq!(json(app.get(&location).await).await, order);
}

#[tokio::test]
async fn the_same_request_again_replays_the_first_answer_byte_for_byte() {
    let app = spawn_app().await;
    let first = app.post("/v1/orders", Some("replay-me"), ORDER).await;
    let first_location = first.headers()["location"].clone();
    let first_body = first.bytes().await.unwrap();

    let replay = app
        .post("/v1/orders", Some("replay-me"), ORDER_REORDERED)
        .await;
    assert_eq!(replay.status(), 201);
    assert_eq!(replay.headers()["idempotent-replayed"], "true");
    assert_eq!(replay.headers()["idempotency-key-status"], "replayed");
    assert_eq!(replay.headers()["location"], first_location);
    assert_eq!(replay.bytes().await.unwrap(), first_body);
    assert_eq!(app.count("orders").await, 1);
}

#[tokio::test]
async fn the_same_key_with_another_body_is_refused() {
    let app = spawn_app().await;
    app.post("/v1/orders", Some("reused"), ORDER).await;
    let other = app
        .post(
            "/v1/orders",
            Some("reused"),
            r#"{"amount": 1001, "currency": "EUR"}"#,
        )
        .await;
    assert_reused(other, "Idempotency-Key reused with different request body").await;
    assert_eq!(app.count("orders").await, 1);
}

#[tokio::test]
async fn the_same_key_of_another_merchant_is_independent() {
    let app = spawn_app().await;
    let other = common::create_merchant(&app.pool, "Other").await;
    let mine = app.post("/v1/orders", Some("shared"), ORDER).await;
    let theirs = app
        .post_as(&other, "/v1/orders", Some("shared"), ORDER)
        .await;
    assert_eq!(mine.status(), 201);
    assert_eq!(theirs.status(), 201);
    assert_eq!(theirs.headers()["idempotency-key-status"], "new");
    assert_ne!(json(mine).await["id"], json(theirs).await["id"]);
    assert_eq!(app.count("orders").await, 2);
}

#[tokio::test]
async fn after_the_ttl_the_same_key_makes_a_new_order() {
    let app = spawn_app_with(&["--idempotency-ttl", "1s"]).await;
    let first = json(app.post("/v1/orders", Some("short-lived"), ORDER).await).await;
    let record = json(app.get("/v1/idempotency-keys/short-lived").await).await;
    assert_eq!(record["status"], "completed");
    tokio::time::sleep(std::time::Duration::from_millis(1500)).await;
    assert_eq!(
        json(app.get("/v1/idempotency-keys/short-lived").await).await["status"],
        "expired"
    );

    let second = app.post("/v1/orders", Some("short-lived"), ORDER).await;
    assert_eq!(second.status(), 201);
    assert_eq!(second.headers()["idempotency-key-status"], "new");
    assert_ne!(json(second).await["id"], first["id"]);
    assert_eq!(app.count("orders").await, 2);
    assert_eq!(
        json(app.get("/v1/idempotency-keys/short-lived").await).await["attempts"],
        1
    );
}

#[tokio::test]
async fn purge_deletes_only_expired_records() {
    let app = spawn_app_with(&["--idempotency-ttl", "1s"]).await;
    app.post("/v1/orders", Some("old"), ORDER).await;
    tokio::time::sleep(std::time::Duration::from_millis(1200)).await;
    app.post("/v1/orders", Some("new"), ORDER).await;
    assert_eq!(
        server::idempotency::maintenance::purge(
            app.pool.clone(),
            std::time::Duration::from_secs(1)
        )
        .await
        .unwrap(),
        1
    );
    assert_eq!(app.get("/v1/idempotency-keys/old").await.status(), 404);
    assert_eq!(app.get("/v1/idempotency-keys/new").await.status(), 200);
}

/// The purge's index holds the minute a record was made, not the instant; the purge still
/// deletes exactly the records past their expiry, however many batches it takes and wherever
/// the expiry falls in its minute. Records every 50 ms from 150 s before the expiry to 90 s
/// after it (none within 5 s of it, so that the purge's own `now()` a moment later changes
/// nothing), the expiry half a minute into its minute, written in random order so that the
/// young records of its minute lie among the expired ones in the index's order.
#[tokio::test]
async fn the_purge_deletes_every_expired_record_and_none_younger_across_batches() {
    let app = spawn_app().await;
    let now: f64 = sqlx::query_scalar("SELECT extract(epoch FROM now())::float8")
        .fetch_one(&app.pool)
        .await
        .unwrap();
    // The expiry, `now - ttl`, 30 s into its minute.
    let ttl = 86_400.0 + (now - 30.0).rem_euclid(60.0);
    let (expired, young): (i64, i64) = sqlx::query_as(
        "WITH made AS ( \
           INSERT INTO idempotency_keys (merchant_id, key, endpoint, request_hash, status, \
             response_status, resource_type, resource_id, created_at) \
           SELECT $1, 'purge-' || n, 'POST /v1/orders', sha256(convert_to(n::text, 'UTF8')), \
             'completed', 201, 'order', 'ord_' || n, \
             now() - make_interval(secs => $2) + make_interval(secs => n * 0.05) \
           FROM generate_series(-3000, 1800) n WHERE abs(n) > 100 ORDER BY random() \
           RETURNING created_at) \
         SELECT count(*) FILTER (WHERE created_at < now() - make_interval(secs => $2)), \
           count(*) FILTER (WHERE created_at > now() - make_interval(secs => $2)) FROM made",
    )
    .bind(app.merchant.id.as_str())
    .bind(ttl)
    .fetch_one(&app.pool)
    .await
    .unwrap();
    assert_eq!((expired, young), (2900, 1700));
    let purged = server::idempotency::maintenance::purge(
        app.pool.clone(),
        std::time::Duration::from_secs_f64(ttl),
    )
    .await
    .unwrap();
    assert_eq!(purged, 2900);
    let left: (i64, i64) = sqlx::query_as(
        "SELECT count(*), count(*) FILTER (WHERE created_at < now() - make_interval(secs => $1)) \
         FROM idempotency_keys WHERE starts_with(key, 'purge-')",
    )
    .bind(ttl)
    .fetch_one(&app.pool)
    .await
    .unwrap();
    assert_eq!(left, (1700, 0));
}

/// On a large table a batch of the purge must walk the creation index, never the heap: sorting or
/// scanning millions of rows is what a large table makes too dear, which `enable_sort = off`
/// and a heap-scan-tempting `random_page_cost` stand for here.
#[tokio::test]
async fn a_purge_batch_walks_the_creation_index_whatever_the_table_size() {
    let app = spawn_app().await;
    let mut tx = app.pool.begin().await.unwrap();
    for setting in [
        "SET LOCAL enable_sort = off",
        "SET LOCAL random_page_cost = 4",
    ] {
        sqlx::query(setting).execute(&mut *tx).await.unwrap();
    }
    let plan: Value = sqlx::query_scalar(&format!(
        "EXPLAIN (FORMAT JSON) {}",
        server::idempotency::maintenance::PURGE_BATCH
    ))
    .bind(24.0 * 3600.0)
    .fetch_one(&mut *tx)
    .await
    .unwrap();
    // The batch's choice of records: what sits under the `Limit`.
    let mut nodes = vec![&plan[0]["Plan"]];
    let batch = loop {
        let node = nodes.pop().expect("a Limit in the plan");
        if node["Node Type"] == "Limit" {
            break node.to_string();
        }
        nodes.extend(node["Plans"].as_array().into_iter().flatten());
    };
    assert!(
        batch.contains("idempotency_keys_created_idx") && !batch.contains("Seq Scan"),
        "{batch}"
    );
}

#[tokio::test]
async fn the_key_record_shows_its_state_and_resource() {
    let app = spawn_app().await;
    let key = "look/me-up";
    let order = json(app.post("/v1/orders", Some(key), ORDER).await).await;
    let record = json(app.get("/v1/idempotency-keys/look%2Fme-up").await).await;
    assert_eq!(record["object"], "idempotency_key");
    assert_eq!(record["key"], key);
    assert_eq!(record["status"], "completed");
    assert_eq!(record["endpoint"], "POST /v1/orders");
    assert_eq!(record["request_hash"].as_str().unwrap().len(), 64);
    assert_eq!(record["response_status"], 201);
    assert_eq!(record["resource"]["type"], "order");
    assert_eq!(record["resource"]["id"], order["id"]);
    assert_eq!(record["recovery_point"], "finished");
    assert_eq!(record["attempts"], 1);

    let unknown = app.get("/v1/idempotency-keys/never-used").await;
    assert_eq!(unknown.status(), 404);
    assert_eq!(error_code(&json(unknown).await), "resource_missing");
}

#[tokio::test]
async fn the_same_key_on_another_endpoint_is_refused() {
    let app = spawn_app().await;
    app.post("/v1/orders", Some("one-key"), ORDER).await;
    let other = app
        .post(
            "/v1/webhook-endpoints",
            Some("one-key"),
            r#"{"url": "http://127.0.0.1:9/hooks"}"#,
        )
        .await;
    assert_reused(other, "Idempotency-Key reused with different endpoint").await;
    assert_eq!(app.count("webhook_endpoints").await, 0);
}

/// A command's fingerprint is computed from the command as it serialises, and is the one its
/// JSON value gave (what keys recorded before were computed from): a key recorded before a
/// deploy still matches its request after it. Bodies with other key orders, escapes, non-ASCII
/// text and defaults.
#[test]
fn a_commands_fingerprint_is_the_one_its_json_value_gave() {
    use server::accounts::auth::keys::{CreateKey, NewKey};
    use server::accounts::auth::Secret;
    use server::idempotency::fingerprint;
    use server::payments::orders::CreateOrder;
    use server::payments::payouts::CreatePayout;
    use server::payments::refunds::{CreateRefund, RefundParameters};
    use server::service::commands::Command;
    use server::service::config::Mode;
    use server::webhooks::endpoints::CreateEndpoint;

    fn same<C: Command>(command: &C) {
        let value = serde_json::to_value(command).unwrap();
        assert_eq!(
            fingerprint(C::ENDPOINT, command),
            fingerprint(C::ENDPOINT, &value),
            "{value}"
        );
    }
    fn parsed<T: serde::de::DeserializeOwned>(body: &str) -> T {
        serde_json::from_str(body).unwrap()
    }

    let described = r#"{"metadata": {"z": "\u20ac", "\u00e9": "caf\u00e9", "A": "\ud83d\ude00 \"q\" \\"},
        "description": "Caf\u00e9 \u00ab\u00a0\u00bb \"quoted\" \\ \/", "currency": "EUR", "amount": 1050}"#;
    for body in [ORDER, ORDER_REORDERED, described] {
        same(&parsed::<CreateOrder>(body));
    }
    for body in [
        r#"{"amount": 1200, "currency": "EUR", "destination": {"iban": "DE89370400440532013000", "account_holder": "Zo\u00eb \u00c5berg"}}"#,
        r#"{"description": "Rent \u2013 May", "destination": {"account_holder": "Ada", "iban": "DE89370400440532013000"}, "currency": "EUR", "amount": 1}"#,
    ] {
        same(&parsed::<CreatePayout>(body));
    }
    for body in [
        r#"{"url": "https://example.com/hooks?a=1&b=%C3%A9"}"#,
        r#"{"events": ["payout.paid", "order.created"], "url": "https://example.com/h"}"#,
    ] {
        same(&parsed::<CreateEndpoint>(body));
    }
    for body in [
        r#"{"destination": {"account_holder": "Ada", "iban": "DE89370400440532013000"}}"#,
        r#"{"reason": "duplicate", "amount": 100, "description": "\u00e9", "destination": {"iban": "DE89370400440532013000", "account_holder": "Ada"}}"#,
    ] {
        same(&CreateRefund {
            order_id: "ord_1".into(),
            refund: parsed::<RefundParameters>(body),
        });
    }
    for (body, for_merchant) in [
        (r#"{"name": "Checkout"}"#, false),
        (
            r#"{"access": "read_only", "name": "Caf\u00e9 \u2014 read"}"#,
            true,
        ),
    ] {
        same(&CreateKey {
            key: parsed::<NewKey>(body),
            for_merchant,
            secret: Secret::generate(Mode::Test),
        });
    }
}

#[path = "../../../benches/idempotency/counting_proxy.rs"]
mod counting_proxy;

#[path = "../../../benches/idempotency/schedule.rs"]
mod schedule;

/// The benchmark's open loop takes each request at its time, never before, and once, by one of
/// its connections (a connection freed by an answer looks at the clock itself; an idle one is
/// woken by the pacer), and every connection ends once all are taken. (How late is the
/// benchmark's to measure.)
#[tokio::test]
async fn the_open_loops_requests_are_each_taken_once_at_their_time_and_never_before() {
    use std::sync::{Arc, Mutex};
    use std::time::{Duration, Instant};

    let start = Instant::now() + Duration::from_millis(20);
    let schedule = schedule::Schedule::new(start, 2000, Duration::from_secs(1));
    let pacer = Arc::new(schedule::Pacer::new(schedule));
    let taken = Arc::new(Mutex::new(Vec::new()));
    let connections: Vec<_> = (0..3)
        .map(|_| {
            let (pacer, taken) = (pacer.clone(), taken.clone());
            tokio::spawn(async move {
                while let Some(n) = pacer.next().await {
                    taken.lock().unwrap().push((n, Instant::now()));
                    // Busy with the request a while, as a connection is.
                    tokio::task::yield_now().await;
                }
            })
        })
        .collect();
    let pacing = {
        let pacer = pacer.clone();
        tokio::spawn(async move { pacer.pace(3).await })
    };
    for connection in connections {
        connection.await.unwrap();
    }
    pacing.await.unwrap();
    assert_eq!(pacer.schedule().start(), start);
    let mut taken = taken.lock().unwrap().clone();
    taken.sort();
    let numbers: Vec<u64> = taken.iter().map(|&(n, _)| n).collect();
    assert_eq!(numbers, (0..schedule.total()).collect::<Vec<_>>());
    let early: Vec<u64> = taken
        .iter()
        .filter(|&&(n, at)| at < schedule.intended(n))
        .map(|&(n, _)| n)
        .collect();
    assert!(early.is_empty(), "taken before their time: {early:?}");
}

/// What one new key and one replay cost the database, counted where they cannot be mistaken:
/// commits as the cluster's write transactions ([`Meter::commits`]), and round trips in a proxy
/// between the engine and PostgreSQL (a client write after the server last spoke starts one, so
/// the pool's pings count too).
mod costs {
    use std::str::FromStr;
    use std::sync::Arc;
    use std::time::Duration;

    use serde_json::json;
    use sqlx::postgres::PgConnectOptions;
    use sqlx::{Connection, PgConnection, PgPool};

    use super::counting_proxy::CountingProxy;

    use server::idempotency::{Idempotency, IdempotencyKey, Outcome, StoredResponse};
    use server::payments::orders::CreateOrder;
    use server::service::author::{Actor, By};
    use server::service::commands::{self, Caller, Command};
    use server::service::components;
    use server::service::kernel::Kernel;
    use server::service::state::{AppState, Services};

    use super::common::{
        create_merchant, database_with_merchant, fresh_database, settings, with_database,
        TestMerchant,
    };

    /// The services a command needs, on `pool`.
    pub fn state(pool: PgPool) -> AppState {
        state_with_ttl(pool, Duration::from_secs(24 * 3600))
    }

    /// [`state`] with records that live for `ttl`.
    pub fn state_with_ttl(pool: PgPool, ttl: Duration) -> AppState {
        let settings = settings(&[
            "--partner-webhook-secret",
            kaadxpay_partner::TEST_WEBHOOK_SECRET,
        ]);
        AppState::from(Services {
            kernel: Kernel {
                idempotency: Idempotency::new(
                    pool.clone(),
                    pool.clone(),
                    ttl,
                    settings.idempotency_lease,
                ),
                pool: pool.clone(),
                webhook_allow_private_networks: true,
            },
            exports_pool: pool,
            funding: Arc::new(server::service::components::funding_details(&settings)),
            api_keys: Arc::default(),
            mode: settings.mode,
            key_usage: Arc::default(),
            metrics: server::platform::telemetry::metrics(),
            partner: components::partner_client(&settings, "http://127.0.0.1:9"),
            partner_webhook_secret: kaadxpay_partner::TEST_WEBHOOK_SECRET.into(),
            test_mode: kaadxpay_partner_sim::test_mode::TestMode::at("http://127.0.0.1:9"),
            request_log: server::request_log::RequestLog::new(&components::request_log(&settings))
                .0,
            mail: None,
            sealer: server::platform::sealing::Sealer::new(
                &server::platform::sealing::SecretsKey::from_hex(crate::common::TEST_SECRETS_KEY)
                    .unwrap(),
            ),
            step_up_window: settings.step_up_window,
        })
    }

    pub async fn create_order(state: &AppState, merchant: &TestMerchant, key: &str) -> Outcome {
        let order: CreateOrder = serde_json::from_str(super::ORDER).unwrap();
        let key = IdempotencyKey::parse(key.as_bytes()).unwrap();
        let caller = Caller {
            merchant_id: &merchant.id,
            key: &key,
            request_id: "req_costs",
            by: &crate::common::test_author(),
            maker: None,
            sealer: &state.sealer,
        };
        commands::run(state, &caller, &order).await.unwrap()
    }

    /// Write commits cluster-wide, and when the engine's pool has its connection back.
    struct Meter {
        admin: PgConnection,
        pool: PgPool,
    }

    impl Meter {
        /// Transactions that wrote, cluster-wide so far: the next transaction id. (A write
        /// transaction takes one id and commits once; a read-only one takes none and costs no
        /// commit record. `pg_stat_database.xact_commit` would also count pings and reads, and
        /// each backend adds to it lazily.)
        async fn commits(&mut self) -> i64 {
            sqlx::query_scalar("SELECT pg_snapshot_xmax(pg_current_snapshot())::text::int8")
                .fetch_one(&mut self.admin)
                .await
                .unwrap()
        }

        async fn idle(&self) {
            idle(&self.pool).await;
        }
    }

    /// Waits until `pool` has all its connections back: it pings a connection it takes back
    /// in a task of its own.
    async fn idle(pool: &PgPool) {
        while pool.num_idle() < pool.size() as usize {
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
    }

    /// A proxy that counts what goes to the database `db_url`, and a pool of one connection
    /// through it.
    async fn through_a_proxy(db_url: &str) -> (CountingProxy, PgPool) {
        let proxy = CountingProxy::start(db_url).unwrap();
        let database = PgConnectOptions::from_str(db_url)
            .unwrap()
            .get_database()
            .unwrap()
            .to_owned();
        let pool = server::platform::db::connect(&proxy.url(&database), 1, Duration::from_secs(5))
            .await
            .unwrap();
        (proxy, pool)
    }

    /// What creating the order under `key` cost: write commits and round trips.
    async fn measure(
        meter: &mut Meter,
        proxy: &CountingProxy,
        state: &AppState,
        merchant: &TestMerchant,
        key: &str,
    ) -> ((i64, u64), Outcome) {
        let (commits, trips) = (meter.commits().await, proxy.round_trips());
        let outcome = create_order(state, merchant, key).await;
        meter.idle().await;
        let trips = proxy.round_trips() - trips;
        ((meter.commits().await - commits, trips), outcome)
    }

    #[tokio::test]
    async fn remembered_answers_never_outlive_their_record_nor_cross_merchants() {
        let db_url = fresh_database().await;
        let pool = server::platform::db::connect(&db_url, 2, Duration::from_secs(5))
            .await
            .unwrap();
        let (first, second) = (
            create_merchant(&pool, "First").await,
            create_merchant(&pool, "Second").await,
        );
        let state = state_with_ttl(pool.clone(), Duration::from_secs(1));
        let Outcome::Executed(created) = create_order(&state, &first, "shared").await else {
            panic!()
        };
        let Outcome::Replayed(replayed) = create_order(&state, &first, "shared").await else {
            panic!()
        };
        assert_eq!(replayed.body, created.body);
        let Outcome::Executed(theirs) = create_order(&state, &second, "shared").await else {
            panic!("another merchant's key is its own")
        };
        assert_ne!(theirs.body, created.body);

        tokio::time::sleep(Duration::from_millis(1100)).await;
        let Outcome::Executed(anew) = create_order(&state, &first, "shared").await else {
            panic!("an expired answer was served")
        };
        assert_ne!(anew.body, created.body);
        assert_eq!(super::common::count(&pool, "orders").await, 3);
    }

    /// Runs `command` (a JSON body) under `key`.
    async fn run<C: Command + serde::de::DeserializeOwned>(
        state: &AppState,
        merchant: &TestMerchant,
        key: &str,
        body: serde_json::Value,
    ) -> Outcome {
        let command: C = serde_json::from_value(body).unwrap();
        let by = crate::common::test_author();
        run_command(state, (merchant, &by), key, &command).await
    }

    /// Runs `command` under `key` for `merchant`, `by` whom.
    async fn run_command(
        state: &AppState,
        (merchant, by): (&TestMerchant, &By),
        key: &str,
        command: &impl Command,
    ) -> Outcome {
        let key = IdempotencyKey::parse(key.as_bytes()).unwrap();
        let caller = Caller {
            merchant_id: &merchant.id,
            key: &key,
            request_id: "req_render",
            by,
            maker: None,
            sealer: &state.sealer,
        };
        commands::run(state, &caller, command).await.unwrap()
    }

    /// Captures the merchant's order `order_id`, crediting its balance.
    async fn capture(pool: &PgPool, merchant: &TestMerchant, order_id: &str) {
        use server::payments::orders::{self, Target};

        let by = super::common::test_author();
        orders::transition(pool, &merchant.id, &order_id.into(), Target::Captured, &by)
            .await
            .unwrap();
    }

    /// A `201` is recorded as a reference to what it created, and rendered again from it: a
    /// process that never saw the first answer replays it byte for byte, however the resource
    /// changed since (captured, paid out, deleted).
    #[tokio::test]
    async fn created_answers_replay_byte_for_byte_after_a_restart() {
        use server::payments::payouts::CreatePayout;
        use server::webhooks::endpoints::{self, CreateEndpoint};

        let db_url = fresh_database().await;
        let pool = server::platform::db::connect(&db_url, 2, Duration::from_secs(5))
            .await
            .unwrap();
        let merchant = create_merchant(&pool, "Render").await;
        let (first, restarted) = (state(pool.clone()), state(pool.clone()));

        let order = json!({"amount": 5000, "currency": "EUR", "description": "Blue shoes", "metadata": {"sku": "B-42", "a": "1"}});
        let Outcome::Executed(order_created) =
            run::<CreateOrder>(&first, &merchant, "order", order.clone()).await
        else {
            panic!()
        };
        let order_id = order_created.resource.clone().unwrap().id;
        capture(&pool, &merchant, &order_id).await;

        let payout = json!({"amount": 1200, "currency": "EUR", "description": "Rent", "destination": {"account_holder": "Ada Lovelace", "iban": "DE89370400440532013000"}});
        let Outcome::Executed(payout_created) =
            run::<CreatePayout>(&first, &merchant, "payout", payout.clone()).await
        else {
            panic!()
        };
        sqlx::query("UPDATE payouts SET status = 'paid', partner_transfer_id = 'tr_1', updated_at = now() + interval '1 minute'")
            .execute(&pool)
            .await
            .unwrap();

        let endpoint = json!({"url": "http://127.0.0.1:9/hooks", "events": ["order.created"]});
        let Outcome::Executed(endpoint_created) =
            run::<CreateEndpoint>(&first, &merchant, "endpoint", endpoint.clone()).await
        else {
            panic!()
        };
        let endpoint_id = endpoint_created.resource.clone().unwrap().id;
        assert!(endpoints::delete(
            &pool,
            &merchant.id,
            &endpoint_id.as_str().into(),
            &crate::common::test_author()
        )
        .await
        .unwrap());

        let (bodies, located): (Option<i64>, i64) = sqlx::query_as(
            "SELECT sum(length(response_body)), count(response_location) FROM idempotency_keys \
             WHERE key <> 'endpoint'",
        )
        .fetch_one(&pool)
        .await
        .unwrap();
        assert_eq!((bodies, located), (None, 0), "references, not bytes");
        let endpoint_bytes: Option<i32> = sqlx::query_scalar(
            "SELECT length(response_body) FROM idempotency_keys WHERE key = 'endpoint'",
        )
        .fetch_one(&pool)
        .await
        .unwrap();
        assert!(
            endpoint_bytes.is_some(),
            "an endpoint's answer shows a secret a rotation replaces: its bytes are kept"
        );
        for (key, body, created) in [
            ("order", order, order_created),
            ("payout", payout, payout_created),
            ("endpoint", endpoint, endpoint_created),
        ] {
            let replayed = match key {
                "order" => run::<CreateOrder>(&restarted, &merchant, key, body).await,
                "payout" => run::<CreatePayout>(&restarted, &merchant, key, body).await,
                _ => run::<CreateEndpoint>(&restarted, &merchant, key, body).await,
            };
            assert_replays(replayed, &created, key);
        }
    }

    /// Asserts that `replayed` is a replay of `created`, byte for byte.
    fn assert_replays(replayed: Outcome, created: &StoredResponse, what: &str) {
        let Outcome::Replayed(replayed) = replayed else {
            panic!("{what}: {replayed:?}")
        };
        assert_eq!(
            (
                replayed.status,
                &replayed.location,
                String::from_utf8_lossy(&replayed.body)
            ),
            (
                created.status,
                &created.location,
                String::from_utf8_lossy(&created.body)
            ),
            "{what}"
        );
    }

    pub async fn wal_lsn(pool: &PgPool) -> i64 {
        sqlx::query_scalar("SELECT (pg_current_wal_lsn() - '0/0')::int8")
            .fetch_one(pool)
            .await
            .unwrap()
    }

    /// The benchmark counts the request log's writer's round trips apart from the requests':
    /// the proxy counts those of a connection that has copied rows in (the writer's does
    /// nothing else), from the round trip that sent its first `COPY` data, and no other's.
    #[tokio::test]
    async fn the_proxy_counts_a_copying_connections_round_trips_apart() {
        let db_url = fresh_database().await;
        let proxy = CountingProxy::start(&db_url).unwrap();
        let database = PgConnectOptions::from_str(&db_url)
            .unwrap()
            .get_database()
            .unwrap()
            .to_owned();
        let url = proxy.url(&database);
        let (mut copying, mut other) = (
            PgConnection::connect(&url).await.unwrap(),
            PgConnection::connect(&url).await.unwrap(),
        );
        let trips = || (proxy.round_trips(), proxy.copying_round_trips());
        let mut last = trips();
        let mut counted = move |now: (u64, u64)| {
            let delta = (now.0 - last.0, now.1 - last.1);
            last = now;
            delta
        };
        sqlx::raw_sql("CREATE TEMPORARY TABLE copied (n int)")
            .execute(&mut copying)
            .await
            .unwrap();
        assert_eq!(counted(trips()), (1, 0));
        let mut copy = copying.copy_in_raw("COPY copied FROM STDIN").await.unwrap();
        copy.send(b"1\n2\n".as_slice()).await.unwrap();
        assert_eq!(copy.finish().await.unwrap(), 2);
        // The `COPY` statement, then its data with its end: the second is the copying one's.
        assert_eq!(counted(trips()), (2, 1));
        sqlx::raw_sql("SELECT 1")
            .execute(&mut copying)
            .await
            .unwrap();
        assert_eq!(counted(trips()), (1, 1));
        sqlx::raw_sql("SELECT 1").execute(&mut other).await.unwrap();
        assert_eq!(counted(trips()), (1, 0));
    }

    #[tokio::test]
    async fn a_new_key_costs_one_commit_and_one_round_trip_and_a_remembered_replay_none() {
        let (db_url, direct, merchant) = database_with_merchant("Costs").await;
        let (proxy, pool) = through_a_proxy(&db_url).await;
        let state = state(pool.clone());
        // A second engine on the same pool: what a restarted process knows (nothing in memory).
        let restarted = self::state(pool.clone());
        let admin = PgConnection::connect(&with_database(&db_url, "postgres"))
            .await
            .unwrap();
        let mut meter = Meter {
            admin,
            pool: pool.clone(),
        };
        // Warm up: the statements are prepared on the engine's connection.
        for key in ["warm-1", "warm-2"] {
            let outcome = create_order(&state, &merchant, key).await;
            assert!(matches!(outcome, Outcome::Executed(_)), "{outcome:?}");
        }
        assert!(matches!(
            create_order(&restarted, &merchant, "warm-1").await,
            Outcome::Replayed(_)
        ));
        meter.idle().await;

        // Other writers on the cluster (other tests, other databases) only ever add to a count,
        // so a count seen once bounds the cost from above: measure until the least count is
        // the cost claimed, or twenty times (the least is then the figure to report).
        let least = |a: (i64, u64), b: (i64, u64)| (a.0.min(b.0), a.1.min(b.1));
        let (mut new_key, mut replay, mut cached) = (
            (i64::MAX, u64::MAX),
            (i64::MAX, u64::MAX),
            (i64::MAX, u64::MAX),
        );
        for n in 0..20 {
            if n >= 3 && new_key.0 <= 1 && replay.0 == 0 && cached.0 == 0 {
                break;
            }
            let key = format!("costly-{n}");
            let (cost, created) = measure(&mut meter, &proxy, &state, &merchant, &key).await;
            new_key = least(new_key, cost);
            let Outcome::Executed(created) = created else {
                panic!("{created:?}")
            };
            let (cost, remembered) = measure(&mut meter, &proxy, &state, &merchant, &key).await;
            cached = least(cached, cost);
            assert!(matches!(remembered, Outcome::Replayed(_)), "{remembered:?}");
            let (cost, replayed) = measure(&mut meter, &proxy, &restarted, &merchant, &key).await;
            replay = least(replay, cost);
            let Outcome::Replayed(replayed) = replayed else {
                panic!("{replayed:?}")
            };
            assert_eq!(
                (replayed.status, &replayed.location, &replayed.body),
                (created.status, &created.location, &created.body),
                "a replay after a restart is the first answer, byte for byte"
            );
        }
        let ((new_commits, new_trips), (replay_commits, replay_trips)) = (new_key, replay);

        // WAL and storage per new key, over a thousand: figures for the record, not asserted.
        let wal = wal_lsn(&direct).await;
        for n in 0..1000 {
            create_order(&state, &merchant, &format!("wal-{n}")).await;
        }
        let wal_per_key = (wal_lsn(&direct).await - wal) / 1000;
        let (records, heap, indexes): (i64, i64, i64) = sqlx::query_as(
            "SELECT (SELECT count(*) FROM idempotency_keys), pg_relation_size('idempotency_keys'), \
               pg_indexes_size('idempotency_keys')",
        )
        .fetch_one(&direct)
        .await
        .unwrap();
        eprintln!(
            "new key: {new_commits} commits, {new_trips} round trips; replay from the database: \
             {replay_commits} commits, {replay_trips} round trips; WAL per new key: {wal_per_key} B; \
             {records} records: heap {heap} B, indexes {indexes} B"
        );
        assert_eq!(
            (new_commits, replay_commits),
            (1, 0),
            "write commits per new key and per replay"
        );
        // One statement, on a connection taken back without sqlx's ping.
        assert!(new_trips <= 1, "{new_trips} round trips per new key");
        // One statement reads the record with the resource a `201` is rendered from.
        assert!(replay_trips <= 1, "{replay_trips} round trips per replay");
        assert_eq!(
            cached,
            (0, 0),
            "a remembered replay costs the database nothing"
        );
    }

    /// Every command whose `201` is rendered again from the resource it created replays from
    /// the database (a process that never saw the key) with one look-up, which reads the record
    /// with the resource, byte for byte: an order in that statement alone (on a connection
    /// taken back without a ping); a command of several statements inside its transaction's `BEGIN` and `ROLLBACK`
    /// (sent with the ping), so that its new keys pay for no look-up more. A roll checks first
    /// that the key it rolls exists: one statement and round trip more. (On the code before, a
    /// replay of several statements read the resource again after the look-up: 4 statements,
    /// 5 round trips; a roll 5 and 7.)
    #[tokio::test]
    async fn every_created_answer_replays_from_the_database_in_one_look_up() {
        use server::accounts::auth::keys::{CreateKey, RollKey};
        use server::accounts::auth::Secret;
        use server::payments::payouts::CreatePayout;
        use server::payments::refunds::CreateRefund;

        let (db_url, direct, merchant) = database_with_merchant("Replays").await;
        // The merchant's own key acts, which the keys it makes name.
        let by = By {
            actor: Actor::ApiKey(
                sqlx::query_scalar("SELECT id FROM api_keys WHERE merchant_id = $1")
                    .bind(&merchant.id)
                    .fetch_one(&direct)
                    .await
                    .unwrap(),
            ),
            address: None,
        };
        let caller = (&merchant, &by);
        let (proxy, proxied) = through_a_proxy(&db_url).await;
        let (first, restarted) = (state(direct.clone()), state(proxied.clone()));

        let order: CreateOrder = serde_json::from_str(super::ORDER).unwrap();
        let funds: CreateOrder =
            serde_json::from_value(json!({"amount": 10000, "currency": "EUR"})).unwrap();
        let order_id = {
            let Outcome::Executed(created) = run_command(&first, caller, "fund", &funds).await
            else {
                panic!("an order to fund the balance")
            };
            created.resource.unwrap().id
        };
        capture(&direct, &merchant, &order_id).await;
        let destination =
            json!({"account_holder": "Ada Lovelace", "iban": "DE89370400440532013000"});
        let payout: CreatePayout = serde_json::from_value(
            json!({"amount": 1200, "currency": "EUR", "destination": destination}),
        )
        .unwrap();
        let refund = || CreateRefund {
            order_id: order_id.as_str().into(),
            refund: serde_json::from_value(json!({"amount": 100, "destination": destination}))
                .unwrap(),
        };
        let new_key = || CreateKey {
            key: serde_json::from_value(json!({"name": "Checkout"})).unwrap(),
            for_merchant: false,
            secret: Secret::generate(first.mode),
        };
        let rolled = {
            let created = run_command(&first, caller, "key-to-roll", &new_key()).await;
            let Outcome::Executed(created) = created else {
                panic!("a key to roll: {created:?}")
            };
            created.resource.unwrap().id
        };
        let roll = || RollKey {
            key_id: rolled.clone(),
            parameters: serde_json::from_value(json!({"overlap": "1h"})).unwrap(),
            secret: Secret::generate(first.mode),
        };

        // The command `name` under `key`, run by `state`.
        let run = async |state: &AppState, name: &str, key: &str| match name {
            "order" => run_command(state, caller, key, &order).await,
            "payout" => run_command(state, caller, key, &payout).await,
            "refund" => run_command(state, caller, key, &refund()).await,
            "api-key" => run_command(state, caller, key, &new_key()).await,
            _ => run_command(state, caller, key, &roll()).await,
        };
        let mut costs = Vec::new();
        for name in ["order", "payout", "refund", "api-key", "roll"] {
            // Each under two keys: the first replay prepares the command's statements on the
            // proxied connection, the second is measured.
            let mut replays = Vec::new();
            for key in [format!("{name}-warm"), name.to_owned()] {
                let created = run(&first, name, &key).await;
                let Outcome::Executed(created) = created else {
                    panic!("{name}: {created:?}")
                };
                assert_eq!(created.status, 201, "{name}");
                idle(&proxied).await;
                let before = (proxy.statements(), proxy.round_trips());
                let replayed = run(&restarted, name, &key).await;
                idle(&proxied).await;
                let cost = (
                    proxy.statements() - before.0,
                    proxy.round_trips() - before.1,
                );
                assert_replays(replayed, &created, name);
                replays.push(cost);
            }
            costs.push((name, replays[1]));
        }
        for (name, (statements, trips)) in &costs {
            eprintln!(
                "{name}: a replay from the database: {statements} statements, {trips} round trips"
            );
        }
        let expected: Vec<_> = costs
            .iter()
            .map(|(name, _)| {
                let cost = match *name {
                    "order" => (1, 1),
                    "roll" => (4, 5),
                    _ => (3, 3),
                };
                (*name, cost)
            })
            .collect();
        assert_eq!(costs, expected, "(statements, round trips) per replay");
    }
}
