//! One test per row of API.md §2 that needs no fail point (those are in `failpoints.rs`),
//! over real HTTP against a real PostgreSQL.

mod common;

use common::{error_code, json, spawn_app, spawn_app_with};

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
        server::idempotency::maintenance::purge(app.pool.clone())
            .await
            .unwrap(),
        1
    );
    assert_eq!(app.get("/v1/idempotency-keys/old").await.status(), 404);
    assert_eq!(app.get("/v1/idempotency-keys/new").await.status(), 200);
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
