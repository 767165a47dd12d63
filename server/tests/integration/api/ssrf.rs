//! Webhooks never reach the service's own networks (API.md §5): with private networks not
//! allowed (the default outside embedded mode), an endpoint URL that is or resolves to an
//! internal address is refused at registration in every spelling, and a send to one that got
//! into the database anyway (as a DNS rebinding would make it) is refused after resolution: the
//! receiver gets nothing and the attempt says why.

use crate::common;

use std::time::Duration;

use serde_json::json;

use common::webhooks::Receiver;
use common::{error_code, eventually, json, spawn_app_with, TestApp};

const SPELLINGS: [&str; 22] = [
    "http://127.0.0.1:4000/v1/transfers/tr_1/reversal",
    "http://127.0.0.1./",
    "http://2130706433/",
    "http://0x7f000001/",
    "http://0x7f.1/",
    "http://0177.0.0.1/",
    "http://[::1]/",
    "http://[::ffff:127.0.0.1]/",
    "http://[::ffff:7f00:1]/",
    "http://localhost:3000/",
    "http://localhost./",
    "http://api.localhost/",
    "http://0.0.0.0/",
    "http://[::]/",
    "http://10.0.0.7/",
    "http://192.168.1.20/",
    "http://169.254.169.254/latest/meta-data/",
    "http://100.64.0.1/",
    "http://[fd00::1]/",
    "http://[fe80::1]/",
    "http://224.0.0.1/",
    "http://255.255.255.255/",
];

async fn guarded_app() -> TestApp {
    spawn_app_with(&[
        "--webhook-allow-private-networks",
        "false",
        "--webhook-interval",
        "50ms",
    ])
    .await
}

async fn register(app: &TestApp, key: &str, url: &str) -> reqwest::Response {
    app.post(
        "/v1/webhook-endpoints",
        Some(key),
        &json!({ "url": url }).to_string(),
    )
    .await
}

#[tokio::test]
async fn internal_addresses_are_refused_at_registration_in_every_spelling() {
    let app = guarded_app().await;
    for (n, url) in SPELLINGS.iter().enumerate() {
        let response = register(&app, &format!("internal-{n}"), url).await;
        assert_eq!(response.status(), 400, "{url}");
        let body = json(response).await;
        assert_eq!(error_code(&body), "invalid_request", "{url}");
        assert_eq!(body["error"]["param"], "url", "{url}");
    }
    let hex = json(register(&app, "hex", "http://0x7f.1/").await).await;
    assert_eq!(
        hex["error"]["message"],
        "url is not allowed: 127.0.0.1 is an internal address (loopback, private, link-local \
         or the like); webhooks go to the public internet only.",
        "the answer names the address the spelling means"
    );
    assert_eq!(app.count("webhook_endpoints").await, 0);
    assert_eq!(
        app.count("idempotency_keys").await,
        0,
        "refused before execution"
    );

    let public = register(&app, "public", "https://93.184.216.34/hooks").await;
    assert_eq!(public.status(), 201, "a public address is fine");
}

async fn insert_endpoint(pool: &sqlx::PgPool, merchant_id: &str, id: &str, url: &str) {
    sqlx::query(
        "INSERT INTO webhook_endpoints (id, merchant_id, url, events, secret_sealed) \
         VALUES ($1, $2, $3, '{*}', $4)",
    )
    .bind(id)
    .bind(merchant_id)
    .bind(url)
    .bind(common::webhooks::new_sealed_secret(id))
    .execute(pool)
    .await
    .unwrap();
}

/// Each endpoint's attempts: (endpoint id, error, the delivery's status after it).
async fn attempts(pool: &sqlx::PgPool) -> Vec<(String, Option<String>, String)> {
    sqlx::query_as(
        "SELECT d.endpoint_id, a.error, d.status FROM webhook_attempts a \
         JOIN webhook_deliveries d ON d.id = a.delivery_id ORDER BY d.endpoint_id",
    )
    .fetch_all(pool)
    .await
    .unwrap()
}

#[tokio::test]
async fn a_send_to_an_internal_address_is_refused_after_resolution() {
    let app = guarded_app().await;
    let receiver = Receiver::start(&[]).await;
    // Endpoints that passed registration and now point inside (as a DNS rebinding makes a
    // name do): an IP literal, judged before the send, and a name, judged by the resolver.
    for (id, host) in [("whe_literal", "127.0.0.1"), ("whe_name", "localhost")] {
        let url = format!("http://{host}:{}/hook", receiver.port);
        insert_endpoint(&app.pool, &app.merchant.id, id, &url).await;
    }
    let order = app
        .post(
            "/v1/orders",
            Some("order"),
            r#"{"amount": 100, "currency": "EUR"}"#,
        )
        .await;
    assert_eq!(order.status(), 201);

    eventually(
        Duration::from_secs(10),
        "both sends were attempted",
        || async { app.count("webhook_attempts").await >= 2 },
    )
    .await;
    let attempts = attempts(&app.pool).await;
    let error = |endpoint: &str| {
        attempts
            .iter()
            .find(|(id, _, _)| id == endpoint)
            .and_then(|(_, error, _)| error.clone())
            .unwrap_or_default()
    };
    assert!(
        error("whe_literal")
            .starts_with("the endpoint's address is not allowed: 127.0.0.1 is an internal address"),
        "the attempt says why: {}",
        error("whe_literal")
    );
    assert!(
        error("whe_name")
            .starts_with("the endpoint's address is not allowed: localhost resolves to"),
        "the resolver judged the name, and the attempt says why: {}",
        error("whe_name")
    );
    assert!(
        attempts.iter().all(|(_, _, status)| status == "pending"),
        "a refused send is retried on the schedule, as DNS may change back: {attempts:?}"
    );
    assert_eq!(receiver.received().len(), 0, "nothing reached the receiver");
}

/// A proxy from the environment (`HTTP_PROXY`) would resolve the endpoint's name itself, past
/// the guard: guarded sends go direct.
#[tokio::test]
async fn an_environment_proxy_does_not_carry_sends_past_the_guard() {
    let (db_url, pool, merchant) = common::database_with_merchant("proxied").await;
    let proxied = Receiver::start(&[]).await;
    let proxy = format!("http://127.0.0.1:{}", proxied.port);
    let server = common::ServerProcess::start(
        &db_url,
        &[
            ("KAADXPAY_WEBHOOK_ALLOW_PRIVATE_NETWORKS", "false"),
            ("KAADXPAY_WEBHOOK_INTERVAL", "50ms"),
            ("HTTP_PROXY", &proxy),
            ("http_proxy", &proxy),
        ],
    )
    .await;
    // The cloud metadata service's name: on a cloud host it resolves to 169.254.169.254.
    let url = "http://metadata.google.internal/computeMetadata/v1/";
    insert_endpoint(&pool, &merchant.id, "whe_metadata", url).await;
    assert_eq!(
        common::post_order(&server.base_url, &merchant, "order")
            .await
            .status(),
        201
    );

    eventually(
        Duration::from_secs(10),
        "the send was attempted",
        || async { common::count(&pool, "webhook_attempts").await >= 1 },
    )
    .await;
    assert_eq!(
        proxied.received().len(),
        0,
        "the send did not go through the proxy"
    );
    let attempts = attempts(&pool).await;
    let error = attempts[0].1.as_deref().unwrap_or_default();
    assert!(
        error.contains("metadata.google.internal"),
        "the attempt failed at the guard: {error}"
    );
}
