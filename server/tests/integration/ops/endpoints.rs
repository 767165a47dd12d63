//! The operational endpoints: health, readiness, Prometheus metrics and the OpenAPI document.

use crate::common;

use common::{json, spawn_app};

#[tokio::test]
async fn health_and_readiness_answer() {
    let app = spawn_app().await;
    for path in ["/healthz", "/readyz"] {
        let response = app.get_without_key(path).await;
        assert_eq!(response.status(), 200, "{path}");
    }
}

#[tokio::test]
async fn metrics_count_requests_and_idempotency_outcomes() {
    let app = spawn_app().await;
    let order = r#"{"amount": 5, "currency": "JPY"}"#;
    app.post("/v1/orders", Some("m1"), order).await;
    app.post("/v1/orders", Some("m1"), order).await;
    let text = app.metrics().await;
    for series in [
        "kaadxpay_http_requests_total",
        "kaadxpay_http_request_duration_seconds_bucket",
        r#"kaadxpay_idempotency_outcomes_total{outcome="new"}"#,
        r#"kaadxpay_idempotency_outcomes_total{outcome="replayed"}"#,
        "kaadxpay_idempotency_in_progress",
        "kaadxpay_webhook_deliveries_pending",
    ] {
        assert!(text.contains(series), "{series} is missing from:\n{text}");
    }
}

#[tokio::test]
async fn the_openapi_document_covers_every_v1_route() {
    let app = spawn_app().await;
    let doc = app.openapi().await;
    assert!(doc["openapi"].as_str().unwrap().starts_with("3.1"));
    for (path, method) in [
        ("/v1/orders", "post"),
        ("/v1/orders", "get"),
        ("/v1/orders/{id}", "get"),
        ("/v1/orders/{id}", "put"),
        ("/v1/balance", "get"),
        ("/v1/idempotency-keys/{key}", "get"),
        ("/v1/webhook-endpoints", "post"),
        ("/v1/webhook-endpoints", "get"),
        ("/v1/webhook-endpoints/{id}", "get"),
        ("/v1/webhook-endpoints/{id}", "delete"),
        ("/v1/events", "get"),
        ("/v1/events/{event_id}", "get"),
        ("/v1/events/{event_id}/redeliver", "post"),
        ("/v1/payouts/{id}/approve", "post"),
        ("/v1/payouts/{id}/reject", "post"),
    ] {
        assert!(
            doc["paths"][path][method].is_object(),
            "{method} {path} is not documented"
        );
    }
}

/// A body none of whose fields is required may be left out, as the API reads no body as `{}`;
/// one with a required field may not.
#[tokio::test]
async fn a_body_without_required_fields_is_declared_optional_and_may_be_left_out() {
    let app = spawn_app().await;
    let doc = app.openapi().await;
    let body_required = |path: &str, method: &str| {
        doc["paths"][path][method]["requestBody"]["required"]
            .as_bool()
            .unwrap_or(false)
    };
    assert!(!body_required("/v1/webhook-endpoints/{id}", "patch"));
    assert!(!body_required("/v1/events/{event_id}/redeliver", "post"));
    assert!(body_required("/v1/orders", "post"));
    assert!(body_required("/v1/webhook-endpoints", "post"));

    let created = app
        .post(
            "/v1/webhook-endpoints",
            Some("an-endpoint"),
            r#"{"url": "https://example.com/hooks"}"#,
        )
        .await;
    assert_eq!(created.status(), 201);
    let id = json(created).await["id"].as_str().unwrap().to_owned();
    let unchanged = app
        .client
        .patch(format!("{}/v1/webhook-endpoints/{id}", app.base_url))
        .bearer_auth(&app.merchant.api_key)
        .send()
        .await
        .unwrap();
    assert_eq!(unchanged.status(), 200);
    assert_eq!(json(unchanged).await["url"], "https://example.com/hooks");
    let no_order = app.post("/v1/orders", Some("no-body"), "").await;
    assert_eq!(no_order.status(), 400);
}

#[tokio::test]
async fn unknown_api_routes_answer_in_json() {
    let app = spawn_app().await;
    let response = app.get("/v1/nothing-here").await;
    assert_eq!(response.status(), 404);
    assert_eq!(
        common::error_code(&json(response).await),
        "resource_missing"
    );
}

#[tokio::test]
async fn a_method_a_route_does_not_take_answers_405_in_the_error_envelope() {
    let app = spawn_app().await;
    let response = app
        .client
        .delete(format!("{}/v1/orders", app.base_url))
        .bearer_auth(&app.merchant.api_key)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 405);
    let allow = response.headers()["allow"].to_str().unwrap().to_owned();
    assert!(allow.contains("GET") && allow.contains("POST"), "{allow}");
    let body = json(response).await;
    assert_eq!(common::error_code(&body), "method_not_allowed");
    assert!(
        body["error"]["message"]
            .as_str()
            .unwrap()
            .contains("DELETE"),
        "{body}"
    );
}
