//! API keys the merchant manages (API.md §11), over real HTTP against a real PostgreSQL: a new
//! key's secret works and is shown once (never stored, not even for a replay); a read-only key
//! writes nothing; a rolled key stops at the end of its overlap and a revoked one at once, on
//! every process; the single key of a merchant made before keys were managed keeps working;
//! `last_used_at` follows use.

use crate::common;

use std::time::{Duration, Instant};

use reqwest::{Client, Method, Response};
use serde_json::Value;
use sqlx::migrate::Migrator;
use sqlx::{Connection, PgConnection, PgPool};

use common::{
    database_with_merchant, error_code, eventually, fresh_database, json, post_order, spawn_app,
    with_database, ServerProcess, TestApp, TestMerchant,
};
use server::platform::db::MIGRATOR;

/// The bound within which a key past its `expires_at` is refused on every process.
const BOUND: Duration = Duration::from_secs(5);

/// `method path` to `base_url` with `api_key`, an Idempotency-Key when given, and `body`.
async fn call(
    base_url: &str,
    api_key: &str,
    method: Method,
    path: &str,
    key: Option<&str>,
    body: Option<&str>,
) -> Response {
    let mut request = Client::new()
        .request(method, format!("{base_url}{path}"))
        .bearer_auth(api_key);
    if let Some(key) = key {
        request = request.header("idempotency-key", key);
    }
    if let Some(body) = body {
        request = request
            .header("content-type", "application/json")
            .body(body.to_owned());
    }
    request.send().await.expect("the server answers")
}

/// `POST /v1/api-keys` as `api_key`; the answer's status and body.
async fn create_key(base_url: &str, api_key: &str, key: &str, body: &str) -> (u16, Value) {
    let response = call(
        base_url,
        api_key,
        Method::POST,
        "/v1/api-keys",
        Some(key),
        Some(body),
    )
    .await;
    (response.status().as_u16(), json(response).await)
}

