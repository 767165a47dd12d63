//! Webhooks never reach the service's own networks (API.md §5): with private networks not
//! allowed (the default outside embedded mode), an endpoint URL that is or resolves to an
//! internal address is refused at registration in every spelling, and a send to one that got
//! into the database anyway (as a DNS rebinding would make it) is refused after resolution: the
//! receiver gets nothing and the attempt says why.

mod common;

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use axum::routing::post;
use axum::Router;
use serde_json::{json, Value};

use common::{error_code, eventually, json, spawn_app_with, TestApp};

const SPELLINGS: [&str; 12] = [
    "http://127.0.0.1:4000/v1/transfers/tr_1/reversal",
    "http://2130706433/",
    "http://0x7f000001/",
    "http://0x7f.1/",
    "http://[::1]/",
    "http://[::ffff:127.0.0.1]/",
    "http://localhost:3000/",
    "http://0.0.0.0/",
    "http://10.0.0.7/",
    "http://192.168.1.20/",
    "http://169.254.169.254/latest/meta-data/",
    "http://100.64.0.1/",
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
    assert_eq!(app.count("webhook_endpoints").await, 0);
    assert_eq!(
        app.count("idempotency_keys").await,
        0,
        "refused before execution"
    );

    let public = register(&app, "public", "https://93.184.216.34/hooks").await;
    assert_eq!(public.status(), 201, "a public address is fine");
}

/// A receiver on 127.0.0.1 that counts what reaches it.
async fn receiver() -> (u16, Arc<AtomicUsize>) {
    let hits = Arc::new(AtomicUsize::new(0));
    let router = Router::new().fallback(post({
        let hits = hits.clone();
        move || async move {
            hits.fetch_add(1, Ordering::SeqCst);
            "ok"
        }
    }));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    tokio::spawn(async move { axum::serve(listener, router).await });
    (port, hits)
}

#[tokio::test]
async fn a_send_to_an_internal_address_is_refused_after_resolution() {
    let app = guarded_app().await;
    let (port, hits) = receiver().await;
    // Endpoints that passed registration and now point inside: an IP literal and a name.
    for (id, host) in [("whe_literal", "127.0.0.1"), ("whe_name", "localhost")] {
        sqlx::query(
            "INSERT INTO webhook_endpoints (id, merchant_id, url, events, secret) \
             VALUES ($1, $2, $3, '{*}', $4)",
        )
        .bind(id)
        .bind(&app.merchant.id)
        .bind(format!("http://{host}:{port}/hook"))
        .bind(server::webhooks::signature::new_secret())
        .execute(&app.pool)
        .await
        .unwrap();
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
    let errors: Vec<Option<String>> = sqlx::query_scalar("SELECT error FROM webhook_attempts")
        .fetch_all(&app.pool)
        .await
        .unwrap();
    for error in &errors {
        let error = error.as_deref().unwrap_or_default();
        assert!(
            error.contains("not allowed") || error.contains("no public address"),
            "the attempt says why: {error}"
        );
    }
    assert_eq!(
        hits.load(Ordering::SeqCst),
        0,
        "nothing reached the receiver"
    );
    let deliveries: Value = json(app.get("/v1/events").await).await;
    assert!(!deliveries["data"].as_array().unwrap().is_empty());
}