/// `POST /v1/api-keys/{id}/roll` as `api_key`; the answer's status and body.
async fn roll(base_url: &str, api_key: &str, id: &str, overlap: &str, key: &str) -> (u16, Value) {
    let response = call(
        base_url,
        api_key,
        Method::POST,
        &format!("/v1/api-keys/{id}/roll"),
        Some(key),
        Some(&format!(r#"{{"overlap": "{overlap}"}}"#)),
    )
    .await;
    (response.status().as_u16(), json(response).await)
}

/// A key made with `body` under `key` as the app's merchant, and that merchant acting with it,
/// once its secret proved to work.
async fn a_working_key(app: &TestApp, key: &str, body: &str) -> (Value, TestMerchant) {
    let (status, created) = create_key(&app.base_url, &app.merchant.api_key, key, body).await;
    assert_eq!(status, 201, "{created}");
    let merchant = TestMerchant {
        id: app.merchant.id.clone(),
        api_key: created["secret"].as_str().expect("a secret").to_owned(),
    };
    let used = post_order(&app.base_url, &merchant, &format!("{key}-use")).await;
    assert_eq!(used.status(), 201);
    (created, merchant)
}

/// The status of an order posted with `api_key` to `base_url`.
async fn order_status(base_url: &str, merchant: &TestMerchant, api_key: &str, key: &str) -> u16 {
    let caller = TestMerchant {
        id: merchant.id.clone(),
        api_key: api_key.to_owned(),
    };
    post_order(base_url, &caller, key).await.status().as_u16()
}

/// `GET /v1/api-keys` as `api_key`.
async fn listed(base_url: &str, api_key: &str) -> Value {
    let response = call(base_url, api_key, Method::GET, "/v1/api-keys", None, None).await;
    assert_eq!(response.status(), 200);
    json(response).await
}

/// Rows of `idempotency_keys` that hold `text` anywhere, their stored answer included.
async fn records_holding(pool: &PgPool, text: &str) -> i64 {
    sqlx::query_scalar(
        "SELECT count(*) FROM idempotency_keys k \
         WHERE k::text LIKE '%' || $1 || '%' \
            OR position(convert_to($1, 'UTF8') IN coalesce(k.response_body, ''::bytea)) > 0",
    )
    .bind(text)
    .fetch_one(pool)
    .await
    .unwrap()
}

#[tokio::test]
async fn a_new_key_works_and_its_secret_is_shown_once_and_never_stored() {
    let app = spawn_app().await;
    let (created, _) = a_working_key(&app, "new-key-1", r#"{"name": "Checkout server"}"#).await;
    let secret = created["secret"].as_str().expect("the secret, once");
    assert!(secret.starts_with("sk_test_"), "{secret}");
    assert!(created["id"].as_str().unwrap().starts_with("key_"));
    assert_eq!(created["object"], "api_key");
    assert_eq!(created["name"], "Checkout server");
    assert_eq!(created["prefix"], secret[..12]);
    assert_eq!(created["access"], "read_write");
    assert_eq!(created["expires_at"], Value::Null);
    assert_eq!(created["last_used_at"], Value::Null);

    // A replay answers the same key, without its secret.
    let replay = call(
        &app.base_url,
        &app.merchant.api_key,
        Method::POST,
        "/v1/api-keys",
        Some("new-key-1"),
        Some(r#"{"name": "Checkout server"}"#),
    )
    .await;
    assert_eq!(replay.status(), 201);
    assert_eq!(replay.headers()["idempotent-replayed"], "true");
    let replayed = json(replay).await;
    assert_eq!(replayed["id"], created["id"]);
    assert_eq!(replayed["prefix"], created["prefix"]);
    assert_eq!(replayed["secret"], Value::Null);
    assert_eq!(records_holding(&app.pool, secret).await, 0);
    // Nor in the request log, once the creation is logged.
    eventually(Duration::from_secs(10), "the creation logged", || async {
        app.count("request_log WHERE route = 'POST /v1/api-keys'")
            .await
            == 2
    })
    .await;
    let logged: i64 = sqlx::query_scalar(
        "SELECT count(*) FROM request_log r WHERE r::text LIKE '%' || $1 || '%'",
    )
    .bind(secret)
    .fetch_one(&app.pool)
    .await
    .unwrap();
    assert_eq!(logged, 0);
    assert_eq!(
        records_holding(&app.pool, &created["id"].as_str().unwrap()[4..]).await,
        1
    );

    // Listed (with the merchant's first key), never with a secret.
    let list = json(app.get("/v1/api-keys").await).await;
    let keys = list["data"].as_array().unwrap();
    assert_eq!(keys.len(), 2, "{list}");
    assert_eq!(keys[0]["id"], created["id"]);
    assert!(keys.iter().all(|key| key["secret"].is_null()), "{list}");
}

#[tokio::test]
async fn a_read_only_key_reads_and_writes_nothing() {
    let app = spawn_app().await;
    app.fund(10_000).await;
    let order = json(app.get("/v1/orders").await).await["data"][0].clone();
    let (status, created) = create_key(
        &app.base_url,
        &app.merchant.api_key,
        "read-only-key",
        r#"{"name": "Dashboard", "access": "read_only"}"#,
    )
    .await;
    assert_eq!(status, 201, "{created}");
    assert_eq!(created["access"], "read_only");
    let secret = created["secret"].as_str().unwrap();
    let before = app.snapshot().await;

    let writes = [
        (
            Method::POST,
            "/v1/orders".to_owned(),
            r#"{"amount": 100, "currency": "EUR"}"#,
        ),
        (
            Method::POST,
            "/v1/payouts".to_owned(),
            r#"{"amount": 100, "currency": "EUR", "destination": {"account_holder": "A", "iban": "GB82WEST12345698765432"}}"#,
        ),
        (
            Method::POST,
            "/v1/api-keys".to_owned(),
            r#"{"name": "More"}"#,
        ),
        (
            Method::PUT,
            format!("/v1/orders/{}", order["id"].as_str().unwrap()),
            r#"{"status": "cancelled"}"#,
        ),
        (
            Method::DELETE,
            format!("/v1/api-keys/{}", created["id"].as_str().unwrap()),
            "",
        ),
    ];
    for (method, path, body) in writes {
        let response = call(
            &app.base_url,
            secret,
            method.clone(),
            &path,
            Some("read-only-write"),
            (!body.is_empty()).then_some(body),
        )
        .await;
        assert_eq!(response.status(), 403, "{method} {path}");
        assert_eq!(
            error_code(&json(response).await),
            "forbidden",
            "{method} {path}"
        );
    }
    assert_eq!(
        app.snapshot().await,
        before,
        "a refused write changed something"
    );
    assert_eq!(app.count("payouts").await, 0);
    assert_eq!(app.count("api_keys WHERE expires_at IS NOT NULL").await, 0);

    for path in ["/v1/orders", "/v1/api-keys"] {
        let read = call(&app.base_url, secret, Method::GET, path, None, None).await;
        assert_eq!(read.status(), 200, "{path}");
    }
}

/// Two `kaadxpay` processes on one database, its merchant, and a key `created` for it.
struct Replicas {
    /// Kept for its check at the test's end.
    _database: common::TestDatabase,
    pool: PgPool,
    merchant: TestMerchant,
    first: ServerProcess,
    second: ServerProcess,
    created: Value,
}

async fn two_replicas_with_a_new_key(name: &str) -> Replicas {
    let (db_url, pool, merchant) = database_with_merchant(name).await;
    let first = ServerProcess::start(&db_url, &[]).await;
    let second = ServerProcess::start(&db_url, &[]).await;
    let (status, created) = create_key(
        &first.base_url,
        &merchant.api_key,
        "new-key",
        &format!(r#"{{"name": "{name}"}}"#),
    )
    .await;
    assert_eq!(status, 201, "{created}");
    Replicas {
        _database: db_url,
        pool,
        merchant,
        first,
        second,
        created,
    }
}

#[tokio::test]
async fn a_key_rolled_now_stops_on_every_process_within_the_bound_and_its_successor_works() {
    let Replicas {
        _database: _db,
        pool,
        merchant,
        first,
        second,
        created,
    } = two_replicas_with_a_new_key("Old").await;
    let old = created["secret"].as_str().unwrap().to_owned();
    for process in [&first, &second] {
        assert_eq!(
            order_status(&process.base_url, &merchant, &old, "warm").await,
            201
        );
    }

    let (status, rolled) = roll(
        &second.base_url,
        &merchant.api_key,
        created["id"].as_str().unwrap(),
        "now",
        "roll-now",
    )
    .await;
    let rolled_at = Instant::now();
    assert_eq!(status, 201, "{rolled}");
    assert_ne!(rolled["id"], created["id"]);
    assert_eq!(rolled["name"], "Old");
    let new = rolled["secret"]
        .as_str()
        .expect("the new secret")
        .to_owned();

    for process in [&first, &second] {
        let mut n = 0;
        let refused_at = loop {
            n += 1;
            let status =
                order_status(&process.base_url, &merchant, &old, &format!("old-{n}")).await;
            if status == 401 {
                break Instant::now();
            }
            assert_eq!(status, 201);
            assert!(
                rolled_at.elapsed() < BOUND * 3,
                "the old key still works {:?} after its roll",
                rolled_at.elapsed()
            );
            tokio::time::sleep(Duration::from_millis(50)).await;
        };
        // Announced: long before the cached lookup (made just before the roll) would lapse.
        assert!(
            refused_at - rolled_at < BOUND / 2,
            "the rolled key worked {:?} after its roll: the roll was not announced",
            refused_at - rolled_at
        );
        assert_eq!(
            order_status(&process.base_url, &merchant, &new, "new").await,
            201
        );
    }

    // The old key, listed, expired when it was rolled.
    let list = listed(&first.base_url, &new).await;
    let listed_old = list["data"]
        .as_array()
        .unwrap()
        .iter()
        .find(|key| key["id"] == created["id"])
        .unwrap()
        .clone();
    assert!(!listed_old["expires_at"].is_null(), "{list}");

    // A replay of the roll answers the same successor, without its secret; the old key, expired,
    // cannot be rolled again.
    let id = created["id"].as_str().unwrap();
    let (status, replayed) = roll(&first.base_url, &new, id, "now", "roll-now").await;
    assert_eq!(status, 201, "{replayed}");
    assert_eq!(replayed["id"], rolled["id"]);
    assert_eq!(replayed["secret"], Value::Null);
    assert_eq!(records_holding(&pool, &new).await, 0);
    let (status, refused) = roll(&first.base_url, &new, id, "now", "roll-again").await;
    assert_eq!(
        (status, error_code(&refused)),
        (409, "invalid_state_transition")
    );
}

#[tokio::test]
async fn a_key_rolled_with_an_overlap_works_until_the_overlap_ends_and_not_after() {
    let Replicas {
        _database: _db,
        pool,
        merchant,
        first,
        second,
        created,
    } = two_replicas_with_a_new_key("Overlapping").await;
    let id = created["id"].as_str().unwrap().to_owned();
    let old = created["secret"].as_str().unwrap().to_owned();
    let (status, rolled) = roll(&first.base_url, &merchant.api_key, &id, "1h", "roll-1h").await;
    assert_eq!(status, 201, "{rolled}");
    let new = rolled["secret"].as_str().unwrap().to_owned();
    for process in [&first, &second] {
        assert_eq!(
            order_status(&process.base_url, &merchant, &old, "old-still").await,
            201
        );
        assert_eq!(
            order_status(&process.base_url, &merchant, &new, "new").await,
            201
        );
    }
    let expires_in: f64 = sqlx::query_scalar(
        "SELECT extract(epoch FROM expires_at - now())::float8 FROM api_keys WHERE id = $1",
    )
    .bind(&id)
    .fetch_one(&pool)
    .await
    .unwrap();
    assert!((3500.0..=3600.0).contains(&expires_in), "{expires_in}");

    // The overlap's end, brought close (as an operator would): no process trusts a lookup
    // beyond it, however recently it cached one.
    sqlx::query("UPDATE api_keys SET expires_at = now() + interval '3 seconds' WHERE id = $1")
        .bind(&id)
        .execute(&pool)
        .await
        .unwrap();
    let ends = Instant::now() + Duration::from_secs(3);
    let mut n = 0;
    let mut last_worked = None;
    while Instant::now() < ends + BOUND + Duration::from_secs(2) {
        for process in [&first, &second] {
            n += 1;
            match order_status(&process.base_url, &merchant, &old, &format!("end-{n}")).await {
                201 => last_worked = Some(Instant::now()),
                status => assert_eq!(status, 401),
            }
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let last_worked = last_worked.expect("the old key worked until its overlap ended");
    assert!(
        last_worked < ends + Duration::from_millis(500),
        "the old key worked {:?} after its overlap ended",
        last_worked - ends
    );
}

#[tokio::test]
async fn a_revoked_key_stops_at_once() {
    let app = spawn_app().await;
    let (created, merchant) = a_working_key(&app, "to-revoke", r#"{"name": "Leaked"}"#).await;

    let revoked = call(
        &app.base_url,
        &app.merchant.api_key,
        Method::DELETE,
        &format!("/v1/api-keys/{}", created["id"].as_str().unwrap()),
        None,
        None,
    )
    .await;
    assert_eq!(revoked.status(), 200);
    let revoked = json(revoked).await;
    assert_eq!(revoked["id"], created["id"]);
    assert!(!revoked["expires_at"].is_null(), "{revoked}");
    assert_eq!(revoked["secret"], Value::Null);

    eventually(BOUND, "the revoked key refused", || async {
        post_order(&app.base_url, &merchant, "after").await.status() == 401
    })
    .await;
    // Another merchant's key is not found.
    let other = common::create_merchant(&app.pool, "Other").await;
    let foreign = call(
        &app.base_url,
        &other.api_key,
        Method::DELETE,
        &format!("/v1/api-keys/{}", created["id"].as_str().unwrap()),
        None,
        None,
    )
    .await;
    assert_eq!(foreign.status(), 404);
}

#[tokio::test]
async fn the_single_key_of_a_merchant_made_before_managed_keys_keeps_working() {
    // A database migrated up to the last migration before managed keys, with a merchant made
    // the way `merchants create` made them then.
    let database = format!("kxp_before_{}", uuid::Uuid::new_v4().simple());
    let admin_url = fresh_database().await;
    let mut admin = PgConnection::connect(&admin_url).await.unwrap();
    sqlx::query(&format!("CREATE DATABASE {database}"))
        .execute(&mut admin)
        .await
        .unwrap();
    admin.close().await.unwrap();
    let db_url = with_database(&admin_url, &database);
    let before = Migrator {
        migrations: MIGRATOR
            .iter()
            .filter(|migration| migration.version < 20261204175300)
            .cloned()
            .collect::<Vec<_>>()
            .into(),
        ..Migrator::DEFAULT
    };
    let mut conn = PgConnection::connect(&db_url).await.unwrap();
    before.run(&mut conn).await.unwrap();
    let old_key = "sk_test_madeBeforeManagedKeysExistedxxxxxxxxxxxxxxxx";
    sqlx::query(
        "INSERT INTO merchants (id, name, api_key_hash) VALUES ('mer_old', 'Old', sha256($1))",
    )
    .bind(old_key.as_bytes())
    .execute(&mut conn)
    .await
    .unwrap();
    MIGRATOR.run(&mut conn).await.unwrap();
    conn.close().await.unwrap();

    let process = ServerProcess::start(&db_url, &[]).await;
    let merchant = TestMerchant {
        id: "mer_old".into(),
        api_key: old_key.to_owned(),
    };
    assert_eq!(
        post_order(&process.base_url, &merchant, "old-key")
            .await
            .status(),
        201
    );
    let list = listed(&process.base_url, old_key).await;
    let keys = list["data"].as_array().unwrap();
    assert_eq!(keys.len(), 1, "{list}");
    assert_eq!(keys[0]["access"], "read_write");
    assert!(
        keys[0]["id"].as_str().unwrap().starts_with("key_"),
        "{list}"
    );
    // Its secret was never stored: its prefix is learnt from its first use.
    eventually(
        Duration::from_secs(60),
        "the old key's prefix learnt",
        || async {
            let list = listed(&process.base_url, old_key).await;
            list["data"][0]["prefix"] == old_key[..12]
        },
    )
    .await;
}

#[tokio::test]
async fn last_used_at_follows_use() {
    let app = spawn_app().await;
    let used_at = chrono::Utc::now();
    let (created, _) = a_working_key(&app, "to-use", r#"{"name": "Used"}"#).await;
    let id = created["id"].as_str().unwrap().to_owned();
    eventually(Duration::from_secs(60), "last_used_at set", || async {
        let list = json(app.get("/v1/api-keys").await).await;
        let key = list["data"]
            .as_array()
            .unwrap()
            .iter()
            .find(|key| key["id"] == id.as_str())
            .unwrap()
            .clone();
        key["last_used_at"]
            .as_str()
            .and_then(|at| chrono::DateTime::parse_from_rfc3339(at).ok())
            .is_some_and(|at| at >= used_at - chrono::Duration::seconds(1))
    })
    .await;
}

/// What each `DELETE` leaves (Schemathesis's `use_after_free` takes every `DELETE` for a
/// removal, so this says it instead): a deleted webhook endpoint is gone to `GET`, while a
/// revoked API key stays readable and listed, with the moment it stopped working.
#[tokio::test]
async fn a_deleted_endpoint_is_gone_and_a_revoked_key_stays_readable() {
    let app = spawn_app().await;
    let api_key = &app.merchant.api_key;

    let endpoint = json(
        call(
            &app.base_url,
            api_key,
            Method::POST,
            "/v1/webhook-endpoints",
            Some("endpoint-to-delete"),
            Some(r#"{"url": "https://merchant.example/hooks", "events": ["*"]}"#),
        )
        .await,
    )
    .await;
    let endpoint_path = format!("/v1/webhook-endpoints/{}", endpoint["id"].as_str().unwrap());
    let deleted = call(
        &app.base_url,
        api_key,
        Method::DELETE,
        &endpoint_path,
        None,
        None,
    )
    .await;
    assert_eq!(deleted.status(), 200);
    let after = call(
        &app.base_url,
        api_key,
        Method::GET,
        &endpoint_path,
        None,
        None,
    )
    .await;
    assert_eq!(after.status(), 404);

    let (created, _) = a_working_key(&app, "key-to-revoke", r#"{"name": "Old"}"#).await;
    let key_path = format!("/v1/api-keys/{}", created["id"].as_str().unwrap());
    let revoked = json(
        call(
            &app.base_url,
            api_key,
            Method::DELETE,
            &key_path,
            None,
            None,
        )
        .await,
    )
    .await;
    let read = call(&app.base_url, api_key, Method::GET, &key_path, None, None).await;
    assert_eq!(read.status(), 200);
    let read = json(read).await;
    assert_eq!(read["expires_at"], revoked["expires_at"]);
    assert!(!read["expires_at"].is_null(), "{read}");
    let list = listed(&app.base_url, api_key).await;
    assert!(
        list["data"]
            .as_array()
            .unwrap()
            .iter()
            .any(|key| key["id"] == created["id"]),
        "{list}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_key_rolled_now_or_revoked_stops_before_the_answer_comes() {
    let app = spawn_app().await;
    let body = r#"{"name": "at once", "access": "read_write"}"#;
    for round in 0..5 {
        // Rolled with no overlap: the old secret, cached a moment ago, is refused at once.
        let (created, merchant) = a_working_key(&app, &format!("once-{round}"), body).await;
        let id = created["id"].as_str().unwrap();
        let (status, rolled) = roll(
            &app.base_url,
            &app.merchant.api_key,
            id,
            "now",
            &format!("roll-{round}"),
        )
        .await;
        assert_eq!(status, 201, "{rolled}");
        let old = order_status(
            &app.base_url,
            &merchant,
            &merchant.api_key,
            &format!("old-{round}"),
        )
        .await;
        assert_eq!(old, 401, "round {round}: the rolled key still worked");

        // Revoked: the same.
        let (created, merchant) = a_working_key(&app, &format!("gone-{round}"), body).await;
        let path = format!("/v1/api-keys/{}", created["id"].as_str().unwrap());
        let revoked = call(
            &app.base_url,
            &app.merchant.api_key,
            Method::DELETE,
            &path,
            None,
            None,
        )
        .await;
        assert_eq!(revoked.status(), 200);
        let after = order_status(
            &app.base_url,
            &merchant,
            &merchant.api_key,
            &format!("after-{round}"),
        )
        .await;
        assert_eq!(after, 401, "round {round}: the revoked key still worked");
    }
}
